//! The `yee` command's integration tests as one binary (`cargo test -p yee --test it`): one
//! module per topic. One binary links the libraries once, where a binary per file linked them
//! fourteen times (docs/testing.md).
//!
//! The topics that need a feature to mean anything (`mpi`, `mpi_faults`, `hdf5_reader`) stay
//! binaries of their own, built only with that feature.

use std::path::{Path, PathBuf};

mod balancing;
mod bands;
mod bend_vs_meep;
mod bounded_inputs;
mod checkpoint;
mod cross_section_units;
mod cuda;
mod end_to_end;
mod geometry_preview;
mod heterogeneous;
mod length_units;
mod malformed_scenes;
mod memory;
mod mode_monitors;
mod mode_parity;
mod mode_propagation;
mod mode_source_band;
mod mode_sources;
mod mode_step_vs_meep;
mod modes;
mod movie;
mod non_finite_results;
mod output_folder;
mod overlap;
mod partition;
mod pec_material;
mod plots;
mod resonances;
mod scan;
mod scene_warnings;
mod source_placement;
mod time_block;
mod until_decayed;
mod vtk_reader;

/// The folder under cargo's `target/tmp` where one topic (its `module_path!()`) writes: topics
/// run side by side in this binary, so each keeps to a folder named after it.
fn tmp_dir(module: &str) -> PathBuf {
    let topic = module.rsplit("::").next().unwrap_or(module);
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(topic);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Writes scene `text` to `dir/name.toml`, runs `yee run --quiet` on it into `dir/name` and
/// returns that folder (the run must succeed).
fn run_text(dir: &Path, name: &str, text: &str) -> PathBuf {
    let file = dir.join(format!("{name}.toml"));
    std::fs::write(&file, text).unwrap();
    let out = dir.join(name);
    let status = std::process::Command::new(env!("CARGO_BIN_EXE_yee"))
        .args(["run", "--quiet", "--out"])
        .arg(&out)
        .arg(&file)
        .status()
        .unwrap();
    assert!(status.success(), "yee run {}", file.display());
    out
}

/// Writes scene `text` to `dir/name.toml` and runs `yee check` on it; its output, whether it
/// succeeded or not.
fn check_text(dir: &Path, name: &str, text: &str) -> std::process::Output {
    let file = dir.join(format!("{name}.toml"));
    std::fs::write(&file, text).unwrap();
    std::process::Command::new(env!("CARGO_BIN_EXE_yee"))
        .arg("check")
        .arg(&file)
        .output()
        .unwrap()
}

/// A CSV's rows (numbers) as maps from its header's names.
fn csv_rows(path: &Path) -> Vec<std::collections::HashMap<String, f64>> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    lines
        .map(|l| {
            header
                .iter()
                .zip(l.split(','))
                .map(|(h, v)| (h.to_string(), v.parse().unwrap()))
                .collect()
        })
        .collect()
}
