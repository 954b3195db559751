//! The device side of the CUDA backend (feature `cuda`): NVRTC compilation of the kernel files.

pub mod nvrtc;
