//! The `yee` command's integration tests as one binary (`cargo test -p yee --test it`): one
//! module per topic. One binary links the libraries once, where a binary per file linked them
//! fourteen times (docs/testing.md).
//!
//! The topics that need a feature to mean anything (`mpi`, `mpi_faults`, `hdf5_reader`) stay
//! binaries of their own, built only with that feature.

use std::path::{Path, PathBuf};

mod balancing;
mod checkpoint;
mod cross_section_units;
mod cuda;
mod end_to_end;
mod geometry_preview;
mod heterogeneous;
mod malformed_scenes;
mod movie;
mod output_folder;
mod overlap;
mod partition;
mod pec_material;
mod vtk_reader;

/// The folder under cargo's `target/tmp` where one topic (its `module_path!()`) writes: topics
/// run side by side in this binary, so each keeps to a folder named after it.
fn tmp_dir(module: &str) -> PathBuf {
    let topic = module.rsplit("::").next().unwrap_or(module);
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(topic);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
