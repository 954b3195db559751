//! `wave [sim|shm|mpi] [RANKS] [jagged|kd] [kick-first] [balanced]`: U's fingerprint after 200
//! steps on 256², the same on any decomposition. MPI: `mpirun -np 4 wave mpi` (`--features mpi`).

use std::hash::{DefaultHasher, Hash, Hasher};
use yee_examples::wave::simulate;
use yee_runtime::app::{CommKind, LayoutKind::*, Ranks, RunPlan};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let has = |word: &str| args.iter().any(|a| a == word);
    let comm = [CommKind::Sim, CommKind::Shm, CommKind::Mpi]
        [has("shm") as usize + 2 * has("mpi") as usize];
    let count = args.iter().find_map(|a| a.parse().ok()).unwrap_or(0);
    let layout = [Tensor, Jagged, Kd][has("jagged") as usize + 2 * has("kd") as usize];
    let mut plan = RunPlan::new([256, 256, 1]).layout(layout);
    if has("balanced") {
        plan = plan.balanced(20);
    }
    let count = count.max(usize::from(comm != CommKind::Mpi)); // MPI: 0 takes the job's size
    match Ranks::new(comm, count).and_then(|r| simulate(&r, &plan, 200, has("kick-first"))) {
        Ok(Some(out)) => {
            let mut bits = DefaultHasher::new(); // SipHash, zero keys: the same in every process
            out.values.iter().for_each(|u| u.to_bits().hash(&mut bits));
            let boxes: Vec<_> = out.boxes.iter().map(|[_, b]| (b.lo, b.hi)).collect();
            println!("U bits {:016x} on {} ranks", bits.finish(), boxes.len());
            println!("boxes {boxes:?}");
        }
        Ok(None) => {}
        Err(e) => {
            eprintln!("wave: {e}");
            std::process::exit(1);
        }
    }
}
