//! The `yee` command as a library: scene files, running, outputs, checks.
//!
//! The binary in `main.rs` only parses arguments and calls into here, so the tests drive the
//! same code.
#![warn(missing_docs)]

pub mod balance;
#[cfg(feature = "rayon")]
pub mod bench;
#[cfg(feature = "mpi")]
pub mod calibrate;
pub mod check;
pub mod cli;
pub mod error;
pub mod memory;
#[cfg(feature = "mpi")]
pub mod mpi;
pub mod parallel;
pub mod partition;
pub mod profile;
pub mod report;
pub mod run;
pub mod tiled;
pub mod topology;
pub mod wire;
