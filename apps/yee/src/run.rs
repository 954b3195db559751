//! `yee run`: steps a scene and writes its outputs, with progress on long runs.

use std::fs::{self, File};
use std::io::{BufWriter, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use num_complex::Complex;
use std::sync::Mutex;

use yee_comm_shm::Slowdown;
use yee_comm_sim::MachineModel;
use yee_core::{Axis, Box3, Real, Scalar, Topology};
use yee_em::{Component, YeeBackend};
use yee_io::{csv, npy, vti};
use yee_runtime::balance::{
    BalanceMode, BalanceOptions, LayoutKind, box_layout, box_share_history, dynamic_boxes,
    layout_name, make_plan, share_history,
};
use yee_runtime::parallel::{CommKind, Continuity, process_rank, run_decomposed};
use yee_runtime::piece::Assembled;
use yee_runtime::profile::Profile;
pub use yee_scalar::decomposed::mean_step_time;
use yee_scalar::decomposed::{first_divergence, probe_series};
use yee_scalar::tiled::Rebalancing;
use yee_scene::spec::ValueType;
use yee_scene::{GeometryOutput, Scene, Units};

use crate::error::{AppError, io_error};
use crate::failures::Failures;
use crate::hdf5_output::Hdf5Output;
use crate::report::{
    BalanceReport, CheckpointReport, ProbeReport, RankReport, ResumeReport, RunReport,
};

/// Backends this build has.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Backend {
    /// The reference scalar CPU backend.
    Scalar,
    /// Vectorised row kernels over rayon's thread pool (bit-identical to scalar).
    #[cfg(feature = "rayon")]
    Rayon,
    /// The CUDA device chunk (feature `cuda`; without it the run says how to rebuild).
    Cuda,
}

impl Default for Backend {
    /// The fastest backend built in: rayon when the feature is on (its fields are the scalar
    /// oracle's, bit for bit), else scalar.
    fn default() -> Self {
        #[cfg(feature = "rayon")]
        return Backend::Rayon;
        #[cfg(not(feature = "rayon"))]
        return Backend::Scalar;
    }
}

impl Backend {
    /// The name used on the command line and in run.json.
    pub fn name(self) -> &'static str {
        match self {
            Backend::Scalar => "scalar",
            #[cfg(feature = "rayon")]
            Backend::Rayon => "rayon",
            Backend::Cuda => "cuda",
        }
    }
}

/// Options of one run besides the scene.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// Output directory.
    pub out: PathBuf,
    /// No progress and no summary.
    pub quiet: bool,
    /// The backend.
    pub backend: Backend,
    /// Each rank's backend (`--rank-backends`, one per rank); empty: every rank on `backend`.
    pub rank_backends: Vec<Backend>,
    /// The virtual topology (its product is the rank count).
    pub topology: Topology,
    /// The communicator.
    pub comm: CommKind,
    /// The machine model of a simulated run (default: [`MachineModel::default_for`]).
    pub model: Option<MachineModel>,
    /// Balancing.
    pub balance: BalanceOptions,
    /// Overlap the halo exchange with the interior update (else exchange after the update).
    pub overlap: bool,
    /// Per-rank artificial slowness (shm and MPI), by rank.
    pub slowdown: Vec<Slowdown>,
    /// Tile sets partitioned by this method instead of boxes.
    pub partition: Option<yee_core::graph::Method>,
    /// Checkpoints: when, and where.
    pub checkpoint: CheckpointOptions,
    /// The checkpoint this run resumes from.
    pub resume: Option<yee_runtime::checkpoint::Loaded>,
    /// Set by SIGINT, SIGTERM or SIGUSR1: stop at an agreed step, write a checkpoint and a run.json
    /// saying "interrupted".
    pub stop: Option<yee_runtime::checkpoint::StopFlag>,
    /// Make the slice series into movies at the end ([`crate::movie`]).
    pub movie: bool,
    /// Start over in an output folder that holds an interrupted run's checkpoint, deleting
    /// it (`--fresh`); without it such a run is refused ([`prepare_output_dir`]).
    pub fresh: bool,
}

/// When a run writes checkpoints, and where.
#[derive(Clone, Debug, Default)]
pub struct CheckpointOptions {
    /// Every this many steps.
    pub every_steps: Option<u64>,
    /// Every this many seconds of wall time.
    pub every_seconds: Option<f64>,
    /// The folder (default: `checkpoint` in the output folder).
    pub dir: Option<PathBuf>,
}

impl RunOptions {
    /// The checkpoint folder.
    pub fn checkpoint_dir(&self) -> PathBuf {
        self.checkpoint
            .dir
            .clone()
            .unwrap_or_else(|| self.out.join("checkpoint"))
    }
}

/// Creates the output directory, makes sure files can be written in it (before any step is
/// taken), and clears what an earlier run of yee wrote there: the files its `run.json` lists
/// that lie in the folder itself ([`inside`]; nothing else in the folder is touched, and
/// nothing outside it), its checkpoints in `checkpoint/` (unless that is a link elsewhere),
/// then the `run.json` itself (which would make the directory look finished). A run that
/// `resumes` keeps the files (it goes on writing beside them) and the checkpoints, and only
/// takes the `run.json` away.
pub fn prepare_output_dir(out: &Path, resumes: bool, fresh: bool) -> Result<(), AppError> {
    if out.exists() && !out.is_dir() {
        return Err(io_error(
            out,
            "it is not a directory (--out names the folder the outputs go to)",
        ));
    }
    fs::create_dir_all(out)
        .map_err(|e| io_error(out, format!("cannot create the output directory: {e}")))?;
    check_writable(out)?;
    let report_path = out.join("run.json");
    if resumes {
        if report_path.exists() {
            fs::remove_file(&report_path).map_err(|e| io_error(&report_path, e))?;
        }
        return Ok(());
    }
    let checkpoints = out.join("checkpoint");
    if let (false, Some(step)) = (fresh, interrupted_checkpoint(&checkpoints, &report_path)) {
        return Err(AppError::Usage(format!(
            "{} holds the checkpoint of an interrupted run ({}): resume it with \
             `yee run SCENE --resume {}`, or start over with --fresh (which deletes it)",
            out.display(),
            step.display(),
            out.display()
        )));
    }
    let linked = fs::symlink_metadata(&checkpoints).is_ok_and(|m| m.file_type().is_symlink());
    let entries = fs::read_dir(&checkpoints).ok().filter(|_| !linked);
    for path in entries
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok().map(|e| e.path()))
    {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let linked = fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_symlink());
        if name.starts_with("step-") && path.is_dir() && !linked {
            fs::remove_dir_all(&path).map_err(|e| io_error(&path, e))?;
        }
    }
    if report_path.exists() {
        let earlier: Vec<String> = fs::read_to_string(&report_path)
            .ok()
            .and_then(|text| serde_json::from_str::<serde_json::Value>(&text).ok())
            .and_then(|doc| {
                doc["outputs"].as_array().map(|files| {
                    files
                        .iter()
                        .filter_map(|f| f.as_str().map(str::to_string))
                        .collect()
                })
            })
            .unwrap_or_default();
        for path in earlier.iter().filter_map(|file| inside(out, file)) {
            // A link is removed, never what it points to.
            if fs::symlink_metadata(&path).is_ok_and(|m| !m.is_dir()) {
                fs::remove_file(&path).map_err(|e| io_error(&path, e))?;
            }
        }
        fs::remove_file(&report_path).map_err(|e| io_error(&report_path, e))?;
    }
    Ok(())
}

/// The newest whole checkpoint in `checkpoints` when the run that wrote it did not end: its
/// `run.json` says "interrupted", or there is none (the process was killed). `None` when there
/// is no checkpoint, or its run ended (complete or failed: its checkpoints are stale).
fn interrupted_checkpoint(checkpoints: &Path, report: &Path) -> Option<PathBuf> {
    let newest = fs::read_dir(checkpoints)
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            name.starts_with("step-") && !name.ends_with(".part") && p.is_dir()
        })
        .max()?;
    let status = fs::read_to_string(report)
        .ok()
        .and_then(|text| serde_json::from_str::<serde_json::Value>(&text).ok())
        .and_then(|doc| doc["status"].as_str().map(str::to_string));
    match status.as_deref() {
        None | Some("interrupted") => Some(newest),
        Some(_) => None,
    }
}

/// `out/file` where `file` (as an earlier run.json lists it) names an entry of the folder
/// `out` itself: one plain file name — no separator, no `..`, not absolute — whose parent is
/// `out` once links are resolved. `None` for anything else: the clean-up leaves it alone.
fn inside(out: &Path, file: &str) -> Option<PathBuf> {
    let mut parts = Path::new(file).components();
    let (Some(std::path::Component::Normal(name)), None) = (parts.next(), parts.next()) else {
        return None;
    };
    if file.contains(['/', '\\']) {
        return None;
    }
    let path = out.join(name);
    let parent = path.parent()?.canonicalize().ok()?;
    (parent == out.canonicalize().ok()?).then_some(path)
}

/// Fails, naming `out`, unless a file can be made in it: a read-only or full output folder is
/// found before the run, not after it.
fn check_writable(out: &Path) -> Result<(), AppError> {
    let probe = out.join(format!(".yee-write-check-{}", std::process::id()));
    let made = File::create(&probe).and_then(|mut f| f.write_all(b"yee"));
    let _ = fs::remove_file(&probe);
    made.map_err(|e| {
        io_error(
            out,
            format!("cannot write files in the output directory: {e}"),
        )
    })
}

/// Runs `scene` with the element type it asks for on the chosen backend. Returns the report on
/// the process that writes the outputs, `None` on the other processes of an MPI job.
pub fn run(scene: &Scene, options: &RunOptions) -> Result<Option<RunReport>, AppError> {
    crate::flux_output::check_minus_files(scene)?;
    crate::hdf5_output::check_built(scene)?;
    if !options.rank_backends.is_empty() {
        return run_per_rank(scene, options);
    }
    match options.backend {
        Backend::Scalar => run_on(scene, options, yee_scalar::chunk::ScalarCurl),
        #[cfg(feature = "rayon")]
        Backend::Rayon => run_on(scene, options, rayon_kernel(options)),
        Backend::Cuda => run_cuda(scene, options),
    }
}

/// The rayon executor of a run: ranks that are threads of this process each take their share
/// of the cores.
#[cfg(feature = "rayon")]
fn rayon_kernel(options: &RunOptions) -> yee_rayon::RayonCurl {
    let kernel = yee_rayon::RayonCurl::global();
    match options.comm {
        CommKind::Shm | CommKind::Sim => kernel.split_among(options.topology.ranks()),
        CommKind::Mpi => kernel,
    }
}

/// Each rank's backend, in rank order: `--rank-backends`, else `--backend` for every rank.
pub fn rank_backends(options: &RunOptions) -> Vec<Backend> {
    match options.rank_backends.is_empty() {
        true => vec![options.backend; options.topology.ranks()],
        false => options.rank_backends.clone(),
    }
}

/// `--rank-backends`: a heterogeneous run, rank `r` on `rank_backends[r]` ([`yee_rayon::PerRank`]:
/// scalar and rayon ranks share one chunk type and its slab wire format, so cells migrate
/// between them). One backend for every rank is the plain run on it.
fn run_per_rank(scene: &Scene, options: &RunOptions) -> Result<Option<RunReport>, AppError> {
    let list = &options.rank_backends;
    let ranks = options.topology.ranks();
    if list.len() != ranks {
        return Err(AppError::Usage(format!(
            "--rank-backends: {} entries for {ranks} rank(s); give one backend per rank",
            list.len()
        )));
    }
    if list.iter().all(|&b| b == list[0]) {
        let same = RunOptions {
            backend: list[0],
            rank_backends: Vec::new(),
            ..options.clone()
        };
        return run(scene, &same);
    }
    if let Some(rank) = list.iter().position(|&b| b == Backend::Cuda) {
        return Err(AppError::Usage(format!(
            "--rank-backends: rank {rank} is cuda beside host ranks, which is not built: the              device chunk is a chunk type of its own and cannot migrate cells (no slab              packing on the device yet); run every rank on cuda (--backend cuda) or mix              scalar and rayon ranks"
        )));
    }
    #[cfg(feature = "rayon")]
    {
        use yee_rayon::HostKernel;
        let kernels = list
            .iter()
            .map(|b| match b {
                Backend::Rayon => HostKernel::Rayon(rayon_kernel(options)),
                _ => HostKernel::Scalar(yee_scalar::chunk::ScalarCurl),
            })
            .collect();
        let backend = yee_rayon::PerRank::new(kernels)
            .ok_or_else(|| AppError::Usage("--rank-backends: the list is empty".into()))?;
        run_on(scene, options, backend)
    }
    #[cfg(not(feature = "rayon"))]
    Err(AppError::Usage(
        "--rank-backends: this build has only the scalar host backend (rebuild with the \
         `rayon` feature to mix backends)"
            .into(),
    ))
}

/// `--backend cuda`: each rank on a device (round-robin), f32 and f64 scenes. Without the
/// driver the run stops with "no CUDA driver found (libcuda)" before anything is written.
#[cfg(feature = "cuda")]
fn run_cuda(scene: &Scene, options: &RunOptions) -> Result<Option<RunReport>, AppError> {
    use yee_cuda::device::{CudaBackend, NO_DRIVER, driver_present};
    if !driver_present() {
        return Err(AppError::Run(NO_DRIVER.into()));
    }
    let backend = CudaBackend::default();
    match scene.value_type {
        ValueType::F32 => run_typed::<f32, _>(scene, options, backend),
        ValueType::F64 => run_typed::<f64, _>(scene, options, backend),
        other => Err(AppError::Usage(format!(
            "--backend cuda runs f32 and f64 scenes; this one has {} values",
            other.name()
        ))),
    }
}

/// `--backend cuda` in a build without the feature: how to rebuild.
#[cfg(not(feature = "cuda"))]
fn run_cuda(_scene: &Scene, _options: &RunOptions) -> Result<Option<RunReport>, AppError> {
    Err(AppError::Usage(crate::error::CUDA_MISSING.into()))
}

fn run_on<K>(scene: &Scene, options: &RunOptions, kernel: K) -> Result<Option<RunReport>, AppError>
where
    K: YeeBackend<f32> + YeeBackend<f64> + YeeBackend<Complex<f32>> + YeeBackend<Complex<f64>>,
{
    match scene.value_type {
        ValueType::F32 => run_typed::<f32, K>(scene, options, kernel),
        ValueType::F64 => run_typed::<f64, K>(scene, options, kernel),
        ValueType::C32 => run_typed::<Complex<f32>, K>(scene, options, kernel),
        ValueType::C64 => run_typed::<Complex<f64>, K>(scene, options, kernel),
    }
}

fn run_typed<T: Scalar, K: YeeBackend<T>>(
    scene: &Scene,
    options: &RunOptions,
    kernel: K,
) -> Result<Option<RunReport>, AppError> {
    let started = Instant::now();
    let out = &options.out;
    let writer = process_rank(options.comm) == 0;
    if writer {
        prepare_output_dir(out, options.resume.is_some(), options.fresh)?;
    }
    let report_path = out.join("run.json");
    let setup = scene.setup();
    setup.validate().map_err(|e| AppError::Run(e.to_string()))?;
    let steps = scene.steps;
    let slice_due = |s: &yee_scene::Slice, step: u64| step % s.every == 0 || step == steps;
    let snapshot_due = |step: u64| {
        scene
            .snapshots
            .as_ref()
            .is_some_and(|s| (s.every > 0 && step % s.every == 0) || step == steps)
    };
    let wants_output =
        |step: u64| scene.slices.iter().any(|s| slice_due(s, step)) || snapshot_due(step);
    // A resumed run goes on from the files the checkpoint's run had written (those in this
    // output folder).
    let mut earlier: Vec<String> = options
        .resume
        .as_ref()
        .and_then(|l| l.index.app["outputs"].as_array().cloned())
        .unwrap_or_default()
        .iter()
        .filter_map(|f| f.as_str().map(str::to_string))
        .filter(|f| out.join(f).is_file())
        .collect();
    // The geometry the snapshots carry: once as .npy (here, unless the run resumes), in
    // every .vti.
    let geometry = match (&scene.snapshots, writer) {
        (Some(s), true) => write_geometry(scene, s, out, options.resume.is_none())?,
        _ => Vec::new(),
    };
    let npy = scene.snapshots.as_ref().is_some_and(|s| s.npy);
    for (q, _) in geometry.iter().filter(|_| npy && options.resume.is_none()) {
        earlier.push(format!("{}.npy", q.name()));
    }
    // `fields.h5` is listed once, whatever number of snapshots it holds.
    let hdf5 = if writer {
        Hdf5Output::start(scene, out, options.resume.as_ref().map(|l| l.index.step))?
    } else {
        None
    };
    if hdf5.is_some() && !earlier.iter().any(|f| f == crate::hdf5_output::FILE) {
        earlier.push(crate::hdf5_output::FILE.into());
    }
    // Each slice's material outlines and mask, drawn over every frame: the geometry does not
    // change, so they are worked out once.
    let slice_outlines: Vec<Option<Outlines>> = match writer {
        true => (scene.slices.iter())
            .map(|s| {
                let (_, cells) =
                    crate::plane_plot::plane_cells(scene, s.axis, slice_index(scene, s));
                s.outlines
                    .then(|| crate::plane_plot::outlines(scene, &cells))
                    .flatten()
            })
            .collect(),
        false => Vec::new(),
    };
    let written: Mutex<Vec<String>> = Mutex::new(earlier);
    // An output that cannot be written is kept here, and the run goes on (`Failures`).
    let failure: Mutex<Failures> = Mutex::new(Failures::default());
    let writing = Mutex::new(Duration::ZERO);
    let on_output = |step: u64, fields: &Assembled<T>| {
        let t = Instant::now();
        let mut files = Vec::new();
        let mut failed = Failures::default();
        for (slice, outlines) in scene.slices.iter().zip(&slice_outlines) {
            if slice_due(slice, step) {
                let file = write_slice(fields, scene, slice, outlines, step, out);
                files.extend(failed.keep(file));
            }
        }
        if let Some(s) = scene.snapshots.as_ref().filter(|_| snapshot_due(step)) {
            let snapshot = write_snapshot(fields, scene, s, &geometry, step, out, hdf5.as_ref());
            files.extend(failed.keep(snapshot).into_iter().flatten());
        }
        written
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .extend(files);
        failure
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .extend(failed);
        *writing.lock().unwrap_or_else(|p| p.into_inner()) += t.elapsed();
    };
    let progress = Progress::new(scene, options.quiet || !writer);
    let mut plan = make_plan(
        &setup,
        &scene.costs,
        scene.value_type.bytes(),
        options.topology,
        &options.balance,
    )?;
    plan.overlap = options.overlap;
    let checkpoint_config = yee_runtime::checkpoint::CheckpointConfig {
        dir: options.checkpoint_dir(),
        every_steps: options.checkpoint.every_steps,
        every_seconds: options.checkpoint.every_seconds,
        scene_sha256: scene.sha256.clone(),
        value_type: scene.value_type.name().into(),
        steps,
    };
    let app = || {
        let files = written.lock().unwrap_or_else(|p| p.into_inner()).clone();
        serde_json::json!({ "outputs": files, "scene_file": scene.file.display().to_string() })
    };
    let continuity = Continuity {
        resume: options.resume.as_ref(),
        checkpoints: Some(&checkpoint_config),
        stop: options.stop.as_ref(),
        app: Some(&app),
        // Snapshots and slices are gathered while stepping; nothing reads the final fields.
        drop_fields: true,
    };
    let mut partition_report = None;
    // How a tiled run rebalances, if it does.
    let mut rebalancing = None;
    // The boxes of a jagged or k-d layout (a tensor layout's are the plan's borders).
    let layout_boxes = (options.balance.layout != LayoutKind::Tensor)
        .then(|| box_layout(&setup, &scene.costs, options.topology, &options.balance))
        .transpose()?;
    // Tile sets (--partition) or the boxes of a jagged or k-d layout run through the tile
    // driver; a tensor layout through the box driver.
    let owned: Option<Box<dyn yee_core::tile_driver::Ownership + Sync>> =
        match (options.partition, &layout_boxes) {
            (Some(method), _) => {
                let ranks = options.topology.ranks();
                let weights = match options.balance.speeds.clone() {
                    None => vec![1.0; ranks],
                    Some(s) => crate::partition::check_weights("--speeds", s, ranks)?,
                };
                let tiles = yee_runtime::tiled::plan_tiles(
                    &setup,
                    &scene.name,
                    scene.tile,
                    &weights,
                    method,
                )?;
                partition_report = Some(crate::report::PartitionSummary {
                    method: method.name().into(),
                    tile: scene.tile,
                    edge_cut: tiles.edge_cut,
                    imbalance: tiles.imbalance,
                });
                if options.balance.mode == BalanceMode::Dynamic {
                    rebalancing = Some(Rebalancing::Tiles(yee_runtime::tiled::dynamic_tiles(
                        &setup,
                        &scene.costs,
                        &tiles,
                        options.balance.every,
                        options.balance.epsilon,
                    )));
                }
                Some(Box::new(tiles.map))
            }
            (None, Some(boxes)) => {
                rebalancing = dynamic_boxes(&setup, options.topology, &options.balance, boxes)
                    .map(Rebalancing::Boxes);
                let map = yee_core::box_layout::BoxLayout {
                    grid: setup.grid,
                    boxes: boxes.clone(),
                };
                yee_scalar::tiled::check_tiled(&setup, &map).map_err(|e| {
                    AppError::Usage(format!(
                        "--layout {}: {e}",
                        layout_name(options.balance.layout)
                    ))
                })?;
                Some(Box::new(map))
            }
            (None, None) => None,
        };
    let results = match &owned {
        None => run_decomposed::<T, K>(
            &setup,
            &plan,
            scene.costs,
            kernel,
            options.comm,
            options.model.clone(),
            &options.slowdown,
            steps,
            &continuity,
            &wants_output,
            &on_output,
            &|step| progress.update(step),
        ),
        Some(map) => yee_runtime::tiled::run_tiled::<T, K>(
            &setup,
            map.as_ref(),
            rebalancing.as_ref(),
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
            &|step| progress.update(step),
        ),
    }
    .map_err(|e| AppError::Run(format!("{}: {e}", scene.file.display())))?;
    progress.finish();
    let Some(results) = results else {
        return Ok(None);
    };
    let wall_seconds = started.elapsed().as_secs_f64();
    let (first_step, last_step) = (results[0].first_step, results[0].last_step);
    let interrupted = results[0].interrupted;
    // A diverged run still writes its probes (up to the step it stopped at) and a run.json
    // that says so; the spectra of non-finite fields are not written.
    let diverged = first_divergence(&results).map(|e| format!("{}: {e}", scene.file.display()));
    // An output that could not be written (the rest of the run went on) fails the run, and
    // run.json lists the files that were written whole: from here on every write failure is
    // kept the same way, and the other outputs and run.json are still written.
    let mut failed = failure.into_inner().unwrap_or_else(|p| p.into_inner());
    let mut outputs = written.into_inner().unwrap_or_else(|p| p.into_inner());
    let mut probes = Vec::new();
    for (i, (probe, name)) in scene.probes.iter().zip(&scene.probe_names).enumerate() {
        let file = format!("probe_{name}.csv");
        let path = out.join(&file);
        let time_of = |step: u64| {
            // E is sampled at step·Δt, H half a step earlier.
            let offset = if probe.component.is_electric() {
                0.0
            } else {
                0.5
            };
            scene
                .units
                .to_scene_time((step as f64 - offset) * scene.dt())
        };
        let series = probe_series(&results, i).expect("every probe lies in some rank's box");
        let csv = write_file(&path, |w| csv::write_probe(w, &series, time_of));
        if failed.keep(csv).is_some() {
            outputs.push(file.clone());
        }
        if let Some(h) = &hdf5 {
            failed.keep(h.write_probe(scene, name, probe.component, &series));
        }
        let plot_file = format!("probe_{name}.png");
        let plot = write_probe_plot(
            scene,
            name,
            probe.component,
            &series,
            time_of,
            &out.join(&plot_file),
        );
        if failed.keep(plot).is_some() {
            outputs.push(plot_file);
        }
        probes.push(ProbeReport {
            name: name.clone(),
            component: probe.component.name().into(),
            cell: probe.cell,
            file,
        });
    }
    if let Some(file) = failed
        .keep(write_collection(scene, &outputs, out))
        .flatten()
    {
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
    let (fluxes, dfts) = if diverged.is_none() && !interrupted {
        let (fluxes, flux_files) =
            crate::flux_output::write_fluxes(scene, &results, steps, out, &mut failed);
        outputs.extend(flux_files);
        if let Some(h) = &hdf5 {
            failed.keep(h.write_fluxes(&fluxes));
        }
        let (dfts, dft_files) = crate::dft_output::write_dfts(scene, &results, out, &mut failed);
        outputs.extend(dft_files);
        for f in &fluxes {
            failed.keep(crate::flux_output::check_finite(f));
        }
        (fluxes, dfts)
    } else {
        (Vec::new(), Vec::new())
    };
    if options.balance.mode != BalanceMode::Off {
        let history = &results[0].history;
        let path = out.join("balance_history.csv");
        let written = yee_io::balance::write_history(&path, history);
        if failed
            .keep(written.map_err(|e| io_error(&path, e)))
            .is_some()
        {
            outputs.push("balance_history.csv".to_string());
        }
        // Tile sets' shares are not boxes: their plot is not drawn (not built yet).
        let columns = match (&layout_boxes, options.partition) {
            (_, Some(_)) => None,
            (None, None) => Some(share_history(&plan.borders, history, options.topology)),
            (Some(boxes), None) => Some(box_share_history(boxes, history)),
        };
        if let Some(columns) = columns {
            let path = out.join("balance_shares.png");
            let written = yee_io::balance::write_share_plot(&path, &columns);
            if failed
                .keep(written.map_err(|e| io_error(&path, e)))
                .is_some()
            {
                outputs.push("balance_shares.png".to_string());
            }
        }
        let profile = match (&results[0].balancer, &results[0].box_balancer) {
            (Some(b), _) => Some(Profile::from_balancer(b)),
            (None, Some(b)) => Some(Profile::from_box_balancer(b, scene.grid, options.topology)),
            (None, None) => None,
        };
        if let Some(profile) = profile {
            let path = out.join("profile.json");
            if failed
                .keep(profile.save(&path).map_err(|e| io_error(&path, e)))
                .is_some()
            {
                outputs.push("profile.json".into());
            }
        }
    }
    let final_borders = results[0]
        .history
        .last()
        .map_or_else(|| plan.borders.clone(), |h| h.borders.clone());
    if layout_boxes.is_some() {
        // Borders through the whole grid mean nothing here: the boxes say it all.
        plan.borders = Default::default();
    }
    let final_borders = if layout_boxes.is_some() {
        Default::default()
    } else {
        final_borders
    };
    let writing = writing
        .into_inner()
        .unwrap_or_else(|p| p.into_inner())
        .as_secs_f64();
    let setup_seconds = progress
        .stepping_began()
        .map_or(0.0, |t| t.saturating_duration_since(started).as_secs_f64())
        .min(wall_seconds - writing);
    // At least a nanosecond, so a rate stays finite.
    let step_seconds = (wall_seconds - writing - setup_seconds).max(1e-9);
    let checkpoints: Vec<CheckpointReport> = results[0]
        .checkpoints
        .iter()
        .map(|c| CheckpointReport {
            step: c.step,
            error: c.error.clone(),
        })
        .collect();
    let last_checkpoint = checkpoints.iter().rev().find(|c| c.error.is_none());
    let interruption = interrupted.then(|| match last_checkpoint {
        Some(c) if c.step == last_step => format!(
            "interrupted by a signal after step {last_step}: resume with `yee run {} {}`",
            scene.file.display(),
            resume_arguments(out, &checkpoint_config.dir)
        ),
        _ => format!(
            "interrupted by a signal after step {last_step}, and the checkpoint could not be \
             written: {}",
            checkpoints
                .last()
                .and_then(|c| c.error.clone())
                .unwrap_or_default()
        ),
    });
    let run_steps = last_step - first_step;
    let report = RunReport {
        status: match (&diverged, failed.is_empty(), interrupted) {
            (Some(_), _, _) => "diverged",
            (None, false, _) => "failed",
            (None, true, true) => "interrupted",
            (None, true, false) => "complete",
        },
        error: diverged
            .clone()
            .or_else(|| failed.messages().into_iter().next())
            .or_else(|| interruption.clone()),
        output_errors: failed.messages(),
        steps_completed: last_step,
        resumed_from: options.resume.as_ref().map(|l| ResumeReport {
            checkpoint: l.dir.display().to_string(),
            step: l.index.step,
        }),
        checkpoint_dir: checkpoint_config.dir.display().to_string(),
        checkpoints,
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
            Units::Normalised => None,
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
        topology: options.topology.0,
        comm: options.comm,
        wall_seconds,
        setup_seconds,
        step_seconds,
        mcells_per_s: scene.cells() as f64 * run_steps as f64 / step_seconds / 1e6,
        end_to_end_mcells_per_s: scene.cells() as f64 * run_steps as f64 / wall_seconds / 1e6,
        model_step_seconds: mean_step_time(&results),
        peak_rss_bytes: yee_runtime::memory::peak_rss_bytes(),
        rank_stats: results.iter().map(RankReport::from_output).collect(),
        balance: BalanceReport {
            mode: options.balance.mode,
            rebalance_every: options.balance.every,
            epsilon: options.balance.epsilon,
            rebalances: results[0].history.len(),
            layout: options.balance.layout,
            initial_borders: plan.borders.clone(),
            final_borders,
            final_boxes: layout_boxes.as_ref().map(|_| {
                let mut last: Vec<Box3> = vec![Box3::new([0; 3], [0; 3]); results.len()];
                for o in &results {
                    last[o.rank] = o.owned;
                }
                box_json(&last)
            }),
            boxes: layout_boxes.as_deref().map(box_json),
        },
        outputs,
        probes,
        fluxes,
        dfts,
        partition: partition_report,
    };
    let json = serde_json::to_string_pretty(&report).expect("the report serialises");
    write_file(&report_path, |w| writeln!(w, "{json}"))?;
    if let Some(message) = diverged {
        return Err(AppError::Run(message));
    }
    if let Some(e) = failed.into_first() {
        return Err(e);
    }
    if let Some(message) = interruption {
        return Err(AppError::Interrupted(message));
    }
    Ok(Some(report))
}

/// The arguments that resume a run writing into `out` with its checkpoints in `checkpoints`:
/// `--resume OUT` where they are in the output folder (`OUT/checkpoint`), else `--resume
/// CHECKPOINTS --out OUT --checkpoint-dir CHECKPOINTS` (the output folder alone would not
/// find them).
fn resume_arguments(out: &Path, checkpoints: &Path) -> String {
    if checkpoints == out.join("checkpoint") {
        return format!("--resume {}", out.display());
    }
    format!(
        "--resume {0} --out {1} --checkpoint-dir {0}",
        checkpoints.display(),
        out.display()
    )
}

/// Creates `path` and writes it through a buffer, atomically ([`yee_io::atomic`]).
fn write_file<E: std::fmt::Display>(
    path: &Path,
    write: impl FnOnce(&mut BufWriter<File>) -> Result<(), E>,
) -> Result<(), AppError> {
    yee_io::atomic::write_with(path, write).map_err(|e| io_error(path, e))
}

/// `probe_<name>.png`: the probe's series against time (real and imaginary parts if complex).
fn write_probe_plot<T: Scalar>(
    scene: &Scene,
    name: &str,
    component: Component,
    series: &[T],
    time_of: impl Fn(u64) -> f64,
    path: &Path,
) -> Result<(), AppError> {
    let mut times: Vec<f64> = (1..=series.len() as u64).map(time_of).collect();
    let x_label = match scene.units {
        Units::Si { .. } => {
            let (prefix, factor) = yee_io::style::si_prefix(times.last().copied().unwrap_or(1.0));
            times.iter_mut().for_each(|t| *t /= factor);
            format!("time ({prefix}s)")
        }
        Units::Normalised => "time (cell crossings of light)".into(),
    };
    let re: Vec<f64> = series.iter().map(|v| v.re().to_f64()).collect();
    let im: Vec<f64> = series.iter().map(|v| v.im().to_f64()).collect();
    let c = component.name();
    let curves: Vec<(&str, &[f64])> = match T::NAME.starts_with('c') {
        true => vec![("re", &re), ("im", &im)],
        false => vec![(c, &re)],
    };
    let title = format!("{}: probe {name} ({c})", scene.name);
    let plot = yee_io::plot::LinePlot {
        title: &title,
        x_label: &x_label,
        y_label: c,
        xs: &times,
        curves: &curves,
    };
    yee_io::plot::write_line_plot(path, &plot).map_err(|e| io_error(path, e))
}

/// Draws the plane of `slice` at `step`: a coloured image with axes, the material outlines
/// and masked cells over it; in 1D a line plot of the component along x.
/// Material numbers and the mask (if any) over a slice's plane, for its outlines.
type Outlines = (Vec<f64>, Option<Vec<f64>>);

/// The cell index of `slice`'s plane along its axis (0 in 1D and 2D).
fn slice_index(scene: &Scene, slice: &yee_scene::Slice) -> usize {
    if scene.mode.dims() == 3 {
        slice.index as usize
    } else {
        0
    }
}

fn write_slice<T: Scalar>(
    fields: &Assembled<T>,
    scene: &Scene,
    slice: &yee_scene::Slice,
    outlines: &Option<Outlines>,
    step: u64,
    out: &Path,
) -> Result<String, AppError> {
    let index = slice_index(scene, slice);
    let (axes, cells) = crate::plane_plot::plane_cells(scene, slice.axis, index);
    let values: Vec<f64> = cells
        .iter()
        .map(|c| {
            fields
                .value(slice.component, c.map(|x| x as i64))
                .re()
                .to_f64()
        })
        .collect();
    let part = if T::NAME.starts_with('c') { "re " } else { "" };
    let name = slice.component.name();
    let time = scene.units.to_scene_time(step as f64 * scene.dt());
    let when = match scene.units {
        Units::Si { .. } => {
            let (prefix, factor) = yee_io::style::si_prefix(time);
            format!(
                "step {step}, t = {} {prefix}s",
                yee_io::style::tick(time / factor)
            )
        }
        Units::Normalised => format!("step {step}, t = {}", yee_io::style::tick(time)),
    };
    let (file, title) = if scene.mode.dims() == 3 {
        let at = crate::plane_plot::plane_position(scene, slice.axis, index);
        (
            format!(
                "slice_{name}_{}{}_{step:06}.png",
                slice.axis.name(),
                slice.index
            ),
            format!("{}: {part}{name} at {at}, {when}", scene.name),
        )
    } else {
        (
            format!("slice_{name}_{step:06}.png"),
            format!("{}: {part}{name}, {when}", scene.name),
        )
    };
    let path = out.join(&file);
    let unit = crate::plane_plot::length_unit(scene);
    if scene.mode.dims() == 1 {
        let xs: Vec<f64> = (0..values.len())
            .map(|i| (i as f64 + 0.5) * unit.per_cell)
            .collect();
        let x_label = format!("x ({})", unit.name);
        let plot = yee_io::plot::LinePlot {
            title: &title,
            x_label: &x_label,
            y_label: name,
            xs: &xs,
            curves: &[(name, &values)],
        };
        yee_io::plot::write_line_plot(&path, &plot).map_err(|e| io_error(&path, e))?;
        return Ok(file);
    }
    let plot = yee_io::slice_plot::SlicePlot {
        size: axes.map(|a| scene.grid[a.index()]),
        values: &values,
        title: &title,
        axis_names: axes.map(Axis::name),
        unit,
        map: yee_io::slice_plot::ColourMap::Diverging,
        limits: slice.limits,
        bar_label: name,
        outlines: outlines.as_ref().map(|(m, _)| m.as_slice()),
        active: outlines.as_ref().and_then(|(_, a)| a.as_deref()),
        marks: &[],
    };
    yee_io::slice_plot::write_slice_plot(&path, &plot).map_err(|e| io_error(&path, e))?;
    Ok(file)
}

/// The geometry quantities `s` asks for, computed once; written as `.npy` when `npy` (and the
/// snapshots include `.npy`).
fn write_geometry(
    scene: &Scene,
    s: &yee_scene::Snapshots,
    out: &Path,
    npy: bool,
) -> Result<Vec<(GeometryOutput, Vec<f64>)>, AppError> {
    let mut geometry = Vec::new();
    for &q in &s.geometry {
        let values = scene.geometry_values(q);
        if npy && s.npy {
            let path = out.join(format!("{}.npy", q.name()));
            write_file(&path, |w| {
                npy::write(w, scene.grid, scene.mode.dims(), &values)
            })?;
        }
        geometry.push((q, values));
    }
    Ok(geometry)
}

fn write_snapshot<T: Scalar>(
    fields: &Assembled<T>,
    scene: &Scene,
    s: &yee_scene::Snapshots,
    geometry: &[(GeometryOutput, Vec<f64>)],
    step: u64,
    out: &Path,
    hdf5: Option<&Hdf5Output>,
) -> Result<Vec<String>, AppError> {
    let mut files = Vec::new();
    let mut arrays = Vec::new();
    let mut components = Vec::new();
    for &c in &s.components {
        let values = fields.fields[c.index()]
            .as_deref()
            .expect("validated: the mode carries it");
        components.push((c, values));
        if s.npy {
            let file = format!("{}_{step:06}.npy", c.name());
            write_file(&out.join(&file), |w| {
                npy::write(w, scene.grid, scene.mode.dims(), values)
            })?;
            files.push(file);
        }
        arrays.push(vti::CellArray {
            name: c.name(),
            values: vti::Values::Field(values),
        });
    }
    if s.vti {
        let file = format!("fields_{step:06}.vti");
        let spacing = match scene.units {
            Units::Normalised => 1.0,
            Units::Si { cell_size } => cell_size,
        };
        arrays.extend(geometry.iter().map(|(q, values)| vti::CellArray {
            name: q.name(),
            values: vti::Values::Real(values),
        }));
        let compression = match s.zlib {
            true => vti::Compression::Zlib,
            false => vti::Compression::None,
        };
        write_file(&out.join(&file), |w| {
            vti::write(w, scene.grid, spacing, &arrays, compression)
        })?;
        files.push(file);
    }
    if let Some(h) = hdf5 {
        h.write_snapshot(scene, step, &components)?;
    }
    Ok(files)
}

/// `fields.pvd`: the run's `.vti` snapshots (among `outputs`, those of a resumed run's first
/// part included) with their times in scene units, for ParaView to step through. `None` when
/// the run wrote no `.vti`.
fn write_collection(
    scene: &Scene,
    outputs: &[String],
    out: &Path,
) -> Result<Option<String>, AppError> {
    let mut series: Vec<(u64, String)> = outputs
        .iter()
        .filter_map(|f| {
            let step = f.strip_prefix("fields_")?.strip_suffix(".vti")?;
            Some((step.parse().ok()?, f.clone()))
        })
        .collect();
    if series.is_empty() {
        return Ok(None);
    }
    series.sort();
    series.dedup();
    let files: Vec<(f64, String)> = series
        .into_iter()
        .map(|(step, f)| (scene.units.to_scene_time(step as f64 * scene.dt()), f))
        .collect();
    let file = "fields.pvd".to_string();
    write_file(&out.join(&file), |w| yee_io::pvd::write(w, &files))?;
    Ok(Some(file))
}

/// Progress: an indicatif bar on a terminal, periodic log lines otherwise.
struct Progress {
    bar: Option<indicatif::ProgressBar>,
    cells: f64,
    steps: u64,
    started: Instant,
    last_log: Mutex<Instant>,
    quiet: bool,
    /// When the first and the latest reported steps ended, and which steps they were.
    ends: Mutex<Option<[(Instant, u64); 2]>>,
}

impl Progress {
    fn new(scene: &Scene, quiet: bool) -> Self {
        let bar = (!quiet && std::io::stderr().is_terminal()).then(|| {
            let bar = indicatif::ProgressBar::new(scene.steps);
            let style = indicatif::ProgressStyle::with_template(
                "{bar:40.cyan/blue} {pos}/{len} steps  {msg}  ETA {eta}",
            )
            .expect("the template is valid");
            bar.set_style(style);
            bar
        });
        let now = Instant::now();
        Progress {
            bar,
            cells: scene.cells() as f64,
            steps: scene.steps,
            started: now,
            last_log: Mutex::new(now),
            quiet,
            ends: Mutex::new(None),
        }
    }

    /// When stepping began: the end of the first step less the mean duration of the later
    /// ones (none later: the end of the first step). `None` before any step.
    fn stepping_began(&self) -> Option<Instant> {
        let ends = *self.ends.lock().unwrap_or_else(|p| p.into_inner());
        let [(first, s1), (last, s2)] = ends?;
        let mean = match s2 - s1 {
            0 => Duration::ZERO,
            n => Duration::from_secs_f64(last.duration_since(first).as_secs_f64() / n as f64),
        };
        Some(first.checked_sub(mean).unwrap_or(first))
    }

    fn update(&self, step: u64) {
        {
            let now = Instant::now();
            let mut ends = self.ends.lock().unwrap_or_else(|p| p.into_inner());
            let first = ends.map_or((now, step), |e| e[0]);
            *ends = Some([first, (now, step)]);
        }
        let elapsed = self.started.elapsed().as_secs_f64().max(1e-9);
        let rate = self.cells * step as f64 / elapsed;
        if let Some(bar) = &self.bar {
            bar.set_position(step);
            if step % 16 == 0 || step == self.steps {
                bar.set_message(format!("{:.1} Mcells/s", rate / 1e6));
            }
        } else if !self.quiet
            && self
                .last_log
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .elapsed()
                >= Duration::from_secs(5)
        {
            *self.last_log.lock().unwrap_or_else(|p| p.into_inner()) = Instant::now();
            let eta = elapsed / step as f64 * (self.steps - step) as f64;
            log::info!(
                "step {step}/{} ({:.0} %), {:.1} Mcells/s, ETA {eta:.0} s",
                self.steps,
                100.0 * step as f64 / self.steps as f64,
                rate / 1e6
            );
        }
    }

    fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
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
