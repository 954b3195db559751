/* The kernel files of one value type for the emulated device (emulated.cpp includes this once
 * per type, with YEE_VALUE, YEE_REAL and YEE_NAME defined): the cell bodies, then every kernel
 * file, as NVRTC gets them (kernels.rs, `program`). No include guard: it is meant to be
 * included four times. */
#include "yee_cell.h"
#include "bloch.cu"
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
