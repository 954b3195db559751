/* The Yee curl update of a phase's components over their boxes (Yee 1966), all in one launch:
 * one thread per node of the launch box `box`, which updates each component i (of `count`, at
 * most three) whose box r_i holds its node, with the body yee_curl_node of yee_cell.h. A
 * phase's components read only the other phase's fields, so the order they are updated in
 * does not change a bit; one launch reads each of those fields once from DRAM where one
 * launch per component read each twice (the 72 bytes per cell of the f32 byte model, against
 * 96). `ids_i` null: every node of component i has material `uniform_i`. The components
 * share the storage box of box and every r_i. Sets *non_finite when it stores a NaN or an
 * infinity. */
extern "C" __global__ void YEE_NAME(yee_curl)(
    YEE_VALUE *values0, YEE_NAME(yee_terms) terms0, const unsigned short *ids0, int uniform0,
    yee_region r0, YEE_VALUE *values1, YEE_NAME(yee_terms) terms1, const unsigned short *ids1,
    int uniform1, yee_region r1, YEE_VALUE *values2, YEE_NAME(yee_terms) terms2,
    const unsigned short *ids2, int uniform2, yee_region r2, int count,
    const YEE_REAL *coefficients, yee_region box, int electric, int *non_finite)
{
    long long p[3];
    if (!yee_thread_node(box.lo, box.hi, p))
        return;
    if (count > 0 && yee_in_box(p, r0.lo, r0.hi))
        YEE_NAME(yee_curl_node)(values0, &terms0, ids0, uniform0, coefficients, &r0, p,
                                electric, non_finite);
    if (count > 1 && yee_in_box(p, r1.lo, r1.hi))
        YEE_NAME(yee_curl_node)(values1, &terms1, ids1, uniform1, coefficients, &r1, p,
                                electric, non_finite);
    if (count > 2 && yee_in_box(p, r2.lo, r2.hi))
        YEE_NAME(yee_curl_node)(values2, &terms2, ids2, uniform2, coefficients, &r2, p,
                                electric, non_finite);
}
