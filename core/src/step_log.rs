//! What a rank keeps of its steps' [`StepRecord`]s, in memory that does not grow with the
//! step count: running totals over every step (what `run.json` reports) and the last
//! [`RECENT_STEPS`] records (for eq. (2) of Balykov 2019 step by step over a short run). The
//! balancer reads its interval's records from the session's own interval buffer, which a
//! rebalance empties.

use alloc::collections::VecDeque;

use crate::driver::StepRecord;

/// The records a [`StepLog`] keeps whole: the most recent steps.
pub const RECENT_STEPS: usize = 1024;

/// Sums of a rank's step records, over every step it ran.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StepTotals {
    /// Steps summed.
    pub steps: u64,
    /// Seconds spent updating cells.
    pub compute_seconds: f64,
    /// Seconds spent receiving (and unpacking), over every share direction.
    pub share_seconds: f64,
    /// Bytes sent, over every share direction.
    pub bytes_sent: u64,
    /// Bytes received, over every share direction.
    pub bytes_received: u64,
    /// Work done ([`StepRecord::work`] summed).
    pub work: f64,
}

impl StepTotals {
    /// Adds one step's record (each direction in schedule order, as a sum over the records
    /// in step order would).
    pub fn add(&mut self, r: &StepRecord) {
        self.steps += 1;
        self.compute_seconds += r.compute_seconds;
        for &s in &r.share_seconds {
            self.share_seconds += s;
        }
        self.bytes_sent += r.bytes_sent.iter().sum::<u64>();
        self.bytes_received += r.bytes_received.iter().sum::<u64>();
        self.work += r.work;
    }

    /// Adds the totals of later steps.
    pub fn merge(&mut self, later: &StepTotals) {
        self.steps += later.steps;
        self.compute_seconds += later.compute_seconds;
        self.share_seconds += later.share_seconds;
        self.bytes_sent += later.bytes_sent;
        self.bytes_received += later.bytes_received;
        self.work += later.work;
    }
}

/// A rank's step records in bounded memory: totals over every step and the last
/// [`RECENT_STEPS`] records.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StepLog {
    /// Sums over every step.
    pub totals: StepTotals,
    /// The most recent records, oldest first (at most [`RECENT_STEPS`]).
    pub recent: VecDeque<StepRecord>,
}

impl StepLog {
    /// Records one step.
    pub fn push(&mut self, record: StepRecord) {
        self.totals.add(&record);
        if self.recent.len() == RECENT_STEPS {
            self.recent.pop_front();
        }
        self.recent.push_back(record);
    }

    /// Appends the log of the steps that followed these.
    pub fn append(&mut self, later: StepLog) {
        self.totals.merge(&later.totals);
        self.recent.extend(later.recent);
        let excess = self.recent.len().saturating_sub(RECENT_STEPS);
        self.recent.drain(..excess);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(step: u64) -> StepRecord {
        StepRecord {
            compute_seconds: step as f64,
            share_seconds: alloc::vec![0.5, 0.25],
            bytes_sent: alloc::vec![step, 1],
            bytes_received: alloc::vec![2, 3],
            cells: 10,
            work: 1.0,
            transfer_seconds: alloc::vec![0.0, f64::NAN],
        }
    }

    #[test]
    fn totals_cover_every_step_and_the_records_only_the_recent_ones() {
        let steps = 3 * RECENT_STEPS as u64 + 7;
        let mut whole = StepLog::default();
        let mut cut = [StepLog::default(), StepLog::default()];
        for s in 0..steps {
            whole.push(record(s));
            cut[usize::from(s >= 100)].push(record(s));
        }
        let [mut first, second] = cut;
        first.append(second);
        for log in [&whole, &first] {
            assert_eq!(log.totals.steps, steps);
            assert_eq!(log.totals.bytes_sent, steps * (steps - 1) / 2 + steps);
            assert_eq!(log.totals.bytes_received, 5 * steps);
            assert_eq!(log.totals.share_seconds, 0.75 * steps as f64);
            assert_eq!(log.totals.work, steps as f64);
            assert_eq!(log.recent.len(), RECENT_STEPS);
            assert_eq!(
                log.recent[0].compute_seconds,
                (steps - RECENT_STEPS as u64) as f64
            );
            assert_eq!(
                log.recent[RECENT_STEPS - 1].compute_seconds,
                (steps - 1) as f64
            );
        }
        let compute: f64 = (0..steps).map(|s| s as f64).sum();
        assert_eq!(whole.totals.compute_seconds, compute);
    }
}
