//! Decisions by reductions (issue 53, `yee_core::balance_reduce`): every rank of the simulated
//! communicator records its own interval and reduces O(lines) values, and decides what a
//! balancer fed every rank's record by an all-gather decides, bit for bit; the bytes a rank
//! sends per decision grow with the lines of the topology, not with its ranks.

use yee_comm_sim::MachineModel;
use yee_core::Comm;
use yee_core::Topology;
use yee_core::balance::{BalanceParams, Balancer, Decision, FACE_LEN, GATHER_LEN};
use yee_core::balance_reduce::{Reduced, decision_bytes_sent, maxima_len, reduce_inputs, sums_len};
use yee_core::decomposition::rank_coords;
use yee_core::partition::PartitionError;
use yee_core::tree_sum::tree_sum;

/// A xorshift64* generator: the same cases on every platform.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// Log-uniform in [lo, hi).
    fn log_uniform(&mut self, lo: f64, hi: f64) -> f64 {
        let unit = (self.next() >> 11) as f64 / (1u64 << 53) as f64;
        lo * (unit * (hi / lo).ln()).exp()
    }
}

/// A random case: a topology of up to 5 × 4 × 3 ranks over 1–3 axes, CPML-like densities,
/// random parameters, and `rounds` intervals of every rank's record (random speeds, one rank
/// in eight 30 times slower and one in ten with no work measured — whose line then counts the
/// others' mean —, links of random latency, bandwidth and size, one in six 100 times slower,
/// with or without the probes).
fn random_case(seed: u64, rounds: usize) -> (Balancer, Vec<Vec<f64>>) {
    let mut rng = Rng::new(seed);
    let dims = 1 + rng.below(3);
    let topology = Topology(std::array::from_fn(|a| {
        if a < dims {
            1 + rng.below([5, 4, 3][a])
        } else {
            1
        }
    }));
    let params = BalanceParams {
        every: 100,
        epsilon: [0.0, 0.01, 0.05, 0.2][rng.below(4)],
        min_width: 1 + rng.below(3),
        disabling: rng.below(8) != 0,
        link_memory: [0.5, 1.0][rng.below(2)],
    };
    let density: [Vec<f64>; 3] = std::array::from_fn(|a| {
        let len = topology.0[a] * params.min_width + rng.below(40);
        let pml = rng.below(6);
        (0..len)
            .map(|i| if i < pml || i + pml >= len { 1.86 } else { 1.0 })
            .collect()
    });
    let ranks = topology.ranks();
    let mut intervals = Vec::new();
    for _ in 0..rounds {
        let mut g = vec![0.0; ranks * GATHER_LEN];
        for r in 0..ranks {
            let slow = if rng.below(8) == 0 { 30.0 } else { 1.0 };
            let speed = rng.log_uniform(0.2, 1.0) / slow;
            let base = r * GATHER_LEN;
            let work = if rng.below(10) == 0 { 0.0 } else { speed * 1e8 };
            // About 1 ms of compute a step, beside links of 1–100 µs (100× that when slow):
            // disabling pays around the slow links.
            let seconds = rng.log_uniform(0.05, 0.15);
            g[base..base + 3].copy_from_slice(&[work * 1e-5, seconds, 100.0]);
            let c = rank_coords(r, topology);
            for f in 0..6 {
                let (axis, up) = (f / 2, f % 2 == 1);
                let neighbour = if up {
                    c[axis] + 1 < topology.0[axis]
                } else {
                    c[axis] > 0
                };
                if !neighbour || rng.below(10) == 0 {
                    continue;
                }
                let slow = if rng.below(6) == 0 { 100.0 } else { 1.0 };
                let latency = rng.log_uniform(1e-6, 1e-4) * slow;
                let bandwidth = rng.log_uniform(1e8, 1e10) / slow;
                let bytes = rng.log_uniform(1e2, 1e5);
                let messages = [100.0, 200.0][rng.below(2)];
                let timed = if rng.below(3) == 0 { 0.0 } else { messages };
                let seconds = latency + bytes / bandwidth;
                let wait = seconds * rng.log_uniform(1.0, 3.0);
                let h = base + 3 + FACE_LEN * f;
                g[h..h + 5].copy_from_slice(&[
                    bytes * messages,
                    seconds * timed,
                    wait * messages,
                    messages,
                    timed,
                ]);
                if rng.below(2) == 0 {
                    g[h + 5..h + 9].copy_from_slice(&[
                        256.0,
                        latency + 256.0 / bandwidth,
                        16384.0,
                        latency + 16384.0 / bandwidth,
                    ]);
                }
            }
        }
        intervals.push(g);
    }
    (Balancer::new(topology, dims, density, params), intervals)
}

/// The all-gather formula (the balancer before issue 53's reductions): every rank's record
/// recorded, S summed over the ranks (in the tree order of `yee_core::tree_sum`, as the line
/// sums of `Balancer::decide`), and the decision from every rank's measurements.
fn decide_by_all_gather(b: &mut Balancer, g: &[f64]) -> (f64, Result<Decision, PartitionError>) {
    let measured = b.record(g);
    let work: Vec<f64> = g
        .chunks_exact(GATHER_LEN)
        .map(|r| r[0] / r[2].max(1.0))
        .collect();
    let total_work = tree_sum(&work);
    (total_work, b.decide(total_work, measured))
}

/// Whether two decisions are the same, their times bit for bit.
fn same(x: &Result<Decision, PartitionError>, y: &Result<Decision, PartitionError>) -> bool {
    match (x, y) {
        (Ok(x), Ok(y)) => {
            x.borders == y.borders
                && x.disabled == y.disabled
                && x.action == y.action
                && x.predicted_seconds.to_bits() == y.predicted_seconds.to_bits()
                && x.measured_seconds.to_bits() == y.measured_seconds.to_bits()
        }
        (x, y) => x == y,
    }
}

#[test]
fn reduced_decisions_are_the_all_gathers_bit_for_bit() {
    // 120 random cases of three rebalances each: on every rank of the simulated communicator,
    // the decision from the reductions equals the all-gather formula's, times bit for bit, and
    // so do S and the measured step time.
    let (mut disables, mut enables, mut unmeasured) = (0, 0, 0);
    for seed in 0..120 {
        let (balancer, intervals) = random_case(seed, 3);
        let topology = balancer.topology();
        let mut reference = balancer.clone();
        let expected: Vec<_> = intervals
            .iter()
            .map(|g| decide_by_all_gather(&mut reference, g))
            .collect();
        let model = MachineModel::default_for(topology.ranks());
        let per_rank = yee_comm_sim::launch(topology, model, |mut comm| {
            let mut b = balancer.clone();
            let rank = comm.rank();
            intervals
                .iter()
                .map(|g| {
                    let mine = &g[rank * GATHER_LEN..(rank + 1) * GATHER_LEN];
                    let r: Reduced = reduce_inputs(&mut b, &mut comm, mine).expect("sim");
                    let d = b.decide_from(&r.line_perf, &r.border_times, r.total_work, r.measured);
                    (r.total_work, d)
                })
                .collect::<Vec<_>>()
        });
        for (rank, got) in per_rank.iter().enumerate() {
            for (k, ((s, d), (s_ref, d_ref))) in got.iter().zip(&expected).enumerate() {
                assert!(
                    s.to_bits() == s_ref.to_bits() && same(d, d_ref),
                    "seed {seed}, rank {rank}, rebalance {k}: {s} {d:?} against {s_ref} {d_ref:?}"
                );
            }
        }
        for (_, d) in expected.iter() {
            if let Ok(d) = d {
                disables += usize::from(d.action.contains("disable"));
                enables += usize::from(d.action.contains("enable"));
            }
        }
        unmeasured += intervals
            .iter()
            .filter(|g| g.chunks_exact(GATHER_LEN).any(|r| r[0] == 0.0))
            .count();
    }
    // The cases exercise both searches (eqs. (9)–(18) and (19)) and the mean of eq. (21)'s
    // unmeasured ranks.
    assert!(
        disables > 20 && enables > 3 && unmeasured > 30,
        "{disables} disables, {enables} enables, {unmeasured} intervals with an unmeasured rank"
    );
}

/// Bytes each rank of `topology` sends in one decision's collectives on the simulated
/// communicator: the barrier before the probes and the reductions of [`reduce_inputs`]. Every
/// rank measured, so one reduction suffices.
fn bytes_per_decision(topology: Topology) -> Vec<u64> {
    let density = std::array::from_fn(|a| vec![1.0; 4 * topology.0[a]]);
    let balancer = Balancer::new(topology, 3, density, BalanceParams::default());
    let model = MachineModel::default_for(topology.ranks());
    yee_comm_sim::launch(topology, model, |mut comm| {
        let mut b = balancer.clone();
        let mut mine = vec![0.0; GATHER_LEN];
        mine[..3].copy_from_slice(&[1e6, 0.01, 100.0]);
        let before = comm.bytes_sent();
        comm.all_reduce(&mut [], &mut [0.0]).expect("sim");
        reduce_inputs(&mut b, &mut comm, &mine).expect("sim");
        comm.bytes_sent() - before
    })
}

#[test]
fn bytes_per_rank_per_decision_grow_with_lines_not_ranks() {
    // 4, 64 and 1024 ranks: the most any rank sends is 3 × 8 bytes per value reduced (one
    // message up the reduction tree, two down the broadcast tree), and the values are O(lines): 3 + Σ
    // lines sums, 7 + Σ (lines − 1) maxima. The all-gather sent GATHER_LEN × 8 × N.
    let mut most = Vec::new();
    for shape in [[2, 2, 1], [4, 4, 4], [16, 8, 8]] {
        let topology = Topology(shape);
        let ranks = topology.ranks();
        let sent = bytes_per_decision(topology);
        let values = sums_len(topology) + maxima_len(topology);
        for (rank, &bytes) in sent.iter().enumerate() {
            let expected = decision_bytes_sent(rank, topology);
            assert_eq!(bytes as usize, expected, "{shape:?}, rank {rank}");
        }
        let max = *sent.iter().max().unwrap() as usize;
        assert!(max <= 3 * 8 * (1 + values), "{shape:?}: {max} bytes");
        let lines: usize = shape.iter().sum();
        eprintln!(
            "{ranks} ranks, {lines} lines: {max} bytes per rank per decision at most (all-gather: {})",
            GATHER_LEN * 8 * ranks
        );
        most.push((ranks, lines, max));
    }
    // From 4 to 1024 ranks (256 times as many) the lines grow 6.4-fold (5 to 32) and the bytes
    // with them (6-fold: the most messages a rank sends goes from 2 to 3): like the lines, far
    // below the ranks.
    let (r0, l0, b0) = most[0];
    let (r2, l2, b2) = most[2];
    let growth = b2 as f64 / b0 as f64;
    assert!(
        growth <= 1.5 * l2 as f64 / l0 as f64 && growth < 0.05 * (r2 / r0) as f64,
        "bytes grew {growth}-fold for {}-fold lines and {}-fold ranks",
        l2 as f64 / l0 as f64,
        r2 / r0
    );
}

#[test]
fn the_scale_simulators_reduction_time_is_the_simulated_communicators_clock() {
    // `ScaleSim::reduction_seconds` walks the all-reduce's two trees on the model's links; the
    // simulated communicator runs `all_reduce_by_exchange` itself, a thread per rank, on the
    // same links (no link noise, one link 1000× slower): the last rank out of the collective
    // leaves at the same virtual second. And the tree takes about 2 log₂ N latencies where the
    // chain in rank order took N − 1.
    use yee_comm_sim::scale::{DeadLink, ScaleMachine, ScaleSim};
    for (shape, dead_link) in [
        ([4, 4, 2], DeadLink::Edge),
        ([5, 3, 3], DeadLink::Middle),
        ([7, 1, 1], DeadLink::None),
    ] {
        let topology = Topology(shape);
        let machine = ScaleMachine {
            link_spread: 0.0,
            dead_link,
            ..ScaleMachine::default()
        };
        let model = machine.model(topology);
        let sim = ScaleSim::new(
            [64, 64, 64],
            topology,
            model.clone(),
            BalanceParams::default(),
        );
        for values in [1, 40] {
            let clocks = yee_comm_sim::launch(topology, model.machine.clone(), |mut comm| {
                let mut sum: Vec<f64> = (0..values / 2).map(|i| i as f64).collect();
                let mut max = vec![comm.rank() as f64; values - values / 2];
                comm.all_reduce(&mut sum, &mut max).expect("sim");
                comm.now_seconds()
            });
            let last = clocks.iter().copied().fold(0.0, f64::max);
            let walked = sim.reduction_seconds(values);
            assert!(
                (last - walked).abs() <= 1e-12 * walked,
                "{shape:?} {dead_link:?}, {values} values: communicator {last} s, walk {walked} s"
            );
            if dead_link == DeadLink::None {
                let ranks = topology.ranks() as f64;
                let hops = 2.0 * ranks.log2().ceil();
                let hop = machine.latency + 8.0 * values as f64 / machine.bandwidth;
                assert!(
                    walked <= hops * hop * (1.0 + 1e-12),
                    "{walked} s for {hops} hops"
                );
            }
        }
    }
}
