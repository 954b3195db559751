//! What a run is given besides its scene: the backend, ranks and communicator, balancing,
//! checkpoints and the output folder.

use std::path::PathBuf;
use std::sync::Arc;
use yee_scalar::time_tile::TimeBlock;

use yee_comm_shm::Slowdown;
use yee_comm_sim::MachineModel;
use yee_core::Topology;

use crate::error::AppError;
use crate::output_lock::OutputLock;
use yee_runtime::balance::BalanceOptions;
use yee_runtime::parallel::CommKind;

/// Backends this build has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum Backend {
    /// The reference scalar CPU backend.
    Scalar,
    /// Vectorised row kernels over rayon's thread pool (bit-identical to scalar).
    #[cfg(feature = "rayon")]
    Rayon,
    /// The CUDA device chunk (feature `cuda`; without it the run says how to rebuild).
    Cuda,
    /// The CUDA device chunk on the emulated device: the kernel files built for the host, each
    /// stream a worker thread (feature `cuda`; needs no driver). For correctness, not speed.
    CudaEmulated,
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
            Backend::CudaEmulated => "cuda-emulated",
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
    /// it (`--fresh`); without it such a run is refused
    /// ([`crate::output_dir::prepare_output_dir`]).
    pub fresh: bool,
    /// The lock of `out` when the caller took it already
    /// ([`crate::output_dir::prepare_output_dir`] on an MPI job's rank 0, before the start-up
    /// check), kept for the run; `None`: the run takes it.
    pub output_lock: Option<Arc<OutputLock>>,
    /// Temporal blocking (`--time-block`): several steps per wavefront tile on the rayon
    /// backend where the run allows it ([`yee_scalar::time_tile`]); the same bits.
    pub time_block: TimeBlock,
    /// The last-level cache `auto` tiles are sized for (`--cache-bytes`), in bytes; `None`:
    /// the one the OS reports (32 MiB where it says none). On a host shared with other jobs
    /// the OS reports the whole cache, of which a run may get much less.
    pub cache_bytes: Option<usize>,
    /// `--cache-bytes measure`: where `cache_bytes` is `None` and tiles are asked for on the
    /// rayon backend, the cache is measured (`yee_rayon::cache_probe`, once a process)
    /// instead of read from the OS; where the probe finds no knee, the OS's is used.
    pub measure_cache: bool,
}

/// What `--cache-bytes` (Python `cache_bytes`) asks for: a size, or a measurement.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CacheRequest {
    /// This many bytes ([`RunOptions::cache_bytes`]).
    Bytes(usize),
    /// The cache measured ([`RunOptions::measure_cache`]).
    Measure,
}

impl CacheRequest {
    /// `measure`, or a size in bytes or with K, M or G
    /// ([`yee_scalar::time_tile::parse_cache_bytes`]); `None` for anything else.
    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "measure" => Some(CacheRequest::Measure),
            t => yee_scalar::time_tile::parse_cache_bytes(t).map(CacheRequest::Bytes),
        }
    }
}

impl RunOptions {
    /// Takes `request`: sets [`RunOptions::cache_bytes`] or [`RunOptions::measure_cache`].
    pub fn request_cache(&mut self, request: CacheRequest) {
        match request {
            CacheRequest::Bytes(bytes) => self.cache_bytes = Some(bytes),
            CacheRequest::Measure => self.measure_cache = true,
        }
    }
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
    /// One rank on the default backend writing into `out`, quietly: no balancing, the halo
    /// exchange overlapped with the update, no checkpoints but the one a stop writes.
    pub fn new(out: impl Into<PathBuf>) -> Self {
        RunOptions {
            out: out.into(),
            quiet: true,
            backend: Backend::default(),
            rank_backends: Vec::new(),
            topology: Topology([1, 1, 1]),
            comm: CommKind::Shm,
            model: None,
            balance: BalanceOptions::default(),
            overlap: true,
            slowdown: Vec::new(),
            partition: None,
            checkpoint: CheckpointOptions::default(),
            resume: None,
            stop: None,
            movie: false,
            fresh: false,
            output_lock: None,
            time_block: TimeBlock::Off,
            cache_bytes: None,
            measure_cache: false,
        }
    }

    /// The checkpoint folder.
    pub fn checkpoint_dir(&self) -> PathBuf {
        self.checkpoint
            .dir
            .clone()
            .unwrap_or_else(|| self.out.join("checkpoint"))
    }
}

/// `path` as the folder it names, for comparing the options of MPI ranks that may run in
/// different working folders: canonical where it exists, else made absolute (`.` and `..`
/// kept), else as given.
pub fn folder_named(path: &std::path::Path) -> PathBuf {
    std::fs::canonicalize(path)
        .or_else(|_| std::path::absolute(path))
        .unwrap_or_else(|_| path.to_path_buf())
}

/// Each rank's backend, in rank order: `--rank-backends`, else `--backend` for every rank.
pub fn rank_backends(options: &RunOptions) -> Vec<Backend> {
    match options.rank_backends.is_empty() {
        true => vec![options.backend; options.topology.ranks()],
        false => options.rank_backends.clone(),
    }
}

/// The topology of `ranks` ranks over `grid` (of `dims` dimensions) with the smallest share
/// surface (Balykov 2019, eq. 1), or why there is none.
pub fn auto_topology(grid: [usize; 3], dims: usize, ranks: usize) -> Result<Topology, AppError> {
    if ranks == 0 {
        return Err(AppError::Usage(
            "--ranks 0: a run needs at least one rank".into(),
        ));
    }
    let chosen = yee_core::topology::choose_topology(grid, dims, ranks, 1)
        .map_err(|e| AppError::Usage(format!("--ranks {ranks}: {e}")))?;
    Ok(chosen.topology)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spellings_of_one_folder_name_the_same_folder() {
        let here = std::env::current_dir().unwrap();
        let name = here.file_name().unwrap();
        let roundabout = std::path::Path::new("..").join(name);
        assert_eq!(
            folder_named(std::path::Path::new(".")),
            folder_named(&roundabout)
        );
        // A folder not made yet is made absolute from the working folder.
        let missing = std::path::Path::new("no-such-folder-yet/ck");
        assert_eq!(folder_named(missing), here.join(missing));
    }

    #[test]
    fn a_cache_request_is_measure_or_a_size() {
        assert_eq!(CacheRequest::parse("measure"), Some(CacheRequest::Measure));
        assert_eq!(
            CacheRequest::parse("16M"),
            Some(CacheRequest::Bytes(16 << 20))
        );
        for bad in ["Measure", "0", "12X", ""] {
            assert_eq!(CacheRequest::parse(bad), None, "{bad:?}");
        }
        let mut options = RunOptions::new("unused");
        options.request_cache(CacheRequest::Measure);
        assert!(options.measure_cache && options.cache_bytes.is_none());
        options.request_cache(CacheRequest::Bytes(1 << 20));
        assert_eq!(options.cache_bytes, Some(1 << 20));
    }
}
