//! The TF/SF surface of each plane wave applied to a chunk: after the curl update of a phase,
//! every node whose update read a neighbour across the surface gets the incident value of
//! that neighbour times its own curl coefficient (Taflove & Hagness, 3rd ed., eqs.
//! (5.46)–(5.49); the geometry and the auxiliary grid are [`yee_em::plane_wave`]'s).

use yee_core::{Box3, Real, Scalar};

use crate::state::YeeState;

/// Applies the surface corrections of the electric (`true`) or magnetic components of step
/// `step` over `region`; each plane wave's auxiliary grid is advanced to the time the update
/// read first (it is shared by every region of the step), or, inside a wavefront tile, has
/// kept the values of the tile's steps ([`yee_em::plane_wave::IncidentLine::keep_steps`]).
pub fn apply_plane_waves<T: Scalar>(
    state: &mut YeeState<T>,
    electric: bool,
    region: Box3,
    step: u64,
) {
    let mode = state.mode;
    let mut lines = core::mem::take(&mut state.lines);
    for line in &mut lines {
        line.advance_for(step, !electric);
        for &c in mode.components() {
            if c.is_electric() != electric {
                continue;
            }
            let r = region.intersect(&state.free[c.index()]);
            let mut field = state.fields[c.index()].take().expect("the mode carries it");
            line.corrections_at(step, mode, c, r, |cell, value| {
                let o = field.storage_offset(cell);
                let [_, gain] = state.coefficients(c, o);
                let v = T::from_real(T::Real::from_f64(value)).scale(gain);
                let slot = &mut field.as_mut_slice()[o];
                *slot += v;
            });
            state.fields[c.index()] = Some(field);
        }
    }
    state.lines = lines;
}
