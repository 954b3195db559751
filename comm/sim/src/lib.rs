//! # yee-comm-sim
//!
//! N virtual ranks in one process with virtual clocks: computing `c` cells costs
//! `c / speed` seconds, each step's computation adds the rank's fixed delay, and a message of `x` bytes arrives
//! `latency + x / bandwidth` after it was sent (Hockney; Balykov 2019, eq. (6)). A receive
//! moves the receiver's clock to the arrival time if it is later. The clocks depend only on the
//! model, never on the host, so runs are deterministic and their timings can be snapshot-tested.
//! Ranks run as threads over the mailboxes of `yee-comm-shm`.
#![warn(missing_docs)]

pub mod model;
pub mod scale;

use std::sync::Arc;
use std::time::Duration;

use yee_comm_shm::ShmError;
use yee_comm_shm::fabric::{Fabric, Message, RECEIVE_TIMEOUT};
use yee_core::decomposition::rank_coords;
use yee_core::{Comm, Incoming, Outgoing, Topology};

pub use model::{LinkChange, MachineModel};

/// One virtual rank.
#[derive(Debug)]
pub struct SimComm {
    rank: usize,
    topology: Topology,
    fabric: Arc<Fabric>,
    model: Arc<MachineModel>,
    clock: f64,
    delay_due: bool,
    steps: u64,
    timeout: Duration,
    bytes_sent: u64,
}

impl SimComm {
    /// Bytes this rank has sent so far: every message of its exchanges (halos, probes,
    /// migrations, the provided gathers and reductions) and its all-gather contributions (one
    /// copy per rank).
    pub fn bytes_sent(&self) -> u64 {
        self.bytes_sent
    }

    /// Makes this rank's receives give up after `timeout` of real time (an error of kind
    /// [`yee_core::CommErrorKind::Timeout`]) instead of [`RECEIVE_TIMEOUT`]. The virtual
    /// clock never waits, but the rank threads do: a message that never comes is a bug to
    /// report, not a hang.
    pub fn with_receive_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Moves the clock to a message's arrival if that is later; returns the Hockney time.
    fn arrive(&mut self, peer: usize, m: &Message) -> f64 {
        let (latency, bandwidth) = self.model.link(peer, self.rank, self.steps);
        let transfer = yee_core::model::hockney(latency, bandwidth, m.bytes.len() as f64);
        self.clock = self.clock.max(m.sent_at + transfer);
        transfer
    }
}

impl Comm for SimComm {
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
        self.fabric.post_all(self.rank, outgoing, self.clock);
        self.bytes_sent += outgoing.iter().map(|o| o.bytes.len() as u64).sum::<u64>();
        overlap(self);
        let fabric = Arc::clone(&self.fabric);
        fabric.receive_all(self.rank, incoming, self.timeout, |i, m| {
            let before = self.clock;
            i.transfer = self.arrive(i.peer, m);
            i.waited = self.clock - before;
        })
    }

    fn all_gather(&mut self, mine: &[f64], all: &mut [f64]) -> Result<(), ShmError> {
        let fabric = Arc::clone(&self.fabric);
        let (rank, size, sent_at, timeout) = (self.rank, self.size(), self.clock, self.timeout);
        self.bytes_sent += (8 * mine.len() * size) as u64;
        fabric.all_gather(rank, size, mine, all, sent_at, timeout, |peer, m| {
            self.arrive(peer, m);
        })
    }

    fn now_seconds(&self) -> f64 {
        self.clock
    }

    /// Computing costs `cells / speed`; the rank's fixed delay is charged with the first
    /// computation of each step, so it counts as compute time (the emulated slowness of
    /// Balykov 2019, §3).
    fn compute_done(&mut self, cells: f64) {
        if self.delay_due {
            self.clock += self.model.delays[self.rank];
            self.delay_due = false;
        }
        self.clock += cells / self.model.speeds[self.rank];
    }

    fn step_done(&mut self) {
        self.delay_due = true;
        self.steps += 1;
    }
}

/// Runs `body` once per virtual rank of `topology` on `model` (one thread each) and returns
/// the results in rank order.
///
/// # Panics
/// If the model does not describe every rank.
pub fn launch<R: Send>(
    topology: Topology,
    model: MachineModel,
    body: impl Fn(SimComm) -> R + Sync,
) -> Vec<R> {
    assert!(
        model.speeds.len() >= topology.ranks() && model.delays.len() >= topology.ranks(),
        "the machine model describes {} ranks, the topology has {}",
        model.speeds.len(),
        topology.ranks()
    );
    let fabric = Arc::new(Fabric::default());
    let model = Arc::new(model);
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..topology.ranks())
            .map(|rank| {
                let comm = SimComm {
                    rank,
                    topology,
                    fabric: Arc::clone(&fabric),
                    model: Arc::clone(&model),
                    clock: 0.0,
                    delay_due: true,
                    steps: 0,
                    timeout: RECEIVE_TIMEOUT,
                    bytes_sent: 0,
                };
                let body = &body;
                scope.spawn(move || body(comm))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a virtual rank panicked"))
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The variable-size gather's messages cost their Hockney time like halos: on 1 ms,
    /// 1 MB/s links, the 8-byte lengths take two rounds of 1.008 ms, then ranks 1 and 2 send
    /// 1000 and 2000 bytes to root 0 at 2.016 ms: the root's clock ends at the later arrival,
    /// 2.016 + 1 + 2 ms. Sending costs the senders nothing.
    #[test]
    fn a_gather_charges_the_root_for_the_latest_message() {
        let model = MachineModel::uniform(3, 1e8, 1e-3, 1e6);
        let clocks = launch(Topology([3, 1, 1]), model, |mut c| {
            let mine = vec![0u8; 1000 * c.rank()];
            let mut lens = [0; 3];
            c.gather_lens(mine.len(), &mut lens).unwrap();
            let after_lens = c.now_seconds();
            let mut all = vec![0u8; if c.rank() == 0 { 3000 } else { 0 }];
            c.gather_bytes(0, &mine, &lens, &mut all).unwrap();
            (after_lens, c.now_seconds())
        });
        let expected = [
            (2.016e-3, 5.016e-3),
            (2.016e-3, 2.016e-3),
            (2.016e-3, 2.016e-3),
        ];
        for (r, (got, want)) in clocks.iter().zip(expected).enumerate() {
            assert!(
                (got.0 - want.0).abs() < 1e-12 && (got.1 - want.1).abs() < 1e-12,
                "rank {r}: clocks {got:?}, expected {want:?}"
            );
        }
    }
}
