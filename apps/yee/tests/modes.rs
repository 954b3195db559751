//! `yee modes`: the table, `modes.csv` and the plots of a slab guide's modes (a 2D scene's
//! line cross-section) and of a strip guide's (3D), and the errors that name the bad flag.

use std::path::Path;
use std::process::{Command, Output};

use yee_modes::slab::{SlabPolarisation, slab_n_eff};

/// A slab of ε = 4, 1 unit thick, along x in a TMz scene at 40 cells per unit.
const SLAB: &str = r#"
name = "slab_guide"
[units]
resolution = 40
[grid]
mode = "tmz"
size = [2, 6]
[boundaries]
all = "pec"
[materials.core]
eps = 4.0
[[geometry]]
shape = "box"
material = "core"
lo = [0, 2.5]
hi = [2, 3.5]
[run]
steps = 1
"#;

fn yee_modes(dir: &Path, scene: &str, args: &[&str]) -> Output {
    let file = dir.join("scene.toml");
    std::fs::write(&file, scene).unwrap();
    Command::new(env!("CARGO_BIN_EXE_yee"))
        .arg("modes")
        .arg(&file)
        .args(["--out"])
        .arg(dir.join("out"))
        .args(args)
        .output()
        .unwrap()
}

/// The TE modes of the slab (E along z: the TMz scene's Ez) in `modes.csv` within the
/// second-order discretisation error (1.3e-4 at 40 cells per unit) of the dispersion relation,
/// TE-like, Ez dominant; a plot of |E| and of Ez per mode; with `--parity odd_y` the first
/// odd mode, TE1, numbered 0.
#[test]
fn a_slab_guides_modes_are_printed_tabulated_and_plotted() {
    let dir = crate::tmp_dir(module_path!()).join("slab");
    std::fs::create_dir_all(&dir).unwrap();
    let out = yee_modes(
        &dir,
        SLAB,
        &["--plane", "x=1", "--frequency", "0.5", "--count", "2"],
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("TE-like"), "{stdout}");
    let csv = std::fs::read_to_string(dir.join("out/modes.csv")).unwrap();
    let rows: Vec<Vec<&str>> = csv
        .lines()
        .skip(1)
        .map(|l| l.split(',').collect())
        .collect();
    assert_eq!(
        csv.lines().next(),
        Some("mode,n_eff,group_index,te_fraction,dominant")
    );
    assert_eq!(rows.len(), 2, "{csv}");
    let k0 = std::f64::consts::PI;
    for (m, row) in rows.iter().enumerate() {
        let exact = slab_n_eff(SlabPolarisation::Te, m, 2.0, 1.0, 1.0, k0).unwrap();
        let n: f64 = row[1].parse().unwrap();
        assert!((n - exact).abs() < 2e-4, "mode {m}: {n} against {exact}");
        assert_eq!((row[3], row[4]), ("1.000000", "ez"), "{csv}");
        for name in ["e", "ez"] {
            let png = dir.join(format!("out/mode_{m}_{name}.png"));
            let bytes = std::fs::read(&png).unwrap();
            assert_eq!(&bytes[1..4], b"PNG", "{}", png.display());
        }
    }
    // `--parity odd_y`: the first odd mode is the unfiltered list's mode 1 (TE1), to the digit.
    let odd = yee_modes(
        &dir,
        SLAB,
        &["--plane", "x=1", "--frequency", "0.5", "--parity", "odd_y"],
    );
    assert!(
        odd.status.success(),
        "{}",
        String::from_utf8_lossy(&odd.stderr)
    );
    let odd_csv = std::fs::read_to_string(dir.join("out/modes.csv")).unwrap();
    let odd_row: Vec<&str> = odd_csv.lines().nth(1).unwrap().split(',').collect();
    assert_eq!(odd_row[0], "0", "{odd_csv}");
    assert_eq!(odd_row[1..], rows[1][1..], "{odd_csv} against {csv}");
}

/// A 3D strip's fundamental mode, TE-like (E along y, the strip's width), its plots 2D maps.
#[test]
fn a_strip_guides_fundamental_mode_is_te_like() {
    let dir = crate::tmp_dir(module_path!()).join("strip");
    std::fs::create_dir_all(&dir).unwrap();
    let scene = r#"
name = "strip"
background = "oxide"
[units]
resolution = 25
[grid]
mode = "3d"
size = [0.2, 2, 1.6]
[boundaries]
all = "pec"
[materials.oxide]
eps = 2.1025
[materials.silicon]
eps = 11.9025
[[geometry]]
shape = "box"
material = "silicon"
lo = [0, 0.76, 0.68]
hi = [0.2, 1.24, 0.92]
[run]
steps = 1
"#;
    let out = yee_modes(&dir, scene, &["--plane", "x=0.1", "--frequency", "0.6452"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let csv = std::fs::read_to_string(dir.join("out/modes.csv")).unwrap();
    let row: Vec<&str> = csv.lines().nth(1).unwrap().split(',').collect();
    let n: f64 = row[1].parse().unwrap();
    let te: f64 = row[3].parse().unwrap();
    assert!(n > 2.2 && n < 2.6 && te > 0.9 && row[4] == "ey", "{csv}");
    assert!(dir.join("out/mode_0_e.png").exists() && dir.join("out/mode_0_ey.png").exists());
}

/// Each bad flag is named in the error.
#[test]
fn bad_flags_are_named() {
    let dir = crate::tmp_dir(module_path!()).join("bad");
    std::fs::create_dir_all(&dir).unwrap();
    for (args, needle) in [
        (
            &["--plane", "x10", "--frequency", "0.5"][..],
            "--plane x10: expected AXIS=POSITION",
        ),
        (
            &["--plane", "w=1", "--frequency", "0.5"],
            "the axis `w` is not x, y or z",
        ),
        (
            &["--plane", "z=0", "--frequency", "0.5"],
            "propagate along x or y",
        ),
        (
            &["--plane", "x=9", "--frequency", "0.5"],
            "--plane x=9: 9 lies outside the grid along x",
        ),
        (
            &["--plane", "x=one", "--frequency", "0.5"],
            "the position `one` is not a number",
        ),
        (&["--plane", "x=1", "--frequency=-1"], "--frequency -1"),
        (
            &["--plane", "x=1", "--frequency", "0.5", "--count", "0"],
            "--count 0",
        ),
        (
            &["--plane", "x=1", "--frequency", "0.5", "--parity", "odd_x"],
            "--parity \"odd_x\": `odd_x` mirrors along x, the plane's normal",
        ),
    ] {
        let out = yee_modes(&dir, SLAB, args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            !out.status.success() && stderr.contains(needle),
            "{args:?}: {stderr}"
        );
    }
}
