//! A yee scene as a simulation to run from code: [`Simulation`] steps it on any backend and
//! communicator the build has — to its end, or paused at a step where its fields are read —
//! and drives the scene's outputs as an output plan ([`output_plan`]): slices, snapshots,
//! probes, flux spectra, DFT fields, far fields and `run.json`, byte for byte what `yee run`
//! writes (the `yee` command is argument parsing over this crate). The Python package
//! (`python/`) stands on it too.
//!
//! Scene files are `yee-scene`; launching ranks, gathering outputs and planning layouts are
//! `yee-runtime`; file writers are `yee-io`.
#![warn(missing_docs)]

pub mod balance_output;
pub mod control;
pub mod dft_output;
pub mod dispatch;
pub mod error;
pub mod failures;
pub mod far_field_output;
pub mod files;
pub mod flux_output;
pub mod hdf5_output;
pub mod layout;
pub mod leg;
pub mod memory_estimate;
#[cfg(all(feature = "cuda", feature = "rayon"))]
pub mod mixed_backend;
pub mod mode_sources;
pub mod modes_output;
pub mod movie;
pub mod options;
pub mod output_dir;
pub mod output_lock;
pub mod output_plan;
pub mod plane_plot;
pub mod plot_axes;
pub mod probe_output;
pub mod probe_spectrum;
pub mod progress;
pub mod report;
pub mod resonances_output;
pub mod run_report;
pub mod s_parameters;
pub mod simulation;
pub mod slices;
pub mod smoothing_fallback;
pub mod snapshots;
pub mod time_block_report;
pub mod values;
pub mod weights;

pub use error::AppError;
pub use leg::Ended;
pub use options::{Backend, CacheRequest, CheckpointOptions, RunOptions};
pub use probe_output::ProbeSeries;
pub use report::RunReport;
pub use simulation::{Simulation, Status};
pub use values::{FieldsAt, Values};
/// [`RunOptions::time_block`] and [`RunOptions::cache_bytes`]' types and parser, for callers
/// that set them.
pub use yee_scalar::time_tile::{TimeBlock, parse_cache_bytes};
