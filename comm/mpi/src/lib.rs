//! # yee-comm-mpi
//!
//! One rank per process through rsmpi. [`MpiComm`] implements [`Comm`] on a Cartesian
//! communicator shaped like yee's virtual topology: each exchange posts every receive and every
//! send as a non-blocking request (`MPI_Irecv`, `MPI_Isend`), runs the overlapped interior
//! update, then waits (the kernel split of Kim & Park 2012); its variable-size gathers are
//! `MPI_Igatherv` and `MPI_Iallgatherv`. [`RootGather`] collects
//! variable-size byte messages at rank 0 on a communicator of its own (output pieces, the ranks'
//! records), and [`abort_on_panic`] turns a panicking rank into `MPI_Abort`, so a failure on
//! one process never leaves the others waiting. No wait blocks for ever: each polls under a
//! [`Watchdog`], which ends the job with one message when a rank stops answering.
#![warn(missing_docs)]

pub mod calibrate;
pub mod error;
pub mod launcher;
pub mod watchdog;

use std::time::Instant;

use mpi::datatype::{Equivalence, PartitionMut};
use mpi::point_to_point::MatchedReceiveVec;
use mpi::topology::{CartesianCommunicator, Communicator, SimpleCommunicator};
use mpi::traits::{CommunicatorCollectives, Destination, Root, Source};
use mpi::{Count, Rank};
use yee_comm_shm::{Sleeper, Slowdown};
use yee_core::comm::{ArgumentError, check_gather, gather_by_exchange};
use yee_core::decomposition::rank_coords;
use yee_core::{Comm, CommErrorKind, Incoming, Outgoing, Topology};

pub use error::MpiError;
pub use launcher::end_with_launcher;
pub use watchdog::{Awaited, Watchdog};

/// Up to this many ranks [`MpiComm::all_gather`] (the stop check every few steps, the
/// balancer's timings) sends every rank's values to every other rank point to point; beyond, it
/// is one `MPI_Iallgather`. Open MPI progresses non-blocking collectives (libnbc) on one
/// progress call in eight and yields the core on the others when ranks outnumber cores, which
/// made 4 processes on 2 cores 22 % slower than the blocking `MPI_Allgather` (docs/mpi.md);
/// point-to-point messages progress on every call.
const P2P_ALL_GATHER_RANKS: usize = 64;

/// One process's end of the MPI communicator.
pub struct MpiComm {
    cart: CartesianCommunicator,
    /// A duplicate of the world (same ranks as `cart`) for [`MpiComm::all_gather`]'s messages.
    all_gather_comm: SimpleCommunicator,
    topology: Topology,
    origin: Instant,
    sleeper: Sleeper,
    watchdog: Watchdog,
}

impl std::fmt::Debug for MpiComm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MpiComm")
            .field("rank", &self.cart.rank())
            .field("topology", &self.topology)
            .finish()
    }
}

impl MpiComm {
    /// The Cartesian communicator of `topology` over `world` (no reordering: yee's rank `r` is
    /// world rank `r`, x fastest). MPI orders Cartesian coordinates with the last one fastest,
    /// so the dimensions are given as (z, y, x). Fails when the process count differs from the
    /// topology's rank count, or when [`watchdog::TIMEOUT_VAR`] is not a number of seconds.
    pub fn new(
        world: &SimpleCommunicator,
        topology: Topology,
        periodic: [bool; 3],
    ) -> Result<MpiComm, MpiError> {
        let watchdog = Watchdog::from_env()?;
        let size = world.size() as usize;
        if size != topology.ranks() {
            return Err(MpiError::new(
                CommErrorKind::Other,
                format!(
                    "topology {:?} has {} ranks but mpirun started {size} processes",
                    topology.0,
                    topology.ranks()
                ),
            ));
        }
        let [nx, ny, nz] = topology.0.map(|n| n as mpi::Count);
        let [px, py, pz] = periodic;
        let cart = world
            .create_cartesian_communicator(&[nz, ny, nx], &[pz, py, px], false)
            .ok_or_else(|| {
                MpiError::new(
                    CommErrorKind::Other,
                    "MPI_Cart_create left this process out".into(),
                )
            })?;
        let comm = MpiComm {
            cart,
            all_gather_comm: world.duplicate(),
            topology,
            origin: Instant::now(),
            sleeper: Sleeper::new(Slowdown::default()),
            watchdog,
        };
        let mpi_coords = comm.cart.rank_to_coordinates(comm.cart.rank());
        let ours = comm.coords();
        if mpi_coords.iter().rev().map(|&c| c as usize).ne(ours) {
            return Err(MpiError::new(
                CommErrorKind::Other,
                format!(
                    "MPI places rank {} at {mpi_coords:?} (z, y, x), yee at {ours:?} (x, y, z)",
                    comm.rank()
                ),
            ));
        }
        Ok(comm)
    }
}

impl MpiComm {
    /// Makes this process sleep as `slowdown` says while it computes (a slow node, on demand).
    pub fn with_slowdown(mut self, slowdown: Slowdown) -> Self {
        self.sleeper = Sleeper::new(slowdown);
        self
    }

    /// Bounds this communicator's waits by `watchdog` instead of the one [`MpiComm::new`] read
    /// from the environment.
    pub fn with_watchdog(mut self, watchdog: Watchdog) -> Self {
        self.watchdog = watchdog;
        self
    }
}

impl Comm for MpiComm {
    type Error = MpiError;

    fn rank(&self) -> usize {
        self.cart.rank() as usize
    }

    fn size(&self) -> usize {
        self.cart.size() as usize
    }

    fn topology(&self) -> [usize; 3] {
        self.topology.0
    }

    fn coords(&self) -> [usize; 3] {
        rank_coords(self.rank(), self.topology)
    }

    /// A message shorter than its receive is a [`CommErrorKind::SizeMismatch`] (the status
    /// tells its length); a longer one is `MPI_ERR_TRUNCATE` (MPI 3.1 §3.2.4), which aborts
    /// the job under MPI's default error handler: rsmpi has no safe way to install another.
    fn exchange(
        &mut self,
        outgoing: &[Outgoing<'_>],
        incoming: &mut [Incoming<'_>],
        overlap: &mut dyn FnMut(&mut Self),
    ) -> Result<(), MpiError> {
        let mut mismatch = None;
        mpi::request::scope(|scope| {
            let mut receives = Vec::with_capacity(incoming.len());
            for Incoming {
                peer,
                route,
                bytes,
                waited,
                ..
            } in incoming.iter_mut()
            {
                let expected = bytes.len();
                let request = self
                    .cart
                    .process_at_rank(*peer as Rank)
                    .immediate_receive_into_with_tag(scope, &mut **bytes, route.tag().into());
                receives.push((request, waited, expected, *peer, *route));
            }
            let sends: Vec<_> = outgoing
                .iter()
                .map(|o| {
                    self.cart
                        .process_at_rank(o.peer as Rank)
                        .immediate_send_with_tag(scope, o.bytes, o.route.tag().into())
                })
                .collect();
            overlap(self);
            for (request, waited, expected, peer, route) in receives {
                let t = self.now_seconds();
                let status = self
                    .watchdog
                    .wait(Awaited::Rank(peer), "its halo message", request);
                *waited = self.now_seconds() - t;
                let got = status.count(u8::equivalent_datatype()) as usize;
                if got != expected && mismatch.is_none() {
                    mismatch = Some(format!(
                        "{route:?} from rank {peer} to rank {}: received {got} bytes, expected {expected}",
                        self.rank()
                    ));
                }
            }
            for (s, o) in sends.into_iter().zip(outgoing) {
                let to = Awaited::Rank(o.peer);
                self.watchdog.wait(to, "it to take a halo message", s);
            }
        });
        match mismatch {
            Some(m) => Err(MpiError::new(CommErrorKind::SizeMismatch, m)),
            None => Ok(()),
        }
    }

    fn all_gather(&mut self, mine: &[f64], all: &mut [f64]) -> Result<(), MpiError> {
        if all.len() != mine.len() * self.size() {
            return Err(MpiError::new(
                CommErrorKind::SizeMismatch,
                format!(
                    "all_gather of {} values per rank into {} for {} ranks",
                    mine.len(),
                    all.len(),
                    self.size()
                ),
            ));
        }
        if self.size() > P2P_ALL_GATHER_RANKS {
            let cart = &self.cart;
            mpi::request::scope(|scope| {
                let request = cart.immediate_all_gather_into(scope, mine, all);
                self.watchdog
                    .wait(Awaited::Everyone, "an all-gather", request);
            });
            return Ok(());
        }
        let (me, n) = (self.rank(), mine.len());
        if n == 0 {
            return Ok(());
        }
        all[me * n..(me + 1) * n].copy_from_slice(mine);
        let (comm, watchdog) = (&self.all_gather_comm, self.watchdog);
        mpi::request::scope(|scope| {
            let receives: Vec<_> = all
                .chunks_mut(n)
                .enumerate()
                .filter(|&(r, _)| r != me)
                .map(|(r, theirs)| {
                    let request = comm
                        .process_at_rank(r as Rank)
                        .immediate_receive_into(scope, theirs);
                    (r, request)
                })
                .collect();
            let sends: Vec<_> = (0..comm.size() as usize)
                .filter(|&r| r != me)
                .map(|r| {
                    (
                        r,
                        comm.process_at_rank(r as Rank).immediate_send(scope, mine),
                    )
                })
                .collect();
            for (r, request) in receives {
                watchdog.wait(Awaited::Rank(r), "its part of an all-gather", request);
            }
            for (r, request) in sends {
                watchdog.wait(
                    Awaited::Rank(r),
                    "it to take its part of an all-gather",
                    request,
                );
            }
        });
        Ok(())
    }

    /// `MPI_Iallgather` of the lengths.
    fn gather_lens(&mut self, mine: usize, lens: &mut [usize]) -> Result<(), MpiError> {
        if lens.len() != self.size() {
            let what = "gather_lens: lens.len() vs ranks";
            return Err(ArgumentError::size_mismatch(what, self.size(), lens.len()).into());
        }
        let cart = &self.cart;
        mpi::request::scope(|scope| {
            let request = cart.immediate_all_gather_into(scope, &mine, lens);
            self.watchdog
                .wait(Awaited::Everyone, "an all-gather", request);
        });
        Ok(())
    }

    /// `MPI_Igatherv`, or the point-to-point default where a length or offset exceeds MPI's
    /// 32-bit counts (every rank has the same `lens`, so every rank takes the same path).
    fn gather_bytes(
        &mut self,
        root: usize,
        mine: &[u8],
        lens: &[usize],
        all: &mut [u8],
    ) -> Result<(), MpiError> {
        let rank = self.rank();
        check_gather(rank, self.size(), Some(root), mine.len(), lens, all.len())?;
        if all_empty(lens) {
            return Ok(());
        }
        let Some((counts, displs)) = partition(lens) else {
            return gather_by_exchange(self, Some(root), mine, lens, all);
        };
        let mine = send_buffer(mine);
        let root_process = self.cart.process_at_rank(root as Rank);
        let watchdog = self.watchdog;
        // Only the root has a buffer the counts fit in (the others' `all` is empty).
        let mut partition = (rank == root).then(|| PartitionMut::new(all, counts, displs));
        mpi::request::scope(|scope| match partition.as_mut() {
            Some(partition) => {
                let request =
                    root_process.immediate_gather_varcount_into_root(scope, mine, partition);
                watchdog.wait(Awaited::Everyone, "a gather", request);
            }
            None => {
                let request = root_process.immediate_gather_varcount_into(scope, mine);
                watchdog.wait(Awaited::Everyone, "a gather", request);
            }
        });
        Ok(())
    }

    /// `MPI_Iallgatherv`, or the point-to-point default as in [`MpiComm::gather_bytes`].
    fn all_gather_bytes(
        &mut self,
        mine: &[u8],
        lens: &[usize],
        all: &mut [u8],
    ) -> Result<(), MpiError> {
        check_gather(self.rank(), self.size(), None, mine.len(), lens, all.len())?;
        if all_empty(lens) {
            return Ok(());
        }
        let Some((counts, displs)) = partition(lens) else {
            return gather_by_exchange(self, None, mine, lens, all);
        };
        let partition = &mut PartitionMut::new(all, counts, displs);
        let cart = &self.cart;
        mpi::request::scope(|scope| {
            let request =
                cart.immediate_all_gather_varcount_into(scope, send_buffer(mine), partition);
            self.watchdog
                .wait(Awaited::Everyone, "an all-gather", request);
        });
        Ok(())
    }

    fn now_seconds(&self) -> f64 {
        self.origin.elapsed().as_secs_f64()
    }

    fn compute_done(&mut self, cells: f64) {
        self.sleeper.compute_done(cells);
    }

    fn step_done(&mut self) {
        self.sleeper.step_done();
    }
}

/// An empty slice of bytes sits at the dangling address 1, which is Open MPI's `MPI_IN_PLACE`
/// (`mpi.h`: `#define MPI_IN_PLACE ((void *) 1)`): as a send buffer it would ask for an
/// in-place gather, which `MPI_Gatherv` refuses on a non-root rank (`MPI_ERR_ARG`) and
/// `MPI_Allgatherv` takes only from every rank at once. An empty slice of this static has a
/// real address.
static NOT_IN_PLACE: [u8; 1] = [0];

/// `mine`, at an address that cannot be mistaken for `MPI_IN_PLACE`.
fn send_buffer(mine: &[u8]) -> &[u8] {
    if mine.is_empty() {
        &NOT_IN_PLACE[..0]
    } else {
        mine
    }
}

/// Whether there is nothing to gather. A receiving rank's buffer is then empty, at the address
/// of `MPI_IN_PLACE` (see [`NOT_IN_PLACE`]), so every rank skips the collective (alike: they
/// all have the same `lens`).
fn all_empty(lens: &[usize]) -> bool {
    lens.iter().all(|&len| len == 0)
}

/// MPI's counts and displacements (32-bit) of messages of `lens` bytes laid end to end, or
/// `None` where one does not fit.
fn partition(lens: &[usize]) -> Option<(Vec<Count>, Vec<Count>)> {
    let counts = lens
        .iter()
        .map(|&len| Count::try_from(len).ok())
        .collect::<Option<Vec<_>>>()?;
    let mut displs = Vec::with_capacity(lens.len());
    let mut offset: Count = 0;
    for &count in &counts {
        displs.push(offset);
        offset = offset.checked_add(count)?;
    }
    Some((counts, displs))
}

/// Collects byte messages of any size at rank 0, on a communicator of its own so that they
/// never match an exchange. [`Comm::gather_vecs`] of [`MpiComm`] with root 0 gives rank 0 the
/// same messages in the same order.
pub struct RootGather {
    comm: SimpleCommunicator,
    watchdog: Watchdog,
}

impl RootGather {
    /// A gatherer over a duplicate of `world`, its waits bounded by the [`Watchdog`] of the
    /// environment (the default one when [`watchdog::TIMEOUT_VAR`] is not a number: the run's
    /// start-up check reports that).
    pub fn new(world: &SimpleCommunicator) -> RootGather {
        RootGather {
            comm: world.duplicate(),
            watchdog: Watchdog::from_env().unwrap_or_default(),
        }
    }

    /// Every rank contributes `mine`; rank 0 gets all contributions in rank order, the others
    /// `None`. Collective: every rank must call it the same number of times.
    pub fn gather(&self, mine: &[u8]) -> Option<Vec<Vec<u8>>> {
        if self.comm.rank() != 0 {
            mpi::request::scope(|scope| {
                let request = self.comm.process_at_rank(0).immediate_send(scope, mine);
                self.watchdog
                    .wait(Awaited::Rank(0), "it to gather the output", request);
            });
            return None;
        }
        let mut all = vec![mine.to_vec()];
        for r in 1..self.comm.size() {
            let from = self.comm.process_at_rank(r);
            let message =
                self.watchdog
                    .poll(Awaited::Rank(r as usize), "its part of the output", || {
                        from.immediate_matched_probe()
                    });
            let (bytes, _) = message.matched_receive_vec::<u8>();
            all.push(bytes);
        }
        Some(all)
    }

    /// Every rank contributes `mine` (the same length everywhere); every rank gets all of them
    /// concatenated in rank order.
    pub fn all_gather_fixed(&self, mine: &[u8]) -> Vec<u8> {
        let mut all = vec![0u8; mine.len() * self.comm.size() as usize];
        mpi::request::scope(|scope| {
            let request = self
                .comm
                .immediate_all_gather_into(scope, mine, &mut all[..]);
            self.watchdog
                .wait(Awaited::Everyone, "an all-gather", request);
        });
        all
    }
}

/// Makes a panic on this process print its message with the rank and then abort the whole job
/// (`MPI_Abort`), instead of leaving the other ranks waiting for messages that never come.
pub fn abort_on_panic(rank: usize) {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        eprint!("[rank {rank}] ");
        default(info);
        SimpleCommunicator::world().abort(101);
    }));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partition_lays_messages_end_to_end() {
        let (counts, displs) = partition(&[3, 0, 5, 1]).unwrap();
        assert_eq!(counts, [3, 0, 5, 1]);
        assert_eq!(displs, [0, 3, 3, 8]);
    }

    #[test]
    fn partition_refuses_what_32_bit_counts_cannot_hold() {
        let max = Count::MAX as usize;
        assert!(partition(&[max]).is_some());
        assert!(partition(&[max + 1]).is_none());
        // Each fits, but the last offset does not.
        assert!(partition(&[max, 1, 1]).is_none());
    }
}
