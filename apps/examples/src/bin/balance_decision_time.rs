//! Times one dynamic balancing decision of Balykov 2019 (`Balancer::record` of one interval's
//! gathered data, then `Balancer::decide`, eqs. (4)–(19)) at a given topology, on one thread,
//! from synthetic measurements: every rank 10⁶ cells per second within ±5 %, one rank in a
//! thousand ten times slower; every link 10 µs + bytes / 1 GB/s (10⁵ bytes a message, one per
//! step, the probes' two sizes beside it) within a factor of 2, the links across the x border
//! after line 3 fifty times slower. The grid is the 4096 × 4096 × 2048 of
//! `bench/scenes/balance4096.toml` with a plain density. docs/balancing.md, "At scale".
//!
//! Run: `cargo run --release -p yee-examples --bin balance-decision-time -- 64x32x32`

use std::time::Instant;

use yee_core::Topology;
use yee_core::balance::{BalanceParams, Balancer, FACE_LEN, GATHER_LEN};
use yee_core::decomposition::rank_coords;

fn main() {
    let arg = std::env::args().nth(1).unwrap_or_else(|| "64x32x32".into());
    let dims: Vec<usize> = arg.split('x').filter_map(|s| s.parse().ok()).collect();
    let [n, m, k] = dims[..] else {
        eprintln!("usage: balance-decision-time NxMxK");
        std::process::exit(2);
    };
    if n * m * k == 0 {
        eprintln!("balance-decision-time: every axis needs a rank at least");
        std::process::exit(2);
    }
    let topology = Topology([n, m, k]);
    let grid = [4096usize, 4096, 2048];
    let density = grid.map(|len| vec![1.0; len]);
    let total_work = grid.iter().map(|&len| len as f64).product::<f64>();
    let gathered = synthetic_interval(topology);
    let mut balancer = Balancer::new(topology, 3, density, BalanceParams::default());
    let mut record_s = Vec::new();
    let mut decide_s = Vec::new();
    for round in 0..5 {
        let t0 = Instant::now();
        let measured = balancer.record(&gathered);
        let t1 = Instant::now();
        let decision = match balancer.decide(total_work, measured) {
            Ok(d) => d,
            Err(e) => {
                eprintln!("balance-decision-time: {e:?}");
                std::process::exit(1);
            }
        };
        let t2 = Instant::now();
        record_s.push((t1 - t0).as_secs_f64());
        decide_s.push((t2 - t1).as_secs_f64());
        println!(
            "round {round}: {}, predicted step {:.4} s",
            decision.action, decision.predicted_seconds
        );
    }
    println!(
        "{arg} ({} ranks): record {:.4} s, decide {:.4} s (medians of 5)",
        topology.ranks(),
        median(&mut record_s),
        median(&mut decide_s)
    );
}

/// One interval (100 steps) of gathered data, `GATHER_LEN` values per rank.
fn synthetic_interval(topology: Topology) -> Vec<f64> {
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut unit = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 11) as f64 / (1u64 << 53) as f64
    };
    let steps = 100.0;
    let mut g = vec![0.0; topology.ranks() * GATHER_LEN];
    for r in 0..topology.ranks() {
        let c = rank_coords(r, topology);
        let slow = if r % 1000 == 999 { 0.1 } else { 1.0 };
        let cells_per_s = 1e6 * slow * (0.95 + 0.1 * unit());
        let base = r * GATHER_LEN;
        g[base..base + 3].copy_from_slice(&[cells_per_s, 1.0, steps]);
        for face in 0..6 {
            let (a, up) = (face / 2, face % 2 == 1);
            let beyond = if up {
                c[a] + 1 == topology.0[a]
            } else {
                c[a] == 0
            };
            if beyond {
                continue;
            }
            let slow_border = a == 0 && ((up && c[0] == 3) || (!up && c[0] == 4));
            let factor = (1.0 + unit()) * if slow_border { 50.0 } else { 1.0 };
            let (latency, bandwidth, bytes) = (1e-5 * factor, 1e9 / factor, 1e5);
            let seconds = latency + bytes / bandwidth;
            let h = base + 3 + FACE_LEN * face;
            g[h..h + FACE_LEN].copy_from_slice(&[
                bytes * steps,
                seconds * steps,
                seconds * steps,
                steps,
                steps,
                256.0,
                latency + 256.0 / bandwidth,
                16384.0,
                latency + 16384.0 / bandwidth,
            ]);
        }
    }
    g
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}
