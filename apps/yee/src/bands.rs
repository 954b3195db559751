//! `yee bands SCENE.toml`: a band structure in one command (docs/bands.md). The scene's
//! `[bands]` block names the k-points (a path's corners with points between); the scene runs
//! once per k-point with that Bloch wavevector (`[boundaries] k`, [`yee_em::bloch`]), several
//! at a time, and harmonic inversion ([`yee_em::harminv`]) of every probe's record after
//! `after` finds the modes in `band`. Modes found at several probes are merged (one per
//! frequency). Written: `bands.csv` (one row per mode and k-point), `bands.png` (frequency in
//! c/a against the distance along the path, the corners labelled, the light line of the
//! background) and `run.json`; each k-point's own run writes its outputs into `k_NNN/`.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use num_complex::Complex;
use yee_em::harminv::{HarminvOptions, Mode, harminv};
use yee_scene::Scene;
use yee_scene::bands::Bands;
use yee_simulation::Simulation;
use yee_simulation::options::RunOptions;
use yee_simulation::values::Values;

use crate::error::{AppError, io_error};

/// `yee bands`.
#[derive(Debug, clap::Args)]
pub struct BandsArgs {
    /// The scene file (TOML) with a `[bands]` block.
    pub scene: PathBuf,
    /// Output directory (default: out/<scene name>/).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// k-points run at the same time (default: the machine's cores).
    #[arg(long)]
    pub jobs: Option<usize>,
    /// No progress lines.
    #[arg(long)]
    pub quiet: bool,
}

/// One mode at one k-point.
#[derive(Clone, Debug, PartialEq)]
pub struct BandMode {
    /// The k-point's index on the path.
    pub k_index: usize,
    /// The k-point in cycles per lattice constant.
    pub k: [f64; 3],
    /// Its distance along the path from the first k-point (cycles per lattice constant).
    pub distance: f64,
    /// The mode (frequency in scene units), the one of smallest error among the probes that
    /// found it.
    pub mode: Mode,
    /// How many probes found it.
    pub probes: usize,
}

/// Distances along the path of each k-point: the running sum of |Δk|.
pub fn path_distances(k_points: &[[f64; 3]]) -> Vec<f64> {
    let mut d = 0.0;
    let mut out = Vec::with_capacity(k_points.len());
    for (i, k) in k_points.iter().enumerate() {
        if i > 0 {
            let p = k_points[i - 1];
            d += (0..3).map(|a| (k[a] - p[a]).powi(2)).sum::<f64>().sqrt();
        }
        out.push(d);
    }
    out
}

/// Merges the modes of several probes of one k-point: those in `band` with a positive
/// frequency, sorted; modes whose frequencies agree within 10⁻⁴ relative are one mode (the
/// one of smallest error kept, counted once per probe).
pub fn merge_modes(per_probe: &[Vec<Mode>], band: [f64; 2]) -> Vec<(Mode, usize)> {
    let mut all: Vec<Mode> = per_probe
        .iter()
        .flatten()
        .filter(|m| m.frequency > 0.0 && m.frequency >= band[0] && m.frequency <= band[1])
        .copied()
        .collect();
    all.sort_by(|a, b| a.frequency.total_cmp(&b.frequency));
    let mut out: Vec<(Mode, usize)> = Vec::new();
    for m in all {
        match out.last_mut() {
            Some((kept, n)) if (m.frequency - kept.frequency).abs() <= 1e-4 * m.frequency => {
                *n += 1;
                if m.error < kept.error {
                    *kept = m;
                }
            }
            _ => out.push((m, 1)),
        }
    }
    out
}

/// A probe's record as complex samples from scene time `after` on, with their spacing.
fn samples_after(times: &[f64], values: &Values, after: f64) -> (Vec<Complex<f64>>, f64) {
    let all: Vec<Complex<f64>> = match values {
        Values::C64(v) => v.clone(),
        Values::C32(v) => v
            .iter()
            .map(|z| Complex::new(f64::from(z.re), f64::from(z.im)))
            .collect(),
        other => other
            .real_f64()
            .into_iter()
            .map(|x| Complex::new(x, 0.0))
            .collect(),
    };
    let first = times
        .iter()
        .position(|&t| t >= after)
        .unwrap_or(times.len());
    let dt = match times.len() {
        n if n >= 2 => (times[n - 1] - times[0]) / (n - 1) as f64,
        _ => f64::NAN,
    };
    (all[first..].to_vec(), dt)
}

/// Runs `scene` at k-point `index` of `bands` into `out/k_NNN/` and returns each probe's
/// modes.
fn run_k_point(
    scene: &Scene,
    bands: &Bands,
    index: usize,
    out: &Path,
) -> Result<Vec<Vec<Mode>>, AppError> {
    let mut at_k = scene.clone();
    at_k.bloch = bands.k_cells[index];
    let options = RunOptions::new(out.join(format!("k_{index:03}")));
    let mut simulation = Simulation::new(at_k, options)?;
    simulation.run()?;
    let band = bands.band;
    let mut found = Vec::new();
    for probe in simulation.probes() {
        let (signal, dt) = samples_after(&probe.times, &probe.values, bands.after);
        let modes = harminv(&signal, dt, -band[1], band[1], &HarminvOptions::default())
            .map_err(|e| AppError::Usage(format!("k-point {index}, probe {}: {e}", probe.name)))?;
        found.push(modes);
    }
    Ok(found)
}

/// Each probe's modes at one k-point, or why the k-point failed.
type ProbeModes = Result<Vec<Vec<Mode>>, AppError>;

/// Runs every k-point of the scene's `[bands]`, `jobs` at a time, into `out`; the merged modes
/// of each k-point in path order.
pub fn compute(
    scene: &Scene,
    out: &Path,
    jobs: usize,
    quiet: bool,
) -> Result<Vec<BandMode>, AppError> {
    let bands = scene.bands.as_ref().ok_or_else(|| {
        AppError::Usage(format!(
            "{}: the scene has no [bands] block (docs/bands.md)",
            scene.file.display()
        ))
    })?;
    let count = bands.k_points.len();
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<ProbeModes>>> = Mutex::new((0..count).map(|_| None).collect());
    std::thread::scope(|s| {
        for _ in 0..jobs.clamp(1, count) {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= count {
                        break;
                    }
                    let result = run_k_point(scene, bands, i, out);
                    if !quiet {
                        let n = result
                            .as_ref()
                            .map_or(0, |r| merge_modes(r, bands.band).len());
                        eprintln!(
                            "k-point {}/{count} {:?}: {n} modes",
                            i + 1,
                            bands.k_points[i]
                        );
                    }
                    results.lock().expect("no panic holds it")[i] = Some(result);
                }
            });
        }
    });
    let distances = path_distances(&bands.k_points);
    let mut modes = Vec::new();
    let results = results.into_inner().expect("no panic holds it");
    for (i, result) in results.into_iter().enumerate() {
        let per_probe = result.expect("every k-point ran")?;
        for (mode, probes) in merge_modes(&per_probe, bands.band) {
            modes.push(BandMode {
                k_index: i,
                k: bands.k_points[i],
                distance: distances[i],
                mode,
                probes,
            });
        }
    }
    Ok(modes)
}

/// The frequency of a mode in c/a (`f a / c`, the normalised frequency of photonic crystals).
pub fn frequency_ac(scene: &Scene, bands: &Bands, f: f64) -> f64 {
    scene.units.frequency(f) * bands.lattice_cells
}

/// Writes `bands.csv`: `k_index,kx,ky,kz,k_distance,frequency,frequency_ac,decay,q,amplitude,
/// error,probes` (k in cycles per lattice constant, frequency and decay in scene units).
pub fn write_bands_csv(
    path: &Path,
    scene: &Scene,
    bands: &Bands,
    modes: &[BandMode],
) -> Result<(), AppError> {
    let mut text = String::from(
        "k_index,kx,ky,kz,k_distance,frequency,frequency_ac,decay,q,amplitude,error,probes\n",
    );
    for b in modes {
        let m = &b.mode;
        text.push_str(&format!(
            "{},{},{},{},{},{},{},{},{},{},{},{}\n",
            b.k_index,
            b.k[0],
            b.k[1],
            b.k[2],
            b.distance,
            m.frequency,
            frequency_ac(scene, bands, m.frequency),
            m.decay,
            m.q,
            m.amplitude,
            m.error,
            b.probes
        ));
    }
    yee_io::atomic::write(path, text).map_err(|e| io_error(path, e))
}

/// Writes `bands.png`: the band diagram with the corners labelled and the light line
/// `f = |k| c / n` of the background.
pub fn write_bands_png(
    path: &Path,
    scene: &Scene,
    bands: &Bands,
    modes: &[BandMode],
) -> Result<(), AppError> {
    let distances = path_distances(&bands.k_points);
    let points: Vec<(f64, f64)> = modes
        .iter()
        .map(|b| (b.distance, frequency_ac(scene, bands, b.mode.frequency)))
        .collect();
    let corners: Vec<(f64, String)> = bands
        .corners
        .iter()
        .map(|(i, label)| (distances[*i], label.clone().unwrap_or_default()))
        .collect();
    let material = scene.background.1;
    let index = (material.eps * material.mu).sqrt();
    let light: Vec<(f64, f64)> = bands
        .k_points
        .iter()
        .zip(&distances)
        .map(|(k, &d)| (d, k.iter().map(|v| v * v).sum::<f64>().sqrt() / index))
        .collect();
    let top = frequency_ac(scene, bands, bands.band[1]);
    let bottom = frequency_ac(scene, bands, bands.band[0]);
    let plot = yee_io::band_plot::BandPlot {
        title: &format!("{}: bands", scene.name),
        y_label: "frequency (c/a)",
        modes: &points,
        corners: &corners,
        light_line: &light,
        y_range: (bottom, top),
    };
    yee_io::band_plot::write_band_plot(path, &plot).map_err(|e| io_error(path, e))
}

/// `yee bands`: runs, then writes `bands.csv`, `bands.png` and `run.json` into the output
/// folder, which it returns.
pub fn command(args: &BandsArgs) -> Result<PathBuf, AppError> {
    let started = std::time::Instant::now();
    let scene = yee_scene::load(&args.scene)?;
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from("out").join(&scene.name));
    std::fs::create_dir_all(&out).map_err(|e| io_error(&out, e))?;
    let jobs = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let modes = compute(&scene, &out, jobs, args.quiet)?;
    let bands = scene.bands.as_ref().expect("compute checked it");
    write_bands_csv(&out.join("bands.csv"), &scene, bands, &modes)?;
    write_bands_png(&out.join("bands.png"), &scene, bands, &modes)?;
    let report = serde_json::json!({
        "command": "bands",
        "scene": scene.file.display().to_string(),
        "scene_sha256": scene.sha256,
        "k_points": bands.k_points,
        "corners": bands.corners.iter().map(|(i, l)| serde_json::json!({"k_index": i, "label": l})).collect::<Vec<_>>(),
        "band": bands.band,
        "after": bands.after,
        "lattice_constant": bands.lattice_constant,
        "steps_per_k_point": scene.steps,
        "jobs": jobs,
        "modes": modes.len(),
        "files": ["bands.csv", "bands.png"],
        "wall_seconds": started.elapsed().as_secs_f64(),
    });
    let path = out.join("run.json");
    let text = serde_json::to_string_pretty(&report).map_err(|e| io_error(&path, e))?;
    yee_io::atomic::write(&path, text).map_err(|e| io_error(&path, e))?;
    if !args.quiet {
        println!(
            "{} modes at {} k-points: {}",
            modes.len(),
            bands.k_points.len(),
            out.join("bands.csv").display()
        );
    }
    Ok(out)
}
