//! `--backend cuda` end to end on this machine. Built with the `cuda` feature and no CUDA
//! driver (CI, this machine), the run stops with "no CUDA driver found (libcuda)" and a
//! failing exit status, never a panic; with a driver present the test says it did not check
//! that. Built without the feature, the run says how to rebuild. `yee check` prints the
//! device memory the scene needs.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn scene() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/scenes/cavity3d.toml")
}

fn yee(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_yee"))
        .args(args)
        .output()
        .unwrap()
}

fn run_on_cuda(name: &str) -> Output {
    let out = crate::tmp_dir(module_path!()).join(name);
    let scene = scene();
    yee(&[
        "run",
        scene.to_str().unwrap(),
        "--quiet",
        "--steps",
        "2",
        "--backend",
        "cuda",
        "--out",
        out.to_str().unwrap(),
    ])
}

#[cfg(feature = "cuda")]
#[test]
fn without_a_driver_the_cuda_run_stops_with_an_error_not_a_panic() {
    if yee_cuda::device::driver_present() {
        eprintln!(
            "NOT CHECKED: libcuda is present on this machine, so the driverless error path \
             was not exercised"
        );
        return;
    }
    let output = run_on_cuda("cuda_no_driver");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "{stderr}");
    assert!(
        stderr.contains("no CUDA driver found (libcuda)"),
        "stderr: {stderr}"
    );
    assert!(!stderr.contains("panicked"), "stderr: {stderr}");
}

#[cfg(not(feature = "cuda"))]
#[test]
fn without_the_feature_the_cuda_run_says_how_to_rebuild() {
    let output = run_on_cuda("cuda_not_built");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "{stderr}");
    assert!(
        stderr.contains("built without the `cuda` feature") && stderr.contains("--features cuda"),
        "stderr: {stderr}"
    );
}

/// The line `yee check` prints: the total and each part, from the same function the
/// device chunk sizes its staging buffer with.
#[test]
fn check_prints_the_device_memory_the_scene_needs() {
    let scene = scene();
    let output = yee(&["check", scene.to_str().unwrap()]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let line = stdout
        .lines()
        .find(|l| l.starts_with("cuda "))
        .unwrap_or_else(|| panic!("no cuda line in:\n{stdout}"));
    assert!(line.contains("of device memory with one rank"), "{line}");
    for part in [
        "fields ",
        "ids ",
        "coefficients and stretch ",
        "ψ ",
        "staging ",
    ] {
        assert!(line.contains(part), "{part} missing: {line}");
    }
}
