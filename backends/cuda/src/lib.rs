//! The CUDA backend (issue 17). The per-node work of every kernel is C in
//! `kernels/yee_cell.h`, the one source of truth for the arithmetic: the device kernels
//! (`kernels/*.cu`, [`kernels`]) are thin wrappers that NVRTC compiles at run time with
//! `--fmad=false`, and the host build ([`host`]) runs the same bodies in loops the tests check
//! against the scalar oracle bit for bit. [`layout`] holds the index maps and launch geometry,
//! [`memory`] the device memory a chunk needs. The device chunk itself is behind the `cuda`
//! feature (cudarc, loading libcuda and libnvrtc at run time).

// The only unsafe code: the calls into the C build, each index checked first.
#[allow(unsafe_code)]
pub mod host;
pub mod kernels;
pub mod layout;
pub mod memory;

pub use kernels::CELL_SOURCE;

// The device chunk: kernel launches and pinned memory through cudarc, each unsafe call with
// its reason.
#[cfg(feature = "cuda")]
#[allow(unsafe_code)]
pub mod device;
