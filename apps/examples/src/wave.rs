//! The 2D wave equation u_tt = c²∇²u as two [`Stencil`]s in leapfrog form, a drift `U += Δt·V`
//! and a kick `V += (cΔt/Δx)²∇²U` that reads V only in place ([`Stencil::reach_of`]), so only
//! U crosses a border. The runtime runs it on any communicator and layout with the same bits.

use yee_core::{Box3, Field, FieldId, Stencil};
use yee_runtime::RuntimeError;
use yee_runtime::app::{Gathered, Ranks, RunPlan, run};
use yee_scalar::stencil_chunk::{DynStencil, Fields, StencilChunk};

/// The displacement.
pub const U: FieldId = FieldId(0);
/// Its time derivative.
pub const V: FieldId = FieldId(1);
/// Δt (with Δx = c = 1: Courant number 0.5, stable below 1/√2).
pub const DT: f64 = 0.5;

/// `U += Δt·V`.
pub struct Drift;

impl Stencil<Fields<f64>> for Drift {
    fn reads(&self) -> &[FieldId] {
        &[V]
    }
    fn writes(&self) -> &[FieldId] {
        &[U]
    }
    fn reach(&self) -> usize {
        0
    }
    fn cost_per_cell(&self) -> f64 {
        0.5
    }
    fn apply(&self, f: &mut Fields<f64>, region: Box3, _step: u64) {
        let [u, v] = f.disjoint_mut([U, V]);
        for y in region.lo[1]..region.hi[1] {
            let (speed, out) = (v.row(y, 0), u.row_mut(y, 0));
            for x in v.columns(region) {
                out[x] += DT * speed[x];
            }
        }
    }
}

/// `V += (cΔt/Δx)²·(U[x±1] + U[y±1] − 4U)`.
pub struct Kick;

impl Stencil<Fields<f64>> for Kick {
    fn reads(&self) -> &[FieldId] {
        &[U, V]
    }
    fn writes(&self) -> &[FieldId] {
        &[V]
    }
    fn reach(&self) -> usize {
        1
    }
    fn reach_of(&self, field: FieldId) -> usize {
        usize::from(field == U)
    }
    fn apply(&self, f: &mut Fields<f64>, region: Box3, _step: u64) {
        let [u, v] = f.disjoint_mut([U, V]);
        for y in region.lo[1]..region.hi[1] {
            let (s, c, n) = (u.row(y - 1, 0), u.row(y, 0), u.row(y + 1, 0));
            let out = v.row_mut(y, 0);
            for x in u.columns(region) {
                out[x] += DT * DT * (c[x - 1] + c[x + 1] + s[x] + n[x] - 4.0 * c[x]);
            }
        }
    }
}

/// A wave chunk over `held`, kick or drift first, U a bump at (60, 50) on its cells only (the
/// runtime exchanges the ghosts before the first step).
pub fn chunk(held: Box3, kick_first: bool) -> StencilChunk<f64> {
    let mut rules: Vec<DynStencil<f64>> = vec![Box::new(Drift), Box::new(Kick)];
    if kick_first {
        rules.reverse();
    }
    let mut chunk = StencilChunk::new(held, [true, true, false], 2, rules);
    let u = chunk.fields_mut().get_mut(U);
    for y in held.lo[1]..held.hi[1] {
        for x in held.lo[0]..held.hi[0] {
            u.set_xy(
                x,
                y,
                0.1 * (-((x - 60).pow(2) + (y - 50).pow(2)) as f64 / 40.0).exp(),
            );
        }
    }
    chunk
}

/// `steps` steps of the wave on `ranks` laid out by `plan`: U over the grid on the root.
pub fn simulate(
    ranks: &Ranks,
    plan: &RunPlan,
    steps: u64,
    kick_first: bool,
) -> Result<Option<Gathered<f64>>, RuntimeError> {
    let make = |held: Box3| chunk(held, kick_first);
    let read = |c: &StencilChunk<f64>, region: Box3, out: &mut [f64]| {
        c.fields().get(U).read_box(region, out)
    };
    run(ranks, plan, steps, make, read)
}
