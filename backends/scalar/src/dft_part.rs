//! The DFT accumulators of a chunk: for each monitor, the part of its box the chunk owns, and
//! per component, node and frequency the running real and imaginary sums
//! ([`yee_em::dft`]). They are updated once per node per step, in step order, and move with
//! their nodes when borders move, so the sums are the same bits for every decomposition.

use alloc::vec;
use alloc::vec::Vec;
use yee_core::{Box3, Real, Scalar};
use yee_em::{Component, DftMonitor, Setup};

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
    pub(crate) weights: Vec<[f64; 2]>,
    pub(crate) real_weights: Vec<T::Real>,
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
