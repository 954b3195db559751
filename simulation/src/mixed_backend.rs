//! `--rank-backends cuda,rayon,…`: device ranks beside host ranks in one run (Balykov 2019,
//! §3). [`MixedBackend`] is one `YeeBackend` whose [`YeeBackend::for_rank`] narrows it to the
//! rank's own: a device chunk on driver `D` (the GPU or the emulated device), or the host
//! chunk of [`PerRank`] (scalar or rayon). Their chunks are one type
//! ([`MixedChunk`]), with one halo layout and one slab wire format, so balancing moves cells
//! between device and host ranks.

use std::marker::PhantomData;
use std::sync::Arc;

use yee_core::Box3;
use yee_cuda::device::{CudaChunk, CudaError, DeviceScalar, Driver, MixedChunk};
use yee_em::{Costs, Setup, YeeBackend};
use yee_rayon::{HostKernel, PerRank};
use yee_scalar::YeeChunk;

/// Rank `r` on a device when `device[r]`, else on `host` narrowed to `r`.
pub struct MixedBackend<D> {
    host: PerRank,
    device: Arc<[bool]>,
    /// The rank this backend was narrowed to ([`YeeBackend::for_rank`]); `None` before.
    rank: Option<usize>,
    driver: PhantomData<fn() -> D>,
}

impl<D> MixedBackend<D> {
    /// Rank `r` on the device when `device[r]`, else on `host`'s kernel for `r`.
    pub fn new(host: PerRank, device: Vec<bool>) -> Self {
        MixedBackend {
            host,
            device: device.into(),
            rank: None,
            driver: PhantomData,
        }
    }

    /// Whether the rank this backend was narrowed to runs on the device.
    fn on_device(&self) -> bool {
        self.rank.is_some_and(|r| self.device.get(r) == Some(&true))
    }
}

impl<D> Clone for MixedBackend<D> {
    fn clone(&self) -> Self {
        MixedBackend {
            host: self.host.clone(),
            device: self.device.clone(),
            rank: self.rank,
            driver: PhantomData,
        }
    }
}

impl<D> core::fmt::Debug for MixedBackend<D> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("MixedBackend")
            .field("host", &self.host)
            .field("device", &self.device)
            .field("rank", &self.rank)
            .field("driver", &core::any::type_name::<D>())
            .finish()
    }
}

impl<T: DeviceScalar, D: Driver> YeeBackend<T> for MixedBackend<D> {
    type Chunk<'s> = MixedChunk<'s, T, YeeChunk<'s, T, HostKernel>, D>;

    fn name(&self) -> &'static str {
        match (self.rank, self.on_device()) {
            (None, _) => "per-rank",
            (Some(_), true) => D::NAME,
            (Some(_), false) => YeeBackend::<T>::name(&self.host),
        }
    }

    fn for_rank(&self, rank: usize, ranks: usize) -> Self {
        MixedBackend {
            host: YeeBackend::<T>::for_rank(&self.host, rank, ranks),
            device: self.device.clone(),
            rank: Some(rank),
            driver: PhantomData,
        }
    }

    fn build<'s>(
        &self,
        setup: &Setup<'s>,
        owned: Box3,
        costs: Costs,
    ) -> Result<Self::Chunk<'s>, CudaError> {
        match self.on_device() {
            true => {
                let rank = self.rank.unwrap_or(0);
                let chunk = CudaChunk::new(setup, owned, costs, rank)?;
                Ok(MixedChunk::Device(Box::new(chunk)))
            }
            false => Ok(MixedChunk::Host(YeeBackend::<T>::build(
                &self.host, setup, owned, costs,
            )?)),
        }
    }
}
