//! `yee run --overlap kernel-split|host-buffer|none` (Kim & Park 2012): kernel-split and none
//! write the same fields and say which in run.json; host-buffer is refused with the reason.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn out_dir(name: &str) -> PathBuf {
    let dir = crate::tmp_dir(module_path!()).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn yee_run(out: &Path, extra: &[&str]) -> Output {
    let scene = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scenes/mpi3d.toml");
    Command::new(env!("CARGO_BIN_EXE_yee"))
        .arg("run")
        .arg(scene)
        .args(["--backend", "scalar", "--ranks", "2", "--quiet", "--out"])
        .arg(out)
        .args(extra)
        .output()
        .unwrap()
}

#[test]
fn kernel_split_and_none_give_the_same_fields_and_host_buffer_is_refused() {
    let mut fields = Vec::new();
    for (choice, overlapped) in [("kernel-split", true), ("none", false)] {
        let out = out_dir(&format!("overlap_{choice}"));
        let done = yee_run(&out, &["--overlap", choice]);
        assert!(
            done.status.success(),
            "{}",
            String::from_utf8_lossy(&done.stderr)
        );
        let doc: serde_json::Value =
            serde_json::from_slice(&std::fs::read(out.join("run.json")).unwrap()).unwrap();
        assert_eq!(doc["overlap"], overlapped, "--overlap {choice}");
        fields.push(std::fs::read(out.join("ez_000060.npy")).unwrap());
    }
    assert!(fields[0] == fields[1], "the overlap changed the fields");
    let out = out_dir("overlap_refused");
    for (args, expected) in [
        (
            &["--overlap", "host-buffer"][..],
            "--overlap host-buffer: no backend",
        ),
        (
            &["--overlap", "none", "--no-overlap"][..],
            "cannot be used with",
        ),
    ] {
        let done = yee_run(&out, args);
        let stderr = String::from_utf8_lossy(&done.stderr);
        assert!(
            !done.status.success() && stderr.contains(expected),
            "{args:?}: {stderr}"
        );
    }
}
