//! What the ranks of a box or tile-set layout measured, interval after interval (needs the
//! `alloc` feature): the Q/P sums per rank (Balykov 2019, eqs. (4)–(5)), each rank's halo
//! transfer time per step and the seconds per byte of the transfers, from which a balancer
//! predicts step times and migrations.

use alloc::vec;
use alloc::vec::Vec;

use crate::balance::PerfSums;
use crate::driver::StepRecord;

/// Values each rank contributes per balancing interval, in this order: work, compute seconds,
/// steps, share seconds (waiting and unpacking), transfer seconds the communicator knew (the
/// simulated one; a real one only knows the wait), the bytes those transfers carried, and the
/// bytes per cell a migration moves out of its cells ([`crate::Chunk::slab_len`]).
pub const GATHER_LEN: usize = 7;

/// Everything the ranks measured so far.
#[derive(Clone, Debug)]
pub struct Measurements {
    /// Q/P sums per rank.
    pub perf: Vec<PerfSums>,
    /// Per rank, the transfer seconds of its halos per step, as last measured while it held
    /// cells.
    pub share: Vec<f64>,
    /// Seconds per byte of the halo transfers of the last interval, where the communicator
    /// knew them.
    pub byte_seconds: Option<f64>,
    /// Bytes a migration moves per cell (the most any rank reported).
    pub cell_bytes: f64,
}

impl Measurements {
    /// Nothing measured yet, for `ranks` ranks.
    pub fn new(ranks: usize) -> Self {
        Measurements {
            perf: vec![PerfSums::default(); ranks],
            share: vec![0.0; ranks],
            byte_seconds: None,
            cell_bytes: 0.0,
        }
    }

    /// Adds one interval's gathered data: [`GATHER_LEN`] values per rank, rank after rank.
    /// Returns the measured step time of the interval (the slowest rank's compute and share
    /// seconds per step).
    pub fn record(&mut self, gathered: &[f64]) -> f64 {
        let mut measured = 0.0f64;
        let (mut seconds, mut bytes) = (0.0, 0.0);
        for (r, g) in gathered.chunks_exact(GATHER_LEN).enumerate() {
            let steps = g[2].max(1.0);
            if g[0] > 0.0 && g[1] > 0.0 {
                self.perf[r].work += g[0];
                self.perf[r].seconds += g[1];
                self.share[r] = g[4] / steps;
            }
            measured = measured.max((g[1] + g[3]) / steps);
            seconds += g[4];
            bytes += g[5];
            self.cell_bytes = self.cell_bytes.max(g[6]);
        }
        if bytes > 0.0 && seconds > 0.0 {
            self.byte_seconds = Some(seconds / bytes);
        }
        measured
    }

    /// Predicted seconds of a migration in which one rank sends and receives at most `cells`
    /// cells, at the measured seconds per byte (0 when no transfer time was measured).
    pub fn migration_seconds(&self, cells: f64) -> f64 {
        self.byte_seconds
            .map_or(0.0, |per_byte| cells * self.cell_bytes * per_byte)
    }
}

/// This rank's contribution to a balancing interval (see [`GATHER_LEN`]): its `records` since
/// the last rebalance and `cell_bytes`, the bytes a migration moves per cell of its own.
pub fn interval_summary(records: &[StepRecord], cell_bytes: f64) -> [f64; GATHER_LEN] {
    let mut g = [0.0; GATHER_LEN];
    for r in records {
        g[0] += r.work;
        g[1] += r.compute_seconds;
        g[2] += 1.0;
        g[3] += r.share_seconds.iter().sum::<f64>();
        for (k, t) in r.transfer_seconds.iter().enumerate() {
            if t.is_finite() {
                g[4] += t;
                g[5] += r.bytes_received[k] as f64;
            }
        }
    }
    g[6] = cell_bytes;
    g
}
