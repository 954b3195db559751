//! The CPML corrections in parallel over the planes of each layer.

use rayon::prelude::*;
use yee_core::{Box3, Scalar};
use yee_em::Component;
use yee_scalar::cpml::with_cpml_planes;
use yee_scalar::state::YeeState;

/// The CPML corrections in parallel over the planes of each layer, in the oracle's arithmetic:
/// `ψ ← b·ψ + c·∂`, then the field gains `± Cb·ψ`.
pub(crate) fn cpml_phase<T: Scalar>(state: &mut YeeState<T>, electric: bool, region: Box3) {
    let mut slabs = std::mem::take(&mut state.slabs);
    let components: Vec<Component> = state
        .mode
        .components()
        .iter()
        .copied()
        .filter(|c| c.is_electric() == electric)
        .collect();
    for slab in &mut slabs {
        for &c in &components {
            cpml_component(state, slab, c, region);
        }
    }
    state.slabs = slabs;
}

pub(crate) fn cpml_component<T: Scalar>(
    state: &mut YeeState<T>,
    slab: &mut yee_scalar::state::CpmlSlab<T>,
    c: Component,
    region: Box3,
) {
    with_cpml_planes(state, slab, c, region, |ctx, fields, psi| {
        fields
            .par_chunks_mut(ctx.field_plane)
            .zip(psi.par_chunks_mut(ctx.psi_plane))
            .enumerate()
            .for_each(|(k, (f, p))| {
                ctx.correct_plane(ctx.region.lo[2] + k as i64, f, p);
            });
    });
}
