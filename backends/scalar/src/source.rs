//! Point sources: soft sources add an impressed current after the update, hard sources
//! overwrite the field (Taflove & Hagness, 3rd ed., ch. 5, hard and soft sources).

use yee_core::Real;
use yee_core::{Box3, FieldId, Scalar, Stencil};
use yee_em::PointSource;
use yee_em::SourceKind;

use crate::state::{YeeState, written_ids};

/// The point sources driving the electric or magnetic components.
#[derive(Clone, Copy, Debug)]
pub struct SourceUpdate {
    /// E components when true, H components when false.
    pub electric: bool,
}

/// The time at which source `s` is evaluated during step `step` (going from E at `step·Δt`
/// to `(step+1)·Δt`): soft sources at the midpoint of their field's update, hard sources at
/// the new field's time.
pub fn source_time(s: &PointSource, step: u64, dt: f64) -> f64 {
    let n = step as f64;
    match (s.component.is_electric(), s.kind) {
        (true, SourceKind::Soft) => (n + 0.5) * dt,
        (true, SourceKind::Hard) => (n + 1.0) * dt,
        (false, SourceKind::Soft) => n * dt,
        (false, SourceKind::Hard) => (n + 0.5) * dt,
    }
}

impl<T: Scalar> Stencil<YeeState<T>> for SourceUpdate {
    fn name(&self) -> &str {
        if self.electric {
            "source-e"
        } else {
            "source-h"
        }
    }

    fn reads(&self) -> &[FieldId] {
        &[]
    }

    fn writes(&self) -> &[FieldId] {
        written_ids(self.electric)
    }

    fn reach(&self) -> usize {
        0
    }

    fn cost_per_cell(&self) -> f64 {
        0.0
    }

    fn apply(&self, state: &mut YeeState<T>, region: Box3, step: u64) {
        for i in 0..state.sources.len() {
            let s = state.sources[i];
            if s.component.is_electric() != self.electric || !region.contains(s.cell) {
                continue;
            }
            let value = s.amplitude * s.waveform.value(source_time(&s, step, state.dt));
            let field = state.fields[s.component.index()]
                .as_ref()
                .expect("validated: the mode carries the component");
            let o = field.storage_offset(s.cell);
            let [_, gain] = state.coefficients(s.component, o);
            let field = state.fields[s.component.index()]
                .as_mut()
                .expect("checked above");
            let v = T::Real::from_f64(value);
            let old = field.as_slice()[o];
            field.as_mut_slice()[o] = match s.kind {
                SourceKind::Soft => old + T::from_real(v).scale(gain),
                SourceKind::Hard => T::from_real(v),
            };
        }
    }
}
