//! # yee-io
//!
//! Writers of the files a yee run leaves behind, each a pure function of a writer (or a path)
//! and the data: field slices as plots with axes ([`slice_plot`]) and line plots ([`plot`]),
//! drawn by plotters in an embedded font ([`style`]), PNG basics ([`png`]), NumPy `.npy` arrays ([`npy`]), VTK image data for ParaView ([`vti`], binary) and the
//! collection of a run's snapshots in time ([`pvd`]), probe
//! time series as CSV ([`csv`]), and the files balancing leaves ([`balance`]: its history as
//! CSV and a plot of the ranks' shares).
//!
//! Errors are [`std::io::Error`]s (PNG encoding errors arrive as [`std::io::ErrorKind::Other`]);
//! the caller names the file.
#![warn(missing_docs)]

pub mod atomic;
pub mod balance;
pub mod csv;
pub mod npy;
pub mod plot;
pub mod png;
pub mod pvd;
pub mod slice_plot;
pub mod style;
pub mod vti;
