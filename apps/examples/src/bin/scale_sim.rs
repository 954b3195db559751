//! The scale simulator of issue 53 (docs/balancing.md, "At scale"): the topology choice
//! (Balykov 2017), the static plan and a few dynamic decisions of Balykov 2019 (eqs. (4)–(21))
//! for 10³–10⁶ ranks in one thread, from `yee_comm_sim::scale`'s machine model — no fields, no
//! thread per rank. Per rank count it prints a markdown row: the topology; the wall time of
//! writing every rank's record into the balancer and computing the line sums and border table
//! from all of them in one thread (what the reductions give each rank; median over the
//! intervals); the model's seconds of one decision's collectives
//! (`ScaleSim::decision_collective_seconds`: the barrier and the all-reduce up a binomial tree
//! and down a binary one); the wall time of `Balancer::decide_from` (what each rank computes
//! after them; median); their sum, the decision's time on a rank; the most bytes one rank sends in the
//! reductions of a decision (`yee_core::balance_reduce::most_decision_bytes_sent`: O(lines);
//! the all-gather they replaced moved `GATHER_LEN × 8 × N`), the ideal step, the step of the uniform
//! layout, of the static plan and of the final layout in the model (eq. (2)), the balancer's
//! prediction for it (eqs. (12)–(13)) and the actions; then a line of diagnostics.
//!
//! The ideal step is `S / Σ speeds` (every rank busy all the time) plus the share term of
//! eq. (2) of the uniform layout with the dead link healed (the halos any layout of this
//! topology exchanges).
//!
//! Run: `cargo run --release -p yee-examples --bin scale-sim -- [RANKS,…] [--grid AxBxC]
//! [--intervals K] [--dead-link edge|middle|none] [--slow-every N] [--speed-noise E]`
//! (defaults: 1000,10000,100000,1000000; 4096x4096x2048; 5; edge; 1000 (0: none); 0.05).

use std::time::Instant;

use yee_comm_sim::scale::{DeadLink, ScaleMachine, ScaleSim};
use yee_core::balance::BalanceParams;
use yee_core::balance_reduce::most_decision_bytes_sent;
use yee_core::topology::choose_topology;

struct Options {
    ranks: Vec<usize>,
    grid: [usize; 3],
    intervals: usize,
    machine: ScaleMachine,
}

fn parse() -> Result<Options, String> {
    let mut o = Options {
        ranks: vec![1000, 10_000, 100_000, 1_000_000],
        grid: [4096, 4096, 2048],
        intervals: 5,
        machine: ScaleMachine::default(),
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or(format!("{arg} needs a value"));
        match arg.as_str() {
            "--grid" => {
                let v: Vec<usize> = value()?.split('x').filter_map(|s| s.parse().ok()).collect();
                o.grid = v.try_into().map_err(|_| "--grid AxBxC".to_string())?;
            }
            "--intervals" => o.intervals = value()?.parse().map_err(|e| format!("{e}"))?,
            "--speed-noise" => {
                o.machine.speed_noise = value()?.parse().map_err(|e| format!("{e}"))?;
            }
            "--slow-every" => {
                o.machine.slow_every = value()?.parse().map_err(|e| format!("{e}"))?;
            }
            "--dead-link" => {
                o.machine.dead_link = match value()?.as_str() {
                    "edge" => DeadLink::Edge,
                    "middle" => DeadLink::Middle,
                    "none" => DeadLink::None,
                    other => return Err(format!("--dead-link edge|middle|none, not {other}")),
                }
            }
            list => {
                o.ranks = list
                    .split(',')
                    .map(|s| s.parse().map_err(|e| format!("ranks {s}: {e}")))
                    .collect::<Result<_, _>>()?;
            }
        }
    }
    if o.intervals == 0 {
        return Err("--intervals must be at least 1".into());
    }
    Ok(o)
}

fn main() {
    let o = parse().unwrap_or_else(|e| {
        eprintln!("scale-sim: {e}");
        std::process::exit(2);
    });
    println!(
        "| ranks | topology | cells/rank | topology (ms) | all records, one thread (ms) \
         | collectives (ms) | decide (ms) | decision on a rank (ms) | reductions (bytes/rank) \
         | ideal (ms) | uniform (ms) | static (ms) | predicted (ms) | achieved (ms) | ÷ ideal \
         | actions |"
    );
    println!(
        "| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"
    );
    let mut notes = Vec::new();
    for &ranks in &o.ranks {
        if let Err(e) = row(&o, ranks, &mut notes) {
            eprintln!("scale-sim: {ranks} ranks: {e}");
            std::process::exit(1);
        }
    }
    println!();
    for n in notes {
        println!("{n}");
    }
}

fn row(o: &Options, ranks: usize, notes: &mut Vec<String>) -> Result<(), String> {
    let t = Instant::now();
    let topology = choose_topology(o.grid, 3, ranks, 1)
        .map_err(|e| format!("{e:?}"))?
        .topology;
    let topology_s = t.elapsed().as_secs_f64();
    let model = o.machine.model(topology);
    let mut sim = ScaleSim::new(o.grid, topology, model, BalanceParams::default());
    let uniform = sim.borders.clone();
    let ideal =
        sim.ideal_compute_seconds() + sim.step_seconds_on(&sim.model.healed(), &uniform).share;
    let before = sim.step_seconds(&uniform);
    let plan = sim.static_plan().map_err(|e| format!("{e}"))?;
    let planned = sim.step_seconds(&plan);
    let mut records_s = Vec::new();
    let mut decision_s = Vec::new();
    let mut actions: Vec<String> = Vec::new();
    let mut predicted = f64::NAN;
    for _ in 0..o.intervals {
        let gathered = sim.gathered();
        let t = Instant::now();
        let inputs = sim.reduce(&gathered);
        records_s.push(t.elapsed().as_secs_f64());
        let t = Instant::now();
        let decision = sim.decide_from(&inputs).map_err(|e| format!("{e}"))?;
        decision_s.push(t.elapsed().as_secs_f64());
        predicted = decision.predicted_seconds;
        if actions.last() != Some(&decision.action) {
            actions.push(decision.action.clone());
        }
    }
    let after = sim.step_seconds(&sim.borders);
    let median = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let (records, decide) = (median(records_s), median(decision_s));
    let collectives = sim.decision_collective_seconds();
    let ms = |s: f64| format!("{:.3}", s * 1e3);
    let n = topology.0;
    println!(
        "| {ranks} | {}×{}×{} | {:.0} | {} | {} | {} | {} | **{}** | {} | {} | {} | {} | {} | {} | {:.3} | {} |",
        n[0],
        n[1],
        n[2],
        sim.total_work() / ranks as f64,
        ms(topology_s),
        ms(records),
        ms(collectives),
        ms(decide),
        ms(collectives + decide),
        most_decision_bytes_sent(topology),
        ms(ideal),
        ms(before.total()),
        ms(planned.total()),
        ms(predicted),
        ms(after.total()),
        after.total() / ideal,
        actions.join("; ")
    );
    // Why the final step is where it is: its slowest compute against S / Σ speeds, its share
    // term against the healed uniform layout's, and the speed the disabled lines leave idle.
    let slow = o.machine.slow_ranks(ranks);
    let mean_cells = sim.total_work() / ranks as f64;
    let slow_cells = match slow.len() {
        0 => "none".to_string(),
        k => format!(
            "{:.3} × the mean",
            slow.iter().map(|&r| sim.cells(r)).sum::<f64>() / k as f64 / mean_cells
        ),
    };
    let enabled_speed: f64 = (0..ranks)
        .filter(|&r| sim.cells(r) > 0.0)
        .map(|r| sim.model.machine.speeds[r])
        .sum();
    let total_speed: f64 = sim.model.machine.speeds.iter().sum();
    notes.push(format!(
        "- {ranks} ranks: slowest compute {} ms = {:.3} × S/Σspeeds ({} ms); share {} ms \
         (healed uniform {} ms); slow ranks' boxes {}; speed of disabled ranks \
         {:.2} %; dead link {:?}",
        ms(after.compute),
        after.compute / sim.ideal_compute_seconds(),
        ms(sim.ideal_compute_seconds()),
        ms(after.share),
        ms(sim.step_seconds_on(&sim.model.healed(), &uniform).share),
        slow_cells,
        100.0 * (1.0 - enabled_speed / total_speed),
        o.machine.dead_pair(topology),
    ));
    Ok(())
}
