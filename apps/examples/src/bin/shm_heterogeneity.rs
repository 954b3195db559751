//! Real heterogeneity on the shared-memory communicator: two ranks, rank 0 slowed by a sleep
//! per block of cells, a 2D scene run with and without dynamic balancing (wall times, final
//! shares, and the ideal shares from the measured speeds).
//!
//! Run: `cargo run --release -p yee-examples --bin shm-heterogeneity`

use std::time::Instant;

use yee_comm_shm::Slowdown;
use yee_core::Topology;
use yee_core::balance::{BalanceParams, Balancer};
use yee_em::load::slice_densities;
use yee_em::{
    Boundary, Component, Costs, Material, Mode, PointSource, Setup, SourceKind, Waveform,
};
use yee_scalar::decomposed::{run_rank, uniform_plan};

fn main() {
    let sources = [PointSource {
        component: Component::Ez,
        cell: [200, 150, 0],
        waveform: Waveform::Ricker {
            frequency: 0.05,
            delay: 30.0,
        },
        amplitude: 1.0,
        kind: SourceKind::Soft,
    }];
    let setup = Setup {
        mode: Mode::Tmz,
        grid: [400, 300, 1],
        courant: 0.7,
        background: Material::VACUUM,
        poles: &[],
        regions: &[],
        boundaries: [[Boundary::Pec; 2]; 3],
        sources: &sources,
        probes: &[],
        plane_waves: &[],
        monitors: &[],
        frequencies: &[],
        active: None,
        smoothing: true,
        smoothing_tensor: true,
        bloch: [0.0; 3],
    };
    let steps = 600;
    let topology = Topology([2, 1, 1]);
    // Rank 0 sleeps 20 ns per cell of work: at ~25 ns per cell update it runs at about half speed.
    let slow = [Slowdown {
        per_cell: 20e-9,
        ..Slowdown::default()
    }];
    let run = |balanced: bool| {
        let mut plan = uniform_plan(&setup, topology);
        if balanced {
            let density = slice_densities(&setup, &Costs::default());
            plan.balancer = Some(Balancer::new(
                topology,
                2,
                density,
                BalanceParams {
                    every: 50,
                    ..BalanceParams::default()
                },
            ));
        }
        let start = Instant::now();
        let out = yee_comm_shm::launch_slowed(topology, &slow, |mut c| {
            run_rank::<f32, _>(&setup, &plan, Costs::default(), &mut c, steps, |_, _| {}).unwrap()
        });
        let seconds = start.elapsed().as_secs_f64();
        let perf: Vec<f64> = out
            .iter()
            .map(|o| {
                let work = o.records.totals.work;
                let time = o.records.totals.compute_seconds;
                work / time
            })
            .collect();
        for h in &out[0].history {
            println!(
                "  step {:>4}: {:<14} x borders {:?}, predicted {:.2e} s, measured {:.2e} s",
                h.step, h.action, h.borders[0], h.predicted_seconds, h.measured_seconds
            );
        }
        let borders = out[0]
            .history
            .last()
            .map_or(plan.borders[0].clone(), |h| h.borders[0].clone());
        (seconds, borders, perf, out[0].history.len())
    };
    let (plain, plain_borders, plain_perf, _) = run(false);
    let (balanced, borders, perf, rebalances) = run(true);
    let share = |b: &[i64]| b[1] as f64 / 400.0;
    // The ideal share of rank 0 from the speeds measured on the unbalanced run.
    let ideal = plain_perf[0] / (plain_perf[0] + plain_perf[1]);
    println!("2D TMz 400×300, {steps} steps, 2 shm ranks, rank 0 sleeping 20 ns per cell");
    println!(
        "unbalanced: {plain:.2} s wall, rank 0 share {:.3}, measured speeds {:.1} / {:.1} Mcells/s",
        share(&plain_borders),
        plain_perf[0] / 1e6,
        plain_perf[1] / 1e6
    );
    println!(
        "dynamic:    {balanced:.2} s wall, rank 0 share {:.3} after {rebalances} rebalances (speeds {:.1} / {:.1} Mcells/s)",
        share(&borders),
        perf[0] / 1e6,
        perf[1] / 1e6
    );
    println!(
        "ideal rank 0 share from the unbalanced speeds: {ideal:.3}; wall time {:.1} % shorter",
        100.0 * (1.0 - balanced / plain)
    );
}
