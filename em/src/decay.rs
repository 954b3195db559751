//! Ending a run when its fields have decayed: Meep's `stop_when_fields_decayed`
//! (`python/simulation.py`): |field|² at a point is watched every step; every `every` steps
//! the largest value of the interval just ended is compared with the largest seen so far, and
//! the run ends when it is at most `factor` times that.
//!
//! The drivers keep a [`DecayWatch`] on every rank. At a check step each rank takes the
//! largest |value|² of the probe samples it holds for the interval ([`DecayRule::local_peak`]),
//! the ranks gather those, and each feeds the largest to its watch: the probe may move between
//! ranks (a rebalance), but the samples of every step are on exactly one rank, so every rank
//! decides the same at the same step, on any decomposition.

use yee_core::{Real, Scalar};

/// When a run ends because its fields have decayed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DecayRule {
    /// The probe watched (an index into the setup's probes).
    pub probe: usize,
    /// Samples after this step count; the first check is `every` steps later.
    pub after: u64,
    /// Steps between checks (at least 1).
    pub every: u64,
    /// The run ends at a check whose interval's largest |value|² is at most `factor` times
    /// the largest seen since `after` (that interval's included).
    pub factor: f64,
}

impl DecayRule {
    /// Whether the run checks after step `step` (steps counted from 1).
    pub fn is_check(&self, step: u64) -> bool {
        let every = self.every.max(1);
        step > self.after && (step - self.after) % every == 0
    }

    /// The first check step after `step`.
    pub fn next_check(&self, step: u64) -> u64 {
        let every = self.every.max(1);
        match step.checked_sub(self.after) {
            Some(since) => self.after + (since / every + 1) * every,
            None => self.after + every,
        }
    }

    /// The check steps up to and including `step`, in order.
    pub fn checks_through(&self, step: u64) -> impl Iterator<Item = u64> + '_ {
        let every = self.every.max(1);
        let count = step.saturating_sub(self.after) / every;
        (1..=count).map(move |k| self.after + k * every)
    }

    /// The largest |value|² among the samples of `series` (`(step, value)`, steps counted from
    /// 1) in the interval that ends at check `step`: 0 when there are none.
    pub fn local_peak<T: Scalar>(&self, series: &[(u64, T)], step: u64) -> f64 {
        let from = step.saturating_sub(self.every.max(1));
        // The samples are in step order: only the interval's, from the end.
        series
            .iter()
            .rev()
            .skip_while(|(s, _)| *s > step)
            .take_while(|(s, _)| *s > from)
            .map(|(_, v)| norm_sqr(*v))
            .fold(0.0, f64::max)
    }
}

/// |v|² in double precision.
fn norm_sqr<T: Scalar>(v: T) -> f64 {
    let (re, im) = (v.re().to_f64(), v.im().to_f64());
    re * re + im * im
}

/// What every rank knows of the decay rule's checks so far: the largest |value|² seen.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DecayWatch {
    /// The rule.
    pub rule: DecayRule,
    /// The largest interval peak seen so far.
    pub largest: f64,
}

impl DecayWatch {
    /// A watch that has seen nothing.
    pub fn new(rule: DecayRule) -> Self {
        DecayWatch { rule, largest: 0.0 }
    }

    /// Takes the interval's `peak` (the largest |value|² of the probe over every rank) at a
    /// check and says whether the run ends there: `peak ≤ factor × largest` with the largest
    /// including `peak`. A probe that has seen no field at all (largest 0) does not end it —
    /// where Meep's rule would, at its first check.
    pub fn decayed(&mut self, peak: f64) -> bool {
        self.largest = self.largest.max(peak);
        self.largest > 0.0 && peak <= self.rule.factor * self.largest
    }
}

/// The largest of each rank's values, `all` holding `width` values per rank: entry `k` of the
/// result is the largest entry `k` over the ranks.
pub fn largest_over_ranks(all: &[f64], width: usize, k: usize) -> f64 {
    all.chunks(width.max(1))
        .map(|c| c.get(k).copied().unwrap_or(0.0))
        .fold(0.0, f64::max)
}
