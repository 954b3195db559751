//! # yee-modes
//!
//! The guided modes of a waveguide cross-section of a yee scene, on the grid's own Yee
//! lattice: a plane's ε and μ as the FDTD run places them ([`CrossSection`]), the
//! full-vectorial finite-difference eigenproblem on it (Zhu & Brown, *Opt. Express* 10, 853
//! (2002); Fallahkhair, Li & Murphy, *J. Lightwave Technol.* 26, 1423 (2008)) in
//! [`operator`], solved for the modes nearest the highest index by shift-invert Arnoldi
//! ([`arnoldi`]) over a band LU ([`band_lu`]) — giving each mode's effective index, group
//! index and six field components ([`solve`]), of one mirror parity when asked ([`parity`]).
//! A 2D scene's plane is a line: its slab modes.
//! [`broadband`] interpolates a mode source's profile across its band.
//! [`overlap`] decomposes a run's transforms on a plane into the modes' forward and backward
//! amplitudes, [`launch`] the amplitude a mode source launches (their ratio the S-parameters).
//!
//! The solver needs `std` (its matrices are heap vectors of any size), so it lives beside
//! `yee-em`, which stays `no_std`.
#![warn(missing_docs)]

pub mod arnoldi;
pub mod band_lu;
pub mod broadband;
pub mod cross_section;
pub mod error;
pub mod launch;
pub mod operator;
pub mod overlap;
pub mod parity;
pub mod slab;
pub mod solver;

pub use broadband::{BandError, BandInterpolation};
pub use cross_section::CrossSection;
pub use error::ModeError;
pub use launch::{IncidentSheets, SheetTerm, launched_amplitude};
pub use overlap::{GridOf, ModeAmplitudes, PlaneFields};
pub use parity::Parity;
pub use solver::{ModeFields, ModeOptions, WaveguideMode, guided, solve};
