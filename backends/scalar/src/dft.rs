//! The DFT pass of a phase: each node's value after the step, times the step's weights, added
//! to its running sums in the chunk's accumulators ([`DftPart`]), row by row.

use yee_core::{Box3, Real, Scalar};
use yee_em::{Component, DftMonitor};

use crate::dft_part::DftPart;
use crate::ordered_split::OrderedSplit;
use crate::state::YeeState;

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
