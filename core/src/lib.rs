//! # yee-core
//!
//! The `no_std` core of the yee FDTD solver: the Yee lattice, the geometry of chunks, the
//! four traits every backend and communicator implements ([`Field`], [`Stencil`], [`Chunk`],
//! [`Comm`]), and the pure functions that decide layout: material and CPML coefficients,
//! source waveforms, and the description of a simulation with its validation.
//!
//! The core never allocates (its `alloc` feature only lets callers opt in), never reads a clock
//! and logs only through `log`. Everything sized by the grid or the rank count comes in as a
//! caller-provided slice.
#![no_std]
#![warn(missing_docs)]

#[cfg(feature = "alloc")]
extern crate alloc;

#[cfg(feature = "alloc")]
pub mod balance;
pub mod chunk;
pub mod comm;
pub mod cost;
pub mod cpml;
pub mod decomposition;
pub mod direction;
pub mod dispersion;
#[cfg(feature = "alloc")]
pub mod driver;
pub mod error;
pub mod field;
pub mod geometry;
#[cfg(feature = "alloc")]
pub mod graph;
pub mod material;
pub mod model;
pub mod partition;
pub mod placement;
pub mod scalar;
#[cfg(feature = "alloc")]
pub mod session;
pub mod setup;
pub mod shape;
pub mod spectrum;
pub mod staging;
pub mod stencil;
#[cfg(feature = "alloc")]
pub mod tile_driver;
#[cfg(feature = "alloc")]
pub mod tile_map;
pub mod topology;
pub mod verify;
pub mod waveform;
pub mod yee;
pub mod yee_backend;

pub use chunk::{Capabilities, Chunk, ChunkError, ChunkErrorKind, HostChunkError};
pub use comm::{Comm, CommError, CommErrorKind, Incoming, Outgoing, Route};
pub use cost::Costs;
pub use cpml::{CpmlCoefficients, CpmlParams};
pub use direction::{Direction, Directions, share_directions};
pub use error::SetupError;
pub use field::Field;
pub use geometry::{Axis, Box3, Index3, Side};
pub use material::{Material, UpdateCoefficients};
pub use placement::Placement;
pub use scalar::{Real, Scalar};
pub use setup::{Boundaries, Boundary, PointSource, Probe, Region, Setup, SourceKind};
pub use shape::Shape;
#[cfg(feature = "alloc")]
pub use staging::HostBuffer;
pub use staging::StagingBuffer;
pub use stencil::{FieldId, Stencil};
pub use topology::{Candidate, Topology, TopologyError};
pub use waveform::Waveform;
pub use yee::{Component, CurlTerm, Mode};
pub use yee_backend::{YeeBackend, YeeFields};
