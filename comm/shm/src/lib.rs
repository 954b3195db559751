//! # yee-comm-shm
//!
//! N ranks as threads of one process, talking through in-process mailboxes, timed by the real
//! clock. [`launch`] runs one closure per rank and returns their results in rank order.
//! The mailboxes ([`fabric`]) are shared with the simulated communicator.
#![warn(missing_docs)]

pub mod error;
pub mod fabric;

use std::sync::Arc;
use std::time::Instant;

use yee_core::decomposition::rank_coords;
use yee_core::{Comm, CommErrorKind, Direction, Topology};

pub use error::ShmError;
use fabric::{Fabric, Message, Tag};

/// One rank's end of the shared-memory communicator.
#[derive(Debug)]
pub struct ShmComm {
    rank: usize,
    topology: Topology,
    fabric: Arc<Fabric>,
    origin: Instant,
    slowdown: Slowdown,
    delay_due: bool,
    steps: u64,
}

/// Artificial slowness of one rank: real, measurable heterogeneity for testing the balancer.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Slowdown {
    /// Seconds slept per cell of work.
    pub per_cell: f64,
    /// Seconds slept once per step, with its first computation.
    pub per_step: f64,
    /// Steps (counted from 0) during which the slowdown applies: `from_step..to_step`.
    pub from_step: u64,
    /// See `from_step`.
    pub to_step: u64,
}

impl Default for Slowdown {
    fn default() -> Self {
        Slowdown {
            per_cell: 0.0,
            per_step: 0.0,
            from_step: 0,
            to_step: u64::MAX,
        }
    }
}

impl ShmComm {
    /// The mailboxes (for communicators built on this one).
    pub fn fabric(&self) -> &Fabric {
        &self.fabric
    }
}

/// Checks a received message's length against the buffer meant for it.
pub fn check_len(message: &Message, out: &[u8], what: &str) -> Result<(), ShmError> {
    if message.bytes.len() == out.len() {
        Ok(())
    } else {
        Err(ShmError::new(
            CommErrorKind::SizeMismatch,
            format!(
                "{what}: received {} bytes, expected {}",
                message.bytes.len(),
                out.len()
            ),
        ))
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

    fn start_send(&mut self, peer: usize, toward: Direction, data: &[u8]) -> Result<(), ShmError> {
        let message = Message {
            bytes: data.to_vec(),
            sent_at: self.now_seconds(),
        };
        self.fabric
            .post(self.rank, peer, Tag::Halo(toward.0), message);
        Ok(())
    }

    fn finish_receive(
        &mut self,
        peer: usize,
        from: Direction,
        out: &mut [u8],
    ) -> Result<(), ShmError> {
        let m = self
            .fabric
            .take(peer, self.rank, Tag::Halo(from.opposite().0))?;
        check_len(&m, out, &format!("halo from rank {peer}"))?;
        out.copy_from_slice(&m.bytes);
        Ok(())
    }

    fn all_gather(&mut self, mine: &[f64], all: &mut [f64]) -> Result<(), ShmError> {
        let bytes = fabric::encode_f64s(mine);
        for peer in 0..self.size() {
            self.fabric.post(
                self.rank,
                peer,
                Tag::Gather,
                Message {
                    bytes: bytes.clone(),
                    sent_at: self.now_seconds(),
                },
            );
        }
        for peer in 0..self.size() {
            let m = self.fabric.take(peer, self.rank, Tag::Gather)?;
            let dst = &mut all[peer * mine.len()..(peer + 1) * mine.len()];
            let expected = vec![0u8; dst.len() * 8];
            check_len(&m, &expected, &format!("gather from rank {peer}"))?;
            fabric::decode_f64s(&m.bytes, dst);
        }
        Ok(())
    }

    fn send_slab(&mut self, peer: usize, data: &[u8]) -> Result<(), ShmError> {
        self.fabric.post(
            self.rank,
            peer,
            Tag::Slab,
            Message {
                bytes: data.to_vec(),
                sent_at: self.now_seconds(),
            },
        );
        Ok(())
    }

    fn receive_slab(&mut self, peer: usize, out: &mut [u8]) -> Result<(), ShmError> {
        let m = self.fabric.take(peer, self.rank, Tag::Slab)?;
        check_len(&m, out, &format!("slab from rank {peer}"))?;
        out.copy_from_slice(&m.bytes);
        Ok(())
    }

    fn now_seconds(&self) -> f64 {
        self.origin.elapsed().as_secs_f64()
    }

    /// A rank launched with a [`Slowdown`] sleeps for it here.
    fn compute_done(&mut self, cells: f64) {
        if !(self.slowdown.from_step..self.slowdown.to_step).contains(&self.steps) {
            return;
        }
        let mut sleep = cells * self.slowdown.per_cell;
        if self.delay_due {
            sleep += self.slowdown.per_step;
            self.delay_due = false;
        }
        if sleep > 0.0 {
            std::thread::sleep(std::time::Duration::from_secs_f64(sleep));
        }
    }

    fn step_done(&mut self) {
        self.delay_due = true;
        self.steps += 1;
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
                    slowdown: slowdown.get(rank).copied().unwrap_or_default(),
                    delay_due: true,
                    steps: 0,
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
