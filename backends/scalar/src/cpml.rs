//! The CPML correction inside absorbing layers: `ψ ← b ψ + c ∂`, then the field gains
//! `± coefficient · ψ` (Roden & Gedney 2000). Applied after [`crate::curl::CurlUpdate`] on the
//! same region; outside every layer it does nothing.

use yee_core::{Box3, Component, FieldId, Scalar, Stencil};

use crate::curl::difference;
use crate::state::{ALL_IDS, YeeState, written_ids};

/// The CPML ψ update and correction of the electric or magnetic components.
#[derive(Clone, Copy, Debug)]
pub struct CpmlUpdate {
    /// E components when true, H components when false.
    pub electric: bool,
}

impl<T: Scalar> Stencil<YeeState<T>> for CpmlUpdate {
    fn name(&self) -> &str {
        if self.electric { "cpml-e" } else { "cpml-h" }
    }

    fn reads(&self) -> &[FieldId] {
        &ALL_IDS
    }

    fn writes(&self) -> &[FieldId] {
        written_ids(self.electric)
    }

    fn reach(&self) -> usize {
        1
    }

    /// The extra cost of a layer cell over a plain one (Franek 2016 measures 1.86 in total).
    fn cost_per_cell(&self) -> f64 {
        0.86
    }

    fn apply(&self, state: &mut YeeState<T>, region: Box3, _step: u64) {
        let mut slabs = core::mem::take(&mut state.slabs);
        for slab in &mut slabs {
            for &c in state.mode.components() {
                if c.is_electric() == self.electric {
                    correct_component(state, slab, c, region);
                }
            }
        }
        state.slabs = slabs;
    }
}

fn correct_component<T: Scalar>(
    state: &mut YeeState<T>,
    slab: &mut crate::state::CpmlSlab<T>,
    c: Component,
    region: Box3,
) {
    let Some(psi) = slab.psi[c.index()].as_mut() else {
        return;
    };
    let r = region
        .intersect(&slab.region)
        .intersect(&state.free[c.index()]);
    if r.is_empty() {
        return;
    }
    let axis = slab.axis;
    let term = c
        .curl_terms()
        .into_iter()
        .find(|t| t.axis == axis)
        .expect("slab holds ψ only for components differentiating along its axis");
    let Some(mut target) = state.fields[c.index()].take() else {
        return;
    };
    {
        let state = &*state;
        let source = state.field(term.source).expect("mode carries the source");
        let storage = yee_core::Field::storage(&target);
        let stride = storage.strides()[axis.index()];
        let values = target.as_mut_slice();
        let a = axis.index();
        let table = state.stretch[a].table(c, axis);
        for z in r.lo[2]..r.hi[2] {
            for y in r.lo[1]..r.hi[1] {
                let row = storage.linear_index([r.lo[0], y, z]);
                let psi_row = slab.region.linear_index([r.lo[0], y, z]);
                for x in r.lo[0]..r.hi[0] {
                    let i = (x - r.lo[0]) as usize;
                    let (o, q) = (row + i, psi_row + i);
                    let [b, k, _] = table[[x, y, z][a] as usize];
                    let d = difference(source, o, stride, c.is_electric());
                    psi[q] = psi[q].scale(b) + d.scale(k);
                    let [_, gain] = state.coefficients(c, o);
                    let correction = psi[q].scale(gain);
                    values[o] = if term.sign > 0 {
                        values[o] + correction
                    } else {
                        values[o] - correction
                    };
                }
            }
        }
    }
    state.fields[c.index()] = Some(target);
}
