//! The backend of a run: each rank's kernel chosen from the options, and the scene's element
//! type chosen at run time, down to one typed [`crate::leg::run_leg`].

use num_complex::Complex;
use yee_em::YeeBackend;
#[cfg(feature = "rayon")]
use yee_runtime::parallel::CommKind;
use yee_scene::Scene;
use yee_scene::spec::ValueType;

use crate::control::Control;
use crate::error::AppError;
use crate::leg::{Ended, run_leg};
use crate::options::{Backend, RunOptions};

/// Runs `scene` with the element type it asks for on the backend `options` choose, driven
/// through `control` when given. Returns what the run left on the process that writes the
/// outputs, `None` on the other processes of an MPI job.
pub fn run_scene(
    scene: &Scene,
    options: &RunOptions,
    control: Option<&Control>,
) -> Result<Option<Ended>, AppError> {
    crate::flux_output::check_minus_files(scene)?;
    crate::mode_sources::check_mode_sources(scene)?;
    crate::modes_output::check_mode_monitors(scene)?;
    crate::hdf5_output::check_built(scene)?;
    if !options.rank_backends.is_empty() {
        return run_per_rank(scene, options, control);
    }
    match options.backend {
        Backend::Scalar => run_on(scene, options, yee_scalar::chunk::ScalarCurl, control),
        #[cfg(feature = "rayon")]
        Backend::Rayon => run_on(scene, options, rayon_kernel(options), control),
        Backend::Cuda => run_cuda(scene, options, control),
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

/// `--rank-backends`: a heterogeneous run, rank `r` on `rank_backends[r]` ([`yee_rayon::PerRank`]:
/// scalar and rayon ranks share one chunk type and its slab wire format, so cells migrate
/// between them). One backend for every rank is the plain run on it.
fn run_per_rank(
    scene: &Scene,
    options: &RunOptions,
    control: Option<&Control>,
) -> Result<Option<Ended>, AppError> {
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
        return run_scene(scene, &same, control);
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
        run_on(scene, options, backend, control)
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
fn run_cuda(
    scene: &Scene,
    options: &RunOptions,
    control: Option<&Control>,
) -> Result<Option<Ended>, AppError> {
    use yee_cuda::device::{CudaBackend, NO_DRIVER, driver_present};
    if !driver_present() {
        return Err(AppError::Run(NO_DRIVER.into()));
    }
    let backend = CudaBackend::default();
    match scene.value_type {
        ValueType::F32 => run_leg::<f32, _>(scene, options, backend, control),
        ValueType::F64 => run_leg::<f64, _>(scene, options, backend, control),
        other => Err(AppError::Usage(format!(
            "--backend cuda runs f32 and f64 scenes; this one has {} values",
            other.name()
        ))),
    }
}

/// `--backend cuda` in a build without the feature: how to rebuild.
#[cfg(not(feature = "cuda"))]
fn run_cuda(
    _scene: &Scene,
    _options: &RunOptions,
    _control: Option<&Control>,
) -> Result<Option<Ended>, AppError> {
    Err(AppError::Usage(crate::error::CUDA_MISSING.into()))
}

fn run_on<K>(
    scene: &Scene,
    options: &RunOptions,
    kernel: K,
    control: Option<&Control>,
) -> Result<Option<Ended>, AppError>
where
    K: YeeBackend<f32> + YeeBackend<f64> + YeeBackend<Complex<f32>> + YeeBackend<Complex<f64>>,
{
    match scene.value_type {
        ValueType::F32 => run_leg::<f32, K>(scene, options, kernel, control),
        ValueType::F64 => run_leg::<f64, K>(scene, options, kernel, control),
        ValueType::C32 => run_leg::<Complex<f32>, K>(scene, options, kernel, control),
        ValueType::C64 => run_leg::<Complex<f64>, K>(scene, options, kernel, control),
    }
}
