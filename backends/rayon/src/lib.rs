//! # yee-rayon
//!
//! The curl update of the Yee scheme as row kernels the compiler vectorises, with rows spread
//! over a rayon pool. It plugs into the scalar backend's [`YeeChunk`] as its
//! [`CurlExecutor`]; CPML corrections, sources, halos and migration stay shared. The arithmetic
//! is the scalar oracle's, operation for operation (no fused multiply-add, the same order), so
//! the fields are bit-for-bit the same — the tests hold it to that.
//!
//! Where it is fast: outside CPML stretching (1/κ = 1 exactly, so the scaling is skipped without
//! changing a bit) and with one material over the chunk (coefficients hoisted out of the loop);
//! elsewhere it falls back to per-cell lookups, still in parallel. A run of rows that all take
//! the fast loop is swept by one call of it, so short rows pay no per-row setup. On grids that
//! outgrow the cache, a phase's components are updated batch of rows by batch of rows
//! ([`ComponentPasses`]), so each source array is read from memory once per step instead of
//! twice.
#![warn(missing_docs)]

pub mod cache_probe;
mod cpml;
mod curl;
mod executor;
mod kernels;
mod per_rank;
mod runs;
mod scratch;
pub mod time_block;

pub use executor::{ComponentPasses, RayonCurl};
pub use per_rank::{HostKernel, PerRank};
pub use yee_scalar::YeeChunk;
pub use yee_scalar::time_tile::TimeBlock;
