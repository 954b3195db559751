//! Checkpoints and resume through `yee run`: a run cut at a checkpoint and resumed — on the
//! same layout, on more ranks, with dynamic balancing, from a signal — writes the fields,
//! probes, DFT sums and spectra of a run that was never stopped, bit for bit.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;
use yee::run::RunOptions;
use yee_comm_sim::MachineModel;
use yee_core::Topology;
use yee_runtime::balance::{BalanceMode, BalanceOptions, LayoutKind};
use yee_runtime::parallel::CommKind;

fn yee() -> Command {
    Command::new(env!("CARGO_BIN_EXE_yee"))
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn out_dir(name: &str) -> PathBuf {
    let dir = crate::tmp_dir(module_path!()).join(name);
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

/// `yee run scene --quiet --resume from --out out`, which must fail; returns what it said.
fn refused_resume(scene: &Path, from: &Path, out: &Path) -> String {
    let output = yee()
        .args(["run", scene.to_str().unwrap(), "--quiet", "--resume"])
        .arg(from)
        .arg("--out")
        .arg(out)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(
        !output.status.success(),
        "resumed from {}: {stderr}",
        from.display()
    );
    stderr
}

/// The acceptance scene of the MPI tests: CPML on every face, a sphere and a lossy block, a
/// flux box (DFT sums) with a far field, two probes; 60 steps.
fn mpi3d() -> PathBuf {
    repo().join("apps/yee/tests/scenes/mpi3d.toml")
}

/// mpi3d with `smoothing = "diagonal"`: the rule jagged and k-d layouts fall back to (they run
/// no tensor update), so that their runs and the one-rank run they are compared with agree.
fn mpi3d_diagonal() -> PathBuf {
    yee_tests::diagonal_smoothing_copy(&mpi3d(), &crate::tmp_dir(module_path!()))
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
    let stderr = refused_resume(&scene, &cut, &out_dir("damaged_resumed"));
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
    sigterm_then_resume("signalled", &["--ranks", "2"], false);
}

#[cfg(unix)]
#[test]
fn sigterm_stops_a_kd_layout_at_a_checkpoint_that_resumes() {
    sigterm_then_resume("signalled_kd", &["--ranks", "3", "--layout", "kd"], false);
}

/// Issue 49, case 10: with `--checkpoint-dir` elsewhere the hint named `--resume OUT`, which
/// finds no checkpoint; it names the checkpoint folder used, and the command it gives resumes.
#[cfg(unix)]
#[test]
fn the_resume_hint_names_a_checkpoint_folder_outside_the_output_folder() {
    sigterm_then_resume("signalled_elsewhere", &["--ranks", "2"], true);
}

/// A run of mpi3d on `layout` (extra arguments; its checkpoints in a folder of their own
/// where `elsewhere`) signalled with SIGTERM stops at a checkpoint with an interrupted
/// run.json and exit status 130; resumed into the same folder on the same layout by the
/// command its hint gives, it ends where a straight run does.
#[cfg(unix)]
fn sigterm_then_resume(name: &str, layout: &[&str], elsewhere: bool) {
    let scene = match layout.contains(&"--layout") {
        true => mpi3d_diagonal(),
        false => mpi3d(),
    };
    let out = out_dir(name);
    // `--checkpoint-dir BASE/checkpoint`, so that the wait below finds it in BASE.
    let base = match elsewhere {
        true => out_dir(&format!("{name}_checkpoints")),
        false => out.clone(),
    };
    let checkpoints = base.join("checkpoint");
    let mut elsewhere_args = Vec::new();
    if elsewhere {
        elsewhere_args = vec!["--checkpoint-dir".to_string(), path_text(&checkpoints)];
    }
    // Far more steps than the test waits for.
    let mut child = yee()
        .args(["run", scene.to_str().unwrap(), "--quiet"])
        .args(layout)
        .args(&elsewhere_args)
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
    yee_tests::wait_for_checkpoint(&base, &mut child);
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
        checkpoints
            .join(format!("step-{step:010}/checkpoint.json"))
            .is_file()
    );
    // Probes up to the interruption are written.
    assert!(out.join("probe_near.csv").is_file());
    // The hint names the folder the checkpoint is in.
    let error = r["error"].as_str().unwrap();
    let hint = error
        .split_once("`yee run ")
        .and_then(|(_, rest)| rest.split_once('`'))
        .map(|(command, _)| command)
        .unwrap_or_else(|| panic!("no command in {error:?}"));
    let expected = match elsewhere {
        true => format!(
            "--resume {0} --out {1} --checkpoint-dir {0}",
            path_text(&checkpoints),
            path_text(&out)
        ),
        false => format!("--resume {}", path_text(&out)),
    };
    assert!(hint.ends_with(&expected), "{hint:?}");

    // Resumed by that command (into the same folder) to 40 steps past the interruption, it
    // ends where a straight run of that length does.
    let total = (step + 40).to_string();
    let straight = out_dir(&format!("{name}_straight"));
    run(
        &scene,
        &straight,
        &["--backend", "scalar", "--steps", &total],
    );
    let mut args: Vec<&str> = hint.split(' ').collect();
    if !elsewhere {
        args.extend(["--out", out.to_str().unwrap()]);
    }
    let output = yee()
        .arg("run")
        .args(&args)
        .args(["--quiet", "--steps", &total])
        .args(layout)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{hint}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let r = report(&out);
    assert_eq!(r["status"], "complete");
    assert_same_outputs(&straight, &out);
}

fn path_text(path: &Path) -> String {
    path.to_str().unwrap().to_string()
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

/// The index of the checkpoint at `step` in `out`.
fn checkpoint_index(out: &Path, step: u64) -> Value {
    let path = out.join(format!("checkpoint/step-{step:010}/checkpoint.json"));
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

/// Runs `scene` with `extra` into a fresh folder `name`, resuming from `from`; its outputs
/// must be `straight`'s.
fn resume_same(scene: &Path, name: &str, from: &Path, extra: &[&str], straight: &Path) {
    let out = out_dir(name);
    let mut args = vec!["--resume", from.to_str().unwrap()];
    args.extend(extra);
    let r = run(scene, &out, &args);
    assert_eq!(r["status"], "complete", "{name}");
    assert!(r["resumed_from"]["step"].as_u64().unwrap() > 0, "{name}");
    assert_same_files(straight, &out, 3);
}

#[test]
fn box_layout_checkpoints_resume_bit_for_bit() {
    let scene = mpi3d_diagonal();
    let straight = out_dir("kd_straight");
    run(&scene, &straight, &["--backend", "scalar"]);

    // A k-d layout of 3 ranks cut at steps 25 and 50: each rank file holds its box.
    let kd = ["--backend", "scalar", "--ranks", "3", "--layout", "kd"];
    let cut = out_dir("kd_cut");
    let mut args = kd.to_vec();
    args.extend(["--checkpoint-every", "25"]);
    let r = run(&scene, &cut, &args);
    assert_eq!(r["checkpoints"].as_array().unwrap().len(), 2);
    assert_same_outputs(&straight, &cut);
    let index = checkpoint_index(&cut, 50);
    let ranks = index["ranks"].as_array().unwrap();
    assert_eq!(ranks.len(), 3);
    assert!(
        ranks
            .iter()
            .all(|r| r["boxes"].as_array().unwrap().len() == 1)
    );

    // k-d → k-d, and a tensor checkpoint of 2 ranks onto the k-d layout.
    resume_same(&scene, "kd_to_kd", &cut, &kd, &straight);
    let tensor = out_dir("tensor_cut_for_kd");
    run(
        &scene,
        &tensor,
        &[
            "--backend",
            "scalar",
            "--ranks",
            "2",
            "--checkpoint-every",
            "30",
        ],
    );
    resume_same(&scene, "tensor_to_kd", &tensor, &kd, &straight);
}

#[test]
fn tile_set_checkpoints_resume_bit_for_bit() {
    // The masked bend: RCDC gives each of 4 ranks a set of 8×8 tiles.
    let scene = repo().join("examples/scenes/bend2d.toml");
    let steps = ["--steps", "300", "--backend", "scalar"];
    let straight = out_dir("rcdc_straight");
    run(&scene, &straight, &steps);
    let rcdc = [&steps[..], &["--ranks", "4", "--partition", "rcdc"]].concat();
    let cut = out_dir("rcdc_cut");
    let mut args = rcdc.clone();
    args.extend(["--checkpoint-every", "150"]);
    let r = run(&scene, &cut, &args);
    assert_eq!(r["checkpoints"][0]["step"], 150);
    assert_same_files(&straight, &cut, 3);
    // Each rank file holds the rank's tiles, one box each.
    let index = checkpoint_index(&cut, 150);
    for rank in index["ranks"].as_array().unwrap() {
        assert!(rank["boxes"].as_array().unwrap().len() > 1, "{rank}");
    }

    // rcdc → rcdc, onto one rank's tensor layout, and onto another tile set (3 ranks).
    resume_same(&scene, "rcdc_to_rcdc", &cut, &rcdc, &straight);
    resume_same(&scene, "rcdc_to_one", &cut, &steps, &straight);
    let three = [&steps[..], &["--ranks", "3", "--partition", "rcdc"]].concat();
    resume_same(&scene, "rcdc_to_three", &cut, &three, &straight);
    // The tiles with no active cell are in no rank file, and may not be; a lost rank file's
    // active cells are missed.
    let path = cut.join("checkpoint/step-0000000150/checkpoint.json");
    let mut lost = index.clone();
    lost["ranks"].as_array_mut().unwrap().remove(3);
    std::fs::write(&path, serde_json::to_string_pretty(&lost).unwrap()).unwrap();
    let stderr = refused_resume(&scene, &cut, &out_dir("rcdc_lost"));
    assert!(
        stderr.contains("active cells are in no rank file"),
        "{stderr}"
    );

    // Rebalanced tile sets on sim keep their tile owners and measurements in the checkpoint.
    let dynamic = [
        &rcdc[..],
        &[
            "--comm",
            "sim",
            "--balance",
            "dynamic",
            "--rebalance-every",
            "50",
        ],
    ]
    .concat();
    let cut = out_dir("rcdc_dynamic_cut");
    let mut args = dynamic.clone();
    args.extend(["--checkpoint-every", "150"]);
    run(&scene, &cut, &args);
    let index = checkpoint_index(&cut, 150);
    assert_eq!(index["owned_balancer"]["kind"], "tiles", "{index}");
    resume_same(&scene, "rcdc_dynamic_resumed", &cut, &dynamic, &straight);
}

#[test]
fn a_dynamic_jagged_layout_resumes_its_boxes_and_balancer() {
    // Four ranks on sim, rank 3 at a fifth of the others' speed: the boxes move at the
    // rebalances (every 8 steps), and the checkpoint at step 32 keeps them with everything the
    // balancer measured.
    let scene = yee_scene::load(&mpi3d_diagonal()).unwrap();
    let straight = out_dir("jagged_straight");
    run(&mpi3d_diagonal(), &straight, &["--backend", "scalar"]);
    let mut model = MachineModel::default_for(4);
    model.speeds[3] /= 5.0;
    let options = |out: &Path| RunOptions {
        backend: yee::run::Backend::Scalar,
        topology: Topology([2, 2, 1]),
        comm: CommKind::Sim,
        model: Some(model.clone()),
        balance: BalanceOptions {
            mode: BalanceMode::Dynamic,
            every: 8,
            layout: LayoutKind::Jagged,
            ..BalanceOptions::default()
        },
        ..RunOptions::new(out)
    };
    let cut = out_dir("jagged_cut");
    let mut with_checkpoints = options(&cut);
    with_checkpoints.checkpoint.every_steps = Some(32);
    yee::run::run(&scene, &with_checkpoints).unwrap();
    assert_same_outputs(&straight, &cut);
    let index = checkpoint_index(&cut, 32);
    let saved = &index["owned_balancer"];
    assert_eq!(saved["kind"], "jagged", "{index}");
    let initial = &report(&cut)["balance"]["boxes"];
    let saved_boxes: Vec<(&Value, &Value)> = saved["boxes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| (&b["lo"], &b["hi"]))
        .collect();
    let initial_boxes: Vec<(&Value, &Value)> = initial
        .as_array()
        .unwrap()
        .iter()
        .map(|b| (&b["lo"], &b["hi"]))
        .collect();
    assert_ne!(saved_boxes, initial_boxes, "the boxes had moved by step 32");

    let resumed = out_dir("jagged_resumed");
    let mut from = options(&resumed);
    from.resume = Some(yee_runtime::checkpoint::find(&cut).unwrap().unwrap());
    yee::run::run(&scene, &from).unwrap();
    assert_same_outputs(&straight, &resumed);
    // The resumed run takes the same decisions as the one that went on past the checkpoint
    // (rank 3 stays disabled) and ends on the same boxes. The virtual times differ in their
    // last digits: the simulated clocks start again at the cut.
    let after = |out: &Path| -> Vec<String> {
        std::fs::read_to_string(out.join("balance_history.csv"))
            .unwrap()
            .lines()
            .skip(1)
            .filter(|l| l.split(',').next().unwrap().parse::<u64>().unwrap() > 32)
            .map(|l| {
                let f: Vec<&str> = l.split(',').collect();
                [f[0], f[1], f[7], f[8], f[9]].join(",")
            })
            .collect()
    };
    assert_eq!(after(&cut).len(), 3);
    assert_eq!(after(&cut), after(&resumed));
    assert_eq!(
        report(&cut)["balance"]["final_boxes"],
        report(&resumed)["balance"]["final_boxes"]
    );
}

/// Issue 49, case 1: a checkpoint a rank cannot write (here a folder squats on rank 1's file
/// name; a full disk fails the same way) left its partial folder behind, filling the disk. The
/// writing rank now removes it once every rank is done, and run.json says so.
#[test]
fn a_failed_checkpoint_removes_its_partial_folder_and_says_so() {
    let scene = mpi3d();
    let out = out_dir("partial");
    let checkpoints = out_dir("partial_checkpoints");
    let part = checkpoints.join("step-0000000020.part");
    std::fs::create_dir_all(part.join("rank-00001.bin")).unwrap();
    // One checkpoint, at step 20: no later one clears the folder away.
    let r = run(
        &scene,
        &out,
        &[
            "--backend",
            "scalar",
            "--ranks",
            "2",
            "--steps",
            "30",
            "--checkpoint-every",
            "20",
            "--checkpoint-dir",
            checkpoints.to_str().unwrap(),
        ],
    );
    assert_eq!(r["status"], "complete");
    let recorded = r["checkpoints"].as_array().unwrap();
    assert_eq!(recorded.len(), 1);
    let error = recorded[0]["error"].as_str().unwrap_or_default();
    assert!(
        error.contains("rank 1") && error.contains("step-0000000020.part was removed"),
        "{error}"
    );
    assert!(!part.exists(), "{} is left", part.display());
    assert_eq!(std::fs::read_dir(&checkpoints).unwrap().count(), 0);
}

/// Issue 49, case 3: an index that lost a rank file, or lists one rank file twice, was
/// resumed (exit 0, `complete`, every output wrong). The rank files' boxes must tile the grid:
/// the resume is refused naming the missing or doubled cells.
#[test]
fn a_checkpoint_index_that_does_not_tile_the_grid_is_refused() {
    let scene = mpi3d();
    let cut = out_dir("untiled");
    run(
        &scene,
        &cut,
        &[
            "--backend",
            "scalar",
            "--ranks",
            "3",
            "--checkpoint-every",
            "40",
        ],
    );
    let path = cut.join("checkpoint/step-0000000040/checkpoint.json");
    let whole: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let resume = |index: &Value| {
        std::fs::write(&path, serde_json::to_string_pretty(index).unwrap()).unwrap();
        refused_resume(&scene, &cut, &out_dir("untiled_resumed"))
    };
    let held = |k: usize| {
        let b = &whole["ranks"][k];
        let cells: i64 = (0..3)
            .map(|a| b["hi"][a].as_i64().unwrap() - b["lo"][a].as_i64().unwrap())
            .product();
        cells
    };

    let mut lost = whole.clone();
    lost["ranks"].as_array_mut().unwrap().remove(2);
    let stderr = resume(&lost);
    let missing = format!("{} cells are in no rank file, among them x ", held(2));
    assert!(
        stderr.contains("do not tile") && stderr.contains(&missing),
        "{stderr}"
    );

    let mut doubled = whole.clone();
    doubled["ranks"][2] = whole["ranks"][1].clone();
    let stderr = resume(&doubled);
    let both = format!(
        "ranks[1] (rank-00001.bin) and ranks[2] (rank-00001.bin) both hold the {} cells x ",
        held(1)
    );
    assert!(stderr.contains(&both), "{stderr}");

    // The index as written resumes.
    std::fs::write(&path, serde_json::to_string_pretty(&whole).unwrap()).unwrap();
    let r = run(
        &scene,
        &out_dir("untiled_whole"),
        &["--resume", cut.to_str().unwrap()],
    );
    assert_eq!(r["status"], "complete");
}

#[test]
fn a_plain_rerun_over_an_interrupted_runs_checkpoint_is_refused() {
    let scene = mpi3d();
    let out = out_dir("rerun_over_interrupted");
    run(&scene, &out, &["--steps", "20", "--checkpoint-every", "10"]);
    // A complete run's checkpoints are stale: a plain rerun clears them.
    run(&scene, &out, &["--steps", "20", "--checkpoint-every", "10"]);
    // A run killed before its run.json (or one whose run.json says "interrupted").
    std::fs::remove_file(out.join("run.json")).unwrap();
    let refused = yee()
        .args(["run", scene.to_str().unwrap(), "--quiet", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(!refused.status.success(), "{stderr}");
    assert!(
        stderr.contains("holds the checkpoint of an interrupted run")
            && stderr.contains("step-0000000010")
            && stderr.contains("--resume")
            && stderr.contains("--fresh"),
        "{stderr}"
    );
    assert!(
        out.join("checkpoint/step-0000000010").is_dir(),
        "nothing deleted"
    );
    let report = run(&scene, &out, &["--steps", "20", "--fresh"]);
    assert_eq!(report["status"], "complete");
    assert!(!out.join("checkpoint/step-0000000010").exists());
}
