//! The custom apps' integration tests as one binary (`cargo test -p yee-examples --test it`), one
//! module per topic; `mpi` needs the `mpi` feature and stays a binary of its own.

mod heat_decomposition;
mod life;
mod scale_sim;
mod virtual_cluster;
mod wave;
