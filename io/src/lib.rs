//! # yee-io
//!
//! Writers of the files a yee run leaves behind, each a pure function of a writer (or a path)
//! and the data: field slices as plots with axes ([`slice_plot`]) and line plots ([`plot`]),
//! drawn by plotters in an embedded font ([`style`]); PNG basics ([`png`]); NumPy `.npy`
//! arrays ([`npy`]); VTK image data for ParaView ([`vti`], binary, optionally zlib) and the
//! collection of a run's snapshots in time ([`pvd`]); probe time series as CSV ([`csv`]); the
//! files balancing leaves ([`balance`]: its history as CSV and a chart of the ranks' shares);
//! and with the `hdf5` feature one HDF5 file of a run's snapshots, probes and spectra
//! ([`hdf5`]) with its XDMF index for ParaView ([`xdmf`]).
//!
//! Errors are [`std::io::Error`]s (PNG encoding errors arrive as [`std::io::ErrorKind::Other`]);
//! the caller names the file.
#![warn(missing_docs)]

pub mod atomic;
pub mod balance;
pub mod band_plot;
pub mod bscan_plot;
pub mod csv;
#[cfg(feature = "hdf5")]
pub mod hdf5;
pub mod npy;
pub mod plot;
pub mod png;
pub mod pvd;
pub mod slice_plot;
pub mod style;
pub mod vti;
pub mod xdmf;
