//! Ranks as threads of this process, on the simulated or the shared-memory communicator,
//! behind one call: what every in-process run — a Yee run ([`crate::parallel`],
//! [`crate::tiled`]) or any app ([`crate::app`]) — starts its ranks with. MPI ranks are
//! processes, each running its own rank ([`crate::mpi`]).

use yee_comm_shm::Slowdown;
use yee_comm_sim::MachineModel;
use yee_core::{Comm, Topology};

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

/// What every rank of a run does, whichever communicator it talks through.
pub trait RankBody: Sync {
    /// What a rank returns.
    type Output: Send;

    /// The run of rank `comm.rank()`.
    fn run<M: Comm<Error: std::fmt::Display>>(&self, comm: &mut M) -> Self::Output;
}

/// Runs `body` on every rank of `topology` as threads of this process: with virtual clocks
/// from `model` ([`CommKind::Sim`]; every rank at the same speed when `None`) or with real
/// clocks, rank `r` slowed by `slowdown[r]` ([`CommKind::Shm`]). Returns the ranks' outputs in
/// rank order, or `None` for [`CommKind::Mpi`], whose ranks are processes.
pub fn in_process<B: RankBody>(
    comm: CommKind,
    topology: Topology,
    model: Option<MachineModel>,
    slowdown: &[Slowdown],
    body: &B,
) -> Option<Vec<B::Output>> {
    match comm {
        CommKind::Sim => {
            let model = model.unwrap_or_else(|| MachineModel::default_for(topology.ranks()));
            Some(yee_comm_sim::launch(topology, model, |mut c| {
                body.run(&mut c)
            }))
        }
        CommKind::Shm => Some(yee_comm_shm::launch_slowed(topology, slowdown, |mut c| {
            body.run(&mut c)
        })),
        CommKind::Mpi => None,
    }
}
