/* The host build of the kernels' node bodies (yee_cell.h): each loop visits the nodes a CUDA
 * launch would give one thread each, and calls the same `_node` function the thread calls.
 * Compiled by build.rs with -ffp-contract=off, so no multiply-add is fused; the tests compare it
 * with the scalar oracle bit for bit. */

#define YEE_REAL float
#define YEE_VALUE float
#define YEE_NAME(name) name##_f32
#include "yee_cell.h"
#undef YEE_REAL
#undef YEE_VALUE
#undef YEE_NAME

#define YEE_REAL double
#define YEE_VALUE double
#define YEE_NAME(name) name##_f64
#include "yee_cell.h"
#undef YEE_REAL
#undef YEE_VALUE
#undef YEE_NAME

/* Every node of [lo, hi) in order (z, then y, then x fastest), with `p` its position. */
#define YEE_FOR_NODES(lo, hi, p, body)                                                       \
    for (long long z = lo[2]; z < hi[2]; ++z)                                                \
        for (long long y = lo[1]; y < hi[1]; ++y)                                            \
            for (long long x = lo[0]; x < hi[0]; ++x) {                                      \
                long long p[3] = {x, y, z};                                                  \
                body                                                                         \
            }

/* The loops of one value type. */
#define YEE_HOST_LOOPS(REAL, SUFFIX)                                                         \
    /* The curl update over r: `ids` each node's material (null: every node has `uniform`). */ \
    void yee_curl_box_##SUFFIX(REAL *values, const yee_terms_##SUFFIX *terms,                \
                               const unsigned short *ids, int uniform,                       \
                               const REAL *coefficients, const yee_region *r, int electric,  \
                               int *non_finite)                                              \
    {                                                                                        \
        YEE_FOR_NODES(r->lo, r->hi, p, {                                                     \
            yee_curl_node_##SUFFIX(values, terms, ids, uniform, coefficients, r, p, electric, \
                                   non_finite);                                              \
        })                                                                                   \
    }                                                                                        \
                                                                                             \
    /* The CPML correction over r inside one layer (psi over slab_lo, slab_extent). */       \
    void yee_cpml_box_##SUFFIX(REAL *values, REAL *psi, const yee_term_##SUFFIX *term,       \
                               const unsigned short *ids, int uniform,                       \
                               const REAL *coefficients, const yee_region *r,                \
                               const long long slab_lo[3], const long long slab_extent[3],   \
                               int electric)                                                 \
    {                                                                                        \
        YEE_FOR_NODES(r->lo, r->hi, p, {                                                     \
            yee_cpml_node_##SUFFIX(values, psi, term, ids, uniform, coefficients, r, p,      \
                                   slab_lo, slab_extent, electric);                          \
        })                                                                                   \
    }                                                                                        \
                                                                                             \
    /* One point source (one thread on the device). */                                      \
    void yee_source_##SUFFIX(REAL *values, long long o, REAL v, int hard,                    \
                             const unsigned short *ids, int uniform, const REAL *coefficients) \
    {                                                                                        \
        yee_source_node_##SUFFIX(values, o, v, hard, ids, uniform, coefficients);            \
    }                                                                                        \
                                                                                             \
    /* Packs (pack != 0) the box [lo, lo + box_extent) into `buffer`, or unpacks it. */      \
    void yee_box_copy_##SUFFIX(REAL *values, REAL *buffer, const long long lo[3],            \
                               const long long box_extent[3], const long long storage_lo[3], \
                               const long long extent[3], int pack)                          \
    {                                                                                        \
        long long cells = box_extent[0] * box_extent[1] * box_extent[2];                     \
        for (long long n = 0; n < cells; ++n)                                                \
            yee_copy_node_##SUFFIX(values, buffer, n, lo, box_extent, storage_lo, extent, pack); \
    }                                                                                        \
                                                                                             \
    /* The smallest order key of a non-finite node of r (YEE_FINITE_KEY: none), as the     \
     * device's atomicMin reduction gives it. */                                             \
    unsigned long long yee_first_non_finite_##SUFFIX(const REAL *values, const yee_region *r, \
                                                     const long long grid[3])                \
    {                                                                                        \
        unsigned long long first = YEE_FINITE_KEY;                                           \
        YEE_FOR_NODES(r->lo, r->hi, p, {                                                     \
            unsigned long long key = yee_non_finite_key_##SUFFIX(values, r, p, grid);       \
            first = key < first ? key : first;                                               \
        })                                                                                   \
        return first;                                                                        \
    }

YEE_HOST_LOOPS(float, f32)
YEE_HOST_LOOPS(double, f64)
