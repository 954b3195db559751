//! Heat diffusion on 1 rank, on 6 simulated ranks (3×2) and on 4 threads (2×2): the
//! temperatures must be identical bit for bit. `heat mpi` runs it over the processes of an
//! MPI job instead (`mpirun -np 4 heat mpi`, built with `--features mpi`) against one rank.
//!
//! Run: `cargo run --release -p yee-examples --bin heat`

use yee_core::Topology;
use yee_examples::simulate;
use yee_runtime::app::{CommKind, Ranks, RunPlan};

const GRID: [usize; 3] = [96, 80, 1];
const STEPS: u64 = 300;
const R: f64 = 0.2;

fn main() {
    let run = |comm: CommKind, topology: Topology| {
        let count = if comm == CommKind::Mpi {
            0
        } else {
            topology.ranks()
        };
        let ranks = Ranks::new(comm, count)?;
        let plan = RunPlan::new(GRID);
        let plan = match comm {
            CommKind::Mpi => plan,
            _ => plan.topology(topology),
        };
        simulate(&ranks, &plan, STEPS, R)
    };
    let result = (|| {
        let reference = run(CommKind::Sim, Topology([1, 1, 1]))?;
        let others = match std::env::args().nth(1).as_deref() {
            Some("mpi") => vec![("mpi", run(CommKind::Mpi, Topology([1, 1, 1]))?)],
            _ => vec![
                ("sim 3×2", run(CommKind::Sim, Topology([3, 2, 1]))?),
                ("shm 2×2", run(CommKind::Shm, Topology([2, 2, 1]))?),
            ],
        };
        Ok::<_, yee_runtime::RuntimeError>((reference, others))
    })();
    let (reference, others) = match result {
        Ok(r) => r,
        Err(e) => {
            eprintln!("heat: {e}");
            std::process::exit(1);
        }
    };
    let reference = reference
        .expect("the one-rank run ends on this thread")
        .values;
    let total: f64 = reference.iter().sum();
    println!(
        "heat diffusion {}×{}, {STEPS} steps: total heat {total:.12}",
        GRID[0], GRID[1]
    );
    for (name, out) in others {
        // Only the root of an MPI job gets the grid.
        let Some(out) = out else { continue };
        let same = out.values == reference;
        println!("{name} identical to 1 rank: {same}");
        assert!(same, "decomposition changed the answer");
    }
}
