//! The custom heat app gives the same bits on every topology of 2, 3, 4 and 6 ranks, on the
//! simulated and the shared-memory communicator, as on one rank — and when the library's
//! dynamic balancer moves its borders on a heterogeneous simulated cluster or under a slow
//! thread.

use yee_comm_sim::MachineModel;
use yee_core::Topology;
use yee_core::topology::for_each_candidate;
use yee_examples::simulate;
use yee_runtime::app::{CommKind, Gathered, Ranks, RunPlan};

const GRID: [usize; 3] = [37, 29, 1];

fn run(comm: CommKind, plan: &RunPlan, steps: u64) -> Gathered<f64> {
    let count = plan.topology.map_or(1, |t| t.ranks());
    let ranks = Ranks::new(comm, count).unwrap();
    simulate(&ranks, plan, steps, 0.2).unwrap().unwrap()
}

#[test]
fn every_topology_matches_one_rank() {
    for periodic in [[false; 3], [true, true, false]] {
        let plan = RunPlan::new(GRID).periodic(periodic);
        let reference = run(CommKind::Sim, &plan, 40).values;
        assert!(
            reference.iter().any(|&u| u > 1e-3),
            "the hot spot diffuses, it does not vanish"
        );
        for ranks in [2, 3, 4, 6] {
            for_each_candidate(GRID, 2, ranks, 1, |c| {
                for comm in [CommKind::Sim, CommKind::Shm] {
                    let p = plan.clone().topology(c.topology);
                    assert!(
                        run(comm, &p, 40).values == reference,
                        "{:?} {comm:?} periodic={periodic:?}",
                        c.topology
                    );
                }
            });
        }
    }
}

#[test]
fn balanced_borders_move_and_the_bits_stay() {
    let steps = 200;
    let reference = run(CommKind::Sim, &RunPlan::new(GRID), steps).values;
    // Rank 0 computes four times slower than the others.
    let mut model = MachineModel::default_for(3);
    model.speeds[0] /= 4.0;
    let plan = RunPlan::new(GRID)
        .topology(Topology([3, 1, 1]))
        .balanced(20)
        .model(model);
    let out = run(CommKind::Sim, &plan, steps);
    assert!(!out.history.is_empty(), "the balancer decided");
    // The slow rank ends with fewer columns than an even share.
    let widths: Vec<usize> = out.boxes.iter().map(|[_, last]| last.extent()[0]).collect();
    assert!(widths[0] < widths[1] && widths[0] < widths[2], "{widths:?}");
    assert!(out.values == reference, "rebalancing changed the answer");
}

#[test]
fn balanced_on_threads_with_a_slow_rank_the_bits_stay() {
    let steps = 100;
    let reference = run(CommKind::Shm, &RunPlan::new(GRID), steps).values;
    // Rank 0 sleeps 20 µs per cell it updates.
    let slow = vec![yee_comm_shm::Slowdown {
        per_cell: 2e-5,
        ..yee_comm_shm::Slowdown::default()
    }];
    let plan = RunPlan::new(GRID)
        .topology(Topology([2, 1, 1]))
        .balanced(10)
        .slowdown(slow);
    let out = run(CommKind::Shm, &plan, steps);
    assert!(
        out.history
            .iter()
            .any(|h| h.boxes[0].hi[0] < (GRID[0] / 2) as i64),
        "the slow rank gave columns away: {:#?}",
        out.history
    );
    assert!(out.values == reference);
}
