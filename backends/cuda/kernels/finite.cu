/* The divergence check: the smallest order key (x fastest over the grid gx x gy x gz) of a
 * node of the box r whose stored value is NaN or infinite, reduced into *first by atomicMin
 * (which starts at YEE_FINITE_KEY). The body yee_non_finite_key of yee_cell.h. */
extern "C" __global__ void YEE_NAME(yee_non_finite)(const YEE_VALUE *values, yee_region r,
                                                    long long gx, long long gy, long long gz,
                                                    unsigned long long *first)
{
    long long p[3];
    if (!yee_thread_node(r.lo, r.hi, p))
        return;
    const long long grid[3] = {gx, gy, gz};
    unsigned long long key = YEE_NAME(yee_non_finite_key)(values, &r, p, grid);
    if (key != YEE_FINITE_KEY)
        atomicMin(first, key);
}
