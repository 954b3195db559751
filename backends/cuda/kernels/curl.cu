/* The Yee curl update of one component over the box r (Yee 1966): one thread per node, the
 * body yee_curl_node of yee_cell.h. `ids` null: every node has material `uniform`. Sets
 * *non_finite when it stores a NaN or an infinity. */
extern "C" __global__ void YEE_NAME(yee_curl)(YEE_VALUE *values, YEE_NAME(yee_terms) terms,
                                              const unsigned short *ids, int uniform,
                                              const YEE_REAL *coefficients, yee_region r,
                                              int electric, int *non_finite)
{
    long long p[3];
    if (!yee_thread_node(r.lo, r.hi, p))
        return;
    YEE_NAME(yee_curl_node)(values, &terms, ids, uniform, coefficients, &r, p, electric,
                            non_finite);
}
