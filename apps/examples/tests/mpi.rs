//! The two small apps across MPI processes, decomposed and balanced against a slow rank 0,
//! gathered through `Comm::gather_vecs`: `small-apps-mpi` under `mpirun` on 1 to 4 processes
//! must report both apps identical to one rank, with borders moved. Needs the `mpi` feature
//! and `mpirun`: `cargo test -p yee-examples --features mpi --test mpi`.
#![cfg(feature = "mpi")]

use yee_tests::mpirun::{finish, mpirun};

#[test]
fn both_apps_run_balanced_over_mpi_with_the_bits_of_one_rank() {
    for np in 1..=4 {
        let out = finish(mpirun(np, env!("CARGO_BIN_EXE_small-apps-mpi")));
        let stdout = String::from_utf8_lossy(&out.stdout);
        let what = format!(
            "mpirun -np {np}:\n{stdout}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(out.status.success(), "{what}");
        for app in ["life", "heat"] {
            let line = format!(
                "{app}: {np} ranks, identical to one rank: true, borders moved: {}",
                np > 1
            );
            assert!(stdout.lines().any(|l| l == line), "no `{line}` in {what}");
        }
    }
}
