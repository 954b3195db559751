//! `run.json`: what a run did and where its outputs are. Written last, so a directory with a
//! `run.json` holds a finished run.

use serde::Serialize;

/// One probe's entry in `run.json`.
#[derive(Debug, Serialize)]
pub struct ProbeReport {
    /// Probe name.
    pub name: String,
    /// Component recorded.
    pub component: String,
    /// Cell index.
    pub cell: [i64; 3],
    /// CSV file, relative to the output directory.
    pub file: String,
}

/// The contents of `run.json`.
#[derive(Debug, Serialize)]
pub struct RunReport {
    /// Scene name.
    pub scene: String,
    /// Scene file as given.
    pub scene_file: String,
    /// 1, 2 or 3.
    pub dims: usize,
    /// "1d", "tmz", "tez" or "3d".
    pub mode: String,
    /// "f32", "f64", "c32" or "c64".
    pub value_type: String,
    /// Cells along x, y, z (1 on unused axes).
    pub grid: [usize; 3],
    /// Steps run.
    pub steps: u64,
    /// Time step in normalised units (cell crossing times of light).
    pub dt: f64,
    /// Time step in the scene's units (seconds for SI scenes).
    pub dt_scene: f64,
    /// Courant number.
    pub courant: f64,
    /// "normalised" or "si".
    pub units: String,
    /// Backend name.
    pub backend: String,
    /// Number of ranks.
    pub ranks: usize,
    /// Wall time of the time loop, outputs included.
    pub wall_seconds: f64,
    /// Wall time spent stepping alone.
    pub step_seconds: f64,
    /// cells × steps / wall_seconds / 1e6.
    pub mcells_per_s: f64,
    /// Peak resident memory, where the OS reports it.
    pub peak_rss_bytes: Option<u64>,
    /// Files written, relative to the output directory (run.json excluded).
    pub outputs: Vec<String>,
    /// Probes and their files.
    pub probes: Vec<ProbeReport>,
}
