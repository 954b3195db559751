//! 2D heat diffusion with a 9-point (Mehrstellen) Laplacian, written only against yee's traits:
//! its own [`Stencil`], its own [`Chunk`] (which exchanges faces *and* corners, unlike Yee), a
//! [`yee_core::Field`] from the scalar backend for storage, and the generic driver over any
//! [`yee_core::Comm`]. It runs decomposed on the simulated and shared-memory communicators and
//! must give the same bits as one rank.
#![warn(missing_docs)]

pub mod virtual_cluster;

use yee_core::decomposition::Layout;
use yee_core::driver::{Driver, Schedule};
use yee_core::{Box3, Chunk, Comm, Direction, Field, FieldId, Stencil};
use yee_scalar::HostField;

/// Two time levels of the temperature on one chunk; level `step % 2` is the old one.
#[derive(Clone, Debug)]
pub struct HeatState {
    /// The two levels.
    pub levels: [HostField<f64>; 2],
    /// Diffusion number r = κΔt/Δx² (stable below 0.3 for this stencil).
    pub r: f64,
}

/// `u_new = u + r·(4(N + S + E + W) + (NE + NW + SE + SW) − 20u)/6`, reading level `step % 2`
/// and writing the other.
#[derive(Clone, Copy, Debug)]
pub struct HeatStencil;

const IDS: [FieldId; 2] = [FieldId(0), FieldId(1)];

impl Stencil<HeatState> for HeatStencil {
    fn name(&self) -> &str {
        "heat-9pt"
    }
    fn reads(&self) -> &[FieldId] {
        &IDS[..1]
    }
    fn writes(&self) -> &[FieldId] {
        &IDS[1..]
    }
    fn reach(&self) -> usize {
        1
    }
    fn cost_per_cell(&self) -> f64 {
        1.0
    }
    fn apply(&self, state: &mut HeatState, region: Box3, step: u64) {
        let old = (step % 2) as usize;
        let [a, b] = &mut state.levels;
        let (src, dst) = if old == 0 { (&*a, b) } else { (&*b, a) };
        for y in region.lo[1]..region.hi[1] {
            for x in region.lo[0]..region.hi[0] {
                let u = |dx: i64, dy: i64| src.get([x + dx, y + dy, 0]);
                let faces = u(1, 0) + u(-1, 0) + u(0, 1) + u(0, -1);
                let corners = u(1, 1) + u(-1, 1) + u(1, -1) + u(-1, -1);
                let laplacian = (4.0 * faces + corners - 20.0 * u(0, 0)) / 6.0;
                dst.set([x, y, 0], u(0, 0) + state.r * laplacian);
            }
        }
    }
}

/// One rank's block of the heat problem.
#[derive(Clone, Debug)]
pub struct HeatChunk {
    /// The two levels and the diffusion number.
    pub state: HeatState,
    /// The level written by the latest step.
    newest: usize,
}

impl HeatChunk {
    /// A chunk owning `owned`, with the initial temperature `u0(x, y)` at cell centres.
    pub fn new(owned: Box3, r: f64, u0: impl Fn(f64, f64) -> f64) -> Self {
        let mut level = HostField::zeros(owned, [1, 1, 0]);
        for n in 0..owned.cells() {
            let p = owned.index_at(n);
            level.set(p, u0(p[0] as f64 + 0.5, p[1] as f64 + 0.5));
        }
        HeatChunk {
            state: HeatState {
                levels: [level.clone(), HostField::zeros(owned, [1, 1, 0])],
                r,
            },
            newest: 0,
        }
    }

    /// The newest temperature over the owned box, x fastest.
    pub fn temperature(&self) -> Vec<f64> {
        let f = &self.state.levels[self.newest];
        let mut out = vec![0.0; f.owned().cells()];
        f.read_box(f.owned(), &mut out);
        out
    }

    /// Owned cells next to `dir` (one layer along each non-zero axis of `dir`).
    fn border(&self, dir: Direction) -> Box3 {
        let o = self.state.levels[0].owned();
        let mut b = o;
        for a in 0..2 {
            match dir.0[a] {
                1 => b.lo[a] = o.hi[a] - 1,
                -1 => b.hi[a] = o.lo[a] + 1,
                _ => {}
            }
        }
        b
    }

    /// Ghost cells beyond `dir`.
    fn ghosts(&self, dir: Direction) -> Box3 {
        let o = self.state.levels[0].owned();
        let mut b = o;
        for a in 0..2 {
            match dir.0[a] {
                1 => (b.lo[a], b.hi[a]) = (o.hi[a], o.hi[a] + 1),
                -1 => (b.lo[a], b.hi[a]) = (o.lo[a] - 1, o.lo[a]),
                _ => {}
            }
        }
        b
    }
}

impl Chunk for HeatChunk {
    type Value = f64;

    fn owned(&self) -> Box3 {
        self.state.levels[0].owned()
    }
    fn ghost(&self) -> [usize; 3] {
        [1, 1, 0]
    }
    fn phases(&self) -> usize {
        1
    }
    fn apply(&mut self, step: u64, _phase: usize, region: Box3) {
        HeatStencil.apply(&mut self.state, region, step);
        self.newest = ((step + 1) % 2) as usize;
    }
    fn halo_len(&self, _phase: usize, toward: Direction) -> usize {
        self.border(toward).cells()
    }
    fn ghost_len(&self, _phase: usize, from: Direction) -> usize {
        self.ghosts(from).cells()
    }
    fn pack_halo(&self, _phase: usize, toward: Direction, out: &mut [f64]) {
        self.state.levels[self.newest].read_box(self.border(toward), out);
    }
    fn unpack_halo(&mut self, _phase: usize, from: Direction, data: &[f64]) {
        let ghosts = self.ghosts(from);
        self.state.levels[self.newest].write_box(ghosts, data);
    }
}

/// The initial hot spot of the example.
pub fn hot_spot(x: f64, y: f64) -> f64 {
    (-((x - 30.0).powi(2) + (y - 25.0).powi(2)) / 50.0).exp()
}

/// Runs `steps` steps of the rank `comm.rank()` and returns its box and temperature.
pub fn run_rank<M: Comm>(
    layout: &Layout,
    comm: &mut M,
    steps: u64,
    r: f64,
) -> Result<(Box3, Vec<f64>), M::Error> {
    let owned = layout.chunk_box(comm.rank());
    let mut chunk = HeatChunk::new(owned, r, hot_spot);
    let mut driver = Driver::new(Schedule::new(layout, comm.rank(), [true, true, false]));
    // The initial temperature fills owned cells only: the ghosts come from the neighbours.
    driver.exchange(&mut chunk, comm, 0)?;
    for step in 0..steps {
        driver.step(&mut chunk, comm, step)?;
    }
    Ok((owned, chunk.temperature()))
}

/// Assembles the ranks' pieces into the whole `grid` (x fastest).
pub fn assemble(grid: [usize; 2], pieces: &[(Box3, Vec<f64>)]) -> Vec<f64> {
    let whole = Box3::from_extent([grid[0], grid[1], 1]);
    let mut out = vec![0.0; whole.cells()];
    for (owned, values) in pieces {
        for (n, v) in values.iter().enumerate() {
            out[whole.linear_index(owned.index_at(n))] = *v;
        }
    }
    out
}
