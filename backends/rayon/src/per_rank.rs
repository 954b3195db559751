//! Heterogeneous runs on the host: each rank of one run on its own backend, the scalar oracle's
//! loops or the rayon kernels (issue 17, build item 4; the "GPU node beside CPU nodes" of
//! Balykov 2019, §3, with host backends standing in for the device).
//!
//! Both backends step the same [`YeeChunk`], so the ranks share one chunk type, one halo
//! layout and one slab wire format ([`yee_core::Chunk::pack_slabs`]): cells migrate between a
//! scalar rank and a rayon rank like between two ranks of one backend, and the fields are the
//! one chunk's, bit for bit (each executor gives the oracle's bits).

use std::sync::Arc;

use yee_core::{Box3, HostChunkError, Scalar};
use yee_em::{Costs, Setup, YeeBackend};
use yee_scalar::YeeChunk;
use yee_scalar::chunk::{CurlExecutor, ScalarCurl};
use yee_scalar::dispersive::Pass;
use yee_scalar::part_executor::PartExecutor;
use yee_scalar::state::YeeState;
use yee_scalar::time_tile::TimeTile;

use crate::RayonCurl;

/// One rank's host executor.
#[derive(Clone, Debug)]
pub enum HostKernel {
    /// The scalar oracle's plain loops.
    Scalar(ScalarCurl),
    /// The rayon backend's row kernels.
    Rayon(RayonCurl),
}

impl HostKernel {
    /// The backend's name ("scalar", "rayon"), as `--backend` takes it.
    pub fn name(&self) -> &'static str {
        match self {
            HostKernel::Scalar(_) => "scalar",
            HostKernel::Rayon(_) => "rayon",
        }
    }
}

impl PartExecutor for HostKernel {
    fn each_part<E: Send, R: Send>(
        &self,
        items: &mut [E],
        part: usize,
        work: impl Fn(usize, &mut [E]) -> R + Sync + Send,
    ) -> Vec<R> {
        match self {
            HostKernel::Scalar(k) => k.each_part(items, part, work),
            HostKernel::Rayon(k) => k.each_part(items, part, work),
        }
    }
}

impl<T: Scalar> CurlExecutor<T> for HostKernel {
    fn curl(&self, state: &mut YeeState<T>, electric: bool, region: Box3) {
        match self {
            HostKernel::Scalar(k) => k.curl(state, electric, region),
            HostKernel::Rayon(k) => k.curl(state, electric, region),
        }
    }

    fn cpml(&self, state: &mut YeeState<T>, electric: bool, region: Box3) {
        match self {
            HostKernel::Scalar(k) => CurlExecutor::<T>::cpml(k, state, electric, region),
            HostKernel::Rayon(k) => CurlExecutor::<T>::cpml(k, state, electric, region),
        }
    }

    fn tensor(&self, state: &mut YeeState<T>, electric: bool, region: Box3) {
        match self {
            HostKernel::Scalar(k) => CurlExecutor::<T>::tensor(k, state, electric, region),
            HostKernel::Rayon(k) => CurlExecutor::<T>::tensor(k, state, electric, region),
        }
    }

    fn dft(&self, state: &mut YeeState<T>, electric: bool, region: Box3, step: u64) {
        match self {
            HostKernel::Scalar(k) => k.dft(state, electric, region, step),
            HostKernel::Rayon(k) => k.dft(state, electric, region, step),
        }
    }

    fn dispersive(&self, state: &mut YeeState<T>, pass: Pass, region: Box3, step: u64) {
        match self {
            HostKernel::Scalar(k) => k.dispersive(state, pass, region, step),
            HostKernel::Rayon(k) => k.dispersive(state, pass, region, step),
        }
    }

    fn step_slab_cells(&self, state: &YeeState<T>) -> Option<usize> {
        match self {
            HostKernel::Scalar(k) => k.step_slab_cells(state),
            HostKernel::Rayon(k) => k.step_slab_cells(state),
        }
    }

    fn time_tile(&self, state: &YeeState<T>) -> Option<TimeTile> {
        match self {
            HostKernel::Scalar(k) => k.time_tile(state),
            HostKernel::Rayon(k) => k.time_tile(state),
        }
    }

    fn blocks_time(&self) -> bool {
        match self {
            HostKernel::Scalar(k) => CurlExecutor::<T>::blocks_time(k),
            HostKernel::Rayon(k) => CurlExecutor::<T>::blocks_time(k),
        }
    }

    fn within(&self, work: impl FnOnce() + Send) {
        match self {
            HostKernel::Scalar(k) => CurlExecutor::<T>::within(k, work),
            HostKernel::Rayon(k) => CurlExecutor::<T>::within(k, work),
        }
    }
}

/// A run whose rank `r` steps on `kernels[r]`: the backend every rank is handed, which
/// [`YeeBackend::for_rank`] narrows to the rank's own.
#[derive(Clone, Debug)]
pub struct PerRank {
    kernels: Arc<[HostKernel]>,
    /// The rank this backend was narrowed to ([`YeeBackend::for_rank`]); `None` before.
    rank: Option<usize>,
}

impl PerRank {
    /// Rank `r` on `kernels[r]`; a rayon kernel is narrowed again by its own
    /// [`YeeBackend::for_rank`] (its share of the cores). `None` for an empty list.
    pub fn new(kernels: Vec<HostKernel>) -> Option<Self> {
        (!kernels.is_empty()).then(|| PerRank {
            kernels: kernels.into(),
            rank: None,
        })
    }

    /// Every rank on `kernel`: the plain `--backend scalar` or `--backend rayon` run. The run
    /// path is then compiled for this one host backend type rather than once per executor
    /// (a third of the test build's time went to compiling it three times, docs/testing.md);
    /// each rank still runs `kernel`'s own loops, so the bits are the executor's.
    pub fn every_rank(kernel: HostKernel) -> Self {
        PerRank {
            kernels: Arc::from([kernel]),
            rank: None,
        }
    }

    /// Each rank's kernel, in rank order.
    pub fn kernels(&self) -> &[HostKernel] {
        &self.kernels
    }

    /// The kernel of the rank this backend was narrowed to (rank 0 before).
    fn chosen(&self) -> &HostKernel {
        let rank = self.rank.unwrap_or(0).min(self.kernels.len() - 1);
        &self.kernels[rank]
    }
}

impl<T: Scalar> YeeBackend<T> for PerRank {
    type Chunk<'s> = YeeChunk<'s, T, HostKernel>;

    fn name(&self) -> &'static str {
        match self.rank {
            Some(_) => self.chosen().name(),
            None => "per-rank",
        }
    }

    /// This backend narrowed to rank `rank`'s kernel (a rayon kernel with its share of the
    /// cores). A rank beyond the list runs on the last entry ([`PerRank::every_rank`]'s one
    /// entry serves every rank; for a longer list the launcher checks the count).
    fn for_rank(&self, rank: usize, ranks: usize) -> Self {
        let mut kernels = self.kernels.to_vec();
        let at = rank.min(kernels.len() - 1);
        if let HostKernel::Rayon(k) = &kernels[at] {
            kernels[at] = HostKernel::Rayon(YeeBackend::<T>::for_rank(k, rank, ranks));
        }
        PerRank {
            kernels: kernels.into(),
            rank: Some(rank),
        }
    }

    fn build<'s>(
        &self,
        setup: &Setup<'s>,
        owned: Box3,
        costs: Costs,
    ) -> Result<Self::Chunk<'s>, HostChunkError> {
        let kernel = self.chosen().clone();
        let mut chunk = YeeChunk::with_kernel(setup, owned, kernel)
            .with_costs(costs)
            .checked()?;
        if let HostKernel::Rayon(k) = &chunk.kernel {
            k.first_touch(&mut chunk.state);
        }
        Ok(chunk)
    }
}
