/* The emulated device's build of the kernel files (kernels/<name>.cu), exactly as NVRTC gets them
 * (yee_complex.h, yee_cell.h and thread.cuh for one value type, then each file), compiled for
 * the host by build.rs with -ffp-contract=off (NVRTC: --fmad=false) against the shim of
 * emulated.cuh, for the four value types: f32, f64, c32 and c64 (complex fields, real
 * coefficients).
 *
 * Each kernel K of type S gets two entry points, found by name (`K_S`, as kernels.rs's
 * entry_name spells it) through yee_emulated_entry:
 *   launch(grid, block, args): runs the launch, every block (z, y, x) and in each every
 *     thread (z, y, x); `args` is the argument list as cuLaunchKernel takes it, an array of
 *     pointers to the arguments, unpacked by the kernel's own parameter types;
 *   params(sizes, cap): the byte size of each parameter, so the emulator checks a launch's
 *     argument list before running it. */
#include <stddef.h>
#include <string.h>
#include <type_traits>
#include <utility>

#include "emulated.cuh"

#define YEE_DEVICE __device__
#include "yee_complex.h"
#include "thread.cuh"

#define YEE_REAL float
#define YEE_VALUE float
#define YEE_NAME(name) name##_emulated_f32
#include "emulated_kernels.h"
#undef YEE_REAL
#undef YEE_VALUE
#undef YEE_NAME

#define YEE_REAL double
#define YEE_VALUE double
#define YEE_NAME(name) name##_emulated_f64
#include "emulated_kernels.h"
#undef YEE_REAL
#undef YEE_VALUE
#undef YEE_NAME

#define YEE_COMPLEX 1
#define YEE_REAL float
#define YEE_VALUE yee_complex<float>
#define YEE_NAME(name) name##_emulated_c32
#include "emulated_kernels.h"
#undef YEE_REAL
#undef YEE_VALUE
#undef YEE_NAME

#define YEE_REAL double
#define YEE_VALUE yee_complex<double>
#define YEE_NAME(name) name##_emulated_c64
#include "emulated_kernels.h"
#undef YEE_REAL
#undef YEE_VALUE
#undef YEE_NAME
#undef YEE_COMPLEX

/* Calls `kernel` with the arguments `args` points at, each read as its parameter's type. */
template <typename... A, size_t... I>
static void yee_call(void (*kernel)(A...), void **args, std::index_sequence<I...>)
{
    kernel(*static_cast<typename std::remove_reference<A>::type *>(args[I])...);
}

/* Runs one launch: every thread of every block, in order, on the calling thread. */
template <typename... A>
static void yee_launch(void (*kernel)(A...), const unsigned int grid[3],
                       const unsigned int block[3], void **args)
{
    blockDim = yee_dim3{block[0], block[1], block[2]};
    for (unsigned int bz = 0; bz < grid[2]; ++bz)
        for (unsigned int by = 0; by < grid[1]; ++by)
            for (unsigned int bx = 0; bx < grid[0]; ++bx) {
                blockIdx = yee_dim3{bx, by, bz};
                for (unsigned int tz = 0; tz < block[2]; ++tz)
                    for (unsigned int ty = 0; ty < block[1]; ++ty)
                        for (unsigned int tx = 0; tx < block[0]; ++tx) {
                            threadIdx = yee_dim3{tx, ty, tz};
                            yee_call(kernel, args, std::index_sequence_for<A...>{});
                        }
            }
}

/* The byte sizes of `kernel`'s parameters (up to `cap` of them); returns how many it has. */
template <typename... A>
static size_t yee_params(void (*)(A...), size_t *sizes, size_t cap)
{
    const size_t each[] = {sizeof(A)..., 0};
    for (size_t i = 0; i < sizeof...(A) && i < cap; ++i)
        sizes[i] = each[i];
    return sizeof...(A);
}

typedef void (*yee_launch_fn)(const unsigned int *, const unsigned int *, void **);
typedef size_t (*yee_params_fn)(size_t *, size_t);

/* The two entry points of kernel `entry` of type `suffix`. */
#define YEE_EMULATED(entry, suffix)                                                          \
    static void yee_launch_##entry##_##suffix(const unsigned int *grid,                     \
                                              const unsigned int *block, void **args)       \
    {                                                                                        \
        yee_launch(entry##_emulated_##suffix, grid, block, args);                            \
    }                                                                                        \
    static size_t yee_params_##entry##_##suffix(size_t *sizes, size_t cap)                   \
    {                                                                                        \
        return yee_params(entry##_emulated_##suffix, sizes, cap);                            \
    }

/* Every kernel of kernels.rs's ALL, as X(entry, suffix). */
#define YEE_KERNELS(X, suffix)                                                               \
    X(yee_bloch, suffix)                                                                     \
    X(yee_box_copy, suffix)                                                                  \
    X(yee_cpml, suffix)                                                                      \
    X(yee_curl, suffix)                                                                      \
    X(yee_dft, suffix)                                                                       \
    X(yee_non_finite, suffix)                                                                \
    X(yee_gather, suffix)                                                                    \
    X(yee_incident, suffix)                                                                  \
    X(yee_poles, suffix)                                                                     \
    X(yee_source, suffix)                                                                    \
    X(yee_tensor, suffix)                                                                    \
    X(yee_triad, suffix)

YEE_KERNELS(YEE_EMULATED, f32)
YEE_KERNELS(YEE_EMULATED, f64)
YEE_KERNELS(YEE_EMULATED, c32)
YEE_KERNELS(YEE_EMULATED, c64)

struct yee_entry {
    const char *name;
    yee_launch_fn launch;
    yee_params_fn params;
};

#define YEE_ROW(entry, suffix)                                                               \
    {#entry "_" #suffix, yee_launch_##entry##_##suffix, yee_params_##entry##_##suffix},

static const yee_entry yee_entries[] = {
    YEE_KERNELS(YEE_ROW, f32) YEE_KERNELS(YEE_ROW, f64) YEE_KERNELS(YEE_ROW, c32)
        YEE_KERNELS(YEE_ROW, c64)};

/* The entry points of the kernel named `name` (`yee_curl_f32`) into *launch and *params;
 * returns 0 when there is no such kernel. */
extern "C" int yee_emulated_entry(const char *name, yee_launch_fn *launch, yee_params_fn *params)
{
    for (const yee_entry &e : yee_entries)
        if (strcmp(e.name, name) == 0) {
            *launch = e.launch;
            *params = e.params;
            return 1;
        }
    return 0;
}
