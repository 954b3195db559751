//! The CPML correction inside absorbing layers: `ψ ← b ψ + c ∂`, then the field gains
//! `± coefficient · ψ` (Roden & Gedney 2000). Applied after [`crate::curl::CurlUpdate`] on the
//! same region; outside every layer it does nothing.

use yee_core::{Box3, FieldId, Scalar, Stencil};
use yee_em::Component;

use crate::material_ids::NodeIds;
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
    with_cpml_planes(state, slab, c, region, |ctx, fields, psi| {
        for (k, (f, p)) in fields
            .chunks_mut(ctx.field_plane)
            .zip(psi.chunks_mut(ctx.psi_plane))
            .enumerate()
        {
            ctx.correct_plane(ctx.region.lo[2] + k as i64, f, p);
        }
    });
}

/// What the CPML correction of one component over a region reads, plane by plane.
pub struct CpmlContext<'a, T: Scalar> {
    /// Cells corrected: the region ∩ the layer ∩ the component's free box.
    pub region: Box3,
    /// The field's storage box.
    pub storage: Box3,
    /// The layer's cells in the chunk (the ψ array's box).
    pub slab_region: Box3,
    /// Values in one storage plane.
    pub field_plane: usize,
    /// Values in one ψ plane.
    pub psi_plane: usize,
    /// The axis the layer absorbs along (0, 1, 2).
    pub axis: usize,
    /// The curl term's source field, in storage layout.
    pub source: &'a [T],
    /// The source's storage stride along `axis`.
    pub stride: usize,
    /// `[b, c, 1/κ]` along `axis`, indexed by global coordinate.
    pub table: &'a [[T::Real; 3]],
    /// The component's material ids.
    pub ids: NodeIds<'a>,
    /// `[decay, gain]` per material id.
    pub coefficients: &'a [[T::Real; 2]],
    /// Whether the field gains `+Cb ψ` (else `−Cb ψ`).
    pub positive: bool,
    /// Electric (backward differences) or magnetic (forward).
    pub electric: bool,
}

impl<T: Scalar> CpmlContext<'_, T> {
    /// Corrects plane `z`: `values` is the field's storage plane z, `psi` the ψ plane z.
    /// `ψ ← b ψ + c ∂`, then the field gains `± Cb ψ` (Roden & Gedney 2000).
    pub fn correct_plane(&self, z: i64, values: &mut [T], psi: &mut [T]) {
        let (r, storage, slab) = (self.region, self.storage, self.slab_region);
        let (ex, px) = (storage.extent()[0], slab.extent()[0]);
        let plane_base = (z - storage.lo[2]) as usize * self.field_plane;
        for y in r.lo[1]..r.hi[1] {
            let row = (y - storage.lo[1]) as usize * ex;
            let psi_row = (y - slab.lo[1]) as usize * px;
            for x in r.lo[0]..r.hi[0] {
                let o = row + (x - storage.lo[0]) as usize;
                let q = psi_row + (x - slab.lo[0]) as usize;
                let [b, k, _] = self.table[[x, y, z][self.axis] as usize];
                let s = self.source;
                let g = plane_base + o;
                let d = if self.electric {
                    s[g] - s[g - self.stride]
                } else {
                    s[g + self.stride] - s[g]
                };
                psi[q] = psi[q].scale(b) + d.scale(k);
                let [_, gain] = self.coefficients[self.ids.at(g) as usize];
                let correction = psi[q].scale(gain);
                values[o] = if self.positive {
                    values[o] + correction
                } else {
                    values[o] - correction
                };
            }
        }
    }
}

/// Sets up the CPML correction of component `c` in `slab` over `region` and hands `run` the
/// context, the field's storage planes of the region's z range and the matching ψ planes
/// (nothing to do: `run` is not called). Backends choose how to walk the planes.
pub fn with_cpml_planes<T: Scalar>(
    state: &mut YeeState<T>,
    slab: &mut crate::state::CpmlSlab<T>,
    c: Component,
    region: Box3,
    run: impl FnOnce(&CpmlContext<T>, &mut [T], &mut [T]),
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
        let st = &*state;
        let storage = yee_core::Field::storage(&target);
        let (se, pe) = (storage.extent(), slab.region.extent());
        let ctx = CpmlContext {
            region: r,
            storage,
            slab_region: slab.region,
            field_plane: se[0] * se[1],
            psi_plane: pe[0] * pe[1],
            axis: axis.index(),
            source: st
                .field(term.source)
                .expect("mode carries the source")
                .as_slice(),
            stride: storage.strides()[axis.index()],
            table: st.stretch[axis.index()].table(c, axis),
            ids: st.node_ids(c),
            coefficients: if c.is_electric() {
                &st.electric[..]
            } else {
                &st.magnetic[..]
            },
            positive: term.sign > 0,
            electric: c.is_electric(),
        };
        let fields = &mut target.as_mut_slice()[(r.lo[2] - storage.lo[2]) as usize * ctx.field_plane
            ..(r.hi[2] - storage.lo[2]) as usize * ctx.field_plane];
        let psi = &mut psi[(r.lo[2] - slab.region.lo[2]) as usize * ctx.psi_plane
            ..(r.hi[2] - slab.region.lo[2]) as usize * ctx.psi_plane];
        run(&ctx, fields, psi);
    }
    state.fields[c.index()] = Some(target);
}
