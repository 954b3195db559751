//! Decomposed runs: on the in-process communicators (one thread per rank) or, with the `mpi`
//! feature, as one rank of an MPI job; the generic driver, and whole fields gathered on rank 0
//! at output steps.

use std::sync::{Barrier, Mutex};

use yee_comm_shm::Slowdown;
use yee_comm_sim::MachineModel;
use yee_core::session::Plan;
use yee_core::session::Start;
use yee_core::{Box3, Scalar};
use yee_em::{Setup, YeeBackend, YeeFields};
use yee_scalar::checkpoints::{Checkpoints, NoCheckpoints};
use yee_scalar::decomposed::{RankOutput, run_rank_with};

use crate::checkpoint::{CheckpointConfig, Loaded, RankCheckpoints, StopFlag};
pub use crate::launch::CommKind;
use crate::launch::{RankBody, in_process};

use crate::error::RuntimeError;
use crate::piece::{Assembled, assemble_pieces, finish_output, piece_of};

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
/// `slowdown[r]` making rank `r` sleep on shm and MPI), from the checkpoint and with the
/// checkpoints `continuity` names, calling `on_output(step, fields)` on
/// the writing rank at every step `wants_output` selects and `progress(step)` after each step.
/// Returns the ranks' outputs in rank order on the writing rank, `None` on the other processes
/// of an MPI job.
#[allow(clippy::too_many_arguments)]
pub fn run_decomposed<T: Scalar, B: YeeBackend<T>>(
    setup: &Setup,
    plan: &Plan,
    costs: yee_em::Costs,
    backend: B,
    comm: CommKind,
    model: Option<MachineModel>,
    slowdown: &[Slowdown],
    steps: u64,
    continuity: &Continuity<'_>,
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
    let one = One {
        setup,
        plan,
        costs,
        backend: &backend,
        steps,
        continuity,
        body: &body,
    };
    if let Some(results) = in_process(comm, topology, model, slowdown, &one) {
        return results.into_iter().collect::<Result<_, _>>().map(Some);
    }
    #[cfg(feature = "mpi")]
    return crate::mpi::run_rank(
        setup,
        plan,
        costs,
        backend,
        slowdown,
        steps,
        continuity,
        wants_output,
        on_output,
        progress,
    );
    #[cfg(not(feature = "mpi"))]
    Err(mpi_missing())
}

/// One rank of [`run_decomposed`], whichever communicator it talks through.
struct One<'a, 's, T: Scalar, B: YeeBackend<T>> {
    setup: &'a Setup<'s>,
    plan: &'a Plan,
    costs: yee_em::Costs,
    backend: &'a B,
    steps: u64,
    continuity: &'a Continuity<'a>,
    body: &'a AfterStep<'a, B::Chunk<'s>>,
}

impl<T: Scalar, B: YeeBackend<T>> RankBody for One<'_, '_, T, B>
where
    Self: Sync,
{
    type Output = Result<RankOutput<T>, RuntimeError>;

    fn run<M: yee_core::Comm<Error: std::fmt::Display>>(&self, comm: &mut M) -> Self::Output {
        let rank = comm.rank();
        run_rank_continued(
            self.setup,
            self.plan,
            self.costs,
            self.backend,
            comm,
            self.steps,
            self.continuity,
            |s, chunk| (self.body)(rank, s, chunk),
        )
    }
}

/// What [`CommKind::Mpi`] gets in a build without the `mpi` feature.
#[cfg(not(feature = "mpi"))]
pub(crate) fn mpi_missing() -> RuntimeError {
    RuntimeError::new(
        crate::error::RuntimeErrorKind::Mpi,
        "--comm mpi: this build was made without MPI (the `mpi` feature of yee-runtime; \
         needs libopenmpi-dev)",
    )
}

/// How a decomposed run continues an earlier one and keeps checkpoints of its own; the
/// default is a fresh run with none.
#[derive(Clone, Copy, Default)]
pub struct Continuity<'a> {
    /// The checkpoint it resumes from.
    pub resume: Option<&'a Loaded>,
    /// Its own checkpoints (without them a signal is not watched).
    pub checkpoints: Option<&'a CheckpointConfig>,
    /// Set by a signal: every rank stops at an agreed step and a checkpoint is written.
    pub stop: Option<&'a StopFlag>,
    /// What the writing rank keeps in each checkpoint's index.
    pub app: Option<&'a (dyn Fn() -> serde_json::Value + Sync)>,
    /// The ranks' outputs leave out the final fields (a run that gathered its outputs while
    /// stepping): no second copy of the fields at the end of the run.
    pub drop_fields: bool,
    /// Ends the run when its fields have decayed ([`yee_em::decay`]), at a step every rank
    /// agrees on.
    pub until_decayed: Option<yee_em::DecayRule>,
    /// The steps whose fields are read (outputs); between them a rank alone in the run may
    /// advance several steps at once (temporal blocking). `None`: every step is read.
    pub observed: Option<&'a (dyn Fn(u64) -> bool + Sync)>,
}

/// One rank of a decomposed run: its chunk built for its box of where the run starts, the
/// checkpoint restored into it (every rank learns whether every rank could), the probe samples
/// before it on rank 0, then the steps, cut at the checkpoints `continuity` asks for.
#[allow(clippy::too_many_arguments)]
pub fn run_rank_continued<'s, T, B, M>(
    setup: &Setup<'s>,
    plan: &Plan,
    costs: yee_em::Costs,
    backend: &B,
    comm: &mut M,
    steps: u64,
    continuity: &Continuity<'_>,
    after_step: impl FnMut(u64, &mut B::Chunk<'s>),
) -> Result<RankOutput<T>, RuntimeError>
where
    T: Scalar,
    B: YeeBackend<T>,
    M: yee_core::Comm<Error: std::fmt::Display>,
{
    let rank = comm.rank();
    let start = continuity
        .resume
        .map_or_else(|| Start::of(plan), |l| l.start(plan));
    let owned = start.owned_box(plan, rank);
    let backend = &backend.for_rank(rank, comm.size());
    let mut chunk = backend.build(setup, owned, costs).map_err(|e| {
        RuntimeError::from_step(&yee_core::driver::StepError::<_, String>::Chunk(e))
    })?;
    let prior = restore_agreed(
        continuity,
        backend,
        setup,
        costs,
        &mut chunk,
        &[owned],
        comm,
    )?;
    let mut hooks = rank_hooks(continuity, rank, setup);
    let result = run_rank_with(
        setup,
        plan,
        start,
        chunk,
        prior,
        comm,
        steps,
        &mut *hooks,
        continuity.observed.unwrap_or(&|_| true),
        after_step,
    );
    result.map_err(|e| RuntimeError::from_step(&e))
}

/// Restores the checkpoint `continuity` resumes from (if any) into `owned`, the boxes of
/// `chunk` this rank owns, and agrees with every rank that each could; returns the probe
/// samples before it (all of them on rank 0, none elsewhere).
pub(crate) fn restore_agreed<'s, T, B, M>(
    continuity: &Continuity<'_>,
    backend: &B,
    setup: &Setup<'s>,
    costs: yee_em::Costs,
    chunk: &mut B::Chunk<'s>,
    owned: &[Box3],
    comm: &mut M,
) -> Result<Vec<Vec<(u64, T)>>, RuntimeError>
where
    T: Scalar,
    B: YeeBackend<T>,
    M: yee_core::Comm<Error: std::fmt::Display>,
{
    let none = vec![Vec::new(); setup.probes.len()];
    let Some(loaded) = continuity.resume else {
        return Ok(none);
    };
    let restored = loaded
        .restore(backend, setup, costs, chunk, owned)
        .and_then(|()| match comm.rank() {
            0 => loaded.probe_samples(setup.probes.len()),
            _ => Ok(none),
        });
    let mut all = vec![0.0; comm.size()];
    comm.all_gather(&[f64::from(u8::from(restored.is_ok()))], &mut all)
        .map_err(|e| RuntimeError::new(crate::RuntimeErrorKind::Rank, e.to_string()))?;
    let prior = restored?;
    if let Some(r) = all.iter().position(|&ok| ok == 0.0) {
        return Err(RuntimeError::new(
            crate::RuntimeErrorKind::Checkpoint,
            format!("rank {r} could not restore its part of the checkpoint"),
        ));
    }
    Ok(prior)
}

/// The checkpoint hooks of `rank` that `continuity` asks for: none, or files written by
/// [`RankCheckpoints`].
pub(crate) fn rank_hooks<'a, C: YeeFields + 'a>(
    continuity: &Continuity<'a>,
    rank: usize,
    setup: &'a Setup<'a>,
) -> Box<dyn Checkpoints<C> + 'a> {
    let keep_fields = !continuity.drop_fields;
    let hooks: Box<dyn Checkpoints<C> + 'a> = match continuity.checkpoints {
        Some(config) => Box::new(
            RankCheckpoints::new(
                config,
                rank,
                setup,
                continuity.stop.cloned(),
                continuity.app.unwrap_or(NO_APP),
            )
            .keeping_fields(keep_fields),
        ),
        None => Box::new(NoCheckpoints { keep_fields }),
    };
    match continuity.until_decayed {
        Some(rule) => Box::new(Decaying { hooks, rule }),
        None => hooks,
    }
}

/// Checkpoint hooks with a decay rule ([`Checkpoints::until_decayed`]).
struct Decaying<'a, C: YeeFields> {
    hooks: Box<dyn Checkpoints<C> + 'a>,
    rule: yee_em::DecayRule,
}

impl<C: YeeFields> Checkpoints<C> for Decaying<'_, C> {
    fn next_due(&self, step: u64) -> Option<u64> {
        self.hooks.next_due(step)
    }

    fn wants_stop(&mut self) -> bool {
        self.hooks.wants_stop()
    }

    fn interrupted(&self) -> bool {
        self.hooks.interrupted()
    }

    fn save(
        &mut self,
        chunk: &mut C,
        probes: &yee_scalar::checkpoints::ProbeSamples<C::Value>,
        at: &yee_scalar::checkpoints::Cut,
    ) -> Result<yee_scalar::checkpoints::SavedPart, String> {
        self.hooks.save(chunk, probes, at)
    }

    fn commit(
        &mut self,
        at: &yee_scalar::checkpoints::Cut,
        parts: &[Option<yee_scalar::checkpoints::SavedPart>],
    ) -> Result<(), String> {
        self.hooks.commit(at, parts)
    }

    fn keeps_fields(&self) -> bool {
        self.hooks.keeps_fields()
    }

    fn until_decayed(&self) -> Option<yee_em::DecayRule> {
        Some(self.rule)
    }
}

/// What a checkpoint's index keeps for an application that adds nothing.
const NO_APP: &(dyn Fn() -> serde_json::Value + Sync) = &|| serde_json::Value::Null;
