//! The two small apps across MPI processes: Game of Life (a glider on a torus) and heat
//! diffusion, each decomposed over every process and dynamically balanced against a rank 0
//! that is made slow on purpose, gathered to rank 0 by the runtime. Rank 0 checks the cells
//! against the analytic glider and the temperature against a one-rank run of its own, bit for
//! bit, and prints one line per app. The apps' code is the one the sim and shm tests run:
//! only the [`CommKind`] differs.
//!
//! Run: `cargo build --release -p yee-examples --features mpi` then
//! `mpirun -np 3 target/release/small-apps-mpi`.

use yee_comm_shm::Slowdown;
use yee_examples::life::{self, glider};
use yee_runtime::RuntimeError;
use yee_runtime::app::{CommKind, Gathered, Ranks, RunPlan};

fn main() {
    if let Err(e) = run() {
        eprintln!("small-apps-mpi: {e}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), String> {
    let ranks = Ranks::new(CommKind::Mpi, 0).map_err(|e| e.to_string())?;
    // Rank 0 sleeps 20 µs per cell it updates: far slower than the others.
    let slow = vec![Slowdown {
        per_cell: 2e-5,
        ..Slowdown::default()
    }];
    let plan = |grid| RunPlan::new(grid).balanced(10).slowdown(slow.clone());
    let life = plan([20, 20, 1]).periodic([true, true, false]);
    let out = life::simulate(&ranks, &life, 80, glider(3, 4)).map_err(|e| e.to_string())?;
    if let Some(out) = out {
        let expected: Vec<f32> = (0..400)
            .map(|k| f32::from(u8::from(glider(3, 4)(k % 20, k / 20))))
            .collect();
        report("life", &out, out.values == expected)?;
    }
    let heat = plan([48, 40, 1]);
    let out = yee_examples::simulate(&ranks, &heat, 200, 0.2).map_err(|e| e.to_string())?;
    if let Some(out) = out {
        let one = Ranks::new(CommKind::Sim, 1).map_err(|e| e.to_string())?;
        let reference = yee_examples::simulate(&one, &RunPlan::new([48, 40, 1]), 200, 0.2)
            .map_err(|e: RuntimeError| e.to_string())?
            .ok_or("the one-rank run ends on this process")?;
        report("heat", &out, out.values == reference.values)?;
    }
    Ok(())
}

fn report<T>(app: &str, out: &Gathered<T>, same: bool) -> Result<(), String> {
    let ranks = out.boxes.len();
    let moved = out.boxes.iter().any(|[first, last]| first != last);
    println!("{app}: {ranks} ranks, identical to one rank: {same}, borders moved: {moved}");
    if !same {
        return Err(format!(
            "{app}: the decomposed, balanced run changed the answer"
        ));
    }
    if ranks > 1 && !moved {
        return Err(format!(
            "{app}: the balancer never moved a border away from the slow rank"
        ));
    }
    Ok(())
}
