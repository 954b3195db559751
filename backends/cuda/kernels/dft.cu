/* The DFT pass of one component over the box r (Oskooi et al. 2010, sec. 4.3): one thread per
 * node adds its value times the step's weights to its running sums, the body yee_dft_node of
 * yee_cell.h. The field is stored over r's storage box, the sums `per_node` to a node over
 * `part`'s (the monitor's nodes in the chunk). */
extern "C" __global__ void YEE_NAME(yee_dft)(YEE_VALUE *sums, const YEE_VALUE *values,
                                             const YEE_REAL *weights, long long per_node,
                                             yee_region r, yee_region part)
{
    long long p[3];
    if (!yee_thread_node(r.lo, r.hi, p))
        return;
    YEE_NAME(yee_dft_node)(sums, values, weights, per_node, &r, p, part.storage_lo,
                           part.extent);
}
