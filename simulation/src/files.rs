//! Files written whole or not at all.

use std::fs::File;
use std::io::BufWriter;
use std::path::Path;

use crate::error::{AppError, io_error};

/// Creates `path` and writes it through a buffer, atomically ([`yee_io::atomic`]).
pub fn write_file<E: std::fmt::Display>(
    path: &Path,
    write: impl FnOnce(&mut BufWriter<File>) -> Result<(), E>,
) -> Result<(), AppError> {
    yee_io::atomic::write_with(path, write).map_err(|e| io_error(path, e))
}
