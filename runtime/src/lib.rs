//! # yee-runtime
//!
//! What an application built on yee's traits needs to run, whatever its command line or scene
//! format: ranks launched on the simulated, shared-memory or MPI communicator behind one call
//! ([`parallel::run_decomposed`], [`tiled::run_tiled`]), whole fields gathered on the writing
//! rank at output steps ([`piece`], [`parallel::OutputGather`], [`wire`] for ranks in other
//! processes), the MPI start-up agreement ([`mpi::agree`], with the `mpi` feature), static
//! plans ([`balance::make_plan`]) and tile plans ([`tiled::plan_tiles`]), balancing profiles
//! ([`profile`]) and the memory a run takes ([`memory`]).
//!
//! Everything takes a `yee_em::Setup` and plain values, not a scene file: the `yee` command
//! loads scenes with `yee-scene` and hands their setup here. Errors are [`RuntimeError`]s,
//! with a [`RuntimeErrorKind`] and a message naming what and where.
//!
//! Features: `mpi` (the MPI communicator; needs an MPI library), `clap` (`clap::ValueEnum` on
//! [`parallel::CommKind`] and [`balance::BalanceMode`]).
#![warn(missing_docs)]

pub mod app;
pub mod app_checkpoint;
pub mod balance;
pub mod checkpoint;
pub mod checkpoint_owned;
mod error;
pub mod launch;
pub mod memory;
pub mod memory_limit;
#[cfg(feature = "mpi")]
pub mod mpi;
pub mod parallel;
pub mod parallel_rcdc;
pub mod piece;
pub mod profile;
pub mod tiled;
pub mod wire;

pub use error::{RuntimeError, RuntimeErrorKind};
