//! The scene loader's integration tests as one binary (`cargo test -p yee-scene --test it`), one
//! module per topic.

mod bloch;
mod lengths;
mod library;
mod poles;
mod positions;
mod sources;
mod tensors;
mod warnings;
