/* The per-node work of every kernel of the CUDA backend: the body each execution of it shares.
 * The CUDA kernels (kernels/<name>.cu, compiled at run time by NVRTC with --fmad=false) are thin
 * wrappers that turn a thread index into a node and call one of the `_node` functions below;
 * kernels/host.c calls the same functions in a loop over the nodes, compiled with
 * -ffp-contract=off, and the tests run that against the scalar oracle (backends/scalar) bit for
 * bit. The expression order is the oracle's:
 *   curl = 0; for each term: curl = curl +/- (difference * (1/kappa));
 *   value = value * decay + curl * gain                       (Yee 1966)
 *   psi = psi * b + difference * c; value = value +/- psi * gain   (Roden & Gedney 2000)
 *   soft source: value = value + v * gain; hard: value = v     (Taflove & Hagness, ch. 5)
 *
 * Include it with YEE_VALUE defined as the field value type, YEE_REAL as the type of the
 * coefficients (the same for real fields; for complex fields, YEE_VALUE is yee_complex<YEE_REAL>
 * of yee_complex.h, C++ only, and YEE_COMPLEX is defined) and YEE_NAME(name) naming the
 * functions for that type (see host.c, emulated.cpp); it may be included once per type. A
 * complex field is scaled by real coefficients part by part, as the scalar backend's
 * Scalar::scale, so every body below is the same text for the four types. Indices are
 * `long long` (64 bits on the host and the device alike). */

#if !defined(YEE_REAL) || !defined(YEE_VALUE) || !defined(YEE_NAME)
#error "define YEE_VALUE, YEE_REAL and YEE_NAME before including yee_cell.h"
#endif

#ifndef YEE_DEVICE
#define YEE_DEVICE
#endif

#ifndef YEE_CELL_TYPES
#define YEE_CELL_TYPES
/* Up to two curl terms of one component. */
#define YEE_MAX_TERMS 2

/* The nodes a launch covers, [lo, hi) in global coordinates, and the box the field is stored
 * over (its lowest corner and extents, x fastest). */
typedef struct {
    long long lo[3];
    long long hi[3];
    long long storage_lo[3];
    long long extent[3];
} yee_region;

/* The storage offset of global position p in a box stored from `lo` with extents `extent`. */
static YEE_DEVICE inline long long yee_offset(const long long p[3], const long long lo[3],
                                              const long long extent[3])
{
    return (p[0] - lo[0]) + extent[0] * ((p[1] - lo[1]) + extent[1] * (p[2] - lo[2]));
}

/* The position of the n-th node (x fastest) of the box [lo, lo + extent). */
static YEE_DEVICE inline void yee_box_node(long long n, const long long lo[3],
                                           const long long extent[3], long long p[3])
{
    p[0] = lo[0] + n % extent[0];
    p[1] = lo[1] + (n / extent[0]) % extent[1];
    p[2] = lo[2] + n / (extent[0] * extent[1]);
}

/* The key of global position p in x-fastest order over a grid of extents `grid`: the first
 * non-finite node is the one with the smallest key. */
static YEE_DEVICE inline unsigned long long yee_order_key(const long long p[3],
                                                          const long long grid[3])
{
    return (unsigned long long)(p[0] + grid[0] * (p[1] + grid[1] * p[2]));
}

/* The key of a finite node: larger than every node's. */
#define YEE_FINITE_KEY 0xffffffffffffffffULL

/* p[axis], picked by value (an index into p would put p in per-thread local memory). */
static YEE_DEVICE inline long long yee_coordinate(const long long p[3], int axis)
{
    return axis == 0 ? p[0] : (axis == 1 ? p[1] : p[2]);
}
#endif

/* One curl term: the source field (in the updated field's storage layout), its stride along
 * the derivative's axis, the axis, the sign, and the stretch table along that axis
 * ([b, c, 1/kappa] per global coordinate, three values each). */
typedef struct {
    const YEE_VALUE *source;
    long long stride;
    int axis;
    int sign;
    const YEE_REAL *stretch;
} YEE_NAME(yee_term);

/* The curl terms of one component, passed by value to a kernel. */
typedef struct {
    YEE_NAME(yee_term) term[YEE_MAX_TERMS];
    int count;
} YEE_NAME(yee_terms);

/* The difference approximating the derivative at storage offset o along a stride: backward
 * for E (H lies half a cell below), forward for H. */
static YEE_DEVICE inline YEE_VALUE YEE_NAME(yee_difference)(const YEE_VALUE *s, long long o,
                                                          long long stride, int electric)
{
    return electric ? s[o] - s[o - stride] : s[o + stride] - s[o];
}

/* curl +/- the stretched difference of term t at storage offset o of the node at global
 * position p (its coordinate along the term's axis picked by value, not by an index into p:
 * an indexed p, like a loop over the kernel's terms, puts them in per-thread local memory,
 * whose loads bound the kernel; the NVRTC test checks no kernel has any). */
static YEE_DEVICE inline YEE_VALUE YEE_NAME(yee_curl_term)(YEE_VALUE curl,
                                                          const YEE_NAME(yee_term) *t,
                                                          long long o, const long long p[3],
                                                          int electric)
{
    YEE_VALUE d = YEE_NAME(yee_difference)(t->source, o, t->stride, electric);
    YEE_VALUE scaled = d * t->stretch[3 * yee_coordinate(p, t->axis) + 2];
    return t->sign > 0 ? curl + scaled : curl - scaled;
}

/* The signed, stretched curl at storage offset o of the node at global position p: 0, then
 * each term in turn (written out for the YEE_MAX_TERMS = 2 terms, not looped: see
 * yee_curl_term). */
static YEE_DEVICE inline YEE_VALUE YEE_NAME(yee_curl)(const YEE_NAME(yee_terms) *terms,
                                                     long long o, const long long p[3],
                                                     int electric)
{
    YEE_VALUE curl = (YEE_VALUE)0;
    if (terms->count > 0)
        curl = YEE_NAME(yee_curl_term)(curl, &terms->term[0], o, p, electric);
    if (terms->count > 1)
        curl = YEE_NAME(yee_curl_term)(curl, &terms->term[1], o, p, electric);
    return curl;
}

/* The updated value of a node holding `value`, with the curl and its material's
 * [decay, gain]. */
static YEE_DEVICE inline YEE_VALUE YEE_NAME(yee_update)(YEE_VALUE value, YEE_VALUE curl,
                                                      const YEE_REAL *coefficients)
{
    return value * coefficients[0] + curl * coefficients[1];
}

/* Whether v is finite: v - v is 0 for a finite value, NaN for NaN and the infinities (no
 * isfinite: the same text compiles for the host and NVRTC); a complex v, when both parts are. */
static YEE_DEVICE inline int YEE_NAME(yee_finite)(YEE_VALUE v)
{
    return v - v == (YEE_VALUE)0;
}

/* v times e^{i theta} = re + i im, the Bloch phase a ghost takes across a periodic wrap
 * (Scalar::rotate: (v.re re - v.im im) + i (v.re im + v.im re)); a real v is scaled by re, as
 * Scalar::rotate does for real types (a Bloch-periodic setup refuses real fields). */
static YEE_DEVICE inline YEE_VALUE YEE_NAME(yee_rotate)(YEE_VALUE v, YEE_REAL re, YEE_REAL im)
{
#ifdef YEE_COMPLEX
    return YEE_VALUE(v.re * re - v.im * im, v.re * im + v.im * re);
#else
    (void)im;
    return v * re;
#endif
}

/* The material id of the node at storage offset o: its own (`ids`), or the one every node of
 * the component shares when `ids` is null (a uniform medium reads no per-node id). */
static YEE_DEVICE inline long long YEE_NAME(yee_id)(const unsigned short *ids, int uniform,
                                                   long long o)
{
    return ids ? (long long)ids[o] : (long long)uniform;
}

/* One thread of the curl update: the node at p of a field stored over r's storage box.
 * Sets *non_finite when the stored value is NaN or infinite (the CPU backends' flag). */
static YEE_DEVICE inline void YEE_NAME(yee_curl_node)(YEE_VALUE *values,
                                                     const YEE_NAME(yee_terms) *terms,
                                                     const unsigned short *ids, int uniform,
                                                     const YEE_REAL *coefficients,
                                                     const yee_region *r, const long long p[3],
                                                     int electric, int *non_finite)
{
    long long o = yee_offset(p, r->storage_lo, r->extent);
    YEE_VALUE curl = YEE_NAME(yee_curl)(terms, o, p, electric);
    YEE_VALUE updated = YEE_NAME(yee_update)(
        values[o], curl, coefficients + 2 * YEE_NAME(yee_id)(ids, uniform, o));
    values[o] = updated;
    if (!YEE_NAME(yee_finite)(updated))
        *non_finite = 1;
}

/* The CPML correction of one node inside a layer, right after its curl update (Roden &
 * Gedney 2000, eqs. (8)-(10)): psi <- b psi + c d, then value <- value +/- gain psi, with
 * `stretch_at` the layer's [b, c, 1/kappa] at the node, `d` the difference along the layer's
 * axis and `gain` the material's curl coefficient; `positive` is the sign of the term. */
static YEE_DEVICE inline YEE_VALUE YEE_NAME(yee_cpml)(YEE_VALUE value, YEE_VALUE *psi,
                                                     YEE_VALUE d, const YEE_REAL *stretch_at,
                                                     YEE_REAL gain, int positive)
{
    *psi = *psi * stretch_at[0] + d * stretch_at[1];
    YEE_VALUE correction = *psi * gain;
    return positive ? value + correction : value - correction;
}

/* One thread of the CPML correction: the node at p, with psi stored over the layer's cells in
 * the chunk (slab_lo, slab_extent) and `term` the curl term along the layer's axis. */
static YEE_DEVICE inline void YEE_NAME(yee_cpml_node)(YEE_VALUE *values, YEE_VALUE *psi,
                                                     const YEE_NAME(yee_term) *term,
                                                     const unsigned short *ids, int uniform,
                                                     const YEE_REAL *coefficients,
                                                     const yee_region *r, const long long p[3],
                                                     const long long slab_lo[3],
                                                     const long long slab_extent[3], int electric)
{
    long long o = yee_offset(p, r->storage_lo, r->extent);
    YEE_VALUE d = YEE_NAME(yee_difference)(term->source, o, term->stride, electric);
    YEE_REAL gain = coefficients[2 * YEE_NAME(yee_id)(ids, uniform, o) + 1];
    values[o] = YEE_NAME(yee_cpml)(values[o], &psi[yee_offset(p, slab_lo, slab_extent)], d,
                                   term->stretch + 3 * yee_coordinate(p, term->axis),
                                   gain, term->sign > 0);
}

/* A point source at storage offset o with the waveform's value v this step: a soft source
 * adds the impressed current v * gain (the node's curl coefficient), a hard one overwrites
 * (a complex field takes v as its real part, as Scalar::from_real). */
static YEE_DEVICE inline void YEE_NAME(yee_source_node)(YEE_VALUE *values, long long o,
                                                       YEE_REAL v, int hard,
                                                       const unsigned short *ids, int uniform,
                                                       const YEE_REAL *coefficients)
{
    YEE_REAL gain = coefficients[2 * YEE_NAME(yee_id)(ids, uniform, o) + 1];
    values[o] = hard ? (YEE_VALUE)v : values[o] + (YEE_VALUE)v * gain;
}

/* One thread of a box copy between a field stored over (storage_lo, extent) and a linear
 * buffer: the n-th node (x fastest) of the box [lo, lo + box_extent) goes to buffer[n] when
 * `pack`, or comes from it (ghost cells). Halos, probes and read-backs. */
static YEE_DEVICE inline void YEE_NAME(yee_copy_node)(YEE_VALUE *values, YEE_VALUE *buffer,
                                                     long long n, const long long lo[3],
                                                     const long long box_extent[3],
                                                     const long long storage_lo[3],
                                                     const long long extent[3], int pack)
{
    long long p[3];
    yee_box_node(n, lo, box_extent, p);
    long long o = yee_offset(p, storage_lo, extent);
    if (pack)
        buffer[n] = values[o];
    else
        values[o] = buffer[n];
}

/* One thread of the Bloch phase of a ghost box (yee_em::bloch::wrap_phase): the n-th node
 * (x fastest) of the box [lo, lo + box_extent) of a field stored over (storage_lo, extent),
 * just unpacked from a halo that wrapped across a periodic face, times e^{i theta} = re + i im
 * (the scalar chunk's unpack_halo). */
static YEE_DEVICE inline void YEE_NAME(yee_phase_node)(YEE_VALUE *values, long long n,
                                                      const long long lo[3],
                                                      const long long box_extent[3],
                                                      const long long storage_lo[3],
                                                      const long long extent[3], YEE_REAL re,
                                                      YEE_REAL im)
{
    long long p[3];
    yee_box_node(n, lo, box_extent, p);
    long long o = yee_offset(p, storage_lo, extent);
    values[o] = YEE_NAME(yee_rotate)(values[o], re, im);
}

/* The order key of the node at p if its stored value is not finite, else YEE_FINITE_KEY:
 * the smallest key over a box is its first non-finite node (x fastest). */
static YEE_DEVICE inline unsigned long long YEE_NAME(yee_non_finite_key)(
    const YEE_VALUE *values, const yee_region *r, const long long p[3], const long long grid[3])
{
    YEE_VALUE v = values[yee_offset(p, r->storage_lo, r->extent)];
    return YEE_NAME(yee_finite)(v) ? YEE_FINITE_KEY : yee_order_key(p, grid);
}

/* One thread of the DFT pass (Oskooi et al. 2010, sec. 4.3): the node at p of a field stored
 * over r's storage box adds its value times the step's weights ([dt cos 2 pi f t,
 * dt sin 2 pi f t] per frequency, `per_node` values) to its running sums, F(f) += dt F(t)
 * e^{+2 pi i f t}, value after value as the scalar backend's DftRow::add; the sums are stored
 * `per_node` to a node over the box (part_lo, part_extent), x fastest. */
static YEE_DEVICE inline void YEE_NAME(yee_dft_node)(YEE_VALUE *sums, const YEE_VALUE *values,
                                                    const YEE_REAL *weights, long long per_node,
                                                    const yee_region *r, const long long p[3],
                                                    const long long part_lo[3],
                                                    const long long part_extent[3])
{
    YEE_VALUE v = values[yee_offset(p, r->storage_lo, r->extent)];
    YEE_VALUE *s = sums + per_node * yee_offset(p, part_lo, part_extent);
    for (long long j = 0; j < per_node; ++j)
        s[j] = s[j] + v * weights[j];
}

/* One correction of a TF/SF surface (Taflove & Hagness, 3rd ed., eqs. (5.46)-(5.49)): the node
 * at storage offset o adds the incident value `incident` times its curl coefficient, as the
 * scalar backend's apply_plane_waves. */
static YEE_DEVICE inline void YEE_NAME(yee_incident_node)(YEE_VALUE *values, long long o,
                                                         YEE_REAL incident,
                                                         const unsigned short *ids, int uniform,
                                                         const YEE_REAL *coefficients)
{
    YEE_REAL gain = coefficients[2 * YEE_NAME(yee_id)(ids, uniform, o) + 1];
    values[o] = values[o] + (YEE_VALUE)incident * gain;
}

/* The passes of a dispersive E phase (the ADE of Taflove & Hagness, 3rd ed., ch. 9; the
 * scalar backend's dispersive.rs), per node: */
#ifndef YEE_POLE_PASSES
#define YEE_POLE_PASSES
/* Before the curl update: P^{n+1} (or its Debye part) from E^n, and the node's sum of k_p. */
#define YEE_POLARISE 0
/* After the curl update and CPML: E -= (Cb/dt) sum k_p. */
#define YEE_CORRECT 1
/* Once E^{n+1} is final: a Debye pole's P^{n+1} += beta E^{n+1}. */
#define YEE_COMPLETE 2
#endif

/* One pass over one dispersive node with field value *e, its poles' P^n (`now`) and P^{n-1}
 * being overwritten with P^{n+1} (`next`), `poles` of them with coefficients `steps` (three
 * each: explicit (Lorentz, Drude) [c1, c2, c3], trapezoidal (Debye) [alpha, alpha - 1, beta],
 * as `explicit_steps` says), its sum of k_p in *k and its material's Cb/dt `drive`; in the
 * scalar backend's expression order (NodeRun::polarise, correct, complete). Returns 0 when
 * the correction stored a NaN or an infinity. */
static YEE_DEVICE inline int YEE_NAME(yee_pole_pass)(int pass, YEE_VALUE *e,
                                                    const YEE_VALUE *now, YEE_VALUE *next,
                                                    long long poles, const YEE_REAL *steps,
                                                    const int *explicit_steps, YEE_VALUE *k,
                                                    YEE_REAL drive)
{
    if (pass == YEE_POLARISE) {
        YEE_VALUE sum = (YEE_VALUE)0;
        for (long long j = 0; j < poles; ++j) {
            const YEE_REAL *c = steps + 3 * j;
            YEE_VALUE a = now[j];
            if (explicit_steps[j]) {
                YEE_VALUE q = a * c[0] + next[j] * c[1] + *e * c[2];
                next[j] = q;
                sum = sum + (q - a);
            } else {
                next[j] = a * c[0] + *e * c[2];
                sum = sum + a * c[1];
            }
        }
        *k = sum;
    } else if (pass == YEE_CORRECT) {
        *e = *e - *k * drive;
        return YEE_NAME(yee_finite)(*e);
    } else {
        for (long long j = 0; j < poles; ++j)
            if (!explicit_steps[j])
                next[j] = next[j] + *e * steps[3 * j + 2];
    }
    return 1;
}

/* The plain (unstretched) curl of a component at storage offset o: its terms' differences
 * summed with their signs, as the scalar backend's tensor_update::curl_at. */
static YEE_DEVICE inline YEE_VALUE YEE_NAME(yee_plain_curl)(const YEE_NAME(yee_terms) *terms,
                                                           long long o, int electric)
{
    YEE_VALUE curl = (YEE_VALUE)0;
    for (int i = 0; i < YEE_MAX_TERMS; ++i) {
        if (i >= terms->count)
            break;
        const YEE_NAME(yee_term) *t = &terms->term[i];
        YEE_VALUE d = YEE_NAME(yee_difference)(t->source, o, t->stride, electric);
        curl = t->sign > 0 ? curl + d : curl - d;
    }
    return curl;
}

/* One thread of the off-diagonal pass at a tensor node (Kottke, Farjadpour & Johnson 2008,
 * sec. III; the scalar backend's tensor_update.rs): for each of the two other axes k whose
 * component the mode carries (has[k]), the mean of that component's curls at its four nodes
 * around this one (neighbours[4k + n], -1 where the node does not evolve), times 1/4 and the
 * node's weight weights[k], added to the value at storage offset o. Where the node's list
 * keeps running sums (integrals not NULL: two per node, this node's at integrals[0..2]) and
 * its loss weight loss[k] is not zero, the mean also goes into the sum S (issue 51: the loss
 * smoothing's off-diagonal entries lack, at a conducting side), and (Sⁿ + Sⁿ⁺¹)/2 · loss[k]
 * is added too. Returns 0 when it stores a NaN or an infinity. */
static YEE_DEVICE inline int YEE_NAME(yee_tensor_node)(YEE_VALUE *values, long long o,
                                                      const long long *neighbours,
                                                      const YEE_REAL *weights,
                                                      const YEE_REAL *loss,
                                                      YEE_VALUE *integrals,
                                                      const YEE_NAME(yee_terms) *other,
                                                      const int *has, int electric)
{
    YEE_VALUE sum = (YEE_VALUE)0;
    for (int k = 0; k < 2; ++k) {
        if (!has[k])
            continue;
        YEE_VALUE mean = (YEE_VALUE)0;
        for (int n = 0; n < 4; ++n)
            if (neighbours[4 * k + n] >= 0)
                mean = mean + YEE_NAME(yee_plain_curl)(&other[k], neighbours[4 * k + n],
                                                       electric);
        mean = mean * (YEE_REAL)0.25;
        sum = sum + mean * weights[k];
        if (integrals && loss[k] != (YEE_REAL)0) {
            /* The running sum of the averaged curl, taken at the half step. */
            YEE_VALUE before = integrals[k];
            YEE_VALUE after = before + mean;
            integrals[k] = after;
            sum = sum + (before + after) * (YEE_REAL)0.5 * loss[k];
        }
    }
    YEE_VALUE updated = values[o] + sum;
    values[o] = updated;
    return YEE_NAME(yee_finite)(updated);
}
