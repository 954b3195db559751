//! The CUDA backend's kernel bodies (issue 17): the per-node Yee update every execution of it
//! shares, as C in `kernels/yee_cell.h`, and its host build ([`host`]), which the tests run
//! against the scalar oracle bit for bit. The device build (NVRTC with `--fmad=false`, through
//! cudarc) is not here yet: no session has had a GPU to check it on.

// The only unsafe code: the calls into the C build, each index checked first.
#[allow(unsafe_code)]
pub mod host;

/// The source of the kernel bodies, for NVRTC (included by the device kernels).
pub const CELL_SOURCE: &str = include_str!("../kernels/yee_cell.h");
