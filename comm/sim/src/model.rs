//! The machine a simulated run pretends to be.

use std::collections::BTreeMap;

/// Per-rank speeds and delays, per-link Hockney latency and bandwidth.
#[derive(Clone, Debug, PartialEq)]
pub struct MachineModel {
    /// Cells updated per second, per rank.
    pub speeds: Vec<f64>,
    /// Fixed delay added to every step, per rank (seconds).
    pub delays: Vec<f64>,
    /// Latency of a link without an override (seconds).
    pub latency: f64,
    /// Bandwidth of a link without an override (bytes per second).
    pub bandwidth: f64,
    /// `(from, to) → (latency, bandwidth)` for particular links.
    pub links: BTreeMap<(usize, usize), (f64, f64)>,
    /// Links that change speed during the run: from the given step on, `(from, to)` has the
    /// given latency and bandwidth (later entries win).
    pub link_changes: Vec<LinkChange>,
}

/// A link changing speed at a step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LinkChange {
    /// Steps completed by the receiver when the change takes effect.
    pub after_step: u64,
    /// Sender.
    pub from: usize,
    /// Receiver.
    pub to: usize,
    /// New latency (s).
    pub latency: f64,
    /// New bandwidth (bytes/s).
    pub bandwidth: f64,
}

impl MachineModel {
    /// `ranks` equal ranks of `speed` cells/s joined by links of `latency` s and `bandwidth`
    /// bytes/s, with no delays.
    pub fn uniform(ranks: usize, speed: f64, latency: f64, bandwidth: f64) -> Self {
        MachineModel {
            speeds: vec![speed; ranks],
            delays: vec![0.0; ranks],
            latency,
            bandwidth,
            links: BTreeMap::new(),
            link_changes: Vec::new(),
        }
    }

    /// The default model: 100 Mcells/s ranks, 2 µs and 10 GB/s links.
    pub fn default_for(ranks: usize) -> Self {
        MachineModel::uniform(ranks, 1e8, 2e-6, 1e10)
    }

    /// Latency and bandwidth of the link from `from` to `to` once the receiver has completed
    /// `step` steps.
    pub fn link(&self, from: usize, to: usize, step: u64) -> (f64, f64) {
        let changed = self
            .link_changes
            .iter()
            .rev()
            .find(|c| c.from == from && c.to == to && step >= c.after_step)
            .map(|c| (c.latency, c.bandwidth));
        changed
            .or_else(|| self.links.get(&(from, to)).copied())
            .unwrap_or((self.latency, self.bandwidth))
    }
}
