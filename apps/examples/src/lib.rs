//! 2D heat diffusion with a 9-point (Mehrstellen) Laplacian, written only against yee's traits:
//! its own [`Stencil`], its own [`Chunk`] (which exchanges faces *and* corners, unlike Yee), a
//! [`yee_core::Field`] from the scalar backend for storage, and the runtime's
//! [`yee_runtime::app::run`] (layout, driver, balancer, migration, gathering) on any
//! communicator. It must give the same bits on any decomposition as on one rank.
#![warn(missing_docs)]

/// The guide to writing an app on yee's traits (docs/custom-app.md): its code is compiled and
/// run as this module's doctest.
#[doc = include_str!("../../../docs/custom-app.md")]
pub mod guide {}
pub mod life;
pub mod virtual_cluster;
pub mod wave;

use yee_core::{
    Box3, Capabilities, Chunk, Direction, Field, FieldId, HostBuffer, HostChunkError, Stencil,
};
use yee_runtime::RuntimeError;
use yee_runtime::app::{Gathered, Ranks, RunPlan, run};
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
            let (s, c, n) = (src.row(y - 1, 0), src.row(y, 0), src.row(y + 1, 0));
            let out = dst.row_mut(y, 0);
            for x in src.columns(region) {
                let faces = c[x + 1] + c[x - 1] + n[x] + s[x];
                let corners = n[x + 1] + n[x - 1] + s[x + 1] + s[x - 1];
                let laplacian = (4.0 * faces + corners - 20.0 * c[x]) / 6.0;
                out[x] = c[x] + state.r * laplacian;
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
    /// A chunk owning `owned`, with the initial temperature `u0(x, y)` at the centres of its
    /// owned cells (the runtime exchanges the ghosts before the first step; ghosts beyond a
    /// wall stay 0, a cold wall).
    pub fn new(owned: Box3, r: f64, u0: impl Fn(f64, f64) -> f64) -> Self {
        let mut level = HostField::zeros(owned, [1, 1, 0]);
        for y in owned.lo[1]..owned.hi[1] {
            for x in owned.lo[0]..owned.hi[0] {
                level.set_xy(x, y, u0(x as f64 + 0.5, y as f64 + 0.5));
            }
        }
        HeatChunk {
            state: HeatState {
                levels: [level, HostField::zeros(owned, [1, 1, 0])],
                r,
            },
            newest: 0,
        }
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
    type Buffer = HostBuffer<f64>;
    type Error = HostChunkError;
    const CAPABILITIES: Capabilities = Capabilities {
        asynchronous: false,
        migration: true,
    };

    fn owned(&self) -> Box3 {
        self.state.levels[0].owned()
    }
    fn ghost(&self) -> [usize; 3] {
        [1, 1, 0]
    }
    fn phases(&self) -> usize {
        1
    }
    fn submit(&mut self, step: u64, _phase: usize, region: Box3) -> Result<(), HostChunkError> {
        HeatStencil.apply(&mut self.state, region, step);
        self.newest = ((step + 1) % 2) as usize;
        Ok(())
    }
    fn buffer(&self, bytes: usize) -> Result<HostBuffer<f64>, HostChunkError> {
        Ok(HostBuffer::with_bytes(bytes))
    }
    fn halo_len(&self, _phase: usize, toward: Direction) -> usize {
        self.border(toward).cells()
    }
    fn ghost_len(&self, _phase: usize, from: Direction) -> usize {
        self.ghosts(from).cells()
    }
    fn pack_halos(
        &mut self,
        _phase: usize,
        towards: &[Direction],
        out: &mut [HostBuffer<f64>],
    ) -> Result<(), HostChunkError> {
        for (&toward, buffer) in towards.iter().zip(out) {
            let border = self.border(toward);
            let values = buffer.values_mut(border.cells());
            self.state.levels[self.newest].read_box(border, values);
        }
        Ok(())
    }
    fn unpack_halos(
        &mut self,
        _phase: usize,
        froms: &[Direction],
        data: &[HostBuffer<f64>],
    ) -> Result<(), HostChunkError> {
        for (&from, buffer) in froms.iter().zip(data) {
            let ghosts = self.ghosts(from);
            self.state.levels[self.newest].write_box(ghosts, buffer.values(ghosts.cells()));
        }
        Ok(())
    }
    /// Both levels of each cell migrate (the stencil reads the newest, the other is written
    /// next).
    fn slab_len(&self, region: Box3) -> usize {
        2 * region.cells()
    }
    fn pack_slabs(
        &mut self,
        regions: &[Box3],
        out: &mut HostBuffer<f64>,
    ) -> Result<(), HostChunkError> {
        let mut at = 0;
        for &region in regions {
            for level in &self.state.levels {
                let n = region.cells();
                level.read_box(region, &mut out.0[at..at + n]);
                at += n;
            }
        }
        Ok(())
    }
    fn unpack_slabs(
        &mut self,
        regions: &[Box3],
        data: &HostBuffer<f64>,
    ) -> Result<(), HostChunkError> {
        let mut at = 0;
        for &region in regions {
            for level in &mut self.state.levels {
                let n = region.cells();
                level.write_box(region, &data.0[at..at + n]);
                at += n;
            }
        }
        Ok(())
    }
    fn resize(&mut self, owned: Box3) -> Result<(), HostChunkError> {
        for level in &mut self.state.levels {
            level.resize(owned);
        }
        Ok(())
    }
}

/// The initial hot spot of the example.
pub fn hot_spot(x: f64, y: f64) -> f64 {
    (-((x - 30.0).powi(2) + (y - 25.0).powi(2)) / 50.0).exp()
}

/// `steps` steps of the heat app with diffusion number `r` from [`hot_spot`], on `ranks` laid
/// out by `plan`: the temperature over the grid on the root.
pub fn simulate(
    ranks: &Ranks,
    plan: &RunPlan,
    steps: u64,
    r: f64,
) -> Result<Option<Gathered<f64>>, RuntimeError> {
    let make = |owned: Box3| HeatChunk::new(owned, r, hot_spot);
    let read = |c: &HeatChunk, region: Box3, out: &mut [f64]| {
        c.state.levels[c.newest].read_box(region, out)
    };
    run(ranks, plan, steps, make, read)
}
