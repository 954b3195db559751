//! The two small apps across MPI processes: Game of Life (a glider on a torus) and heat
//! diffusion, each decomposed over every process and dynamically balanced against a rank 0
//! that is made slow on purpose, its pieces gathered to rank 0 through `Comm::gather_vecs`.
//! Rank 0 checks the cells against the analytic glider and the temperature against a
//! one-rank run of its own, bit for bit, and prints one line per app.
//!
//! Run: `cargo build --release -p yee-examples --features mpi` then
//! `mpirun -np 3 target/release/small-apps-mpi`.

use mpi::topology::Communicator;
use yee_comm_mpi::MpiComm;
use yee_comm_shm::Slowdown;
use yee_comm_sim::MachineModel;
use yee_core::balance::{BalanceParams, Balancer};
use yee_core::session::{Plan, RunLog};
use yee_core::topology::choose_topology;
use yee_core::{Box3, Comm, Topology};
use yee_examples::life::{self, glider};
use yee_examples::{RankPiece, assemble, plan};

const LIFE: [usize; 2] = [20, 20];
const HEAT: [usize; 2] = [48, 40];

fn main() {
    if let Err(e) = run() {
        eprintln!("small-apps-mpi: {e}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), String> {
    let universe = mpi::initialize().ok_or("MPI is already initialised")?;
    let world = universe.world();
    let ranks = world.size() as usize;
    let topology = |grid: [usize; 2]| {
        choose_topology([grid[0], grid[1], 1], 2, ranks, 1)
            .map(|c| c.topology)
            .map_err(|e| format!("no topology for {ranks} ranks: {e:?}"))
    };
    let balancer = |grid: [usize; 2], topology: Topology, density: f64| {
        let density = std::array::from_fn(|a| vec![density; [grid[0], grid[1], 1][a]]);
        let params = BalanceParams {
            every: 10,
            min_width: 1,
            ..BalanceParams::default()
        };
        Balancer::new(topology, 2, density, params)
    };
    // Rank 0 sleeps 20 µs per cell it updates: far slower than the others.
    let slow = Slowdown {
        per_cell: 2e-5,
        ..Slowdown::default()
    };
    let comm = |plan: &Plan| -> Result<MpiComm, String> {
        let c = MpiComm::new(&world, plan.topology, plan.periodic).map_err(|e| e.to_string())?;
        Ok(if c.rank() == 0 {
            c.with_slowdown(slow)
        } else {
            c
        })
    };

    let t = topology(LIFE)?;
    let mut p = plan(LIFE, t, [true, true, false], Some(balancer(LIFE, t, 1.25)));
    p.periodic = [true, true, false];
    let mut c = comm(&p)?;
    let steps = 4 * LIFE[0] as u64;
    let piece = life::run_rank(&p, &mut c, steps, glider(3, 4)).map_err(|e| format!("{e:?}"))?;
    if let Some(pieces) = gather(&mut c, piece)? {
        let expected: Vec<f32> = (0..(LIFE[0] * LIFE[1]) as i64)
            .map(|k| f32::from(u8::from(glider(3, 4)(k % 20, k / 20))))
            .collect();
        let same = assemble(LIFE, &pieces) == expected;
        report("life", ranks, same, &pieces[0].2, &p)?;
    }

    let t = topology(HEAT)?;
    let p = plan(HEAT, t, [false; 3], Some(balancer(HEAT, t, 1.0)));
    let mut c = comm(&p)?;
    let piece = yee_examples::run_rank(&p, HEAT, &mut c, 200, 0.2).map_err(|e| format!("{e:?}"))?;
    if let Some(pieces) = gather(&mut c, piece)? {
        let one = plan(HEAT, Topology([1, 1, 1]), [false; 3], None);
        let reference = yee_comm_sim::launch(
            Topology([1, 1, 1]),
            MachineModel::default_for(1),
            |mut s| yee_examples::run_rank(&one, HEAT, &mut s, 200, 0.2),
        );
        let reference = reference
            .into_iter()
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| format!("{e:?}"))?;
        let same = assemble(HEAT, &pieces) == assemble(HEAT, &reference);
        report("heat", ranks, same, &pieces[0].2, &p)?;
    }
    Ok(())
}

/// Every rank's (box, values) on rank 0 through the communicator's variable-size gather; the
/// run log (identical on every rank) is rank 0's own.
fn gather<T: bytemuck::Pod + Default>(
    comm: &mut MpiComm,
    (owned, values, log): RankPiece<T>,
) -> Result<Option<Vec<RankPiece<T>>>, String> {
    let mut bytes: Vec<u8> = bytemuck::cast_slice(&[owned.lo, owned.hi]).to_vec();
    bytes.extend_from_slice(bytemuck::cast_slice(&values));
    let Some(all) = comm.gather_vecs(0, &bytes).map_err(|e| e.to_string())? else {
        return Ok(None);
    };
    let pieces = all
        .iter()
        .map(|b| {
            let corners: Vec<i64> = b[..48]
                .chunks_exact(8)
                .map(bytemuck::pod_read_unaligned)
                .collect();
            let owned = Box3::new(
                [corners[0], corners[1], corners[2]],
                [corners[3], corners[4], corners[5]],
            );
            let values = b[48..]
                .chunks_exact(std::mem::size_of::<T>())
                .map(bytemuck::pod_read_unaligned)
                .collect();
            (owned, values, log.clone())
        })
        .collect();
    Ok(Some(pieces))
}

fn report(app: &str, ranks: usize, same: bool, log: &RunLog, plan: &Plan) -> Result<(), String> {
    let moved = log.history.iter().any(|h| h.borders != plan.borders);
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
