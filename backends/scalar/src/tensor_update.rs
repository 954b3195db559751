//! The off-diagonal pass of a phase at a chunk's tensor nodes ([`crate::tensor_nodes`] for
//! the scheme): each node adds its weighed averages of the other components' curls.

use yee_core::{Box3, Real, Scalar};
use yee_em::Component;

use crate::curl::difference;
use crate::state::YeeState;
use crate::tensor_nodes::{neighbours, others};

/// The curl update of component `b` at the node in `cell` (storage `offset`): the sum of its
/// curl terms, the same differences as the curl kernel's outside CPML.
fn curl_at<T: Scalar>(state: &YeeState<T>, b: Component, offset: usize) -> T {
    let active = state.mode.active_axes();
    let mut curl = T::zero();
    for t in b.curl_terms() {
        if !(active[t.axis.index()] && state.mode.has(t.source)) {
            continue;
        }
        let source = state.field(t.source).expect("mode carries the source");
        let strides = yee_core::Field::storage(source).strides();
        let d = difference(source, offset, strides[t.axis.index()], b.is_electric());
        curl = if t.sign > 0 { curl + d } else { curl - d };
    }
    curl
}

/// Adds the off-diagonal part of the update to the tensor nodes of the electric (`true`) or
/// magnetic components in `region` (module docs). Run after the curl kernel of the phase;
/// it reads only the other field, so the order among nodes does not matter.
pub fn apply_tensor_nodes<T: Scalar>(state: &mut YeeState<T>, electric: bool, region: Box3) {
    let active = state.mode.active_axes();
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
        let others = others(a);
        let quarter = T::Real::from_f64(0.25);
        let half = T::Real::from_f64(0.5);
        let mut finite = true;
        {
            let state = &*state;
            let storage = yee_core::Field::storage(&target);
            let values = target.as_mut_slice();
            let summed = !list.integrals.is_empty();
            for at in list.rows_of(region) {
                let i = list.node_at(at);
                let node = list.nodes[i];
                if !region.contains(node.cell) {
                    continue;
                }
                let mut sum = T::zero();
                for (k, &b) in others.iter().enumerate() {
                    let component = Component::along(yee_core::Axis::ALL[b], electric);
                    if !state.mode.has(component) {
                        continue;
                    }
                    let mut mean = T::zero();
                    for (n, q) in neighbours(electric, a, b, node.cell, active)
                        .into_iter()
                        .enumerate()
                    {
                        if node.present & (1 << (4 * k + n)) != 0 {
                            mean += curl_at(state, component, storage.linear_index(q));
                        }
                    }
                    let mean = mean.scale(quarter);
                    sum += mean.scale(node.weights[k]);
                    if summed && node.loss_weights[k] != T::Real::from_f64(0.0) {
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
        }
        state.non_finite |= !finite;
        state.fields[c.index()] = Some(target);
        state.tensor[c.index()] = Some(list);
    }
}
