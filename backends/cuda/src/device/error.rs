//! The device chunk's error: a kind generic code reacts to, and a message for people.

use yee_core::{ChunkError, ChunkErrorKind};

/// What a run on a machine without the CUDA driver stops with.
pub const NO_DRIVER: &str = "no CUDA driver found (libcuda)";

/// An error of the CUDA backend.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CudaError {
    /// The kind.
    pub kind: ChunkErrorKind,
    /// What failed.
    pub message: String,
}

impl CudaError {
    /// An error of `kind` saying `message`.
    pub fn new(kind: ChunkErrorKind, message: impl Into<String>) -> Self {
        CudaError {
            kind,
            message: message.into(),
        }
    }

    /// The error of a machine without the driver ([`NO_DRIVER`]).
    pub fn no_driver() -> Self {
        CudaError::new(ChunkErrorKind::Device, NO_DRIVER)
    }
}

impl ChunkError for CudaError {
    fn kind(&self) -> ChunkErrorKind {
        self.kind
    }

    fn unsupported(operation: &'static str) -> Self {
        CudaError::new(
            ChunkErrorKind::Unsupported,
            format!("{operation} is not supported by the CUDA backend"),
        )
    }
}

impl core::fmt::Display for CudaError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{}", self.message)
    }
}

impl std::error::Error for CudaError {}

impl From<cudarc::driver::DriverError> for CudaError {
    fn from(e: cudarc::driver::DriverError) -> Self {
        let kind = match e.0 {
            cudarc::driver::sys::CUresult::CUDA_ERROR_OUT_OF_MEMORY => ChunkErrorKind::OutOfMemory,
            _ => ChunkErrorKind::Device,
        };
        CudaError::new(kind, format!("CUDA driver: {e:?}"))
    }
}

impl From<super::nvrtc::CompileFailure> for CudaError {
    fn from(e: super::nvrtc::CompileFailure) -> Self {
        CudaError::new(ChunkErrorKind::Device, e.to_string())
    }
}

impl From<crate::layout::TooLarge> for CudaError {
    fn from(e: crate::layout::TooLarge) -> Self {
        CudaError::new(ChunkErrorKind::InvalidArgument, e.to_string())
    }
}
