//! Conway's Game of Life written as two [`Stencil`]s and nothing else: the scalar backend's
//! [`StencilChunk`] derives the ghost width, the halos (faces, edges and corners), the work
//! and migration from them, and the generic session runs it decomposed and dynamically
//! balanced on any communicator, with the same cells as one rank.
//!
//! Phase 0 commits the next generation (`ALIVE ← NEXT`, reach 0); its `ALIVE` is exchanged;
//! phase 1 applies the rule (`NEXT ← rule(ALIVE and its 8 neighbours)`, reach 1). A run starts
//! with generation 0 in `NEXT`, so after `T` steps `NEXT` holds generation `T` — and no
//! exchange is needed before the first step.

use yee_core::driver::StepError;
use yee_core::session::{Plan, run_steps};

use crate::RankPiece;
use yee_core::{Box3, Chunk, Comm, FieldId, HostChunkError, Stencil};
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
        let [alive, next] = &mut state.fields[..] else {
            unreachable!("a life chunk has two fields")
        };
        for y in region.lo[1]..region.hi[1] {
            for x in region.lo[0]..region.hi[0] {
                match self {
                    LifeStencil::Commit => alive.set([x, y, 0], next.get([x, y, 0])),
                    LifeStencil::Rule => {
                        let mut neighbours = 0.0;
                        for (dx, dy) in NEIGHBOURS {
                            neighbours += alive.get([x + dx, y + dy, 0]);
                        }
                        let me = alive.get([x, y, 0]) == 1.0;
                        let lives = neighbours == 3.0 || (me && neighbours == 2.0);
                        next.set([x, y, 0], f32::from(u8::from(lives)));
                    }
                }
            }
        }
    }
}

const NEIGHBOURS: [(i64, i64); 8] = [
    (-1, -1),
    (0, -1),
    (1, -1),
    (-1, 0),
    (1, 0),
    (-1, 1),
    (0, 1),
    (1, 1),
];

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

/// Runs `steps` generations of rank `comm.rank()` laid out (and balanced) by `plan`.
pub fn run_rank<M: Comm>(
    plan: &Plan,
    comm: &mut M,
    steps: u64,
    alive: impl Fn(i64, i64) -> bool,
) -> Result<RankPiece<f32>, StepError<HostChunkError, M::Error>> {
    let chunk = life_chunk(plan.initial_box(comm.rank()), alive);
    let (chunk, log) = run_steps(plan, comm, steps, chunk, |_, _| false)?;
    let owned = chunk.owned();
    let mut cells = vec![0.0; owned.cells()];
    yee_core::Field::read_box(chunk.fields().get(NEXT), owned, &mut cells);
    Ok((owned, cells, log))
}

/// A glider whose top-left corner is at `(x0, y0)`: it moves one cell down and right every
/// four generations.
pub fn glider(x0: i64, y0: i64) -> impl Fn(i64, i64) -> bool {
    move |x, y| matches!((x - x0, y - y0), (1, 0) | (2, 1) | (0, 2) | (1, 2) | (2, 2))
}
