//! One rank of a run over a masked grid where each rank owns a set of tiles (a partition of
//! the tile graph, e.g. by RCDC) or a box of a jagged or k-d layout: its chunk, its probes,
//! its divergence check, its checkpoints, and the pieces the caller assembles into whole
//! fields.

use alloc::vec;
use alloc::vec::Vec;
use core::fmt;
use yee_core::box_balance::{BoxBalancer, BoxDecision, rebalance};
use yee_core::driver::{StepError, StepErrorOf, StepRecord};
use yee_core::graph::TileGraph;
use yee_core::session::STOP_CHECK_STEPS;
use yee_core::step_log::StepLog;
use yee_core::tile_balance::{TileBalancer, TileDecision, rebalance_tiles};
use yee_core::tile_driver::{Ownership, TileDriver};
use yee_core::{Axis, Box3, Comm, Scalar};
use yee_em::{Component, Costs, Setup, YeeBackend, YeeFields};

use crate::checkpoints::{
    CheckpointRecord, Checkpoints, Cut, CutLayout, NoCheckpoints, OwnedBalancer,
};
use crate::decomposed::{ComponentValues, checkpoint};
use crate::error::RunError;
pub use crate::scatter::scatter_tiles;

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
    /// A material with off-diagonal ε or μ: its update reads diagonal neighbours, and
    /// tile-set and box-layout halos carry the faces alone.
    Tensor,
}

impl fmt::Display for TiledError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TiledError::Periodic { axis } => write!(
                f,
                "axis {} is periodic; tile-set and box-layout runs need walls on every face",
                axis.name()
            ),
            TiledError::GridMismatch => write!(f, "the tile map was made for another grid"),
            TiledError::Tensor => write!(
                f,
                "a material has a full `eps` or `mu` tensor, or smoothing gives a curved \
                 surface's nodes off-diagonal entries: tile-set and box-layout runs exchange \
                 faces only; use a rectilinear layout (or, for smoothing, \
                 `Setup::smoothing_tensor = false`: the diagonal rule, which `yee run` falls \
                 back to)"
            ),
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
    /// Its steps' records (per peer entries, see [`TileDriver::step`]): totals over every
    /// step and the most recent records.
    pub records: StepLog,
    /// Its part of each DFT monitor (per tile) at the end of the run.
    pub dft: Vec<crate::decomposed::DftPiece<T>>,
    /// The first divergence seen in its tiles, if any (the run then stops on every rank).
    pub diverged: Option<RunError>,
    /// Each rebalance of a balanced box layout: the steps done and what was decided
    /// (identical on every rank; empty for a fixed layout).
    pub history: Vec<(u64, BoxDecision)>,
    /// The balancer of a balanced box layout as it ended (identical on every rank), with
    /// every measurement (for saving a profile).
    pub balancer: Option<BoxBalancer>,
    /// Each rebalance of a balanced tile set: the steps done and what was decided.
    pub tile_history: Vec<(u64, TileDecision)>,
    /// Steps done when this run started (0 unless resumed from a checkpoint).
    pub first_step: u64,
    /// Steps done when it ended.
    pub last_step: u64,
    /// A signal stopped the run at `last_step` (identical on every rank).
    pub interrupted: bool,
    /// The decay rule ([`Checkpoints::until_decayed`]) ended the run at `last_step`
    /// (identical on every rank).
    pub decayed: bool,
    /// The checkpoints taken, in order.
    pub checkpoints: Vec<CheckpointRecord>,
}

/// A box layout that a [`BoxBalancer`] rebalances every `T_perf` steps from measurements.
#[derive(Clone, Debug)]
pub struct DynamicBoxes {
    /// The balancer, holding the layout the run starts from.
    pub balancer: BoxBalancer,
    /// Weigh the slices of a box by their own axis' CPML layers only (`--density per-axis`)
    /// instead of their whole work.
    pub per_axis: bool,
}

/// A tile set that a [`TileBalancer`] rebalances every `T_perf` steps from measurements.
#[derive(Clone, Debug)]
pub struct DynamicTiles {
    /// The balancer, holding the map the run starts from.
    pub balancer: TileBalancer,
    /// The tile graph the map partitions.
    pub graph: TileGraph,
    /// The work of each tile, by linear tile index (the balancer's load).
    pub tile_work: Vec<f64>,
}

/// How a tiled run rebalances: its boxes or its tile sets.
#[derive(Clone, Debug)]
#[allow(clippy::large_enum_variant)] // one per run, cloned once per rank
pub enum Rebalancing {
    /// A jagged or k-d layout's boxes.
    Boxes(DynamicBoxes),
    /// A partition's tile sets.
    Tiles(DynamicTiles),
}

impl Rebalancing {
    /// The owners of a run that starts balanced this way.
    pub fn owners(&self) -> Owners<'static> {
        match self {
            Rebalancing::Boxes(d) => Owners::Balanced(alloc::boxed::Box::new(d.clone())),
            Rebalancing::Tiles(d) => Owners::BalancedTiles(alloc::boxed::Box::new(d.clone())),
        }
    }
}

/// What the ranks of a tiled run own.
pub enum Owners<'a> {
    /// Tile sets or boxes fixed for the whole run.
    Fixed(&'a dyn Ownership),
    /// Boxes rebalanced during the run.
    Balanced(alloc::boxed::Box<DynamicBoxes>),
    /// Tile sets rebalanced during the run.
    BalancedTiles(alloc::boxed::Box<DynamicTiles>),
}

/// Checks that `setup` can run on `map`'s tiles.
pub fn check_tiled(setup: &Setup, map: &(impl Ownership + ?Sized)) -> Result<(), TiledError> {
    if let Some(axis) = Axis::ALL.into_iter().find(|&a| setup.is_periodic(a)) {
        return Err(TiledError::Periodic { axis });
    }
    if map.grid() != setup.grid {
        return Err(TiledError::GridMismatch);
    }
    if setup.has_tensor_nodes() {
        return Err(TiledError::Tensor);
    }
    Ok(())
}

impl Owners<'_> {
    /// `f` of who owns what now (where the run starts, before it runs) and the balancer.
    pub fn with_layout<R>(&self, f: impl FnOnce(&dyn Ownership, OwnedBalancer<'_>) -> R) -> R {
        match self {
            Owners::Fixed(map) => f(*map, OwnedBalancer::None),
            Owners::Balanced(d) => f(&d.balancer.layout(), OwnedBalancer::Boxes(&d.balancer)),
            Owners::BalancedTiles(d) => f(d.balancer.map(), OwnedBalancer::Tiles(&d.balancer)),
        }
    }

    /// The box rank `rank`'s chunk holds where the run starts: its cells and their ghosts.
    pub fn chunk_box(&self, setup: &Setup, rank: usize) -> Box3 {
        let ghost = setup.mode.active_axes().map(usize::from);
        self.with_layout(|map, _| map.chunk_box(rank, ghost))
    }
}

/// Where a tiled run starts: the steps already done (0 unless resumed from a checkpoint) and
/// the probe samples before them, per probe index.
#[derive(Clone, Debug)]
pub struct TiledStart<T> {
    /// Steps already done.
    pub step: u64,
    /// Per probe index, the `(step, value)` samples so far (on the writing rank).
    pub prior: Vec<Vec<(u64, T)>>,
}

impl<T> TiledStart<T> {
    /// Step 0, nothing sampled.
    pub fn fresh() -> Self {
        TiledStart {
            step: 0,
            prior: Vec::new(),
        }
    }
}

/// Runs `steps` steps of rank `comm.rank()`'s tiles (or box) of `owners` on `backend`,
/// overlapping the exchange with the inner tiles' update when `overlap`, calling
/// `after_step(step, chunk, tiles)` after each (1-based step count). A balanced box layout is
/// rebalanced every `T_perf` steps ([`rebalance`]): its cells migrate, and the probes and the
/// divergence check follow the rank's new box. Call [`check_tiled`] first.
#[allow(clippy::too_many_arguments)]
pub fn run_tiled_rank<'s, T: Scalar, B: YeeBackend<T>, M: Comm>(
    setup: &Setup<'s>,
    owners: Owners<'_>,
    costs: Costs,
    backend: &B,
    comm: &mut M,
    steps: u64,
    overlap: bool,
    after_step: impl FnMut(u64, &mut B::Chunk<'s>, &[Box3]),
) -> Result<TiledRankOutput<T>, StepErrorOf<B::Chunk<'s>, M>> {
    let chunk = backend
        .build(setup, owners.chunk_box(setup, comm.rank()), costs)
        .map_err(StepError::Chunk)?;
    run_tiled_rank_with(
        setup,
        owners,
        costs,
        chunk,
        comm,
        TiledStart::fresh(),
        steps,
        overlap,
        &mut NoCheckpoints::default(),
        after_step,
    )
}

/// [`run_tiled_rank`] from `start`, with `chunk` built for [`Owners::chunk_box`] and holding
/// the fields after `start.step` steps in the cells the rank owns (a checkpoint restored into
/// it; the ghosts are exchanged before the first step), cut at the checkpoints `hooks` asks
/// for. The cuts fall on the collective stop checks, as in
/// [`crate::decomposed::run_rank_with`]: every rank saves its cells and probe samples at the
/// same step, after the rebalance due there, and a run interrupted by a signal ends there.
#[allow(clippy::too_many_arguments)]
pub fn run_tiled_rank_with<'s, T, C, M, H>(
    setup: &Setup<'s>,
    mut owners: Owners<'_>,
    costs: Costs,
    mut chunk: C,
    comm: &mut M,
    start: TiledStart<T>,
    steps: u64,
    overlap: bool,
    hooks: &mut H,
    mut after_step: impl FnMut(u64, &mut C, &[Box3]),
) -> Result<TiledRankOutput<T>, StepErrorOf<C, M>>
where
    T: Scalar,
    C: YeeFields<Value = T>,
    M: Comm,
    H: Checkpoints<C> + ?Sized,
{
    let rank = comm.rank();
    let mut driver = owners
        .with_layout(|map, _| TileDriver::new(map, rank, &chunk))
        .map_err(StepError::Chunk)?;
    driver.set_overlap(overlap);
    if start.step > 0 {
        // The ghosts of a chunk restored from a checkpoint hold nothing yet.
        driver.refresh_halos(&mut chunk, comm)?;
    }
    let in_tiles = |tiles: &[Box3]| -> Vec<(usize, yee_em::Probe)> {
        setup
            .probes
            .iter()
            .copied()
            .enumerate()
            .filter(|(_, p)| tiles.iter().any(|t| t.contains(p.cell)))
            .collect()
    };
    let mut tiles: Vec<Box3> = driver.tiles().copied().collect();
    let mut mine = in_tiles(&tiles);
    let mut series = start.prior;
    series.resize(setup.probes.len(), Vec::new());
    let mut records = StepLog::default();
    // The records of the balancing interval under way (kept only when the owners balance).
    let mut interval: Vec<StepRecord> = Vec::new();
    let mut history = Vec::new();
    let mut tile_history = Vec::new();
    let mut checkpoints = Vec::new();
    let mut diverged = None;
    let mut stop = false;
    let mut interrupted = false;
    let mut due = hooks.next_due(start.step);
    let mut last_step = start.step;
    let mut decayed = false;
    let mut watch =
        crate::decomposed::start_watch(hooks.until_decayed(), &series, start.step, comm)
            .map_err(StepError::Comm)?;
    // Per rank: diverged, wants to stop, interrupted by a signal, its part of a decay check's
    // peak.
    let mut flags = vec![0.0; 4 * comm.size()];
    for step in start.step..steps {
        let record = driver.step(&mut chunk, comm, step)?;
        if !matches!(owners, Owners::Fixed(_)) {
            interval.push(record.clone());
        }
        records.push(record);
        let done = step + 1;
        last_step = done;
        for (i, p) in &mine {
            let value = chunk.value(p.component, p.cell).map_err(StepError::Chunk)?;
            series[*i].push((done, value));
        }
        if diverged.is_none() {
            diverged = chunk
                .first_non_finite(&tiles)
                .map_err(StepError::Chunk)?
                .map(|(component, cell)| RunError::Diverged {
                    step: done,
                    component,
                    cell,
                });
        }
        after_step(done, &mut chunk, &tiles);
        stop |= hooks.wants_stop();
        // Every rank checks at the same steps, so all stop together when one has diverged,
        // and all cut at the same step.
        let mut cut = false;
        let checks = watch.is_some_and(|w| w.rule.is_check(done)) && done < steps;
        if done % STOP_CHECK_STEPS == 0 || done == steps || Some(done) == due || checks {
            let peak = match watch.filter(|_| checks) {
                Some(w) => w
                    .rule
                    .local_peak(crate::decomposed::held(&series, w.rule.probe), done),
                None => 0.0,
            };
            let [a, b, c] = [diverged.is_some(), stop, hooks.interrupted()];
            let mine = [a, b, c].map(|b| f64::from(u8::from(b)));
            comm.all_gather(&[mine[0], mine[1], mine[2], peak], &mut flags)
                .map_err(StepError::Comm)?;
            let any = |k: usize| flags.chunks(4).any(|f| f[k] > 0.0);
            if any(0) {
                break;
            }
            if let Some(w) = watch.as_mut().filter(|_| checks) {
                if w.decayed(yee_em::decay::largest_over_ranks(&flags, 4, 3)) {
                    decayed = true;
                    break;
                }
            }
            cut = done < steps && (any(1) || Some(done) == due);
            interrupted = cut && any(2);
        }
        let rebalances = |every: u64| !interrupted && done % every == 0 && done != steps;
        let migrated = match &mut owners {
            Owners::BalancedTiles(d) if rebalances(d.balancer.params().every) => {
                let decision = rebalance_tiles(
                    &mut d.balancer,
                    &d.graph,
                    &d.tile_work,
                    &interval,
                    steps - done,
                    &mut chunk,
                    comm,
                    &mut driver,
                )?;
                interval.clear();
                let migrate = decision.migrate;
                tile_history.push((done, decision));
                migrate
            }
            Owners::Balanced(d) if rebalances(d.balancer.params().every) => {
                let per_axis = d.per_axis;
                let density = |region: Box3, axis: usize, out: &mut [f64]| {
                    yee_em::load::region_slice_densities(
                        setup, &costs, region, axis, per_axis, out,
                    );
                };
                let decision = rebalance(
                    &mut d.balancer,
                    &interval,
                    &density,
                    steps - done,
                    &mut chunk,
                    comm,
                    &mut driver,
                )?;
                interval.clear();
                let migrate = decision.as_ref().is_some_and(|d| d.migrate);
                history.extend(decision.map(|d| (done, d)));
                migrate
            }
            _ => false,
        };
        if migrated {
            // The probes and the divergence check follow the rank's new cells.
            tiles = driver.tiles().copied().collect();
            mine = in_tiles(&tiles);
        }
        if cut {
            let record = owners.with_layout(|map, balancer| {
                let at = Cut {
                    step: done,
                    layout: CutLayout::Owned { map, balancer },
                };
                checkpoint(&mut chunk, comm, hooks, &series, &at)
            })?;
            checkpoints.push(record);
            stop = false;
            due = hooks.next_due(done);
            if interrupted {
                break;
            }
        }
    }
    let fields = match hooks.keeps_fields() {
        true => tile_values(&mut chunk, &tiles).map_err(StepError::Chunk)?,
        false => Default::default(),
    };
    let dft = crate::decomposed::dft_pieces(setup, &mut chunk, &tiles).map_err(StepError::Chunk)?;
    Ok(TiledRankOutput {
        rank,
        tiles,
        fields,
        dft,
        probes: series
            .into_iter()
            .enumerate()
            .filter(|(_, s)| !s.is_empty())
            .collect(),
        records,
        diverged,
        history,
        balancer: match owners {
            Owners::Balanced(d) => Some(d.balancer),
            _ => None,
        },
        tile_history,
        first_step: start.step,
        last_step,
        interrupted,
        decayed,
        checkpoints,
    })
}

/// Each component over `tiles`, tile after tile (x fastest within a tile): what a rank
/// contributes to whole fields.
pub fn tile_values<C: YeeFields>(
    chunk: &mut C,
    tiles: &[Box3],
) -> Result<ComponentValues<C::Value>, C::Error> {
    let total = tiles.iter().map(Box3::cells).sum();
    let corner = chunk.owned().lo;
    let mut fields: ComponentValues<C::Value> = Default::default();
    for c in Component::ALL {
        // An empty box only asks whether the mode carries `c`.
        if !chunk.read_component(c, Box3::new(corner, corner), &mut [])? {
            continue;
        }
        let mut out = vec![<C::Value as bytemuck::Zeroable>::zeroed(); total];
        let mut at = 0;
        for t in tiles {
            chunk.read_component(c, *t, &mut out[at..at + t.cells()])?;
            at += t.cells();
        }
        fields[c.index()] = Some(out);
    }
    Ok(fields)
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
    crate::decomposed::series_of(outputs.iter().flat_map(|o| &o.probes), i)
}
