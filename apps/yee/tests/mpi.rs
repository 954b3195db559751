//! `mpirun -np N yee run`: the same fields bit for bit as one process, dynamic balancing across
//! processes, and start-up checks that end every rank with one message instead of a hang.
//! Needs the `mpi` feature and `mpirun` (Open MPI): `cargo test -p yee --features mpi --test mpi`.
#![cfg(feature = "mpi")]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use yee_tests::mpirun::{finish, mpirun};

use serde_json::Value;

fn scene() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scenes/mpi3d.toml")
}

/// mpi3d with `smoothing = "diagonal"`: the rule jagged and k-d layouts and tile sets fall
/// back to (the tile driver runs no tensor update), so that their runs and the one-process
/// run they are compared with agree.
fn diagonal_scene() -> PathBuf {
    yee_tests::diagonal_smoothing_copy(&scene(), Path::new(env!("CARGO_TARGET_TMPDIR")))
}

/// The scene a run with `extra` arguments reads: [`diagonal_scene`] on the tile driver.
fn scene_for(extra: &[&str]) -> PathBuf {
    match extra.contains(&"--layout") || extra.contains(&"--partition") {
        true => diagonal_scene(),
        false => scene(),
    }
}

fn out_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// The yee binary under test.
const YEE: &str = env!("CARGO_BIN_EXE_yee");

fn yee_run(command: &mut Command, out: &Path, extra: &[&str]) {
    command
        .args([
            "run",
            scene_for(extra).to_str().unwrap(),
            "--backend",
            "scalar",
            "--quiet",
            "--out",
        ])
        .arg(out)
        .args(extra);
}

fn succeed(out: Output) -> Output {
    assert!(
        out.status.success(),
        "the run failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// A one-process shared-memory run: the reference (in a directory of the test's own).
fn reference(test: &str) -> PathBuf {
    reference_on(test, &["--comm", "shm", "--ranks", "1"])
}

/// The one-process run of the scene the tile driver's runs read ([`scene_for`]).
fn tiled_reference(test: &str) -> PathBuf {
    reference_on(
        test,
        &["--comm", "shm", "--ranks", "1", "--layout", "tensor"],
    )
}

fn reference_on(test: &str, extra: &[&str]) -> PathBuf {
    let out = out_dir(&format!("mpi_reference_{test}"));
    let mut c = Command::new(YEE);
    yee_run(&mut c, &out, extra);
    succeed(finish(c));
    out
}

const OUTPUTS: [&str; 11] = [
    "ex_000060.npy",
    "ey_000060.npy",
    "ez_000060.npy",
    "hx_000060.npy",
    "hy_000060.npy",
    "hz_000060.npy",
    "probe_near.csv",
    "probe_far.csv",
    "flux_around.csv",
    "flux_around_dft.npy",
    "farfield_around.csv",
];

fn assert_same_outputs(reference: &Path, got: &Path, what: &str) {
    for file in OUTPUTS {
        let a = std::fs::read(reference.join(file)).unwrap();
        let b =
            std::fs::read(got.join(file)).unwrap_or_else(|e| panic!("{what}: {file} missing: {e}"));
        assert!(a == b, "{what}: {file} differs from the one-process run");
    }
}

fn report(out: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(out.join("run.json")).unwrap()).unwrap()
}

#[test]
fn one_two_and_four_processes_give_the_one_process_fields_bit_for_bit() {
    let reference = reference("np");
    // The fields are not trivially zero.
    let ez = std::fs::read(reference.join("ez_000060.npy")).unwrap();
    assert!(ez[128..].chunks_exact(8).any(|b| b != [0; 8]));
    for np in [1, 2, 4] {
        for overlap in [true, false] {
            let out = out_dir(&format!("mpi_np{np}_{overlap}"));
            let mut c = mpirun(np, YEE);
            let extra: &[&str] = if overlap { &[] } else { &["--no-overlap"] };
            yee_run(&mut c, &out, extra);
            succeed(finish(c));
            let what = format!("mpirun -np {np} (overlap {overlap})");
            assert_same_outputs(&reference, &out, &what);
            let doc = report(&out);
            assert_eq!(doc["comm"], "mpi", "{what}");
            assert_eq!(doc["ranks"], np, "{what}");
            assert_eq!(doc["rank_stats"].as_array().unwrap().len(), np, "{what}");
            assert_eq!(doc["overlap"], overlap, "{what}");
        }
    }
}

#[test]
fn dynamic_balancing_moves_borders_between_processes_and_keeps_the_fields() {
    let reference = reference("dynamic");
    let out = out_dir("mpi_dynamic");
    let mut c = mpirun(2, YEE);
    yee_run(
        &mut c,
        &out,
        &[
            "--balance",
            "dynamic",
            "--rebalance-every",
            "10",
            "--slowdown",
            "1=2",
        ],
    );
    succeed(finish(c));
    assert_same_outputs(&reference, &out, "dynamic balancing over 2 processes");
    let doc = report(&out);
    let balance = &doc["balance"];
    assert!(balance["rebalances"].as_u64().unwrap() >= 1, "{balance}");
    let x = |key: &str| balance[key][0].as_array().unwrap()[1].as_i64().unwrap();
    // Rank 1 sleeps 2 s per million cells: it must end with fewer cells than rank 0.
    assert!(
        x("final_borders") > x("initial_borders"),
        "the border should move toward the slow rank 1: {balance}"
    );
}

/// Jagged and k-d layouts and RCDC tile sets (issue 22) under mpirun: each process steps its
/// box or tiles through the tile driver, rank 0 gathers the tiles at output steps, and every
/// output is the one-process run's, also with k-d boxes rebalanced between the processes.
#[test]
fn box_layouts_and_tile_sets_under_mpirun_give_the_one_process_outputs() {
    let reference = tiled_reference("tiled");
    let cases: [(usize, &[&str]); 5] = [
        (2, &["--layout", "kd"]),
        (4, &["--layout", "kd", "--no-overlap"]),
        (4, &["--layout", "jagged"]),
        (3, &["--partition", "rcdc"]),
        (
            2,
            &[
                "--layout",
                "kd",
                "--balance",
                "dynamic",
                "--rebalance-every",
                "10",
                "--slowdown",
                "1=2",
            ],
        ),
    ];
    for (np, extra) in cases {
        let what = format!("mpirun -np {np} {}", extra.join(" "));
        let out = out_dir(&format!("mpi_tiled_{np}_{}", extra.join("_")));
        let mut c = mpirun(np, YEE);
        yee_run(&mut c, &out, extra);
        succeed(finish(c));
        assert_same_outputs(&reference, &out, &what);
        let doc = report(&out);
        assert_eq!(doc["comm"], "mpi", "{what}");
        assert_eq!(doc["rank_stats"].as_array().unwrap().len(), np, "{what}");
        if extra.contains(&"dynamic") {
            // Rank 1 sleeps 2 s per million cells: it ends with the smaller box, and the
            // measurements are saved.
            let boxes = &doc["balance"]["final_boxes"];
            let cells = |r: usize| -> i64 {
                let b = &boxes[r];
                (0..3)
                    .map(|k| b["hi"][k].as_i64().unwrap() - b["lo"][k].as_i64().unwrap())
                    .product()
            };
            assert!(cells(1) < cells(0), "{what}: {boxes}");
            assert!(out.join("profile.json").is_file(), "{what}");
        }
    }
}

/// `--rank-backends` under mpirun: each process steps on its own entry's backend, borders move
/// toward the fast one (cells migrate between a scalar and a rayon process), and the outputs
/// are the one-process run's.
#[test]
fn processes_on_different_backends_migrate_cells_and_keep_the_fields() {
    let reference = reference("rank_backends");
    let out = out_dir("mpi_rank_backends");
    let mut c = mpirun(2, YEE);
    c.args(["run", scene().to_str().unwrap(), "--quiet", "--out"])
        .arg(&out)
        .args(["--rank-backends", "scalar,rayon", "--balance", "dynamic"])
        .args(["--rebalance-every", "10", "--slowdown", "0=2"]);
    succeed(finish(c));
    assert_same_outputs(&reference, &out, "scalar and rayon processes");
    let doc = report(&out);
    assert_eq!(doc["rank_backends"], serde_json::json!(["scalar", "rayon"]));
    let balance = &doc["balance"];
    let x = |key: &str| balance[key][0].as_array().unwrap()[1].as_i64().unwrap();
    assert!(
        x("final_borders") < x("initial_borders"),
        "the border should move toward the slowed scalar rank 0: {balance}"
    );
}

fn two_scenes_dir() -> (PathBuf, PathBuf) {
    let dir = out_dir("mpi_mismatch_scenes");
    std::fs::create_dir_all(&dir).unwrap();
    let text = std::fs::read_to_string(scene()).unwrap();
    let a = dir.join("a.toml");
    let b = dir.join("b.toml");
    std::fs::write(&a, &text).unwrap();
    std::fs::write(&b, text.replace("steps = 60", "steps = 61")).unwrap();
    (a, b)
}

#[test]
fn a_rank_that_read_another_scene_stops_every_rank_with_one_message() {
    let (a, b) = two_scenes_dir();
    let out = out_dir("mpi_mismatch");
    let script = format!(
        "if [ \"$OMPI_COMM_WORLD_RANK\" = 1 ]; then s={}; else s={}; fi; exec {} run \"$s\" --quiet --backend scalar --out {}",
        b.display(),
        a.display(),
        env!("CARGO_BIN_EXE_yee"),
        out.display()
    );
    let mut c = mpirun(2, "sh");
    c.args(["-c", &script]);
    let got = finish(c);
    assert!(!got.status.success());
    let stderr = String::from_utf8_lossy(&got.stderr);
    let message = format!(
        "error: rank 1 read a different scene than rank 0 ({}: sha256",
        b.display()
    );
    assert_eq!(stderr.matches(&message).count(), 1, "{stderr}");
    assert!(
        stderr.contains(&format!("{}: sha256", a.display())),
        "{stderr}"
    );
    assert!(!out.join("run.json").exists());
}

/// Issue 49, case 10: ranks given different `--steps` or `--checkpoint-every` ran until the
/// watchdog ended the job (4 × YEE_MPI_TIMEOUT) blaming a halo wait. They agree on the run
/// options at start-up: one message naming each rank's values, nothing run, no lock left.
#[test]
fn ranks_started_with_different_run_options_stop_with_one_message_naming_each_value() {
    let out = out_dir("mpi_options_mismatch");
    let script = format!(
        "if [ \"$OMPI_COMM_WORLD_RANK\" = 1 ]; then x='--steps 50 --checkpoint-every 10'; \
         else x=''; fi; exec {} run {} --quiet --backend scalar --out {} $x",
        env!("CARGO_BIN_EXE_yee"),
        scene().display(),
        out.display()
    );
    let mut c = mpirun(2, "sh");
    c.args(["-c", &script]);
    let got = finish(c);
    assert!(!got.status.success());
    let stderr = String::from_utf8_lossy(&got.stderr);
    let message = "error: the processes were started with different run options (--steps: 60 \
                   on rank 0, 50 on rank 1; --checkpoint-every: (none) on rank 0, 10 on rank 1)";
    assert_eq!(stderr.matches(message).count(), 1, "{stderr}");
    assert_eq!(stderr.matches("error: ").count(), 1, "{stderr}");
    assert!(!out.join("run.json").exists());
    assert!(
        !out.join(".yee.lock").exists(),
        "rank 0 let go of the folder"
    );
}

#[test]
fn a_rank_count_the_grid_cannot_take_is_one_clear_error() {
    let dir = out_dir("mpi_tiny");
    std::fs::create_dir_all(&dir).unwrap();
    let tiny = dir.join("tiny.toml");
    std::fs::write(
        &tiny,
        "[grid]\nmode = \"1d\"\nsize = [2]\n[[sources]]\ncomponent = \"ez\"\nposition = [0]\nwaveform = \"ricker\"\nfrequency = 0.1\n[run]\nsteps = 3\n",
    )
    .unwrap();
    let mut c = mpirun(3, YEE);
    c.args(["run", tiny.to_str().unwrap(), "--quiet", "--out"])
        .arg(dir.join("out"));
    let got = finish(c);
    assert!(!got.status.success());
    let stderr = String::from_utf8_lossy(&got.stderr);
    assert_eq!(stderr.matches("error: ").count(), 1, "{stderr}");
    assert!(stderr.contains("--ranks 3"), "{stderr}");
}

/// `yee mpi-calibrate` of a 64 × 48 × 32 grid at 100 Mcells/s on `np` processes.
fn calibrate(np: usize, extra: &[&str]) -> Command {
    let mut c = mpirun(np, YEE);
    c.args([
        "mpi-calibrate",
        "--grid",
        "64x48x32",
        "--mcells-per-s",
        "100",
    ])
    .args(extra);
    c
}

#[test]
fn mpi_calibrate_fits_the_link_and_applies_kim_and_park() {
    let out = succeed(finish(calibrate(2, &["--repeats", "5", "--json"])));
    let doc: Value = serde_json::from_slice(&out.stdout).expect("one JSON document, from rank 0");
    let f = |k: &str| doc[k].as_f64().unwrap();
    // Two ranks cut the longest axis (x): the shared face is 48 × 32 cells.
    assert_eq!(doc["topology"], serde_json::json!([2, 1, 1]));
    assert_eq!(f("gs_comm"), 48.0 * 32.0);
    assert_eq!(f("gs_comp"), 64.0 * 48.0 * 32.0 / 2.0);
    assert_eq!(f("r"), 32.0);
    assert!(f("bw_mpi") > 0.0 && f("bw_memcpy") > 0.0, "{doc}");
    // Eq. (6): R₀ = 1 + THP / GS_comm · T_mpi with T_mpi = 2 (2 · 4 · GS_comm / BW + LT).
    let t_mpi = 2.0 * (8.0 * f("gs_comm") / f("bw_mpi") + f("lt_mpi").max(0.0));
    let r0 = 1.0 + 100e6 / f("gs_comm") * t_mpi;
    assert!((f("r0") / r0 - 1.0).abs() < 1e-9, "{doc}");
    assert_eq!(f("upper_limit_mcells_per_s"), 200.0);
    assert!(f("predicted_overlap_mcells_per_s") <= 200.0);
    assert!(f("predicted_sequential_mcells_per_s") <= f("predicted_overlap_mcells_per_s"));
}

#[test]
fn mpi_calibrate_wants_two_processes() {
    let got = finish(calibrate(3, &[]));
    assert!(!got.status.success());
    let stderr = String::from_utf8_lossy(&got.stderr);
    assert_eq!(
        stderr.matches("run it under `mpirun -np 2`, not 3").count(),
        1,
        "{stderr}"
    );
}

#[test]
fn a_checkpoint_of_mpi_ranks_resumes_on_other_layouts_bit_for_bit() {
    let reference = reference("checkpoint");
    // Four processes, each writing its rank file; the checkpoint at step 30 is kept.
    let cut = out_dir("mpi_checkpoint_cut");
    let mut c = mpirun(4, YEE);
    yee_run(&mut c, &cut, &["--checkpoint-every", "30"]);
    succeed(finish(c));
    let index = cut.join("checkpoint/step-0000000030");
    for rank in 0..4 {
        assert!(index.join(format!("rank-{rank:05}.bin")).is_file());
    }
    // Resumed in one process with two shared-memory ranks, and under MPI on two processes.
    let shm = out_dir("mpi_checkpoint_shm");
    let mut c = Command::new(YEE);
    yee_run(
        &mut c,
        &shm,
        &[
            "--comm",
            "shm",
            "--ranks",
            "2",
            "--resume",
            cut.to_str().unwrap(),
        ],
    );
    succeed(finish(c));
    assert_same_outputs(&reference, &shm, "4 MPI ranks resumed on 2 shm ranks");
    let mpi = out_dir("mpi_checkpoint_mpi2");
    let mut c = mpirun(2, YEE);
    yee_run(&mut c, &mpi, &["--resume", cut.to_str().unwrap()]);
    succeed(finish(c));
    assert_same_outputs(&reference, &mpi, "4 MPI ranks resumed on 2 MPI ranks");
}

/// Checkpoints of k-d layouts and RCDC tile sets written by MPI processes (each its rank file
/// of boxes or tiles) resume under mpirun on another layout and in one process, bit for bit.
#[test]
fn box_layout_and_tile_set_checkpoints_under_mpirun_resume_bit_for_bit() {
    let reference = tiled_reference("owned_checkpoint");
    let cases: [(usize, &[&str], usize, &[&str]); 2] = [
        (3, &["--layout", "kd"], 2, &["--layout", "kd"]),
        (3, &["--partition", "rcdc"], 2, &["--partition", "rcdc"]),
    ];
    for (np, layout, resume_np, resume_layout) in cases {
        let what = format!("mpirun -np {np} {}", layout.join(" "));
        let cut = out_dir(&format!("mpi_owned_cut_{}", layout.join("_")));
        let mut c = mpirun(np, YEE);
        let mut args = layout.to_vec();
        args.extend(["--checkpoint-every", "30"]);
        yee_run(&mut c, &cut, &args);
        succeed(finish(c));
        let index = cut.join("checkpoint/step-0000000030");
        for rank in 0..np {
            assert!(
                index.join(format!("rank-{rank:05}.bin")).is_file(),
                "{what}"
            );
        }
        let resumed = out_dir(&format!("mpi_owned_resumed_{}", layout.join("_")));
        let mut c = mpirun(resume_np, YEE);
        let mut args = resume_layout.to_vec();
        args.extend(["--resume", cut.to_str().unwrap()]);
        yee_run(&mut c, &resumed, &args);
        succeed(finish(c));
        assert_same_outputs(
            &reference,
            &resumed,
            &format!(
                "{what} resumed on mpirun -np {resume_np} {}",
                resume_layout.join(" ")
            ),
        );
        let one = out_dir(&format!("mpi_owned_one_{}", layout.join("_")));
        let mut c = Command::new(YEE);
        yee_run(
            &mut c,
            &one,
            &[
                "--comm",
                "shm",
                "--ranks",
                "1",
                "--layout",
                "tensor",
                "--resume",
                cut.to_str().unwrap(),
            ],
        );
        succeed(finish(c));
        assert_same_outputs(&reference, &one, &format!("{what} resumed in one process"));
        // The processes read the rank files (a run that started over would match too): a
        // damaged one stops the resume with its name.
        let rank_file = index.join("rank-00001.bin");
        let mut bytes = std::fs::read(&rank_file).unwrap();
        let last = bytes.len() - 1;
        bytes[last] ^= 0x55;
        std::fs::write(&rank_file, &bytes).unwrap();
        let damaged = out_dir(&format!("mpi_owned_damaged_{}", layout.join("_")));
        let mut c = mpirun(resume_np, YEE);
        let mut args = resume_layout.to_vec();
        args.extend(["--resume", cut.to_str().unwrap()]);
        yee_run(&mut c, &damaged, &args);
        let output = finish(c);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            !output.status.success(),
            "{what}: a damaged rank file resumed"
        );
        assert!(
            stderr.contains("CRC-32") && stderr.contains("rank-00001.bin"),
            "{what}: {stderr}"
        );
    }
}

#[test]
fn sigusr1_to_mpirun_leaves_every_ranks_checkpoint_and_resumes() {
    let out = out_dir("mpi_signalled");
    // Open MPI forwards SIGUSR1 to every process at once (SIGTERM only after
    // `odls_base_sigkill_timeout` seconds, with SIGKILL as long again after it).
    let mut c = mpirun(2, YEE);
    yee_run(
        &mut c,
        &out,
        &["--steps", "100000000", "--checkpoint-every", "40"],
    );
    let mut child = c
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Once the run steps (its first checkpoint is there), its signal handlers are in place.
    yee_tests::wait_for_checkpoint(&out, &mut child);
    assert!(
        Command::new("kill")
            .args(["-USR1", &child.id().to_string()])
            .status()
            .unwrap()
            .success()
    );
    let started = std::time::Instant::now();
    let output = child.wait_with_output().unwrap();
    assert!(started.elapsed() < std::time::Duration::from_secs(60));
    let report: Value = serde_json::from_str(
        &std::fs::read_to_string(out.join("run.json")).unwrap_or_else(|e| {
            panic!(
                "no run.json: {e}; {}",
                String::from_utf8_lossy(&output.stderr)
            )
        }),
    )
    .unwrap();
    assert_eq!(report["status"], "interrupted");
    let step = report["steps_completed"].as_u64().unwrap();
    let folder = out.join(format!("checkpoint/step-{step:010}"));
    assert!(folder.join("rank-00000.bin").is_file() && folder.join("rank-00001.bin").is_file());
    // Resumed in one process to 40 steps past the interruption: the bits of one process
    // that ran those steps without a stop.
    let total = (step + 40).to_string();
    let reference = out_dir("mpi_signalled_reference");
    let mut c = Command::new(YEE);
    yee_run(&mut c, &reference, &["--comm", "shm", "--steps", &total]);
    succeed(finish(c));
    let mut c = Command::new(YEE);
    yee_run(
        &mut c,
        &out,
        &[
            "--comm",
            "shm",
            "--steps",
            &total,
            "--resume",
            out.to_str().unwrap(),
        ],
    );
    succeed(finish(c));
    let snapshot = format!("ez_{total:0>6}.npy");
    for file in OUTPUTS[6..].iter().copied().chain([snapshot.as_str()]) {
        let a = std::fs::read(reference.join(file)).unwrap();
        let b = std::fs::read(out.join(file)).unwrap_or_else(|e| panic!("{file} missing: {e}"));
        assert!(
            a == b,
            "{file} of the resumed MPI run differs from one process's"
        );
    }
}

/// Under mpirun the scene's warnings (apps/scene/src/warnings.rs) are printed once, by rank 0,
/// before the first step, as `yee run` prints them in one process (`scene_warnings::` in the
/// `it` binary): here a probe in the CPML of mpi3d.
#[test]
fn rank_0_prints_the_scene_warnings_once() {
    let text = std::fs::read_to_string(scene()).unwrap();
    let dir = out_dir("mpi_warnings");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("warned.toml");
    let probe = "\n[[probes]]\nname = \"in_layer\"\ncomponent = \"ez\"\nposition = [1, 1, 1]\n";
    std::fs::write(&file, text.replace("\n[run]", &format!("{probe}\n[run]"))).unwrap();
    let mut c = mpirun(2, YEE);
    c.args(["run", "--backend", "scalar", "--steps", "2", "--out"])
        .arg(dir.join("out"))
        .arg(&file);
    let out = succeed(finish(c));
    let stderr = String::from_utf8_lossy(&out.stderr);
    let warned = stderr
        .lines()
        .filter(|l| l.starts_with("warning: probes[") && l.contains("(in_layer) records cell"))
        .count();
    assert_eq!(warned, 1, "{stderr}");
}
