//! Dynamic balancing of tile sets (issue 22, build item 2; needs the `alloc` feature): the
//! irregular-area runs of `yee run --partition`, rebalanced from measured speeds.
//!
//! Every `T_perf` steps the ranks all-gather their interval's work and times
//! ([`crate::measurements`], as a box layout does); every rank feeds the same numbers to the
//! same [`TileBalancer`], so all decide the same:
//!
//! 1. performance as Q/P sums per rank (Balykov 2019, eqs. (4)–(5));
//! 2. the step time of a tile map predicted as the slowest rank's work (the sum of its tiles'
//!    work) over its performance plus its halo transfer time per step (eqs. (1), (12), a rank's
//!    tiles in place of a line's share);
//! 3. the candidate map is the partition of the tile graph recomputed with the measured speeds
//!    as the parts' weights (RCDC, Smyk & Tudruj 2011; the same method the run started with);
//! 4. it is taken when its predicted step beats the current map's by more than ε and the time
//!    it saves over the remaining steps exceeds the predicted migration (the most cells one
//!    rank sends and receives, at the bytes per cell and seconds per byte measured).
//!
//! No rank is disabled: a tile map gives every rank at least one tile. [`rebalance_tiles`]
//! runs one decision on a rank and migrates the tiles whose owner changes
//! ([`migrate_regions`]).

use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

use crate::balance::{BalanceParams, rank_perf};
use crate::chunk::Chunk;
use crate::comm::Comm;
use crate::driver::{StepError, StepErrorOf, StepRecord, migrate_regions};
use crate::geometry::Box3;
use crate::graph::{Method, TileGraph, partition};
use crate::measurements::{GATHER_LEN, Measurements, interval_summary};
use crate::tile_driver::TileDriver;
use crate::tile_map::TileMap;

/// What one rebalance of a tile set decided.
#[derive(Clone, Debug, PartialEq)]
pub struct TileDecision {
    /// Each tile's owner from now on (the current map when nothing pays).
    pub map: TileMap,
    /// Whether tiles move.
    pub migrate: bool,
    /// Predicted step time of the map taken.
    pub predicted_seconds: f64,
    /// Measured step time of the interval before it.
    pub measured_seconds: f64,
    /// Predicted migration time (0 when kept).
    pub migration_seconds: f64,
    /// `rebalance` (with the tiles moved) or `keep`.
    pub action: String,
}

/// Balykov's dynamic balancer over a tile set: the current map and what the ranks measured.
#[derive(Clone, Debug)]
pub struct TileBalancer {
    method: Method,
    params: BalanceParams,
    map: TileMap,
    /// What the ranks measured.
    pub measured: Measurements,
}

impl TileBalancer {
    /// A balancer starting from `map` (made by `method`), tuned by `params` (`every`,
    /// `epsilon`).
    pub fn new(method: Method, params: BalanceParams, map: TileMap) -> Self {
        TileBalancer {
            method,
            params,
            measured: Measurements::new(map.ranks),
            map,
        }
    }

    /// The parameters.
    pub fn params(&self) -> BalanceParams {
        self.params
    }

    /// The current map.
    pub fn map(&self) -> &TileMap {
        &self.map
    }

    /// This balancer carrying on from a saved state (a checkpoint): each tile's `owner` and
    /// what was `measured`. `None` when the state is of another number of ranks or tiles, or
    /// gives an inactive tile an owner, an active one none, or a rank no tile.
    pub fn with_state(mut self, owner: Vec<Option<usize>>, measured: Measurements) -> Option<Self> {
        let ranks = self.map.ranks;
        let same_tiles = owner.len() == self.map.owner.len()
            && (owner.iter().zip(&self.map.owner)).all(|(a, b)| a.is_some() == b.is_some());
        let every_rank = (0..ranks).all(|r| owner.contains(&Some(r)));
        let fits = same_tiles
            && every_rank
            && owner.iter().flatten().all(|&r| r < ranks)
            && measured.perf.len() == ranks
            && measured.share.len() == ranks;
        if !fits {
            return None;
        }
        self.map.owner = owner;
        self.measured = measured;
        Some(self)
    }

    /// The predicted time of one step of `map` at performance `perf`, each tile costing
    /// `tile_work[t]`.
    fn predict(&self, map: &TileMap, perf: &[f64], tile_work: &[f64]) -> f64 {
        let mut work = vec![0.0; map.ranks];
        for (t, owner) in map.owner.iter().enumerate() {
            if let Some(r) = owner {
                work[*r] += tile_work[t];
            }
        }
        work.iter()
            .zip(perf)
            .zip(&self.measured.share)
            .map(|((w, p), s)| w / p + s)
            .fold(0.0, f64::max)
    }

    /// Decides the next map of `graph`'s tiles (each tile costing `tile_work[t]`, by linear
    /// tile index) from everything recorded so far; `remaining` steps are left, `measured` is
    /// the last interval's step time.
    pub fn decide(
        &mut self,
        graph: &TileGraph,
        tile_work: &[f64],
        remaining: u64,
        measured: f64,
    ) -> TileDecision {
        let perf = rank_perf(&self.measured.perf);
        let current = self.predict(&self.map, &perf, tile_work);
        let mut part = vec![0; graph.len()];
        let next = partition(&graph.graph, &perf, self.method, &mut part)
            .ok()
            .and_then(|()| TileMap::new(graph, &part, self.map.ranks).ok());
        let Some(next) = next.filter(|n| n.owner != self.map.owner) else {
            return self.keep(current, measured);
        };
        let predicted = self.predict(&next, &perf, tile_work);
        // The most cells one rank sends and receives.
        let mut moved = vec![0.0; self.map.ranks];
        let mut tiles = 0;
        for (t, (old, new)) in self.map.owner.iter().zip(&next.owner).enumerate() {
            if let (Some(o), Some(n)) = (*old, *new)
                && o != n
            {
                let cells = self.map.tile_box(t).cells() as f64;
                moved[o] += cells;
                moved[n] += cells;
                tiles += 1;
            }
        }
        let migration = self
            .measured
            .migration_seconds(moved.iter().copied().fold(0.0, f64::max));
        let gain = current - predicted;
        if gain <= self.params.epsilon * current || gain * remaining as f64 <= migration {
            return self.keep(current, measured);
        }
        self.map = next.clone();
        TileDecision {
            map: next,
            migrate: true,
            predicted_seconds: predicted,
            measured_seconds: measured,
            migration_seconds: migration,
            action: format!("rebalance ({tiles} tiles move)"),
        }
    }

    fn keep(&self, current: f64, measured: f64) -> TileDecision {
        TileDecision {
            map: self.map.clone(),
            migrate: false,
            predicted_seconds: current,
            measured_seconds: measured,
            migration_seconds: 0.0,
            action: String::from("keep"),
        }
    }
}

/// One rebalance on this rank, at the same step on every rank: gathers the interval's
/// `records`, decides ([`TileBalancer::decide`] over `graph`, tiles costing `tile_work`,
/// `remaining` steps left) and, when the map changes, migrates the tiles whose owner changes
/// (everything [`Chunk::pack_slabs`] carries), resizes the chunk to the new tiles' bounding
/// box, rebuilds `driver` (its overlap setting kept) and refreshes the halos.
#[allow(clippy::too_many_arguments)]
pub fn rebalance_tiles<C: Chunk, M: Comm>(
    balancer: &mut TileBalancer,
    graph: &TileGraph,
    tile_work: &[f64],
    records: &[StepRecord],
    remaining: u64,
    chunk: &mut C,
    comm: &mut M,
    driver: &mut TileDriver<C>,
) -> Result<TileDecision, StepErrorOf<C, M>> {
    let me = comm.rank();
    let (mut values, mut cells) = (0, 0);
    for t in balancer.map.owned_tiles(me) {
        let b = balancer.map.tile_box(t);
        values += chunk.slab_len(b);
        cells += b.cells();
    }
    let cell_bytes = (values * core::mem::size_of::<C::Value>()) as f64 / cells.max(1) as f64;
    let summary = interval_summary(records, cell_bytes);
    let mut gathered = vec![0.0; comm.size() * GATHER_LEN];
    comm.all_gather(&summary, &mut gathered)
        .map_err(StepError::Comm)?;
    let measured = balancer.measured.record(&gathered);
    let old = balancer.map.clone();
    let decision = balancer.decide(graph, tile_work, remaining, measured);
    if decision.migrate {
        let new = &decision.map;
        // The tiles going from `from` to `to`, in tile order on both sides.
        let moving = |from: usize, to: usize| -> Vec<Box3> {
            (0..old.owner.len())
                .filter(|&t| old.owner[t] == Some(from) && new.owner[t] == Some(to))
                .map(|t| old.tile_box(t))
                .collect()
        };
        let ghost = chunk.ghost();
        migrate_regions(
            chunk,
            comm,
            |peer| moving(me, peer),
            |peer| moving(peer, me),
            new.chunk_box(me, ghost),
        )?;
        let overlap = driver.overlap();
        *driver = TileDriver::new(new, me, chunk).map_err(StepError::Chunk)?;
        driver.set_overlap(overlap);
        driver.refresh_halos(chunk, comm)?;
    }
    Ok(decision)
}
