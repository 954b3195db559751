//! 2D heat diffusion with a 9-point (Mehrstellen) Laplacian, written only against yee's traits:
//! its own [`Stencil`], its own [`Chunk`] (which exchanges faces *and* corners, unlike Yee), a
//! [`yee_core::Field`] from the scalar backend for storage, and the generic session (driver, balancer, migration) over any
//! [`yee_core::Comm`]. It runs decomposed on the simulated and shared-memory communicators and
//! must give the same bits as one rank.
#![warn(missing_docs)]

pub mod life;
pub mod virtual_cluster;
pub mod wave;

use yee_core::balance::Balancer;
use yee_core::decomposition::uniform_layout_borders;
use yee_core::driver::StepError;
use yee_core::session::{Plan, RunLog, run_steps};
use yee_core::{
    Box3, Capabilities, Chunk, Comm, Direction, Field, FieldId, HostBuffer, HostChunkError,
    Stencil, Topology,
};
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
    /// A chunk owning `owned` of a `grid` (wrapping around the `periodic` axes), with the
    /// initial temperature `u0(x, y)` at cell centres in its owned and ghost cells: the
    /// ghosts hold what the neighbours would send, so no exchange is needed before the first
    /// step. Ghosts beyond a non-periodic edge stay 0 (a cold wall).
    pub fn new(
        owned: Box3,
        grid: [usize; 2],
        periodic: [bool; 3],
        r: f64,
        u0: impl Fn(f64, f64) -> f64,
    ) -> Self {
        let mut level = HostField::zeros(owned, [1, 1, 0]);
        let storage = level.storage();
        for n in 0..storage.cells() {
            let p = storage.index_at(n);
            let wrapped = |a: usize| {
                let (x, size) = (p[a], grid[a] as i64);
                match (0..size).contains(&x) {
                    true => Some(x),
                    false => periodic[a].then(|| x.rem_euclid(size)),
                }
            };
            if let (Some(x), Some(y)) = (wrapped(0), wrapped(1)) {
                level.set(p, u0(x as f64 + 0.5, y as f64 + 0.5));
            }
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

/// What one rank of a small app ends with: its final box, its values there (x fastest) and
/// its run log.
pub type RankPiece<T> = (Box3, Vec<T>, RunLog);

/// Runs `steps` steps of the rank `comm.rank()` laid out (and balanced, if the plan has a
/// balancer) by `plan`, and returns its final box, its temperature and the run's log.
pub fn run_rank<M: Comm>(
    plan: &Plan,
    grid: [usize; 2],
    comm: &mut M,
    steps: u64,
    r: f64,
) -> Result<RankPiece<f64>, StepError<HostChunkError, M::Error>> {
    let owned = plan.initial_box(comm.rank());
    let chunk = HeatChunk::new(owned, grid, plan.periodic, r, hot_spot);
    let (chunk, log) = run_steps(plan, comm, steps, chunk, |_, _| false)?;
    Ok((chunk.owned(), chunk.temperature(), log))
}

/// A plan over `grid` on `topology` with even borders, and `balancer` if given.
pub fn plan(
    grid: [usize; 2],
    topology: Topology,
    periodic: [bool; 3],
    balancer: Option<Balancer>,
) -> Plan {
    Plan {
        topology,
        borders: uniform_layout_borders([grid[0], grid[1], 1], topology),
        periodic,
        active: [true, true, false],
        balancer,
        overlap: true,
    }
}

/// Assembles the ranks' pieces (box, values over it, log) into the whole `grid` (x fastest).
pub fn assemble<T: Copy + Default>(grid: [usize; 2], pieces: &[RankPiece<T>]) -> Vec<T> {
    let whole = Box3::from_extent([grid[0], grid[1], 1]);
    let mut out = vec![T::default(); whole.cells()];
    for (owned, values, _) in pieces {
        for (n, v) in values.iter().enumerate() {
            out[whole.linear_index(owned.index_at(n))] = *v;
        }
    }
    out
}
