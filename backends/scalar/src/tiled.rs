//! One rank of a run over a masked grid where each rank owns a set of tiles (a partition of
//! the tile graph, e.g. by RCDC): its chunk, its probes, its divergence check, and the
//! pieces the caller assembles into whole fields.

use alloc::vec;
use alloc::vec::Vec;
use core::fmt;
use yee_core::driver::StepRecord;
use yee_core::session::STOP_CHECK_STEPS;
use yee_core::tile_driver::TileDriver;
use yee_core::tile_map::TileMap;
use yee_core::{Axis, Box3, Comm, Component, Costs, Field, Scalar, Setup};

use crate::chunk::{CurlExecutor, YeeChunk};
use crate::error::RunError;

/// Why a tiled run cannot start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TiledError {
    /// A periodic axis: a tile on one face would need the tiles of the other face, which the
    /// bounding-box chunk does not hold.
    Periodic {
        /// The axis.
        axis: Axis,
    },
    /// The map's grid is not the setup's.
    GridMismatch,
}

impl fmt::Display for TiledError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TiledError::Periodic { axis } => write!(
                f,
                "axis {} is periodic; tile ownership needs walls on every face",
                axis.name()
            ),
            TiledError::GridMismatch => write!(f, "the tile map was made for another grid"),
        }
    }
}

/// What one rank of a tiled run returns.
#[derive(Clone, Debug)]
pub struct TiledRankOutput<T> {
    /// The rank.
    pub rank: usize,
    /// The tiles it updated.
    pub tiles: Vec<Box3>,
    /// Each component over its tiles, tile after tile (x fastest within a tile); `None` for
    /// absent components.
    pub fields: [Option<Vec<T>>; 6],
    /// `(probe index, [(step, value)])` for the probes in its tiles (steps 1-based).
    pub probes: Vec<(usize, Vec<(u64, T)>)>,
    /// One record per step (per peer entries, see [`TileDriver::step`]).
    pub records: Vec<StepRecord>,
    /// The first divergence seen in its tiles, if any (the run then stops on every rank).
    pub diverged: Option<RunError>,
}

/// Checks that `setup` can run on `map`'s tiles.
pub fn check_tiled(setup: &Setup, map: &TileMap) -> Result<(), TiledError> {
    if let Some(axis) = Axis::ALL.into_iter().find(|&a| setup.is_periodic(a)) {
        return Err(TiledError::Periodic { axis });
    }
    if map.grid != setup.grid {
        return Err(TiledError::GridMismatch);
    }
    Ok(())
}

/// Runs `steps` steps of rank `comm.rank()`'s tiles of `map`, overlapping the exchange with
/// the inner tiles' update when `overlap`, calling `after_step(step, chunk, tiles)` after each
/// (1-based step count). Call [`check_tiled`] first.
#[allow(clippy::too_many_arguments)]
pub fn run_tiled_rank<T: Scalar, K: CurlExecutor<T>, M: Comm>(
    setup: &Setup,
    map: &TileMap,
    costs: Costs,
    kernel: K,
    comm: &mut M,
    steps: u64,
    overlap: bool,
    mut after_step: impl FnMut(u64, &YeeChunk<T, K>, &[Box3]),
) -> Result<TiledRankOutput<T>, M::Error> {
    let rank = comm.rank();
    let ghost = setup.mode.active_axes().map(usize::from);
    let mut chunk =
        YeeChunk::with_kernel(setup, map.chunk_box(rank, ghost), kernel).with_costs(costs);
    let mut driver = TileDriver::new(map, rank, &chunk).expect("a Yee chunk packs any box");
    driver.set_overlap(overlap);
    let tiles: Vec<Box3> = driver.tiles().copied().collect();
    let mine: Vec<(usize, yee_core::Probe)> = setup
        .probes
        .iter()
        .copied()
        .enumerate()
        .filter(|(_, p)| tiles.iter().any(|t| t.contains(p.cell)))
        .collect();
    let mut series: Vec<Vec<(u64, T)>> = vec![Vec::new(); mine.len()];
    let mut records = Vec::new();
    let mut diverged = None;
    let mut flags = vec![0.0; comm.size()];
    for step in 0..steps {
        records.push(driver.step(&mut chunk, comm, step)?);
        for ((_, p), s) in mine.iter().zip(&mut series) {
            let value = chunk
                .state
                .field(p.component)
                .expect("validated")
                .get(p.cell);
            s.push((step + 1, value));
        }
        if chunk.state.too_many_materials && diverged.is_none() {
            diverged = Some(RunError::TooManyMaterials {
                limit: crate::state::MAX_MATERIAL_IDS,
            });
        }
        if chunk.state.non_finite && diverged.is_none() {
            chunk.state.non_finite = false;
            diverged = first_non_finite(&chunk, &tiles, step + 1);
        }
        after_step(step + 1, &chunk, &tiles);
        // Every rank checks at the same steps, so all stop together when one has diverged.
        if (step + 1) % STOP_CHECK_STEPS == 0 || step + 1 == steps {
            comm.all_gather(&[f64::from(u8::from(diverged.is_some()))], &mut flags)?;
            if flags.iter().any(|&d| d > 0.0) {
                break;
            }
        }
    }
    let fields = tile_values(&chunk, &tiles);
    Ok(TiledRankOutput {
        rank,
        tiles,
        fields,
        probes: mine.iter().map(|(i, _)| *i).zip(series).collect(),
        records,
        diverged,
    })
}

fn first_non_finite<T: Scalar, K: CurlExecutor<T>>(
    chunk: &YeeChunk<T, K>,
    tiles: &[Box3],
    step: u64,
) -> Option<RunError> {
    // Keyed by the first cell in x-fastest order over the whole grid.
    let mut first: Option<([i64; 3], RunError)> = None;
    for &c in chunk.state.mode.components() {
        let f = chunk.state.field(c)?;
        for t in tiles {
            for n in 0..t.cells() {
                let p = t.index_at(n);
                if !f.get(p).is_finite() {
                    let e = RunError::Diverged {
                        step,
                        component: c,
                        cell: p,
                    };
                    let key = [p[2], p[1], p[0]];
                    if first.as_ref().is_none_or(|(k, _)| key < *k) {
                        first = Some((key, e));
                    }
                    break;
                }
            }
        }
        if first.is_some() {
            break;
        }
    }
    first.map(|(_, e)| e)
}

/// Each component over `tiles`, tile after tile (x fastest within a tile): what a rank
/// contributes to whole fields.
pub fn tile_values<T: Scalar, K: CurlExecutor<T>>(
    chunk: &YeeChunk<T, K>,
    tiles: &[Box3],
) -> [Option<Vec<T>>; 6] {
    Component::ALL.map(|c| {
        chunk.state.field(c).map(|f| {
            let mut out = Vec::with_capacity(tiles.iter().map(Box3::cells).sum());
            for t in tiles {
                let mut piece = vec![T::zero(); t.cells()];
                f.read_box(*t, &mut piece);
                out.extend(piece);
            }
            out
        })
    })
}

/// Writes `values` (as [`tile_values`] lays them out for `tiles`) into `whole`, a grid of
/// extent `grid`, x fastest.
pub fn scatter_tiles<T: Scalar>(grid: [usize; 3], tiles: &[Box3], values: &[T], whole: &mut [T]) {
    let all = Box3::from_extent(grid);
    let mut at = 0;
    for t in tiles {
        for n in 0..t.cells() {
            whole[all.linear_index(t.index_at(n))] = values[at + n];
        }
        at += t.cells();
    }
}

/// Assembles component `c` over the whole grid from the ranks' tiles (x fastest); cells of
/// tiles nobody owns are zero.
pub fn assemble_tiles<T: Scalar>(
    outputs: &[TiledRankOutput<T>],
    grid: [usize; 3],
    c: Component,
) -> Option<Vec<T>> {
    let mut out = vec![T::zero(); grid.iter().product()];
    for o in outputs {
        scatter_tiles(grid, &o.tiles, o.fields[c.index()].as_ref()?, &mut out);
    }
    Some(out)
}

/// The record of probe `i` from the rank whose tile holds it.
pub fn tiled_probe_series<T: Scalar>(outputs: &[TiledRankOutput<T>], i: usize) -> Option<Vec<T>> {
    outputs
        .iter()
        .flat_map(|o| &o.probes)
        .find(|(k, _)| *k == i)
        .map(|(_, s)| s.iter().map(|(_, v)| *v).collect())
}
