//! Errors of the runtime: a [`RuntimeErrorKind`] to react to, and a message that names what
//! failed and where (the option and its value, the profile file, the rank).

use std::fmt;

/// What kind of thing went wrong, for callers that react without parsing the message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum RuntimeErrorKind {
    /// The balancing options do not fit together or do not fit the run (a speed per rank, an
    /// ε in [0, 1), …).
    Options,
    /// A balancing profile cannot be read or was measured on another grid or topology.
    Profile,
    /// The run cannot be laid out: the balancer or the partitioner finds no layout (too many
    /// ranks for the grid or the mask, a rank without a tile).
    Layout,
    /// A rank failed while running (its communicator, or its chunk).
    Rank,
    /// A message from another rank's process is malformed (truncated, sizes that disagree).
    Wire,
    /// MPI is not built in, or cannot be started.
    Mpi,
    /// A checkpoint cannot be written, found, read or resumed from (another scene, a damaged
    /// file).
    Checkpoint,
    /// The MPI start-up check failed and rank 0 has printed why; exit quietly with failure.
    Reported,
}

/// An error of the runtime: its kind and a message naming what and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuntimeError {
    kind: RuntimeErrorKind,
    message: String,
}

impl RuntimeError {
    /// An error of `kind` saying `message`.
    pub fn new(kind: RuntimeErrorKind, message: impl Into<String>) -> Self {
        RuntimeError {
            kind,
            message: message.into(),
        }
    }

    /// A rank's failed step ([`RuntimeErrorKind::Rank`]): the chunk's error (its kind and
    /// what failed) or the communicator's.
    pub fn from_step<CE: fmt::Debug, ME: fmt::Display>(
        e: &yee_core::driver::StepError<CE, ME>,
    ) -> Self {
        let message = match e {
            yee_core::driver::StepError::Chunk(e) => format!("the backend failed: {e:?}"),
            yee_core::driver::StepError::Comm(e) => e.to_string(),
        };
        RuntimeError::new(RuntimeErrorKind::Rank, message)
    }

    /// What kind of error it is.
    pub fn kind(&self) -> RuntimeErrorKind {
        self.kind
    }

    /// What went wrong and where.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for RuntimeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for RuntimeError {}
