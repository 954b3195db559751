//! The communicator conformance suite on the MPI communicator: the `mpi_conformance` binary
//! under `mpirun` on 1, 2, 3 and 4 processes (1×1×1, 2×1×1, 3×1×1, 2×2×1), as
//! `tests/comm_conformance.rs` runs it on the in-process communicators. Needs the `mpi` feature
//! and `mpirun` (Open MPI): `cargo test -p yee-tests --features mpi --test mpi_conformance`.
#![cfg(feature = "mpi")]

use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use yee_tests::comm_conformance::{Abilities, suite};

/// Every job must end within this: a hang is a failure, not a stuck CI.
const DEADLINE: Duration = Duration::from_secs(120);

/// Runs `command` to completion or kills it at [`DEADLINE`].
fn finish(mut command: Command) -> Output {
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("mpirun starts (install openmpi-bin)");
    let start = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            return child.wait_with_output().unwrap();
        }
        if start.elapsed() > DEADLINE {
            let _ = child.kill();
            let out = child.wait_with_output().unwrap();
            panic!(
                "the MPI job hung for {DEADLINE:?}; stdout:\n{}\nstderr:\n{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn the_mpi_communicator_passes_the_conformance_suite() {
    for (np, shape) in [(1, "1x1x1"), (2, "2x1x1"), (3, "3x1x1"), (4, "2x2x1")] {
        let mut c = Command::new("mpirun");
        c.args(["--allow-run-as-root", "--oversubscribe", "-np"])
            .arg(np.to_string())
            .arg(env!("CARGO_BIN_EXE_mpi_conformance"))
            .arg(shape);
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
