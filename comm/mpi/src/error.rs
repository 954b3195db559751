//! The error of the MPI communicator.

use std::fmt;

use yee_core::comm::ArgumentError;
use yee_core::{CommError, CommErrorKind};

/// What went wrong, and a message that says where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MpiError {
    kind: CommErrorKind,
    message: String,
}

impl MpiError {
    /// An error of `kind`.
    pub fn new(kind: CommErrorKind, message: String) -> Self {
        MpiError { kind, message }
    }
}

impl CommError for MpiError {
    fn kind(&self) -> CommErrorKind {
        self.kind
    }
}

impl From<ArgumentError> for MpiError {
    fn from(e: ArgumentError) -> Self {
        MpiError::new(e.kind, e.to_string())
    }
}

impl fmt::Display for MpiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for MpiError {}
