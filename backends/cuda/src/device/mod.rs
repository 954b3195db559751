//! The device side of the CUDA backend (feature `cuda`): NVRTC compilation of the kernel
//! files ([`nvrtc`]), the device chunk ([`chunk`]) with its pinned staging buffers
//! ([`buffer`]) on the driver seam ([`driver`]), its two drivers (the GPU through cudarc,
//! [`cudarc_driver`], and the emulated device, [`emulated`]), the backends the Yee apps
//! build it through ([`CudaBackend`], [`EmulatedBackend`]) and what `yee bench` measures on
//! a device ([`bench`]: its triad and a chunk stepped alone). cudarc loads libcuda and libnvrtc
//! at run time; without them every entry point returns an error (never a panic):
//! [`driver_present`] is checked before the driver is touched.

pub mod bench;
pub mod buffer;
pub mod chunk;
pub mod cudarc_driver;
pub mod driver;
pub mod emulated;
pub mod error;
pub mod mixed;
pub mod nvrtc;

use core::marker::PhantomData;

use num_complex::Complex;
use yee_core::{Box3, Real, Scalar};
use yee_em::{Costs, Setup, YeeBackend};

pub use buffer::{MessageBuffer, PinnedBuffer};
pub use chunk::CudaChunk;
pub use cudarc_driver::Cudarc;
pub use driver::{Arg, ComplexRepr, DeviceValue, Driver};
pub use emulated::Emulated;
pub use error::{CudaError, NO_DRIVER};
pub use mixed::MixedChunk;

use crate::host::KernelReal;
use crate::kernels::Precision;

/// Whether libcuda (the driver) can be loaded. Nothing in it is called: on a machine without
/// the driver cudarc would panic at the first call, so every path checks this first.
pub fn driver_present() -> bool {
    // SAFETY: only tries to open the library by its names.
    unsafe { cudarc::driver::sys::is_culib_present() }
}

/// A field value type the device chunk runs: `f32`, `f64`, or complex (`Complex<f32>`,
/// `Complex<f64>`: Bloch-periodic scenes and band diagrams), its coefficients real
/// ([`Scalar::Real`]).
pub trait DeviceScalar: Scalar<Real: DeviceReal> + DeviceValue {
    /// Its kernels' type.
    const PRECISION: Precision;
}

/// The real type of the coefficients (and of real fields): `f32`, `f64`.
pub trait DeviceReal: Real + KernelReal + DeviceValue {
    /// The value as a kernel argument (`float`, `double`).
    fn arg(self) -> Arg;
}

impl DeviceScalar for f32 {
    const PRECISION: Precision = Precision::F32;
}

impl DeviceScalar for f64 {
    const PRECISION: Precision = Precision::F64;
}

impl DeviceScalar for Complex<f32> {
    const PRECISION: Precision = Precision::C32;
}

impl DeviceScalar for Complex<f64> {
    const PRECISION: Precision = Precision::C64;
}

impl DeviceReal for f32 {
    fn arg(self) -> Arg {
        Arg::Float(self)
    }
}

impl DeviceReal for f64 {
    fn arg(self) -> Arg {
        Arg::Double(self)
    }
}

/// The device rank `rank` runs on among `devices` visible ones (round-robin, so ranks sharing
/// a node spread over its GPUs; `CUDA_VISIBLE_DEVICES` decides what is visible), or `None`
/// when there is none.
pub fn device_for_rank(rank: usize, devices: usize) -> Option<usize> {
    (devices > 0).then(|| rank % devices)
}

/// The device backend of the Yee apps on driver `D`: each rank builds a [`CudaChunk`] on
/// the device [`Driver::open`] gives it.
pub struct DeviceBackend<D> {
    /// The rank building the chunk (set by [`YeeBackend::for_rank`]).
    pub rank: usize,
    driver: PhantomData<fn() -> D>,
}

/// `--backend cuda`: the chunk on a GPU (round-robin over the visible devices).
pub type CudaBackend = DeviceBackend<Cudarc>;

/// `--backend cuda-emulated`: the chunk on the emulated device (host threads).
pub type EmulatedBackend = DeviceBackend<Emulated>;

impl<D> DeviceBackend<D> {
    /// The backend of rank `rank`.
    pub fn new(rank: usize) -> Self {
        DeviceBackend {
            rank,
            driver: PhantomData,
        }
    }
}

impl<D> Default for DeviceBackend<D> {
    fn default() -> Self {
        DeviceBackend::new(0)
    }
}

impl<D> Clone for DeviceBackend<D> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<D> Copy for DeviceBackend<D> {}

impl<D> PartialEq for DeviceBackend<D> {
    fn eq(&self, other: &Self) -> bool {
        self.rank == other.rank
    }
}

impl<D> Eq for DeviceBackend<D> {}

impl<D> core::fmt::Debug for DeviceBackend<D> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("DeviceBackend")
            .field("driver", &core::any::type_name::<D>())
            .field("rank", &self.rank)
            .finish()
    }
}

impl<T: DeviceScalar, D: Driver> YeeBackend<T> for DeviceBackend<D> {
    type Chunk<'s> = CudaChunk<'s, T, D>;

    fn name(&self) -> &'static str {
        D::NAME
    }

    fn build<'s>(
        &self,
        setup: &Setup<'s>,
        owned: Box3,
        costs: Costs,
    ) -> Result<CudaChunk<'s, T, D>, CudaError> {
        CudaChunk::new(setup, owned, costs, self.rank)
    }

    fn for_rank(&self, rank: usize, ranks: usize) -> Self {
        let _ = ranks;
        DeviceBackend::new(rank)
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
