//! # yee-core
//!
//! The `no_std` core of the yee FDTD solver and of the framework under it: the geometry of
//! chunks, the four traits every backend and communicator implements ([`Field`], [`Stencil`],
//! [`Chunk`], [`Comm`]), the generic drivers over them, and the pure functions that decide
//! layout: virtual topology, partitions and border rounding, the dynamic balancer, the
//! partitioning of irregular areas, the performance models, and the oracles that check them
//! ([`verify`]). Nothing here knows Maxwell's equations: the Yee physics is in `yee-em`.
//!
//! The core never allocates (its `alloc` feature only lets callers opt in), never reads a clock
//! and logs only through `log`. Everything sized by the grid or the rank count comes in as a
//! caller-provided slice.
#![no_std]
#![warn(missing_docs)]

#[cfg(feature = "alloc")]
extern crate alloc;
// The property tests (proptest) name `std` paths.
#[cfg(test)]
extern crate std;

#[cfg(feature = "alloc")]
pub mod balance;
#[cfg(feature = "alloc")]
pub mod balance_reduce;
#[cfg(feature = "alloc")]
pub mod box_balance;
#[cfg(feature = "alloc")]
pub mod box_layout;
#[cfg(feature = "alloc")]
pub mod box_session;
pub mod chunk;
pub mod comm;
pub mod decomposition;
pub mod direction;
#[cfg(feature = "alloc")]
pub mod driver;
pub mod field;
pub mod geometry;
#[cfg(feature = "alloc")]
pub mod ghost_zone;
#[cfg(feature = "alloc")]
pub mod graph;
#[cfg(feature = "alloc")]
pub mod measurements;
pub mod model;
pub mod partition;
pub mod scalar;
#[cfg(feature = "alloc")]
pub mod session;
pub mod staging;
pub mod stencil;
#[cfg(feature = "alloc")]
pub mod step_log;
#[cfg(feature = "alloc")]
pub mod tile_balance;
#[cfg(feature = "alloc")]
pub mod tile_driver;
#[cfg(feature = "alloc")]
pub mod tile_map;
pub mod tiling;
pub mod topology;
#[cfg(feature = "alloc")]
pub mod tree_sum;
pub mod verify;

pub use chunk::{Capabilities, Chunk, ChunkError, ChunkErrorKind, HostChunkError};
pub use comm::{Comm, CommError, CommErrorKind, Incoming, Outgoing, Route};
pub use direction::{Direction, Directions, share_directions};
pub use field::Field;
pub use geometry::{Axis, Box3, Index3, Side};
pub use scalar::{Real, Scalar};
#[cfg(feature = "alloc")]
pub use staging::HostBuffer;
pub use staging::StagingBuffer;
pub use stencil::{FieldId, Stencil};
pub use topology::{Candidate, Topology, TopologyError};
