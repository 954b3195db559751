//! # yee-em
//!
//! The Yee physics as data, `no_std` like the core it stands on: the Yee lattice and its
//! staggering (Yee 1966), materials, their dispersive poles (Drude, Lorentz, Debye by auxiliary
//! differential equations) and where geometry places them, CPML coefficients
//! (Roden & Gedney 2000), source waveforms, the description of a simulation ([`Setup`]) with
//! its validation, TF/SF plane waves, DFT monitors and flux, the near-to-far-field
//! transformation (surface equivalence, Taflove & Hagness §8.5), dispersion and spectra for the
//! tests, the analytic slab (Airy) and sphere (Mie) responses they compare against, the cell
//! costs the balancer weighs, harmonic inversion of a probe's signal for its modes' frequencies
//! and Q (filter diagonalization, [`harminv`]), and the seam a backend implements to run the Yee apps ([`YeeBackend`]).
#![no_std]
#![warn(missing_docs)]

extern crate alloc;

pub mod airy;
pub mod berreman;
pub mod bessel;
pub mod bloch;
pub mod candidates;
pub mod complex_eigen;
pub mod cost;
pub mod cpml;
pub mod cylinder_scattering;
pub mod decay;
pub mod dft;
pub mod dispersion;
pub mod error;
pub mod flux;
pub mod geometry_map;
pub mod halo;
pub mod harminv;
pub mod load;
pub mod material;
pub mod medium;
pub mod mie;
pub mod near_to_far;
pub mod placement;
pub mod plane_wave;
pub mod pole;
pub mod row_placement;
pub mod setup;
pub mod shape;
pub mod smoothing;
pub mod spectrum;
pub mod tensor;
pub mod voxel;
pub mod waveform;
pub mod yee;
pub mod yee_backend;

pub use candidates::Candidates;
pub use cost::Costs;
pub use cpml::{CpmlCoefficients, CpmlParams};
pub use decay::{DecayRule, DecayWatch};
pub use dft::DftMonitor;
pub use error::SetupError;
pub use flux::{DftFields, FluxPlane};
pub use geometry_map::CellQuantity;
pub use material::{Coupling, Diagonal, Material, PoleSet, UpdateCoefficients};
pub use medium::NodeMedium;
pub use placement::Placement;
pub use plane_wave::{IncidentLine, PlaneWave};
pub use pole::Pole;
pub use row_placement::{RegionStretches, RowScratch, Stretch, StretchError};
pub use setup::{Boundaries, Boundary, PointSource, Probe, Region, Setup, SourceKind};
pub use shape::{LineSpan, Shape};
pub use waveform::Waveform;
pub use yee::{Component, CurlTerm, Mode};
pub use yee_backend::{YeeBackend, YeeFields};
