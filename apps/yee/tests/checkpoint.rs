//! Checkpoints and resume through `yee run`: a run cut at a checkpoint and resumed — on the
//! same layout, on more ranks, with dynamic balancing, from a signal — writes the fields,
//! probes, DFT sums and spectra of a run that was never stopped, bit for bit.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

fn yee() -> Command {
    Command::new(env!("CARGO_BIN_EXE_yee"))
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn out_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("checkpoint")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// `yee run scene --quiet --out out extra…`, which must succeed; returns run.json.
fn run(scene: &Path, out: &Path, extra: &[&str]) -> Value {
    let output = yee()
        .args(["run", scene.to_str().unwrap(), "--quiet", "--out"])
        .arg(out)
        .args(extra)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "yee run {} {extra:?} failed: {}",
        scene.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    report(out)
}

fn report(out: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(out.join("run.json")).unwrap()).unwrap()
}

/// Every `.npy`, probe and flux `.csv` of `expected` (at least three) is in `actual` with the
/// same bytes, and the spectra in run.json are equal.
fn assert_same_outputs(expected: &Path, actual: &Path) {
    assert_same_files(expected, actual, 3);
}

fn assert_same_files(expected: &Path, actual: &Path, at_least: usize) {
    let mut compared = 0;
    for entry in std::fs::read_dir(expected).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_str().unwrap().to_string();
        if !(name.ends_with(".npy") || name.starts_with("probe_") || name.starts_with("flux_")) {
            continue;
        }
        let theirs = std::fs::read(actual.join(&name))
            .unwrap_or_else(|e| panic!("{} has no {name}: {e}", actual.display()));
        assert!(
            std::fs::read(&path).unwrap() == theirs,
            "{name} differs between {} and {}",
            expected.display(),
            actual.display()
        );
        compared += 1;
    }
    assert!(compared >= at_least, "only {compared} files compared");
    let (a, b) = (report(expected), report(actual));
    assert_eq!(a["fluxes"], b["fluxes"]);
    assert_eq!(a["dfts"], b["dfts"]);
}

/// The acceptance scene of the MPI tests: CPML on every face, a sphere and a lossy block, a
/// flux box (DFT sums) with a far field, two probes; 60 steps.
fn mpi3d() -> PathBuf {
    repo().join("apps/yee/tests/scenes/mpi3d.toml")
}

#[test]
fn a_run_cut_at_a_checkpoint_resumes_bit_for_bit_on_any_layout() {
    let scene = mpi3d();
    let straight = out_dir("straight");
    run(&scene, &straight, &["--backend", "scalar"]);

    // Checkpoints at steps 25 and 50; the newest (50) is kept. Cutting the run there changes
    // nothing.
    let cut = out_dir("cut");
    let r = run(
        &scene,
        &cut,
        &["--backend", "scalar", "--checkpoint-every", "25"],
    );
    assert_eq!(r["status"], "complete");
    let steps: Vec<u64> = r["checkpoints"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["step"].as_u64().unwrap())
        .collect();
    assert_eq!(steps, [25, 50]);
    assert!(
        cut.join("checkpoint/step-0000000050/checkpoint.json")
            .is_file()
    );
    assert!(!cut.join("checkpoint/step-0000000025").exists());
    assert_same_outputs(&straight, &cut);

    // Resumed from step 50: on one rank, on 3, on 4 (a layout the checkpoint was not written
    // with), on the rayon backend.
    for (name, extra) in [
        ("one", vec!["--backend", "scalar"]),
        ("three", vec!["--backend", "scalar", "--ranks", "3"]),
        ("four_rayon", vec!["--ranks", "4", "--topology", "2x2x1"]),
    ] {
        let out = out_dir(name);
        let mut args = vec!["--resume", cut.to_str().unwrap()];
        args.extend(extra);
        let r = run(&scene, &out, &args);
        assert_eq!(r["status"], "complete", "{name}");
        assert_eq!(r["resumed_from"]["step"], 50, "{name}");
        assert_eq!(r["steps_completed"], 60, "{name}");
        assert_same_outputs(&straight, &out);
    }
}

#[test]
fn a_checkpoint_of_many_ranks_resumes_on_fewer_with_dynamic_balancing() {
    let scene = mpi3d();
    let straight = out_dir("balanced_straight");
    run(&scene, &straight, &["--backend", "scalar"]);
    let balanced = [
        "--ranks",
        "4",
        "--comm",
        "sim",
        "--balance",
        "dynamic",
        "--rebalance-every",
        "10",
    ];
    let cut = out_dir("balanced_cut");
    let mut args = balanced.to_vec();
    args.extend(["--checkpoint-every", "30"]);
    run(&scene, &cut, &args);
    let index: Value = serde_json::from_str(
        &std::fs::read_to_string(cut.join("checkpoint/step-0000000030/checkpoint.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(index["ranks"].as_array().unwrap().len(), 4);
    assert!(
        index["balancer"].is_object(),
        "the balancer's state is kept"
    );

    // The same layout picks up the saved borders and balancer; two ranks start afresh.
    for (name, ranks) in [("balanced_four", "4"), ("balanced_two", "2")] {
        let out = out_dir(name);
        let mut args = balanced.to_vec();
        args[1] = ranks;
        args.extend(["--resume", cut.to_str().unwrap()]);
        run(&scene, &out, &args);
        assert_same_outputs(&straight, &out);
    }
}

#[test]
fn a_plane_wave_and_its_dft_resume_bit_for_bit() {
    // The incident line is replayed to the checkpoint's step; the DFT sums are restored.
    let scene = repo().join("apps/yee/tests/scenes/dft_plane_wave.toml");
    let straight = out_dir("wave_straight");
    run(
        &scene,
        &straight,
        &["--steps", "300", "--backend", "scalar"],
    );
    let cut = out_dir("wave_cut");
    run(
        &scene,
        &cut,
        &[
            "--steps",
            "300",
            "--backend",
            "scalar",
            "--checkpoint-every",
            "170",
        ],
    );
    let resumed = out_dir("wave_resumed");
    run(
        &scene,
        &resumed,
        &[
            "--steps",
            "300",
            "--ranks",
            "3",
            "--resume",
            cut.to_str().unwrap(),
        ],
    );
    // The scene's one output: the DFT of every node of the line.
    assert_same_files(&straight, &resumed, 1);
}

#[test]
fn dispersive_media_resume_bit_for_bit() {
    // Drude, Lorentz and Debye polarisations travel in the rank files with their cells.
    let scene = repo().join("examples/scenes/dispersive1d.toml");
    let straight = out_dir("poles_straight");
    run(
        &scene,
        &straight,
        &["--steps", "400", "--backend", "scalar"],
    );
    let cut = out_dir("poles_cut");
    run(
        &scene,
        &cut,
        &[
            "--steps",
            "400",
            "--ranks",
            "2",
            "--checkpoint-every",
            "250",
        ],
    );
    let resumed = out_dir("poles_resumed");
    run(
        &scene,
        &resumed,
        &[
            "--steps",
            "400",
            "--ranks",
            "3",
            "--resume",
            cut.to_str().unwrap(),
        ],
    );
    assert_same_files(&straight, &resumed, 2);
}

#[test]
fn a_damaged_or_foreign_checkpoint_is_refused_with_the_reason() {
    let scene = mpi3d();
    let cut = out_dir("damaged");
    run(
        &scene,
        &cut,
        &["--backend", "scalar", "--checkpoint-every", "40"],
    );
    let rank_file = cut.join("checkpoint/step-0000000040/rank-00000.bin");
    let mut bytes = std::fs::read(&rank_file).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0x55;
    std::fs::write(&rank_file, &bytes).unwrap();
    let out = out_dir("damaged_resumed");
    let output = yee()
        .args(["run", scene.to_str().unwrap(), "--quiet", "--resume"])
        .arg(&cut)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success());
    assert!(
        stderr.contains("CRC-32") && stderr.contains("rank-00000.bin"),
        "{stderr}"
    );

    let other = repo().join("apps/yee/tests/scenes/dft_plane_wave.toml");
    let output = yee()
        .args(["run", other.to_str().unwrap(), "--quiet", "--resume"])
        .arg(&cut)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success());
    assert!(stderr.contains("SHA-256"), "{stderr}");

    let empty = out_dir("no_checkpoint");
    std::fs::create_dir_all(&empty).unwrap();
    let output = yee()
        .args(["run", scene.to_str().unwrap(), "--quiet", "--resume"])
        .arg(&empty)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("no complete checkpoint"), "{stderr}");
}

#[cfg(unix)]
#[test]
fn sigterm_leaves_a_checkpoint_and_an_interrupted_run_json_that_resumes() {
    let scene = mpi3d();
    let out = out_dir("signalled");
    // Far more steps than the test waits for.
    let child = yee()
        .args(["run", scene.to_str().unwrap(), "--quiet", "--ranks", "2"])
        .args([
            "--backend",
            "scalar",
            "--steps",
            "100000000",
            "--checkpoint-every",
            "40",
        ])
        .arg("--out")
        .arg(&out)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Once the run steps (its first checkpoint is there), its signal handlers are in place.
    yee_tests::wait_for_checkpoint(&out);
    let status = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let started = Instant::now();
    let output = child.wait_with_output().unwrap();
    assert!(started.elapsed() < Duration::from_secs(60));
    assert_eq!(
        output.status.code(),
        Some(130),
        "exit status of an interrupted run"
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("--resume"), "{stderr}");
    let r = report(&out);
    assert_eq!(r["status"], "interrupted");
    let step = r["steps_completed"].as_u64().unwrap();
    assert!(step > 0 && step < 100000000);
    assert_eq!(
        r["checkpoints"].as_array().unwrap().last().unwrap()["step"],
        step
    );
    assert!(
        out.join(format!("checkpoint/step-{step:010}/checkpoint.json"))
            .is_file()
    );
    // Probes up to the interruption are written.
    assert!(out.join("probe_near.csv").is_file());

    // Resumed (into the same folder) to 40 steps past the interruption, it ends where a
    // straight run of that length does.
    let total = (step + 40).to_string();
    let straight = out_dir("signalled_straight");
    run(
        &scene,
        &straight,
        &["--backend", "scalar", "--steps", &total],
    );
    let r = run(
        &scene,
        &out,
        &["--steps", &total, "--resume", out.to_str().unwrap()],
    );
    assert_eq!(r["status"], "complete");
    assert_same_outputs(&straight, &out);
}

#[test]
fn a_checkpoint_that_cannot_be_written_is_reported_and_the_run_goes_on() {
    // A folder that cannot be made (a full disk fails the same way, at the write).
    let scene = mpi3d();
    let out = out_dir("unwritable");
    let r = run(
        &scene,
        &out,
        &[
            "--checkpoint-every",
            "20",
            "--checkpoint-dir",
            "/dev/null/checkpoints",
        ],
    );
    assert_eq!(r["status"], "complete");
    let checkpoints = r["checkpoints"].as_array().unwrap();
    assert_eq!(checkpoints.len(), 2);
    for c in checkpoints {
        let error = c["error"].as_str().unwrap_or_default();
        assert!(
            error.contains("/dev/null/checkpoints") && error.contains("rank 0"),
            "{error}"
        );
    }
}

#[test]
fn checkpoint_options_that_cannot_work_are_refused() {
    let scene = mpi3d();
    for (args, expected) in [
        (vec!["--checkpoint-every", "0"], "at least 1"),
        (vec!["--checkpoint-every", "ten"], "whole number of steps"),
        (vec!["--checkpoint-every=-3m"], "positive"),
        (
            vec!["--checkpoint-every", "10", "--partition", "rcdc"],
            "no checkpoints",
        ),
    ] {
        let output = yee()
            .args(["run", scene.to_str().unwrap(), "--quiet"])
            .args(&args)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!output.status.success(), "{args:?}");
        assert!(stderr.contains(expected), "{args:?}: {stderr}");
    }
}
