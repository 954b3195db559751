//! The error of the in-process communicators.

use std::fmt;

use yee_core::comm::ArgumentError;
use yee_core::{CommError, CommErrorKind};

/// What went wrong, and a message that says where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShmError {
    kind: CommErrorKind,
    message: String,
}

impl ShmError {
    /// An error of `kind`.
    pub fn new(kind: CommErrorKind, message: String) -> Self {
        ShmError { kind, message }
    }
}

impl CommError for ShmError {
    fn kind(&self) -> CommErrorKind {
        self.kind
    }
}

impl From<ArgumentError> for ShmError {
    fn from(e: ArgumentError) -> Self {
        ShmError::new(e.kind, e.to_string())
    }
}

impl fmt::Display for ShmError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ShmError {}
