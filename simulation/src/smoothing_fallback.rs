//! Where smoothing keeps the diagonal of Kottke's effective tensor alone: on what runs no
//! tensor update (the tile driver), and what run.json says of it.

use yee_scene::Scene;

use crate::options::{Backend, RunOptions};

/// What in `options` runs no tensor update ([`yee_em::Setup::has_tensor_nodes`]): the tile
/// driver (tile sets, jagged or k-d boxes). `None` when the run has it (every backend's chunk
/// does, the device chunk's too, with the off-diagonal loss at a lossy curved surface).
pub(crate) fn without_tensor_update(options: &RunOptions) -> Option<&'static str> {
    if options.partition.is_some() {
        Some("--partition (tile sets)")
    } else if options.balance.layout != yee_runtime::balance::LayoutKind::Tensor {
        Some("a jagged or k-d --layout")
    } else {
        None
    }
}

/// Whether `setup`'s smoothing gives some node off-diagonal entries and no material of it has
/// a full tensor (which the backends without the tensor update refuse by name): smoothing then
/// falls back to the diagonal rule there.
pub(crate) fn smoothing_needs_tensor(setup: &yee_em::Setup) -> bool {
    setup.smooths_off_diagonal() && !setup.has_tensor_materials()
}

/// What run.json's `smoothing_fallback` says: why smoothing kept the diagonal alone where its
/// scene smooths curved surfaces with the full tensor, `None` where it did not fall back.
pub fn smoothing_fallback(scene: &Scene, options: &RunOptions) -> Option<String> {
    let full = yee_em::Setup {
        smoothing_tensor: true,
        ..scene.setup()
    };
    let fell_back = !scene.smoothing_tensor && smoothing_needs_tensor(&full);
    let what = without_tensor_update(options)?;
    fell_back.then(|| format!("diagonal only: {what} runs no tensor update"))
}

/// Whether `backend` runs on a device (the GPU or the emulated one).
pub(crate) fn is_device(backend: Backend) -> bool {
    matches!(backend, Backend::Cuda | Backend::CudaEmulated)
}
