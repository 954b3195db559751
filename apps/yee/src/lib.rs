//! The `yee` command as a library: its command line, `yee run` (a `yee_simulation::Simulation`
//! run to its end) and the other subcommands. Scene files are `yee-scene`, running one is
//! `yee-simulation`, launching ranks and planning layouts are `yee-runtime`, file writers are
//! `yee-io`.
//!
//! The binary in `main.rs` only parses arguments and calls into here, so the tests drive the
//! same code.
#![warn(missing_docs)]

// What a run writes, and its errors, live in `yee-simulation`: `yee run` is argument parsing
// over its `Simulation`.
pub use yee_simulation::{error, hdf5_output, movie, plane_plot, report};

pub mod bands;
#[cfg(feature = "rayon")]
pub mod bench;
#[cfg(all(feature = "rayon", feature = "cuda"))]
pub mod bench_device;
#[cfg(feature = "mpi")]
pub mod calibrate;
pub mod check;
pub mod cli;
pub mod geometry_preview;
pub mod modes;
pub mod parse;
pub mod partition;
pub mod resonances;
pub mod run;
pub mod scan;
pub mod topology;
