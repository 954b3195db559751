/* The off-diagonal pass of one component at its tensor nodes inside the box r (Kottke,
 * Farjadpour & Johnson 2008): one thread per node n (of `count`), at cells[3n..3n+3] and
 * storage offset offsets[n], with its eight neighbours' offsets, two weights and two loss
 * weights, and its two running sums (integrals NULL where the list keeps none); `other0`
 * and `other1` are the curl terms of the components along the two other axes (in increasing
 * axis order), has0 and has1 whether the mode carries them. The body yee_tensor_node. Sets
 * *non_finite when it stores a NaN or an infinity. */
extern "C" __global__ void YEE_NAME(yee_tensor)(YEE_VALUE *values, long long count,
                                                const long long *cells,
                                                const long long *offsets,
                                                const long long *neighbours,
                                                const YEE_REAL *weights,
                                                const YEE_REAL *loss, YEE_VALUE *integrals,
                                                YEE_NAME(yee_terms) other0,
                                                YEE_NAME(yee_terms) other1, int has0, int has1,
                                                yee_region r, int electric, int *non_finite)
{
    long long n = yee_listed_node(count, cells, r.lo, r.hi);
    if (n < 0)
        return;
    const YEE_NAME(yee_terms) other[2] = {other0, other1};
    const int has[2] = {has0, has1};
    if (!YEE_NAME(yee_tensor_node)(values, offsets[n], neighbours + 8 * n, weights + 2 * n,
                                   loss + 2 * n, integrals ? integrals + 2 * n : 0, other,
                                   has, electric))
        *non_finite = 1;
}
