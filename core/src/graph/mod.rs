//! Irregular computational areas (Smyk & Tudruj 2011): a mask of active cells cut into tiles,
//! the macro data flow graph over the tiles, the quality of a partition of it, and the CDC
//! partitioning algorithms CDC, redeployment and RCDC (needs the `alloc` feature).
//!
//! A node of the graph is a tile holding at least one active cell; its weight is its active
//! cells times the cost density. Two nodes share an edge when their tiles touch across a face
//! and active cells face each other there; the edge weight is the number of such facing cell
//! pairs (the cells exchanged per step when the two tiles sit on different ranks).

pub mod architecture;
pub mod cdc;
pub mod csr;
pub mod method;
pub mod quality;
pub mod rcdc;
pub mod redeploy;
pub mod refine;
pub mod tiles;

pub use cdc::{CdcParams, cdc};
pub use csr::Graph;
pub use method::{Method, partition};
pub use quality::{PartitionQuality, quality};
pub use rcdc::{RcdcParams, rcdc};
pub use redeploy::{MergeRule, contract, join_pieces, merge, redeploy};
pub use tiles::{GraphError, NO_NODE, TileGraph};
