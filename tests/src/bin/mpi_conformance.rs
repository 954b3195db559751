//! The communicator conformance suite (`yee_tests::comm_conformance`) on the MPI communicator:
//! `mpirun -np N mpi_conformance [NXxNYxNZ]` (default N×1×1) runs every check MPI can take
//! ([`Abilities::MPI`]) on every rank, prints `rank R: CHECK ok` or `rank R: CHECK FAILED: …`
//! for each, and exits non-zero if one failed. `tests/mpi_conformance.rs` starts it.

use std::process::ExitCode;

use mpi::topology::Communicator;
use yee_comm_mpi::{MpiComm, abort_on_panic};
use yee_core::Topology;
use yee_tests::comm_conformance::{Abilities, suite};

/// `"2x2x1"` as `[2, 2, 1]`.
fn parse_topology(text: &str) -> Option<[usize; 3]> {
    let mut parts = text.split('x').map(|p| p.parse().ok());
    let shape = [parts.next()??, parts.next()??, parts.next()??];
    parts.next().is_none().then_some(shape)
}

fn main() -> ExitCode {
    let Some(universe) = mpi::initialize() else {
        eprintln!("error: MPI was initialised already");
        return ExitCode::FAILURE;
    };
    let world = universe.world();
    let (rank, size) = (world.rank() as usize, world.size() as usize);
    abort_on_panic(rank);
    let arg = std::env::args().nth(1);
    let Some(shape) = arg.as_deref().map_or(Some([size, 1, 1]), parse_topology) else {
        eprintln!("error: the topology is NXxNYxNZ, not {arg:?}");
        return ExitCode::FAILURE;
    };
    let mut comm = match MpiComm::new(&world, Topology(shape), [false; 3]) {
        Ok(comm) => comm,
        Err(e) => {
            eprintln!("error: rank {rank}: {e}");
            return ExitCode::FAILURE;
        }
    };
    let mut failed = false;
    // One line as each check ends, so that a job that aborts shows how far it got.
    for check in suite(Abilities::MPI) {
        match check.run(&mut comm) {
            Ok(()) => println!("rank {rank}: {check:?} ok"),
            Err(e) => {
                failed = true;
                println!("rank {rank}: {check:?} FAILED: {e}");
            }
        }
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
