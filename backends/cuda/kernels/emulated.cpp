/* The emulated device's build of the kernel files (kernels/<name>.cu), exactly as NVRTC gets them
 * (yee_cell.h and thread.cuh for one value type, then each file), compiled for the host by
 * build.rs with -ffp-contract=off (NVRTC: --fmad=false) against the shim of emulated.cuh.
 *
 * Each kernel K of type S gets two C entry points:
 *   yee_launch_K_S(grid, block, args): runs the launch, every block (z, y, x) and in each every
 *     thread (z, y, x); `args` is the argument list as cuLaunchKernel takes it, an array of
 *     pointers to the arguments, unpacked by the kernel's own parameter types;
 *   yee_params_K_S(sizes, cap): the byte size of each parameter, so the emulator checks a
 *     launch's argument list before running it. */
#include <stddef.h>
#include <type_traits>
#include <utility>

#include "emulated.cuh"

#define YEE_DEVICE __device__

#define YEE_REAL float
#define YEE_NAME(name) name##_emulated_f32
#include "yee_cell.h"
#include "thread.cuh"
#include "box.cu"
#include "cpml.cu"
#include "curl.cu"
#include "dft.cu"
#include "finite.cu"
#include "gather.cu"
#include "incident.cu"
#include "poles.cu"
#include "source.cu"
#include "tensor.cu"
#include "triad.cu"
#undef YEE_REAL
#undef YEE_NAME

#define YEE_REAL double
#define YEE_NAME(name) name##_emulated_f64
#include "yee_cell.h"
#include "box.cu"
#include "cpml.cu"
#include "curl.cu"
#include "dft.cu"
#include "finite.cu"
#include "gather.cu"
#include "incident.cu"
#include "poles.cu"
#include "source.cu"
#include "tensor.cu"
#include "triad.cu"
#undef YEE_REAL
#undef YEE_NAME

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

#define YEE_EMULATED(entry, suffix)                                                          \
    extern "C" void yee_launch_##entry##_##suffix(const unsigned int *grid,                 \
                                                  const unsigned int *block, void **args)   \
    {                                                                                        \
        yee_launch(entry##_emulated_##suffix, grid, block, args);                            \
    }                                                                                        \
    extern "C" size_t yee_params_##entry##_##suffix(size_t *sizes, size_t cap)               \
    {                                                                                        \
        return yee_params(entry##_emulated_##suffix, sizes, cap);                            \
    }

YEE_EMULATED(yee_curl, f32)
YEE_EMULATED(yee_cpml, f32)
YEE_EMULATED(yee_source, f32)
YEE_EMULATED(yee_box_copy, f32)
YEE_EMULATED(yee_non_finite, f32)
YEE_EMULATED(yee_dft, f32)
YEE_EMULATED(yee_incident, f32)
YEE_EMULATED(yee_poles, f32)
YEE_EMULATED(yee_gather, f32)
YEE_EMULATED(yee_tensor, f32)
YEE_EMULATED(yee_triad, f32)
YEE_EMULATED(yee_curl, f64)
YEE_EMULATED(yee_cpml, f64)
YEE_EMULATED(yee_source, f64)
YEE_EMULATED(yee_box_copy, f64)
YEE_EMULATED(yee_non_finite, f64)
YEE_EMULATED(yee_dft, f64)
YEE_EMULATED(yee_incident, f64)
YEE_EMULATED(yee_poles, f64)
YEE_EMULATED(yee_gather, f64)
YEE_EMULATED(yee_tensor, f64)
YEE_EMULATED(yee_triad, f64)
