//! # yee-comm-sim
//!
//! N virtual ranks in one process with virtual clocks: computing `c` cells costs
//! `c / speed` seconds, each step's computation adds the rank's fixed delay, and a message of `x` bytes arrives
//! `latency + x / bandwidth` after it was sent (Hockney; Balykov 2019, eq. (6)). A receive
//! moves the receiver's clock to the arrival time if it is later. The clocks depend only on the
//! model, never on the host, so runs are deterministic and their timings can be snapshot-tested.
//! Ranks run as threads over the mailboxes of `yee-comm-shm`.
#![warn(missing_docs)]

pub mod cost_chunk;
pub mod model;

use std::sync::Arc;

use yee_comm_shm::fabric::{Fabric, Message, Tag, decode_f64s, encode_f64s};
use yee_comm_shm::{ShmError, check_len};
use yee_core::decomposition::rank_coords;
use yee_core::{Comm, Direction, Topology};

pub use cost_chunk::CostChunk;
pub use model::{LinkChange, MachineModel};

/// One virtual rank.
#[derive(Debug)]
pub struct SimComm {
    rank: usize,
    topology: Topology,
    fabric: Arc<Fabric>,
    model: Arc<MachineModel>,
    clock: f64,
    last_transfer: f64,
    delay_due: bool,
    steps: u64,
}

impl SimComm {
    fn post(&self, peer: usize, tag: Tag, data: &[u8]) {
        self.fabric.post(
            self.rank,
            peer,
            tag,
            Message {
                bytes: data.to_vec(),
                sent_at: self.clock,
            },
        );
    }

    /// Receives, moving the clock to the message's arrival if that is later.
    fn take(&mut self, peer: usize, tag: Tag, out: &mut [u8], what: &str) -> Result<(), ShmError> {
        let m = self.fabric.take(peer, self.rank, tag)?;
        check_len(&m, out, what)?;
        out.copy_from_slice(&m.bytes);
        let (latency, bandwidth) = self.model.link(peer, self.rank, self.steps);
        let transfer = yee_core::model::hockney(latency, bandwidth, m.bytes.len() as f64);
        self.last_transfer = transfer;
        self.clock = self.clock.max(m.sent_at + transfer);
        Ok(())
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

    fn start_send(&mut self, peer: usize, toward: Direction, data: &[u8]) -> Result<(), ShmError> {
        self.post(peer, Tag::Halo(toward.0), data);
        Ok(())
    }

    fn finish_receive(
        &mut self,
        peer: usize,
        from: Direction,
        out: &mut [u8],
    ) -> Result<(), ShmError> {
        self.take(
            peer,
            Tag::Halo(from.opposite().0),
            out,
            &format!("halo from rank {peer}"),
        )
    }

    fn all_gather(&mut self, mine: &[f64], all: &mut [f64]) -> Result<(), ShmError> {
        let bytes = encode_f64s(mine);
        for peer in 0..self.size() {
            self.post(peer, Tag::Gather, &bytes);
        }
        let mut buffer = vec![0u8; bytes.len()];
        for peer in 0..self.size() {
            self.take(
                peer,
                Tag::Gather,
                &mut buffer,
                &format!("gather from rank {peer}"),
            )?;
            decode_f64s(
                &buffer,
                &mut all[peer * mine.len()..(peer + 1) * mine.len()],
            );
        }
        Ok(())
    }

    fn send_slab(&mut self, peer: usize, data: &[u8]) -> Result<(), ShmError> {
        self.post(peer, Tag::Slab, data);
        Ok(())
    }

    fn receive_slab(&mut self, peer: usize, out: &mut [u8]) -> Result<(), ShmError> {
        self.take(peer, Tag::Slab, out, &format!("slab from rank {peer}"))
    }

    fn now_seconds(&self) -> f64 {
        self.clock
    }

    fn last_transfer_seconds(&self) -> Option<f64> {
        Some(self.last_transfer)
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
                    last_transfer: 0.0,
                    delay_due: true,
                    steps: 0,
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
