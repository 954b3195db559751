//! `[scan]`: a 60-trace B-scan of a PEC cylinder buried in soil (ε = 6, SI units), a Ricker
//! line source and a receiver 2 cm beside it moving together in 5 mm steps. The cylinder's
//! reflection — the scan minus the same scan without the cylinder — peaks on every trace
//! within one time step of ray theory: the Ricker's delay, plus the shortest two-way path
//! source → cylinder surface → receiver at the soil's velocity, plus the offset of the peak of
//! the wavelet a 2D line source's reflection has (spectrum `ω^{1/2} W(ω)` with the phase −π/4 of
//! the Hankel function's far field, `W` the Ricker's; about −15 steps). Each trace's positions
//! advance by exactly the step and keep the source–receiver offset; the merged B-scan's rows
//! are the traces' probe records. Bad `[scan]` keys are errors naming the key, and a trace that
//! moves a receiver into the CPML names the trace and the receiver.

use std::f64::consts::PI;
use std::path::Path;
use std::process::Command;

use serde_json::Value;

const C0: f64 = 299_792_458.0;
const EPS: f64 = 6.0;
const CELL: f64 = 0.005;
const FREQUENCY: f64 = 5e8;
const CENTRE: [f64; 2] = [0.25, 0.15];
const RADIUS: f64 = 0.04;
const COUNT: usize = 60;

fn scene(name: &str, cylinder: bool, count: usize, extra: &str) -> String {
    let cylinder = match cylinder {
        true => format!(
            "[[geometry]]\nshape = \"cylinder\"\nmaterial = \"pec\"\ncenter = {CENTRE:?}\n\
             radius = {RADIUS}\n"
        ),
        false => String::new(),
    };
    format!(
        r#"name = "{name}"
background = "soil"
[units]
system = "si"
cell_size = {CELL}
[grid]
mode = "tmz"
size = [100, 90]
[boundaries]
all = "cpml"
[materials.soil]
eps = {EPS}
{cylinder}
[[sources]]
component = "ez"
position = [0.1, 0.35]
waveform = "ricker"
frequency = {FREQUENCY}
[[probes]]
name = "rx"
component = "ez"
position = [0.12, 0.35]
[scan]
count = {count}
src_steps = [{CELL}, 0]
rx_steps = [{CELL}, 0]
{extra}
[run]
time = 8.2e-9
"#
    )
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn bscan(out: &Path) -> (Vec<usize>, Vec<f64>) {
    let bytes = std::fs::read(out.join("bscan_rx_ez.npy")).unwrap();
    yee_io::npy::read_array::<f64>(&bytes).unwrap()
}

fn point(v: &Value) -> [f64; 2] {
    [v[0].as_f64().unwrap(), v[1].as_f64().unwrap()]
}

/// The shortest path from `s` to `r` by way of the cylinder's surface (a specular reflection).
fn two_way_path(s: [f64; 2], r: [f64; 2]) -> f64 {
    let length = |theta: f64| {
        let p = [
            CENTRE[0] + RADIUS * theta.cos(),
            CENTRE[1] + RADIUS * theta.sin(),
        ];
        (p[0] - s[0]).hypot(p[1] - s[1]) + (p[0] - r[0]).hypot(p[1] - r[1])
    };
    (0..200_000)
        .map(|i| length(2.0 * PI * i as f64 / 200_000.0))
        .fold(f64::INFINITY, f64::min)
}

/// Where the largest |e(τ)| of the reflected wavelet lies from its ray arrival, in seconds:
/// `e(τ) = ∫ ω^{5/2} e^{−(ω/ωₚ)²} cos(ωτ + π/4) dω` (the Ricker's spectrum `ω² e^{−(ω/ωₚ)²}`, the
/// current's field `∝ ω`, the 2D spreading `ω^{−1/2}` and the −π/4 of `H₀⁽¹⁾(kρ)`; e^{−iωt}).
fn wavelet_peak_offset(dt: f64) -> f64 {
    let wp = 2.0 * PI * FREQUENCY;
    let n = 4000;
    let dw = 6.0 * wp / n as f64;
    let spectrum: Vec<(f64, f64)> = (1..=n)
        .map(|i| {
            let w = i as f64 * dw;
            (w, w.powf(2.5) * (-(w / wp).powi(2)).exp())
        })
        .collect();
    let e = |tau: f64| -> f64 {
        let sum: f64 = spectrum
            .iter()
            .map(|&(w, a)| a * (w * tau + PI / 4.0).cos())
            .sum();
        sum.abs()
    };
    let best = |taus: &mut dyn Iterator<Item = f64>| {
        taus.map(|t| (t, e(t)))
            .max_by(|a, b| a.1.total_cmp(&b.1))
            .unwrap()
            .0
    };
    // Within a period of the arrival by whole steps, then around the best at 1/100 step.
    let steps = (1.0 / FREQUENCY / dt) as i64;
    let coarse = best(&mut (-steps..=steps).map(|k| k as f64 * dt));
    best(&mut (-100..=100).map(|k| coarse + k as f64 * 0.01 * dt))
}

/// The time of the largest |value| of `samples` (first at `t0`, spaced `dt`), between samples
/// by the parabola through its neighbours.
fn peak_time(samples: &[f64], t0: f64, dt: f64) -> f64 {
    let i = (0..samples.len())
        .max_by(|&a, &b| samples[a].abs().total_cmp(&samples[b].abs()))
        .unwrap();
    let (a, b, c) = (samples[i - 1], samples[i], samples[i + 1]);
    t0 + (i as f64 + 0.5 * (a - c) / (a - 2.0 * b + c)) * dt
}

#[test]
fn a_buried_cylinder_reflects_at_the_ray_travel_time_on_every_trace() {
    let dir = crate::tmp_dir(module_path!());
    let started = std::time::Instant::now();
    let with = crate::run_text(&dir, "cylinder", &scene("cylinder", true, COUNT, ""));
    let without = crate::run_text(&dir, "soil", &scene("soil", false, COUNT, ""));
    let seconds = started.elapsed().as_secs_f64();
    let report = read_json(&with.join("run.json"));
    assert_eq!(report["status"], "complete");
    assert_eq!(report["traces_complete"], COUNT);
    let entry = &report["bscans"][0];
    assert_eq!(entry["file"], "bscan_rx_ez.npy");
    assert_eq!(entry["plot"], "bscan_rx_ez.png");
    let (shape, values) = bscan(&with);
    let (shape0, values0) = bscan(&without);
    assert_eq!(shape, shape0);
    let (traces, samples) = (shape[0], shape[1]);
    assert_eq!(traces, COUNT);
    let dt = entry["time_step"].as_f64().unwrap();
    let t0 = entry["first_sample_time"].as_f64().unwrap();
    assert_eq!(t0, dt, "E is sampled after each step");
    let offset = wavelet_peak_offset(dt);
    let velocity = C0 / EPS.sqrt();
    let delay = 1.5 / FREQUENCY;
    let mut worst = 0.0f64;
    let mut previous: Option<([f64; 2], [f64; 2])> = None;
    for (k, trace) in report["traces"].as_array().unwrap().iter().enumerate() {
        assert_eq!(trace["folder"], format!("trace_{k:03}"));
        let s = point(&trace["sources"][0]["position"]);
        let r = point(&trace["receivers"][0]["position"]);
        // The offset stays 2 cm and each trace moves by exactly one step.
        assert!(
            (r[0] - s[0] - 0.02).abs() < 1e-12 && r[1] == s[1],
            "trace {k}: {s:?} {r:?}"
        );
        if let Some((ps, pr)) = previous {
            assert!(
                (s[0] - ps[0] - CELL).abs() < 1e-12 && s[1] == ps[1],
                "trace {k}"
            );
            assert!(
                (r[0] - pr[0] - CELL).abs() < 1e-12 && r[1] == pr[1],
                "trace {k}"
            );
        }
        previous = Some((s, r));
        // The merged row is the trace's own probe record.
        let csv = std::fs::read_to_string(with.join(format!("trace_{k:03}/probe_rx.csv"))).unwrap();
        let own: Vec<f64> = (csv.lines().skip(1))
            .map(|l| l.rsplit(',').next().unwrap().trim().parse().unwrap())
            .collect();
        assert_eq!(own, values[k * samples..(k + 1) * samples], "trace {k}");
        let reflected: Vec<f64> = (0..samples)
            .map(|j| values[k * samples + j] - values0[k * samples + j])
            .collect();
        let picked = peak_time(&reflected, t0, dt);
        let ray = delay + two_way_path(s, r) / velocity + offset;
        let error = (picked - ray) / dt;
        worst = worst.max(error.abs());
        assert!(
            error.abs() <= 1.0,
            "trace {k} (source at {s:?}): the reflection peaks at {picked:e} s, ray theory says \
             {ray:e} s: {error:+.2} steps"
        );
    }
    eprintln!(
        "60 traces twice in {seconds:.1} s; worst arrival {worst:.2} steps (wavelet peak at {:.2} \
         steps from the ray)",
        offset / dt
    );
    let image = yee_io::png::read_rgb(&with.join("bscan_rx_ez.png")).unwrap();
    assert_eq!((image.0, image.1), yee_io::bscan_plot::SIZE);
}

/// `--jobs 3` runs three traces at a time, on threads of their own: the merged B-scan is the
/// one `--jobs 1` writes, bit for bit, each row the trace of its own index whichever ends
/// first, and so are each trace's record and the positions run.json lists.
#[test]
fn traces_side_by_side_merge_as_traces_in_turn() {
    let dir = crate::tmp_dir(module_path!());
    let text = scene("jobs", true, 7, "");
    let file = dir.join("jobs.toml");
    std::fs::write(&file, &text).unwrap();
    let run = |jobs: &str| {
        let out = dir.join(format!("jobs{jobs}"));
        let _ = std::fs::remove_dir_all(&out);
        let status = Command::new(env!("CARGO_BIN_EXE_yee"))
            .args(["run", "--quiet", "--jobs", jobs, "--out"])
            .arg(&out)
            .arg(&file)
            .status()
            .unwrap();
        assert!(status.success(), "--jobs {jobs}");
        out
    };
    let (one, three) = (run("1"), run("3"));
    let (a, b) = (
        read_json(&one.join("run.json")),
        read_json(&three.join("run.json")),
    );
    assert_eq!((a["jobs"].as_u64(), b["jobs"].as_u64()), (Some(1), Some(3)));
    assert_eq!(b["status"], "complete");
    let positions = |r: &Value| -> Vec<Value> {
        (r["traces"].as_array().unwrap().iter())
            .map(|t| serde_json::json!([t["sources"], t["receivers"]]))
            .collect()
    };
    assert_eq!(positions(&a), positions(&b));
    let read = |out: &Path, file: &str| std::fs::read(out.join(file)).unwrap();
    assert!(
        read(&one, "bscan_rx_ez.npy") == read(&three, "bscan_rx_ez.npy"),
        "the merged B-scans differ"
    );
    // The rows differ from trace to trace, so a row out of place would show.
    let (shape, values) = bscan(&three);
    let row = |k: usize| &values[k * shape[1]..(k + 1) * shape[1]];
    assert!((1..7).all(|k| row(k) != row(k - 1)));
    for k in 0..7 {
        let probe = format!("{}/probe_rx.csv", trace_folder(k));
        assert!(read(&one, &probe) == read(&three, &probe), "trace {k}");
    }
}

fn trace_folder(k: usize) -> String {
    format!("trace_{k:03}")
}

/// `yee` with `args` on the scene `text` written to `dir/name.toml`: (success, stdout, stderr).
fn yee(dir: &Path, name: &str, text: &str, args: &[&str]) -> (bool, String, String) {
    let file = dir.join(format!("{name}.toml"));
    std::fs::write(&file, text).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_yee"))
        .args(args)
        .arg(&file)
        .output()
        .unwrap();
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (out.status.success(), text(&out.stdout), text(&out.stderr))
}

#[test]
fn yee_check_describes_the_scan() {
    let dir = crate::tmp_dir(module_path!());
    let (ok, stdout, stderr) = yee(&dir, "check", &scene("check", true, COUNT, ""), &["check"]);
    assert!(ok, "{stderr}");
    assert!(stdout.contains("scan        60 traces"), "{stdout}");
    assert!(
        stdout.contains("first trace 0: sources[0] at [0.1, 0.35] m, rx at [0.12, 0.35] m"),
        "{stdout}"
    );
    assert!(
        stdout.contains("last  trace 59: sources[0] at [0.395, 0.35] m, rx at [0.415, 0.35] m"),
        "{stdout}"
    );
}

#[test]
fn bad_scans_name_the_key_the_trace_and_the_object() {
    let dir = crate::tmp_dir(module_path!());
    let refused = |name: &str, text: String| {
        let (ok, _, stderr) = yee(&dir, name, &text, &["check"]);
        assert!(!ok, "{name} passed");
        stderr
    };
    // 80 traces carry the receiver from x = 24 cells to 103: into the x_high CPML at 90.
    let e = refused("into_cpml", scene("into_cpml", false, 80, ""));
    assert!(
        e.contains("scan.count") && e.contains("trace 67") && e.contains("receiver rx"),
        "{e}"
    );
    assert!(e.contains("x_high CPML"), "{e}");
    let e = refused(
        "half_cell",
        scene("half_cell", false, 10, "")
            .replace("src_steps = [0.005, 0]", "src_steps = [0.0025, 0]"),
    );
    assert!(
        e.contains("scan.src_steps[0]") && e.contains("0.5 cells"),
        "{e}"
    );
    let e = refused(
        "receiver",
        scene("receiver", false, 10, "receivers = [\"tx\"]"),
    );
    assert!(e.contains("scan.receivers[0]") && e.contains("`tx`"), "{e}");
    let e = refused("no_traces", scene("no_traces", false, 0, ""));
    assert!(e.contains("scan.count"), "{e}");
    let e = refused(
        "dims",
        scene("dims", false, 10, "").replace("rx_steps = [0.005, 0]", "rx_steps = [0.005]"),
    );
    assert!(e.contains("scan.rx_steps") && e.contains("needs 2"), "{e}");
    let e = refused("unknown", scene("unknown", false, 10, "step = 1"));
    assert!(e.contains("scan") && e.contains("step"), "{e}");
}

/// SIGTERM during a trace stops the scan: exit status 130, the trace's own run.json and the
/// scan's say "interrupted", and the scan's lists no trace as complete.
#[cfg(unix)]
#[test]
fn an_interrupted_scan_says_so() {
    let dir = crate::tmp_dir(module_path!());
    let file = dir.join("interrupted.toml");
    std::fs::write(&file, scene("interrupted", false, 10, "")).unwrap();
    let out = dir.join("interrupted");
    let _ = std::fs::remove_dir_all(&out);
    // Far more steps than the test waits for.
    let mut child = Command::new(env!("CARGO_BIN_EXE_yee"))
        .args([
            "run",
            "--quiet",
            "--backend",
            "scalar",
            "--steps",
            "100000000",
        ])
        .args(["--checkpoint-every", "40", "--out"])
        .arg(&out)
        .arg(&file)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Once the first trace steps (its first checkpoint is there), the handlers are in place.
    yee_tests::wait_for_checkpoint(&out.join("trace_000"), &mut child);
    let status = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(130));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("0 of 10 traces complete"), "{stderr}");
    let report = read_json(&out.join("run.json"));
    assert_eq!(report["status"], "interrupted");
    assert_eq!(report["traces_complete"], 0);
    assert_eq!(report["traces"][0]["status"], "pending");
    let trace = read_json(&out.join("trace_000/run.json"));
    assert_eq!(trace["status"], "interrupted");
    assert!(
        !out.join("trace_001").exists(),
        "no trace starts after the stop"
    );
}
