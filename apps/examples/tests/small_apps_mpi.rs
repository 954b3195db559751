//! The small apps across MPI processes, decomposed and balanced, gathered by the runtime:
//! `small-apps-mpi` under `mpirun` on 1 to 4 processes must report Life and heat identical to
//! one rank with borders moved away from a slow rank 0, and `wave mpi` (kick first and drift
//! first) must print the fingerprint of a one-rank `wave sim 1`. Needs the `mpi` feature
//! and `mpirun`: `cargo test -p yee-examples --features mpi --test small_apps_mpi`.
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

#[test]
fn the_wave_gives_the_one_rank_bits_on_every_job_size() {
    let wave = env!("CARGO_BIN_EXE_wave");
    let lines = |out: std::process::Output| -> Vec<String> {
        assert!(out.status.success(), "{out:?}");
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(String::from)
            .collect()
    };
    for order in ["kick-first", "drift-first"] {
        let one = std::process::Command::new(wave)
            .args(["sim", "1", order])
            .output()
            .unwrap();
        let reference = lines(one)[0].replace(" on 1 ranks", "");
        for np in 1..=4 {
            let mut job = mpirun(np, wave);
            job.args(["mpi", order, "balanced"]);
            let out = lines(finish(job));
            assert_eq!(
                out[0],
                format!("{reference} on {np} ranks"),
                "{order} -np {np}"
            );
        }
    }
}
