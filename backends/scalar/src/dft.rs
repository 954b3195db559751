//! The DFT accumulators of a chunk: for each monitor, the part of its box the chunk owns, and
//! per component, node and frequency the running real and imaginary sums
//! ([`yee_em::dft`]). They are updated once per node per step, in step order, and move with
//! their nodes when borders move, so the sums are the same bits for every decomposition.

use alloc::vec;
use alloc::vec::Vec;
use yee_core::{Box3, Real, Scalar};
use yee_em::{Component, DftMonitor, Setup};

use crate::ordered_split::OrderedSplit;
use crate::state::YeeState;

/// One monitor's accumulators inside one chunk.
#[derive(Clone, Debug)]
pub struct DftPart<T: Scalar> {
    /// The monitor.
    pub monitor: DftMonitor,
    /// Its frequencies.
    pub frequencies: Vec<f64>,
    /// The monitor's nodes inside the chunk's owned box.
    pub part: Box3,
    /// Per component ([`Component::index`]): `[re, im]` per frequency per node of `part`
    /// (x fastest, frequency fastest of all).
    pub sums: [Option<Vec<T>>; 6],
    /// Scratch for the step's DFT weights per frequency (in f64, then in the field's real
    /// type, real and imaginary part interleaved as in a node's sums), kept so that a step
    /// allocates nothing.
    weights: Vec<[f64; 2]>,
    real_weights: Vec<T::Real>,
}

impl<T: Scalar> DftPart<T> {
    /// The accumulators of every monitor of `setup` over `owned`, at zero.
    pub fn all(setup: &Setup, owned: Box3) -> Vec<Self> {
        setup
            .monitors
            .iter()
            .map(|m| {
                let part = m.region.intersect(&owned);
                let len = part.cells() * m.values_per_node();
                DftPart {
                    monitor: *m,
                    frequencies: setup.frequencies_of(m).to_vec(),
                    part,
                    sums: core::array::from_fn(|c| m.components[c].then(|| vec![T::zero(); len])),
                    weights: vec![[0.0; 2]; m.count],
                    real_weights: vec![T::Real::from_f64(0.0); m.values_per_node()],
                }
            })
            .collect()
    }

    /// Values per node per component.
    fn per_node(&self) -> usize {
        self.monitor.values_per_node()
    }

    /// Copies the sums of nodes in both `self.part` and `to.part` into `to`.
    pub fn keep_into(&self, to: &mut DftPart<T>) {
        let kept = self.part.intersect(&to.part);
        let k = self.per_node();
        for (from, into) in self.sums.iter().zip(&mut to.sums) {
            if let (Some(from), Some(into)) = (from, into) {
                for n in 0..kept.cells() {
                    let p = kept.index_at(n);
                    let (a, b) = (self.part.linear_index(p) * k, to.part.linear_index(p) * k);
                    into[b..b + k].copy_from_slice(&from[a..a + k]);
                }
            }
        }
    }

    /// Values [`DftPart::pack`] writes for the nodes of `region`.
    pub fn slab_len(&self, region: Box3) -> usize {
        let nodes = self.part.intersect(&region).cells();
        self.sums.iter().flatten().count() * nodes * self.per_node()
    }

    /// Writes the sums of the nodes of `region` to `out` (component, node, value order).
    pub fn pack(&self, region: Box3, out: &mut [T]) -> usize {
        let part = self.part.intersect(&region);
        let k = self.per_node();
        let mut at = 0;
        for sums in self.sums.iter().flatten() {
            for n in 0..part.cells() {
                let o = self.part.linear_index(part.index_at(n)) * k;
                out[at..at + k].copy_from_slice(&sums[o..o + k]);
                at += k;
            }
        }
        at
    }

    /// Reads what [`DftPart::pack`] wrote for `region`.
    pub fn unpack(&mut self, region: Box3, data: &[T]) -> usize {
        let part = self.part.intersect(&region);
        let k = self.per_node();
        let mut at = 0;
        let whole = self.part;
        for sums in self.sums.iter_mut().flatten() {
            for n in 0..part.cells() {
                let o = whole.linear_index(part.index_at(n)) * k;
                sums[o..o + k].copy_from_slice(&data[at..at + k]);
                at += k;
            }
        }
        at
    }

    /// The sums of component `c` over `region` (inside `part`) into `out`, or false when the
    /// monitor does not transform `c`.
    pub fn read(&self, c: Component, region: Box3, out: &mut [T]) -> bool {
        let Some(sums) = &self.sums[c.index()] else {
            return false;
        };
        let k = self.per_node();
        for n in 0..region.cells() {
            let o = self.part.linear_index(region.index_at(n)) * k;
            out[n * k..(n + 1) * k].copy_from_slice(&sums[o..o + k]);
        }
        true
    }
}

/// One row of a monitor's nodes (x fastest) in one step: their running sums (a node's real
/// and imaginary parts per frequency, interleaved), their field values, and the step's
/// weights in the same interleaving.
pub struct DftRow<'a, T: Scalar> {
    /// The sums of the row's nodes, node after node.
    pub sums: &'a mut [T],
    /// The field's values at the row's nodes.
    pub values: &'a [T],
    /// `[Δt cos 2πft, Δt sin 2πft]` per frequency, flattened.
    pub weights: &'a [T::Real],
}

impl<T: Scalar> DftRow<'_, T> {
    /// Adds each node's value times the weights to its sums: `F(f) += Δt F(t) e^{+2πift}`
    /// (Oskooi et al. 2010, §4.3), one vector loop per node over its frequencies.
    #[inline]
    pub fn add(self) {
        let k = self.weights.len();
        for (node, &v) in self.sums.chunks_exact_mut(k).zip(self.values) {
            for (s, &w) in node.iter_mut().zip(self.weights) {
                *s += v.scale(w);
            }
        }
    }

    /// Nodes in the row.
    pub fn nodes(&self) -> usize {
        self.values.len()
    }
}

/// Hands `each` every row of every monitor's nodes in `region` whose components the phase
/// (`electric`) updates, with the weights of step `step` (each component of a phase is
/// sampled at the same time, [`DftMonitor::time`]). Rows are disjoint, so a caller may add
/// them in any order or in parallel; each node's sum is still taken in step order, so the
/// bits are the same for every decomposition and executor.
pub fn for_each_row<'s, T: Scalar>(
    state: &'s mut YeeState<T>,
    electric: bool,
    region: Box3,
    step: u64,
    mut each: impl FnMut(DftRow<'s, T>),
) {
    let dt = state.dt;
    let t = DftMonitor::time(Component::along(yee_core::Axis::X, electric), step, dt);
    let (parts, fields) = (&mut state.dft, &state.fields);
    for part in parts.iter_mut() {
        let DftPart {
            monitor,
            frequencies,
            part: whole,
            sums,
            weights,
            real_weights,
        } = part;
        let nodes = whole.intersect(&region);
        if nodes.is_empty() {
            continue;
        }
        DftMonitor::weights(frequencies, t, dt, weights);
        for (w, &[re, im]) in real_weights.chunks_exact_mut(2).zip(weights.iter()) {
            w.copy_from_slice(&[T::Real::from_f64(re), T::Real::from_f64(im)]);
        }
        let weights: &'s [T::Real] = real_weights;
        let (k, whole) = (monitor.values_per_node(), *whole);
        let nx = nodes.extent()[0];
        for (c, sums) in sums.iter_mut().enumerate() {
            let Some(sums) = sums else {
                continue;
            };
            if Component::ALL[c].is_electric() != electric {
                continue;
            }
            let field = fields[c].as_ref().expect("validated: the mode carries it");
            // Rows in increasing order of their sums' offsets: split them off one by one.
            let mut sums = OrderedSplit::new(&mut sums[..]);
            for z in nodes.lo[2]..nodes.hi[2] {
                for y in nodes.lo[1]..nodes.hi[1] {
                    let first = [nodes.lo[0], y, z];
                    let o = whole.linear_index(first) * k;
                    let row = sums.take(o, o + nx * k);
                    let at = field.storage_offset(first);
                    each(DftRow {
                        sums: row,
                        values: &field.as_slice()[at..at + nx],
                        weights,
                    });
                }
            }
        }
    }
}

/// Accumulates the DFTs of the phase's components over `region` after step `step`, row by
/// row ([`for_each_row`]).
pub fn accumulate<T: Scalar>(state: &mut YeeState<T>, electric: bool, region: Box3, step: u64) {
    for_each_row(state, electric, region, step, |row| row.add());
}
