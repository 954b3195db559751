//! `yee resonances PROBE.csv --band FMIN FMAX`: the modes of a probe record by harmonic
//! inversion, printed and written to `resonances_<name>.csv` — on synthetic records (real and
//! complex) and on the probe of a `yee run` of a 2D PEC cavity, whose lowest modes must sit on
//! the discrete dispersion relation; bad records are refused naming the file and line.

use std::f64::consts::PI;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn yee(args: &[&str], files: &[&Path]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_yee"))
        .arg("resonances")
        .args(files)
        .args(args)
        .output()
        .unwrap()
}

/// The rows of a `resonances_*.csv`: frequency, decay, Q, amplitude, phase, error.
fn read_modes(path: &Path) -> Vec<[f64; 6]> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some("frequency,decay,Q,amplitude,phase,error")
    );
    lines
        .map(|l| {
            let v: Vec<f64> = l.split(',').map(|x| x.parse().unwrap()).collect();
            v.try_into().unwrap()
        })
        .collect()
}

/// Writes `rows` under `header` to `dir/name`.
fn write_csv(dir: &Path, name: &str, header: &str, rows: impl Iterator<Item = String>) -> PathBuf {
    let path = dir.join(name);
    let mut text = format!("{header}\n");
    for r in rows {
        text += &r;
        text.push('\n');
    }
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn modes_of_a_real_record_beside_it() {
    let dir = crate::tmp_dir(module_path!());
    let dt = 0.5;
    // 2 cos(2π·0.1 t + 0.3) e^{−0.001 t} + 0.5 cos(2π·0.12 t) e^{−0.0005 t}.
    let rows = (1..=3000).map(|step| {
        let t = step as f64 * dt;
        let v = 2.0 * (2.0 * PI * 0.1 * t + 0.3).cos() * (-0.001 * t).exp()
            + 0.5 * (2.0 * PI * 0.12 * t).cos() * (-0.0005 * t).exp();
        format!("{step},{t:e},{v:e}")
    });
    let csv = write_csv(&dir, "probe_east.csv", "step,time,value", rows);
    let written = dir.join("resonances_east.csv");
    let _ = std::fs::remove_file(&written);
    let out = yee(&["--band", "0.05", "0.15"], &[&csv]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains(&written.display().to_string()), "{stdout}");
    assert!(
        stdout.contains("0.1000000000") && stdout.contains("0.1200000000"),
        "{stdout}"
    );
    let modes = read_modes(&written);
    assert_eq!(modes.len(), 2, "{modes:?}");
    // Each cosine is the mode at +f with half its amplitude and the opposite phase.
    for (m, want) in modes.iter().zip([
        [0.1, 0.001, PI * 0.1 / 0.001, 1.0, -0.3],
        [0.12, 0.0005, PI * 0.12 / 0.0005, 0.25, 0.0],
    ]) {
        assert!((m[0] / want[0] - 1.0).abs() < 1e-9, "{m:?}");
        assert!((m[1] / want[1] - 1.0).abs() < 1e-6, "{m:?}");
        assert!((m[2] / want[2] - 1.0).abs() < 1e-6, "{m:?}");
        assert!((m[3] / want[3] - 1.0).abs() < 1e-6, "{m:?}");
        assert!((m[4] - want[4]).abs() < 1e-6, "{m:?}");
        assert!(m[5] < 1e-6, "{m:?}");
    }
}

#[test]
fn modes_of_a_complex_record_into_out() {
    let dir = crate::tmp_dir(module_path!());
    let dt = 1.0;
    // e^{−i(2π·0.2 t − 1)} e^{−0.002 t} and 0.3 e^{+i 2π·0.05 t} (negative frequency).
    let rows = (1..=2000).map(|step| {
        let t = step as f64 * dt;
        let a = (-0.002 * t).exp();
        let (p, q) = (-(2.0 * PI * 0.2 * t - 1.0), 2.0 * PI * 0.05 * t);
        let (re, im) = (a * p.cos() + 0.3 * q.cos(), a * p.sin() + 0.3 * q.sin());
        format!("{step},{t:e},{re:e},{im:e}")
    });
    let csv = write_csv(&dir, "probe_c.csv", "step,time,re,im", rows);
    let out_dir = dir.join("complex_out");
    let _ = std::fs::remove_dir_all(&out_dir);
    let out = yee(
        &["--band", "-0.1", "0.3", "--out", out_dir.to_str().unwrap()],
        &[&csv],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let modes = read_modes(&out_dir.join("resonances_c.csv"));
    assert_eq!(modes.len(), 2, "{modes:?}");
    assert!((modes[0][0] + 0.05).abs() < 1e-10 && (modes[0][3] - 0.3).abs() < 1e-8);
    assert!((modes[1][0] - 0.2).abs() < 1e-10 && (modes[1][1] - 0.002).abs() < 1e-9);
    assert!((modes[1][4] - 1.0).abs() < 1e-8, "{modes:?}");
}

#[test]
fn modes_of_a_run_on_the_discrete_dispersion_relation() {
    let dir = crate::tmp_dir(module_path!());
    let scene = r#"name = "cavity2d"
[grid]
mode = "tmz"
size = [40, 30]
courant = 0.5
[boundaries]
all = "pec"
[[sources]]
component = "ez"
position = [11, 7]
waveform = "ricker"
frequency = 0.03
delay = 60
[[probes]]
name = "ez"
component = "ez"
position = [29, 19]
[run]
steps = 4000
"#;
    let run = crate::run_text(&dir, "cavity2d", scene);
    let _ = std::fs::remove_file(run.join("resonances_ez.csv"));
    let out = yee(
        &["--band", "0", "0.15", "--after", "150"],
        &[&run.join("probe_ez.csv")],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let modes = read_modes(&run.join("resonances_ez.csv"));
    // [sin(π f Δt) / Δt]² = sin²(π m / 2·40) + sin²(π n / 2·30), Δt = 0.5 (Courant 0.5).
    let dt = 0.5;
    for (m, n) in [(1, 1), (2, 1), (1, 2)] {
        let s =
            ((PI * m as f64 / 80.0).sin().powi(2) + (PI * n as f64 / 60.0).sin().powi(2)).sqrt();
        let discrete = (s * dt).asin() / (PI * dt);
        let found = modes
            .iter()
            .map(|r| r[0])
            .min_by(|a, b| (a - discrete).abs().total_cmp(&(b - discrete).abs()))
            .unwrap();
        assert!(
            (found / discrete - 1.0).abs() < 1e-6,
            "mode ({m}, {n}): {found} against {discrete}"
        );
    }
}

#[test]
fn bad_records_are_refused_naming_the_file_and_line() {
    let dir = crate::tmp_dir(module_path!());
    let rows = (1..=100).map(|step| {
        if step == 40 {
            format!("{step},{},oops", step as f64)
        } else {
            format!("{step},{},{}", step as f64, (step as f64 * 0.7).sin())
        }
    });
    let bad = write_csv(&dir, "probe_bad.csv", "step,time,value", rows);
    let out = yee(&["--band", "0.05", "0.15"], &[&bad]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        stderr.contains(&format!("{}:41: `oops` in column `value`", bad.display())),
        "{stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(!dir.join("resonances_bad.csv").exists());

    let rows = (1..=100).map(|step| {
        let t = if step == 60 { 60.4 } else { step as f64 };
        format!("{step},{t},{}", (step as f64 * 0.7).sin())
    });
    let uneven = write_csv(&dir, "probe_uneven.csv", "step,time,value", rows);
    let out = yee(&["--band", "0.05", "0.15"], &[&uneven]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!(
            "{}:61: time 60.4 breaks the uniform sampling",
            uneven.display()
        )),
        "{stderr}"
    );

    let rows = (1..=100).map(|step| format!("{step},{},{}", step as f64, (step as f64).sin()));
    let good = write_csv(&dir, "probe_good.csv", "step,time,value", rows);
    for (args, why) in [
        (&["--band", "0.2", "0.1"][..], "band [0.2, 0.1]"),
        (
            &["--band", "0.1", "0.9"][..],
            "beyond the Nyquist frequency",
        ),
        (
            &["--band", "0.1", "0.2", "--after", "98"][..],
            "3 of 100 samples",
        ),
    ] {
        let out = yee(args, &[&good]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?}");
        assert!(
            stderr.contains(&good.display().to_string()) && stderr.contains(why),
            "{args:?}: {stderr}"
        );
    }
    let out = yee(&["--band", "0.1", "0.2"], &[&dir.join("missing.csv")]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("cannot read") && stderr.contains("missing.csv"),
        "{stderr}"
    );
}

/// The PEC cavity above with a second probe (`hz` is not in TMz: a second Ez point) and
/// `[[resonances]]` blocks; `blocks` is appended.
fn cavity_with(blocks: &str) -> String {
    format!(
        r#"name = "cavity_blocks"
[grid]
mode = "tmz"
size = [40, 30]
courant = 0.5
[boundaries]
all = "pec"
[[sources]]
component = "ez"
position = [11, 7]
waveform = "ricker"
frequency = 0.03
delay = 60
[[probes]]
name = "ez"
component = "ez"
position = [29, 19]
[[probes]]
name = "low"
component = "ez"
position = [7, 5]
[[probes]]
name = "h"
component = "hx"
position = [7, 5]
[run]
steps = 4000
{blocks}
"#
    )
}

#[test]
fn a_resonances_block_writes_what_yee_resonances_finds_and_lists_it_in_run_json() {
    let dir = crate::tmp_dir(module_path!());
    let blocks = r#"
[[resonances]]
name = "one"
probes = ["ez"]
band = [0, 0.15]
after = 150

[[resonances]]
name = "both"
probes = ["ez", "low"]
band = [0, 0.15]
after = 150
"#;
    let run = crate::run_text(&dir, "cavity_blocks", &cavity_with(blocks));
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("run.json")).unwrap()).unwrap();
    // The same record through `yee resonances`.
    let by_command = dir.join("by_command");
    let out = yee(
        &[
            "--band",
            "0",
            "0.15",
            "--after",
            "150",
            "--out",
            by_command.to_str().unwrap(),
        ],
        &[&run.join("probe_ez.csv")],
    );
    assert!(out.status.success());
    let want = read_modes(&by_command.join("resonances_ez.csv"));
    let got = read_modes(&run.join("resonances_one.csv"));
    assert_eq!(got.len(), want.len());
    assert!(got.len() >= 3, "{got:?}");
    for (g, w) in got.iter().zip(&want) {
        for k in 0..6 {
            assert!(
                (g[k] - w[k]).abs() <= 1e-9 * w[k].abs().max(1e-9),
                "{g:?} against {w:?}"
            );
        }
    }
    let listed = &report["resonances"];
    assert_eq!(listed[0]["name"], "one");
    assert_eq!(listed[0]["file"], "resonances_one.csv");
    assert_eq!(listed[0]["probes"], serde_json::json!(["ez"]));
    assert_eq!(listed[0]["band"], serde_json::json!([0.0, 0.15]));
    assert_eq!(listed[0]["samples"], 4000 - 299);
    let modes = listed[0]["modes"].as_array().unwrap();
    assert_eq!(modes.len(), got.len());
    for (m, row) in modes.iter().zip(&got) {
        assert_eq!(m["frequency"].as_f64().unwrap(), row[0]);
        assert_eq!(m["Q"].as_f64().unwrap(), row[2]);
        assert_eq!(m["error"].as_f64().unwrap(), row[5]);
    }
    let outputs = report["outputs"].as_array().unwrap();
    assert!(outputs.iter().any(|o| o == "resonances_both.csv"));
    // The summed record holds the (1, 1) mode on the discrete dispersion relation too.
    let both = read_modes(&run.join("resonances_both.csv"));
    let s = ((PI / 80.0).sin().powi(2) + (PI / 60.0).sin().powi(2)).sqrt();
    let discrete = (s * 0.5).asin() / (PI * 0.5);
    assert!(
        both.iter().any(|r| (r[0] / discrete - 1.0).abs() < 1e-6),
        "{both:?}"
    );
}

#[test]
fn bad_resonances_blocks_are_named() {
    let dir = crate::tmp_dir(module_path!());
    for (block, key, says) in [
        (
            r#"name = "r"
probes = ["nope"]
band = [0, 0.1]"#,
            "resonances[0].probes[0]",
            "ez, low, h",
        ),
        (
            r#"name = "r"
probes = []
band = [0, 0.1]"#,
            "resonances[0].probes",
            "is empty",
        ),
        (
            r#"name = "r"
probes = ["ez"]
band = [0.1, 0.1]"#,
            "resonances[0].band",
            "is empty",
        ),
        (
            r#"name = "r"
probes = ["ez"]
band = [0.1, 1.5]"#,
            "resonances[0].band",
            "Nyquist frequency 1",
        ),
        (
            r#"name = "r"
probes = ["ez", "h"]
band = [0, 0.1]"#,
            "resonances[0].probes[1]",
            "cannot be summed",
        ),
        (
            r#"name = "r"
probes = ["ez"]
band = [0, 0.1]
after = -1"#,
            "resonances[0].after",
            "non-negative",
        ),
        (
            r#"name = "a/b"
probes = ["ez"]
band = [0, 0.1]"#,
            "resonances[0].name",
            "",
        ),
    ] {
        let file = dir.join("bad_block.toml");
        std::fs::write(&file, cavity_with(&format!("[[resonances]]\n{block}"))).unwrap();
        let out = Command::new(env!("CARGO_BIN_EXE_yee"))
            .arg("check")
            .arg(&file)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{block}");
        assert!(
            stderr.contains(key) && stderr.contains(says),
            "{block}: {stderr}"
        );
    }
    // `yee check` describes a good block.
    let file = dir.join("good_block.toml");
    let block = "[[resonances]]\nname = \"r\"\nprobes = [\"ez\", \"low\"]\nband = [0, 0.1]\n";
    std::fs::write(&file, cavity_with(block)).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_yee"))
        .arg("check")
        .arg(&file)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("resonances  r: harmonic inversion of ez + low in [0, 0.1]"),
        "{stdout}"
    );
}

/// Meep's Harminv on its ring-resonator tutorial at resolution 10 (eps averaging on, Courant
/// 0.5, meep 1.25.0): `/usr/bin/python3 bench/meep_ring.py --until-after-sources U`, frequency
/// and Q of each mode, in Meep's units (yee's frequencies × 10), with `U` = 1000.
const MEEP_RING_1000: [(f64, f64); 3] = [
    (0.1180795259, 78.458630),
    (0.1471647537, 347.203429),
    (0.1752478789, 1676.967955),
];

/// Runs examples/scenes/ring_resonator.toml (with `extra` arguments) and returns its modes:
/// frequency × 10 (Meep's units) and Q.
fn ring_modes(dir: &Path, name: &str, extra: &[&str]) -> Vec<(f64, f64)> {
    let scene =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/scenes/ring_resonator.toml");
    let out = dir.join(name);
    let done = Command::new(env!("CARGO_BIN_EXE_yee"))
        .args(["run", "--quiet", "--out"])
        .arg(&out)
        .arg(&scene)
        .args(extra)
        .output()
        .unwrap();
    assert!(
        done.status.success(),
        "{}",
        String::from_utf8_lossy(&done.stderr)
    );
    read_modes(&out.join("resonances_ring.csv"))
        .iter()
        .map(|r| (r[0] * 10.0, r[2]))
        .collect()
}

/// Each of Meep's modes has one of `modes` within `df` relative in frequency; returns the
/// relative differences in frequency and Q.
fn against_meep(modes: &[(f64, f64)], meep: &[(f64, f64)]) -> Vec<(f64, f64)> {
    meep.iter()
        .map(|&(f, q)| {
            let near = modes
                .iter()
                .min_by(|a, b| (a.0 - f).abs().total_cmp(&(b.0 - f).abs()))
                .unwrap();
            (near.0 / f - 1.0, near.1 / q - 1.0)
        })
        .collect()
}

/// The record of examples/scenes/ring_resonator.toml, 1000 after the source (22000 steps of
/// 160 × 160 cells, about 15 s in the test profile): over Meep's tutorial record of 300 the
/// slower modes' Q moves by 10 % with its length, in Meep as here (316 → 347, 1679 → 1633 →
/// 1575 for 300, 500, 700).
#[test]
fn ring_resonator_matches_meep_in_frequency_and_q() {
    let dir = crate::tmp_dir(module_path!());
    let modes = ring_modes(&dir, "ring_1000", &[]);
    let diff = against_meep(&modes, &MEEP_RING_1000);
    for (i, (df, dq)) in diff.iter().enumerate() {
        let (f, q) = MEEP_RING_1000[i];
        eprintln!(
            "ring mode {i}: Meep f {f:.7} Q {q:.2}; yee f {:.7} ({df:+.1e}) Q {:.2} ({:+.1} %)",
            f * (1.0 + df),
            q * (1.0 + dq),
            100.0 * dq
        );
        assert!(
            df.abs() < 1e-3,
            "mode {i}: {modes:?} against {MEEP_RING_1000:?}"
        );
        assert!(
            dq.abs() < 0.05,
            "mode {i}: {modes:?} against {MEEP_RING_1000:?}"
        );
    }
}
