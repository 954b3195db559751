//! Errors of the `yee` command: each says what failed and where.

use std::fmt;
use std::path::PathBuf;

use yee_runtime::{RuntimeError, RuntimeErrorKind};
use yee_scene::SceneError;

/// Why a command failed.
#[derive(Debug)]
pub enum AppError {
    /// The scene is unreadable or invalid.
    Scene(SceneError),
    /// The run cannot be laid out, launched or finished (balancing options, a profile, a
    /// partition, a failed rank).
    Runtime(RuntimeError),
    /// A command-line value is not accepted.
    Usage(String),
    /// The run diverged or otherwise stopped.
    Run(String),
    /// The error was already printed (by rank 0 of an MPI job); exit with failure quietly.
    Reported,
    /// SIGINT, SIGTERM or SIGUSR1 stopped the run; the message says after which step and how to resume.
    Interrupted(String),
    /// A file or directory could not be written.
    Io {
        /// What was being written.
        path: PathBuf,
        /// Why it failed.
        error: String,
    },
}

impl fmt::Display for AppError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AppError::Scene(e) => write!(f, "{e}"),
            AppError::Runtime(e) => write!(f, "{e}"),
            AppError::Usage(m) | AppError::Run(m) | AppError::Interrupted(m) => write!(f, "{m}"),
            AppError::Io { path, error } => write!(f, "cannot write {}: {error}", path.display()),
            AppError::Reported => write!(f, "the error was reported by rank 0"),
        }
    }
}

impl std::error::Error for AppError {}

/// The exit status of a run stopped by SIGINT, SIGTERM or SIGUSR1 (128 + SIGINT, as shells report an
/// interrupted command).
pub const INTERRUPTED_EXIT: u8 = 130;

/// What `--comm mpi` says in a build without MPI.
pub const MPI_MISSING: &str = "--comm mpi: this yee was built without MPI; rebuild with \
     `cargo build --release -p yee --features mpi` (needs libopenmpi-dev)";

/// What `--backend cuda` says in a build without the CUDA backend.
pub const CUDA_MISSING: &str = "--backend cuda: this yee was built without the `cuda` feature; \
     rebuild with `cargo build --release -p yee --features cuda` (needs no CUDA toolkit: the \
     driver and NVRTC are loaded at run time)";

impl From<SceneError> for AppError {
    fn from(e: SceneError) -> Self {
        AppError::Scene(e)
    }
}

impl From<RuntimeError> for AppError {
    fn from(e: RuntimeError) -> Self {
        match e.kind() {
            // Rank 0 of the MPI job has printed it.
            RuntimeErrorKind::Reported => AppError::Reported,
            _ => AppError::Runtime(e),
        }
    }
}

/// Attaches `path` to an I/O-like error.
pub fn io_error(path: &std::path::Path, error: impl fmt::Display) -> AppError {
    AppError::Io {
        path: path.to_path_buf(),
        error: error.to_string(),
    }
}
