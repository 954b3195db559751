//! Game of Life, an app written as two stencils only: a glider crosses a 20×20 torus and
//! comes back where it started after 80 generations (the analytic answer), on one rank and on
//! every decomposition — whose corners it crosses, so the chunk's derived corner halos are
//! needed — and when the library's balancer moves the borders under it.

use yee_comm_sim::MachineModel;
use yee_core::Topology;
use yee_examples::life::{glider, simulate};
use yee_runtime::app::{CommKind, Gathered, Ranks, RunPlan};

const N: usize = 20;

fn plan(topology: Topology) -> RunPlan {
    RunPlan::new([N, N, 1])
        .periodic([true, true, false])
        .topology(topology)
}

fn pattern(cells: impl Fn(i64, i64) -> bool) -> Vec<f32> {
    (0..(N * N) as i64)
        .map(|k| f32::from(u8::from(cells(k % N as i64, k / N as i64))))
        .collect()
}

fn run(comm: CommKind, plan: &RunPlan, steps: u64) -> Gathered<f32> {
    let ranks = Ranks::new(comm, plan.topology.map_or(1, |t| t.ranks())).unwrap();
    simulate(&ranks, plan, steps, glider(3, 4))
        .unwrap()
        .unwrap()
}

#[test]
fn a_glider_moves_and_comes_back_on_one_rank() {
    let one = plan(Topology([1, 1, 1]));
    let cells = |steps| run(CommKind::Sim, &one, steps).values;
    assert_eq!(cells(0), pattern(glider(3, 4)));
    assert_eq!(cells(4), pattern(glider(4, 5)), "one cell down-right per 4");
    assert_eq!(
        cells(4 * N as u64),
        pattern(glider(3, 4)),
        "around the torus"
    );
}

#[test]
fn every_decomposition_gives_the_same_cells() {
    let steps = 4 * N as u64;
    let expected = pattern(glider(3, 4));
    for topology in [
        Topology([2, 2, 1]),
        Topology([3, 1, 1]),
        Topology([1, 4, 1]),
        Topology([3, 2, 1]),
    ] {
        for comm in [CommKind::Sim, CommKind::Shm] {
            let cells = run(comm, &plan(topology), steps).values;
            assert_eq!(cells, expected, "{comm:?} {topology:?}");
        }
    }
}

#[test]
fn balanced_borders_move_under_the_glider() {
    // Rank 0 computes five times slower than the others.
    let mut model = MachineModel::default_for(4);
    model.speeds[0] /= 5.0;
    let p = plan(Topology([2, 2, 1])).balanced(10).model(model);
    let out = run(CommKind::Sim, &p, 4 * N as u64);
    assert!(
        out.boxes.iter().any(|[first, last]| first != last),
        "the balancer moved borders: {:#?}",
        out.history
    );
    assert_eq!(out.values, pattern(glider(3, 4)));
}

#[test]
fn balanced_on_threads_with_a_slow_rank_the_cells_stay() {
    // Rank 0 sleeps 20 µs per cell it updates: real clocks measure it as far slower.
    let slow = vec![yee_comm_shm::Slowdown {
        per_cell: 2e-5,
        ..yee_comm_shm::Slowdown::default()
    }];
    let p = plan(Topology([2, 1, 1])).balanced(10).slowdown(slow);
    let out = run(CommKind::Shm, &p, 4 * N as u64);
    assert!(
        out.history.iter().any(|h| h.boxes[0].extent()[0] < N / 2),
        "the slow rank gave columns away: {:#?}",
        out.history
    );
    assert_eq!(out.values, pattern(glider(3, 4)));
}
