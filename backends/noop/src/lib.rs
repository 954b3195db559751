//! # yee-noop
//!
//! The no-op backend: a [`NoopChunk`] holds no fields and computes nothing, but it has the
//! owned box, the Yee halo sizes and the migration of a real chunk. On the simulated cluster
//! (whose clock charges `cells / speed` per update) balancing runs on large virtual machines
//! take seconds, so the balancer's decisions can be studied and snapshot-tested at scale.
//! It is the trivial implementation of [`yee_core::Chunk`], as wgpu-hal's noop backend is of
//! its device API.
#![no_std]
#![warn(missing_docs)]

extern crate alloc;

pub mod chunk;

pub use chunk::NoopChunk;
