//! The 2D wave equation on any communicator and layout:
//! `wave [sim|shm|mpi] [RANKS] [tensor|jagged|kd] [kick-first] [balanced]`, printing the
//! checksum of U after 200 steps on 256² (the same whatever the decomposition) and the
//! ranks' final boxes. Over MPI: `mpirun -np 4 wave mpi` (build with `--features mpi`).

use yee_examples::wave::simulate;
use yee_runtime::app::{CommKind, LayoutKind, Ranks, RunPlan};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let has = |word: &str| args.iter().any(|a| a == word);
    let comm = match () {
        _ if has("mpi") => CommKind::Mpi,
        _ if has("shm") => CommKind::Shm,
        _ => CommKind::Sim,
    };
    let count = args.iter().find_map(|a| a.parse().ok()).unwrap_or(4);
    let layout = match () {
        _ if has("jagged") => LayoutKind::Jagged,
        _ if has("kd") => LayoutKind::Kd,
        _ => LayoutKind::Tensor,
    };
    let mut plan = RunPlan::new([256, 256, 1]).layout(layout);
    if has("balanced") {
        plan = plan.balanced(20);
    }
    let ranks = Ranks::new(comm, if comm == CommKind::Mpi { 0 } else { count });
    match ranks.and_then(|r| simulate(&r, &plan, 200, has("kick-first"))) {
        Ok(Some(out)) => {
            let sum: f64 = out.values.iter().map(|u| u.abs()).sum();
            println!(
                "wave 256², 200 steps on {} ranks: Σ|u| = {sum:.15e}",
                out.boxes.len()
            );
            for (r, [_, last]) in out.boxes.iter().enumerate() {
                println!("  rank {r}: {:?}..{:?}", last.lo, last.hi);
            }
        }
        Ok(None) => {}
        Err(e) => {
            eprintln!("wave: {e}");
            std::process::exit(1);
        }
    }
}
