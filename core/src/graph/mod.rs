//! Irregular computational areas (Smyk & Tudruj 2011): a mask of active cells cut into tiles,
//! the macro data flow graph over the tiles, the quality of a partition of it, and the CDC
//! partitioning algorithms CDC, redeployment and RCDC (needs the `alloc` feature).
//!
//! A node of the graph is a connected piece of a tile's active cells (the whole tile's active
//! cells when they are joined, as they usually are); its weight is its active cells times the
//! cost density. Two nodes share an edge when active cells of theirs face each other across a
//! tile face; the edge weight is the number of such facing cell pairs (the cells exchanged per
//! step when the two sit on different ranks). A part connected in the graph is therefore
//! connected cell by cell.

pub mod architecture;
pub mod bisect;
pub mod cdc;
pub mod coarsen;
pub mod contract;
pub mod csr;
pub mod fork;
pub mod method;
pub mod quality;
mod ranking;
pub mod rcdc;
pub mod redeploy;
pub mod refine;
pub mod separation;
pub mod tiles;

pub use bisect::recursive_bisection;
pub use cdc::{CdcParams, cdc, cdc_on};
pub use contract::contract;
pub use csr::{EdgeWeights, Graph, NodeIndex};
pub use fork::{Fork, Sequential, map_chunks};
pub use method::{Method, partition};
pub use quality::{PartitionQuality, quality, quality_on};
pub use rcdc::{
    RcdcOutcome, RcdcParams, RcdcPool, RcdcTry, rcdc, rcdc_finish, rcdc_tries, run_try,
};
pub use redeploy::{MergeRule, join_pieces, merge, redeploy};
pub use refine::refine;
pub use tiles::{GRAPH_LIMIT, GraphError, NO_NODE, TileGraph};
