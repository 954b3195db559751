//! `[run] until_decayed`: a run ends at the first check where the probe's |field|² over the
//! interval just ended is at most `factor` times its largest — the step computed here, apart
//! from the solver, from the whole probe record of a run that was not stopped — and at that
//! same step with the same bits on every decomposition; `run.json` says where and why.

use std::path::{Path, PathBuf};

use serde_json::Value;

/// A dielectric disc that rings after a Gaussian pulse, in CPML; `decay` is the
/// `until_decayed` line (empty: none).
fn scene(decay: &str) -> String {
    format!(
        r#"
[grid]
mode = "tmz"
size = [48, 40]

[boundaries]
all = "cpml"

[materials.glass]
eps = 9.0

[[geometry]]
shape = "cylinder"
material = "glass"
center = [24, 20]
radius = 8

[[sources]]
component = "ez"
position = [20, 18]
waveform = "gaussian"
frequency = 0.08
width = 12
delay = 50

[[probes]]
name = "ring"
component = "ez"
position = [27, 22]

[[probes]]
name = "edge"
component = "hy"
position = [8, 30]

[[dft]]
name = "all"
components = ["ez", "hx", "hy"]
lo = [0, 0]
hi = [48, 40]
frequencies = [0.05, 0.08]

[mask]
tile = [8, 8]

[run]
steps = 3000
{decay}
"#
    )
}

const RULE: &str = r#"until_decayed = { probe = "ring", factor = 1e-2, after = 100, every = 40 }"#;

fn run(dir: &Path, name: &str, text: &str, extra: &[&str]) -> (PathBuf, Value) {
    let file = dir.join(format!("{name}.toml"));
    std::fs::write(&file, text).unwrap();
    let out = dir.join(name);
    let done = std::process::Command::new(env!("CARGO_BIN_EXE_yee"))
        .args(["run", "--quiet", "--out"])
        .arg(&out)
        .arg(&file)
        .args(extra)
        .output()
        .unwrap();
    assert!(
        done.status.success(),
        "{name}: {}",
        String::from_utf8_lossy(&done.stderr)
    );
    let report = serde_json::from_str(&std::fs::read_to_string(out.join("run.json")).unwrap());
    (out, report.unwrap())
}

/// `(step, value)` of a `probe_*.csv` (real values).
fn probe(path: &Path) -> Vec<(u64, f64)> {
    let text = std::fs::read_to_string(path).unwrap();
    text.lines()
        .skip(1)
        .map(|l| {
            let v: Vec<&str> = l.split(',').collect();
            (v[0].parse().unwrap(), v[2].parse().unwrap())
        })
        .collect()
}

/// Meep's `stop_when_fields_decayed`, written out on a whole record: checks every `every`
/// steps after `after`; at each the largest |v|² of the interval just ended against the
/// largest of all intervals so far (a probe that has seen nothing does not stop).
fn first_decayed_check(record: &[(u64, f64)], after: u64, every: u64, factor: f64) -> Option<u64> {
    let mut largest: f64 = 0.0;
    let mut check = after + every;
    while check <= record.last()?.0 {
        let interval = record
            .iter()
            .filter(|(s, _)| *s > check - every && *s <= check)
            .map(|(_, v)| v * v)
            .fold(0.0, f64::max);
        largest = largest.max(interval);
        if largest > 0.0 && interval <= factor * largest {
            return Some(check);
        }
        check += every;
    }
    None
}

#[test]
fn a_decayed_run_stops_at_the_first_check_its_probe_record_meets() {
    let dir = crate::tmp_dir(module_path!());
    let (full, report) = run(&dir, "full", &scene(""), &["--backend", "scalar"]);
    assert_eq!(report["steps_completed"], 3000);
    assert!(report.get("until_decayed").is_none(), "{report}");
    let record = probe(&full.join("probe_ring.csv"));
    // after = 100 time units is 100 / 0.7 steps, rounded up; every = 40 is 58.
    let courant = report["dt"].as_f64().unwrap();
    let (after, every) = (
        (100.0 / courant).ceil() as u64,
        (40.0 / courant).ceil() as u64,
    );
    assert_eq!((after, every), (143, 58));
    let want = first_decayed_check(&record, after, every, 1e-2).unwrap();
    assert!(want > after + 3 * every && want < 3000, "{want}");

    let (stopped, r) = run(&dir, "stopped", &scene(RULE), &["--backend", "scalar"]);
    assert_eq!(r["status"], "complete", "{r}");
    assert_eq!(r["steps_completed"], want, "{r}");
    let decay = &r["until_decayed"];
    assert_eq!(decay["probe"], "ring");
    assert_eq!(decay["component"], "ez");
    assert_eq!(decay["after_step"], after);
    assert_eq!(decay["every_steps"], every);
    assert_eq!(decay["decayed"], true);
    assert_eq!(decay["stopped_at_step"], want);
    // The stopped run's record is the full one's, cut at the stop.
    let cut = probe(&stopped.join("probe_ring.csv"));
    assert_eq!(cut[..], record[..want as usize]);
    // One check earlier the criterion was not met: a run checking on a coarser grid whose
    // checks skip `want` stops later.
    let coarse = RULE.replace("every = 40", "every = 80");
    let (_, r2) = run(&dir, "coarse", &scene(&coarse), &["--backend", "scalar"]);
    let want2 = first_decayed_check(&record, after, 115, 1e-2).unwrap();
    assert_eq!(r2["steps_completed"], want2, "{r2}");
    assert_ne!(want2, want);
}

#[test]
fn a_decayed_run_stops_at_the_same_step_with_the_same_fields_on_any_decomposition() {
    let dir = crate::tmp_dir(module_path!());
    let text = scene(RULE);
    let (one, r1) = run(&dir, "one_rank", &text, &["--backend", "scalar"]);
    let step = r1["until_decayed"]["stopped_at_step"].clone();
    assert!(step.as_u64().unwrap() < 3000, "{r1}");
    for (name, extra) in [
        ("four_ranks", vec!["--ranks", "4"]),
        ("three_kd", vec!["--ranks", "3", "--layout", "kd"]),
        ("tiles", vec!["--ranks", "3", "--partition", "rcdc"]),
        (
            "balanced",
            vec![
                "--ranks",
                "2",
                "--comm",
                "sim",
                "--balance",
                "dynamic",
                "--rebalance-every",
                "20",
            ],
        ),
    ] {
        let (out, r) = run(&dir, name, &text, &extra);
        assert_eq!(r["until_decayed"]["stopped_at_step"], step, "{name}");
        assert_eq!(r["steps_completed"], step, "{name}");
        for file in ["probe_ring.csv", "probe_edge.csv", "dft_all.npy"] {
            assert!(
                std::fs::read(one.join(file)).unwrap() == std::fs::read(out.join(file)).unwrap(),
                "{name}: {file} differs from one rank's"
            );
        }
    }
}

#[test]
fn a_resumed_run_replays_the_checks_before_its_checkpoint() {
    let dir = crate::tmp_dir(module_path!());
    let text = scene(RULE);
    let (straight, r1) = run(&dir, "straight", &text, &["--backend", "scalar"]);
    let step = r1["steps_completed"].as_u64().unwrap();
    // Checkpoints every 1000 steps: the one at 1000 is kept, before the stop.
    let (cut, r) = run(&dir, "cut", &text, &["--checkpoint-every", "1000"]);
    assert_eq!(r["steps_completed"], step);
    assert!(cut.join("checkpoint/step-0000001000").is_dir());
    // Resumed from step 1000 on three ranks: the checks before it (their largest |Ez|²)
    // come from the checkpoint's probe samples, so the run stops where the straight one did.
    let resume = ["--resume", cut.to_str().unwrap(), "--ranks", "3"];
    let (resumed, r) = run(&dir, "resumed", &text, &resume);
    assert_eq!(r["resumed_from"]["step"], 1000, "{r}");
    assert_eq!(r["until_decayed"]["stopped_at_step"], step, "{r}");
    for file in ["probe_ring.csv", "dft_all.npy"] {
        assert!(
            std::fs::read(straight.join(file)).unwrap()
                == std::fs::read(resumed.join(file)).unwrap(),
            "{file}"
        );
    }
}

#[test]
fn bad_until_decayed_keys_are_named() {
    let dir = crate::tmp_dir(module_path!());
    for (rule, key, says) in [
        (
            r#"until_decayed = { probe = "nope", factor = 1e-3, every = 40 }"#,
            "run.until_decayed.probe",
            "ring, edge",
        ),
        (
            r#"until_decayed = { probe = "ring", component = "hx", factor = 1e-3, every = 40 }"#,
            "run.until_decayed.component",
            "records ez",
        ),
        (
            r#"until_decayed = { probe = [10, 10], factor = 1e-3, every = 40 }"#,
            "run.until_decayed.component",
            "required",
        ),
        (
            r#"until_decayed = { probe = "ring", factor = 2, every = 40 }"#,
            "run.until_decayed.factor",
            "between 0 and 1",
        ),
        (
            r#"until_decayed = { probe = "ring", factor = 1e-3, every = 0 }"#,
            "run.until_decayed.every",
            "positive",
        ),
        (
            r#"until_decayed = { probe = [100, 10], component = "ez", factor = 1e-3, every = 4 }"#,
            "run.until_decayed.probe",
            "",
        ),
    ] {
        let file = dir.join("bad.toml");
        std::fs::write(&file, scene(rule)).unwrap();
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_yee"))
            .args(["check"])
            .arg(&file)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{rule}");
        assert!(
            stderr.contains(key) && stderr.contains(says),
            "{rule}: {stderr}"
        );
    }
}

#[test]
fn a_point_is_watched_as_the_probe_until_decayed() {
    let dir = crate::tmp_dir(module_path!());
    let rule = r#"until_decayed = { probe = [27, 22], component = "ez", factor = 1e-2, after = 100, every = 40 }"#;
    let (out, r) = run(&dir, "point", &scene(rule), &["--backend", "scalar"]);
    let (_, named) = run(&dir, "named", &scene(RULE), &["--backend", "scalar"]);
    assert_eq!(r["until_decayed"]["probe"], "until_decayed");
    assert_eq!(r["steps_completed"], named["steps_completed"]);
    assert!(out.join("probe_until_decayed.csv").is_file());
}

/// With a `[[flux]]` box and a `[[resonances]]` block, a decayed run's flux spectrum and modes
/// are those of the steps it ran: byte for byte what the same scene without the rule writes
/// when told to run just those steps; both files listed in run.json.
#[test]
fn flux_and_resonances_of_a_decayed_run_are_those_of_the_steps_it_ran() {
    let dir = crate::tmp_dir(module_path!());
    let blocks = r#"
[[flux]]
name = "around"
lo = [14, 10]
hi = [34, 30]
fmin = 0.04
fmax = 0.12
count = 9

[[resonances]]
name = "disc"
probes = ["ring"]
band = [0.02, 0.2]
after = 100
"#;
    let with = |rule: &str| scene(rule).replacen("[mask]", &format!("{blocks}\n[mask]"), 1);
    assert!(with("").contains("[[resonances]]"));
    let (stopped, r) = run(
        &dir,
        "stopped_blocks",
        &with(RULE),
        &["--backend", "scalar"],
    );
    assert_eq!(r["until_decayed"]["decayed"], true, "{r}");
    let step = r["steps_completed"].as_u64().unwrap();
    assert!(step < 3000, "{r}");
    let outputs = r["outputs"].as_array().unwrap();
    for file in ["flux_around.csv", "resonances_disc.csv"] {
        assert!(outputs.iter().any(|o| o == file), "{file} not in {r}");
    }
    let modes = r["resonances"][0]["modes"].as_array().unwrap();
    assert!(!modes.is_empty(), "{r}");
    let steps = step.to_string();
    let (cut, c) = run(
        &dir,
        "cut_blocks",
        &with(""),
        &["--backend", "scalar", "--steps", &steps],
    );
    assert_eq!(c["steps_completed"], step);
    for file in ["flux_around.csv", "resonances_disc.csv", "probe_ring.csv"] {
        assert!(
            std::fs::read(stopped.join(file)).unwrap() == std::fs::read(cut.join(file)).unwrap(),
            "{file} differs from the run of {step} steps"
        );
    }
}
