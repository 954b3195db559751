//! Decomposed runs: on the in-process communicators (one thread per rank) or, with the `mpi`
//! feature, as one rank of an MPI job; the generic driver, and whole fields gathered on rank 0
//! at output steps.

use std::sync::{Barrier, Mutex};

use yee_comm_shm::Slowdown;
use yee_comm_sim::MachineModel;
use yee_core::Scalar;
use yee_core::session::Plan;
use yee_em::{Setup, YeeBackend};
use yee_scalar::decomposed::{RankOutput, run_rank_on};

use crate::error::RuntimeError;
use crate::piece::{Assembled, assemble_pieces, finish_output, piece_of};

/// The communicators this build has.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[serde(rename_all = "lowercase")]
pub enum CommKind {
    /// Threads with real clocks.
    Shm,
    /// Threads with virtual clocks from a machine model.
    Sim,
    /// One rank per process under mpirun (needs a build with the `mpi` feature).
    Mpi,
}

/// This process's rank when `comm` spans processes (MPI), else 0: the rank that writes.
pub fn process_rank(comm: CommKind) -> usize {
    match comm {
        #[cfg(feature = "mpi")]
        CommKind::Mpi => crate::mpi::world_rank(),
        _ => 0,
    }
}

/// What each rank does after a step: `(rank, step, chunk)`.
type AfterStep<'a, C> = dyn Fn(usize, u64, &mut C) + Sync + 'a;

/// The output step of in-process ranks: each deposits its piece, and rank 0 turns them all
/// into whole fields and hands them on, while the others wait.
pub struct OutputGather<P> {
    barrier: Barrier,
    pieces: Mutex<Vec<Option<P>>>,
}

impl<P> OutputGather<P> {
    /// A gather for `ranks` ranks.
    pub fn new(ranks: usize) -> Self {
        OutputGather {
            barrier: Barrier::new(ranks),
            pieces: Mutex::new((0..ranks).map(|_| None).collect()),
        }
    }

    /// Called by every rank after step `step`: reports progress on rank 0 and, at the steps
    /// `wants_output` selects, deposits `piece()` and lets rank 0 call `finish(pieces)` (in
    /// rank order) before any rank goes on.
    pub fn after_step(
        &self,
        rank: usize,
        step: u64,
        progress: &(dyn Fn(u64) + Sync),
        wants_output: &(dyn Fn(u64) -> bool + Sync),
        piece: impl FnOnce() -> P,
        finish: impl FnOnce(Vec<P>),
    ) {
        if rank == 0 {
            progress(step);
        }
        if !wants_output(step) {
            return;
        }
        let lock = || self.pieces.lock().unwrap_or_else(|p| p.into_inner());
        lock()[rank] = Some(piece());
        self.barrier.wait();
        if rank == 0 {
            let collected: Vec<P> = lock()
                .iter_mut()
                .map(|p| {
                    p.take()
                        .expect("every rank deposits its piece before the barrier")
                })
                .collect();
            finish(collected);
        }
        self.barrier.wait();
    }
}

/// Runs `setup` for `steps` steps laid out by `plan` on `comm` (with `model` for sim, and
/// `slowdown[r]` making rank `r` sleep on shm and MPI), calling `on_output(step, fields)` on
/// the writing rank at every step `wants_output` selects and `progress(step)` after each step.
/// Returns the ranks' outputs in rank order on the writing rank, `None` on the other processes
/// of an MPI job.
pub fn run_decomposed<T: Scalar, B: YeeBackend<T>>(
    setup: &Setup,
    plan: &Plan,
    costs: yee_em::Costs,
    backend: B,
    comm: CommKind,
    model: Option<MachineModel>,
    slowdown: &[Slowdown],
    steps: u64,
    wants_output: &(dyn Fn(u64) -> bool + Sync),
    on_output: &(dyn Fn(u64, &Assembled<T>) + Sync),
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Option<Vec<RankOutput<T>>>, RuntimeError> {
    let topology = plan.topology;
    let ranks = topology.ranks();
    let gather = OutputGather::new(ranks);
    let body = |rank: usize, step: u64, chunk: &mut B::Chunk<'_>| {
        gather.after_step(
            rank,
            step,
            progress,
            wants_output,
            || piece_of(chunk),
            |pieces| {
                finish_output(step, pieces, |p| {
                    on_output(step, &assemble_pieces(setup, p))
                })
            },
        );
    };
    /// One rank's run, whichever communicator it talks through.
    fn one<'s, T: Scalar, B: YeeBackend<T>, M: yee_core::Comm<Error: std::fmt::Display>>(
        setup: &Setup<'s>,
        plan: &Plan,
        costs: yee_em::Costs,
        backend: &B,
        comm: &mut M,
        steps: u64,
        body: &AfterStep<'_, B::Chunk<'s>>,
    ) -> Result<RankOutput<T>, RuntimeError> {
        let rank = comm.rank();
        run_rank_on(setup, plan, costs, backend, comm, steps, |s, chunk| {
            body(rank, s, chunk)
        })
        .map_err(|e| RuntimeError::from_step(&e))
    }
    let results = match comm {
        CommKind::Shm => yee_comm_shm::launch_slowed(topology, slowdown, |mut c| {
            one(setup, plan, costs, &backend, &mut c, steps, &body)
        }),
        CommKind::Sim => {
            let model = model.unwrap_or_else(|| MachineModel::default_for(ranks));
            yee_comm_sim::launch(topology, model, |mut c| {
                one(setup, plan, costs, &backend, &mut c, steps, &body)
            })
        }
        #[cfg(feature = "mpi")]
        CommKind::Mpi => {
            return crate::mpi::run_rank(
                setup,
                plan,
                costs,
                backend,
                slowdown,
                steps,
                wants_output,
                on_output,
                progress,
            );
        }
        #[cfg(not(feature = "mpi"))]
        CommKind::Mpi => return Err(mpi_missing()),
    };
    results.into_iter().collect::<Result<_, _>>().map(Some)
}

/// What [`CommKind::Mpi`] gets in a build without the `mpi` feature.
#[cfg(not(feature = "mpi"))]
fn mpi_missing() -> RuntimeError {
    RuntimeError::new(
        crate::error::RuntimeErrorKind::Mpi,
        "--comm mpi: this build was made without MPI (the `mpi` feature of yee-runtime; \
         needs libopenmpi-dev)",
    )
}
