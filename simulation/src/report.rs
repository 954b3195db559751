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

/// A checkpoint in `run.json`.
#[derive(Debug, Serialize)]
pub struct CheckpointReport {
    /// Steps done when it was taken.
    pub step: u64,
    /// Why it is not usable, if it is not (a rank could not write its part).
    pub error: Option<String>,
}

/// Where a resumed run started.
#[derive(Debug, Serialize)]
pub struct ResumeReport {
    /// The checkpoint folder.
    pub checkpoint: String,
    /// Its step.
    pub step: u64,
}

/// The contents of `run.json`.
#[derive(Debug, Serialize)]
pub struct RunReport {
    /// "complete"; "interrupted" (SIGINT, SIGTERM or SIGUSR1: `error` says after which step, and a
    /// checkpoint of that step is in `checkpoint_dir`, to resume with `--resume`); "diverged" (the fields went non-finite: `error` names the step and node;
    /// probes hold the steps before, spectra are not written); or "failed" (an output could
    /// not be written: `error` says which and why, `outputs` lists the files written whole).
    pub status: &'static str,
    /// What stopped the run, if anything did.
    pub error: Option<String>,
    /// Every output that could not be written, in order (the first is `error`); absent when
    /// all were.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub output_errors: Vec<String>,
    /// The last step done: `steps` unless the run stopped early.
    pub steps_completed: u64,
    /// The checkpoint this run resumed from, if it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resumed_from: Option<ResumeReport>,
    /// Where checkpoints are written.
    pub checkpoint_dir: String,
    /// The checkpoints this run took (periodic, and the one at an interruption).
    pub checkpoints: Vec<CheckpointReport>,
    /// Scene name.
    pub scene: String,
    /// Scene file as given.
    pub scene_file: String,
    /// SHA-256 of the scene file's bytes (hex).
    pub scene_sha256: String,
    /// Whether the halo exchange overlapped the interior update.
    pub overlap: bool,
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
    /// The cell size Δ in metres (SI scenes; `null` in normalised ones, whose unit of length is
    /// the cell).
    pub cell_size: Option<f64>,
    /// The material names, numbered as the `material` geometry output numbers them.
    pub materials: Vec<String>,
    /// The command line of this run.
    pub command_line: Vec<String>,
    /// Backend name (`per-rank` with `--rank-backends`).
    pub backend: String,
    /// Each rank's backend, in rank order (`--rank-backends`, else `backend` for every rank).
    pub rank_backends: Vec<String>,
    /// Number of ranks.
    pub ranks: usize,
    /// Temporal blocking: asked for, what ran, the steps per tile and why not.
    pub time_block: crate::time_block_report::TimeBlockReport,
    /// Ranks along x, y, z.
    pub topology: [usize; 3],
    /// The communicator.
    pub comm: yee_runtime::parallel::CommKind,
    /// Wall time of the run: set-up, stepping and the outputs written while stepping.
    pub wall_seconds: f64,
    /// Wall time from the start of the run (scene parsed, nothing built) until the first step
    /// began: plan, chunks, materials, ψ arrays, a checkpoint read back. Taken as the time
    /// to the end of the first step less the mean duration of the later ones.
    pub setup_seconds: f64,
    /// Wall time spent stepping alone: from the start of the first step to the end of the
    /// last, less the outputs written between them (what follows the last step — the last
    /// outputs, the ranks' spectra and fields handed back — is not stepping).
    pub step_seconds: f64,
    /// Wall time after the run's last step, not in `wall_seconds`: the probes, flux spectra,
    /// DFT outputs, far fields, mode amplitudes, resonances and balance outputs written once
    /// stepping ended, until this report.
    pub finishing_seconds: f64,
    /// Stepping rate: cells × steps / step_seconds / 1e6.
    pub mcells_per_s: f64,
    /// The rate with everything counted: cells × steps / wall_seconds / 1e6.
    pub end_to_end_mcells_per_s: f64,
    /// Mean step time by Balykov 2019 eq. (2) from the ranks' records (virtual seconds on sim).
    pub model_step_seconds: f64,
    /// Peak resident memory, where the OS reports it.
    pub peak_rss_bytes: Option<u64>,
    /// Per rank: its box and its time.
    pub rank_stats: Vec<RankReport>,
    /// Load balancing.
    pub balance: BalanceReport,
    /// With `--partition`: how the tiles were shared (ranks then own tile sets, and
    /// `rank_stats` give each rank's bounding box).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub partition: Option<PartitionSummary>,
    /// Files written, relative to the output directory (run.json excluded).
    pub outputs: Vec<String>,
    /// Probes and their files.
    pub probes: Vec<ProbeReport>,
    /// Flux regions: spectra and files.
    pub fluxes: Vec<crate::flux_output::FluxReport>,
    /// DFT field outputs.
    pub dfts: Vec<crate::dft_output::DftReport>,
    /// The `[[modes]]` monitors: each one's files, modes and powers (absent when the scene has
    /// none).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub modes: Vec<crate::modes_output::ModesReport>,
    /// The `[[resonances]]` blocks: each one's file, probes, band and modes (absent when the
    /// scene has none).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub resonances: Vec<ResonancesReport>,
    /// The scene's `[run] until_decayed` rule and whether it ended the run (absent without
    /// one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub until_decayed: Option<DecayReport>,
    /// Why subpixel smoothing kept the diagonal of the effective tensor alone (the backend or
    /// layout runs no tensor update); absent where it kept the full tensor or had none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub smoothing_fallback: Option<String>,
}

/// `until_decayed` in `run.json`: the rule as run, and where it ended the run.
#[derive(Debug, Serialize)]
pub struct DecayReport {
    /// The probe watched.
    pub probe: String,
    /// Its component.
    pub component: String,
    /// The run ends at a check whose interval's largest |field|² is at most `factor` times
    /// the largest seen.
    pub factor: f64,
    /// Samples after this step count.
    pub after_step: u64,
    /// Steps between checks (the first `every_steps` after `after_step`).
    pub every_steps: u64,
    /// Whether the fields decayed: the run ended at `stopped_at_step` for that reason.
    pub decayed: bool,
    /// The check step at which the rule ended the run (`null` when it went on to `steps` or
    /// stopped for another reason).
    pub stopped_at_step: Option<u64>,
}

/// One rank's entry in `run.json`.
#[derive(Debug, Serialize)]
pub struct RankReport {
    /// The rank.
    pub rank: usize,
    /// Lower corner of its box.
    pub lo: [i64; 3],
    /// Upper corner (exclusive).
    pub hi: [i64; 3],
    /// Seconds spent computing (virtual on sim).
    pub compute_seconds: f64,
    /// Seconds spent receiving halos (virtual on sim).
    pub share_seconds: f64,
    /// Bytes sent.
    pub bytes_sent: u64,
}

impl RankReport {
    /// Sums a rank's records.
    pub fn from_output<T>(o: &yee_scalar::decomposed::RankOutput<T>) -> Self {
        RankReport {
            rank: o.rank,
            lo: o.owned.lo,
            hi: o.owned.hi,
            compute_seconds: o.records.totals.compute_seconds,
            share_seconds: o.records.totals.share_seconds,
            bytes_sent: o.records.totals.bytes_sent,
        }
    }
}

/// The tile partition of a `--partition` run in `run.json`.
#[derive(Clone, Debug, Serialize)]
pub struct PartitionSummary {
    /// rcdc, redeploy or cdc.
    pub method: String,
    /// Tile extent.
    pub tile: [usize; 3],
    /// Cut edge weight: cells exchanged per phase.
    pub edge_cut: f64,
    /// Max part weight ÷ target.
    pub imbalance: f64,
}

/// The balancing part of `run.json`.
#[derive(Debug, Serialize)]
pub struct BalanceReport {
    /// off, static or dynamic.
    pub mode: yee_runtime::balance::BalanceMode,
    /// T_perf.
    pub rebalance_every: u64,
    /// ε.
    pub epsilon: f64,
    /// Balancing decisions taken: the rows of `balance_history.csv`, `keep` included.
    pub rebalances: usize,
    /// tensor, jagged or kd.
    pub layout: yee_runtime::balance::LayoutKind,
    /// Borders per axis at the start (a tensor layout; empty for the others).
    pub initial_borders: [Vec<i64>; 3],
    /// Borders per axis at the end (a tensor layout; empty for the others).
    pub final_borders: [Vec<i64>; 3],
    /// Each rank's box at the start (a jagged or k-d layout).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub boxes: Option<Vec<yee_runtime::balance::BoxJson>>,
    /// Each rank's box at the end (a jagged or k-d layout; moved by `--balance dynamic`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub final_boxes: Option<Vec<yee_runtime::balance::BoxJson>>,
}

/// One mode in `run.json`.
#[derive(Clone, Debug, Serialize)]
pub struct ModeReport {
    /// Frequency (scene units).
    pub frequency: f64,
    /// Decay rate γ (per scene time unit).
    pub decay: f64,
    /// Quality factor π |f| / γ.
    #[serde(rename = "Q")]
    pub q: f64,
    /// |d| at time 0 (for a real record, half the cosine's amplitude).
    pub amplitude: f64,
    /// arg d at time 0, radians.
    pub phase: f64,
    /// harminv's relative error estimate.
    pub error: f64,
}

/// A `[[resonances]]` block in `run.json`.
#[derive(Clone, Debug, Serialize)]
pub struct ResonancesReport {
    /// The block's name.
    pub name: String,
    /// `resonances_<name>.csv`.
    pub file: String,
    /// The probes whose records were summed.
    pub probes: Vec<String>,
    /// `[fmin, fmax]` (scene units).
    pub band: [f64; 2],
    /// Samples before this time were left out.
    pub after: f64,
    /// How many samples were inverted.
    pub samples: usize,
    /// The modes, in increasing frequency.
    pub modes: Vec<ModeReport>,
}
