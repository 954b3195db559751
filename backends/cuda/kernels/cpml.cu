/* The CPML correction of one component inside one layer over the box r (Roden & Gedney 2000):
 * one thread per node, the body yee_cpml_node of yee_cell.h. psi is stored over `layer`'s
 * storage box (the layer's cells in the chunk). */
extern "C" __global__ void YEE_NAME(yee_cpml)(YEE_VALUE *values, YEE_VALUE *psi,
                                              YEE_NAME(yee_term) term,
                                              const unsigned short *ids, int uniform,
                                              const YEE_REAL *coefficients, yee_region r,
                                              yee_region layer, int electric)
{
    long long p[3];
    if (!yee_thread_node(r.lo, r.hi, p))
        return;
    YEE_NAME(yee_cpml_node)(values, psi, &term, ids, uniform, coefficients, &r, p,
                            layer.storage_lo, layer.extent, electric);
}
