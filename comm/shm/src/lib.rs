//! # yee-comm-shm
//!
//! N ranks as threads of one process, talking through in-process mailboxes, timed by the real
//! clock. [`launch`] runs one closure per rank and returns their results in rank order.
//! The mailboxes ([`fabric`]) are shared with the simulated communicator.
#![warn(missing_docs)]

pub mod error;
pub mod fabric;
pub mod slowdown;

use std::sync::Arc;
use std::time::{Duration, Instant};

use yee_core::decomposition::rank_coords;
use yee_core::{Comm, Incoming, Outgoing, Topology};

pub use error::ShmError;
use fabric::Fabric;
pub use slowdown::{Sleeper, Slowdown};

/// One rank's end of the shared-memory communicator.
#[derive(Debug)]
pub struct ShmComm {
    rank: usize,
    topology: Topology,
    fabric: Arc<Fabric>,
    origin: Instant,
    sleeper: Sleeper,
    timeout: Duration,
}

impl ShmComm {
    /// The mailboxes (for communicators built on this one).
    pub fn fabric(&self) -> &Fabric {
        &self.fabric
    }

    /// Makes this rank's receives give up after `timeout` (an error of kind
    /// [`yee_core::CommErrorKind::Timeout`]) instead of [`fabric::RECEIVE_TIMEOUT`]: tests
    /// that expect a message never to come need not wait two minutes.
    pub fn with_receive_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }
}

impl Comm for ShmComm {
    type Error = ShmError;

    fn rank(&self) -> usize {
        self.rank
    }

    fn size(&self) -> usize {
        self.topology.ranks()
    }

    fn topology(&self) -> [usize; 3] {
        self.topology.0
    }

    fn coords(&self) -> [usize; 3] {
        rank_coords(self.rank, self.topology)
    }

    fn exchange(
        &mut self,
        outgoing: &[Outgoing<'_>],
        incoming: &mut [Incoming<'_>],
        overlap: &mut dyn FnMut(&mut Self),
    ) -> Result<(), ShmError> {
        self.fabric
            .post_all(self.rank, outgoing, self.now_seconds());
        overlap(self);
        let mut before = Instant::now();
        self.fabric
            .receive_all(self.rank, incoming, self.timeout, |i, _| {
                let now = Instant::now();
                i.waited = (now - before).as_secs_f64();
                before = now;
            })
    }

    fn all_gather(&mut self, mine: &[f64], all: &mut [f64]) -> Result<(), ShmError> {
        let sent_at = self.now_seconds();
        self.fabric.all_gather(
            self.rank,
            self.size(),
            mine,
            all,
            sent_at,
            self.timeout,
            |_, _| {},
        )
    }

    fn now_seconds(&self) -> f64 {
        self.origin.elapsed().as_secs_f64()
    }

    /// A rank launched with a [`Slowdown`] sleeps for it here.
    fn compute_done(&mut self, cells: f64) {
        self.sleeper.compute_done(cells);
    }

    fn step_done(&mut self) {
        self.sleeper.step_done();
    }
}

/// Runs `body` once per rank of `topology`, each on its own thread with its own [`ShmComm`],
/// and returns the results in rank order. A panicking rank panics the caller.
pub fn launch<R: Send>(topology: Topology, body: impl Fn(ShmComm) -> R + Sync) -> Vec<R> {
    launch_slowed(topology, &[], body)
}

/// [`launch`], with rank `r` slowed by `slowdown[r]` (missing entries: no slowdown).
pub fn launch_slowed<R: Send>(
    topology: Topology,
    slowdown: &[Slowdown],
    body: impl Fn(ShmComm) -> R + Sync,
) -> Vec<R> {
    let fabric = Arc::new(Fabric::default());
    let origin = Instant::now();
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..topology.ranks())
            .map(|rank| {
                let comm = ShmComm {
                    rank,
                    topology,
                    fabric: Arc::clone(&fabric),
                    origin,
                    sleeper: Sleeper::new(slowdown.get(rank).copied().unwrap_or_default()),
                    timeout: fabric::RECEIVE_TIMEOUT,
                };
                let body = &body;
                scope.spawn(move || body(comm))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a rank thread panicked"))
            .collect()
    })
}
