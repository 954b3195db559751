//! `yee run` on a scene with `[scan]`: a B-scan as gprMax makes one (`#src_steps`,
//! `#rx_steps`). Trace `k` is the scene with its sources and receivers moved by `k` steps
//! ([`Scene::trace`]); each runs as `yee run` runs a scene (the command's backend, ranks and
//! communicator), `--jobs` of them at a time on threads of their own, into `trace_NNN/` with
//! its own `run.json`. Then each receiver's records, one row per trace, are merged into
//! `bscan_<probe>_<component>.npy` (traces × samples, the scene's element type) and drawn as
//! `bscan_<probe>_<component>.png` (position along the scan across, time down). The top-level
//! `run.json` lists the traces with their positions and the merged files, and says where the
//! scan stands ("running", "complete", "interrupted" or "failed") after every trace.

use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Instant;

use serde_json::{Value, json};
use yee_io::slice_plot::LengthUnit;
use yee_scene::scan::{Scan, TracePosition};
use yee_scene::{Scene, Units};
use yee_simulation::options::RunOptions;
use yee_simulation::values::Values;
use yee_simulation::{ProbeSeries, Simulation};

use crate::error::{AppError, io_error};

/// The folder of trace `k`.
pub fn trace_folder(k: usize) -> String {
    format!("trace_{k:03}")
}

/// The merged file of a receiver: `bscan_<probe>_<component>` with the extension `ext`.
pub fn bscan_file(probe: &str, component: yee_em::Component, ext: &str) -> String {
    format!("bscan_{probe}_{}.{ext}", component.name())
}

/// What one trace left: each receiver's series, and how long it ran.
struct TraceResult {
    receivers: Vec<ProbeSeries>,
    seconds: f64,
}

/// Where the scan stands, as the top-level `run.json` says after every trace.
struct Ledger {
    status: &'static str,
    error: Option<String>,
    done: Vec<Option<f64>>,
    bscans: Vec<Value>,
    outputs: Vec<String>,
    /// Each trace's folder, sources and receivers (as `run.json` lists them).
    positions: Vec<Value>,
    /// When `run.json` was last written.
    written: Instant,
}

/// Runs trace `k` of `scene`'s scan into its folder of `options.out`.
fn run_trace(scene: &Scene, options: &RunOptions, k: usize) -> Result<TraceResult, AppError> {
    let started = Instant::now();
    let trace = scene.trace(k);
    let mut o = options.clone();
    o.out = options.out.join(trace_folder(k));
    o.quiet = true;
    // Each trace starts over: the scan's state is the traces that ended, in run.json.
    o.fresh = true;
    o.resume = None;
    o.output_lock = None;
    o.checkpoint.dir = (options.checkpoint.dir.as_ref()).map(|d| d.join(trace_folder(k)));
    let mut simulation = Simulation::new(trace, o)?;
    simulation.run()?;
    let probes = simulation.probes();
    let receivers = receivers(scene)
        .map(|(name, _)| {
            (probes.iter().find(|p| p.name == name))
                .cloned()
                .ok_or_else(|| AppError::Run(format!("trace {k} kept no record of {name}")))
        })
        .collect::<Result<_, _>>()?;
    Ok(TraceResult {
        receivers,
        seconds: started.elapsed().as_secs_f64(),
    })
}

/// The scan of `scene` (callers check that it has one).
fn scan_of(scene: &Scene) -> &Scan {
    scene.scan.as_ref().expect("a scene with [scan]")
}

/// The receivers' names and components.
fn receivers(scene: &Scene) -> impl Iterator<Item = (&str, yee_em::Component)> {
    (scan_of(scene).receivers.iter())
        .map(|&p| (scene.probe_names[p].as_str(), scene.probes[p].component))
}

/// Positions as JSON objects.
fn positions_json(positions: &[TracePosition]) -> Value {
    Value::Array(
        (positions.iter())
            .map(|p| json!({"name": p.name, "position": p.position}))
            .collect(),
    )
}

/// The top-level `run.json` of the scan as `ledger` has it.
fn report(scene: &Scene, options: &RunOptions, jobs: usize, ledger: &Ledger, wall: f64) -> Value {
    let scan = scan_of(scene);
    let dims = scene.mode.dims();
    let length = |cells: &[i64; 3]| -> Vec<f64> {
        (cells[..dims].iter())
            .map(|&c| scene.units.to_scene_length(c as f64))
            .collect()
    };
    let traces: Vec<Value> = (ledger.positions.iter().zip(&ledger.done))
        .map(|(trace, done)| {
            let mut trace = trace.clone();
            trace["status"] = json!(if done.is_some() {
                "complete"
            } else {
                "pending"
            });
            trace["wall_seconds"] = json!(done);
            trace
        })
        .collect();
    json!({
        "command": "run",
        "scene": scene.file.display().to_string(),
        "scene_sha256": scene.sha256,
        "status": ledger.status,
        "error": ledger.error,
        "units": scene.units.name(),
        "time_unit": scene.units.time_unit(),
        "scan": {
            "count": scan.count,
            "src_steps": length(&scan.src_step),
            "rx_steps": length(&scan.rx_step),
            "src_steps_cells": &scan.src_step[..dims],
            "rx_steps_cells": &scan.rx_step[..dims],
            "receivers": receivers(scene).map(|(n, _)| n).collect::<Vec<_>>(),
        },
        "steps_per_trace": scene.steps,
        "backend": options.backend.name(),
        "ranks_per_trace": options.topology.ranks(),
        "jobs": jobs,
        "traces_complete": ledger.done.iter().filter(|d| d.is_some()).count(),
        "traces": traces,
        "bscans": ledger.bscans,
        "outputs": ledger.outputs,
        "wall_seconds": wall,
    })
}

/// Writes the top-level `run.json`.
fn write_report(out: &Path, report: &Value) -> Result<(), AppError> {
    let path = out.join("run.json");
    let text = serde_json::to_string_pretty(report).map_err(|e| io_error(&path, e))?;
    yee_io::atomic::write(&path, text).map_err(|e| io_error(&path, e))
}

/// Runs every trace of `scene`'s scan, `jobs` at a time, into `options.out`, then writes the
/// merged B-scans and the top-level `run.json`. Progress goes to stderr unless
/// `options.quiet`. A stop (`options.stop`) ends the scan after the traces running then, with
/// `run.json` saying "interrupted" and which traces ended.
pub fn run_scan(scene: &Scene, options: &RunOptions, jobs: usize) -> Result<(), AppError> {
    let started = Instant::now();
    let scan = scan_of(scene);
    let out = &options.out;
    let _lock = yee_simulation::output_dir::prepare_output_dir(out, false, options.fresh, None)?;
    let jobs = jobs.clamp(1, scan.count);
    let positions = (0..scan.count)
        .map(|k| {
            let (sources, receivers) = scene.trace_positions(k);
            json!({
                "index": k,
                "folder": trace_folder(k),
                "sources": positions_json(&sources),
                "receivers": positions_json(&receivers),
            })
        })
        .collect();
    let ledger = Mutex::new(Ledger {
        status: "running",
        error: None,
        done: vec![None; scan.count],
        bscans: Vec::new(),
        outputs: Vec::new(),
        positions,
        written: Instant::now(),
    });
    let write = |ledger: &mut Ledger| {
        let wall = started.elapsed().as_secs_f64();
        ledger.written = Instant::now();
        write_report(out, &report(scene, options, jobs, ledger, wall))
    };
    write(&mut ledger.lock().expect("no panic holds it"))?;
    let results = run_traces(scene, options, jobs, &ledger, &write);
    let mut ledger = ledger.into_inner().expect("no panic holds it");
    let mut rows = Vec::with_capacity(scan.count);
    let mut first_error = None;
    for r in results {
        match r {
            Some(Ok(r)) => rows.push(r.receivers),
            Some(Err(e)) if first_error.is_none() => first_error = Some(e),
            _ => {}
        }
    }
    // A stopped trace's own hint (`--resume` into its folder) does not apply to a scan.
    let stopped_message = format!(
        "the scan stopped with {} of {} traces complete (run.json lists them); run it again to \
         run them all",
        rows.len(),
        scan.count
    );
    let unfinished = match first_error {
        Some(AppError::Interrupted(_)) => Some(AppError::Interrupted(stopped_message)),
        Some(e) => Some(e),
        None if rows.len() < scan.count => Some(AppError::Interrupted(stopped_message)),
        None => None,
    };
    if let Some(e) = unfinished {
        ledger.status = match e {
            AppError::Interrupted(_) => "interrupted",
            _ => "failed",
        };
        ledger.error = Some(e.to_string());
        write(&mut ledger)?;
        return Err(e);
    }
    let (bscans, outputs) = write_bscans(scene, out, &rows)?;
    ledger.bscans = bscans;
    ledger.outputs = outputs;
    ledger.status = "complete";
    write(&mut ledger)?;
    if !options.quiet {
        println!(
            "{} traces in {:.1} s: {}",
            scan.count,
            started.elapsed().as_secs_f64(),
            out.display()
        );
    }
    Ok(())
}

/// Each trace's result, `jobs` traces at a time on threads of their own; after each, the
/// ledger notes it and `write` rewrites `run.json` (at most once a second). No trace starts
/// after one has failed or a stop was asked for (`None` for those).
fn run_traces(
    scene: &Scene,
    options: &RunOptions,
    jobs: usize,
    ledger: &Mutex<Ledger>,
    write: &(dyn Fn(&mut Ledger) -> Result<(), AppError> + Sync),
) -> Vec<Option<Result<TraceResult, AppError>>> {
    let count = scan_of(scene).count;
    let next = AtomicUsize::new(0);
    let failed = AtomicBool::new(false);
    let results: Mutex<Vec<Option<Result<TraceResult, AppError>>>> =
        Mutex::new((0..count).map(|_| None).collect());
    let stopped = || {
        options
            .stop
            .as_ref()
            .is_some_and(|s| s.load(Ordering::SeqCst))
    };
    std::thread::scope(|s| {
        for _ in 0..jobs {
            s.spawn(|| {
                loop {
                    if failed.load(Ordering::SeqCst) || stopped() {
                        break;
                    }
                    let k = next.fetch_add(1, Ordering::SeqCst);
                    if k >= count {
                        break;
                    }
                    let result = run_trace(scene, options, k).map_err(|e| match e {
                        AppError::Interrupted(_) => e,
                        e => AppError::Run(format!("trace {k} ({}): {e}", trace_folder(k))),
                    });
                    let mut ledger = ledger.lock().expect("no panic holds it");
                    match &result {
                        Ok(r) => {
                            ledger.done[k] = Some(r.seconds);
                            if !options.quiet {
                                eprintln!("{}", progress_line(scene, k, &ledger.done, r.seconds));
                            }
                            // At most one rewrite a second: a long scan of short traces
                            // would spend its time rewriting its list. One that cannot be
                            // written fails the scan at its end.
                            if ledger.written.elapsed().as_secs_f64() >= 1.0 {
                                if let Err(e) = write(&mut ledger) {
                                    log::warn!("{e}");
                                }
                            }
                        }
                        Err(_) => failed.store(true, Ordering::SeqCst),
                    }
                    results.lock().expect("no panic holds it")[k] = Some(result);
                }
            });
        }
    });
    results.into_inner().expect("no panic holds it")
}

/// `trace 3/60 (12 done): sources[0] at [0.1, 0.2] m, rx at [0.1, 0.2] m, 0.4 s`.
fn progress_line(scene: &Scene, k: usize, done: &[Option<f64>], seconds: f64) -> String {
    let (sources, receivers) = scene.trace_positions(k);
    let unit = match scene.units {
        Units::Si { .. } => " m",
        Units::Lengths { .. } => " a",
        Units::Normalised => "",
    };
    let at: Vec<String> = (sources.iter().chain(&receivers))
        .map(|p| format!("{} at {:?}{unit}", p.name, p.position))
        .collect();
    format!(
        "trace {}/{} ({} done): {}, {seconds:.2} s",
        k + 1,
        done.len(),
        done.iter().filter(|d| d.is_some()).count(),
        at.join(", ")
    )
}

/// One receiver's records of every trace as one array, trace after trace.
fn merged(rows: &[Vec<ProbeSeries>], r: usize) -> Values {
    let mut out = match &rows[0][r].values {
        Values::F32(_) => Values::F32(Vec::new()),
        Values::F64(_) => Values::F64(Vec::new()),
        Values::C32(_) => Values::C32(Vec::new()),
        Values::C64(_) => Values::C64(Vec::new()),
    };
    for row in rows {
        match (&mut out, &row[r].values) {
            (Values::F32(a), Values::F32(b)) => a.extend(b),
            (Values::F64(a), Values::F64(b)) => a.extend(b),
            (Values::C32(a), Values::C32(b)) => a.extend(b),
            (Values::C64(a), Values::C64(b)) => a.extend(b),
            _ => unreachable!("every trace has the scene's element type"),
        }
    }
    out
}

/// Writes `values` as a `.npy` array of `shape`.
fn write_npy(path: &Path, shape: &[usize], values: &Values) -> Result<(), AppError> {
    use yee_io::npy::write_array;
    yee_simulation::files::write_file(path, |w| match values {
        Values::F32(v) => write_array(w, shape, v),
        Values::F64(v) => write_array(w, shape, v),
        Values::C32(v) => write_array(w, shape, v),
        Values::C64(v) => write_array(w, shape, v),
    })
}

/// The axis the scan moves along (the receivers' largest step, else the sources'), whether the
/// receivers move, and the unit positions are drawn in.
fn scan_axis(scene: &Scene) -> (usize, bool, LengthUnit) {
    let scan = scan_of(scene);
    let moving = scan.rx_step != [0; 3];
    let step = if moving { scan.rx_step } else { scan.src_step };
    let axis = (0..3).max_by_key(|&a| step[a].abs()).unwrap_or(0);
    let unit = match scene.units {
        Units::Si { cell_size } => LengthUnit::si(cell_size, scene.grid[axis]),
        Units::Lengths { resolution } => LengthUnit {
            name: "a",
            per_cell: 1.0 / resolution,
        },
        Units::Normalised => LengthUnit::CELLS,
    };
    (axis, moving, unit)
}

/// Writes each receiver's `bscan_<probe>_<component>.npy` and `.png`; returns their entries
/// for `run.json` and the files written.
fn write_bscans(
    scene: &Scene,
    out: &Path,
    rows: &[Vec<ProbeSeries>],
) -> Result<(Vec<Value>, Vec<String>), AppError> {
    let (axis, rx_moves, unit) = scan_axis(scene);
    let axis_name = ["x", "y", "z"][axis];
    let mut entries = Vec::new();
    let mut files = Vec::new();
    for (r, (name, component)) in receivers(scene).enumerate() {
        let samples = rows[0][r].values.len();
        let values = merged(rows, r);
        let npy = bscan_file(name, component, "npy");
        write_npy(&out.join(&npy), &[rows.len(), samples], &values)?;
        // Each trace's position: the receiver's, or the first source's when receivers stay.
        let positions: Vec<f64> = (0..rows.len())
            .map(|k| {
                let (sources, receivers) = scene.trace_positions(k);
                let p = match rx_moves {
                    true => &receivers[r].position,
                    false => &sources[0].position,
                };
                scene.units.length(p[axis]) * unit.per_cell
            })
            .collect();
        let times = &rows[0][r].times;
        let png = bscan_file(name, component, "png");
        let what = match rx_moves {
            true => format!("receiver {name}"),
            false => "sources[0]".into(),
        };
        plot_bscan(
            scene,
            &out.join(&png),
            (name, component),
            &values,
            rows.len(),
            times,
            {
                let label = format!("{axis_name} of {what} ({})", unit.name);
                (label, (positions[0], positions[positions.len() - 1]))
            },
        )?;
        entries.push(json!({
            "probe": name,
            "component": component.name(),
            "file": npy,
            "plot": png,
            "shape": [rows.len(), samples],
            "axes": ["trace", "sample"],
            "first_sample_time": times.first(),
            "time_step": scene.units.to_scene_time(scene.dt()),
            "positions": positions,
            "position_axis": axis_name,
            "position_unit": unit.name,
        }));
        files.push(npy);
        files.push(png);
    }
    Ok((entries, files))
}

/// Draws one receiver's B-scan into `path`.
fn plot_bscan(
    scene: &Scene,
    path: &Path,
    (name, component): (&str, yee_em::Component),
    values: &Values,
    traces: usize,
    times: &[f64],
    (x_label, positions): (String, (f64, f64)),
) -> Result<(), AppError> {
    let real = values.real_f64();
    let (first, last) = (times[0], times[times.len() - 1]);
    let (time_label, factor) = match scene.units {
        Units::Si { .. } => {
            let (prefix, factor) = yee_io::style::si_prefix(last);
            (format!("time ({prefix}s)"), factor)
        }
        units => (format!("time ({})", units.time_unit()), 1.0),
    };
    let title = format!("{}: B-scan at {name} ({})", scene.name, component.name());
    let plot = yee_io::bscan_plot::BscanPlot {
        title: &title,
        values: &real,
        traces,
        samples: times.len(),
        positions,
        x_label: &x_label,
        times: (first / factor, last / factor),
        time_label: &time_label,
        bar_label: component.name(),
    };
    yee_io::bscan_plot::write_bscan_plot(path, &plot).map_err(|e| io_error(path, e))
}
