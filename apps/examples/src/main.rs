//! Heat diffusion on 1 rank, on 6 simulated ranks (3×2) and on 4 threads (2×2): the
//! temperatures must be identical bit for bit.
//!
//! Run: `cargo run --release -p yee-examples --bin heat`

use yee_comm_sim::MachineModel;
use yee_core::Topology;
use yee_examples::{assemble, plan, run_rank};

const GRID: [usize; 2] = [96, 80];
const STEPS: u64 = 300;
const R: f64 = 0.2;

fn main() {
    let run = |topology: Topology, shm: bool| {
        let plan = plan(GRID, topology, [false; 3], None);
        let pieces = if shm {
            yee_comm_shm::launch(topology, |mut comm| {
                run_rank(&plan, GRID, &mut comm, STEPS, R).expect("shm run")
            })
        } else {
            let model = MachineModel::default_for(topology.ranks());
            yee_comm_sim::launch(topology, model, |mut comm| {
                run_rank(&plan, GRID, &mut comm, STEPS, R).expect("sim run")
            })
        };
        assemble(GRID, &pieces)
    };
    let reference = run(Topology([1, 1, 1]), false);
    let sim = run(Topology([3, 2, 1]), false);
    let shm = run(Topology([2, 2, 1]), true);
    let total: f64 = reference.iter().sum();
    println!(
        "heat diffusion {}×{}, {STEPS} steps: total heat {total:.12}",
        GRID[0], GRID[1]
    );
    println!("sim 3×2 identical to 1 rank: {}", sim == reference);
    println!("shm 2×2 identical to 1 rank: {}", shm == reference);
    assert!(
        sim == reference && shm == reference,
        "decomposition changed the answer"
    );
}
