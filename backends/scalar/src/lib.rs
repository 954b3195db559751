//! # yee-scalar
//!
//! The reference backend of yee: host memory, plain loops written for clarity. Every other
//! backend and every decomposition is compared with it, bit for bit where the arithmetic order
//! is kept.
//!
//! [`Simulation`] runs a whole grid as one chunk; [`YeeChunk`] is the block one rank owns in a
//! decomposed run and implements [`yee_core::Chunk`].
#![no_std]
#![warn(missing_docs)]

extern crate alloc;

pub mod cavity;
pub mod checkpoints;
pub mod chunk;
pub mod cpml;
pub mod curl;
pub mod curl_executor;
pub mod decomposed;
pub mod dft;
pub mod dft_part;
pub mod dispersive;
pub mod dispersive_nodes;
pub mod error;
pub mod field;
pub mod ghost_zone;
pub mod ghost_zone_chunk;
pub mod material_ids;
mod ordered_split;
pub mod own_wrap;
pub mod part_executor;
pub mod row_runs;
pub mod scatter;
pub mod simulation;
pub mod source;
pub mod state;
pub mod stencil_chunk;
pub mod tensor_curls;
pub mod tensor_nodes;
pub mod tensor_update;
pub mod tfsf;
pub mod tiled;
pub mod time_tile;

pub use chunk::YeeChunk;
pub use curl_executor::ScalarCurl;
pub use error::RunError;
pub use field::HostField;
pub use simulation::Simulation;
pub use state::YeeState;
