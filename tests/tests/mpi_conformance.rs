//! The communicator conformance suite on the MPI communicator: the `mpi_conformance` binary
//! under `mpirun` on 1, 2, 3 and 4 processes (1×1×1, 2×1×1, 3×1×1, 2×2×1), as
//! `tests/comm_conformance.rs` runs it on the in-process communicators. Needs the `mpi` feature
//! and `mpirun` (Open MPI): `cargo test -p yee-tests --features mpi --test mpi_conformance`.
#![cfg(feature = "mpi")]

use yee_tests::comm_conformance::{Abilities, suite};
use yee_tests::mpirun::{finish, mpirun};

#[test]
fn the_mpi_communicator_passes_the_conformance_suite() {
    for (np, shape) in [(1, "1x1x1"), (2, "2x1x1"), (3, "3x1x1"), (4, "2x2x1")] {
        let mut c = mpirun(np, env!("CARGO_BIN_EXE_mpi_conformance"));
        c.arg(shape);
        let out = finish(c);
        let stdout = String::from_utf8_lossy(&out.stdout);
        let what = format!(
            "mpirun -np {np} ({shape}):\n{stdout}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(out.status.success(), "{what}");
        // Every rank reports every check: none was skipped by a rank that stopped early.
        for rank in 0..np {
            for check in suite(Abilities::MPI) {
                let line = format!("rank {rank}: {check:?} ok");
                assert!(stdout.lines().any(|l| l == line), "no `{line}` in {what}");
            }
        }
    }
}
