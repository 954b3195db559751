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
use crate::smoothing_fallback::{is_device, smoothing_needs_tensor, without_tensor_update};

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
    let diagonal;
    let setup = scene.setup();
    let scene = match without_tensor_update(options) {
        Some(what) if smoothing_needs_tensor(&setup) => {
            log::warn!(
                "{what} runs no tensor update: smoothing keeps the diagonal of the effective \
                 tensor alone (fields across curved interfaces converge at first order)"
            );
            diagonal = Scene {
                smoothing_tensor: false,
                ..scene.clone()
            };
            &diagonal
        }
        _ => scene,
    };
    if !options.rank_backends.is_empty() {
        return run_per_rank(scene, options, control);
    }
    match options.backend {
        #[cfg(feature = "rayon")]
        Backend::Scalar | Backend::Rayon => {
            let kernel = host_kernel(options.backend, options);
            run_on(
                scene,
                options,
                yee_rayon::PerRank::every_rank(kernel),
                control,
            )
        }
        #[cfg(not(feature = "rayon"))]
        Backend::Scalar => run_on(scene, options, yee_scalar::chunk::ScalarCurl, control),
        Backend::Cuda | Backend::CudaEmulated => run_cuda(scene, options, control),
    }
}

/// The rayon executor of a run: ranks that are threads of this process each take their share
/// of the cores.
#[cfg(feature = "rayon")]
fn rayon_kernel(options: &RunOptions) -> yee_rayon::RayonCurl {
    let mut kernel = yee_rayon::RayonCurl::global().with_time_block(options.time_block);
    if let Some((bytes, ..)) = crate::time_block_report::tile_cache(options) {
        kernel = kernel.with_cache_bytes(bytes as usize);
    }
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
    if list.iter().any(|&b| is_device(b)) {
        return run_mixed(scene, options, control);
    }
    #[cfg(feature = "rayon")]
    {
        let backend = yee_rayon::PerRank::new(host_kernels(options))
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

/// Each rank's host kernel (a device rank's entry is never used: the scalar loops).
#[cfg(feature = "rayon")]
fn host_kernels(options: &RunOptions) -> Vec<yee_rayon::HostKernel> {
    (options.rank_backends.iter())
        .map(|&b| host_kernel(b, options))
        .collect()
}

/// The host kernel of `backend`: the rayon kernels, or the scalar oracle's loops (also for a
/// device, whose host entry is never used). Every host run steps through
/// [`yee_rayon::PerRank`], so the run path is compiled for one host backend type.
#[cfg(feature = "rayon")]
fn host_kernel(backend: Backend, options: &RunOptions) -> yee_rayon::HostKernel {
    use yee_rayon::HostKernel;
    match backend {
        Backend::Rayon => HostKernel::Rayon(rayon_kernel(options)),
        _ => HostKernel::Scalar(yee_scalar::chunk::ScalarCurl),
    }
}

/// `--rank-backends` with device ranks beside host ranks ([`crate::mixed_backend`]): one kind
/// of device per run, every value type.
#[cfg(all(feature = "cuda", feature = "rayon"))]
fn run_mixed(
    scene: &Scene,
    options: &RunOptions,
    control: Option<&Control>,
) -> Result<Option<Ended>, AppError> {
    use crate::mixed_backend::MixedBackend;
    use yee_cuda::device::{Cudarc, Emulated, NO_DRIVER, driver_present};
    let list = &options.rank_backends;
    let device: Vec<bool> = list.iter().map(|&b| is_device(b)).collect();
    let gpu = list.iter().position(|&b| b == Backend::Cuda);
    let emulated = list.iter().position(|&b| b == Backend::CudaEmulated);
    if let (Some(a), Some(b)) = (gpu, emulated) {
        return Err(AppError::Usage(format!(
            "--rank-backends: rank {a} is cuda and rank {b} cuda-emulated; the device ranks \
             of a run are all on the GPU or all emulated"
        )));
    }
    let host = yee_rayon::PerRank::new(host_kernels(options))
        .ok_or_else(|| AppError::Usage("--rank-backends: the list is empty".into()))?;
    if gpu.is_some() {
        if !driver_present() {
            return Err(AppError::Run(NO_DRIVER.into()));
        }
        return run_on(
            scene,
            options,
            MixedBackend::<Cudarc>::new(host, device),
            control,
        );
    }
    run_on(
        scene,
        options,
        MixedBackend::<Emulated>::new(host, device),
        control,
    )
}

/// `--rank-backends` with a device rank in a build without the `cuda` or `rayon` feature.
#[cfg(not(all(feature = "cuda", feature = "rayon")))]
fn run_mixed(
    _scene: &Scene,
    options: &RunOptions,
    _control: Option<&Control>,
) -> Result<Option<Ended>, AppError> {
    let list = &options.rank_backends;
    let rank = list.iter().position(|&b| is_device(b)).unwrap_or(0);
    Err(AppError::Usage(format!(
        "--rank-backends: rank {rank} is {} beside host ranks, which needs a yee built with \
         the `cuda` and `rayon` features: rebuild with `cargo build --release -p yee \
         --features cuda`",
        list[rank].name()
    )))
}

/// `--backend cuda`: each rank on a device (round-robin), every value type (complex fields
/// too: Bloch-periodic scenes). Without the driver the run stops with "no CUDA driver found
/// (libcuda)" before anything is written. `--backend cuda-emulated`: the same chunk on the
/// emulated device (no driver needed).
#[cfg(feature = "cuda")]
fn run_cuda(
    scene: &Scene,
    options: &RunOptions,
    control: Option<&Control>,
) -> Result<Option<Ended>, AppError> {
    use yee_cuda::device::{CudaBackend, EmulatedBackend, NO_DRIVER, driver_present};
    if options.backend == Backend::CudaEmulated {
        return run_on(scene, options, EmulatedBackend::default(), control);
    }
    if !driver_present() {
        return Err(AppError::Run(NO_DRIVER.into()));
    }
    run_on(scene, options, CudaBackend::default(), control)
}

/// `--backend cuda` in a build without the feature: how to rebuild.
#[cfg(not(feature = "cuda"))]
fn run_cuda(
    _scene: &Scene,
    options: &RunOptions,
    _control: Option<&Control>,
) -> Result<Option<Ended>, AppError> {
    // Named as asked: `--backend cuda` or `--backend cuda-emulated`.
    let named = format!("--backend {}", options.backend.name());
    Err(AppError::Usage(crate::error::CUDA_MISSING.replacen(
        "--backend cuda",
        &named,
        1,
    )))
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

#[cfg(all(test, feature = "rayon"))]
mod tests {
    use super::*;

    /// The executor sizes its tiles for the cache run.json reports: given, measured, or the
    /// OS's ([`crate::time_block_report::tile_cache`]).
    #[test]
    fn the_executor_takes_the_cache_the_report_gives() {
        let mut options = RunOptions {
            time_block: yee_scalar::time_tile::TimeBlock::Auto,
            ..RunOptions::new("unused")
        };
        let reported = |o: &RunOptions| crate::time_block_report::tile_cache(o).unwrap();
        let (bytes, from, _) = reported(&options);
        assert!(["os", "default"].contains(&from));
        assert_eq!(rayon_kernel(&options).cache_bytes() as u64, bytes);
        options.cache_bytes = Some(3 << 20);
        assert_eq!(rayon_kernel(&options).cache_bytes(), 3 << 20);
        options.cache_bytes = None;
        options.measure_cache = true;
        let (bytes, from, probe) = reported(&options);
        let probe = probe.expect("a probe where tiles are asked for");
        assert_eq!(
            from == "measured",
            probe.knee_bytes.is_some(),
            "{from} {probe:?}"
        );
        assert_eq!(rayon_kernel(&options).cache_bytes() as u64, bytes);
    }
}
