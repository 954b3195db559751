//! The rayon backend's executor and its place in the Yee backend seam.

use std::sync::Arc;

use rayon::prelude::*;
use yee_core::{Box3, Scalar};
use yee_scalar::chunk::CurlExecutor;
use yee_scalar::dft::DftRow;
use yee_scalar::dispersive::{NodeRun, Pass};
use yee_scalar::part_executor::PartExecutor;
use yee_scalar::state::YeeState;

use crate::curl::{ROW_BATCH_CELLS, curl_phase};
use crate::scratch::{Scratch, recycle};
use crate::time_block::{min_share_cells, os_or_default_cache_bytes, phase_components, tile_for};
use yee_scalar::time_tile::{TimeBlock, TimeTile};

/// The last-level cache the OS reports, else the default ([`os_or_default_cache_bytes`]).
fn llc_bytes() -> usize {
    os_or_default_cache_bytes().0
}

/// Monitor sums a phase must touch before their rows are added in parallel: below this the
/// tasks would cost more than they save.
const DFT_PARALLEL_VALUES: usize = 2048;

/// Rows per rayon task when adding monitor sums (a plane normal to x has one node a row).
const DFT_ROWS_PER_TASK: usize = 16;

/// Dispersive nodes a pass must touch before its runs are taken in parallel.
const DISPERSIVE_PARALLEL_NODES: usize = 2048;

/// Runs per rayon task in a dispersive pass.
const DISPERSIVE_RUNS_PER_TASK: usize = 8;

/// The rayon curl executor: on a given pool, or on rayon's global pool.
#[derive(Clone, Debug)]
pub struct RayonCurl {
    pool: Option<Arc<rayon::ThreadPool>>,
    passes: ComponentPasses,
    batch_cells: Option<usize>,
    split_among: Option<usize>,
    step_slabs: bool,
    /// Several steps per wavefront tile, or one at a time ([`RayonCurl::with_time_block`]).
    time_block: TimeBlock,
    /// The last-level cache the tiles are sized for.
    llc_bytes: usize,
    /// The phases' lists, kept for the next phase (a clone starts with none).
    scratch: Scratch,
}

/// How the components of one phase are swept. Every choice gives the same bits.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ComponentPasses {
    /// Together where the arrays outgrow the cache (at least 8 MiB each), else apart.
    #[default]
    Auto,
    /// All of a phase's components batch of rows by batch of rows: each source is read from
    /// memory once.
    Together,
    /// One pass over the chunk per component.
    Apart,
}

impl Default for RayonCurl {
    fn default() -> Self {
        RayonCurl::global()
    }
}

impl RayonCurl {
    /// On rayon's global pool.
    pub fn global() -> Self {
        RayonCurl {
            pool: None,
            passes: ComponentPasses::Auto,
            batch_cells: None,
            split_among: None,
            step_slabs: true,
            time_block: TimeBlock::Off,
            llc_bytes: llc_bytes(),
            scratch: Scratch::default(),
        }
    }

    /// On a pool of `threads` threads.
    pub fn with_threads(threads: usize) -> Result<Self, rayon::ThreadPoolBuildError> {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads.max(1))
            .build()?;
        Ok(RayonCurl {
            pool: Some(Arc::new(pool)),
            passes: ComponentPasses::Auto,
            batch_cells: None,
            split_among: None,
            step_slabs: true,
            time_block: TimeBlock::Off,
            llc_bytes: llc_bytes(),
            scratch: Scratch::default(),
        })
    }

    /// For a run of `ranks` ranks in this process (threads, not MPI processes): each rank
    /// gets a pool of its own with its share of the cores ([`RayonCurl::share`]), so the ranks'
    /// threads neither contend for one pool nor cross to another rank's arrays.
    pub fn split_among(mut self, ranks: usize) -> Self {
        self.split_among = (ranks > 1).then_some(ranks);
        self
    }

    /// The threads of rank `rank` when `cores` are shared among `ranks`: `cores / ranks`, one
    /// more for the first `cores % ranks` ranks, at least one.
    pub fn share(rank: usize, ranks: usize, cores: usize) -> usize {
        let ranks = ranks.max(1);
        (cores / ranks + usize::from(rank < cores % ranks)).max(1)
    }

    /// Sweeps a phase's components as `passes` says (the same bits; for measuring and testing).
    pub fn with_passes(mut self, passes: ComponentPasses) -> Self {
        self.passes = passes;
        self
    }

    /// Sweeps a whole step slab by slab (`true`, the default: see
    /// [`CurlExecutor::step_slab_cells`]) or each phase over the whole chunk (the same bits; for
    /// measuring and testing).
    pub fn with_step_slabs(mut self, slabs: bool) -> Self {
        self.step_slabs = slabs;
        self
    }

    /// Sweeps several steps at once in wavefront tiles ([`yee_scalar::time_tile`]) where the
    /// chunk and its run allow it: `k` steps, `auto` (from the cache, [`crate::time_block`]),
    /// or one step at a time (`off`, the default). The same bits.
    pub fn with_time_block(mut self, block: TimeBlock) -> Self {
        self.time_block = block;
        self
    }

    /// What [`RayonCurl::with_time_block`] asked for.
    pub fn time_block(&self) -> TimeBlock {
        self.time_block
    }

    /// Sizes the tiles for a last-level cache of `bytes` bytes instead of the one the OS
    /// reports (`--cache-bytes`; for measuring and testing).
    pub fn with_cache_bytes(mut self, bytes: usize) -> Self {
        self.llc_bytes = bytes.max(1);
        self
    }

    /// The last-level cache the tiles are sized for.
    pub fn cache_bytes(&self) -> usize {
        self.llc_bytes
    }

    /// Sweeps batches of whole rows of at least `cells` cells (the same bits; for measuring).
    pub fn with_batch_cells(mut self, cells: usize) -> Self {
        self.batch_cells = Some(cells.max(1));
        self
    }
}

/// The most a slab of [`CurlExecutor::step_slab_cells`] may hold in field arrays: it must
/// still be in the last-level cache (32 MiB here, shared) when its E update reads it.
const STEP_SLAB_BYTES: usize = 16 << 20;

/// Elements written per task of [`RayonCurl::first_touch`]: a few pages.
const TOUCH_CELLS: usize = 1 << 14;

impl RayonCurl {
    /// The threads of this executor's pool.
    fn threads(&self) -> usize {
        self.pool
            .as_ref()
            .map_or_else(rayon::current_num_threads, |p| p.current_num_threads())
    }

    /// Runs `work` on this executor's pool, or on rayon's global pool when it has none.
    fn install<R: Send>(&self, work: impl FnOnce() -> R + Send) -> R {
        match &self.pool {
            Some(pool) => pool.install(work),
            None => work(),
        }
    }
}

impl RayonCurl {
    /// Writes every field and ψ value of a new state once, in parallel on this executor's
    /// pool: the pages of the zeroed arrays are faulted in by the threads that step them, and
    /// by a write, so the first step does not copy them from the kernel's shared zero page
    /// (a fault, and a TLB flush on every core, per page). The values stay zero.
    pub(crate) fn first_touch<T: Scalar>(&self, state: &mut YeeState<T>) {
        use rayon::prelude::*;
        let touch = |state: &mut YeeState<T>| {
            let fields = state.fields.iter_mut().flatten().map(|f| f.as_mut_slice());
            let psi = state
                .slabs
                .iter_mut()
                .flat_map(|s| s.psi.iter_mut().flatten().map(|p| &mut p[..]));
            for array in fields.chain(psi) {
                array
                    .par_chunks_mut(TOUCH_CELLS)
                    .for_each(|part| part.fill(T::zero()));
            }
        };
        self.install(|| touch(state));
    }
}

impl PartExecutor for RayonCurl {
    /// The parts at once on this executor's pool (rayon's global pool when it has none).
    fn each_part<E: Send, R: Send>(
        &self,
        items: &mut [E],
        part: usize,
        work: impl Fn(usize, &mut [E]) -> R + Sync + Send,
    ) -> Vec<R> {
        use rayon::prelude::*;
        self.install(|| {
            items
                .par_chunks_mut(part.max(1))
                .enumerate()
                .map(|(i, p)| work(i, p))
                .collect()
        })
    }
}

impl<T: Scalar> CurlExecutor<T> for RayonCurl {
    /// Nothing: [`CurlExecutor::curl`] has applied the CPML corrections of the same region,
    /// batch of rows by batch of rows right after their update (`crate::cpml`).
    fn cpml(&self, _state: &mut YeeState<T>, _electric: bool, _region: Box3) {}

    /// One batch of rows per thread, as long as the slab's arrays stay within
    /// [`STEP_SLAB_BYTES`] (docs/performance.md, "One pass over memory per step").
    fn step_slab_cells(&self, state: &YeeState<T>) -> Option<usize> {
        self.step_slabs.then(|| {
            let arrays = state.fields.iter().flatten().count().max(1);
            let cached = STEP_SLAB_BYTES / (arrays * std::mem::size_of::<T>());
            (self.threads() * self.batch_cells.unwrap_or(ROW_BATCH_CELLS)).min(cached)
        })
    }

    /// The tile [`RayonCurl::with_time_block`] asks for, sized for the cache
    /// ([`crate::time_block::tile_for`]).
    fn time_tile(&self, state: &YeeState<T>) -> Option<TimeTile> {
        tile_for(self.time_block, state, self.llc_bytes, self.threads())
    }

    /// `--time-block` other than `off`.
    fn blocks_time(&self) -> bool {
        self.time_block != TimeBlock::Off
    }

    /// On a thread of the pool: the phase's or step's parallel loops then start from inside
    /// it, with no hand-over from the caller's thread each (on one thread, a 32³ step spent
    /// half its time switching threads; docs/performance.md).
    fn within(&self, work: impl FnOnce() + Send) {
        match &self.pool {
            Some(pool) => pool.install(work),
            None if rayon::current_thread_index().is_some() => work(),
            None => {
                rayon::join(work, || ());
            }
        }
    }

    fn curl(&self, state: &mut YeeState<T>, electric: bool, region: Box3) {
        // A region smaller than a batch per thread (a slab of a step) is shared evenly, in
        // shares of at least `min_share_cells` cells.
        let share = min_share_cells(phase_components(state, electric));
        let even = region.cells().div_ceil(self.threads()).max(share);
        let batch = self.batch_cells.unwrap_or(ROW_BATCH_CELLS).min(even);
        let passes = self.passes;
        self.install(|| curl_phase(state, electric, region, (passes, batch), &self.scratch));
    }

    /// The monitors' rows in parallel: each row's nodes are its own, so any order gives the
    /// oracle's bits.
    fn dft(&self, state: &mut YeeState<T>, electric: bool, region: Box3, step: u64) {
        let mut rows: Vec<DftRow<T>> = self.scratch.take::<DftRow<'static, T>>();
        yee_scalar::dft::for_each_row(state, electric, region, step, |row| rows.push(row));
        let values: usize = rows.iter().map(|r| r.sums.len()).sum();
        if values < DFT_PARALLEL_VALUES {
            rows.drain(..).for_each(DftRow::add);
        } else {
            let add = || {
                rows.par_drain(..)
                    .with_min_len(DFT_ROWS_PER_TASK)
                    .for_each(DftRow::add)
            };
            self.install(add);
        }
        self.scratch.give::<DftRow<'static, T>>(recycle(rows));
    }

    /// Nothing: [`CurlExecutor::curl`] has applied the tensor nodes' off-diagonal terms of the
    /// same region, batch of rows by batch of rows right after their update and CPML
    /// correction (`crate::curl`).
    fn tensor(&self, _state: &mut YeeState<T>, _electric: bool, _region: Box3) {}

    /// The dispersive runs in parallel: each run's nodes and poles are its own, so any order
    /// gives the oracle's bits.
    fn dispersive(&self, state: &mut YeeState<T>, pass: Pass, region: Box3, step: u64) {
        if !pass.has_work(state) {
            return;
        }
        let mut runs: Vec<NodeRun<T>> = self.scratch.take::<NodeRun<'static, T>>();
        yee_scalar::dispersive::for_each_run(state, region, step, |run| runs.push(run));
        let nodes: usize = runs.iter().map(|r| r.field.len()).sum();
        let finite = if nodes < DISPERSIVE_PARALLEL_NODES {
            runs.drain(..).fold(true, |ok, run| ok & run.apply(pass))
        } else {
            let apply = || {
                runs.par_drain(..)
                    .with_min_len(DISPERSIVE_RUNS_PER_TASK)
                    .map(|run| run.apply(pass))
                    .reduce(|| true, |a, b| a & b)
            };
            self.install(apply)
        };
        self.scratch.give::<NodeRun<'static, T>>(recycle(runs));
        state.non_finite |= !finite;
    }
}

impl<T: Scalar> yee_em::YeeBackend<T> for RayonCurl {
    type Chunk<'s> = yee_scalar::YeeChunk<'s, T, RayonCurl>;

    fn name(&self) -> &'static str {
        "rayon"
    }

    /// With [`RayonCurl::split_among`], a pool of the rank's share of the cores (the global
    /// pool if one cannot be built); else this executor.
    fn for_rank(&self, rank: usize, ranks: usize) -> Self {
        let Some(split) = self.split_among else {
            return self.clone();
        };
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let threads = Self::share(rank, split.max(ranks), cores);
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .thread_name(move |i| format!("yee-rank{rank}-{i}"))
            .build();
        match pool {
            Ok(pool) => RayonCurl {
                pool: Some(Arc::new(pool)),
                ..self.clone()
            },
            Err(e) => {
                log::warn!("rank {rank}: no pool of {threads} threads ({e}); on the global pool");
                self.clone()
            }
        }
    }

    fn build<'s>(
        &self,
        setup: &yee_em::Setup<'s>,
        owned: Box3,
        costs: yee_em::Costs,
    ) -> Result<Self::Chunk<'s>, yee_core::HostChunkError> {
        let mut chunk = yee_scalar::YeeChunk::with_kernel(setup, owned, self.clone())
            .with_costs(costs)
            .checked()?;
        self.first_touch(&mut chunk.state);
        Ok(chunk)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cores_are_shared_out_among_the_ranks_with_at_least_one_each() {
        let shares = |ranks, cores| -> Vec<usize> {
            (0..ranks)
                .map(|r| RayonCurl::share(r, ranks, cores))
                .collect()
        };
        assert_eq!(shares(4, 16), [4, 4, 4, 4]);
        assert_eq!(shares(3, 16), [6, 5, 5]);
        assert_eq!(shares(3, 2), [1, 1, 1]);
        assert_eq!(shares(1, 16), [16]);
        assert_eq!(shares(16, 16).iter().sum::<usize>(), 16);
    }
}
