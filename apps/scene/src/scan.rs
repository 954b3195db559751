//! `[scan]`: a B-scan as gprMax runs one (`#src_steps`, `#rx_steps`; Warren, Giannopoulos &
//! Giannakis 2016, *Comput. Phys. Commun.* 209, 163–170): the scene runs `count` times, trace
//! `k` with every source moved by `k × src_steps` and every receiver (a `[[probes]]` entry) by
//! `k × rx_steps`. A step is a whole number of cells, so each trace's nodes are the first
//! trace's shifted by whole cells: every trace drives and records the same nodes of the Yee
//! cell, and the source–receiver offset changes by exactly the difference of the steps.
//! [`crate::trace`] resolves the block and makes each trace's scene.

/// The most traces one scan runs.
pub const MAX_TRACES: usize = 100_000;

/// A resolved `[scan]` block.
#[derive(Clone, Debug, PartialEq)]
pub struct Scan {
    /// How many traces.
    pub count: usize,
    /// The sources' displacement per trace in cells (0 on unused axes).
    pub src_step: [i64; 3],
    /// The receivers' displacement per trace in cells.
    pub rx_step: [i64; 3],
    /// The indices in the scene's probes of the receivers.
    pub receivers: Vec<usize>,
}

/// Where one trace places a source or a receiver.
#[derive(Clone, Debug, PartialEq)]
pub struct TracePosition {
    /// `sources[i]` or the probe's name.
    pub name: String,
    /// The node it drives or records (its first node for a line, plane or box source) in
    /// scene lengths, one number per axis of the mode.
    pub position: Vec<f64>,
}
