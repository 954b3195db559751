//! Any app written on yee's traits — its own [`Chunk`], or stencils in a
//! `yee_scalar::stencil_chunk::StencilChunk` — run on the simulated, shared-memory or MPI
//! communicator with one call: the static plan from the chunk's declared cost and the ranks'
//! speeds, a tensor, jagged or k-d layout, dynamic balancing, and every rank's owned values
//! gathered into the whole grid on the root. The app gives two functions: the chunk of a box
//! (with its initial values) and the read-back of a box; which communicator runs it is a
//! value ([`Ranks::new`]), MPI a cargo feature (`mpi`) — the app's code does not change.
//!
//! ```
//! use yee_core::{Box3, Field, FieldId, Stencil};
//! use yee_runtime::app::{CommKind, Ranks, RunPlan, run};
//! use yee_scalar::stencil_chunk::{Fields, StencilChunk};
//!
//! /// u ← (u[x−1] + u[x+1]) / 2 on a 1D line, from level 0 into level 1, then copied back.
//! struct Smooth;
//! impl Stencil<Fields<f64>> for Smooth {
//!     fn name(&self) -> &str { "smooth" }
//!     fn reads(&self) -> &[FieldId] { &[FieldId(0)] }
//!     fn writes(&self) -> &[FieldId] { &[FieldId(1)] }
//!     fn reach(&self) -> usize { 1 }
//!     fn cost_per_cell(&self) -> f64 { 1.0 }
//!     fn apply(&self, f: &mut Fields<f64>, region: Box3, _step: u64) {
//!         let [u, v] = f.disjoint_mut([FieldId(0), FieldId(1)]);
//!         let (src, dst) = (u.row(0, 0), v.row_mut(0, 0));
//!         for x in u.columns(region) {
//!             dst[x] = 0.5 * (src[x - 1] + src[x + 1]);
//!         }
//!     }
//! }
//! struct Commit;
//! impl Stencil<Fields<f64>> for Commit {
//!     fn name(&self) -> &str { "commit" }
//!     fn reads(&self) -> &[FieldId] { &[FieldId(1)] }
//!     fn writes(&self) -> &[FieldId] { &[FieldId(0)] }
//!     fn reach(&self) -> usize { 0 }
//!     fn cost_per_cell(&self) -> f64 { 0.1 }
//!     fn apply(&self, f: &mut Fields<f64>, region: Box3, _step: u64) {
//!         let [u, v] = f.disjoint_mut([FieldId(0), FieldId(1)]);
//!         u.write_box(region, &{ let mut b = vec![0.0; region.cells()]; v.read_box(region, &mut b); b });
//!     }
//! }
//!
//! let make = |owned: Box3| {
//!     let mut chunk = StencilChunk::new(owned, [true, false, false], 2,
//!         vec![Box::new(Smooth) as _, Box::new(Commit) as _]);
//!     if owned.contains([16, 0, 0]) {
//!         chunk.fields_mut().get_mut(FieldId(0)).set([16, 0, 0], 1.0);
//!     }
//!     chunk
//! };
//! let read = |chunk: &StencilChunk<f64>, region: Box3, out: &mut [f64]| {
//!     chunk.fields().get(FieldId(0)).read_box(region, out)
//! };
//! let plan = RunPlan::new([32, 1, 1]);
//! let one = run(&Ranks::new(CommKind::Sim, 1)?, &plan, 10, make, read)?.unwrap();
//! let four = run(&Ranks::new(CommKind::Shm, 4)?, &plan, 10, make, read)?.unwrap();
//! assert_eq!(one.values, four.values);
//! # Ok::<(), yee_runtime::RuntimeError>(())
//! ```

use yee_comm_shm::Slowdown;
use yee_comm_sim::MachineModel;
use yee_core::balance::{BalanceParams, Balancer};
use yee_core::box_balance::{BoxBalancer, BoxCut};
use yee_core::box_layout::{BoxLayout, jagged_layout, kd_layout};
use yee_core::box_session::{BoxOwners, run_box_steps};
use yee_core::decomposition::uniform_layout_borders;
use yee_core::session::{self, Plan, run_steps_from};
use yee_core::step_log::StepLog;
use yee_core::tile_driver::Ownership;
use yee_core::topology::choose_topology;
use yee_core::{Box3, Chunk, Comm, Topology};

pub use crate::app_checkpoint::AppCheckpoints;
use crate::app_checkpoint::{self, Saved};
pub use crate::balance::LayoutKind;
use crate::balance::layout_name;
use crate::error::{RuntimeError, RuntimeErrorKind};
pub use crate::launch::CommKind;
use crate::launch::{RankBody, in_process};

/// The ranks an app runs on: how many, and through which communicator. For MPI it holds MPI
/// initialised for the process (finalised when it is dropped), so make one per process.
pub struct Ranks {
    comm: CommKind,
    count: usize,
    #[cfg(feature = "mpi")]
    _universe: Option<mpi::environment::Universe>,
}

impl Ranks {
    /// `count` ranks on `comm`: threads of this process on [`CommKind::Sim`] and
    /// [`CommKind::Shm`]; on [`CommKind::Mpi`] the processes of the job, whose size `count`
    /// must equal (0 takes the job's size). MPI without the `mpi` feature, or a count of 0
    /// threads, is an error.
    pub fn new(comm: CommKind, count: usize) -> Result<Ranks, RuntimeError> {
        let usage = |m: String| RuntimeError::new(RuntimeErrorKind::Options, m);
        match comm {
            #[cfg(feature = "mpi")]
            CommKind::Mpi => {
                use mpi::topology::Communicator;
                let universe = crate::mpi::initialize()?;
                let size = universe.world().size() as usize;
                if count != 0 && count != size {
                    return Err(usage(format!(
                        "{count} ranks asked for, but the MPI job has {size} processes \
                         (mpirun -np {count}, or ask for 0 to take the job's size)"
                    )));
                }
                Ok(Ranks {
                    comm,
                    count: size,
                    _universe: Some(universe),
                })
            }
            #[cfg(not(feature = "mpi"))]
            CommKind::Mpi => Err(crate::parallel::mpi_missing()),
            _ if count == 0 => Err(usage(format!("{comm:?}: 0 ranks; give at least 1 thread"))),
            _ => Ok(Ranks {
                comm,
                count,
                #[cfg(feature = "mpi")]
                _universe: None,
            }),
        }
    }

    /// Number of ranks.
    pub fn count(&self) -> usize {
        self.count
    }

    /// The communicator.
    pub fn comm(&self) -> CommKind {
        self.comm
    }
}

/// How an app's grid is laid out over the ranks and balanced. [`RunPlan::new`] gives even
/// tensor slabs, no balancing, walls on every face; the builder methods change one thing
/// each.
#[derive(Clone, Debug)]
pub struct RunPlan {
    /// Grid extent in cells; an axis of extent 1 is not used (a 2D grid is `[nx, ny, 1]`).
    pub grid: [usize; 3],
    /// Axes that wrap around (tensor layouts only).
    pub periodic: [bool; 3],
    /// Ranks per axis of a tensor or jagged layout; `None` chooses the one with the least
    /// halo (Balykov 2019, eq. (21)).
    pub topology: Option<Topology>,
    /// How the boxes are cut.
    pub layout: LayoutKind,
    /// Rebalance every `T_perf` steps from measurements (Balykov 2019, §2).
    pub balance: Option<BalanceParams>,
    /// Relative rank speeds for the static plan (equal when `None`): rank `r` gets work in
    /// proportion to `speeds[r]`, the work of a cell being the chunk's [`Chunk::work`].
    pub speeds: Option<Vec<f64>>,
    /// The simulated machine ([`CommKind::Sim`]; every rank at the same speed when `None`).
    pub model: Option<MachineModel>,
    /// Per rank, sleeps that make it slower ([`CommKind::Shm`] and [`CommKind::Mpi`]).
    pub slowdown: Vec<Slowdown>,
    /// Overlap the halo exchange with the interior update (Kim & Park 2012).
    pub overlap: bool,
    /// Checkpoints written while it runs ([`crate::app_checkpoint`]).
    pub checkpoints: Option<AppCheckpoints>,
    /// A folder of checkpoints to resume from: the run starts from its newest whole one, on
    /// any number of ranks and any layout (the balancer's measurements start afresh).
    pub resume: Option<std::path::PathBuf>,
}

impl RunPlan {
    /// Even tensor slabs of `grid`, no balancing, walls on every face, overlap on.
    pub fn new(grid: [usize; 3]) -> Self {
        RunPlan {
            grid,
            periodic: [false; 3],
            topology: None,
            layout: LayoutKind::Tensor,
            balance: None,
            speeds: None,
            model: None,
            slowdown: Vec::new(),
            overlap: true,
            checkpoints: None,
            resume: None,
        }
    }

    /// A checkpoint in `dir` every `every` steps.
    pub fn checkpoint_every(mut self, dir: impl Into<std::path::PathBuf>, every: u64) -> Self {
        self.checkpoints = Some(AppCheckpoints {
            dir: dir.into(),
            every,
        });
        self
    }

    /// Resumes from the newest whole checkpoint in `dir`.
    pub fn resume_from(mut self, dir: impl Into<std::path::PathBuf>) -> Self {
        self.resume = Some(dir.into());
        self
    }

    /// Wraps around `periodic` axes.
    pub fn periodic(mut self, periodic: [bool; 3]) -> Self {
        self.periodic = periodic;
        self
    }

    /// `topology` ranks per axis.
    pub fn topology(mut self, topology: Topology) -> Self {
        self.topology = Some(topology);
        self
    }

    /// Boxes cut as `layout`.
    pub fn layout(mut self, layout: LayoutKind) -> Self {
        self.layout = layout;
        self
    }

    /// Rebalanced every `every` steps (the other parameters at their defaults; one-cell
    /// minimum width).
    pub fn balanced(mut self, every: u64) -> Self {
        self.balance = Some(BalanceParams {
            every,
            min_width: 1,
            ..BalanceParams::default()
        });
        self
    }

    /// A static plan for ranks of relative `speeds`.
    pub fn speeds(mut self, speeds: Vec<f64>) -> Self {
        self.speeds = Some(speeds);
        self
    }

    /// The simulated machine.
    pub fn model(mut self, model: MachineModel) -> Self {
        self.model = Some(model);
        self
    }

    /// Sleeps per rank on real communicators.
    pub fn slowdown(mut self, slowdown: Vec<Slowdown>) -> Self {
        self.slowdown = slowdown;
        self
    }

    /// The axes the grid uses.
    pub fn active(&self) -> [bool; 3] {
        self.grid.map(|n| n > 1)
    }
}

/// One rebalance of an app's run, as every rank decided it.
#[derive(Clone, Debug, PartialEq)]
pub struct Rebalance {
    /// Steps done when it happened.
    pub step: u64,
    /// What the balancer did ("keep", "rebalance", "disable …", "enable …").
    pub action: String,
    /// The step time the balancer predicts for the layout it chose (its model: each rank's
    /// work over its measured speed plus its slowest link's share time, eqs. (2)–(3)).
    pub predicted_seconds: f64,
    /// The step time measured over the interval before it (the slowest rank's compute and
    /// share seconds per step).
    pub measured_seconds: f64,
    /// Every rank's box after it (x-fastest rank order).
    pub boxes: Vec<Box3>,
}

/// What an app's run leaves on the root: the whole grid, who owned what and what balancing
/// did.
#[derive(Clone, Debug)]
pub struct Gathered<T> {
    /// Grid extent.
    pub grid: [usize; 3],
    /// What the app's read-back gave for every cell, x fastest.
    pub values: Vec<T>,
    /// Each rank's box when the run started and when it ended.
    pub boxes: Vec<[Box3; 2]>,
    /// Each rank's halo bytes sent over the whole run (the driver's count).
    pub halo_bytes: Vec<u64>,
    /// The rebalances, in order.
    pub history: Vec<Rebalance>,
    /// Steps run.
    pub steps: u64,
}

/// The layout every rank starts from, made once before the ranks start.
#[allow(clippy::large_enum_variant)] // one per run, shared by reference
enum Start {
    Tensor(Plan),
    Boxes(BoxOwners),
}

/// Runs `steps` steps of the app on `ranks`, laid out by `plan`: every rank builds its chunk
/// with `make(box)` — the box it holds, initial values set on its cells (its ghosts are
/// exchanged before the first step) — and after the last step reads its owned cells back
/// with `read(chunk, region, out)` (x fastest). The root (the calling thread for sim and
/// shm, rank 0 of an MPI job) gets `Some` of the whole grid, the other MPI processes `None`.
///
/// The cost of a cell is the chunk's [`Chunk::work`] of one cell: `make` is first called for
/// the one cell at the origin (so it must set values only inside the box it is given), and
/// static plans and the balancer weigh every cell alike by it.
pub fn run<C, F, R>(
    ranks: &Ranks,
    plan: &RunPlan,
    steps: u64,
    make: F,
    read: R,
) -> Result<Option<Gathered<C::Value>>, RuntimeError>
where
    C: Chunk,
    F: Fn(Box3) -> C + Sync,
    R: Fn(&C, Box3, &mut [C::Value]) + Sync,
{
    let active = plan.active();
    let origin = Box3::new([0; 3], [1; 3]);
    let probe = make(origin);
    let (cost, ghost) = (probe.work(origin), probe.ghost());
    drop(probe);
    if plan.checkpoints.as_ref().is_some_and(|c| c.every == 0) {
        return Err(RuntimeError::new(
            RuntimeErrorKind::Options,
            "checkpoints every 0 steps: give at least 1",
        ));
    }
    let saved = match &plan.resume {
        Some(dir) => Some(
            app_checkpoint::latest(dir, plan.grid, size_of::<C::Value>())?.ok_or_else(|| {
                RuntimeError::new(
                    RuntimeErrorKind::Checkpoint,
                    format!("no checkpoint to resume from in {}", dir.display()),
                )
            })?,
        ),
        None => None,
    };
    let mut start = start(plan, ranks.count(), cost, active)?;
    if let Some(saved) = &saved {
        continue_layout(&mut start, saved, layout_name(plan.layout));
    }
    let density = uniform_density(cost);
    let comm_topology = match &start {
        Start::Tensor(p) => p.topology,
        Start::Boxes(_) => Topology([ranks.count(), 1, 1]),
    };
    let at = Rank {
        chunk: core::marker::PhantomData,
        start: &start,
        density: &density,
        ghost,
        grid: plan.grid,
        layout: layout_name(plan.layout),
        first: saved.as_ref().map_or(0, |s| s.index.step),
        steps,
        checkpoints: plan.checkpoints.as_ref(),
        resume: saved.as_ref(),
        make: &make,
        read: &read,
    };
    let model = plan.model.clone();
    let results = match in_process(ranks.comm(), comm_topology, model, &plan.slowdown, &at) {
        Some(results) => results,
        #[cfg(feature = "mpi")]
        None => {
            use mpi::topology::{Communicator, SimpleCommunicator};
            let world = SimpleCommunicator::world();
            let me = world.rank() as usize;
            let mut c = yee_comm_mpi::MpiComm::new(&world, comm_topology, plan.periodic)
                .map_err(|e| RuntimeError::new(RuntimeErrorKind::Mpi, e.to_string()))?
                .with_slowdown(plan.slowdown.get(me).copied().unwrap_or_default());
            vec![at.run(&mut c)]
        }
        #[cfg(not(feature = "mpi"))]
        None => return Err(crate::parallel::mpi_missing()),
    };
    let mut root = None;
    for (r, result) in results.into_iter().enumerate() {
        match result {
            Ok(Some(g)) => root = Some(g),
            Ok(None) => {}
            Err(e) => {
                return Err(RuntimeError::new(
                    e.kind(),
                    format!("rank {r}: {}", e.message()),
                ));
            }
        }
    }
    Ok(root)
}

/// The layout of `plan` over `count` ranks for cells of work `cost`.
fn start(
    plan: &RunPlan,
    count: usize,
    cost: f64,
    active: [bool; 3],
) -> Result<Start, RuntimeError> {
    let layout_error = |e: String| {
        RuntimeError::new(
            RuntimeErrorKind::Layout,
            format!("cannot lay out {:?} over {count} ranks: {e}", plan.grid),
        )
    };
    let options = |m: String| RuntimeError::new(RuntimeErrorKind::Options, m);
    if !(cost.is_finite() && cost > 0.0) {
        return Err(options(format!(
            "the chunk's work of one cell is {cost}; it must be positive and finite"
        )));
    }
    let speeds = plan.speeds.clone().unwrap_or_else(|| vec![1.0; count]);
    if speeds.len() != count || speeds.iter().any(|s| !(s.is_finite() && *s > 0.0)) {
        return Err(options(format!(
            "speeds {speeds:?}: give one positive, finite speed per rank ({count})"
        )));
    }
    let dims = active.iter().filter(|&&a| a).count();
    let topology = match plan.topology {
        Some(t) if t.ranks() == count => t,
        Some(t) => {
            return Err(options(format!(
                "topology {:?} has {} ranks, the run {count}",
                t.0,
                t.ranks()
            )));
        }
        None => {
            choose_topology(plan.grid, dims, count, 1)
                .map_err(|e| layout_error(format!("{e:?}")))?
                .topology
        }
    };
    let params = plan.balance.unwrap_or(BalanceParams {
        min_width: 1,
        ..BalanceParams::default()
    });
    let density = uniform_density(cost);
    if plan.layout != LayoutKind::Tensor {
        if plan.periodic.iter().any(|&p| p) {
            return Err(options(
                "jagged and k-d layouts need walls on every face (no periodic axis)".into(),
            ));
        }
        let mut boxes = vec![Box3::new([0; 3], [0; 3]); count];
        match plan.layout {
            LayoutKind::Kd => kd_layout(plan.grid, active, &speeds, &density, 1, &mut boxes),
            _ => jagged_layout(
                plan.grid, active, topology, &speeds, &density, 1, &mut boxes,
            ),
        }
        .map_err(|e| layout_error(format!("{e:?}")))?;
        let cut = match plan.layout {
            LayoutKind::Kd => BoxCut::Kd,
            _ => BoxCut::Jagged(topology),
        };
        return Ok(Start::Boxes(match plan.balance {
            Some(params) => {
                BoxOwners::Balanced(BoxBalancer::new(cut, plan.grid, active, params, boxes))
            }
            None => BoxOwners::Fixed(BoxLayout {
                grid: plan.grid,
                boxes,
            }),
        }));
    }
    let mut tensor = Plan {
        topology,
        borders: uniform_layout_borders(plan.grid, topology),
        periodic: plan.periodic,
        active,
        balancer: None,
        overlap: plan.overlap,
    };
    let slices = core::array::from_fn(|a| {
        let mut out = vec![0.0; plan.grid[a]];
        density(Box3::from_extent(plan.grid), a, &mut out);
        out
    });
    let mut balancer = Balancer::new(topology, dims, slices, params);
    if plan.speeds.is_some() {
        balancer = balancer.with_speeds(&speeds);
        let total = cost * plan.grid.iter().product::<usize>() as f64;
        tensor.borders = balancer
            .decide(total, 0.0)
            .map_err(|e| layout_error(format!("{e:?}")))?
            .borders;
    }
    tensor.balancer = plan.balance.is_some().then_some(balancer);
    Ok(Start::Tensor(tensor))
}

/// Every cell of work `cost`: a one-cell slice across `axis` weighs `cost` times its cells.
fn uniform_density(cost: f64) -> impl Fn(Box3, usize, &mut [f64]) + Sync {
    move |region: Box3, axis: usize, out: &mut [f64]| {
        let e = region.extent();
        let across: usize = (0..3).filter(|&b| b != axis).map(|b| e[b]).product();
        out.fill(cost * across as f64);
    }
}

/// What every rank runs, whichever communicator it talks through.
struct Rank<'a, C, D, F, R> {
    chunk: core::marker::PhantomData<fn() -> C>,
    start: &'a Start,
    density: &'a D,
    ghost: [usize; 3],
    grid: [usize; 3],
    layout: &'a str,
    first: u64,
    steps: u64,
    checkpoints: Option<&'a AppCheckpoints>,
    resume: Option<&'a Saved>,
    make: &'a F,
    read: &'a R,
}

/// Where a rank's run stands between segments.
#[allow(clippy::large_enum_variant)] // one per rank, moved once per segment
enum At<'a> {
    Tensor(&'a Plan, session::Start),
    Boxes(BoxOwners),
}

impl At<'_> {
    /// Moves the start to `step` (a resumed run).
    fn set_step(&mut self, step: u64) {
        if let At::Tensor(_, start) = self {
            start.step = step;
        }
    }

    /// The box rank `me` owns.
    fn held(&self, me: usize) -> Box3 {
        match self {
            At::Tensor(plan, start) => start.owned_box(plan, me),
            At::Boxes(owners) => owners.layout().boxes[me],
        }
    }

    /// The box rank `me`'s chunk holds.
    fn chunk_box(&self, me: usize, ghost: [usize; 3]) -> Box3 {
        match self {
            At::Tensor(..) => self.held(me),
            At::Boxes(owners) => owners.layout().chunk_box(me, ghost),
        }
    }

    /// The cells rank `me` owns, as boxes.
    fn owned(&self, me: usize) -> Vec<Box3> {
        match self {
            At::Tensor(..) => vec![self.held(me)],
            At::Boxes(owners) => owners.layout().owned(me),
        }
    }
}

/// Bytes of a box in a gathered message.
const BOX_BYTES: usize = 48;

impl<C, D, F, R> RankBody for Rank<'_, C, D, F, R>
where
    C: Chunk,
    D: Fn(Box3, usize, &mut [f64]) + Sync,
    F: Fn(Box3) -> C + Sync,
    R: Fn(&C, Box3, &mut [C::Value]) + Sync,
{
    type Output = Result<Option<Gathered<C::Value>>, RuntimeError>;

    /// This rank's run; its owned values gathered on rank 0.
    fn run<M: Comm<Error: std::fmt::Display>>(&self, comm: &mut M) -> Self::Output {
        let me = comm.rank();
        let rank_error = |e: M::Error| RuntimeError::new(RuntimeErrorKind::Rank, e.to_string());
        let mut at = match self.start {
            Start::Tensor(plan) => At::Tensor(plan, session::Start::of(plan)),
            Start::Boxes(owners) => At::Boxes(owners.clone()),
        };
        at.set_step(self.first);
        let first = at.held(me);
        let mut chunk = (self.make)(at.chunk_box(me, self.ghost));
        if let Some(saved) = self.resume {
            let restored = app_checkpoint::restore(saved, self.make, &mut chunk, &at.owned(me));
            let mut all = vec![0.0; comm.size()];
            comm.all_gather(&[f64::from(u8::from(restored.is_ok()))], &mut all)
                .map_err(rank_error)?;
            restored?;
            if let Some(r) = all.iter().position(|&ok| ok == 0.0) {
                return Err(RuntimeError::new(
                    RuntimeErrorKind::Checkpoint,
                    format!("rank {r} could not restore its part of the checkpoint"),
                ));
            }
        }
        let (mut records, mut history) = (StepLog::default(), Vec::new());
        let mut step = self.first;
        while step < self.steps {
            let until = match self.checkpoints {
                Some(c) => (step / c.every + 1) * c.every,
                None => self.steps,
            };
            let error = |e| RuntimeError::from_step(&e);
            (chunk, at) = match at {
                At::Tensor(plan, start) => {
                    let (chunk, log) =
                        run_steps_from(plan, start, until, self.steps, comm, chunk, |_, _| false)
                            .map_err(error)?;
                    let ranks = plan.topology.ranks();
                    history.extend(log.history.iter().map(|h| {
                        Rebalance {
                            step: h.step,
                            action: h.action.clone(),
                            predicted_seconds: h.predicted_seconds,
                            measured_seconds: h.measured_seconds,
                            boxes: (0..ranks)
                                .map(|r| plan.layout(&h.borders).chunk_box(r))
                                .collect(),
                        }
                    }));
                    let next = log.end();
                    records.append(log.records);
                    (chunk, At::Tensor(plan, next))
                }
                At::Boxes(owners) => {
                    let span = [step, until, self.steps];
                    let (chunk, log) =
                        run_box_steps(owners, self.density, span, comm, chunk).map_err(error)?;
                    history.extend(log.history.into_iter().map(|(step, d)| Rebalance {
                        step,
                        action: d.action,
                        predicted_seconds: d.predicted_seconds,
                        measured_seconds: d.measured_seconds,
                        boxes: d.boxes,
                    }));
                    records.append(log.records);
                    (chunk, At::Boxes(log.owners))
                }
            };
            step = until.min(self.steps);
            if let (Some(config), true) = (self.checkpoints, step < self.steps) {
                let (owned, held) = (at.owned(me), at.held(me));
                app_checkpoint::write(
                    config,
                    step,
                    self.layout,
                    self.grid,
                    &mut chunk,
                    &owned,
                    held,
                    comm,
                )?;
            }
        }
        let (owned, boxes) = (at.owned(me), [first, at.held(me)]);
        let halo_bytes = records.totals.bytes_sent;
        let mut message = Vec::new();
        message.extend(halo_bytes.to_le_bytes());
        message.extend((owned.len() as u64).to_le_bytes());
        for b in boxes.iter().chain(&owned) {
            for v in b.lo.iter().chain(&b.hi) {
                message.extend(v.to_le_bytes());
            }
        }
        for &b in &owned {
            let mut values = vec![<C::Value as bytemuck::Zeroable>::zeroed(); b.cells()];
            (self.read)(&chunk, b, &mut values);
            message.extend_from_slice(bytemuck::cast_slice(&values));
        }
        let all = comm
            .gather_vecs(0, &message)
            .map_err(|e| RuntimeError::new(RuntimeErrorKind::Rank, e.to_string()))?;
        let Some(all) = all else { return Ok(None) };
        let whole = Box3::from_extent(self.grid);
        let mut out = Gathered {
            grid: self.grid,
            values: vec![<C::Value as bytemuck::Zeroable>::zeroed(); whole.cells()],
            boxes: Vec::new(),
            halo_bytes: Vec::new(),
            history,
            steps: self.steps,
        };
        for message in &all {
            let word = |k: usize| {
                u64::from_le_bytes(message[8 * k..8 * k + 8].try_into().unwrap_or_default())
            };
            let a_box = |k: usize| {
                let at = 16 + k * BOX_BYTES;
                let v = |j: usize| word(at / 8 + j) as i64;
                Box3::new([v(0), v(1), v(2)], [v(3), v(4), v(5)])
            };
            out.halo_bytes.push(word(0));
            let n = word(1) as usize;
            out.boxes.push([a_box(0), a_box(1)]);
            let mut at = 16 + (2 + n) * BOX_BYTES;
            for k in 0..n {
                let b = a_box(2 + k);
                let len = b.cells() * size_of::<C::Value>();
                let values: Vec<C::Value> = bytemuck::pod_collect_to_vec(&message[at..at + len]);
                for (i, v) in values.into_iter().enumerate() {
                    out.values[whole.linear_index(b.index_at(i))] = v;
                }
                at += len;
            }
        }
        Ok(Some(out))
    }
}

/// A resumed run on the layout it was written on (as many ranks, the same kind of layout)
/// continues with the saved borders or boxes; otherwise it starts from the plan's own and
/// every rank takes its cells from whichever saved boxes hold them.
fn continue_layout(start: &mut Start, saved: &Saved, layout: &str) {
    let boxes: Vec<Box3> = saved
        .index
        .rank_boxes
        .iter()
        .map(|b| Box3::new(b[0], b[1]))
        .collect();
    if saved.index.layout != layout {
        return;
    }
    if let Start::Boxes(owners) = start {
        if boxes.len() == owners.layout().boxes.len() {
            *owners = match owners {
                BoxOwners::Fixed(l) => BoxOwners::Fixed(BoxLayout {
                    grid: l.grid,
                    boxes,
                }),
                BoxOwners::Balanced(b) => BoxOwners::Balanced(b.with_boxes(boxes)),
            };
        }
        return;
    }
    match start {
        Start::Tensor(plan) if boxes.len() == plan.topology.ranks() => {
            let borders: [Vec<i64>; 3] = core::array::from_fn(|a| {
                let n = plan.topology.0[a];
                let stride: usize = plan.topology.0[..a].iter().product();
                let mut b: Vec<i64> = (0..n).map(|i| boxes[i * stride].lo[a]).collect();
                b.push(boxes[(n - 1) * stride].hi[a]);
                b
            });
            let same = (0..boxes.len()).all(|r| plan.layout(&borders).chunk_box(r) == boxes[r]);
            if same {
                plan.borders = borders;
            }
        }
        _ => {}
    }
}
