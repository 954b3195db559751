//! Every malformed scene under tests/scenes/malformed/ fails with the message its first line
//! expects (`# expect: …`, the text after the file name), and `yee run` on it exits non-zero
//! without panicking or leaving a run.json.

use std::path::{Path, PathBuf};
use std::process::Command;

fn malformed() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/scenes/malformed");
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    files.sort();
    files
}

fn expectation(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap();
    let first = text.lines().next().unwrap();
    first
        .strip_prefix("# expect: ")
        .unwrap_or_else(|| panic!("{} has no expectation", path.display()))
        .to_string()
}

#[test]
fn each_malformed_scene_gives_its_message() {
    let files = malformed();
    assert!(
        files.len() >= 20,
        "at least 20 malformed scenes, found {}",
        files.len()
    );
    for path in files {
        let expected = format!("{}{}", path.display(), expectation(&path));
        let error =
            yee_scene::load(&path).expect_err(&format!("{} should be rejected", path.display()));
        assert_eq!(error.to_string(), expected);
    }
}

#[test]
fn running_a_malformed_scene_exits_non_zero_without_output() {
    for path in malformed().into_iter().step_by(5) {
        let out_dir = crate::tmp_dir(module_path!()).join("malformed_run");
        let _ = std::fs::remove_dir_all(&out_dir);
        let out = Command::new(env!("CARGO_BIN_EXE_yee"))
            .arg("run")
            .arg(&path)
            .arg("--out")
            .arg(&out_dir)
            .output()
            .unwrap();
        assert!(!out.status.success(), "{}", path.display());
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.starts_with("error: "), "{stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
        assert!(!out_dir.join("run.json").exists());
    }
}

/// A grid no machine holds (20000³ cells, about 480 TB) stops before anything is allocated,
/// with the bytes needed and available and what to change; `yee check` warns the same.
#[test]
fn a_grid_too_big_for_memory_stops_before_allocating() {
    let dir = crate::tmp_dir(module_path!()).join("too_big");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let scene = dir.join("too_big.toml");
    std::fs::write(
        &scene,
        "[grid]\nmode = \"3d\"\nsize = [20000, 20000, 20000]\n\n[run]\nsteps = 1\n",
    )
    .unwrap();
    let out_dir = dir.join("out");
    let out = Command::new(env!("CARGO_BIN_EXE_yee"))
        .arg("run")
        .arg(&scene)
        .arg("--out")
        .arg(&out_dir)
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    for expected in [
        "error: ",
        "the grid 20000 × 20000 × 20000",
        "needs about",
        "is available",
        "mpirun -np N",
        "f32",
    ] {
        assert!(
            stderr.contains(expected),
            "`{expected}` missing in: {stderr}"
        );
    }
    assert!(
        !stderr.contains("panicked") && !stderr.contains("memory allocation"),
        "{stderr}"
    );
    assert!(!out_dir.join("run.json").exists());
    let check = Command::new(env!("CARGO_BIN_EXE_yee"))
        .arg("check")
        .arg(&scene)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&check.stdout);
    assert!(
        stdout.contains("warning: ") && stdout.contains("needs about"),
        "{stdout}"
    );
}

/// A scene asking for HDF5 snapshots, given to a yee built without the `hdf5` feature: `yee
/// check` and `yee run` refuse it, saying how to build one that writes it, and nothing runs.
#[cfg(not(feature = "hdf5"))]
#[test]
fn hdf5_snapshots_without_the_feature_are_refused_before_the_run() {
    let dir = crate::tmp_dir(module_path!()).join("no_hdf5");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let scene = dir.join("h5.toml");
    std::fs::write(
        &scene,
        "[grid]\nmode = \"1d\"\nsize = [20]\n\n[output.snapshots]\ncomponents = [\"ez\"]\n\
         formats = [\"npy\", \"hdf5\"]\n\n[run]\nsteps = 2\n",
    )
    .unwrap();
    let out_dir = dir.join("out");
    for args in [
        vec!["check"],
        vec!["run", "--out", out_dir.to_str().unwrap()],
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_yee"))
            .args(&args[..1])
            .arg(&scene)
            .args(&args[1..])
            .output()
            .unwrap();
        assert!(!out.status.success(), "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.starts_with("error: ")
                && stderr.contains("without the `hdf5` feature")
                && stderr.contains("cargo build --release -p yee --features hdf5"),
            "{args:?}: {stderr}"
        );
    }
    assert!(!out_dir.join("run.json").exists() && !out_dir.join("ez_000002.npy").exists());
}
