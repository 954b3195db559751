//! One leg of a run: a scene stepped on one backend in one element type, from its start or a
//! checkpoint to its last step (or to a stop every rank agrees on), the output plan written
//! as it goes, then the probes, spectra, balancing record and `run.json`.

use std::io::Write;
use std::time::Instant;

use yee_core::Scalar;
use yee_em::{Component, YeeBackend};
use yee_runtime::parallel::{Continuity, process_rank, run_decomposed};
use yee_runtime::piece::Assembled;
use yee_scalar::decomposed::{RankOutput, assemble, first_divergence};
use yee_scene::Scene;

use crate::control::Control;
use crate::error::AppError;
use crate::failures::Failures;
use crate::files::write_file;
use crate::layout::RunLayout;
use crate::options::RunOptions;
use crate::output_dir::{lock_checkpoint_dir, prepare_output_dir};
use crate::output_plan::{OutputPlan, Written};
use crate::probe_output::{ProbeSeries, write_probes};
use crate::progress::Progress;
use crate::report::RunReport;
use crate::run_report::{Produced, Timing, interruption, run_report};
use crate::values::{Erase, FieldsAt};

/// What a leg leaves on the writing process.
#[derive(Debug)]
pub struct Ended {
    /// Its `run.json`.
    pub report: RunReport,
    /// Each probe's series.
    pub probes: Vec<ProbeSeries>,
    /// The fields where it stopped, when a controlled run kept them.
    pub fields: Option<FieldsAt>,
    /// Why it failed (diverged, an output not written, interrupted), after writing its report.
    pub error: Option<AppError>,
}

/// Runs `scene` with `options` on `kernel` in element type `T`, paused and read through
/// `control` when a [`crate::Simulation`] drives it from another thread. Returns `None` on the
/// processes of an MPI job that do not write.
pub fn run_leg<T: Scalar + Erase, K: YeeBackend<T>>(
    scene: &Scene,
    options: &RunOptions,
    kernel: K,
    control: Option<&Control>,
) -> Result<Option<Ended>, AppError> {
    let started = Instant::now();
    let out = &options.out;
    let writer = process_rank(options.comm) == 0;
    // Held to the end of the leg (also when it fails or is stopped), paused or not.
    let _lock = writer
        .then(|| {
            let resumes = options.resume.is_some();
            prepare_output_dir(out, resumes, options.fresh, options.output_lock.as_ref())
        })
        .transpose()?;
    // A --checkpoint-dir outside the output folder is locked too.
    let _checkpoint_lock = writer
        .then(|| lock_checkpoint_dir(out, &options.checkpoint_dir()))
        .transpose()?
        .flatten();
    let setup = scene.setup();
    setup.validate().map_err(|e| AppError::Run(e.to_string()))?;
    let steps = scene.steps;
    let plan = OutputPlan::new(scene, out, options.resume.as_ref(), writer)?;
    let layout = RunLayout::new(scene, &setup, options)?;
    // A controlled run also gathers the fields where it pauses; on the tile driver, whose
    // ranks hand back no fields, also at its last step, to keep them for reading after it.
    let keep_last = control.is_some() && layout.owned.is_some();
    let wants_output = |step: u64| {
        plan.wants(step) || control.is_some_and(|c| c.wants(step)) || (keep_last && step == steps)
    };
    let on_output = |step: u64, fields: &Assembled<T>| {
        if plan.wants(step) {
            plan.write(step, fields);
        }
        if let Some(c) = control {
            if keep_last && step == steps {
                c.keep(FieldsAt::of(step, fields));
            }
            c.pause(step, fields);
        }
    };
    let progress = Progress::new(scene, options.quiet || !writer);
    let update = |step: u64| {
        progress.update(step);
        if let Some(c) = control {
            c.update(step);
        }
    };
    let checkpoint_config = yee_runtime::checkpoint::CheckpointConfig {
        dir: options.checkpoint_dir(),
        every_steps: options.checkpoint.every_steps,
        every_seconds: options.checkpoint.every_seconds,
        scene_sha256: scene.sha256.clone(),
        value_type: scene.value_type.name().into(),
        steps,
    };
    let app = || serde_json::json!({ "outputs": plan.files(), "scene_file": scene.file.display().to_string() });
    let continuity = Continuity {
        resume: options.resume.as_ref(),
        checkpoints: Some(&checkpoint_config),
        stop: control.map(|c| &c.stop).or(options.stop.as_ref()),
        app: Some(&app),
        // Slices and snapshots are gathered while stepping; only a controlled run reads the
        // final fields (where the run ended or a stop left it).
        drop_fields: control.is_none(),
        until_decayed: scene.until_decayed,
        // Between the steps whose fields are read, a lone rank may sweep several at once.
        observed: Some(&wants_output),
    };
    let results = match &layout.owned {
        None => run_decomposed::<T, K>(
            &setup,
            &layout.plan,
            scene.costs,
            kernel,
            options.comm,
            options.model.clone(),
            &options.slowdown,
            steps,
            &continuity,
            &wants_output,
            &on_output,
            &update,
        ),
        Some(map) => yee_runtime::tiled::run_tiled::<T, K>(
            &setup,
            map.as_ref(),
            layout.rebalancing.as_ref(),
            scene.costs,
            kernel,
            options.comm,
            options.model.clone(),
            &options.slowdown,
            steps,
            options.overlap,
            &continuity,
            &wants_output,
            &on_output,
            &update,
        ),
    }
    .map_err(|e| AppError::Run(format!("{}: {e}", scene.file.display())))?;
    progress.finish();
    let Some(mut results) = results else {
        return Ok(None);
    };
    let wall_seconds = started.elapsed().as_secs_f64();
    let written = plan.finish();
    let setup_seconds = progress
        .stepping_began()
        .map_or(0.0, |t| t.saturating_duration_since(started).as_secs_f64())
        .min(wall_seconds - written.seconds);
    let timing = Timing {
        wall_seconds,
        setup_seconds,
        writing_seconds: written.seconds,
        step_seconds: stepping_seconds(&progress, &written, started),
        finishing_seconds: 0.0,
    };
    let fields = control
        .and_then(Control::take_kept)
        .or_else(|| control.and_then(|_| stopped_fields(scene, &mut results)));
    let (report, probes, error) = write_after(scene, options, &layout, &results, written, timing);
    Ok(Some(Ended {
        report,
        probes,
        fields,
        error,
    }))
}

/// From the start of the first step to the end of the last, less the outputs written between
/// them; at least a nanosecond, so a rate stays finite.
fn stepping_seconds(progress: &Progress, written: &Written, started: Instant) -> f64 {
    let (Some(began), Some((ended, last))) = (progress.stepping_began(), progress.last_step_end())
    else {
        return 1e-9;
    };
    // The first step's start is estimated from the mean step, which output writes lengthen:
    // never before the run began, so that set-up and stepping stay within the wall time.
    let began = began.max(started);
    let after_last = if written.last.0 == last {
        written.last.1
    } else {
        0.0
    };
    let between = written.seconds - after_last;
    (ended.saturating_duration_since(began).as_secs_f64() - between).max(1e-9)
}

/// The fields where the ranks stopped, taken out of `results`, when they kept them (the box
/// driver does).
fn stopped_fields<T: Erase>(scene: &Scene, results: &mut [RankOutput<T>]) -> Option<FieldsAt> {
    let grid = scene.grid;
    let whole = yee_core::Box3::from_extent(grid);
    let components = Component::ALL.map(|c| {
        let kept = scene.mode.has(c) && results.iter().all(|r| r.fields[c.index()].is_some());
        match results {
            // One rank's fields are the grid's: moved, not copied.
            [one] if kept && one.owned == whole => one.fields[c.index()].take().map(T::erase),
            _ if kept => assemble(results, grid, c).map(T::erase),
            _ => None,
        }
    });
    components.iter().any(Option::is_some).then(|| FieldsAt {
        step: results[0].last_step,
        grid,
        components,
    })
}

/// What a leg writes once its ranks have stopped — the probes, the `.pvd` collection and
/// HDF5 index, movies, spectra, the balancing record, `run.json` — and the error it ends with.
fn write_after<T: Scalar + Erase>(
    scene: &Scene,
    options: &RunOptions,
    layout: &RunLayout,
    results: &[RankOutput<T>],
    written: Written,
    timing: Timing,
) -> (RunReport, Vec<ProbeSeries>, Option<AppError>) {
    let finishing = std::time::Instant::now();
    let out = &options.out;
    let interrupted = results[0].interrupted;
    // A diverged run still writes its probes (up to the step it stopped at) and a run.json
    // that says so; the spectra of non-finite fields are not written.
    let diverged = first_divergence(results).map(|e| format!("{}: {e}", scene.file.display()));
    // An output that could not be written (the rest of the run went on) fails the run, and
    // run.json lists the files that were written whole: from here on every write failure is
    // kept the same way, and the other outputs and run.json are still written.
    let Written {
        files: mut outputs,
        failures: mut failed,
        hdf5,
        ..
    } = written;
    let (probes, series) = write_probes(
        scene,
        results,
        out,
        hdf5.as_ref(),
        &mut outputs,
        &mut failed,
    );
    let collection = crate::snapshots::write_collection(scene, &outputs, out);
    if let Some(file) = failed.keep(collection).flatten() {
        outputs.push(file);
    }
    let index = hdf5.as_ref().map(|h| h.write_index(scene, out));
    if let Some(file) = failed.keep(index.transpose()).flatten().flatten() {
        if !outputs.contains(&file) {
            outputs.push(file);
        }
    }
    if options.movie {
        let movies = crate::movie::write_movies(out, &outputs);
        outputs.extend(failed.keep(movies).into_iter().flatten());
    }
    let (fluxes, dfts, modes, resonances) = match diverged.is_none() && !interrupted {
        true => {
            let (fluxes, dfts, modes) = write_spectra(
                scene,
                results,
                out,
                hdf5.as_ref(),
                &mut outputs,
                &mut failed,
            );
            let (resonances, files) =
                crate::resonances_output::write_resonances(scene, &series, out, &mut failed);
            outputs.extend(files);
            (fluxes, dfts, modes, resonances)
        }
        false => (Vec::new(), Vec::new(), Vec::new(), Vec::new()),
    };
    crate::balance_output::write_balance(
        scene,
        options,
        layout,
        results,
        out,
        &mut outputs,
        &mut failed,
    );
    let interruption = interruption(scene, out, &options.checkpoint_dir(), results);
    let produced = Produced {
        outputs,
        probes,
        fluxes,
        dfts,
        modes,
        resonances,
        diverged: diverged.clone(),
        output_errors: failed.messages(),
    };
    let timing = Timing {
        finishing_seconds: finishing.elapsed().as_secs_f64(),
        ..timing
    };
    let report = run_report(
        scene,
        options,
        layout,
        results,
        produced,
        timing,
        interruption.clone(),
    );
    let json = serde_json::to_string_pretty(&report).expect("the report serialises");
    let report_path = out.join("run.json");
    let error = match write_file(&report_path, |w| writeln!(w, "{json}")) {
        Err(e) => Some(e),
        Ok(()) => diverged
            .map(AppError::Run)
            .or_else(|| failed.into_first())
            .or_else(|| interruption.map(AppError::Interrupted)),
    };
    (report, series, error)
}

/// The flux spectra, DFT outputs and mode amplitudes of a run that ended well, written into
/// `out` (and `fields.h5`); a spectrum that is not finite fails the run.
fn write_spectra<T: Scalar>(
    scene: &Scene,
    results: &[RankOutput<T>],
    out: &std::path::Path,
    hdf5: Option<&crate::hdf5_output::Hdf5Output>,
    outputs: &mut Vec<String>,
    failed: &mut Failures,
) -> (
    Vec<crate::flux_output::FluxReport>,
    Vec<crate::dft_output::DftReport>,
    Vec<crate::modes_output::ModesReport>,
) {
    let (fluxes, flux_files) =
        crate::flux_output::write_fluxes(scene, results, results[0].last_step, out, failed);
    outputs.extend(flux_files);
    if let Some(h) = hdf5 {
        failed.keep(h.write_fluxes(&fluxes));
    }
    let (dfts, dft_files) = crate::dft_output::write_dfts(scene, results, out, failed);
    outputs.extend(dft_files);
    for f in &fluxes {
        failed.keep(crate::flux_output::check_finite(f));
    }
    let (modes, mode_files) =
        crate::modes_output::write_mode_monitors(scene, results, results[0].last_step, out, failed);
    outputs.extend(mode_files);
    (fluxes, dfts, modes)
}
