//! The custom heat app gives the same bits on every topology of 2, 3, 4 and 6 ranks, on the
//! simulated and the shared-memory communicator, as on one rank — and when the library's
//! dynamic balancer moves its borders on a heterogeneous simulated cluster.

use yee_comm_sim::MachineModel;
use yee_core::Topology;
use yee_core::balance::{BalanceParams, Balancer};
use yee_core::decomposition::uniform_layout_borders;
use yee_core::topology::for_each_candidate;
use yee_examples::{assemble, plan, run_rank};

const GRID: [usize; 2] = [37, 29];

fn run(topology: Topology, shm: bool, periodic: [bool; 3]) -> Vec<f64> {
    let plan = plan(GRID, topology, periodic, None);
    let pieces = if shm {
        yee_comm_shm::launch(topology, |mut c| {
            run_rank(&plan, GRID, &mut c, 40, 0.2).unwrap()
        })
    } else {
        yee_comm_sim::launch(
            topology,
            MachineModel::default_for(topology.ranks()),
            |mut c| run_rank(&plan, GRID, &mut c, 40, 0.2).unwrap(),
        )
    };
    assemble(GRID, &pieces)
}
#[test]
fn every_topology_matches_one_rank() {
    for periodic in [[false; 3], [true, true, false]] {
        let reference = run(Topology([1, 1, 1]), false, periodic);
        assert!(
            reference.iter().any(|&u| u > 1e-3),
            "the hot spot diffuses, it does not vanish"
        );
        for ranks in [2, 3, 4, 6] {
            for_each_candidate([GRID[0], GRID[1], 1], 2, ranks, 1, |c| {
                for shm in [false, true] {
                    assert!(
                        run(c.topology, shm, periodic) == reference,
                        "{:?} shm={shm} periodic={periodic:?}",
                        c.topology
                    );
                }
            });
        }
    }
}

#[test]
fn balanced_borders_move_and_the_bits_stay() {
    let topology = Topology([3, 1, 1]);
    let steps = 200;
    let one = plan(GRID, Topology([1, 1, 1]), [false; 3], None);
    let reference = yee_comm_sim::launch(
        Topology([1, 1, 1]),
        MachineModel::default_for(1),
        |mut c| run_rank(&one, GRID, &mut c, steps, 0.2).unwrap(),
    );
    let reference = assemble(GRID, &reference);
    let density = std::array::from_fn(|a| vec![1.0; [GRID[0], GRID[1], 1][a]]);
    let params = BalanceParams {
        every: 20,
        min_width: 1,
        ..BalanceParams::default()
    };
    let balancer = Balancer::new(topology, 2, density, params);
    let plan = plan(GRID, topology, [false; 3], Some(balancer));
    // Rank 0 computes four times slower than the others.
    let mut model = MachineModel::default_for(3);
    model.speeds[0] /= 4.0;
    let pieces = yee_comm_sim::launch(topology, model, |mut c| {
        run_rank(&plan, GRID, &mut c, steps, 0.2).unwrap()
    });
    let uniform = uniform_layout_borders([GRID[0], GRID[1], 1], topology);
    let history = &pieces[0].2.history;
    let last = history.last().expect("the balancer decided");
    assert_ne!(last.borders, uniform, "the borders moved: {history:#?}");
    // The slow rank ends with fewer columns than an even share.
    let widths: Vec<i64> = last.borders[0].windows(2).map(|w| w[1] - w[0]).collect();
    assert!(widths[0] < widths[1] && widths[0] < widths[2], "{widths:?}");
    assert!(
        assemble(GRID, &pieces) == reference,
        "rebalancing changed the answer"
    );
}

#[test]
fn balanced_on_threads_with_a_slow_rank_the_bits_stay() {
    let topology = Topology([2, 1, 1]);
    let steps = 100;
    let one = plan(GRID, Topology([1, 1, 1]), [false; 3], None);
    let reference = yee_comm_shm::launch(Topology([1, 1, 1]), |mut c| {
        run_rank(&one, GRID, &mut c, steps, 0.2).unwrap()
    });
    let density = std::array::from_fn(|a| vec![1.0; [GRID[0], GRID[1], 1][a]]);
    let params = BalanceParams {
        every: 10,
        min_width: 1,
        ..BalanceParams::default()
    };
    let p = plan(
        GRID,
        topology,
        [false; 3],
        Some(Balancer::new(topology, 2, density, params)),
    );
    // Rank 0 sleeps 20 µs per cell it updates.
    let slow = [yee_comm_shm::Slowdown {
        per_cell: 2e-5,
        ..yee_comm_shm::Slowdown::default()
    }];
    let pieces = yee_comm_shm::launch_slowed(topology, &slow, |mut c| {
        run_rank(&p, GRID, &mut c, steps, 0.2).unwrap()
    });
    let history = &pieces[0].2.history;
    assert!(
        history
            .iter()
            .any(|h| h.borders[0][1] < (GRID[0] / 2) as i64),
        "the slow rank gave columns away: {history:#?}"
    );
    assert!(assemble(GRID, &pieces) == assemble(GRID, &reference));
}
