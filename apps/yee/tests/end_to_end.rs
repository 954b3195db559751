//! `yee run` on every example scene: run.json, .npy, .png, .vti and probe CSVs are checked
//! against the grid and the step count, and `yee check`'s memory estimate against the run's
//! peak (within 15 %); the cavity scene's resonance against theory.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;
use yee_io::slice_plot::image_size;

const STEPS: u64 = 24;

/// Held by the tests that write the examples' normalisation runs into `out/` (the folder the
/// examples' `minus` keys name), so they do not overwrite each other's files mid-run.
static SHARED_OUT: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn yee() -> Command {
    Command::new(env!("CARGO_BIN_EXE_yee"))
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn out_dir(name: &str) -> PathBuf {
    let dir = crate::tmp_dir(module_path!()).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn run_scene(scene: &Path, out: &Path, steps: u64) -> Value {
    let status = yee()
        .args([
            "run",
            scene.to_str().unwrap(),
            "--quiet",
            "--steps",
            &steps.to_string(),
            "--out",
        ])
        .arg(out)
        .status()
        .unwrap();
    assert!(status.success(), "yee run {} failed", scene.display());
    serde_json::from_str(&std::fs::read_to_string(out.join("run.json")).unwrap()).unwrap()
}

fn npy_shape(path: &Path) -> Vec<usize> {
    let bytes = std::fs::read(path).unwrap();
    assert_eq!(&bytes[..8], b"\x93NUMPY\x01\x00", "{}", path.display());
    let len = u16::from_le_bytes([bytes[8], bytes[9]]) as usize;
    let header = std::str::from_utf8(&bytes[10..10 + len]).unwrap();
    let shape = header
        .split("'shape': (")
        .nth(1)
        .unwrap()
        .split(')')
        .next()
        .unwrap();
    shape
        .split(',')
        .filter_map(|s| s.trim().parse().ok())
        .collect()
}

/// `fields`: the scene writes slices and snapshots (every example but the band-structure and scan
/// ones, which sample probes for `yee bands`).
fn check_outputs(report: &Value, out: &Path, want_steps: u64, fields: bool) {
    let grid: Vec<usize> = report["grid"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap() as usize)
        .collect();
    let dims = report["dims"].as_u64().unwrap() as usize;
    let steps = report["steps"].as_u64().unwrap();
    assert_eq!(steps, want_steps);
    let mode = report["mode"].as_str().unwrap();
    assert_eq!(
        dims,
        match mode {
            "1d" => 1,
            "tmz" | "tez" => 2,
            _ => 3,
        }
    );
    assert!(
        grid[dims..].iter().all(|&n| n == 1),
        "unused axes have extent 1: {grid:?}"
    );
    let cells: usize = grid.iter().product();
    let seconds = |key: &str| report[key].as_f64().unwrap();
    let (wall, setup, stepping) = (
        seconds("wall_seconds"),
        seconds("setup_seconds"),
        seconds("step_seconds"),
    );
    assert!(
        setup >= 0.0 && stepping > 0.0 && setup + stepping <= wall,
        "{report}"
    );
    // The outputs written after the last step (every scene here has some) took some time.
    assert!(seconds("finishing_seconds") > 0.0, "{report}");
    let work = cells as f64 * steps as f64 / 1e6;
    let (rate, end_to_end) = (seconds("mcells_per_s"), seconds("end_to_end_mcells_per_s"));
    assert!((rate - work / stepping).abs() <= 1e-9 * rate.max(1.0));
    assert!((end_to_end - work / wall).abs() <= 1e-9 * rate.max(1.0));
    assert!(end_to_end <= rate);
    assert!(report["dt"].as_f64().unwrap() > 0.0);
    assert!(report["peak_rss_bytes"].as_u64().unwrap() > 0);
    for key in ["scene", "value_type"] {
        assert!(report[key].is_string(), "{key}");
    }
    let outputs: Vec<&str> = report["outputs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert!(!outputs.is_empty());
    let expected_shape: Vec<usize> = grid[..dims].iter().rev().copied().collect();
    let (mut pngs, mut npys, mut vtis) = (0, 0, 0);
    for file in &outputs {
        let path = out.join(file);
        assert!(path.is_file(), "{file} listed but missing");
        if file.starts_with("flux_")
            || file.starts_with("farfield_")
            || file.starts_with("dft_")
            || file.starts_with("modes_")
        {
            // Spectra: checked below from run.json's entries.
            continue;
        }
        if file.ends_with(".npy") {
            assert_eq!(npy_shape(&path), expected_shape, "{file}");
            npys += 1;
        } else if file.ends_with(".png") {
            let decoder = png::Decoder::new(std::fs::File::open(&path).unwrap());
            let reader = decoder.read_info().unwrap();
            let (w, h) = match dims {
                // Probe plots are two line plots side by side (the record and its spectrum),
                // 1D slices one.
                _ if file.starts_with("probe_") => yee_io::plot::panels_size(2),
                _ if dims == 1 => yee_io::plot::SIZE,
                3 => {
                    // Plane normal to the slice axis, named in the file: slice_<c>_<axis><i>_<step>.
                    let axis = file.split('_').nth(2).unwrap().chars().next().unwrap();
                    let (u, v) = match axis {
                        'x' => (1, 2),
                        'y' => (0, 2),
                        _ => (0, 1),
                    };
                    image_size([grid[u], grid[v]])
                }
                _ => image_size([grid[0], grid[1]]),
            };
            assert_eq!(
                (reader.info().width, reader.info().height),
                (w, h),
                "{file}"
            );
            pngs += 1;
        } else if file.ends_with(".vti") {
            let bytes = std::fs::read(&path).unwrap();
            let extent = format!(r#"WholeExtent="0 {} 0 {} 0 {}""#, grid[0], grid[1], grid[2]);
            let head = String::from_utf8_lossy(&bytes[..bytes.len().min(4096)]);
            assert!(head.contains(&extent), "{file}: no {extent}");
            let arrays = yee_io::vti::appended_arrays(&bytes).expect("appended arrays");
            assert!(!arrays.is_empty(), "{file}");
            for (name, kind, at, count) in arrays {
                let width = if kind == "Float32" { 4 } else { 8 };
                assert_eq!(count, cells * width, "{file}: {name}");
                assert!(
                    at + count <= bytes.len(),
                    "{file}: {name} runs past the end"
                );
            }
            vtis += 1;
        }
    }
    assert!(
        !fields || pngs > 0 && npys > 0 && vtis > 0,
        "every example but the band-structure ones writes slices and snapshots"
    );
    for flux in report["fluxes"].as_array().unwrap() {
        let csv = std::fs::read_to_string(out.join(flux["csv"].as_str().unwrap())).unwrap();
        let count = flux["frequencies"].as_array().unwrap().len();
        assert!(csv.starts_with("frequency,flux") && csv.lines().count() == count + 1);
        let dft = out.join(flux["dft"].as_str().unwrap());
        assert_eq!(npy_shape(&dft)[1..], [count, 6]);
    }
    for modes in report["modes"].as_array().into_iter().flatten() {
        let csv = std::fs::read_to_string(out.join(modes["csv"].as_str().unwrap())).unwrap();
        let count = modes["frequencies"].as_array().unwrap().len();
        let per = modes["modes"].as_array().unwrap().len();
        assert!(csv.starts_with("frequency,mode,n_eff,") && csv.lines().count() == count * per + 1);
        assert!(out.join(modes["png"].as_str().unwrap()).is_file());
    }
    for probe in report["probes"].as_array().unwrap() {
        let file = probe["file"].as_str().unwrap();
        let text = std::fs::read_to_string(out.join(file)).unwrap();
        let mut lines = text.lines();
        assert!(
            lines.next().unwrap().starts_with("step,time,"),
            "{file} header"
        );
        let rows: Vec<&str> = lines.collect();
        assert_eq!(rows.len() as u64, steps, "{file} rows");
        assert!(
            rows[0].starts_with("1,") && rows.last().unwrap().starts_with(&format!("{steps},"))
        );
        assert!(outputs.contains(&file));
    }
}

#[test]
fn every_example_scene_runs_and_writes_readable_outputs() {
    let _out = SHARED_OUT.lock().unwrap_or_else(|p| p.into_inner());
    let scenes = repo().join("examples/scenes");
    let mut names: Vec<PathBuf> = std::fs::read_dir(&scenes)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    // Normalisation runs first, into the folder their partner's `minus` names.
    names.sort_by_key(|p| (!p.to_string_lossy().ends_with("_incident.toml"), p.clone()));
    assert!(names.len() >= 5, "five example scenes ship");
    for scene in names {
        let stem = scene.file_stem().unwrap().to_string_lossy().into_owned();
        let out = if stem.ends_with("_incident") {
            repo().join("out").join(&stem)
        } else {
            out_dir(&format!("e2e_{stem}"))
        };
        // A `[[resonances]]` block needs samples after its `after` (the ring's: step 2000).
        let text = std::fs::read_to_string(&scene).unwrap();
        let steps = match text.contains("[[resonances]]") {
            true => 2400,
            false => STEPS,
        };
        let report = run_scene(&scene, &out, steps);
        if text.contains("\n[scan]") {
            check_scan_outputs(&report, &out, steps);
            // The traces run one after another in this process: the last holds its peak.
            let last = report["traces"].as_array().unwrap().last().unwrap();
            let trace = out.join(last["folder"].as_str().unwrap());
            crate::memory::assert_estimate_within_15_percent(&scene, &trace);
            continue;
        }
        crate::memory::assert_estimate_within_15_percent(&scene, &out);
        assert_eq!(report["scene"], stem.as_str());
        check_outputs(&report, &out, steps, !text.contains("\n[bands]"));
    }
}

/// A scan's outputs: every trace a run of its own (checked as one), and each receiver's
/// merged B-scan of traces × steps with its plot.
fn check_scan_outputs(report: &Value, out: &Path, steps: u64) {
    assert_eq!(report["status"], "complete");
    let traces = report["traces"].as_array().unwrap();
    assert_eq!(report["traces_complete"], traces.len());
    for trace in traces {
        let folder = out.join(trace["folder"].as_str().unwrap());
        let own: Value =
            serde_json::from_str(&std::fs::read_to_string(folder.join("run.json")).unwrap())
                .unwrap();
        check_outputs(&own, &folder, steps, false);
    }
    for bscan in report["bscans"].as_array().unwrap() {
        let file = out.join(bscan["file"].as_str().unwrap());
        assert_eq!(npy_shape(&file), [traces.len(), steps as usize]);
        assert!(out.join(bscan["plot"].as_str().unwrap()).is_file());
    }
}

/// The normalisation workflow end to end: the incident run, then the slab run subtracting its
/// reflection-plane fields; R + T = 1 for the lossless slab (tests/tests/flux.rs holds R and T
/// to the Airy formula).
#[test]
fn slab_spectrum_pair_conserves_power() {
    let _out = SHARED_OUT.lock().unwrap_or_else(|p| p.into_inner());
    let scenes = repo().join("examples/scenes");
    let incident = run_scene(
        &scenes.join("slab_spectrum_incident.toml"),
        &repo().join("out/slab_spectrum_incident"),
        4800,
    );
    let out = out_dir("slab_spectrum_pair");
    let slab = run_scene(&scenes.join("slab_spectrum.toml"), &out, 4800);
    let flux = |report: &Value, name: &str| -> Vec<f64> {
        let entry = report["fluxes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["name"] == name)
            .unwrap();
        entry["flux"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_f64().unwrap())
            .collect()
    };
    let (r0, t0) = (flux(&incident, "refl"), flux(&incident, "trans"));
    let (r, t) = (flux(&slab, "refl"), flux(&slab, "trans"));
    let mut worst = 0.0f64;
    let mut largest_r = 0.0f64;
    for k in 0..r.len() {
        let (big_r, big_t) = (-r[k] / r0[k], t[k] / t0[k]);
        worst = worst.max((big_r + big_t - 1.0).abs());
        largest_r = largest_r.max(big_r);
    }
    assert!(worst < 1e-4, "R + T − 1 reaches {worst}");
    // Two faces of n = 2: R peaks at 4r²/(1 + r²)² = 0.36 between the Fabry–Pérot minima.
    assert!((largest_r - 0.36).abs() < 0.01, "peak R {largest_r}");
    assert!(out.join("flux_refl.png").exists() && out.join("flux_refl_dft.npy").exists());
}

/// The sphere example's scattering cross-section (the flux box's `cross_section`: scattered
/// power over the plane wave's intensity) against the Mie series at the nominal radius, and
/// the power of its far field against the flux through the same box.
#[test]
fn sphere_example_scatters_like_mie() {
    let out = out_dir("sphere_scattering");
    let report = run_scene(
        &repo().join("examples/scenes/sphere_scattering.toml"),
        &out,
        350,
    );
    let flux = &report["fluxes"][0];
    let numbers = |v: &Value| -> Vec<f64> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_f64().unwrap())
            .collect()
    };
    let frequencies = numbers(&flux["frequencies"]);
    let sigma = numbers(&flux["cross_section"]);
    let power = numbers(&flux["flux"]);
    let far = numbers(&flux["far_field"]["radiated_power"]);
    let mut worst = 0.0f64;
    for (k, &f) in frequencies.iter().enumerate() {
        let mie =
            yee_em::mie::scattering_cross_section(num_complex::Complex64::new(2.0, 0.0), 8.0, f)
                .unwrap();
        worst = worst.max((sigma[k] / mie - 1.0).abs());
        let far_error = (far[k] / power[k] - 1.0).abs();
        assert!(
            far_error < 0.01,
            "far-field power off the box flux by {far_error} at f = {f}"
        );
    }
    eprintln!(
        "sphere example: σ_sca within {:.2} % of Mie at the nominal radius",
        100.0 * worst
    );
    assert!(worst < 0.04, "σ_sca misses Mie by {worst}");
    let csv = std::fs::read_to_string(out.join("farfield_scattered.csv")).unwrap();
    assert!(
        csv.starts_with("frequency,theta_deg,phi_deg,")
            && csv.lines().next().unwrap().ends_with(",rcs")
    );
    assert_eq!(csv.lines().count(), 1 + 21 * 12 * 24);
}

/// A `[[dft]]` output of a 1D plane wave: at every node the transform of Ez is the incident
/// pulse's spectrum `A W(f)` (the same sum over E's sample times), and from node to node its
/// phase advances by the grid's wavenumber `2 asin(sin(πfΔt)/S)` (Taflove & Hagness, eq. (4.12)).
#[test]
fn dft_output_holds_the_incident_spectrum() {
    let scene = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scenes/dft_plane_wave.toml");
    let out = out_dir("dft_plane_wave");
    let report = run_scene(&scene, &out, 2400);
    let entry = &report["dfts"][0];
    assert_eq!(entry["components"], serde_json::json!(["ez", "hy"]));
    let bytes = std::fs::read(out.join(entry["file"].as_str().unwrap())).unwrap();
    let (shape, values) = yee_io::npy::read_array::<num_complex::Complex64>(&bytes).unwrap();
    assert_eq!(shape, vec![3, 2, 200]);
    let (dt, amplitude) = (0.5, 1.0);
    for (k, f) in [0.03f64, 0.04, 0.05].into_iter().enumerate() {
        let omega = 2.0 * std::f64::consts::PI * f;
        let spectrum: num_complex::Complex64 = (0..2400)
            .map(|n| {
                let t = (n as f64 + 1.0) * dt;
                let w = (-(t - 100.0f64).powi(2) / 800.0).exp()
                    * (2.0 * std::f64::consts::PI * 0.04 * (t - 100.0)).cos();
                num_complex::Complex64::from_polar(amplitude * w * dt, omega * t)
            })
            .sum();
        let ez = &values[k * 400..k * 400 + 200];
        let k_grid = 2.0 * ((omega * dt / 2.0).sin() / dt).asin();
        // The wave enters at x = 40 and node i sits at x = 100 + i: a delay τ multiplies the
        // transform (sign +iωt) by e^{+iωτ}, so the wave's phase runs ahead by k per cell.
        let expected = spectrum * num_complex::Complex64::from_polar(1.0, k_grid * 60.0);
        // The launch (the analytic pulse handed to the discrete line five cells before the
        // entry, delayed at the line's phase velocity of the carrier) is good to O((kΔ)²) off
        // the carrier: measured 9e-4 at f = 0.03.
        assert!(
            (ez[0] - expected).norm() < 2e-3 * spectrum.norm(),
            "f = {f}: {} against {expected}",
            ez[0]
        );
        // Exact for the discrete plane wave, up to what the CPML sends back of the pulse's
        // small DC part (3e-6 of its spectrum's peak): measured 1.2e-6.
        let advance = num_complex::Complex64::from_polar(1.0, k_grid);
        for i in 1..200 {
            assert!(
                (ez[i] - ez[i - 1] * advance).norm() < 1e-5 * spectrum.norm(),
                "f = {f}, node {i}: the phase does not advance by the grid's wavenumber: {:e}",
                (ez[i] - ez[i - 1] * advance).norm() / spectrum.norm()
            );
        }
    }
}

#[test]
fn cavity_scene_rings_at_the_lowest_resonance() {
    use yee_em::spectrum::resonances;
    let out = out_dir("e2e_cavity_resonance");
    let report = run_scene(&repo().join("examples/scenes/cavity3d.toml"), &out, 8000);
    let dt = report["dt"].as_f64().unwrap();
    let text = std::fs::read_to_string(out.join("probe_ey.csv")).unwrap();
    let signal: Vec<f64> = text
        .lines()
        .skip(1)
        .map(|l| l.split(',').nth(2).unwrap().parse().unwrap())
        .collect();
    let mut found = [0.0; 1];
    assert_eq!(
        resonances(&signal[300..], dt, 0.02, 0.047, 1e-3, &mut found),
        1
    );
    let theory = ((1.0f64 / 625.0) + (1.0 / 900.0)).sqrt() / 2.0;
    let rel = (found[0] / theory - 1.0).abs();
    assert!(
        rel <= 3e-3,
        "lowest resonance {} vs {theory}: {rel:e}",
        found[0]
    );
}

#[test]
fn check_shows_where_the_geometry_landed() {
    let check = |name: &str| {
        let scene = repo().join("examples/scenes").join(name);
        let out = yee().arg("check").arg(&scene).output().unwrap();
        assert!(out.status.success(), "yee check {name}");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    // The slab's comment says 100 cells for Ez and Hy alike.
    let slab = check("slab1d.toml");
    assert!(
        slab.contains("volume      glass: grid 100 cells (ez, hy); analytic 100\n"),
        "{slab}"
    );
    // The soil reaches the grid's faces: the counts are not comparable, and the line says so.
    let soil = check("dipole_halfspace3d.toml");
    assert!(
        soil.lines()
            .any(|l| l.starts_with("volume      soil: grid ex ")
                && l.ends_with("; analytic 90000, clipped by the grid's faces")),
        "{soil}"
    );
}

#[test]
fn bad_command_lines_name_what_is_available() {
    let scene = repo().join("examples/scenes/dipole2d.toml");
    let scene = scene.to_str().unwrap();
    let stderr_of = |args: &[&str]| {
        let out = yee().arg("run").arg(scene).args(args).output().unwrap();
        assert!(!out.status.success(), "{args:?} should fail");
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    assert!(stderr_of(&["--comm", "tcp"]).contains("[possible values: shm, sim, mpi]"));
    if cfg!(not(feature = "mpi")) {
        let e = stderr_of(&["--comm", "mpi"]);
        assert!(e.contains("this yee was built without MPI"), "{e}");
    }
    assert!(
        stderr_of(&["--ranks", "4", "--topology", "3x2"])
            .contains("topology 3x2x1 has 6 ranks, not 4")
    );
    let e = stderr_of(&["--ranks", "50000"]);
    assert!(
        e.contains("cannot be split into 50000 chunks at least 1 cell(s) wide"),
        "{e}"
    );
    let e = stderr_of(&["--topology", "2x2x2"]);
    assert!(
        e.contains("splits the z axis, which this grid does not use"),
        "{e}"
    );
    let out = yee()
        .args(["run", scene, "--backend", "cuda"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    // Without the `cuda` feature the run says how to rebuild; with it and no driver, that
    // there is none.
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(
        e.contains("built without the `cuda` feature") || e.contains("no CUDA driver found"),
        "{e}"
    );
    let out = yee()
        .args(["run", scene, "--backend", "opencl"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(
        e.contains("[possible values: scalar, rayon, cuda, cuda-emulated]"),
        "{e}"
    );
    let out = yee().args(["run", scene, "--steps", "0"]).output().unwrap();
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("--steps: 0: a run needs at least one step")
    );
    let out = yee().args(["bench", "--threads", "1,0"]).output().unwrap();
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("--threads: a thread count must be at least 1")
    );
    let out = yee().args(["bench", "--rounds", "0"]).output().unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--rounds: must be at least 1"));
}

/// A run into a folder an earlier run wrote clears the earlier run's files (those its run.json
/// lists) and nothing else: afterwards the folder holds this run's files and the user's own.
#[test]
fn a_second_run_clears_the_first_runs_files_only() {
    let scene = repo().join("examples/scenes/dipole2d.toml");
    let out = out_dir("rerun");
    let first = run_scene(&scene, &out, 40);
    std::fs::write(out.join("notes.txt"), "mine").unwrap();
    let second = run_scene(&scene, &out, 20);
    let listed = |r: &Value| -> Vec<String> {
        r["outputs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap().to_string())
            .collect()
    };
    let (before, after) = (listed(&first), listed(&second));
    assert!(
        before.iter().any(|f| !after.contains(f)),
        "the runs write different files"
    );
    let mut present: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    present.sort();
    let mut expected = after.clone();
    expected.extend(["notes.txt".to_string(), "run.json".to_string()]);
    expected.sort();
    assert_eq!(present, expected);
}

/// `yee run` of `scene` into `out` with `extra` arguments, which must fail: its stderr and the
/// run.json it still leaves.
fn run_failing(scene: &Path, out: &Path, extra: &[&str]) -> (String, Value) {
    let run = yee()
        .args(["run", scene.to_str().unwrap(), "--quiet", "--out"])
        .arg(out)
        .args(extra)
        .output()
        .unwrap();
    assert!(!run.status.success(), "{} should fail", scene.display());
    let report = serde_json::from_str(&std::fs::read_to_string(out.join("run.json")).unwrap());
    (
        String::from_utf8_lossy(&run.stderr).into_owned(),
        report.unwrap(),
    )
}

/// A diverging run exits non-zero naming the step and node, and still leaves a run.json with
/// `"status": "diverged"`, the error, and the probe records it has; a finished run says
/// `"complete"`.
#[test]
fn a_diverged_run_says_so_in_its_run_json() {
    let scene = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scenes/diverging.toml");
    let out = out_dir("diverging");
    let (stderr, report) = run_failing(&scene, &out, &[]);
    assert!(
        stderr.contains("diverged") && stderr.contains("step"),
        "{stderr}"
    );
    assert_eq!(report["status"], "diverged");
    assert!(
        report["error"]
            .as_str()
            .unwrap()
            .contains("non-finite at step")
    );
    assert!(out.join("probe_near.csv").exists());
    assert!(
        !out.join("flux_through.csv").exists(),
        "no spectra of non-finite fields"
    );
    let fine = run_scene(
        &repo().join("examples/scenes/dipole2d.toml"),
        &out_dir("complete"),
        10,
    );
    assert_eq!(fine["status"], "complete");
    assert!(fine["error"].is_null());
}

/// An output that cannot be written (here a folder stands where a slice goes) fails the run:
/// it exits non-zero, and its run.json says `"failed"`, why, and lists only the files written
/// whole; no temporary file is left behind.
#[test]
fn a_failed_output_leaves_a_run_json_of_the_valid_files() {
    let out = out_dir("failed_output");
    std::fs::create_dir_all(out.join("slice_ez_000050.png")).unwrap();
    let scene = repo().join("examples/scenes/dipole2d.toml");
    let (_, report) = run_failing(&scene, &out, &["--steps", "120"]);
    assert_eq!(report["status"], "failed");
    assert!(
        report["error"]
            .as_str()
            .unwrap()
            .contains("slice_ez_000050.png")
    );
    let outputs: Vec<&str> = report["outputs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    // The slices after the blocked one are written: the run went on.
    assert!(!outputs.contains(&"slice_ez_000050.png"));
    assert!(outputs.contains(&"slice_ez_000100.png") && outputs.contains(&"slice_ez_000120.png"));
    for file in &outputs {
        assert!(out.join(file).is_file(), "{file} listed but missing");
    }
    for entry in std::fs::read_dir(&out).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        assert!(!name.ends_with(".part"), "{name} left behind");
    }
}

#[test]
fn an_output_directory_that_cannot_be_created_is_an_error() {
    let blocker = out_dir("e2e_blocker");
    std::fs::write(&blocker, "a file, not a directory").unwrap();
    let scene = repo().join("examples/scenes/dipole2d.toml");
    let out = yee()
        .args(["run", scene.to_str().unwrap(), "--quiet", "--out"])
        .arg(blocker.join("sub"))
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("cannot create the output directory"),
        "{stderr}"
    );
    assert!(!stderr.contains("panicked"));
    std::fs::remove_file(&blocker).unwrap();
}

#[test]
fn decomposed_runs_write_the_same_fields_as_one_rank() {
    let scene = repo().join("examples/scenes/cylinder_tez.toml");
    let reference = out_dir("e2e_ranks_1");
    run_scene(&scene, &reference, STEPS);
    for (name, args) in [
        ("shm4", ["--ranks", "4", "--comm", "shm"]),
        ("sim6", ["--ranks", "6", "--comm", "sim"]),
    ] {
        let out = out_dir(&format!("e2e_ranks_{name}"));
        let status = yee()
            .args([
                "run",
                scene.to_str().unwrap(),
                "--quiet",
                "--steps",
                &STEPS.to_string(),
            ])
            .args(args)
            .arg("--out")
            .arg(&out)
            .status()
            .unwrap();
        assert!(status.success());
        for file in ["hz_000024.npy", "probe_behind.csv"] {
            let a = std::fs::read(reference.join(file)).unwrap();
            let b = std::fs::read(out.join(file)).unwrap();
            assert!(a == b, "{file} differs on {name}");
        }
        let report: Value =
            serde_json::from_str(&std::fs::read_to_string(out.join("run.json")).unwrap()).unwrap();
        assert_eq!(
            report["rank_stats"].as_array().unwrap().len(),
            report["ranks"].as_u64().unwrap() as usize
        );
    }
}

#[test]
fn topology_command_prints_candidates_and_the_choice() {
    let out = yee()
        .args(["topology", "--grid", "64x64x64", "--ranks", "8", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["candidates"].as_array().unwrap().len(), 10);
    assert_eq!(
        doc["chosen"],
        serde_json::json!({"n": 2, "m": 2, "k": 2, "f": 3456.0})
    );
    let out = yee()
        .args(["topology", "--grid", "256x256", "--ranks", "4", "--json"])
        .output()
        .unwrap();
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        doc["chosen"],
        serde_json::json!({"n": 2, "m": 2, "f": 256.0})
    );
    let out = yee()
        .args(["topology", "--grid", "1000", "--ranks", "3", "--json"])
        .output()
        .unwrap();
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["chosen"], serde_json::json!({"n": 3, "f": 1.0}));
    let out = yee()
        .args(["topology", "--grid", "64x64x64", "--ranks", "8"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.lines()
            .any(|l| l.contains("3D-XYZ") && l.contains("3456") && l.contains("<- chosen")),
        "{text}"
    );
    let out = yee()
        .args(["topology", "--grid", "4x0", "--ranks", "2"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("--grid 4x0: expected 1 to 3 positive integers")
    );
}

/// Field slices carry the material outlines by default and lose them with `outlines = false`:
/// the same frame drawn both ways differs by black outline pixels, and only by them.
#[test]
fn field_slices_carry_material_outlines() {
    let scene = |outlines: bool| {
        format!(
            r#"
name = "outlines"

[grid]
mode = "tmz"
size = [60, 40]

[materials.glass]
eps = 4.0

[[geometry]]
shape = "box"
material = "glass"
lo = [20, 10]
hi = [40, 30]

[[sources]]
component = "ez"
position = [10, 20]
waveform = "ricker"
frequency = 0.05

[[output.slices]]
component = "ez"
every = 20
outlines = {outlines}

[run]
steps = 20
"#
        )
    };
    let dir = out_dir("outlines");
    std::fs::create_dir_all(&dir).unwrap();
    let mut images = Vec::new();
    for outlines in [true, false] {
        let path = dir.join(format!("outlines_{outlines}.toml"));
        std::fs::write(&path, scene(outlines)).unwrap();
        let out = dir.join(format!("out_{outlines}"));
        run_scene(&path, &out, 20);
        images.push(yee_io::png::read_rgb(&out.join("slice_ez_000020.png")).unwrap());
    }
    let ((w, h, with), (w2, h2, without)) = (&images[0], &images[1]);
    assert_eq!((w, h), (w2, h2));
    let (w, h) = (*w as usize, *h as usize);
    let at = |image: &[u8], x: usize, y: usize| -> [u8; 3] {
        let i = 3 * (y * w + x);
        [image[i], image[i + 1], image[i + 2]]
    };
    let black = |p: [u8; 3]| p == [0, 0, 0];
    let added = |x: usize, y: usize| black(at(with, x, y)) && !black(at(without, x, y));
    let count = (0..h)
        .flat_map(|y| (0..w).map(move |x| (x, y)))
        .filter(|&(x, y)| added(x, y))
        .count();
    // The box's outline: 4 × 20 cells of edge, each several pixels long.
    assert!(count >= 80, "{count} outline pixels");
    // Every other pixel that changed is the lines' anti-aliased fringe, next to an added one.
    for y in 0..h {
        for x in 0..w {
            if at(with, x, y) != at(without, x, y) && !added(x, y) {
                let near = (y.saturating_sub(2)..(y + 3).min(h))
                    .any(|v| (x.saturating_sub(2)..(x + 3).min(w)).any(|u| added(u, v)));
                assert!(near, "pixel ({x}, {y}) changed away from the outline");
            }
        }
    }
}
