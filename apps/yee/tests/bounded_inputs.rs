//! Files a scene names are checked for kind and size before they are read (issue 49, case 5:
//! `minus = "/dev/zero"` grew the process to 22.7 GB, a FIFO hung in open()). A `minus`
//! spectrum or mask image that is a device, a FIFO, a folder, cut short, longer than its
//! header says, or declares an absurd shape ends `yee run` / `yee check` within seconds with
//! an error naming the scene key and the file — no hang, no panic, nothing written.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// Runs `command`, killing it (and failing the test) if it has not ended within a minute.
fn bounded(command: &mut Command) -> Output {
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > Duration::from_secs(60) {
            child.kill().unwrap();
            panic!("{command:?} hung");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

/// Fails the test unless `output` failed cleanly (no panic) with every one of `expected` in
/// its stderr; returns the stderr.
fn refused(output: &Output, expected: &[&str]) -> String {
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(!output.status.success(), "{stderr}");
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    for e in expected {
        assert!(stderr.contains(e), "{e:?} not in: {stderr}");
    }
    stderr
}

/// A named pipe at `path` (nothing ever writes into it: opening it to read would block).
fn fifo(path: &Path) -> PathBuf {
    let _ = std::fs::remove_file(path);
    let made = Command::new("mkfifo").arg(path).status().unwrap();
    assert!(made.success());
    path.to_path_buf()
}

fn flux_scene(minus: &str) -> String {
    format!(
        "name = \"m\"\n[grid]\nmode = \"1d\"\nsize = [200]\n[boundaries]\nall = \"cpml\"\n\
         [[sources]]\ncomponent = \"ez\"\nposition = [50]\nwaveform = \"ricker\"\n\
         frequency = 0.05\n[[flux]]\nname = \"t\"\naxis = \"x\"\nposition = 150\n\
         fmin = 0.02\nfmax = 0.08\ncount = 4\n{minus}[run]\nsteps = 100\n"
    )
}

/// A `.npy` of complex128 values with this shape text in its header and `values` bytes after.
fn npy(shape: &str, values: usize) -> Vec<u8> {
    let text = format!("{{'descr': '<c16', 'fortran_order': False, 'shape': {shape}, }}\n");
    let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
    bytes.extend((text.len() as u16).to_le_bytes());
    bytes.extend(text.as_bytes());
    bytes.resize(bytes.len() + values, 0);
    bytes
}

#[test]
fn minus_files_that_are_not_spectra_of_their_size_are_refused_before_the_run() {
    let dir = crate::tmp_dir(module_path!());
    let normal = crate::run_text(&dir, "normal", &flux_scene(""));
    let good = std::fs::read(normal.join("flux_t_dft.npy")).unwrap();
    let file = |name: &str, bytes: &[u8]| {
        let path = dir.join(name);
        std::fs::write(&path, bytes).unwrap();
        path
    };
    let cut = file("cut.npy", &good[..good.len() - 100]);
    let longer = file("longer.npy", &[&good[..], &[0u8; 16]].concat());
    // The region's shape (2 nodes, 4 frequencies, 6 components) declared, and nothing after.
    let empty = file("empty.npy", &npy("(2, 4, 6)", 0));
    let huge = file(
        "huge.npy",
        &npy(&format!("({}, {}, 6)", u64::MAX / 4, u64::MAX / 4), 16),
    );
    let axes = file("axes.npy", &npy(&format!("({})", "2, ".repeat(100)), 0));
    let folder = dir.join("folder.npy");
    std::fs::create_dir_all(&folder).unwrap();
    let pipe = fifo(&dir.join("pipe.npy"));
    let cases: [(&Path, &[&str]); 8] = [
        (Path::new("/dev/zero"), &["is a character device"]),
        (&pipe, &["is a FIFO (named pipe), not a regular file"]),
        (&folder, &["is a directory, not a regular file"]),
        (
            &cut,
            &[
                "is 796 bytes, but its header",
                "makes it 896: it is cut short",
            ],
        ),
        (
            &longer,
            &[
                "is 912 bytes",
                "makes it 896: it holds more than its values",
            ],
        ),
        (&empty, &["it is cut short"]),
        (&huge, &["holds shape", "needs (2, 4, 6)"]),
        (&axes, &["the shape has 100 axes, more than 64"]),
    ];
    for (minus, expected) in cases {
        let scene = dir.join("minus.toml");
        let line = format!("minus = {:?}\n", minus.display().to_string());
        std::fs::write(&scene, flux_scene(&line)).unwrap();
        let out = dir.join("minus");
        let output = bounded(
            Command::new(env!("CARGO_BIN_EXE_yee"))
                .args(["run", "--quiet", "--out"])
                .arg(&out)
                .arg(&scene),
        );
        let named = format!("flux[0].minus: {}: ", minus.display());
        let stderr = refused(&output, &[&named]);
        for e in expected {
            assert!(
                stderr.contains(e),
                "{}: {e:?} not in: {stderr}",
                minus.display()
            );
        }
        assert!(!out.join("run.json").exists(), "refused before the run");
    }
}

#[test]
fn mask_images_that_are_not_pngs_of_the_grid_are_refused_by_the_loader() {
    let dir = crate::tmp_dir(module_path!()).join("masks");
    std::fs::create_dir_all(&dir).unwrap();
    let scene = |image: &Path| {
        format!(
            "name = \"masked\"\n[grid]\nmode = \"tmz\"\nsize = [16, 12]\n[[sources]]\n\
             component = \"ez\"\nposition = [8, 6]\nwaveform = \"ricker\"\nfrequency = 0.05\n\
             [mask]\nimage = {:?}\ntile = [4, 4]\n[run]\nsteps = 10\n",
            image.display().to_string()
        )
    };
    let big = dir.join("big.png");
    // More than any PNG of 16 × 12 pixels takes (2 × 12 × 129 bytes + 1 MiB).
    std::fs::write(&big, vec![0u8; 2 << 20]).unwrap();
    let folder = dir.join("folder.png");
    std::fs::create_dir_all(&folder).unwrap();
    let pipe = fifo(&dir.join("pipe.png"));
    let not_png = dir.join("text.png");
    std::fs::write(&not_png, "not an image").unwrap();
    let cases: [(&Path, &str); 5] = [
        (Path::new("/dev/zero"), "is a character device"),
        (&pipe, "is a FIFO (named pipe), not a regular file"),
        (&folder, "is a directory, not a regular file"),
        (
            &big,
            "is 2097152 bytes, more than the 1051672 bytes a PNG image of the grid's size takes",
        ),
        (&not_png, "not a PNG image"),
    ];
    for (image, expected) in cases {
        let file = dir.join("masked.toml");
        std::fs::write(&file, scene(image)).unwrap();
        let output = bounded(
            Command::new(env!("CARGO_BIN_EXE_yee"))
                .arg("check")
                .arg(&file),
        );
        let named = format!("mask.image: {}: {expected}", image.display());
        refused(&output, &[&named]);
    }
}

/// A signal while the scene is being set up (here: a 200³ grid with a smoothed sphere, about a
/// second of set-up in a debug build, signalled 0.3 s after the start) ends `yee run` at once,
/// saying so, with the interrupted status — it went on setting up, stepped to the first stop
/// check (step 32) and wrote a checkpoint there.
#[test]
fn a_signal_while_setting_up_ends_the_run_at_once() {
    let dir = crate::tmp_dir(module_path!());
    let scene = dir.join("slow_setup.toml");
    std::fs::write(
        &scene,
        "name = \"slow\"\n[grid]\nmode = \"3d\"\nvalue_type = \"f32\"\nsize = [200, 200, 200]\n\
         [materials.glass]\neps = 2.0\n[[geometry]]\nshape = \"sphere\"\nmaterial = \"glass\"\n\
         center = [100, 100, 100]\nradius = 60\n[[sources]]\ncomponent = \"ez\"\n\
         position = [20, 20, 20]\nwaveform = \"ricker\"\nfrequency = 0.05\n[run]\n\
         steps = 1000000\n",
    )
    .unwrap();
    let out = dir.join("slow_setup");
    let _ = std::fs::remove_dir_all(&out);
    let mut child = Command::new(env!("CARGO_BIN_EXE_yee"))
        .args(["run", "--quiet", "--out"])
        .arg(&out)
        .arg(&scene)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(300));
    let killed = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let signalled = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if signalled.elapsed() > Duration::from_secs(5) {
            child.kill().unwrap();
            panic!("yee run went on setting up for 5 s after SIGTERM");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(130), "{stderr}");
    assert!(
        stderr.contains("interrupted by SIGTERM while setting up, before the first step"),
        "{stderr}"
    );
}
