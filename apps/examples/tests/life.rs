//! Game of Life, an app written as two stencils only: a glider crosses a 20×20 torus and
//! comes back where it started after 80 generations (the analytic answer), on one rank and on
//! every decomposition — whose corners it crosses, so the chunk's derived corner halos are
//! needed — and when the library's balancer moves the borders under it.

use yee_comm_sim::MachineModel;
use yee_core::Topology;
use yee_core::balance::{BalanceParams, Balancer};
use yee_core::decomposition::uniform_layout_borders;
use yee_core::session::Plan;
use yee_examples::assemble;
use yee_examples::life::{glider, run_rank};

const N: usize = 20;

fn plan(topology: Topology, balancer: Option<Balancer>) -> Plan {
    Plan {
        topology,
        borders: uniform_layout_borders([N, N, 1], topology),
        periodic: [true, true, false],
        active: [true, true, false],
        balancer,
        overlap: true,
    }
}

/// A plan with the library's dynamic balancer, every 10 generations.
fn balanced_plan(topology: Topology) -> Plan {
    let density = std::array::from_fn(|a| vec![1.25; [N, N, 1][a]]);
    let params = BalanceParams {
        every: 10,
        min_width: 1,
        ..BalanceParams::default()
    };
    plan(topology, Some(Balancer::new(topology, 2, density, params)))
}

fn pattern(cells: impl Fn(i64, i64) -> bool) -> Vec<f32> {
    (0..(N * N) as i64)
        .map(|k| f32::from(u8::from(cells(k % N as i64, k / N as i64))))
        .collect()
}

fn sim(plan: &Plan, model: MachineModel, steps: u64) -> Vec<f32> {
    let pieces = yee_comm_sim::launch(plan.topology, model, |mut c| {
        run_rank(plan, &mut c, steps, glider(3, 4)).unwrap()
    });
    assemble([N, N], &pieces)
}

#[test]
fn a_glider_moves_and_comes_back_on_one_rank() {
    let one = plan(Topology([1, 1, 1]), None);
    let model = || MachineModel::default_for(1);
    assert_eq!(sim(&one, model(), 0), pattern(glider(3, 4)));
    assert_eq!(
        sim(&one, model(), 4),
        pattern(glider(4, 5)),
        "one cell down-right per 4"
    );
    assert_eq!(
        sim(&one, model(), 4 * N as u64),
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
        let p = plan(topology, None);
        assert_eq!(
            sim(&p, MachineModel::default_for(topology.ranks()), steps),
            expected,
            "sim {topology:?}"
        );
        let pieces = yee_comm_shm::launch(topology, |mut c| {
            run_rank(&p, &mut c, steps, glider(3, 4)).unwrap()
        });
        assert_eq!(assemble([N, N], &pieces), expected, "shm {topology:?}");
    }
}

#[test]
fn balanced_borders_move_under_the_glider() {
    let topology = Topology([2, 2, 1]);
    let p = balanced_plan(topology);
    // Rank 0 computes five times slower than the others.
    let mut model = MachineModel::default_for(4);
    model.speeds[0] /= 5.0;
    let pieces = yee_comm_sim::launch(topology, model, |mut c| {
        run_rank(&p, &mut c, 4 * N as u64, glider(3, 4)).unwrap()
    });
    let history = &pieces[0].2.history;
    assert!(
        history.iter().any(|h| h.borders != p.borders),
        "the balancer moved borders: {history:#?}"
    );
    assert_eq!(assemble([N, N], &pieces), pattern(glider(3, 4)));
}

#[test]
fn balanced_on_threads_with_a_slow_rank_the_cells_stay() {
    let topology = Topology([2, 1, 1]);
    let p = balanced_plan(topology);
    // Rank 0 sleeps 20 µs per cell it updates: real clocks measure it as far slower.
    let slow = [yee_comm_shm::Slowdown {
        per_cell: 2e-5,
        ..yee_comm_shm::Slowdown::default()
    }];
    let pieces = yee_comm_shm::launch_slowed(topology, &slow, |mut c| {
        run_rank(&p, &mut c, 4 * N as u64, glider(3, 4)).unwrap()
    });
    let history = &pieces[0].2.history;
    let moved = history.iter().find(|h| h.borders != p.borders);
    let widths = moved.map(|h| h.borders[0][1] - h.borders[0][0]);
    assert!(
        widths.is_some_and(|w| w < (N / 2) as i64),
        "the slow rank gave columns away: {history:#?}"
    );
    assert_eq!(assemble([N, N], &pieces), pattern(glider(3, 4)));
}
