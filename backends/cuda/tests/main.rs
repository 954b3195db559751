//! The CUDA backend's integration tests as one binary (`cargo test -p yee-cuda --test it`), one
//! module per topic.

mod emulated;
mod host_kernels;
mod memory;
mod nvrtc_compile;
