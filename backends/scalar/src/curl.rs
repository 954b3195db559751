//! The Yee curl updates: `E ← Ca E + Cb ∇×H` and `H ← Da H − Db ∇×E` (Yee 1966), with the
//! derivatives scaled by the CPML stretch 1/κ (1 outside every layer).

use yee_core::{Box3, FieldId, Scalar, Stencil};
use yee_em::Component;

use crate::state::{ALL_IDS, YeeState, written_ids};

/// The curl update of the electric (`electric = true`) or magnetic components.
#[derive(Clone, Copy, Debug)]
pub struct CurlUpdate {
    /// E components when true, H components when false.
    pub electric: bool,
}

impl<T: Scalar> Stencil<YeeState<T>> for CurlUpdate {
    fn name(&self) -> &str {
        if self.electric { "curl-e" } else { "curl-h" }
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

    fn cost_per_cell(&self) -> f64 {
        1.0
    }

    fn apply(&self, state: &mut YeeState<T>, region: Box3, _step: u64) {
        for &c in state.mode.components() {
            if c.is_electric() == self.electric {
                update_component(state, c, region);
            }
        }
    }
}

/// The difference that approximates `∂source/∂axis` at the node of the updated component:
/// backward for E (H sits half a cell below), forward for H (E sits half a cell above).
#[inline(always)]
pub fn difference<T: Scalar>(s: &[T], offset: usize, stride: usize, electric: bool) -> T {
    if electric {
        s[offset] - s[offset - stride]
    } else {
        s[offset + stride] - s[offset]
    }
}

fn update_component<T: Scalar>(state: &mut YeeState<T>, c: Component, region: Box3) {
    let r = region.intersect(&state.free[c.index()]);
    if r.is_empty() {
        return;
    }
    let Some(mut target) = state.fields[c.index()].take() else {
        return;
    };
    let active = state.mode.active_axes();
    let storage = yee_core::Field::storage(&target);
    let strides = storage.strides();
    let mut finite = true;
    {
        let state = &*state;
        let terms = c.curl_terms().map(|t| {
            let used = active[t.axis.index()] && state.mode.has(t.source);
            let stretch = state.stretch[t.axis.index()].table(c, t.axis);
            used.then(|| {
                (
                    state.field(t.source).expect("mode carries the source"),
                    t,
                    stretch,
                )
            })
        });
        let values = target.as_mut_slice();
        for z in r.lo[2]..r.hi[2] {
            for y in r.lo[1]..r.hi[1] {
                let row = storage.linear_index([r.lo[0], y, z]);
                for x in r.lo[0]..r.hi[0] {
                    let o = row + (x - r.lo[0]) as usize;
                    let p = [x, y, z];
                    let mut curl = T::zero();
                    for (source, term, stretch) in terms.iter().flatten() {
                        let a = term.axis.index();
                        let d = difference(source.as_slice(), o, strides[a], c.is_electric());
                        let inv_kappa = stretch[p[a] as usize][2];
                        let scaled = d.scale(inv_kappa);
                        curl = if term.sign > 0 {
                            curl + scaled
                        } else {
                            curl - scaled
                        };
                    }
                    let [decay, gain] = state.coefficients(c, o);
                    let updated = values[o].scale(decay) + curl.scale(gain);
                    finite &= updated.is_finite();
                    values[o] = updated;
                }
            }
        }
    }
    state.non_finite |= !finite;
    state.fields[c.index()] = Some(target);
}
