//! The scale simulator (issue 53): the balancer of Balykov 2019 on 10³–10⁶ virtual ranks in one
//! thread, without fields and without a thread per rank.
//!
//! A [`ScaleModel`] is a [`MachineModel`] (per-rank speeds, link overrides such as a dead link)
//! plus seeded noise on every link. A [`ScaleSim`] holds a tensor layout of a plain grid (one
//! unit of work per cell) over a topology and, per balancing interval, writes the record every
//! rank makes ([`ScaleSim::gathered`]: the same `GATHER_LEN` values per rank as
//! `yee_core::session`'s interval summary and link probes), feeds all of them to
//! [`Balancer::record`] and [`Balancer::decide`] — what the session's reductions
//! (`yee_core::balance_reduce`) decide, bit for bit, without a thread per rank — and applies the
//! new borders ([`ScaleSim::decide`]). Each rank computes its box's cells over its speed; each face's halo
//! takes the Hockney time `latency + bytes / bandwidth` (eq. (6)) of the link from the
//! neighbour that sends it; the step time of a layout is eq. (2) ([`ScaleSim::step_seconds`]).
//!
//! Everything here is deterministic: the noise comes from [`unit_hash`] of a seed, and no clock
//! is read (the `scale-sim` binary of yee-examples times the decisions).

use yee_core::balance::{BalanceParams, Balancer, Decision, FACE_LEN, GATHER_LEN};
use yee_core::balance_reduce::{maxima_len, sums_len};
use yee_core::comm::{broadcast_parent, reduce_children};
use yee_core::decomposition::{Layout, rank_coords, rank_of, uniform_layout_borders};
use yee_core::model::{hockney, step_time};
use yee_core::partition::PartitionError;
use yee_core::session::PROBE_BYTES;
use yee_core::{Direction, Topology};

use crate::MachineModel;

/// A seeded value in [0, 1) for `index`, with no state: SplitMix64's finaliser (Steele, Lea &
/// Flood 2014) of `seed` and `index`. The same on every platform, and O(1) for any index, so
/// 10⁶ ranks' and 6 × 10⁶ links' noise needs no table.
pub fn unit_hash(seed: u64, index: u64) -> f64 {
    let mut z = seed
        .wrapping_add(index.wrapping_mul(0x9E37_79B9_7F4A_7C15))
        .wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    (z >> 11) as f64 / (1u64 << 53) as f64
}

/// A machine at scale: a [`MachineModel`] whose links each get a seeded factor `f` in
/// `[1, 1 + link_spread)` (latency × f, bandwidth ÷ f), and the halo size per face cell.
#[derive(Clone, Debug, PartialEq)]
pub struct ScaleModel {
    /// Speeds (cells per second) per rank, default links and overrides (a dead link).
    pub machine: MachineModel,
    /// Seed of the link noise.
    pub seed: u64,
    /// Relative spread of the link noise.
    pub link_spread: f64,
    /// Bytes one step's halo carries per cell of a face (both phases of a Yee step).
    pub halo_bytes_per_cell: f64,
}

impl ScaleModel {
    /// Latency (s) and bandwidth (bytes/s) of the link from `from` to `to`: the machine's, with
    /// the link's noise.
    pub fn link(&self, from: usize, to: usize) -> (f64, f64) {
        let (latency, bandwidth) = self.machine.link(from, to, 0);
        let key = ((from as u64) << 32) ^ to as u64;
        let f = 1.0 + self.link_spread * unit_hash(self.seed ^ 0x4C49_4E4B, key);
        (latency * f, bandwidth / f)
    }

    /// Hockney's time of `bytes` from `from` to `to` (Balykov 2019, eq. (6)).
    pub fn transfer_seconds(&self, from: usize, to: usize, bytes: f64) -> f64 {
        let (latency, bandwidth) = self.link(from, to);
        hockney(latency, bandwidth, bytes)
    }

    /// The same machine with every link override removed (a dead link healed).
    pub fn healed(&self) -> ScaleModel {
        let mut m = self.clone();
        m.machine.links.clear();
        m.machine.link_changes.clear();
        m
    }
}

/// Where [`ScaleMachine`] puts its dead link.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeadLink {
    /// No dead link.
    None,
    /// Across the first border of the axis with the most lines (between lines 0 and 1), in the
    /// middle of the other axes: disabling one line avoids it (eq. (11)).
    Edge,
    /// Across the middle border of that axis: only disabling every line on one side avoids it,
    /// since a border that spans disabled lines is predicted by the slowest border it spans.
    Middle,
}

/// The parameters of a machine for the scale simulator (docs/balancing.md, "At scale").
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ScaleMachine {
    /// Nominal rank speed (cells per second).
    pub speed: f64,
    /// Each rank's speed is `speed × (1 − noise + 2 · noise · u)`, u uniform in [0, 1).
    pub speed_noise: f64,
    /// One rank in this many is slow (at least one rank when there are fewer; 0: none).
    pub slow_every: usize,
    /// A slow rank's speed is divided by this.
    pub slow_factor: f64,
    /// Nominal link latency (s).
    pub latency: f64,
    /// Nominal link bandwidth (bytes/s).
    pub bandwidth: f64,
    /// Relative spread of the link noise ([`ScaleModel::link_spread`]).
    pub link_spread: f64,
    /// Where the dead link is.
    pub dead_link: DeadLink,
    /// The dead link's latency is multiplied and its bandwidth divided by this (both ways).
    pub dead_factor: f64,
    /// Bytes per face cell per step.
    pub halo_bytes_per_cell: f64,
    /// Seed of every draw.
    pub seed: u64,
}

impl Default for ScaleMachine {
    /// 10⁸ cells/s ranks within ±5 %, one in a thousand 3× slower; 2 µs and 10 GB/s links
    /// (the simulated communicator's default) within +20 %; one dead link at an edge, 1000×
    /// slower; 16 bytes per face cell (two tangential components of E and of H in f32).
    fn default() -> Self {
        ScaleMachine {
            speed: 1e8,
            speed_noise: 0.05,
            slow_every: 1000,
            slow_factor: 3.0,
            latency: 2e-6,
            bandwidth: 1e10,
            link_spread: 0.2,
            dead_link: DeadLink::Edge,
            dead_factor: 1000.0,
            halo_bytes_per_cell: 16.0,
            seed: 53,
        }
    }
}

impl ScaleMachine {
    /// The slow ranks among `ranks`: one drawn in each block of `slow_every` consecutive ranks
    /// (the last block may be shorter).
    pub fn slow_ranks(&self, ranks: usize) -> Vec<usize> {
        if self.slow_every == 0 {
            return Vec::new();
        }
        (0..ranks.div_ceil(self.slow_every))
            .map(|k| {
                let start = k * self.slow_every;
                let len = self.slow_every.min(ranks - start);
                start + (unit_hash(self.seed ^ 0x534C_4F57, k as u64) * len as f64) as usize
            })
            .collect()
    }

    /// The dead link's two ranks, if any (the link is dead both ways).
    pub fn dead_pair(&self, topology: Topology) -> Option<(usize, usize)> {
        let n = topology.0;
        let axis = (0..3).max_by_key(|&a| (n[a], a))?;
        if n[axis] < 2 {
            return None;
        }
        let line = match self.dead_link {
            DeadLink::None => return None,
            DeadLink::Edge => 0,
            DeadLink::Middle => n[axis] / 2 - 1,
        };
        let mut c: [usize; 3] = core::array::from_fn(|a| n[a] / 2);
        c[axis] = line;
        let low = rank_of(c, topology);
        c[axis] = line + 1;
        Some((low, rank_of(c, topology)))
    }

    /// The machine for `topology`.
    pub fn model(&self, topology: Topology) -> ScaleModel {
        let ranks = topology.ranks();
        let mut machine = MachineModel::uniform(ranks, self.speed, self.latency, self.bandwidth);
        for (r, s) in machine.speeds.iter_mut().enumerate() {
            *s *= 1.0 - self.speed_noise + 2.0 * self.speed_noise * unit_hash(self.seed, r as u64);
        }
        for r in self.slow_ranks(ranks) {
            machine.speeds[r] /= self.slow_factor;
        }
        if let Some((a, b)) = self.dead_pair(topology) {
            let dead = (
                self.latency * self.dead_factor,
                self.bandwidth / self.dead_factor,
            );
            machine.links.insert((a, b), dead);
            machine.links.insert((b, a), dead);
        }
        ScaleModel {
            machine,
            seed: self.seed,
            link_spread: self.link_spread,
            halo_bytes_per_cell: self.halo_bytes_per_cell,
        }
    }
}

/// A layout's step time in the model, eq. (2): the slowest rank's compute plus, per face
/// direction, the slowest halo through it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StepSeconds {
    /// The slowest rank's compute seconds.
    pub compute: f64,
    /// Σ over the six face directions of the slowest halo's seconds.
    pub share: f64,
}

impl StepSeconds {
    /// Eq. (2): compute plus share.
    pub fn total(&self) -> f64 {
        self.compute + self.share
    }
}

/// What the reductions of one decision give every rank ([`ScaleSim::reduce`]).
#[derive(Clone, Debug)]
pub struct ReducedInputs {
    /// Per axis, the performance of each line (eq. (21)).
    pub line_perf: [Vec<f64>; 3],
    /// Per axis, the slowest link across each border.
    pub border_times: [Vec<f64>; 3],
    /// The measured step time of the interval (eq. (2)).
    pub measured: f64,
}

/// A tensor layout of a plain grid on a [`ScaleModel`], balanced by a [`Balancer`].
#[derive(Clone, Debug)]
pub struct ScaleSim {
    /// Cells along each axis.
    pub grid: [usize; 3],
    /// The machine.
    pub model: ScaleModel,
    /// The balancer every rank would hold.
    pub balancer: Balancer,
    /// The current borders per axis.
    pub borders: [Vec<i64>; 3],
    /// Steps per balancing interval (T_perf).
    pub steps: u64,
}

/// The face directions in the balancer's face order (−x, +x, −y, +y, −z, +z).
fn face_direction(face: usize) -> Direction {
    let mut d = [0i8; 3];
    d[face / 2] = if face % 2 == 1 { 1 } else { -1 };
    Direction(d)
}

/// The neighbour of `rank` across `face` in the topology itself, disabled lines included (the
/// link the session's probes measure).
fn original_neighbour(rank: usize, face: usize, topology: Topology) -> Option<usize> {
    let mut c = rank_coords(rank, topology);
    let a = face / 2;
    if face % 2 == 1 {
        c[a] += 1;
        (c[a] < topology.0[a]).then(|| rank_of(c, topology))
    } else {
        c[a] = c[a].checked_sub(1)?;
        Some(rank_of(c, topology))
    }
}

impl ScaleSim {
    /// A uniform layout of `grid` over `topology` (3D, no periodic axis) with a balancer of
    /// `params` over a plain density (one unit of work per cell).
    pub fn new(
        grid: [usize; 3],
        topology: Topology,
        model: ScaleModel,
        params: BalanceParams,
    ) -> Self {
        let density = grid.map(|len| vec![1.0; len]);
        ScaleSim {
            grid,
            model,
            balancer: Balancer::new(topology, 3, density, params),
            borders: uniform_layout_borders(grid, topology),
            steps: params.every,
        }
    }

    /// The topology.
    pub fn topology(&self) -> Topology {
        self.balancer.topology()
    }

    /// S of eq. (12): the work of one step, the grid's cells.
    pub fn total_work(&self) -> f64 {
        self.grid.iter().map(|&n| n as f64).product()
    }

    /// The ideal compute time of a step: S over the sum of the speeds (every rank busy all the
    /// time; eq. (12) with every rank's own performance and no share time).
    pub fn ideal_compute_seconds(&self) -> f64 {
        self.total_work() / self.model.machine.speeds.iter().sum::<f64>()
    }

    fn layout<'a>(&self, borders: &'a [Vec<i64>; 3]) -> Layout<'a> {
        Layout {
            topology: self.topology(),
            borders: [&borders[0], &borders[1], &borders[2]],
            periodic: [false; 3],
        }
    }

    /// Rank `r`'s compute seconds per step and, per face, the seconds of the halo it receives
    /// (0 without a neighbour) and that halo's bytes, under `borders` on `model`.
    fn rank_times(
        &self,
        model: &ScaleModel,
        borders: &[Vec<i64>; 3],
        r: usize,
    ) -> (f64, f64, [(f64, f64); 6]) {
        let layout = self.layout(borders);
        let extent = layout.chunk_box(r);
        let size: [f64; 3] = core::array::from_fn(|a| (extent.hi[a] - extent.lo[a]) as f64);
        let cells = size.iter().product::<f64>();
        let mut faces = [(0.0, 0.0); 6];
        for (face, out) in faces.iter_mut().enumerate() {
            let Some(peer) = layout.neighbour(r, face_direction(face)) else {
                continue;
            };
            let a = face / 2;
            let area = size[(a + 1) % 3] * size[(a + 2) % 3];
            let bytes = area * model.halo_bytes_per_cell;
            *out = (model.transfer_seconds(peer, r, bytes), bytes);
        }
        (cells, cells / model.machine.speeds[r], faces)
    }

    /// Eq. (2) for `borders` on `model`: what a step of that layout takes in the model.
    /// O(N).
    pub fn step_seconds_on(&self, model: &ScaleModel, borders: &[Vec<i64>; 3]) -> StepSeconds {
        let ranks = self.topology().ranks();
        let mut compute = vec![0.0; ranks];
        let mut share = vec![0.0; 6 * ranks];
        for r in 0..ranks {
            let (_, seconds, faces) = self.rank_times(model, borders, r);
            compute[r] = seconds;
            for (f, (t, _)) in faces.iter().enumerate() {
                share[6 * r + f] = *t;
            }
        }
        let total = step_time(&compute, &share, 6);
        let slowest = compute.iter().copied().fold(0.0, f64::max);
        StepSeconds {
            compute: slowest,
            share: total - slowest,
        }
    }

    /// [`ScaleSim::step_seconds_on`] with this simulation's machine.
    pub fn step_seconds(&self, borders: &[Vec<i64>; 3]) -> StepSeconds {
        self.step_seconds_on(&self.model, borders)
    }

    /// One interval's all-gathered data under the current borders, `GATHER_LEN` values per rank
    /// as the session writes them: work, compute seconds and steps; per face the halo's bytes,
    /// transfer seconds, waiting seconds (the link's own time: the model's ranks start each
    /// exchange together, so imbalance shows in the compute times, eq. (2)), messages (one per
    /// step), timed messages (all: the model knows each transfer, as the simulated
    /// communicator does), and the two `PROBE_BYTES` probes over the original layout's link
    /// (sent by disabled ranks too). O(N).
    pub fn gathered(&self) -> Vec<f64> {
        let topology = self.topology();
        let steps = self.steps as f64;
        let mut g = vec![0.0; topology.ranks() * GATHER_LEN];
        for (r, mine) in g.chunks_exact_mut(GATHER_LEN).enumerate() {
            let (cells, seconds, faces) = self.rank_times(&self.model, &self.borders, r);
            mine[..3].copy_from_slice(&[cells * steps, seconds * steps, steps]);
            for (face, &(t, bytes)) in faces.iter().enumerate() {
                let h = &mut mine[3 + FACE_LEN * face..3 + FACE_LEN * (face + 1)];
                if bytes > 0.0 {
                    h[..5].copy_from_slice(&[bytes * steps, t * steps, t * steps, steps, steps]);
                }
                if let Some(peer) = original_neighbour(r, face, topology) {
                    for (k, &size) in PROBE_BYTES.iter().enumerate() {
                        let size = size as f64;
                        h[5 + 2 * k] = size;
                        h[6 + 2 * k] = self.model.transfer_seconds(peer, r, size);
                    }
                }
            }
        }
        g
    }

    /// One rebalance from `gathered` ([`ScaleSim::gathered`]): [`ScaleSim::reduce`] then
    /// [`ScaleSim::decide_from`]. Returns the decision.
    pub fn decide(&mut self, gathered: &[f64]) -> Result<Decision, PartitionError> {
        let inputs = self.reduce(gathered);
        self.decide_from(&inputs)
    }

    /// What the reductions of one decision give every rank (`balance_reduce::reduce_inputs`):
    /// [`Balancer::record`] of every rank's record, then [`Balancer::decision_inputs`] — the
    /// line performances and the border table — and the measured step. O(N) here, in one
    /// thread; on the machine each rank records only its own and the all-reduce takes
    /// [`ScaleSim::reduction_seconds`].
    pub fn reduce(&mut self, gathered: &[f64]) -> ReducedInputs {
        let measured = self.balancer.record(gathered);
        let (line_perf, border_times) = self.balancer.decision_inputs();
        ReducedInputs {
            line_perf,
            border_times,
            measured,
        }
    }

    /// The decision every rank takes from `inputs` ([`Balancer::decide_from`] with S = the
    /// grid's cells; O(lines × candidates), what a rank computes after the reductions); the
    /// decision's borders become the layout.
    pub fn decide_from(&mut self, inputs: &ReducedInputs) -> Result<Decision, PartitionError> {
        let decision = self.balancer.decide_from(
            &inputs.line_perf,
            &inputs.border_times,
            self.total_work(),
            inputs.measured,
        )?;
        self.borders = decision.borders.clone();
        Ok(decision)
    }

    /// The seconds one `Comm::all_reduce` of `values` f64s takes on this machine
    /// (`yee_core::comm::all_reduce_by_exchange`, every rank entering at once): up the
    /// binomial reduction tree, a rank sends once every partial result of its children is in;
    /// down the binary broadcast tree, a rank forwards the result once it has it; each message
    /// takes its link's Hockney time (eq. (6)), messages of different links overlap. Rounds
    /// beyond the messages (the additions) are not counted. O(N).
    pub fn reduction_seconds(&self, values: usize) -> f64 {
        let ranks = self.topology().ranks();
        let bytes = 8.0 * values as f64;
        // Up: a rank's children are above it, so from the last rank down each rank's children
        // are done before it.
        let mut sent = vec![0.0f64; ranks];
        for r in (0..ranks).rev() {
            sent[r] = reduce_children(r, ranks)
                .map(|c| sent[c] + self.model.transfer_seconds(c, r, bytes))
                .fold(0.0, f64::max);
        }
        // Down: a rank's parent is below it.
        let mut has = vec![0.0f64; ranks];
        has[0] = sent[0];
        for r in 1..ranks {
            let p = broadcast_parent(r).unwrap_or(0);
            has[r] = has[p] + self.model.transfer_seconds(p, r, bytes);
        }
        has.iter().copied().fold(0.0, f64::max)
    }

    /// The seconds of the collectives of one decision ([`ScaleSim::reduction_seconds`]): the
    /// barrier before the probes (one maximum) and the all-reduce of
    /// `balance_reduce::sums_len` + `maxima_len` values (every rank measured, so one).
    pub fn decision_collective_seconds(&self) -> f64 {
        let topology = self.topology();
        self.reduction_seconds(1)
            + self.reduction_seconds(sums_len(topology) + maxima_len(topology))
    }

    /// The static plan for the model's speeds ([`Balancer::with_speeds`], eq. (8) per axis
    /// with the lines' summed speeds, eq. (21); no link measured, so nothing is disabled).
    pub fn static_plan(&self) -> Result<[Vec<i64>; 3], PartitionError> {
        let density = self.grid.map(|len| vec![1.0; len]);
        let mut planner = Balancer::new(self.topology(), 3, density, self.balancer.params())
            .with_speeds(&self.model.machine.speeds);
        Ok(planner.decide(self.total_work(), 0.0)?.borders)
    }

    /// Cells of rank `r`'s box under the current borders.
    pub fn cells(&self, r: usize) -> f64 {
        let b = self.layout(&self.borders).chunk_box(r);
        (0..3).map(|a| (b.hi[a] - b.lo[a]) as f64).product()
    }
}
