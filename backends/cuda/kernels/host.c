/* The host build of the Yee kernel bodies (yee_cell.h): a loop over a box of nodes, one call of
 * the cell body each, as a CUDA thread would make it. Compiled by build.rs with
 * -ffp-contract=off, so no multiply-add is fused; the tests compare it with the scalar oracle
 * bit for bit. */

#define YEE_REAL float
#define YEE_NAME(name) name##_f32
#include "yee_cell.h"
#undef YEE_REAL
#undef YEE_NAME

#define YEE_REAL double
#define YEE_NAME(name) name##_f64
#include "yee_cell.h"
#undef YEE_REAL
#undef YEE_NAME

/* The storage offset of global position p in a box stored from `lo` with extents `extent`
 * (x fastest). */
static inline long yee_offset(const long p[3], const long lo[3], const long extent[3])
{
    return (p[0] - lo[0]) + extent[0] * ((p[1] - lo[1]) + extent[1] * (p[2] - lo[2]));
}

/* Every node of [lo, hi) in order (z, then y, then x fastest), with `p` its position. */
#define YEE_FOR_NODES(lo, hi, p, body)                                                       \
    for (long z = lo[2]; z < hi[2]; ++z)                                                     \
        for (long y = lo[1]; y < hi[1]; ++y)                                                 \
            for (long x = lo[0]; x < hi[0]; ++x) {                                           \
                long p[3] = {x, y, z};                                                       \
                body                                                                         \
            }

/* Updates the nodes of the box [lo, hi) of a field stored over the box starting at
 * storage_lo with extents `extent` (x fastest): `terms` its curl terms, `ids` each node's
 * material and `coefficients` the [decay, gain] pair of each material. */
#define YEE_HOST_BOX(REAL, SUFFIX)                                                          \
    void yee_update_box_##SUFFIX(REAL *values, const yee_term_##SUFFIX *terms, int count,    \
                                 const unsigned short *ids, const REAL *coefficients,       \
                                 const long lo[3], const long hi[3], const long storage_lo[3], \
                                 const long extent[3], int electric)                         \
    {                                                                                        \
        YEE_FOR_NODES(lo, hi, p, {                                                           \
            long o = yee_offset(p, storage_lo, extent);                                      \
            REAL curl = yee_curl_##SUFFIX(terms, count, o, p, electric);                     \
            values[o] = yee_update_##SUFFIX(values[o], curl, coefficients + 2 * ids[o]);     \
        })                                                                                   \
    }

YEE_HOST_BOX(float, f32)
YEE_HOST_BOX(double, f64)

/* Corrects the nodes of [lo, hi) inside one CPML layer: `values` over the field's storage box,
 * `psi` over the layer's box in the chunk (slab_lo, slab_extent), `term` the curl term along
 * the layer's axis. */
#define YEE_HOST_CPML(REAL, SUFFIX)                                                          \
    void yee_cpml_box_##SUFFIX(REAL *values, REAL *psi, const yee_term_##SUFFIX *term,       \
                               const unsigned short *ids, const REAL *coefficients,          \
                               const long lo[3], const long hi[3], const long storage_lo[3], \
                               const long extent[3], const long slab_lo[3],                  \
                               const long slab_extent[3], int electric)                      \
    {                                                                                        \
        YEE_FOR_NODES(lo, hi, p, {                                                           \
            long o = yee_offset(p, storage_lo, extent);                                      \
            REAL d = yee_difference_##SUFFIX(term->source, o, term->stride, electric);       \
            values[o] = yee_cpml_##SUFFIX(values[o], &psi[yee_offset(p, slab_lo, slab_extent)], d, \
                                          term->stretch + 3 * p[term->axis],                 \
                                          coefficients[2 * ids[o] + 1], term->sign > 0);     \
        })                                                                                   \
    }

YEE_HOST_CPML(float, f32)
YEE_HOST_CPML(double, f64)
