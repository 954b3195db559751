//! `yee run --rank-backends`: each rank on its own backend. The outputs of a heterogeneous run
//! are the one-rank run's, byte for byte; run.json records each rank's backend; a bad list is
//! refused naming the entry and the rank.
#![cfg(feature = "rayon")]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

fn scene() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scenes/mpi3d.toml")
}

fn out_dir(name: &str) -> PathBuf {
    let dir = crate::tmp_dir(module_path!()).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn yee_run(out: &Path, extra: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_yee"))
        .arg("run")
        .arg(scene())
        .arg("--out")
        .arg(out)
        .arg("--quiet")
        .args(extra)
        .output()
        .unwrap()
}

fn run_json(out: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(out.join("run.json")).unwrap()).unwrap()
}

/// The fields (snapshots), probe records and flux transforms a run of mpi3d writes.
const COMPARED: [&str; 9] = [
    "ex_000060.npy",
    "ey_000060.npy",
    "ez_000060.npy",
    "hx_000060.npy",
    "hy_000060.npy",
    "hz_000060.npy",
    "probe_near.csv",
    "probe_far.csv",
    "flux_around_dft.npy",
];

#[test]
fn scalar_and_rayon_ranks_write_the_one_rank_outputs() {
    let one = out_dir("het_one");
    let done = yee_run(&one, &["--backend", "scalar"]);
    assert!(
        done.status.success(),
        "{}",
        String::from_utf8_lossy(&done.stderr)
    );
    for (name, extra) in [
        ("het_sim", &["--comm", "sim"][..]),
        ("het_shm", &["--comm", "shm"][..]),
        (
            "het_static",
            &[
                "--comm",
                "sim",
                "--balance",
                "static",
                "--speeds",
                "4,1,1,4",
            ][..],
        ),
    ] {
        let out = out_dir(name);
        let mut args = vec!["--rank-backends", "scalar,rayon,rayon,scalar"];
        args.extend(extra);
        let done = yee_run(&out, &args);
        assert!(
            done.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&done.stderr)
        );
        let doc = run_json(&out);
        assert_eq!(doc["ranks"], 4, "{name}: the list sets the rank count");
        assert_eq!(doc["backend"], "per-rank");
        assert_eq!(
            doc["rank_backends"],
            serde_json::json!(["scalar", "rayon", "rayon", "scalar"])
        );
        for file in COMPARED {
            let (a, b) = (
                std::fs::read(one.join(file)).unwrap(),
                std::fs::read(out.join(file)).unwrap(),
            );
            assert!(a == b, "{name}: {file} differs from the one-rank run's");
        }
    }
    // A plain run records its one backend for every rank.
    assert_eq!(
        run_json(&one)["rank_backends"],
        serde_json::json!(["scalar"])
    );
}

#[test]
fn a_bad_list_is_refused_naming_the_entry_and_the_rank() {
    let out = out_dir("het_bad");
    let cases: [(&[&str], &str); 4] = [
        (
            &["--rank-backends", "scalar,gpu"],
            "entry 2 (rank 1) `gpu` is not a backend of this build",
        ),
        (
            &["--rank-backends", "scalar,rayon", "--ranks", "3"],
            "2 entries for 3 rank(s); give one backend per rank",
        ),
        (
            &["--rank-backends", "cuda,rayon,rayon"],
            // With the feature a cuda rank beside host ranks is built (apps/yee/tests/cuda.rs);
            // here, with no driver, it stops for the driver.
            if cfg!(feature = "cuda") {
                "no CUDA driver found (libcuda)"
            } else {
                "rank 0 is cuda beside host ranks, which needs a yee built with the `cuda`"
            },
        ),
        (
            &["--rank-backends", "scalar,rayon", "--backend", "rayon"],
            "cannot be used with",
        ),
    ];
    for (args, expected) in cases {
        let done = yee_run(&out, args);
        let stderr = String::from_utf8_lossy(&done.stderr);
        assert!(!done.status.success(), "{args:?} ran");
        assert!(stderr.contains(expected), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    }
}
