/* The CUDA names the kernel files use, defined for a host C++ compiler: the emulated device
 * (src/device/emulated.rs) runs the kernel files (kernels/<name>.cu) compiled with these, one
 * host thread looping over a launch's blocks and threads. Only what the kernels use is here: __global__, __device__,
 * blockIdx, blockDim, threadIdx and atomicMin on 64-bit keys. */
#ifndef YEE_EMULATED_CUH
#define YEE_EMULATED_CUH

#define __global__
#define __device__

/* dim3 as a kernel reads it. */
struct yee_dim3 {
    unsigned int x, y, z;
};

/* The launch position of the running thread: each stream's worker thread has its own. */
static thread_local yee_dim3 blockIdx, blockDim, threadIdx;

/* atomicMin on an unsigned 64-bit value: returns the old value, stores the smaller one. */
static inline unsigned long long atomicMin(unsigned long long *address, unsigned long long val)
{
    unsigned long long old = __atomic_load_n(address, __ATOMIC_RELAXED);
    while (val < old && !__atomic_compare_exchange_n(address, &old, val, false,
                                                     __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
    }
    return old;
}

#endif
