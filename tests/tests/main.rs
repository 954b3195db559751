//! The workspace's integration tests as one binary (`cargo test -p yee-tests --test it`): one
//! module per topic, each file a topic as before. One binary links the dependency graph once
//! and shares the monomorphised simulator between topics, where fifty binaries each built it
//! again (matklad, "Delete Cargo Integration Tests", 2021; docs/testing.md).
//!
//! `no_step_allocations` installs a counting global allocator for the whole binary, and runs
//! each of its tests again alone in a child process, where nothing else allocates.
//! `mpi_conformance` stays a binary of its own: it needs the `mpi` feature.

mod anisotropy;
mod backend_conformance;
mod bad_input;
mod balance_reduce;
mod balancing;
mod bloch;
mod box_layouts;
mod cavity;
mod comm_conformance;
mod convergence;
mod cpml;
mod decomposition;
mod dipole;
mod dispersive;
mod dispersive_cost;
mod energy;
mod flux;
mod function_length;
mod ghost_zone;
mod harminv;
mod heterogeneous;
mod irregular;
mod loss;
mod lossy_smoothing;
mod low_frequency;
mod magic_step;
mod mie;
mod module_graph;
mod no_step_allocations;
mod partition;
mod placement;
mod plane_wave;
mod rayon_equivalence;
mod scalar_types;
mod scene_fuzz;
mod sim_snapshots;
mod smoothing;
mod tensor;
mod tile_execution;
mod time_block;
mod topology;
