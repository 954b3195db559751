/* The Yee curl update of one node, E <- Ca E + Cb curl H and H <- Da H + Db (signed) curl E
 * (Yee 1966), with each derivative scaled by the CPML stretch 1/kappa: the body every
 * execution of it shares. The CUDA kernels include it (compiled at run time by NVRTC with
 * --fmad=false); kernels/host.c includes it for the host build the tests run against the
 * scalar oracle (backends/scalar/src/curl.rs), compiled with -ffp-contract=off. The expression
 * order is the oracle's, so the bits are:
 *   curl = 0; for each term: curl = curl +/- (difference * (1/kappa));
 *   value = value * decay + curl * gain.
 *
 * Include it with YEE_REAL defined as the value type and YEE_NAME(name) naming the functions
 * for that type (see host.c); it may be included once per type. */

#if !defined(YEE_REAL) || !defined(YEE_NAME)
#error "define YEE_REAL and YEE_NAME before including yee_cell.h"
#endif

#ifndef YEE_DEVICE
#define YEE_DEVICE
#endif

#ifndef YEE_CELL_TYPES
#define YEE_CELL_TYPES
/* Up to two curl terms of one component. */
#define YEE_MAX_TERMS 2
#endif

/* One curl term: the source field (in the updated field's storage layout), its stride along
 * the derivative's axis, the axis, the sign, and the stretch table along that axis
 * ([b, c, 1/kappa] per global coordinate, three values each). */
typedef struct {
    const YEE_REAL *source;
    long stride;
    int axis;
    int sign;
    const YEE_REAL *stretch;
} YEE_NAME(yee_term);

/* The difference approximating the derivative at storage offset o along a stride: backward
 * for E (H lies half a cell below), forward for H. */
static YEE_DEVICE inline YEE_REAL YEE_NAME(yee_difference)(const YEE_REAL *s, long o,
                                                          long stride, int electric)
{
    return electric ? s[o] - s[o - stride] : s[o + stride] - s[o];
}

/* The signed, stretched curl at storage offset o of the node at global position p. */
static YEE_DEVICE inline YEE_REAL YEE_NAME(yee_curl)(const YEE_NAME(yee_term) *terms, int count,
                                                    long o, const long p[3], int electric)
{
    YEE_REAL curl = (YEE_REAL)0;
    for (int i = 0; i < count; ++i) {
        const YEE_NAME(yee_term) *t = &terms[i];
        YEE_REAL d = YEE_NAME(yee_difference)(t->source, o, t->stride, electric);
        YEE_REAL scaled = d * t->stretch[3 * p[t->axis] + 2];
        curl = t->sign > 0 ? curl + scaled : curl - scaled;
    }
    return curl;
}

/* The updated value of a node holding `value`, with the curl and its material's
 * [decay, gain]. */
static YEE_DEVICE inline YEE_REAL YEE_NAME(yee_update)(YEE_REAL value, YEE_REAL curl,
                                                      const YEE_REAL *coefficients)
{
    return value * coefficients[0] + curl * coefficients[1];
}

/* The CPML correction of one node inside a layer, right after its curl update (Roden &
 * Gedney 2000, eqs. (8)-(10)): psi <- b psi + c d, then value <- value +/- gain psi, with
 * `stretch_at` the layer's [b, c, 1/kappa] at the node, `d` the difference along the layer's
 * axis and `gain` the material's curl coefficient; `positive` is the sign of the term. */
static YEE_DEVICE inline YEE_REAL YEE_NAME(yee_cpml)(YEE_REAL value, YEE_REAL *psi, YEE_REAL d,
                                                    const YEE_REAL *stretch_at, YEE_REAL gain,
                                                    int positive)
{
    *psi = *psi * stretch_at[0] + d * stretch_at[1];
    YEE_REAL correction = *psi * gain;
    return positive ? value + correction : value - correction;
}
