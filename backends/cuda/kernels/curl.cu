/* The Yee curl update of a phase's components over their boxes (Yee 1966), all in one launch:
 * one thread per node of the launch box `box`, which updates each component i (of `count`, at
 * most three) whose box r_i holds its node. A phase's components read only the other phase's
 * fields (source0, source1, source2: along x, y and z, null where the mode has none), so the
 * order they are updated in does not change a bit, and one launch reads each of those fields
 * once from DRAM where one launch per component read each twice (the 72 bytes per cell of the
 * f32 byte model, against 96). The arithmetic is yee_cell.h's, in its order (yee_curl_node):
 *   curl = 0; for each term: curl = curl +/- (difference * (1/kappa));
 *   value = value * decay + curl * gain
 * with fewer loads per node, each of which was an instruction the kernel was bound by:
 *   - the node's own value of each source field is loaded once for all the terms reading it
 *     (a term's `source` is one of source0..2, matched by address);
 *   - a term whose `stretch` is null has 1/kappa = 1 at every node of the launch (the host
 *     checks its table), and d * 1 is d exactly, so the product is left out;
 *   - a component whose `ids_i` is null has material decay_i, gain_i for every node (the
 *     coefficient table's row, passed by value).
 * The components share the storage box of box and every r_i. Sets *non_finite when it stores
 * a NaN or an infinity. */

/* The value at storage offset o of the source field s: one of the node's three loaded values
 * (own0..2 of source0..2), picked by address, not by index (an index would put them in
 * per-thread local memory). */
static __device__ inline YEE_VALUE YEE_NAME(yee_own)(const YEE_VALUE *s, const YEE_VALUE *source0,
                                                   const YEE_VALUE *source1, YEE_VALUE own0,
                                                   YEE_VALUE own1, YEE_VALUE own2)
{
    return s == source0 ? own0 : (s == source1 ? own1 : own2);
}

/* curl +/- the (stretched) difference of term t at storage offset o of the node at p, its
 * source's value at o given (`own`). */
static __device__ inline YEE_VALUE YEE_NAME(yee_phase_term)(YEE_VALUE curl,
                                                          const YEE_NAME(yee_term) *t,
                                                          YEE_VALUE own, long long o,
                                                          const long long p[3], int electric)
{
    YEE_VALUE d = electric ? own - t->source[o - t->stride] : t->source[o + t->stride] - own;
    YEE_VALUE scaled = t->stretch ? d * t->stretch[3 * yee_coordinate(p, t->axis) + 2] : d;
    return t->sign > 0 ? curl + scaled : curl - scaled;
}

/* The curl of one component at o (0, then each term in turn: yee_curl's order). */
static __device__ inline YEE_VALUE YEE_NAME(yee_phase_curl)(
    const YEE_NAME(yee_terms) *terms, const YEE_VALUE *source0, const YEE_VALUE *source1,
    YEE_VALUE own0, YEE_VALUE own1, YEE_VALUE own2, long long o, const long long p[3],
    int electric)
{
    YEE_VALUE curl = (YEE_VALUE)0;
    for (int i = 0; i < YEE_MAX_TERMS; ++i) {
        if (i >= terms->count)
            break;
        const YEE_NAME(yee_term) *t = &terms->term[i];
        YEE_VALUE own = YEE_NAME(yee_own)(t->source, source0, source1, own0, own1, own2);
        curl = YEE_NAME(yee_phase_term)(curl, t, own, o, p, electric);
    }
    return curl;
}

/* Stores the update of one component's node at o with its curl; returns 0 when the stored
 * value is not finite. */
static __device__ inline int YEE_NAME(yee_phase_store)(YEE_VALUE *values, long long o,
                                                     YEE_VALUE curl, const unsigned short *ids,
                                                     YEE_REAL decay, YEE_REAL gain,
                                                     const YEE_REAL *coefficients)
{
    if (ids) {
        decay = coefficients[2 * (long long)ids[o]];
        gain = coefficients[2 * (long long)ids[o] + 1];
    }
    YEE_VALUE updated = values[o] * decay + curl * gain;
    values[o] = updated;
    return YEE_NAME(yee_finite)(updated);
}

extern "C" __global__ void YEE_NAME(yee_curl)(
    YEE_VALUE *values0, YEE_NAME(yee_terms) terms0, const unsigned short *ids0, YEE_REAL decay0,
    YEE_REAL gain0, yee_region r0, YEE_VALUE *values1, YEE_NAME(yee_terms) terms1,
    const unsigned short *ids1, YEE_REAL decay1, YEE_REAL gain1, yee_region r1,
    YEE_VALUE *values2, YEE_NAME(yee_terms) terms2, const unsigned short *ids2, YEE_REAL decay2,
    YEE_REAL gain2, yee_region r2, int count, const YEE_VALUE *source0,
    const YEE_VALUE *source1, const YEE_VALUE *source2, const YEE_REAL *coefficients,
    yee_region box, int electric, int *non_finite)
{
    long long p[3];
    if (!yee_thread_node(box.lo, box.hi, p))
        return;
    long long o = yee_offset(p, box.storage_lo, box.extent);
    int in0 = count > 0 && yee_in_box(p, r0.lo, r0.hi);
    int in1 = count > 1 && yee_in_box(p, r1.lo, r1.hi);
    int in2 = count > 2 && yee_in_box(p, r2.lo, r2.hi);
    YEE_VALUE own0 = source0 ? source0[o] : (YEE_VALUE)0;
    YEE_VALUE own1 = source1 ? source1[o] : (YEE_VALUE)0;
    YEE_VALUE own2 = source2 ? source2[o] : (YEE_VALUE)0;
    /* Every curl before any store. */
    YEE_VALUE curl0 = in0 ? YEE_NAME(yee_phase_curl)(&terms0, source0, source1, own0, own1,
                                                     own2, o, p, electric)
                          : (YEE_VALUE)0;
    YEE_VALUE curl1 = in1 ? YEE_NAME(yee_phase_curl)(&terms1, source0, source1, own0, own1,
                                                     own2, o, p, electric)
                          : (YEE_VALUE)0;
    YEE_VALUE curl2 = in2 ? YEE_NAME(yee_phase_curl)(&terms2, source0, source1, own0, own1,
                                                     own2, o, p, electric)
                          : (YEE_VALUE)0;
    int finite = 1;
    if (in0)
        finite &= YEE_NAME(yee_phase_store)(values0, o, curl0, ids0, decay0, gain0,
                                            coefficients);
    if (in1)
        finite &= YEE_NAME(yee_phase_store)(values1, o, curl1, ids1, decay1, gain1,
                                            coefficients);
    if (in2)
        finite &= YEE_NAME(yee_phase_store)(values2, o, curl2, ids2, decay2, gain2,
                                            coefficients);
    if (!finite)
        *non_finite = 1;
}
