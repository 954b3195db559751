//! The outputs a run could not write. A failed write (a full disk, a folder squatting on the
//! file's name, a name the file system refuses) is kept here and the run goes on: it writes
//! every other output and then `run.json`, whose `status` is `failed`, whose `error` names the
//! first failure and whose `output_errors` lists them all.

use crate::error::AppError;

/// Every output failure of a run, in the order they happened.
#[derive(Debug, Default)]
pub struct Failures(Vec<AppError>);

impl Failures {
    /// `result`'s value, or `None` with its error kept.
    pub fn keep<T>(&mut self, result: Result<T, AppError>) -> Option<T> {
        result.map_err(|e| self.0.push(e)).ok()
    }

    /// True when every output was written.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Each failure's message, in order.
    pub fn messages(&self) -> Vec<String> {
        self.0.iter().map(ToString::to_string).collect()
    }

    /// The first failure: what the run ends with.
    pub fn into_first(self) -> Option<AppError> {
        self.0.into_iter().next()
    }

    /// Every failure of `other` after these.
    pub fn extend(&mut self, other: Failures) {
        self.0.extend(other.0);
    }
}
