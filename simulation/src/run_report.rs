//! `run.json`: the report of a run assembled from its parts, the line that resumes an
//! interrupted run, and the summary printed after it.

use std::path::Path;

use yee_core::Box3;
use yee_scalar::decomposed::{RankOutput, mean_step_time};
use yee_scene::{Scene, Units};

use crate::dft_output::DftReport;
use crate::flux_output::FluxReport;
use crate::layout::RunLayout;
use crate::options::{RunOptions, rank_backends};
use crate::report::{
    BalanceReport, CheckpointReport, DecayReport, ProbeReport, RankReport, ResumeReport, RunReport,
};

/// What a run produced besides its ranks' outputs, for its report.
pub struct Produced {
    /// The files written.
    pub outputs: Vec<String>,
    /// The probes written.
    pub probes: Vec<ProbeReport>,
    /// The flux spectra.
    pub fluxes: Vec<FluxReport>,
    /// The DFT outputs.
    pub dfts: Vec<DftReport>,
    /// The `[[modes]]` monitors.
    pub modes: Vec<crate::modes_output::ModesReport>,
    /// The `[[resonances]]` blocks inverted.
    pub resonances: Vec<crate::report::ResonancesReport>,
    /// Why the run diverged, if it did.
    pub diverged: Option<String>,
    /// The files that could not be written, first first.
    pub output_errors: Vec<String>,
}

/// Where a run's wall time went.
#[derive(Clone, Copy, Debug)]
pub struct Timing {
    /// From the start of the run to its report.
    pub wall_seconds: f64,
    /// Before the first step.
    pub setup_seconds: f64,
    /// Writing outputs while stepping.
    pub writing_seconds: f64,
    /// From the start of the first step to the end of the last, less the outputs written
    /// between them.
    pub step_seconds: f64,
    /// After the last step: the outputs written once stepping ended, until the report.
    pub finishing_seconds: f64,
}

/// The checkpoints `results` took, as run.json lists them.
pub fn checkpoint_reports<T>(results: &[RankOutput<T>]) -> Vec<CheckpointReport> {
    results[0]
        .checkpoints
        .iter()
        .map(|c| CheckpointReport {
            step: c.step,
            error: c.error.clone(),
        })
        .collect()
}

/// Why an interrupted run stopped and how to resume it (its checkpoints in `checkpoint_dir`),
/// or that its checkpoint could not be written; `None` when it was not interrupted.
pub fn interruption<T>(
    scene: &Scene,
    out: &Path,
    checkpoint_dir: &Path,
    results: &[RankOutput<T>],
) -> Option<String> {
    let last_step = results[0].last_step;
    let checkpoints = checkpoint_reports(results);
    let last_checkpoint = checkpoints.iter().rev().find(|c| c.error.is_none());
    results[0].interrupted.then(|| match last_checkpoint {
        Some(c) if c.step == last_step => format!(
            "interrupted by a signal after step {last_step}: resume with `yee run {} {}`",
            scene.file.display(),
            resume_arguments(out, checkpoint_dir)
        ),
        _ => format!(
            "interrupted by a signal after step {last_step}, and the checkpoint could not be \
             written: {}",
            checkpoints
                .last()
                .and_then(|c| c.error.clone())
                .unwrap_or_default()
        ),
    })
}

/// The report of `scene`'s run with `options` laid out as `layout`, from its ranks'
/// `results`, what it `produced`, its `timing` and its `interruption`.
#[allow(clippy::too_many_arguments)]
pub fn run_report<T>(
    scene: &Scene,
    options: &RunOptions,
    layout: &RunLayout,
    results: &[RankOutput<T>],
    produced: Produced,
    timing: Timing,
    interruption: Option<String>,
) -> RunReport {
    let (first_step, last_step) = (results[0].first_step, results[0].last_step);
    let interrupted = results[0].interrupted;
    let Produced {
        outputs,
        probes,
        fluxes,
        dfts,
        modes,
        resonances,
        diverged,
        output_errors,
    } = produced;
    let boxed = layout.boxes.is_some();
    // Borders through the whole grid mean nothing for boxes: the boxes say it all.
    let (initial_borders, final_borders) = match boxed {
        true => (Default::default(), Default::default()),
        false => (
            layout.plan.borders.clone(),
            results[0]
                .history
                .last()
                .map_or_else(|| layout.plan.borders.clone(), |h| h.borders.clone()),
        ),
    };
    let Timing {
        wall_seconds,
        setup_seconds,
        step_seconds,
        finishing_seconds,
        ..
    } = timing;
    let run_steps = last_step - first_step;
    let steps = scene.steps;
    let until_decayed = decay_report(scene, results);
    RunReport {
        status: match (&diverged, output_errors.is_empty(), interrupted) {
            (Some(_), _, _) => "diverged",
            (None, false, _) => "failed",
            (None, true, true) => "interrupted",
            (None, true, false) => "complete",
        },
        error: diverged
            .clone()
            .or_else(|| output_errors.first().cloned())
            .or_else(|| interruption.clone()),
        output_errors,
        steps_completed: last_step,
        resumed_from: options.resume.as_ref().map(|l| ResumeReport {
            checkpoint: l.dir.display().to_string(),
            step: l.index.step,
        }),
        checkpoint_dir: options.checkpoint_dir().display().to_string(),
        checkpoints: checkpoint_reports(results),
        scene: scene.name.clone(),
        scene_file: scene.file.display().to_string(),
        scene_sha256: scene.sha256.clone(),
        overlap: options.overlap,
        dims: scene.mode.dims(),
        mode: scene.mode.name().into(),
        value_type: scene.value_type.name().into(),
        grid: scene.grid,
        steps,
        dt: scene.dt(),
        dt_scene: scene.units.to_scene_time(scene.dt()),
        courant: scene.courant,
        units: scene.units.name().into(),
        cell_size: match scene.units {
            Units::Si { cell_size } => Some(cell_size),
            Units::Normalised | Units::Lengths { .. } => None,
        },
        materials: scene
            .material_names()
            .iter()
            .map(|n| n.to_string())
            .collect(),
        command_line: std::env::args().collect(),
        backend: match options.rank_backends.is_empty() {
            true => options.backend.name().into(),
            false => "per-rank".into(),
        },
        rank_backends: rank_backends(options)
            .iter()
            .map(|b| b.name().into())
            .collect(),
        ranks: options.topology.ranks(),
        time_block: crate::time_block_report::time_block_report(
            &scene.setup(),
            options,
            (layout.owned.is_some(), layout.plan.balancer.is_some()),
            results,
        ),
        topology: options.topology.0,
        comm: options.comm,
        wall_seconds,
        setup_seconds,
        step_seconds,
        finishing_seconds,
        mcells_per_s: scene.cells() as f64 * run_steps as f64 / step_seconds / 1e6,
        end_to_end_mcells_per_s: scene.cells() as f64 * run_steps as f64 / wall_seconds / 1e6,
        model_step_seconds: mean_step_time(results),
        peak_rss_bytes: yee_runtime::memory::peak_rss_bytes(),
        rank_stats: results.iter().map(RankReport::from_output).collect(),
        balance: BalanceReport {
            mode: options.balance.mode,
            rebalance_every: options.balance.every,
            epsilon: options.balance.epsilon,
            rebalances: results[0].history.len(),
            layout: options.balance.layout,
            initial_borders,
            final_borders,
            final_boxes: layout.boxes.as_ref().map(|_| {
                let mut last: Vec<Box3> = vec![Box3::new([0; 3], [0; 3]); results.len()];
                for o in results {
                    last[o.rank] = o.owned;
                }
                box_json(&last)
            }),
            boxes: layout.boxes.as_deref().map(box_json),
        },
        outputs,
        probes,
        fluxes,
        dfts,
        modes,
        partition: layout.partition.clone(),
        resonances,
        until_decayed,
        smoothing_fallback: crate::smoothing_fallback::smoothing_fallback(scene, options),
    }
}

/// The arguments that resume a run writing into `out` with its checkpoints in `checkpoints`:
/// `--resume OUT` where they are in the output folder (`OUT/checkpoint`), else `--resume
/// CHECKPOINTS --out OUT --checkpoint-dir CHECKPOINTS` (the output folder alone would not
/// find them).
pub fn resume_arguments(out: &Path, checkpoints: &Path) -> String {
    if checkpoints == out.join("checkpoint") {
        return format!("--resume {}", out.display());
    }
    format!(
        "--resume {0} --out {1} --checkpoint-dir {0}",
        checkpoints.display(),
        out.display()
    )
}

/// The one-paragraph summary printed after a run.
pub fn summary(report: &RunReport, out: &Path) -> String {
    let memory = report
        .peak_rss_bytes
        .map_or("unknown".into(), yee_runtime::memory::human);
    format!(
        "Ran {} ({} {}, {} cells, {}) for {} steps in {:.2} s ({:.2} s set-up): {:.1} Mcells/s stepping on the {} backend with {} rank(s) ({}, {:?}), peak memory {}. \
         Wrote {} files to {}/ (run.json describes them).",
        report.scene,
        report.mode,
        report.value_type,
        report.grid.iter().product::<usize>(),
        report
            .grid
            .iter()
            .take(report.dims)
            .map(|n| n.to_string())
            .collect::<Vec<_>>()
            .join("×"),
        report.steps,
        report.wall_seconds,
        report.setup_seconds,
        report.mcells_per_s,
        report.backend,
        report.ranks,
        report
            .topology
            .iter()
            .map(|n| n.to_string())
            .collect::<Vec<_>>()
            .join("x"),
        report.comm,
        memory,
        report.outputs.len() + 1,
        out.display()
    )
}

/// Boxes by rank, as run.json lists them.
fn box_json(boxes: &[Box3]) -> Vec<yee_runtime::balance::BoxJson> {
    boxes
        .iter()
        .enumerate()
        .map(|(rank, b)| yee_runtime::balance::BoxJson {
            rank,
            lo: b.lo,
            hi: b.hi,
        })
        .collect()
}

/// The scene's decay rule and where it ended the run, for `run.json`.
fn decay_report<T>(scene: &Scene, results: &[RankOutput<T>]) -> Option<DecayReport> {
    let rule = scene.until_decayed?;
    let decayed = results[0].decayed;
    Some(DecayReport {
        probe: scene.probe_names[rule.probe].clone(),
        component: scene.probes[rule.probe].component.name().into(),
        factor: rule.factor,
        after_step: rule.after,
        every_steps: rule.every,
        decayed,
        stopped_at_step: decayed.then_some(results[0].last_step),
    })
}
