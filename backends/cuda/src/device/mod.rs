//! The device side of the CUDA backend (feature `cuda`): NVRTC compilation of the kernel
//! files ([`nvrtc`]), the device chunk ([`chunk`]) with its pinned staging buffers
//! ([`buffer`]), and the backend the Yee apps build it through ([`CudaBackend`]). cudarc loads
//! libcuda and libnvrtc at run time; without them every entry point returns an error (never a
//! panic): [`driver_present`] is checked before the driver is touched.

pub mod buffer;
pub mod chunk;
pub mod error;
pub mod nvrtc;

use yee_core::{Box3, Real};
use yee_em::{Costs, Setup, YeeBackend};

pub use buffer::PinnedBuffer;
pub use chunk::CudaChunk;
pub use error::{CudaError, NO_DRIVER};

use crate::host::KernelReal;
use crate::kernels::Precision;

/// Whether libcuda (the driver) can be loaded. Nothing in it is called: on a machine without
/// the driver cudarc would panic at the first call, so every path checks this first.
pub fn driver_present() -> bool {
    // SAFETY: only tries to open the library by its names.
    unsafe { cudarc::driver::sys::is_culib_present() }
}

/// A value type the device chunk runs (`f32`, `f64`).
pub trait DeviceReal:
    Real + KernelReal + cudarc::driver::DeviceRepr + cudarc::driver::ValidAsZeroBits + Unpin
{
    /// Its kernels' type.
    const PRECISION: Precision;
}

impl DeviceReal for f32 {
    const PRECISION: Precision = Precision::F32;
}

impl DeviceReal for f64 {
    const PRECISION: Precision = Precision::F64;
}

/// The device rank `rank` runs on among `devices` visible ones (round-robin, so ranks sharing
/// a node spread over its GPUs; `CUDA_VISIBLE_DEVICES` decides what is visible), or `None`
/// when there is none.
pub fn device_for_rank(rank: usize, devices: usize) -> Option<usize> {
    (devices > 0).then(|| rank % devices)
}

/// The CUDA backend of the Yee apps: each rank builds a [`CudaChunk`] on the device
/// [`device_for_rank`] gives it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CudaBackend {
    /// The rank building the chunk (set by [`YeeBackend::for_rank`]).
    pub rank: usize,
}

impl<T: DeviceReal> YeeBackend<T> for CudaBackend {
    type Chunk<'s> = CudaChunk<T>;

    fn name(&self) -> &'static str {
        "cuda"
    }

    fn build<'s>(
        &self,
        setup: &Setup<'s>,
        owned: Box3,
        costs: Costs,
    ) -> Result<CudaChunk<T>, CudaError> {
        CudaChunk::new(setup, owned, costs, self.rank)
    }

    fn for_rank(&self, rank: usize, ranks: usize) -> Self {
        let _ = ranks;
        CudaBackend { rank }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_go_round_robin_over_the_visible_devices() {
        assert_eq!(device_for_rank(0, 0), None);
        let devices: Vec<_> = (0..5).map(|r| device_for_rank(r, 2)).collect();
        assert_eq!(devices, [Some(0), Some(1), Some(0), Some(1), Some(0)]);
        assert_eq!(device_for_rank(3, 1), Some(0));
    }

    /// Without the driver (this machine, CI) building a chunk is an error naming it, never a
    /// panic; with one, this test says it did not check.
    #[test]
    fn without_a_driver_building_a_chunk_says_so() {
        if driver_present() {
            eprintln!("NOT CHECKED: libcuda is present here; this test checks the driverless path");
            return;
        }
        let setup = Setup::vacuum(
            yee_em::Mode::Tmz,
            [8, 8, 1],
            0.5,
            [[yee_em::Boundary::Pec; 2]; 3],
        );
        let owned = Box3::from_extent(setup.grid);
        let built = <CudaBackend as YeeBackend<f32>>::build(
            &CudaBackend::default(),
            &setup,
            owned,
            Costs::default(),
        );
        let e = built.expect_err("no driver here");
        assert_eq!(e.message, NO_DRIVER);
        assert_eq!(
            yee_core::ChunkError::kind(&e),
            yee_core::ChunkErrorKind::Device
        );
    }
}
