//! Conway's Game of Life written as two [`Stencil`]s and nothing else: the scalar backend's
//! [`StencilChunk`] derives the ghost width, the halos (faces, edges and corners), the work
//! and migration from them, and the runtime runs it decomposed and dynamically balanced on
//! any communicator, with the same cells as one rank.
//!
//! Phase 0 commits the next generation (`ALIVE ← NEXT`, reach 0); its `ALIVE` is exchanged;
//! phase 1 applies the rule (`NEXT ← rule(ALIVE and its 8 neighbours)`, reach 1). A run starts
//! with generation 0 in `NEXT`, so after `T` steps `NEXT` holds generation `T`.

use yee_core::{Box3, Field, FieldId, Stencil};
use yee_runtime::RuntimeError;
use yee_runtime::app::{Gathered, Ranks, RunPlan, run};
use yee_scalar::stencil_chunk::{Fields, StencilChunk};

/// The current generation (1 alive, 0 dead).
pub const ALIVE: FieldId = FieldId(0);
/// The next generation.
pub const NEXT: FieldId = FieldId(1);

/// The two update rules of a generation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LifeStencil {
    /// `ALIVE ← NEXT`.
    Commit,
    /// `NEXT ← B3/S23(ALIVE)`: born with 3 live neighbours, survives with 2 or 3.
    Rule,
}

impl Stencil<Fields<f32>> for LifeStencil {
    fn name(&self) -> &str {
        match self {
            LifeStencil::Commit => "life-commit",
            LifeStencil::Rule => "life-rule",
        }
    }
    fn reads(&self) -> &[FieldId] {
        match self {
            LifeStencil::Commit => &[NEXT],
            LifeStencil::Rule => &[ALIVE],
        }
    }
    fn writes(&self) -> &[FieldId] {
        match self {
            LifeStencil::Commit => &[ALIVE],
            LifeStencil::Rule => &[NEXT],
        }
    }
    fn reach(&self) -> usize {
        match self {
            LifeStencil::Commit => 0,
            LifeStencil::Rule => 1,
        }
    }
    fn cost_per_cell(&self) -> f64 {
        match self {
            LifeStencil::Commit => 0.25,
            LifeStencil::Rule => 1.0,
        }
    }
    fn apply(&self, state: &mut Fields<f32>, region: Box3, _step: u64) {
        let [alive, next] = state.disjoint_mut([ALIVE, NEXT]);
        let columns = alive.columns(region);
        for y in region.lo[1]..region.hi[1] {
            if *self == LifeStencil::Commit {
                let from = &next.row(y, 0)[columns.clone()];
                alive.row_mut(y, 0)[columns.clone()].copy_from_slice(from);
                continue;
            }
            let (s, c, n) = (alive.row(y - 1, 0), alive.row(y, 0), alive.row(y + 1, 0));
            let out = next.row_mut(y, 0);
            for x in columns.clone() {
                let row = |r: &[f32]| r[x - 1] + r[x] + r[x + 1];
                let neighbours = row(s) + row(n) + c[x - 1] + c[x + 1];
                let lives = neighbours == 3.0 || (c[x] == 1.0 && neighbours == 2.0);
                out[x] = f32::from(u8::from(lives));
            }
        }
    }
}

/// A life chunk owning `owned`, with generation 0 (`alive(x, y)`) in `NEXT`.
pub fn life_chunk(owned: Box3, alive: impl Fn(i64, i64) -> bool) -> StencilChunk<f32, LifeStencil> {
    let mut chunk = StencilChunk::new(
        owned,
        [true, true, false],
        2,
        vec![LifeStencil::Commit, LifeStencil::Rule],
    );
    let next = chunk.fields_mut().get_mut(NEXT);
    for n in 0..owned.cells() {
        let p = owned.index_at(n);
        next.set(p, f32::from(u8::from(alive(p[0], p[1]))));
    }
    chunk
}

/// `steps` generations from `alive` on `ranks` laid out by `plan`: `NEXT` over the grid on
/// the root.
pub fn simulate(
    ranks: &Ranks,
    plan: &RunPlan,
    steps: u64,
    alive: impl Fn(i64, i64) -> bool + Sync,
) -> Result<Option<Gathered<f32>>, RuntimeError> {
    let make = |owned: Box3| life_chunk(owned, &alive);
    let read = |c: &StencilChunk<f32, LifeStencil>, region: Box3, out: &mut [f32]| {
        c.fields().get(NEXT).read_box(region, out)
    };
    run(ranks, plan, steps, make, read)
}

/// A glider whose top-left corner is at `(x0, y0)`: it moves one cell down and right every
/// four generations.
pub fn glider(x0: i64, y0: i64) -> impl Fn(i64, i64) -> bool {
    move |x, y| matches!((x - x0, y - y0), (1, 0) | (2, 1) | (0, 2) | (1, 2) | (2, 2))
}
