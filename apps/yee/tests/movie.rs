//! `yee run --movie`: ffprobe (an independent reader) finds one H.264 frame per slice PNG.
//! Without ffmpeg the movie test says so and passes, except under CI (`CI` set), where
//! `.ci/run` installs it; the refusal without ffmpeg is tested everywhere.

use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn out_dir(name: &str) -> PathBuf {
    let dir = crate::tmp_dir(module_path!()).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// `yee run examples/scenes/dipole2d.toml --movie` into `out`.
fn run_movie(out: &Path) -> Command {
    let scene = repo().join("examples/scenes/dipole2d.toml");
    let mut command = Command::new(env!("CARGO_BIN_EXE_yee"));
    command
        .args([
            "run",
            scene.to_str().unwrap(),
            "--quiet",
            "--movie",
            "--out",
        ])
        .arg(out);
    command
}

fn have_ffmpeg() -> bool {
    yee_tests::external::programs_run(&["ffmpeg", "ffprobe"], "apt-get install ffmpeg")
}

#[test]
fn each_slice_series_becomes_a_movie_with_a_frame_per_slice() {
    if !have_ffmpeg() {
        return;
    }
    let out = out_dir("dipole2d");
    let status = run_movie(&out).status().unwrap();
    assert!(status.success());
    let slices = std::fs::read_dir(&out)
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|f| f.starts_with("slice_ez_") && f.ends_with(".png"))
        .count();
    assert!(slices > 2, "{slices} slices");
    let probe = Command::new("ffprobe")
        .args(["-v", "error", "-count_frames", "-select_streams", "v:0"])
        .args(["-show_entries", "stream=nb_read_frames,codec_name"])
        .args(["-of", "csv=p=0"])
        .arg(out.join("slice_ez.mp4"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&probe.stdout);
    assert_eq!(text.trim(), format!("h264,{slices}"));
    let run: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("run.json")).unwrap()).unwrap();
    let listed = run["outputs"].as_array().unwrap();
    assert!(listed.iter().any(|f| f == "slice_ez.mp4"), "{listed:?}");
    assert!(!out.join("slice_ez.frames.txt").exists());
}

#[test]
fn a_movie_without_ffmpeg_is_refused_before_the_run() {
    let out = out_dir("no-ffmpeg");
    let empty = out_dir("empty-path");
    std::fs::create_dir_all(&empty).unwrap();
    let output = run_movie(&out).env("PATH", &empty).output().unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("--movie needs ffmpeg"), "{stderr}");
    assert!(!out.join("run.json").exists(), "nothing ran");
}
