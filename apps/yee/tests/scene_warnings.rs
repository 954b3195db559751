//! The scene warnings of issue 50 (apps/scene/src/warnings.rs) as a user meets them: `yee
//! check` lists each as `warning: …` naming its key and does not end on a bare "ok", and `yee
//! run` prints the same on stderr before its first step (none with `--quiet`). One scene
//! triggers all five: a source, a probe, a flux plane and a DFT box in a CPML layer, and a
//! Gaussian pulse with a DC part above 1e-3. (That no example scene gets one is
//! `warnings::no_example_scene_gets_a_warning` in `cargo test -p yee-scene`; a TF/SF box that
//! reaches a layer is an error, tests/scenes/malformed/plane_wave_surface_in_cpml.toml.)

use std::process::Command;

const SCENE: &str = r#"name = "warned"
[grid]
mode = "tmz"
size = [80, 60]
[boundaries]
all = "cpml"
[boundaries.cpml]
thickness = 10
[[sources]]
component = "ez"
position = [40, 30]
waveform = "ricker"
frequency = 0.02
[[sources]]
component = "ez"
position = [5, 30]
waveform = "gaussian"
frequency = 0.0145
width = 25
[[probes]]
name = "edge"
component = "ez"
position = [40, 55]
[[flux]]
name = "t"
axis = "x"
position = 75
frequencies = [0.05]
[[dft]]
name = "d"
components = ["ez"]
lo = [2, 20]
hi = [30, 40]
frequencies = [0.05]
[run]
steps = 5
"#;

/// The warnings the scene must get, each as the start of its line after `warning: `.
const EXPECTED: [&str; 5] = [
    "sources[1] drives cell [5, 30, 0] in the x_low CPML (cells 0 to 9 along x)",
    "probes[0] (edge) records cell [40, 55, 0] in the y_high CPML (cells 51 to 59 along y)",
    "flux[0] (t) reaches into the x_high CPML (cells 71 to 79 along x)",
    "dft[0] (d) reaches into the x_low CPML (cells 0 to 9 along x)",
    "sources[1] has a DC part of 1.5e-1",
];

/// The lines of `text` that are warnings, without their `warning: `.
fn warnings(text: &str) -> Vec<&str> {
    text.lines()
        .filter_map(|l| l.strip_prefix("warning: "))
        .collect()
}

fn assert_all_named(what: &str, text: &str) {
    let got = warnings(text);
    assert_eq!(got.len(), EXPECTED.len(), "{what}: {got:#?}");
    for expected in EXPECTED {
        assert!(
            got.iter().any(|w| w.starts_with(expected)),
            "{what} does not warn `{expected}…`: {got:#?}"
        );
    }
}

#[test]
fn yee_check_and_yee_run_name_every_warning() {
    let dir = crate::tmp_dir(module_path!());
    let check = crate::check_text(&dir, "warned", SCENE);
    assert!(check.status.success(), "{check:?}");
    let stdout = String::from_utf8_lossy(&check.stdout);
    assert_all_named("yee check", &stdout);
    let last = stdout.lines().last().unwrap();
    assert!(
        last.starts_with("ok: ") && last.ends_with("is valid, with the 5 warnings above"),
        "{last}"
    );
    let run = |quiet: bool| {
        let out = dir.join(if quiet { "quiet" } else { "loud" });
        let _ = std::fs::remove_dir_all(&out);
        let output = Command::new(env!("CARGO_BIN_EXE_yee"))
            .arg("run")
            .args(quiet.then_some("--quiet"))
            .arg("--out")
            .arg(&out)
            .arg(dir.join("warned.toml"))
            .output()
            .unwrap();
        assert!(output.status.success(), "{output:?}");
        String::from_utf8_lossy(&output.stderr).into_owned()
    };
    assert_all_named("yee run", &run(false));
    assert_eq!(warnings(&run(true)), Vec::<&str>::new(), "--quiet");
}

#[test]
fn a_scene_without_a_warning_is_plainly_ok() {
    let dir = crate::tmp_dir(module_path!());
    // The first source alone: inside, and a Ricker (no DC part).
    let clean = SCENE
        .split("[[sources]]\ncomponent = \"ez\"\nposition = [5, 30]")
        .next();
    let text = format!("{}[run]\nsteps = 5\n", clean.unwrap());
    let check = crate::check_text(&dir, "clean", &text);
    assert!(check.status.success(), "{check:?}");
    let stdout = String::from_utf8_lossy(&check.stdout);
    assert_eq!(warnings(&stdout), Vec::<&str>::new());
    assert!(stdout.ends_with("clean.toml is valid\n"), "{stdout}");
}
