//! `yee run --partition rcdc|redeploy|cdc`: each rank owns a set of tiles of the scene's mask
//! (Smyk & Tudruj 2011) instead of a box; tiles with no active cell are never computed. On the
//! in-process communicators; whole fields are gathered at output steps as for boxes.

use std::time::Instant;
use yee_comm_shm::Slowdown;
use yee_comm_sim::MachineModel;

use yee_core::graph::{Method, TileGraph, quality};
use yee_core::session::HistoryEntry;
use yee_core::tile_balance::TileBalancer;
use yee_core::tile_driver::Ownership;
use yee_core::tile_map::TileMap;
use yee_core::{Box3, Scalar, Topology};
use yee_em::{Component, Setup, YeeBackend};
use yee_scalar::decomposed::RankOutput;
use yee_scalar::tiled::{
    DynamicTiles, Owners, Rebalancing, TiledStart, check_tiled, run_tiled_rank_with, scatter_tiles,
    tile_values,
};

use crate::error::{RuntimeError, RuntimeErrorKind};
use crate::launch::CommKind;
use crate::launch::{RankBody, in_process};
use crate::parallel::{Continuity, OutputGather, rank_hooks, restore_agreed};
use crate::piece::{Assembled, finish_output};

/// The tile map of a run and what it costs.
#[derive(Clone, Debug)]
pub struct TilePlan {
    /// Who owns which tile.
    pub map: TileMap,
    /// The method that made it.
    pub method: Method,
    /// Max part weight ÷ target.
    pub imbalance: f64,
    /// Cut edge weight (cells exchanged per phase).
    pub edge_cut: f64,
    /// The tile graph the map partitions.
    pub graph: TileGraph,
}

/// What to partition: a mask over a grid, with a name for messages and files.
pub struct Area {
    /// Name (scene or shape).
    pub name: String,
    /// Grid in cells.
    pub grid: [usize; 3],
    /// Active cells, x fastest.
    pub active: Vec<bool>,
}

/// The tile graph of `area` at `tile`; errors name the area.
pub fn tile_graph(area: &Area, tile: [usize; 3]) -> Result<TileGraph, RuntimeError> {
    TileGraph::from_mask(area.grid, &area.active, tile, 1.0)
        .map_err(|e| RuntimeError::new(RuntimeErrorKind::Layout, format!("{}: {e}", area.name)))
}

/// Partitions `graph` into `weights.len()` parts by `method` (RCDC's tries on rayon's
/// threads, [`crate::parallel_rcdc`]: the same parts for any thread count); the parts and the
/// seconds it took.
pub fn run_partition(
    graph: &TileGraph,
    weights: &[f64],
    method: Method,
) -> Result<(Vec<usize>, f64), RuntimeError> {
    let mut part = vec![0; graph.len()];
    let start = Instant::now();
    crate::parallel_rcdc::partition_on_threads(&graph.graph, weights, method, &mut part).map_err(
        |e| {
            RuntimeError::new(
                RuntimeErrorKind::Layout,
                format!(
                    "--ranks {}: {e}; use fewer ranks or a smaller --tile",
                    weights.len()
                ),
            )
        },
    )?;
    Ok((part, start.elapsed().as_secs_f64()))
}

/// Partitions the active cells of `setup` (all cells without a mask) into `weights.len()`
/// tile sets of `tile` cells by `method`; `name` names the area in errors.
pub fn plan_tiles(
    setup: &Setup,
    name: &str,
    tile: [usize; 3],
    weights: &[f64],
    method: Method,
) -> Result<TilePlan, RuntimeError> {
    let active = setup
        .active
        .map_or_else(|| vec![true; setup.cells()], <[bool]>::to_vec);
    let area = Area {
        name: name.into(),
        grid: setup.grid,
        active,
    };
    let graph: TileGraph = tile_graph(&area, tile)?;
    let (part, _) = run_partition(&graph, weights, method)?;
    let q = quality(&graph.graph, &part, weights);
    let layout = |message: String| RuntimeError::new(RuntimeErrorKind::Layout, message);
    if q.empty_parts > 0 {
        return Err(layout(format!(
            "--partition {}: {} of {} ranks got no tile; use fewer ranks or a smaller [mask] tile",
            method.name(),
            q.empty_parts,
            weights.len()
        )));
    }
    let map = TileMap::new(&graph, &part, weights.len())
        .map_err(|e| layout(format!("--partition {}: {e}", method.name())))?;
    check_tiled(setup, &map).map_err(|e| layout(format!("--partition {}: {e}", method.name())))?;
    // What runs: a tile split between parts runs whole on its owner.
    let executed: Vec<usize> = graph
        .tile_of
        .iter()
        .map(|&t| map.owner[t].expect("every active tile has an owner"))
        .collect();
    let q = quality(&graph.graph, &executed, weights);
    Ok(TilePlan {
        map,
        method,
        imbalance: q.imbalance,
        edge_cut: q.edge_cut,
        graph,
    })
}

/// The balancer of a `--partition` run with `--balance dynamic`: starts from `plan`'s map,
/// rebalances every `every` steps with `epsilon`, each tile weighing its work under `costs`.
pub fn dynamic_tiles(
    setup: &Setup,
    costs: &yee_em::Costs,
    plan: &TilePlan,
    every: u64,
    epsilon: f64,
) -> DynamicTiles {
    let tile_work = (0..plan.map.owner.len())
        .map(|t| yee_em::load::box_work(setup, plan.map.tile_box(t), costs))
        .collect();
    let params = yee_core::balance::BalanceParams {
        every,
        epsilon,
        ..Default::default()
    };
    DynamicTiles {
        balancer: TileBalancer::new(plan.method, params, plan.map.clone()),
        graph: plan.graph.clone(),
        tile_work,
    }
}

/// One rank's tiles and their values, deposited at an output step.
pub(crate) type TilePiece<T> = (Vec<Box3>, [Option<Vec<T>>; 6]);

/// Runs `setup` on `map`'s tile sets (a [`TilePlan`]'s map) or boxes (a jagged or k-d
/// [`yee_core::box_layout::BoxLayout`]; with `dynamic`, rebalanced from its balancer's layout,
/// which should be `map`) like [`crate::parallel::run_decomposed`] runs a tensor layout:
/// from the checkpoint and with the checkpoints `continuity` names, `on_output(step, fields)`
/// on rank 0 at every step `wants_output` selects, `progress(step)` after each step. The
/// outputs carry each rank's bounding box as its owned box.
#[allow(clippy::too_many_arguments)]
pub fn run_tiled<T: Scalar, B: YeeBackend<T>>(
    setup: &Setup,
    map: &(dyn Ownership + Sync),
    dynamic: Option<&Rebalancing>,
    costs: yee_em::Costs,
    backend: B,
    comm: CommKind,
    model: Option<MachineModel>,
    slowdown: &[Slowdown],
    steps: u64,
    overlap: bool,
    continuity: &Continuity<'_>,
    wants_output: &(dyn Fn(u64) -> bool + Sync),
    on_output: &(dyn Fn(u64, &Assembled<T>) + Sync),
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Option<Vec<RankOutput<T>>>, RuntimeError> {
    let ranks = map.ranks();
    let gather: OutputGather<Result<TilePiece<T>, String>> = OutputGather::new(ranks);
    let body = |rank: usize, step: u64, chunk: &mut B::Chunk<'_>, tiles: &[Box3]| {
        gather.after_step(
            rank,
            step,
            progress,
            wants_output,
            || {
                tile_values(chunk, tiles)
                    .map(|values| (tiles.to_vec(), values))
                    .map_err(|e| format!("reading the fields back: {e:?}"))
            },
            |pieces| {
                finish_output(step, pieces, |p| {
                    on_output(step, &assemble_tile_pieces(setup, &p))
                })
            },
        );
    };
    let topology = Topology([ranks, 1, 1]);
    let rank = TiledRank {
        setup,
        map,
        dynamic,
        costs,
        backend: &backend,
        steps,
        overlap,
        continuity,
        body: &body,
    };
    if let Some(results) = in_process(comm, topology, model, slowdown, &rank) {
        return results.into_iter().collect::<Result<_, _>>().map(Some);
    }
    #[cfg(feature = "mpi")]
    return crate::mpi::run_tiled_rank(
        setup,
        map,
        dynamic,
        costs,
        backend,
        slowdown,
        steps,
        overlap,
        continuity,
        wants_output,
        on_output,
        progress,
    );
    #[cfg(not(feature = "mpi"))]
    Err(crate::parallel::mpi_missing())
}

/// One rank of [`run_tiled`], whichever communicator it talks through.
struct TiledRank<'a, 's, T: Scalar, B: YeeBackend<T>> {
    setup: &'a Setup<'s>,
    map: &'a (dyn Ownership + Sync),
    dynamic: Option<&'a Rebalancing>,
    costs: yee_em::Costs,
    backend: &'a B,
    steps: u64,
    overlap: bool,
    continuity: &'a Continuity<'a>,
    body: &'a SharedTileAfterStep<'a, B::Chunk<'s>>,
}

impl<T: Scalar, B: YeeBackend<T>> RankBody for TiledRank<'_, '_, T, B>
where
    Self: Sync,
{
    type Output = Result<RankOutput<T>, RuntimeError>;

    fn run<M: yee_core::Comm<Error: std::fmt::Display>>(&self, comm: &mut M) -> Self::Output {
        one(
            self.setup,
            self.map,
            self.dynamic,
            self.costs,
            self.backend,
            comm,
            self.steps,
            self.overlap,
            self.continuity,
            self.body,
        )
    }
}

/// Whole fields from every rank's tiles; cells of tiles nobody owns are zero.
pub(crate) fn assemble_tile_pieces<T: Scalar>(
    setup: &Setup,
    pieces: &[TilePiece<T>],
) -> Assembled<T> {
    let fields = Component::ALL.map(|c| {
        setup.mode.has(c).then(|| {
            let mut whole = vec![T::zero(); setup.cells()];
            for (tiles, values) in pieces {
                if let Some(v) = &values[c.index()] {
                    scatter_tiles(setup.grid, tiles, v, &mut whole);
                }
            }
            whole
        })
    });
    Assembled {
        grid: setup.grid,
        mode: setup.mode,
        fields,
    }
}

/// What each rank does after a step: `(rank, step, chunk, its tiles)`.
type TileAfterStep<'a, C> = dyn Fn(usize, u64, &mut C, &[Box3]) + 'a;

/// [`TileAfterStep`] shared by the threads of an in-process run.
type SharedTileAfterStep<'a, C> = dyn Fn(usize, u64, &mut C, &[Box3]) + Sync + 'a;

/// One rank's tiled run, whichever communicator it talks through, as a [`RankOutput`] whose
/// owned box is the rank's bounding box: its chunk built where the run starts (on the saved
/// layout and balancer when it resumes on the same kind of layout), the checkpoint restored
/// into its tiles or box, then the steps, cut at the checkpoints `continuity` asks for.
#[allow(clippy::too_many_arguments)]
pub(crate) fn one<'s, T: Scalar, B: YeeBackend<T>, M: yee_core::Comm<Error: std::fmt::Display>>(
    setup: &Setup<'s>,
    map: &(dyn Ownership + Sync),
    dynamic: Option<&Rebalancing>,
    costs: yee_em::Costs,
    backend: &B,
    comm: &mut M,
    steps: u64,
    overlap: bool,
    continuity: &Continuity<'_>,
    body: &TileAfterStep<'_, B::Chunk<'s>>,
) -> Result<RankOutput<T>, RuntimeError> {
    let rank = comm.rank();
    let owners = match (dynamic, continuity.resume) {
        (Some(d), Some(loaded)) => loaded.rebalancing(d).owners(),
        (Some(d), None) => d.owners(),
        (None, _) => Owners::Fixed(map),
    };
    let backend = &backend.for_rank(rank, comm.size());
    let mut chunk = backend
        .build(setup, owners.chunk_box(setup, rank), costs)
        .map_err(|e| {
            RuntimeError::from_step(&yee_core::driver::StepError::<_, String>::Chunk(e))
        })?;
    let owned = owners.with_layout(|map, _| map.owned(rank));
    let start = TiledStart {
        step: continuity.resume.map_or(0, |l| l.index.step),
        prior: restore_agreed(continuity, backend, setup, costs, &mut chunk, &owned, comm)?,
    };
    let mut hooks = rank_hooks(continuity, rank, setup);
    let o = run_tiled_rank_with(
        setup,
        owners,
        costs,
        chunk,
        comm,
        start,
        steps,
        overlap,
        &mut *hooks,
        |s, chunk, tiles| body(rank, s, chunk, tiles),
    )
    .map_err(|e| RuntimeError::from_step(&e))?;
    // A balanced layout's history as the tensor balancer's: no borders through the grid, the
    // disabled ranks in place of the disabled lines of x.
    let history = o
        .history
        .iter()
        .map(|(step, d)| HistoryEntry {
            step: *step,
            borders: Default::default(),
            predicted_seconds: d.predicted_seconds,
            measured_seconds: d.measured_seconds,
            disabled: [d.disabled.clone(), Vec::new(), Vec::new()],
            action: d.action.clone(),
            boxes: d.boxes.clone(),
        })
        .chain(o.tile_history.iter().map(|(step, d)| {
            HistoryEntry {
                step: *step,
                borders: Default::default(),
                predicted_seconds: d.predicted_seconds,
                measured_seconds: d.measured_seconds,
                disabled: Default::default(),
                action: d.action.clone(),
                // Each rank's tiles' bounding box.
                boxes: (0..d.map.ranks)
                    .map(|r| d.map.chunk_box(r, [0; 3]))
                    .collect(),
            }
        }))
        .collect();
    // The cells the rank owns at the end (their bounding box for a tile set), without ghosts.
    let owned = Box3::bounding(o.tiles.iter().copied());
    Ok(RankOutput {
        probes: o.probes,
        first_step: o.first_step,
        last_step: o.last_step,
        interrupted: o.interrupted,
        decayed: o.decayed,
        checkpoints: o.checkpoints,
        records: o.records,
        dft: o.dft,
        diverged: o.diverged,
        history,
        box_balancer: o.balancer,
        ..RankOutput::empty(rank, owned)
    })
}
