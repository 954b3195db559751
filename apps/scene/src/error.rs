//! Errors of scene files: each names the file and the key (and line and column for syntax
//! and type errors).

use std::fmt;
use std::path::PathBuf;

/// A scene that cannot be read, parsed or run.
#[derive(Debug)]
pub enum SceneError {
    /// The file could not be read.
    Read {
        /// The file.
        file: PathBuf,
        /// Why.
        error: std::io::Error,
    },
    /// TOML syntax, an unknown key, a wrong type or a missing key.
    Parse {
        /// The file.
        file: PathBuf,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// Key path such as `sources[1].component` (empty at the top level).
        key: String,
        /// What serde and toml said.
        message: String,
    },
    /// A value that parses but cannot run.
    Invalid {
        /// The file.
        file: PathBuf,
        /// Key path.
        key: String,
        /// What is wrong, with the value.
        message: String,
    },
}

impl fmt::Display for SceneError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SceneError::Read { file, error } => {
                write!(f, "{}: cannot read the scene: {error}", file.display())
            }
            SceneError::Parse {
                file,
                line,
                column,
                key,
                message,
            } => {
                write!(f, "{}:{line}:{column}: ", file.display())?;
                if !key.is_empty() && key != "." {
                    write!(f, "{key}: ")?;
                }
                write!(f, "{message}")
            }
            SceneError::Invalid { file, key, message } => {
                write!(f, "{}: {key}: {message}", file.display())
            }
        }
    }
}

impl std::error::Error for SceneError {}
