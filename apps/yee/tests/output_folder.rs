//! The output folder is the user's (issue 49): a write that fails at the end of a run is
//! recorded and the run goes on to write the rest and run.json; a scene's name cannot lead its
//! outputs out of `out/`; the clean-up of an earlier run deletes nothing outside the folder;
//! an output folder that cannot be written is refused before the run; a folder another run
//! writes into is refused, naming the process that holds its lock.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

fn yee() -> Command {
    Command::new(env!("CARGO_BIN_EXE_yee"))
}

fn mpi3d() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scenes/mpi3d.toml")
}

fn fresh(name: &str) -> PathBuf {
    let dir = crate::tmp_dir(module_path!()).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `yee run mpi3d --quiet --backend scalar --out out extra…`.
fn run_into(out: &Path, extra: &[&str]) -> Output {
    yee()
        .args([
            "run",
            mpi3d().to_str().unwrap(),
            "--quiet",
            "--backend",
            "scalar",
        ])
        .arg("--out")
        .arg(out)
        .args(extra)
        .output()
        .unwrap()
}

fn report(out: &Path) -> Value {
    let text = std::fs::read_to_string(out.join("run.json"))
        .unwrap_or_else(|e| panic!("{} has no run.json: {e}", out.display()));
    serde_json::from_str(&text).unwrap()
}

fn listed(r: &Value, key: &str) -> Vec<String> {
    r[key]
        .as_array()
        .unwrap_or_else(|| panic!("no {key} in {r}"))
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect()
}

/// Issue 49, case 2: a folder squatting on the probe CSV's temporary name (a full disk or a
/// name the file system refuses fails the same way) ended the run at "cannot write
/// probe_near.csv" with no run.json, flux, DFT or fields.pvd. Every failure is now recorded,
/// every other output written, then run.json (`failed`, the reason, the files written whole).
#[test]
fn write_failures_at_the_end_are_recorded_and_the_other_outputs_written() {
    let out = fresh("squatted");
    std::fs::create_dir_all(out.join(".probe_near.csv.part")).unwrap();
    std::fs::create_dir_all(out.join(".flux_around_dft.npy.part")).unwrap();
    let output = run_into(&out, &[]);
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("probe_near.csv"), "{stderr}");
    let r = report(&out);
    assert_eq!(r["status"], "failed");
    let error = r["error"].as_str().unwrap();
    assert!(error.contains("probe_near.csv"), "{error}");
    let errors = listed(&r, "output_errors");
    assert_eq!(errors.len(), 2, "{errors:?}");
    assert!(errors[0].contains(".probe_near.csv.part") || errors[0].contains("probe_near.csv"));
    assert!(errors[1].contains("flux_around_dft.npy"), "{errors:?}");
    let outputs = listed(&r, "outputs");
    for written in [
        "probe_near.png",
        "probe_far.csv",
        "probe_far.png",
        "flux_around.csv",
        "flux_around.png",
        "farfield_around.csv",
        "ez_000060.npy",
    ] {
        assert!(
            outputs.iter().any(|f| f == written),
            "{written}: {outputs:?}"
        );
        assert!(out.join(written).is_file(), "{written}");
    }
    for missing in ["probe_near.csv", "flux_around_dft.npy"] {
        assert!(
            !outputs.iter().any(|f| f == missing),
            "{missing}: {outputs:?}"
        );
        assert!(!out.join(missing).exists(), "{missing}");
    }
    assert_eq!(r["fluxes"][0]["name"], "around");
    // run.json came whole through its own temporary name.
    assert!(!out.join(".run.json.part").exists());
}

/// Issue 49, case 7: `name = "../../x"` wrote (and cleaned up) outside `out/`. Such names are
/// refused naming the key, and nothing appears outside the working folder.
#[test]
fn a_scene_name_that_leaves_the_output_root_is_refused() {
    let root = fresh("names");
    let work = root.join("work");
    std::fs::create_dir_all(&work).unwrap();
    let text = std::fs::read_to_string(mpi3d()).unwrap();
    let absolute = root.join("absolute");
    for (file, name, why) in [
        ("up.toml", "../../x".to_string(), "holds `..`"),
        (
            "absolute.toml",
            absolute.display().to_string(),
            "path separator",
        ),
        ("long.toml", "n".repeat(201), "longer than 200 bytes"),
        ("empty.toml", String::new(), "is empty"),
    ] {
        let scene = work.join(file);
        let named = text.replacen("name = \"mpi3d\"", &format!("name = {name:?}"), 1);
        std::fs::write(&scene, named).unwrap();
        let output = yee()
            .current_dir(&work)
            .args(["run", scene.to_str().unwrap(), "--quiet", "--steps", "2"])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!output.status.success(), "{file}");
        assert!(
            stderr.contains(": name: ") && stderr.contains(why),
            "{file}: {stderr}"
        );
    }
    assert!(!root.join("x").exists());
    assert!(!absolute.exists());
    assert!(!work.join("out").exists());
}

/// Issue 49, case 7: the clean-up of an earlier run removes only what its run.json lists and
/// lies in the folder itself: not a path out of it, not what a link points to, and not the
/// checkpoints of a `checkpoint` folder that is a link elsewhere.
#[cfg(unix)]
#[test]
fn the_clean_up_deletes_nothing_outside_the_output_folder() {
    let root = fresh("clean_up");
    let out = root.join("out");
    let elsewhere = root.join("elsewhere");
    std::fs::create_dir_all(&out).unwrap();
    std::fs::create_dir_all(elsewhere.join("step-0000000010")).unwrap();
    std::fs::write(elsewhere.join("step-0000000010/checkpoint.json"), "{}").unwrap();
    for victim in ["up.txt", "absolute.txt", "linked.txt"] {
        std::fs::write(root.join(victim), "keep me").unwrap();
    }
    std::os::unix::fs::symlink(root.join("linked.txt"), out.join("link.npy")).unwrap();
    std::os::unix::fs::symlink(&elsewhere, out.join("checkpoint")).unwrap();
    std::fs::write(out.join("old.npy"), "an earlier run's").unwrap();
    let earlier = serde_json::json!({
        "status": "complete",
        "outputs": [
            "../up.txt",
            root.join("absolute.txt").to_str().unwrap(),
            "link.npy",
            "old.npy",
            "..",
            ".",
        ],
    });
    std::fs::write(out.join("run.json"), earlier.to_string()).unwrap();
    let output = run_into(&out, &["--steps", "2"]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    for victim in ["up.txt", "absolute.txt", "linked.txt"] {
        assert_eq!(
            std::fs::read_to_string(root.join(victim)).unwrap(),
            "keep me",
            "{victim}"
        );
    }
    assert!(elsewhere.join("step-0000000010/checkpoint.json").is_file());
    // What it listed inside the folder went: the file, and the link (not its target).
    assert!(!out.join("old.npy").exists());
    assert!(std::fs::symlink_metadata(out.join("link.npy")).is_err());
    assert_eq!(report(&out)["status"], "complete");
}

/// Issue 49, case 10 and build item 7: an output folder that cannot be written was found only
/// after the whole run; it is refused before the first step, as is one that is not a folder.
#[test]
fn an_output_folder_that_cannot_be_written_is_refused_before_the_run() {
    // The tests may run as root, whom a read-only mode does not stop: /proc/self is a folder
    // no one can make files in.
    let output = run_into(Path::new("/proc/self"), &["--steps", "600"]);
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("/proc/self") && stderr.contains("cannot write files in the output"),
        "{stderr}"
    );

    let root = fresh("not_a_folder");
    let file = root.join("plain.txt");
    std::fs::write(&file, "a file").unwrap();
    let output = run_into(&file, &["--steps", "600"]);
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("is not a directory"), "{stderr}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "a file");
}

/// Issue 49, case 8: two runs into one folder both ran and interleaved their outputs. A run
/// holds the folder's lock (`.yee.lock`, its PID and host) from before the clean-up to after
/// run.json: a second run is refused, naming the folder and the holder, and deletes nothing.
#[test]
fn a_second_run_into_a_folder_in_use_is_refused_naming_the_holder() {
    let out = fresh("in_use");
    assert!(run_into(&out, &["--steps", "20"]).status.success());
    let first = report(&out);
    assert!(!out.join(".yee.lock").exists(), "released at the end");
    let lock = yee_simulation::output_lock::OutputLock::take(&out).unwrap();
    let output = run_into(&out, &["--steps", "30"]);
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    let holder = format!(
        "error: {} is in use by another run: process {} on ",
        out.display(),
        std::process::id()
    );
    assert!(stderr.starts_with(&holder), "{stderr}");
    assert_eq!(report(&out), first, "the refused run deleted nothing");
    for file in listed(&first, "outputs") {
        assert!(out.join(&file).exists(), "{file}");
    }
    drop(lock);
    assert!(run_into(&out, &["--steps", "30"]).status.success());
    assert_eq!(report(&out)["steps_completed"], 30);
}

/// The lock of a run that was killed (SIGKILL: no clean-up) names a process that no longer
/// runs: the next run takes it over and says so; while the first still ran, a second run was
/// refused naming its PID.
#[test]
fn the_lock_of_a_killed_run_is_taken_over_by_the_next() {
    /// The long run, killed when the test ends however it ends.
    struct Killed(std::process::Child);
    impl Drop for Killed {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
    let out = fresh("killed");
    let mut first = Killed(
        yee()
            .args([
                "run",
                mpi3d().to_str().unwrap(),
                "--quiet",
                "--backend",
                "scalar",
            ])
            .args(["--steps", "10000000", "--out"])
            .arg(&out)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap(),
    );
    let pid = first.0.id();
    let lock = out.join(".yee.lock");
    let started = std::time::Instant::now();
    while !lock.exists() {
        assert!(started.elapsed().as_secs() < 60, "no lock after a minute");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let refused = run_into(&out, &["--steps", "20"]);
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(
        !refused.status.success() && stderr.contains(&format!("process {pid} on ")),
        "{stderr}"
    );
    first.0.kill().unwrap();
    first.0.wait().unwrap();
    assert!(lock.exists(), "SIGKILL leaves the lock");
    let output = yee()
        .args(["run", mpi3d().to_str().unwrap(), "--backend", "scalar"])
        .args(["--steps", "20", "--out"])
        .arg(&out)
        .env("RUST_LOG", "warn")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(
        stderr.contains(&format!("took over the lock of process {pid} on ")),
        "{stderr}"
    );
    assert_eq!(report(&out)["status"], "complete");
    assert!(!lock.exists());
}
