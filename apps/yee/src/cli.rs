//! Command-line arguments (clap, derive API) and their dispatch.

use std::path::PathBuf;
use yee_scalar::time_tile::TimeBlock;

use clap::{Parser, Subcommand, ValueEnum};
use yee_runtime::checkpoint::StopFlag;

use yee_core::Topology;
use yee_core::topology::check_topology;

use yee_runtime::balance::{
    BalanceMode, BalanceOptions, DensityModel, LayoutKind, box_layout, layout_name, make_plan,
    plan_boxes,
};
use yee_runtime::parallel::CommKind;

use crate::error::AppError;
use crate::parse::parse_speeds;
use crate::run::{Backend, RunOptions, run, summary};

/// yee: a parallel FDTD electromagnetics solver.
#[derive(Debug, Parser)]
#[command(name = "yee", version, about, long_about = None)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run a scene and write its outputs.
    Run(RunArgs),
    /// Validate a scene and print the resolved setup without running it.
    Check(CheckArgs),
    /// Draw planes of a scene's geometry (ε, material outlines, mask) with its CPML, sources,
    /// plane waves, probes, flux planes and DFT boxes marked, without running it.
    Geometry(GeometryArgs),
    /// Print each rank's box after static balancing, without allocating the mesh.
    Balance(BalanceArgs),
    /// Find the modes of a probe CSV by harmonic inversion (frequencies, decay rates, Q,
    /// amplitudes, phases) and write `resonances_<name>.csv` beside it (docs/resonances.md).
    Resonances(crate::resonances::ResonancesArgs),
    /// Compute a band structure: run the scene once per k-point of its `[bands]` block with a
    /// Bloch phase, find the modes at its probes by harmonic inversion, and write `bands.csv`,
    /// `bands.png` and `run.json` (docs/bands.md).
    Bands(crate::bands::BandsArgs),
    /// The guided modes of a cross-section without running: effective and group indices and
    /// polarisation printed, `modes.csv` and plots of each mode's fields written
    /// (docs/modes.md).
    Modes(crate::modes::ModesArgs),
    /// Measure the update's throughput against the memory-bandwidth roofline.
    #[cfg(feature = "rayon")]
    Bench(BenchArgs),
    /// List every virtual topology of a grid over N ranks with its share surface f
    /// (Balykov 2017, eqs. (2), (5)) and mark the one chosen.
    Topology(TopologyArgs),
    /// Partition a scene's active cells (its mask) or a test shape into tiles owned by N
    /// ranks (RCDC, redeployment or CDC of Smyk & Tudruj 2011) and report the parts.
    Partition(PartitionArgs),
    /// Under `mpirun -np 2`: measure MPI and memory-copy latency and bandwidth and predict the
    /// two-process throughput of a grid with Kim & Park's overlap model (eqs. (1)-(10)).
    #[cfg(feature = "mpi")]
    MpiCalibrate(MpiCalibrateArgs),
}

/// `yee mpi-calibrate`.
#[derive(Debug, clap::Args)]
pub struct MpiCalibrateArgs {
    /// Grid size: A, AxB or AxBxC cells.
    #[arg(long)]
    pub grid: String,
    /// Bytes per value: 4 (f32) or 8 (f64).
    #[arg(long, default_value_t = 4)]
    pub nbyte: usize,
    /// The measured one-process throughput (THP) in Mcells/s.
    #[arg(long)]
    pub mcells_per_s: f64,
    /// Round trips per message size.
    #[arg(long, default_value_t = 200)]
    pub repeats: usize,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

/// `yee run`.
#[derive(Debug, clap::Args)]
pub struct RunArgs {
    /// The scene file (TOML).
    pub scene: PathBuf,
    /// Output directory (default: out/<scene name>/).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Number of steps, overriding the scene's run length.
    #[arg(long)]
    pub steps: Option<u64>,
    /// Backend (default: rayon when built in, else scalar).
    #[arg(long, value_enum, default_value_t = Backend::default())]
    pub backend: Backend,
    /// Temporal blocking on the rayon backend: k steps per wavefront tile, auto (slabs as thin
    /// as feed every thread, k as many as fit the last-level cache, at most 8) or off. Same
    /// fields and probe series bit for bit, TF/SF plane waves, tensor nodes (smoothed
    /// surfaces) and dispersive media included; decomposed runs keep ghost zones k cells deep.
    /// Where the run cannot tile (1D; periodic along z in 3D or y in 2D, with tensor nodes or
    /// across ranks; ghost zones with TF/SF or tensor nodes) it steps
    /// one step at a time and run.json's `time_block` says why. See docs/performance.md.
    #[arg(long, value_name = "k|auto|off", default_value = "off")]
    pub time_block: String,
    /// The last-level cache `--time-block auto` sizes its tiles for, in bytes or with K, M or
    /// G (`16M`), in place of the size the OS reports: on a host shared with other jobs a run
    /// gets less than the whole cache the OS reports. `measure` measures it (a read sweep of
    /// growing buffers, under a second, once; where the rates show no fall from a cache, the
    /// OS's size is used). run.json's `time_block` records the size used (`cache_bytes`,
    /// `cache_from`) and what a measurement read (`cache_probe`).
    #[arg(long, value_name = "SIZE|measure")]
    pub cache_bytes: Option<String>,
    /// One backend per rank, comma-separated (`scalar,rayon,rayon`): a heterogeneous run, each
    /// rank on its own backend, cells migrating between them with --balance dynamic. Sets the
    /// rank count when --ranks and --topology are not given. See docs/cuda.md, "Heterogeneous
    /// runs".
    #[arg(long, value_name = "LIST", conflicts_with = "backend")]
    pub rank_backends: Option<String>,
    /// Number of ranks (default: 1, the product of --topology, or the entries of
    /// --rank-backends).
    #[arg(long)]
    pub ranks: Option<usize>,
    /// Communicator: shm (threads, real clocks), sim (threads, virtual clocks) or mpi (one
    /// rank per process under mpirun). Default: mpi when an MPI build runs under mpirun, else
    /// shm.
    #[arg(long, value_enum)]
    pub comm: Option<CommKind>,
    /// Virtual topology: auto (the smallest share surface) or NxMxK.
    #[arg(long, default_value = "auto")]
    pub topology: String,
    /// No progress bar, no log lines, no summary.
    #[arg(long)]
    pub quiet: bool,
    /// Make each series of slice PNGs into slice_<name>.mp4 with ffmpeg at the end.
    #[arg(long)]
    pub movie: bool,
    /// Start over in an output folder that holds an interrupted run's checkpoint (deleting
    /// it); without --fresh or --resume such a run is refused.
    #[arg(long, conflicts_with = "resume")]
    pub fresh: bool,
    /// Load balancing: off (uniform), static (by cost density, speeds or profile), dynamic.
    #[arg(long, value_enum, default_value_t = BalanceMode::Off)]
    pub balance: BalanceMode,
    /// Steps between rebalances (T_perf) with --balance dynamic.
    #[arg(long, default_value_t = 100)]
    pub rebalance_every: u64,
    /// A change must shorten the predicted step by more than this fraction.
    #[arg(long, default_value_t = 0.05)]
    pub epsilon: f64,
    /// Start from a saved balancing profile (a profile.json of an earlier run).
    #[arg(long)]
    pub profile: Option<PathBuf>,
    /// Relative speed of each rank, comma-separated (static balancing without a profile).
    #[arg(long)]
    pub speeds: Option<String>,
    /// Balance memory (fields, material ids, CPML ψ) instead of time; with --balance static.
    #[arg(long)]
    pub balance_memory: bool,
    /// How each axis' load density is built with --balance static or dynamic: summed
    /// (default) or per-axis (Franek 2016). See docs/balancing.md, "Density models".
    #[arg(long, value_enum)]
    pub density: Option<DensityModel>,
    /// How the ranks' boxes are cut: tensor (borders through the whole grid, Balykov 2019),
    /// jagged (slabs of x, each cut along y, each column along z) or kd (weighted recursive
    /// bisection). See docs/balancing.md, "Layouts beyond the tensor grid".
    #[arg(long, value_enum, default_value_t = LayoutKind::Tensor)]
    pub layout: LayoutKind,
    /// Exchange halos after the whole update instead of overlapping them with the interior
    /// update (same fields; for measuring what the overlap gains). The same as `--overlap none`.
    #[arg(long)]
    pub no_overlap: bool,
    /// How the halo exchange overlaps the update (Kim & Park 2012): kernel-split (default: the
    /// border shells first, the exchange while the interior updates), host-buffer (refused: no
    /// backend has it yet) or none (exchange after the whole update; same fields).
    #[arg(long, value_enum, conflicts_with = "no_overlap")]
    pub overlap: Option<OverlapArg>,
    /// Give each rank a set of tiles of the scene's mask, partitioned by rcdc, redeploy or
    /// cdc (Smyk & Tudruj 2011), instead of a box; tiles without active cells are not
    /// computed. Tile size from the scene's [mask] tile; --speeds weights the parts.
    #[arg(long, value_enum)]
    pub partition: Option<MethodArg>,
    /// Make rank R sleep S seconds per million cell updates (shm and mpi): `R=S`, repeatable.
    /// An artificially slow node, for seeing the balancer work.
    #[arg(long, value_name = "R=S")]
    pub slowdown: Vec<String>,
    /// Write a checkpoint every N steps (`500`) or every so much wall time (`90s`, `30m`,
    /// `2h`), replacing the one before. SIGINT and SIGTERM always write one and stop.
    #[arg(long, value_name = "N|TIME")]
    pub checkpoint_every: Option<String>,
    /// Where checkpoints go (default: the output folder's `checkpoint/`).
    #[arg(long)]
    pub checkpoint_dir: Option<PathBuf>,
    /// Traces of a `[scan]` run at the same time, each on threads of its own (default 1: one
    /// after another, each on the run's ranks and backend).
    #[arg(long)]
    pub jobs: Option<usize>,
    /// Resume from the newest checkpoint in DIR (an output folder, its `checkpoint/`, or one
    /// checkpoint): same scene file, any ranks, layout and backend; outputs go on into DIR
    /// when it is an output folder and --out is not given. The fields, probes and outputs are
    /// those of a run that was never stopped, bit for bit.
    #[arg(long, value_name = "DIR")]
    pub resume: Option<PathBuf>,
}

/// Parses `--checkpoint-every`: a whole number of steps, or a time with the unit `s`, `m` or
/// `h`. Returns (steps, seconds).
pub fn parse_checkpoint_every(text: &str) -> Result<(Option<u64>, Option<f64>), AppError> {
    let bad = |why: &str| AppError::Usage(format!("--checkpoint-every {text}: {why}"));
    let t = text.trim();
    let unit = match t.chars().last() {
        Some('s') => Some(1.0),
        Some('m') => Some(60.0),
        Some('h') => Some(3600.0),
        _ => None,
    };
    match unit {
        Some(scale) => {
            let value: f64 = t[..t.len() - 1]
                .trim()
                .parse()
                .map_err(|_| bad("expected a number before the unit (e.g. 30m)"))?;
            if !(value.is_finite() && value > 0.0) {
                return Err(bad("the time must be positive"));
            }
            Ok((None, Some(value * scale)))
        }
        None => {
            let steps: u64 = t.parse().map_err(|_| {
                bad("expected a whole number of steps, or a time such as 90s, 30m or 2h")
            })?;
            if steps == 0 {
                return Err(bad("the number of steps must be at least 1"));
            }
            Ok((Some(steps), None))
        }
    }
}

/// `yee check`.
#[derive(Debug, clap::Args)]
pub struct CheckArgs {
    /// The scene file (TOML).
    pub scene: PathBuf,
}

/// `yee bench`.
#[cfg(feature = "rayon")]
#[derive(Debug, clap::Args)]
pub struct BenchArgs {
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
    /// Fewer steps (a smoke run, not a measurement).
    #[arg(long)]
    pub quick: bool,
    /// Only the problems whose name contains this text (e.g. "3D 100").
    #[arg(long)]
    pub only: Option<String>,
    /// Also run the rayon kernel with a phase's components forced together and apart,
    /// alternating with the default, to measure what updating them together gains.
    #[arg(long)]
    pub separate: bool,
    /// Also run the rayon kernel with each phase over the whole grid (`rayon-2p`) rather than
    /// the step swept slab by slab, alternating with the default, to measure what one pass
    /// over memory per step gains.
    #[arg(long)]
    pub whole_phases: bool,
    /// Also run the rayon kernel on chunks that do not keep the runs of one material along
    /// their rows of several (`rayon-scan`: the ids are scanned every step), alternating with
    /// the default, to measure what recording the runs gains (the sphere's rows).
    #[arg(long)]
    pub scanned_runs: bool,
    /// Thread counts of the rayon runs, comma-separated (default: 1 and all cores).
    #[arg(long, value_delimiter = ',')]
    pub threads: Vec<usize>,
    /// Leave out the scalar backend's reference rows.
    #[arg(long)]
    pub no_scalar: bool,
    /// The realistic problems instead of vacuum: CPML on every face (100³, 256³), a dielectric
    /// sphere in CPML (100³, 256³) and a lossy half-space in CPML (256³), each against its own
    /// byte model, with vacuum at 256³ (PEC walls) beside them for reference.
    #[arg(long)]
    pub scenes: bool,
    /// Also run the rayon kernel with temporal blocking (`rayon-tb`: k steps per wavefront
    /// tile, or auto), alternating run by run with the one-step default; the rows give the
    /// ratio to the one-step rate of the same run.
    #[arg(long, value_name = "k|auto|off", default_value = "off")]
    pub time_block: String,
    /// The last-level cache the `rayon-tb` rows' tiles are sized for (as `yee run
    /// --cache-bytes`): bytes, or with K, M or G, or `measure`.
    #[arg(long, value_name = "SIZE|measure")]
    pub cache_bytes: Option<String>,
    /// Measure the whole list this many times, one round after the other, each row's medians
    /// (and its lowest and highest fraction) over all its rounds' runs: on a machine whose
    /// bandwidth drifts, a slow spell then weighs on every problem.
    #[arg(long, default_value_t = 1)]
    pub rounds: usize,
    /// What runs the problems: rayon (the default, with the scalar backend's reference rows),
    /// or the device chunk stepped alone, `cuda` on a GPU against the device's own triad
    /// (`threads` 0 in the rows), `cuda-emulated` for a smoke run (its rates are the host's).
    #[arg(long, value_enum)]
    pub backend: Option<Backend>,
}

/// `yee geometry`.
#[derive(Debug, clap::Args)]
pub struct GeometryArgs {
    /// The scene file (TOML).
    pub scene: PathBuf,
    /// Output directory (default: out/<scene name>/).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// 3D: the plane's normal (default: one plane normal to each axis).
    #[arg(long, value_enum)]
    pub axis: Option<AxisArg>,
    /// 3D: the plane's coordinate along --axis, in scene units (default: the middle).
    #[arg(long)]
    pub position: Option<f64>,
}

/// An axis on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum AxisArg {
    /// x.
    X,
    /// y.
    Y,
    /// z.
    Z,
}

impl AxisArg {
    /// The core's axis.
    pub fn axis(self) -> yee_core::Axis {
        match self {
            AxisArg::X => yee_core::Axis::X,
            AxisArg::Y => yee_core::Axis::Y,
            AxisArg::Z => yee_core::Axis::Z,
        }
    }
}

/// `yee balance`.
#[derive(Debug, clap::Args)]
pub struct BalanceArgs {
    /// The scene file (TOML).
    pub scene: PathBuf,
    /// Topology NxMxK (or N, NxM).
    #[arg(long)]
    pub ranks: String,
    /// Relative speed of each rank, comma-separated.
    #[arg(long)]
    pub speeds: Option<String>,
    /// A saved balancing profile.
    #[arg(long)]
    pub profile: Option<PathBuf>,
    /// Balance memory instead of time.
    #[arg(long)]
    pub memory: bool,
    /// How each axis' load density is built: `summed` (default: every CPML layer a slice
    /// crosses) or `per-axis` (Franek 2016: an axis weighs only its own CPML layers; reproduces
    /// the paper's example). See docs/balancing.md, "Density models".
    #[arg(long, value_enum)]
    pub density: Option<DensityModel>,
    /// How the ranks' boxes are cut: tensor, jagged or kd (docs/balancing.md, "Layouts beyond
    /// the tensor grid").
    #[arg(long, value_enum, default_value_t = LayoutKind::Tensor)]
    pub layout: LayoutKind,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

/// `yee topology`.
#[derive(Debug, clap::Args)]
pub struct TopologyArgs {
    /// Grid size: A, AxB or AxBxC cells.
    #[arg(long)]
    pub grid: String,
    /// Number of ranks.
    #[arg(long)]
    pub ranks: usize,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

/// Partitioning methods on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum MethodArg {
    /// Merge, CDC, then redeployment (hierarchical).
    Rcdc,
    /// Merge to N macro nodes by MR0, then redeployment.
    Redeploy,
    /// CDC alone (no balancing).
    Cdc,
}

impl MethodArg {
    /// The core's method.
    pub fn method(self) -> yee_core::graph::Method {
        match self {
            MethodArg::Rcdc => yee_core::graph::Method::Rcdc,
            MethodArg::Redeploy => yee_core::graph::Method::Redeploy,
            MethodArg::Cdc => yee_core::graph::Method::Cdc,
        }
    }
}

/// `yee partition`.
#[derive(Debug, clap::Args)]
pub struct PartitionArgs {
    /// The scene file (TOML); its mask and tile size are used. Give this or --shape.
    pub scene: Option<PathBuf>,
    /// One of the test shapes instead of a scene: l-shape, annulus, porous, comb.
    #[arg(long)]
    pub shape: Option<String>,
    /// Number of parts (ranks).
    #[arg(long)]
    pub ranks: usize,
    /// Partitioning method.
    #[arg(long, value_enum, default_value_t = MethodArg::Rcdc)]
    pub method: MethodArg,
    /// Relative weight of each rank (its speed), comma-separated: 3,3,1,1,…
    #[arg(long)]
    pub weights: Option<String>,
    /// Tile extent, like 8x8 (default: the scene's [mask] tile, else 8 per used axis).
    #[arg(long)]
    pub tile: Option<String>,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Where to write the PNG of the parts (default: out/<name>/partition_<method>_<ranks>.png).
    #[arg(long)]
    pub png: Option<PathBuf>,
    /// Instead of one partition: partitions for 8 … 256 processors evaluated on the nine
    /// machines of table 2 (FF … SS), as a Markdown table (or JSON).
    #[arg(long)]
    pub speedup: bool,
}

/// The overlap choices of Kim & Park 2012 on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum OverlapArg {
    /// The border shells first, then the exchange while the interior updates (their
    /// kernel-split; the border-first update of every backend's driver, on a device the
    /// border on a second stream beside the interior).
    KernelSplit,
    /// A two-layer host copy of the borders updated by CPU kernels while the device updates
    /// the main grid (their host-buffer method).
    HostBuffer,
    /// The exchange after the whole update.
    None,
}

/// Whether a run overlaps its exchange: `--overlap` or `--no-overlap`; host-buffer is refused
/// with the reason.
pub fn resolve_overlap(overlap: Option<OverlapArg>, no_overlap: bool) -> Result<bool, AppError> {
    match (overlap, no_overlap) {
        (Some(OverlapArg::HostBuffer), _) => Err(AppError::Usage(
            "--overlap host-buffer: no backend of this build has it (Kim & Park's two-layer host \
             copy of a device's borders; the host backends' fields are in host memory already, \
             and the cuda backend runs the kernel split, its border on a second stream); use \
             kernel-split or none"
                .into(),
        )),
        (Some(OverlapArg::None), _) | (None, true) => Ok(false),
        (Some(OverlapArg::KernelSplit), _) | (None, false) => Ok(true),
    }
}

/// Parses "A", "AxB" or "AxBxC" (positive integers) into 1 to 3 numbers.
pub fn parse_extents(flag: &str, text: &str) -> Result<Vec<usize>, AppError> {
    let parts: Vec<&str> = text.split(['x', 'X']).collect();
    let bad = || {
        AppError::Usage(format!(
            "{flag} {text}: expected 1 to 3 positive integers joined by x, like 256x256 or 4x2x1"
        ))
    };
    if parts.is_empty() || parts.len() > 3 {
        return Err(bad());
    }
    parts
        .iter()
        .map(|p| {
            p.trim()
                .parse::<usize>()
                .ok()
                .filter(|&n| n > 0)
                .ok_or_else(bad)
        })
        .collect()
}

/// The topology of a run: `auto` picks the smallest share surface.
pub fn resolve_topology(
    text: &str,
    ranks: Option<usize>,
    grid: [usize; 3],
    dims: usize,
) -> Result<Topology, AppError> {
    let usage = |e: yee_core::TopologyError| AppError::Usage(format!("--topology {text}: {e}"));
    if text == "auto" {
        return yee_simulation::options::auto_topology(grid, dims, ranks.unwrap_or(1));
    }
    let parts = parse_extents("--topology", text)?;
    let t = Topology(std::array::from_fn(|a| parts.get(a).copied().unwrap_or(1)));
    let ranks = ranks.unwrap_or(t.ranks());
    check_topology(grid, dims, ranks, t, 1).map_err(usage)?;
    Ok(t)
}

/// The communicator when `--comm` is not given: mpi for an MPI build started by mpirun.
fn default_comm() -> CommKind {
    #[cfg(feature = "mpi")]
    if yee_runtime::mpi::under_mpirun() {
        return CommKind::Mpi;
    }
    CommKind::Shm
}

/// Logs to stderr (`RUST_LOG` overrides the level), each line prefixed with the rank in an
/// MPI job. A second call does nothing.
pub fn init_logging(quiet: bool, rank: Option<usize>) {
    use std::io::Write;
    let level = if quiet { "warn" } else { "info" };
    let mut builder =
        env_logger::Builder::from_env(env_logger::Env::default().default_filter_or(level));
    builder.format_timestamp(None);
    if let Some(rank) = rank {
        builder.format(move |f, record| {
            writeln!(f, "[rank {rank}] {}: {}", record.level(), record.args())
        });
    }
    let _ = builder.try_init();
}

/// The scene and options of `yee run`; `processes` is the MPI job's size (the rank count).
pub fn prepare_run(
    args: &RunArgs,
    comm: CommKind,
    processes: Option<usize>,
) -> Result<(yee_scene::Scene, RunOptions), AppError> {
    let mut scene = yee_scene::load(&args.scene)?;
    yee_simulation::mode_sources::expand_mode_sources(&mut scene)?;
    crate::hdf5_output::check_built(&scene)?;
    if let Some(steps) = args.steps {
        scene.set_steps(steps)?;
    }
    check_scan_flags(args, &scene, comm)?;
    let ranks = match (processes, args.ranks) {
        (Some(p), Some(r)) if p != r => {
            return Err(AppError::Usage(format!(
                "--ranks {r}, but mpirun started {p} processes (leave --ranks out under mpirun)"
            )));
        }
        (Some(p), _) => Some(p),
        (None, r) => r,
    };
    // A list of rank backends counts the ranks when nothing else does.
    let listed = (args.rank_backends.as_deref())
        .filter(|_| ranks.is_none() && args.topology == "auto")
        .map(|text| text.split(',').count());
    let topology = resolve_topology(
        &args.topology,
        ranks.or(listed),
        scene.grid,
        scene.mode.dims(),
    )?;
    let rank_backends = match &args.rank_backends {
        Some(text) => crate::parse::parse_rank_backends(text, topology.ranks())?,
        None => Vec::new(),
    };
    let resume = match &args.resume {
        None => None,
        Some(dir) => {
            let loaded = yee_runtime::checkpoint::find(dir)?.ok_or_else(|| {
                AppError::Usage(format!(
                    "--resume {}: no complete checkpoint there (looked for checkpoint.json in \
                     it, in its step-* folders and in its checkpoint/ folder)",
                    dir.display()
                ))
            })?;
            loaded.check_scene(
                &scene.sha256,
                scene.value_type.name(),
                scene.grid,
                scene.setup().active,
            )?;
            if loaded.index.step >= scene.steps {
                return Err(AppError::Usage(format!(
                    "--resume {}: the checkpoint is of step {}, and the run has {} steps (give \
                     --steps to run longer)",
                    dir.display(),
                    loaded.index.step,
                    scene.steps
                )));
            }
            Some(loaded)
        }
    };
    let (every_steps, every_seconds) = match &args.checkpoint_every {
        Some(text) => parse_checkpoint_every(text)?,
        None => (None, None),
    };
    // Resuming an output folder writes on into it.
    let resumed_folder = args
        .resume
        .as_ref()
        .filter(|d| d.join("run.json").is_file() || d.join("checkpoint").is_dir());
    let out = args
        .out
        .clone()
        .or_else(|| resumed_folder.cloned())
        .unwrap_or_else(|| PathBuf::from("out").join(&scene.name));
    let balance = BalanceOptions {
        mode: args.balance,
        every: args.rebalance_every,
        epsilon: args.epsilon,
        profile: args.profile.clone(),
        speeds: args.speeds.as_deref().map(parse_speeds).transpose()?,
        by_memory: args.balance_memory,
        density: args.density.unwrap_or_default(),
        layout: args.layout,
    };
    if args.layout != LayoutKind::Tensor {
        let name = layout_name(args.layout);
        let refuse = |why: &str| Err(AppError::Usage(format!("--layout {name}: {why}")));
        if args.partition.is_some() {
            return refuse("ranks own boxes; --partition gives them tile sets instead");
        }
    }
    if args.density.is_some() && (args.balance == BalanceMode::Off || args.balance_memory) {
        return Err(AppError::Usage(
            "--density weighs time: use it with --balance static or dynamic, without --balance-memory"
                .into(),
        ));
    }
    let slowdown = parse_slowdowns(&args.slowdown, topology.ranks())?;
    if !slowdown.is_empty() && comm == CommKind::Sim {
        return Err(AppError::Usage(
            "--slowdown applies to shm and mpi; the sim communicator's speeds come from its machine model".into(),
        ));
    }
    crate::check::memory_fits(&scene, topology.ranks(), comm == CommKind::Mpi)?;
    if args.movie {
        crate::movie::check_ffmpeg()?;
    }
    let cache = cache_request(args.cache_bytes.as_deref())?;
    let mut options = RunOptions {
        out,
        movie: args.movie,
        fresh: args.fresh,
        partition: args.partition.map(MethodArg::method),
        quiet: args.quiet,
        backend: args.backend,
        rank_backends,
        topology,
        comm,
        model: None,
        balance,
        overlap: resolve_overlap(args.overlap, args.no_overlap)?,
        slowdown,
        checkpoint: crate::run::CheckpointOptions {
            every_steps,
            every_seconds,
            dir: args.checkpoint_dir.clone(),
        },
        resume,
        stop: None,
        output_lock: None,
        time_block: TimeBlock::parse(&args.time_block).map_err(AppError::Usage)?,
        cache_bytes: None,
        measure_cache: false,
    };
    if let Some(request) = cache {
        options.request_cache(request);
    }
    Ok((scene, options))
}

/// `--cache-bytes SIZE|measure`, if given ([`yee_simulation::CacheRequest`]).
fn cache_request(text: Option<&str>) -> Result<Option<yee_simulation::CacheRequest>, AppError> {
    text.map(|t| {
        yee_simulation::CacheRequest::parse(t).ok_or_else(|| {
            AppError::Usage(format!(
                "--cache-bytes {t}: give a size above 0, in bytes or with K, M or G (16M), or \
                 measure"
            ))
        })
    })
    .transpose()
}

/// The flags of `yee run` that a scene with `[scan]` (or one without) does not take.
fn check_scan_flags(
    args: &RunArgs,
    scene: &yee_scene::Scene,
    comm: CommKind,
) -> Result<(), AppError> {
    let refuse = |m: &str| Err(AppError::Usage(m.into()));
    match (&scene.scan, args.jobs) {
        (None, Some(_)) => {
            refuse("--jobs runs the traces of a [scan] side by side; this scene has no [scan]")
        }
        (Some(_), Some(0)) => refuse("--jobs 0: a scan runs at least one trace at a time"),
        (Some(_), _) if args.resume.is_some() => refuse(
            "--resume: a scan's traces start over (its run.json lists those that ended); run the scan again",
        ),
        (Some(_), _) if comm == CommKind::Mpi => refuse(
            "--comm mpi: a scan runs its traces in one process (--ranks and --jobs spread them over threads)",
        ),
        _ => Ok(()),
    }
}

/// Parses `--slowdown R=S` values (S seconds per million cell updates on rank R).
pub fn parse_slowdowns(
    values: &[String],
    ranks: usize,
) -> Result<Vec<yee_comm_shm::Slowdown>, AppError> {
    let mut out = Vec::new();
    for text in values {
        let bad = |why: &str| AppError::Usage(format!("--slowdown {text}: {why}"));
        let (r, s) = text
            .split_once('=')
            .ok_or_else(|| bad("expected R=S (rank = seconds per million cell updates)"))?;
        let rank: usize = r
            .trim()
            .parse()
            .map_err(|_| bad("the rank is not a whole number"))?;
        let seconds: f64 = s
            .trim()
            .parse()
            .map_err(|_| bad("the seconds are not a number"))?;
        if rank >= ranks {
            return Err(bad(&format!(
                "rank {rank} does not exist in a run of {ranks} rank(s)"
            )));
        }
        if !(seconds.is_finite() && seconds >= 0.0) {
            return Err(bad("the seconds must be a finite number ≥ 0"));
        }
        if out.len() <= rank {
            out.resize(rank + 1, yee_comm_shm::Slowdown::default());
        }
        out[rank].per_cell = seconds * 1e-6;
    }
    Ok(out)
}

fn log_start(scene: &yee_scene::Scene, options: &RunOptions) {
    log::info!(
        "running {} for {} steps on {} rank(s), topology {:?}, {:?}, into {}",
        scene.name,
        scene.steps,
        options.topology.ranks(),
        options.topology.0,
        options.comm,
        options.out.display()
    );
}

/// `yee run` as one process of an MPI job: every rank prepares, all agree (same build, same
/// scene, no errors) before anything runs, and rank 0 writes.
#[cfg(feature = "mpi")]
fn run_mpi(args: RunArgs) -> Result<(), AppError> {
    use mpi::topology::Communicator;
    let universe = yee_runtime::mpi::initialize()?;
    let world = universe.world();
    let (rank, size) = (world.rank() as usize, world.size() as usize);
    init_logging(args.quiet, Some(rank));
    // Rank 0 takes the output folder's lock before the start-up check and keeps it to the end.
    let local = prepare_run(&args, CommKind::Mpi, Some(size)).and_then(|mut prepared| {
        if rank == 0 {
            let options = &prepared.1;
            let lock = crate::run::prepare_output_dir(
                &options.out,
                options.resume.is_some(),
                options.fresh,
                None,
            )?;
            prepared.1.output_lock = Some(lock);
        }
        Ok(prepared)
    });
    let (scene, mut options) = yee_runtime::mpi::agree(&args.scene, local, |(scene, options)| {
        agreed_options(&args, scene, options)
    })?;
    // Only rank 0 reports steps, so every rank keeps its signal for the collective stop.
    options.stop = watch_signals(false)?;
    if rank == 0 && !args.quiet {
        print_warnings(&scene);
    }
    log_start(&scene, &options);
    if let Some(report) = run(&scene, &options)? {
        if !args.quiet {
            println!("{}", summary(&report, &options.out));
        }
    }
    Ok(())
}

/// The run options every process of an MPI job must share, by their command-line names: the
/// steps, checkpoints, resume, topology, layout and balancing (a rank given other values would
/// wait for its peers at other steps until the watchdog ends the job).
#[cfg(feature = "mpi")]
fn agreed_options(
    args: &RunArgs,
    scene: &yee_scene::Scene,
    options: &RunOptions,
) -> Vec<(&'static str, String)> {
    use clap::ValueEnum;
    let name = |v: &dyn Fn() -> Option<clap::builder::PossibleValue>| {
        v().map(|p| p.get_name().to_string()).unwrap_or_default()
    };
    let c = &options.checkpoint;
    let every = match (c.every_steps, c.every_seconds) {
        (Some(n), _) => n.to_string(),
        (None, Some(s)) => format!("{s}s"),
        (None, None) => String::new(),
    };
    let [x, y, z] = options.topology.0;
    let b = &options.balance;
    vec![
        ("--steps", scene.steps.to_string()),
        ("--checkpoint-every", every),
        (
            "--checkpoint-dir",
            yee_simulation::options::folder_named(&options.checkpoint_dir())
                .display()
                .to_string(),
        ),
        (
            "--resume",
            (options.resume.as_ref())
                .map(|l| format!("step {}", l.index.step))
                .unwrap_or_default(),
        ),
        ("--topology", format!("{x}x{y}x{z}")),
        ("--layout", name(&|| b.layout.to_possible_value())),
        (
            "--partition",
            name(&|| args.partition.and_then(|m| m.to_possible_value())),
        ),
        ("--balance", name(&|| b.mode.to_possible_value())),
        ("--rebalance-every", b.every.to_string()),
        ("--epsilon", b.epsilon.to_string()),
        ("--balance-memory", b.by_memory.to_string()),
        ("--density", name(&|| b.density.to_possible_value())),
        ("--speeds", args.speeds.clone().unwrap_or_default()),
        (
            "--profile",
            (b.profile.as_ref())
                .map(|p| p.display().to_string())
                .unwrap_or_default(),
        ),
        ("--slowdown", args.slowdown.join(",")),
        (
            "--overlap",
            (if options.overlap {
                "kernel-split"
            } else {
                "none"
            })
            .into(),
        ),
    ]
}

#[cfg(not(feature = "mpi"))]
fn run_mpi(_: RunArgs) -> Result<(), AppError> {
    Err(AppError::Usage(crate::error::MPI_MISSING.into()))
}

/// From here on SIGINT, SIGTERM and SIGUSR1 (which `mpirun` forwards to every process at
/// once, where it delays SIGTERM) set the returned flag: the run stops at a step every rank
/// agrees on, writes a checkpoint and a run.json saying "interrupted", and exits with
/// [`crate::error::INTERRUPTED_EXIT`]; a second signal exits at once with that status. Before
/// the first step has ended (reading the scene's inputs, allocating: nothing to checkpoint
/// yet), a signal ends the process at once with that status and a message saying so, when
/// `exit_while_setting_up` (a run of one process; an MPI rank stops with the others).
fn watch_signals(exit_while_setting_up: bool) -> Result<Option<StopFlag>, AppError> {
    let flag = StopFlag::default();
    use signal_hook::consts::{SIGINT, SIGTERM, SIGUSR1};
    let exit = i32::from(crate::error::INTERRUPTED_EXIT);
    for signal in [SIGINT, SIGTERM, SIGUSR1] {
        signal_hook::flag::register_conditional_shutdown(signal, exit, flag.clone())
            .and_then(|_| signal_hook::flag::register(signal, flag.clone()))
            .map_err(|e| AppError::Usage(format!("cannot watch signal {signal}: {e}")))?;
    }
    if !exit_while_setting_up {
        return Ok(Some(flag));
    }
    let mut signals = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGUSR1])
        .map_err(|e| AppError::Usage(format!("cannot watch signals: {e}")))?;
    std::thread::spawn(move || {
        for signal in signals.forever() {
            if !yee_simulation::progress::STEPPING.load(std::sync::atomic::Ordering::SeqCst) {
                let name = signal_hook::low_level::signal_name(signal).unwrap_or("a signal");
                eprintln!(
                    "error: interrupted by {name} while setting up, before the first step: nothing was run"
                );
                std::process::exit(exit);
            }
        }
    });
    Ok(Some(flag))
}

/// Runs a parsed command line.
pub fn execute(cli: Cli) -> Result<(), AppError> {
    if !matches!(cli.command, Command::Run(_)) {
        init_logging(false, None);
    }
    match cli.command {
        Command::Run(args) => run_command(args),
        Command::Check(args) => check_command(args),
        Command::Geometry(args) => geometry_command(args),
        Command::Balance(args) => balance_command(args),
        #[cfg(feature = "rayon")]
        Command::Bench(args) => bench_command(args),
        #[cfg(feature = "mpi")]
        Command::MpiCalibrate(args) => calibrate_command(args),
        Command::Topology(args) => topology_command(args),
        Command::Partition(args) => partition_command(&args),
        Command::Resonances(args) => crate::resonances::command(&args).map(|_| ()),
        Command::Bands(args) => crate::bands::command(&args).map(|_| ()),
        Command::Modes(args) => crate::modes::command(&args).map(|_| ()),
    }
}

/// The scene's warnings ([`yee_scene::warnings::scene_warnings`]) on stderr, as `yee run`
/// prints them before the first step (`yee check` lists the same in its report). Each line in
/// one write: `eprintln!` writes its pieces apart on the unbuffered stderr, and under mpirun
/// another rank's line then lands inside one (seen in CI: `warning: [rank 1] INFO: …`).
fn print_warnings(scene: &yee_scene::Scene) {
    use std::io::Write;
    for w in yee_scene::warnings::scene_warnings(scene) {
        let line = format!("warning: {w}\n");
        // Nothing to do where stderr itself cannot be written.
        let _ = std::io::stderr().lock().write_all(line.as_bytes());
    }
}

/// `yee run` on this process's communicator (an MPI job's processes each run theirs).
fn run_command(args: RunArgs) -> Result<(), AppError> {
    let comm = args.comm.unwrap_or_else(default_comm);
    if comm == CommKind::Mpi {
        return run_mpi(args);
    }
    init_logging(args.quiet, None);
    // Watched before the scene and its files are read: a signal while setting up ends the
    // process at once.
    let stop = watch_signals(true)?;
    let (scene, mut options) = prepare_run(&args, comm, None)?;
    options.stop = stop;
    if !args.quiet {
        print_warnings(&scene);
    }
    log_start(&scene, &options);
    if scene.scan.is_some() {
        return crate::scan::run_scan(&scene, &options, args.jobs.unwrap_or(1));
    }
    if let Some(report) = run(&scene, &options)? {
        if !args.quiet {
            println!("{}", summary(&report, &options.out));
        }
    }
    Ok(())
}

/// `yee check`: the resolved setup and its warnings, without running.
fn check_command(args: CheckArgs) -> Result<(), AppError> {
    let mut scene = yee_scene::load(&args.scene)?;
    yee_simulation::mode_sources::expand_mode_sources(&mut scene)?;
    crate::hdf5_output::check_built(&scene)?;
    let (text, warnings) = crate::check::describe(&scene);
    print!("{text}");
    for w in &warnings {
        println!("warning: {w}");
    }
    // Valid, yet not silently "ok" when something above is rarely meant.
    match warnings.len() {
        0 => println!("ok: {} is valid", args.scene.display()),
        1 => println!(
            "ok: {} is valid, with the warning above",
            args.scene.display()
        ),
        n => println!(
            "ok: {} is valid, with the {n} warnings above",
            args.scene.display()
        ),
    }
    Ok(())
}

/// `yee geometry`: the scene's planes drawn before anything runs.
fn geometry_command(args: GeometryArgs) -> Result<(), AppError> {
    let mut scene = yee_scene::load(&args.scene)?;
    yee_simulation::mode_sources::expand_mode_sources(&mut scene)?;
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from("out").join(&scene.name));
    let planes =
        crate::geometry_preview::planes_of(&scene, args.axis.map(AxisArg::axis), args.position)?;
    std::fs::create_dir_all(&out).map_err(|e| {
        crate::error::io_error(&out, format!("cannot create the output directory: {e}"))
    })?;
    for plane in &planes {
        let path = crate::geometry_preview::write_preview(&scene, plane, &out)?;
        println!("{}", path.display());
    }
    print!("{}", crate::geometry_preview::legend(&scene));
    Ok(())
}

/// `yee balance`: the boxes a static balance gives each rank, and their imbalance.
fn balance_command(args: BalanceArgs) -> Result<(), AppError> {
    let scene = yee_scene::load(&args.scene)?;
    let topology = resolve_topology(&args.ranks, None, scene.grid, scene.mode.dims())?;
    if args.memory && args.density.is_some() {
        return Err(AppError::Usage(
            "--density weighs time; --memory balances memory per slice".into(),
        ));
    }
    let options = BalanceOptions {
        mode: BalanceMode::Static,
        profile: args.profile,
        speeds: args.speeds.as_deref().map(parse_speeds).transpose()?,
        by_memory: args.memory,
        density: args.density.unwrap_or_default(),
        layout: args.layout,
        ..BalanceOptions::default()
    };
    let setup = scene.setup();
    let boxes = if args.layout == LayoutKind::Tensor {
        let plan = make_plan(
            &setup,
            &scene.costs,
            scene.value_type.bytes(),
            topology,
            &options,
        )?;
        plan_boxes(&plan)
    } else {
        box_layout(&setup, &scene.costs, topology, &options)?
    };
    // The work of each box against its share, for time (a profile's speeds are
    // measured, so the report leaves them out).
    let imbalance = (!args.memory && options.profile.is_none()).then(|| {
        yee_runtime::balance::load_imbalance_of(
            &setup,
            &scene.costs,
            &boxes,
            options.speeds.as_deref(),
        )
    });
    print!(
        "{}",
        yee_runtime::balance::boxes_report(&boxes, args.json, imbalance)
    );
    Ok(())
}

/// `yee bench`: the benchmark table (or JSON).
#[cfg(feature = "rayon")]
fn bench_command(args: BenchArgs) -> Result<(), AppError> {
    if args.threads.contains(&0) {
        return Err(AppError::Usage(
            "--threads: a thread count must be at least 1".into(),
        ));
    }
    if args.rounds == 0 {
        return Err(AppError::Usage("--rounds: must be at least 1".into()));
    }
    let all = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut threads = args.threads.clone();
    if threads.is_empty() {
        threads = vec![1, all];
        threads.dedup();
    }
    let plan = crate::bench::Plan {
        quick: args.quick,
        scenes: args.scenes,
        only: args.only.as_deref(),
        separate: args.separate,
        whole_phases: args.whole_phases,
        scanned_runs: args.scanned_runs,
        threads: &threads,
        scalar: !args.no_scalar,
        rounds: args.rounds,
        time_block: TimeBlock::parse(&args.time_block).map_err(AppError::Usage)?,
        cache_bytes: match cache_request(args.cache_bytes.as_deref())? {
            Some(yee_simulation::CacheRequest::Measure) => {
                yee_rayon::cache_probe::measured().tile_cache_bytes()
            }
            Some(yee_simulation::CacheRequest::Bytes(bytes)) => Some(bytes),
            None => None,
        },
    };
    let rows = match args.backend {
        None | Some(Backend::Rayon) => crate::bench::run(&plan),
        Some(Backend::Scalar) => {
            return Err(AppError::Usage(
                "--backend scalar: the scalar backend's rows come with the rayon table (at \
                 100³; --no-scalar leaves them out); bench --backend takes rayon, cuda or \
                 cuda-emulated"
                    .into(),
            ));
        }
        Some(device @ (Backend::Cuda | Backend::CudaEmulated)) => device_bench(&plan, device)?,
    };
    if args.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&rows).expect("serialises")
        );
    } else {
        print!("{}", crate::bench::table(&rows));
    }
    Ok(())
}

/// `yee bench --backend cuda|cuda-emulated`: the device chunk's rows
/// ([`crate::bench_device`]), or what the build lacks.
#[cfg(feature = "rayon")]
fn device_bench(
    plan: &crate::bench::Plan,
    device: Backend,
) -> Result<Vec<crate::bench::BenchRow>, AppError> {
    #[cfg(feature = "cuda")]
    {
        use yee_cuda::device::{Cudarc, Emulated};
        let emulated = device == Backend::CudaEmulated;
        let len = crate::bench_device::triad_len(emulated);
        let rows = match emulated {
            true => crate::bench_device::run::<Emulated>(plan, len),
            false if !yee_cuda::device::driver_present() => {
                Err(yee_cuda::device::CudaError::no_driver())
            }
            false => crate::bench_device::run::<Cudarc>(plan, len),
        };
        rows.map_err(|e| AppError::Usage(format!("--backend {}: {e}", device.name())))
    }
    #[cfg(not(feature = "cuda"))]
    {
        let _ = (plan, device);
        Err(AppError::Usage(yee_simulation::error::CUDA_MISSING.into()))
    }
}

/// `yee mpi-calibrate`: the machine model measured under mpirun.
#[cfg(feature = "mpi")]
fn calibrate_command(args: MpiCalibrateArgs) -> Result<(), AppError> {
    let _universe = yee_runtime::mpi::initialize()?;
    let parts = parse_extents("--grid", &args.grid)?;
    let grid = std::array::from_fn(|a| parts.get(a).copied().unwrap_or(1));
    if ![4, 8].contains(&args.nbyte) {
        return Err(AppError::Usage(format!(
            "--nbyte {}: expected 4 (f32) or 8 (f64)",
            args.nbyte
        )));
    }
    let thp = args.mcells_per_s * 1e6;
    let result =
        crate::calibrate::calibrate(grid, parts.len(), args.nbyte, thp, args.repeats.max(1))?;
    if let Some(c) = result {
        if args.json {
            println!("{}", serde_json::to_string_pretty(&c).expect("serialises"));
        } else {
            print!("{}", crate::calibrate::report(&c));
        }
    }
    Ok(())
}

/// `yee topology`: the candidate topologies of a grid.
fn topology_command(args: TopologyArgs) -> Result<(), AppError> {
    let parts = parse_extents("--grid", &args.grid)?;
    print!(
        "{}",
        crate::topology::report(&parts, args.ranks, args.json)?
    );
    Ok(())
}

/// `yee partition`: the area, the tile, then one report or the speedup table.
fn partition_command(args: &PartitionArgs) -> Result<(), AppError> {
    use crate::partition::{report, speedup_markdown, speedups, table};
    use yee_runtime::tiled::{Area, tile_graph};
    let (area, scene_tile) = match (&args.scene, &args.shape) {
        (Some(_), Some(_)) => {
            return Err(AppError::Usage("give a scene or --shape, not both".into()));
        }
        (None, None) => {
            return Err(AppError::Usage(
                "give a scene file or --shape l-shape|annulus|porous|comb".into(),
            ));
        }
        (Some(path), None) => {
            let scene = yee_scene::load(path)?;
            let active = scene
                .active
                .clone()
                .unwrap_or_else(|| vec![true; scene.cells()]);
            let area = Area {
                name: scene.name.clone(),
                grid: scene.grid,
                active,
            };
            (area, scene.tile)
        }
        (None, Some(name)) => {
            let shape = yee_scene::shapes::by_name(name).ok_or_else(|| {
                AppError::Usage(format!(
                    "--shape {name}: unknown (known: {})",
                    yee_scene::shapes::NAMES.join(", ")
                ))
            })?;
            let area = Area {
                name: shape.name.into(),
                grid: shape.grid(),
                active: shape.active,
            };
            (
                area,
                [
                    yee_scene::mask::DEFAULT_TILE,
                    yee_scene::mask::DEFAULT_TILE,
                    1,
                ],
            )
        }
    };
    let tile = match &args.tile {
        None => scene_tile,
        Some(text) => {
            let t = parse_extents("--tile", text)?;
            std::array::from_fn(|a| t.get(a).copied().unwrap_or(1))
        }
    };
    let graph = tile_graph(&area, tile)?;
    let method = args.method.method();
    if args.speedup {
        let t = speedups(&area, &graph, method)?;
        if args.json {
            println!("{}", serde_json::to_string_pretty(&t).expect("serialises"));
        } else {
            print!("{}", speedup_markdown(&t));
        }
        return Ok(());
    }
    let weights = crate::partition::weights(args.weights.as_deref(), args.ranks)?;
    let (mut r, part) = report(&area, &graph, &weights, method)?;
    let png = args.png.clone().unwrap_or_else(|| {
        PathBuf::from("out").join(&area.name).join(format!(
            "partition_{}_{}.png",
            method.name(),
            args.ranks
        ))
    });
    if let Some(dir) = png.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| crate::error::io_error(dir, e))?;
    }
    crate::partition::write_png(&png, &area, &graph, &part)?;
    r.png = Some(png);
    if args.json {
        println!("{}", serde_json::to_string_pretty(&r).expect("serialises"));
    } else {
        print!("{}", table(&r));
    }
    Ok(())
}
