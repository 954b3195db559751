//! The off-diagonal pass of a phase at a chunk's tensor nodes ([`crate::tensor_nodes`] for
//! the scheme): each node adds its weighed averages of the other components' curls.

use alloc::vec::Vec;
use yee_core::{Box3, Real, Scalar};
use yee_em::Component;

use crate::curl::difference;
use crate::state::YeeState;
use crate::tensor_nodes::others;

/// The curl of component `b` at any of its nodes, set up once per phase: the differences of
/// the curl kernel outside CPML, in its order.
struct CurlOf<'a, T> {
    /// Each curl term the mode carries, in [`Component::curl_terms`]' order: the source's
    /// values, the stride of its axis, and whether the term is added (else subtracted).
    terms: [Option<(&'a [T], usize, bool)>; 2],
    /// Backward differences (a curl of H, for E), else forward (a curl of E, for H).
    electric: bool,
}

impl<T: Scalar> CurlOf<'_, T> {
    /// The curl update of `b` at its node at storage `offset`: `0 ± d₁ ± d₂`.
    #[inline(always)]
    fn at(&self, offset: usize) -> T {
        let mut curl = T::zero();
        for &(s, stride, plus) in self.terms.iter().flatten() {
            let d = difference(s, offset, stride, self.electric);
            curl = if plus { curl + d } else { curl - d };
        }
        curl
    }

    /// Appends to `out` the curls at the nodes at storage `offsets`, each as [`CurlOf::at`]
    /// takes it. With both terms present (3D) the two differences are spelled out in that
    /// order, so the loop tests no term per node.
    fn extend_at(&self, offsets: &[usize], out: &mut Vec<T>) {
        let electric = self.electric;
        #[inline(always)]
        fn term<T: Scalar>(
            curl: T,
            (s, stride, plus): (&[T], usize, bool),
            o: usize,
            e: bool,
        ) -> T {
            let d = difference(s, o, stride, e);
            if plus { curl + d } else { curl - d }
        }
        match self.terms {
            [Some(t1), Some(t2)] if electric => out.extend(
                offsets
                    .iter()
                    .map(|&o| term(term(T::zero(), t1, o, true), t2, o, true)),
            ),
            [Some(t1), Some(t2)] => out.extend(
                offsets
                    .iter()
                    .map(|&o| term(term(T::zero(), t1, o, false), t2, o, false)),
            ),
            _ => out.extend(offsets.iter().map(|&o| self.at(o))),
        }
    }
}

/// The curls of the two other components of the `electric` field for a component along `a`
/// (`None` where the mode lacks one), in increasing axis order.
fn coupled<T: Scalar>(state: &YeeState<T>, electric: bool, a: usize) -> [Option<CurlOf<'_, T>>; 2] {
    let active = state.mode.active_axes();
    others(a).map(|b| {
        let component = Component::along(yee_core::Axis::ALL[b], electric);
        if !state.mode.has(component) {
            return None;
        }
        let terms = component.curl_terms().map(|t| {
            if !(active[t.axis.index()] && state.mode.has(t.source)) {
                return None;
            }
            let source = state.field(t.source).expect("mode carries the source");
            let stride = yee_core::Field::storage(source).strides()[t.axis.index()];
            Some((source.as_slice(), stride, t.sign > 0))
        });
        Some(CurlOf { terms, electric })
    })
}

/// Adds the off-diagonal part of the update to the tensor nodes of the electric (`true`) or
/// magnetic components in `region` (module docs). Run after the curl kernel of the phase;
/// it reads only the other field, so the order among nodes does not matter. Each node's
/// arithmetic is the scheme's in its order: per other axis, the four curls summed from zero
/// (each `0 ± d₁ ± d₂`), a quarter of it, weighed; the fields' lookups and strides are taken
/// once per component, and the curl of each neighbour once for all the nodes around it
/// ([`crate::tensor_curls`]), not per node.
pub fn apply_tensor_nodes<T: Scalar>(state: &mut YeeState<T>, electric: bool, region: Box3) {
    for &c in state.mode.components() {
        if c.is_electric() != electric {
            continue;
        }
        let Some(mut list) = state.tensor[c.index()].take() else {
            continue;
        };
        let Some(mut target) = state.fields[c.index()].take() else {
            state.tensor[c.index()] = Some(list);
            continue;
        };
        let a = c.axis().index();
        let quarter = T::Real::from_f64(0.25);
        let half = T::Real::from_f64(0.5);
        let zero = T::Real::from_f64(0.0);
        let mut finite = true;
        {
            let parts = coupled(state, electric, a);
            let values = target.as_mut_slice();
            let summed = !list.integrals.is_empty();
            let span = list.rows_of(region);
            let needed = list.shared.each_ref().map(|s| s.needed(span.clone()));
            let mut curls = core::mem::take(&mut list.curls.0);
            for (k, out) in curls.iter_mut().enumerate() {
                out.clear();
                if let Some(curl) = &parts[k] {
                    curl.extend_at(&list.shared[k].offsets[needed[k].clone()], out);
                }
            }
            // The rows of the span hold nodes outside `region` only where it leaves out some
            // of their x or y extent.
            let bounds = list.bounds();
            let whole_rows =
                (0..2).all(|a| region.lo[a] <= bounds.lo[a] && bounds.hi[a] <= region.hi[a]);
            for at in span {
                let i = list.node_at(at);
                let node = &list.nodes[i];
                if !whole_rows && !region.contains(node.cell) {
                    continue;
                }
                let mut sum = T::zero();
                for (k, curls) in curls.iter().enumerate() {
                    if parts[k].is_none() {
                        continue;
                    }
                    let first = needed[k].start;
                    let mut mean = T::zero();
                    for (n, &r) in list.shared[k].refs[at].iter().enumerate() {
                        if node.present & (1 << (4 * k + n)) != 0 {
                            mean += curls[r as usize - first];
                        }
                    }
                    let mean = mean.scale(quarter);
                    sum += mean.scale(node.weights[k]);
                    if summed && node.loss_weights[k] != zero {
                        // The running sum of the averaged curl, taken at the half step.
                        let before = list.integrals[i][k];
                        let after = before + mean;
                        list.integrals[i][k] = after;
                        sum += (before + after).scale(half).scale(node.loss_weights[k]);
                    }
                }
                let updated = values[node.offset] + sum;
                finite &= updated.is_finite();
                values[node.offset] = updated;
            }
            list.curls.0 = curls;
        }
        state.non_finite |= !finite;
        state.fields[c.index()] = Some(target);
        state.tensor[c.index()] = Some(list);
    }
}
