//! The custom heat app gives the same bits on every topology of 2, 3, 4 and 6 ranks, on the
//! simulated and the shared-memory communicator, as on one rank.

use yee_comm_sim::MachineModel;
use yee_core::Topology;
use yee_core::decomposition::{Layout, uniform_layout_borders};
use yee_core::topology::for_each_candidate;
use yee_examples::{assemble, run_rank};

const GRID: [usize; 2] = [37, 29];

fn run(topology: Topology, shm: bool, periodic: [bool; 3]) -> Vec<f64> {
    let b = uniform_layout_borders([GRID[0], GRID[1], 1], topology);
    let layout = Layout {
        topology,
        borders: [&b[0], &b[1], &b[2]],
        periodic,
    };
    let pieces = if shm {
        yee_comm_shm::launch(topology, |mut c| {
            run_rank(&layout, &mut c, 40, 0.2).unwrap()
        })
    } else {
        yee_comm_sim::launch(
            topology,
            MachineModel::default_for(topology.ranks()),
            |mut c| run_rank(&layout, &mut c, 40, 0.2).unwrap(),
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
