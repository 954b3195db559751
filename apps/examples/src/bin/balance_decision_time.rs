//! Times one dynamic balancing decision of Balykov 2019 (`Balancer::record` of one interval's
//! gathered data, then `Balancer::decide`, eqs. (4)–(19)) at a given topology, on one thread,
//! from the scale simulator's machine model (`yee_comm_sim::scale`): every rank 10⁶ cells per
//! second within ±5 %, one rank in a thousand ten times slower; every link 10 µs + bytes /
//! 1 GB/s within a factor of 2 (16 bytes per face cell a step, the probes' two sizes beside
//! it), the links across the x border after line 3 fifty times slower. The grid is the
//! 4096 × 4096 × 2048 of `bench/scenes/balance4096.toml` with a plain density; the interval is
//! the uniform layout's. docs/balancing.md, "At scale".
//!
//! Run: `cargo run --release -p yee-examples --bin balance-decision-time -- 64x32x32`

use std::time::Instant;

use yee_comm_sim::scale::{DeadLink, ScaleMachine, ScaleSim};
use yee_core::Topology;
use yee_core::balance::BalanceParams;
use yee_core::decomposition::{rank_coords, rank_of};

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
    let machine = ScaleMachine {
        speed: 1e6,
        slow_factor: 10.0,
        latency: 1e-5,
        bandwidth: 1e9,
        link_spread: 1.0,
        dead_link: DeadLink::None,
        ..ScaleMachine::default()
    };
    let mut model = machine.model(topology);
    // The slow x border after line 3, both ways.
    let slow = (machine.latency * 50.0, machine.bandwidth / 50.0);
    for r in (0..topology.ranks()).filter(|&r| rank_coords(r, topology)[0] == 3 && n > 4) {
        let mut c = rank_coords(r, topology);
        c[0] = 4;
        let beyond = rank_of(c, topology);
        model.machine.links.insert((r, beyond), slow);
        model.machine.links.insert((beyond, r), slow);
    }
    let sim = ScaleSim::new(
        [4096, 4096, 2048],
        topology,
        model,
        BalanceParams::default(),
    );
    let total_work = sim.total_work();
    let gathered = sim.gathered();
    let mut balancer = sim.balancer;
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

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}
