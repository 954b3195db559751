//! The `yee` command as a library: its command line, `yee run` (a scene's outputs, progress
//! and `run.json`) and the other subcommands. Scene files are `yee-scene`, launching ranks,
//! gathering outputs and planning layouts are `yee-runtime`, file writers are `yee-io`.
//!
//! The binary in `main.rs` only parses arguments and calls into here, so the tests drive the
//! same code.
#![warn(missing_docs)]

#[cfg(feature = "rayon")]
pub mod bench;
#[cfg(feature = "mpi")]
pub mod calibrate;
pub mod check;
pub mod cli;
pub mod dft_output;
pub mod error;
pub mod failures;
pub mod far_field_output;
pub mod flux_output;
pub mod geometry_preview;
pub mod hdf5_output;
pub mod movie;
pub mod parse;
pub mod partition;
pub mod plane_plot;
pub mod report;
pub mod resonances;
pub mod run;
pub mod topology;
