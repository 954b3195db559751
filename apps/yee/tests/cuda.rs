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

/// The device acceptance scene: CPML, a periodic axis, a sphere and a lossy block across the
/// borders, a soft and a hard source, two probes, snapshots of every component; 40 steps.
#[cfg(feature = "cuda")]
fn device3d(value_type: &str) -> PathBuf {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scenes/device3d.toml"),
    )
    .unwrap();
    let text = text.replace(
        "[grid]\n",
        &format!("[grid]\nvalue_type = \"{value_type}\"\n"),
    );
    let dir = crate::tmp_dir(module_path!());
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("device3d_{value_type}.toml"));
    std::fs::write(&path, text).unwrap();
    path
}

/// `yee run scene --quiet --out DIR extra…` into a fresh folder `name`, which must succeed;
/// returns the folder and run.json.
#[cfg(feature = "cuda")]
fn run_into(scene: &Path, name: &str, extra: &[&str]) -> (PathBuf, serde_json::Value) {
    let out = crate::tmp_dir(module_path!()).join(name);
    let _ = std::fs::remove_dir_all(&out);
    let mut args = vec!["run", scene.to_str().unwrap(), "--quiet", "--out"];
    args.push(out.to_str().unwrap());
    args.extend(extra);
    let output = yee(&args);
    assert!(
        output.status.success(),
        "{name}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let doc = serde_json::from_str(&std::fs::read_to_string(out.join("run.json")).unwrap());
    (out, doc.unwrap())
}

/// Every snapshot, probe record, flux spectrum and DFT array (`.npy`, `.csv`) of `expected` is
/// in `actual` with the same bytes.
#[cfg(feature = "cuda")]
fn assert_same_outputs(expected: &Path, actual: &Path, what: &str) {
    let mut compared = 0;
    for entry in std::fs::read_dir(expected).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_str().unwrap().to_string();
        if !(name.ends_with(".npy") || name.ends_with(".csv")) {
            continue;
        }
        let theirs =
            std::fs::read(actual.join(&name)).unwrap_or_else(|e| panic!("{what}: no {name}: {e}"));
        assert!(
            std::fs::read(&path).unwrap() == theirs,
            "{what}: {name} differs from the one-rank scalar run's"
        );
        compared += 1;
    }
    assert!(
        compared >= 10,
        "{what}: six snapshots, two probes and the flux box's spectra and DFT sums: {compared}"
    );
}

/// The device chunk on emulated-device ranks writes the one-rank scalar run's bytes, f32 and
/// f64: on one rank, decomposed on shm and on sim (halos over both streams, a rank its own
/// neighbour across the periodic axis), statically balanced by speed, and dynamically
/// balanced with a slowed rank, whose borders move (cells migrate between device chunks:
/// slabs and resizing on the device).
#[cfg(feature = "cuda")]
#[test]
fn the_emulated_device_writes_the_scalar_bytes_decomposed_and_balanced() {
    for value_type in ["f32", "f64"] {
        let scene = device3d(value_type);
        let (one, _) = run_into(
            &scene,
            &format!("one_{value_type}"),
            &["--backend", "scalar"],
        );
        let device = ["--backend", "cuda-emulated"];
        let cases: [(&str, &[&str]); 5] = [
            ("device_one", &[]),
            (
                "device_shm",
                &["--ranks", "4", "--topology", "2x2x1", "--comm", "shm"],
            ),
            (
                "device_sim",
                &["--ranks", "3", "--topology", "1x1x3", "--comm", "sim"],
            ),
            (
                "device_static",
                &[
                    "--ranks",
                    "3",
                    "--comm",
                    "sim",
                    "--balance",
                    "static",
                    "--speeds",
                    "1,3,1",
                ],
            ),
            (
                "device_dynamic",
                &[
                    "--ranks",
                    "3",
                    "--comm",
                    "shm",
                    "--balance",
                    "dynamic",
                    "--rebalance-every",
                    "5",
                    "--slowdown",
                    "1=2",
                ],
            ),
        ];
        for (name, extra) in cases {
            let name = format!("{name}_{value_type}");
            let (out, doc) = run_into(&scene, &name, &[&device[..], extra].concat());
            assert_eq!(doc["backend"], "cuda-emulated", "{name}");
            assert_same_outputs(&one, &out, &name);
            if name.starts_with("device_dynamic") {
                let balance = &doc["balance"];
                assert_ne!(
                    balance["initial_borders"], balance["final_borders"],
                    "{name}: the borders moved"
                );
            }
        }
    }
}

/// A checkpoint written by emulated-device ranks resumes on the scalar backend, and one
/// written by the scalar backend resumes on emulated-device ranks (another layout), both
/// bit for bit the run that was never stopped.
#[cfg(feature = "cuda")]
#[test]
fn checkpoints_go_from_and_onto_emulated_device_ranks() {
    let scene = device3d("f64");
    let (straight, _) = run_into(&scene, "ck_straight", &["--backend", "scalar"]);
    let every = ["--checkpoint-every", "25"];
    let device = ["--backend", "cuda-emulated"];
    let (from_device, doc) = run_into(
        &scene,
        "ck_device",
        &[&device[..], &["--ranks", "2", "--comm", "shm"], &every].concat(),
    );
    assert_eq!(doc["checkpoints"][0]["step"], 25, "{doc}");
    let (from_scalar, _) = run_into(
        &scene,
        "ck_scalar",
        &[&["--backend", "scalar"][..], &every].concat(),
    );
    for (name, from, extra) in [
        ("onto_scalar", &from_device, &["--backend", "scalar"][..]),
        (
            "onto_device",
            &from_scalar,
            &[
                "--backend",
                "cuda-emulated",
                "--ranks",
                "4",
                "--comm",
                "sim",
            ][..],
        ),
    ] {
        let resume = ["--resume", from.to_str().unwrap()];
        let (out, doc) = run_into(&scene, name, &[&resume[..], extra].concat());
        assert_eq!(doc["resumed_from"]["step"], 25, "{name}");
        assert_same_outputs(&straight, &out, name);
    }
}

/// The device scene with a lossy sphere smoothed with the full tensor: its surface nodes carry
/// the off-diagonal loss (issue 51's running sums), which the device's tensor pass runs (the
/// one C body, `yee_tensor_node`). On the emulated device, one rank and two on shm, it writes
/// the scalar run's bytes of the same scene, with no smoothing fallback in run.json; the
/// loss changes the fields (the lossless sphere's run writes other bytes).
#[cfg(feature = "cuda")]
#[test]
fn a_lossy_curved_surface_runs_its_off_diagonal_loss_on_the_device() {
    let dir = crate::tmp_dir(module_path!());
    let text = std::fs::read_to_string(device3d("f32")).unwrap();
    let lossy_text = text.replacen("eps = 2.25\n", "eps = 2.25\nsigma = 0.02\n", 1);
    assert_ne!(
        text, lossy_text,
        "the sphere's material is glass, eps = 2.25"
    );
    let lossy = dir.join("device3d_lossy_sphere.toml");
    std::fs::write(&lossy, lossy_text).unwrap();
    let (scalar, _) = run_into(&lossy, "lossy_scalar", &["--backend", "scalar"]);
    for (name, extra) in [
        ("lossy_device", &[][..]),
        ("lossy_device_shm", &["--ranks", "2", "--comm", "shm"][..]),
    ] {
        let args = [&["--backend", "cuda-emulated"][..], extra].concat();
        let (device, doc) = run_into(&lossy, name, &args);
        assert!(doc["smoothing_fallback"].is_null(), "{name}: {doc}");
        assert_same_outputs(&scalar, &device, name);
    }
    let (lossless, _) = run_into(
        &device3d("f32"),
        "lossless_scalar",
        &["--backend", "scalar"],
    );
    let snapshot = |d: &std::path::Path| std::fs::read(d.join("ex_000040.npy")).unwrap();
    assert_ne!(
        snapshot(&scalar),
        snapshot(&lossless),
        "the loss changes the fields"
    );
}

/// A Bloch-periodic scene (the device scene with complex fields and a Bloch wavevector along
/// its periodic z) on emulated-device ranks writes the one-rank scalar run's bytes, c32 and
/// c64: one rank (its own neighbour across the wrap), decomposed along z on sim (the wrap
/// between the first and the last rank) and on shm, and beside a rayon rank; the phase
/// reached the fields (the snapshots differ from the plain periodic run's).
#[cfg(all(feature = "cuda", feature = "rayon"))]
#[test]
fn a_bloch_scene_on_emulated_device_ranks_writes_the_scalar_bytes() {
    for value_type in ["c32", "c64"] {
        let plain = device3d(value_type);
        let text = std::fs::read_to_string(&plain).unwrap();
        let bloch_text = text.replacen(
            "z = \"periodic\"\n",
            "z = \"periodic\"\nk = [0, 0, 0.0371]\n",
            1,
        );
        assert_ne!(text, bloch_text, "the scene has a periodic z");
        let scene = plain.with_file_name(format!("device3d_bloch_{value_type}.toml"));
        std::fs::write(&scene, bloch_text).unwrap();
        let (one, _) = run_into(
            &scene,
            &format!("bloch_one_{value_type}"),
            &["--backend", "scalar"],
        );
        let (periodic, _) = run_into(
            &plain,
            &format!("bloch_plain_{value_type}"),
            &["--backend", "scalar"],
        );
        let ez = |dir: &Path| std::fs::read(dir.join("ez_000040.npy")).unwrap();
        assert_ne!(
            ez(&one),
            ez(&periodic),
            "{value_type}: the phase changes the fields"
        );
        let cases: [(&str, &[&str]); 4] = [
            ("device_one", &["--backend", "cuda-emulated"]),
            (
                "device_sim",
                &[
                    "--backend",
                    "cuda-emulated",
                    "--ranks",
                    "3",
                    "--topology",
                    "1x1x3",
                    "--comm",
                    "sim",
                ],
            ),
            (
                "device_shm",
                &[
                    "--backend",
                    "cuda-emulated",
                    "--ranks",
                    "4",
                    "--topology",
                    "2x1x2",
                    "--comm",
                    "shm",
                ],
            ),
            (
                "het_shm",
                &[
                    "--rank-backends",
                    "rayon,cuda-emulated",
                    "--topology",
                    "1x1x2",
                    "--comm",
                    "shm",
                ],
            ),
        ];
        for (name, args) in cases {
            let name = format!("bloch_{name}_{value_type}");
            let (out, _) = run_into(&scene, &name, args);
            assert_same_outputs(&one, &out, &name);
        }
    }
}

/// Every file of `expected` (a run's output folder, its subfolders too) but run.json and
/// profile.json (times) is in `actual` with the same bytes; returns how many were compared.
#[cfg(feature = "cuda")]
fn assert_same_files(expected: &Path, actual: &Path, what: &str) -> usize {
    let mut compared = 0;
    for entry in std::fs::read_dir(expected).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_str().unwrap().to_string();
        if path.is_dir() {
            compared += assert_same_files(&path, &actual.join(&name), what);
            continue;
        }
        if name == "run.json" || name == "profile.json" {
            continue;
        }
        let theirs =
            std::fs::read(actual.join(&name)).unwrap_or_else(|e| panic!("{what}: no {name}: {e}"));
        assert!(
            std::fs::read(&path).unwrap() == theirs,
            "{what}: {} differs from the scalar run's",
            path.display()
        );
        compared += 1;
    }
    compared
}

/// Every example scene runs on `--backend cuda-emulated` (12 steps, 4 traces of the B-scan,
/// the ring's harmonic inversion left out: it reads from t = 1000 on) and writes the scalar backend's bytes: snapshots, slices, probes, flux spectra and their
/// DFT sums, far fields, plots. The scenes that subtract an incident run's flux (`minus`)
/// read the scalar incident run's. The two complex scenes (the band scenes, c64) are among
/// them: every scene runs on the device.
#[cfg(feature = "cuda")]
#[test]
fn every_example_scene_writes_the_scalar_bytes_on_the_emulated_device() {
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/scenes");
    let root = crate::tmp_dir(module_path!()).join("examples");
    let _ = std::fs::remove_dir_all(&root);
    // `minus = "../../out/…"` resolves to root/out/….
    let scenes = root.join("x/scenes");
    std::fs::create_dir_all(&scenes).unwrap();
    let mut paths: Vec<PathBuf> = (std::fs::read_dir(&examples).unwrap())
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    // Incident runs first: the others subtract their flux.
    paths.sort_by_key(|p| (!p.to_str().unwrap().ends_with("_incident.toml"), p.clone()));
    let (mut ran, mut complex) = (Vec::new(), Vec::new());
    let count = paths.len();
    for path in paths {
        let name = path.file_stem().unwrap().to_str().unwrap().to_string();
        let mut text = std::fs::read_to_string(&path).unwrap();
        if name == "bscan_cylinder" {
            text = text.replace("count = 60", "count = 4");
        }
        // Harmonic inversion reads the record from t = 1000 on: none in 12 steps.
        if let Some(at) = text.find("\n[[resonances]]") {
            let end = at + text[at..].find("\n[[output").expect("a table follows");
            text.replace_range(at..end, "");
        }
        let scene = scenes.join(format!("{name}.toml"));
        std::fs::write(&scene, &text).unwrap();
        let scene = scene.to_str().unwrap();
        let run = |backend: &str, out: &Path| {
            let out = out.to_str().unwrap();
            let args = [
                "run",
                scene,
                "--quiet",
                "--steps",
                "12",
                "--backend",
                backend,
            ];
            yee(&[&args[..], &["--out", out]].concat())
        };
        let scalar = root.join("out").join(&name);
        let output = run("scalar", &scalar);
        assert!(
            output.status.success(),
            "{name} (scalar): {}",
            String::from_utf8_lossy(&output.stderr)
        );
        let device = root.join("device").join(&name);
        let output = run("cuda-emulated", &device);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!stderr.contains("panicked"), "{name}: {stderr}");
        assert!(output.status.success(), "{name} (cuda-emulated): {stderr}");
        if text.contains("value_type = \"c") {
            complex.push(name.clone());
        }
        let doc: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(device.join("run.json")).unwrap())
                .unwrap();
        assert!(doc["smoothing_fallback"].is_null(), "{name}: {doc}");
        let compared = assert_same_files(&scalar, &device, &name);
        assert!(compared >= 2, "{name}: only {compared} files");
        ran.push(name);
    }
    assert_eq!(
        complex,
        ["bragg_bands", "square_rods_bands"],
        "complex scenes"
    );
    assert!(ran.len() >= 18, "{ran:?}");
    assert_eq!(ran.len(), count, "{ran:?}");
}

/// `--rank-backends cuda-emulated,rayon,…`: an emulated-device rank beside rayon and scalar
/// ranks writes the one-rank scalar run's bytes, f32 and f64, on sim and shm, statically
/// balanced by speed and dynamically balanced with the device rank slowed, whose border moves:
/// cells cross from the device rank to a host rank (slabs packed on one side,
/// unpacked on the other, resizing in place on both).
#[cfg(all(feature = "cuda", feature = "rayon"))]
#[test]
fn an_emulated_device_rank_beside_host_ranks_writes_the_scalar_bytes() {
    for value_type in ["f32", "f64"] {
        let scene = device3d(value_type);
        let (one, _) = run_into(
            &scene,
            &format!("het_one_{value_type}"),
            &["--backend", "scalar"],
        );
        let cases: [(&str, &[&str]); 4] = [
            (
                "het_sim",
                &["--rank-backends", "cuda-emulated,rayon", "--comm", "sim"],
            ),
            (
                "het_shm",
                &[
                    "--rank-backends",
                    "rayon,cuda-emulated,scalar",
                    "--comm",
                    "shm",
                ],
            ),
            (
                "het_static",
                &[
                    "--rank-backends",
                    "cuda-emulated,rayon,rayon",
                    "--comm",
                    "sim",
                    "--balance",
                    "static",
                    "--speeds",
                    "4,1,1",
                ],
            ),
            (
                "het_dynamic",
                &[
                    "--rank-backends",
                    "cuda-emulated,rayon,scalar",
                    "--comm",
                    "shm",
                    "--balance",
                    "dynamic",
                    "--rebalance-every",
                    "5",
                    "--slowdown",
                    "0=2",
                ],
            ),
        ];
        for (name, args) in cases {
            let name = format!("{name}_{value_type}");
            let (out, doc) = run_into(&scene, &name, args);
            assert_eq!(doc["backend"], "per-rank", "{name}");
            assert_same_outputs(&one, &out, &name);
            let balance = &doc["balance"];
            if name.starts_with("het_static") {
                // The device rank, four times faster, owns most of the x axis.
                let x = balance["initial_borders"][0].as_array().unwrap();
                let width = |i: usize| x[i + 1].as_i64().unwrap() - x[i].as_i64().unwrap();
                assert!(width(0) > width(1) + width(2), "{name}: {balance}");
            }
            if name.starts_with("het_dynamic") {
                // The slowed device rank gives cells to the rayon rank beside it.
                assert_ne!(
                    balance["initial_borders"][0][1], balance["final_borders"][0][1],
                    "{name}: the border between the device rank and rank 1 moved: {balance}"
                );
            }
        }
    }
}

/// A diverging run (a hard source of 1e308) on emulated-device ranks stops at the step and
/// cell the scalar backend names: the curl kernel's flag, then the device's search for the
/// first non-finite node.
#[cfg(feature = "cuda")]
#[test]
fn a_diverging_run_on_the_emulated_device_names_the_scalar_step_and_cell() {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scenes/diverging.toml"),
    )
    .unwrap();
    // Without its flux plane (DFT monitors are not run on the device).
    let (head, tail) = text.split_at(text.find("[[flux]]").unwrap());
    let text = format!("{head}{}", &tail[tail.find("[run]").unwrap()..]);
    let dir = crate::tmp_dir(module_path!());
    std::fs::create_dir_all(&dir).unwrap();
    let scene = dir.join("diverging_device.toml");
    std::fs::write(&scene, text).unwrap();
    let said = |extra: &[&str]| {
        let out = dir.join("diverging_out");
        let _ = std::fs::remove_dir_all(&out);
        let mut args = vec!["run", scene.to_str().unwrap(), "--quiet", "--out"];
        args.push(out.to_str().unwrap());
        args.extend(extra);
        let output = yee(&args);
        assert!(!output.status.success());
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        let at = stderr
            .find("the run diverged")
            .unwrap_or_else(|| panic!("{stderr}"));
        stderr[at..].trim().to_string()
    };
    let expected = said(&["--backend", "scalar"]);
    assert!(
        expected.contains("at step 8 in cell [20, 19, 0]"),
        "{expected}"
    );
    for extra in [
        &["--backend", "cuda-emulated"][..],
        &[
            "--backend",
            "cuda-emulated",
            "--ranks",
            "2",
            "--comm",
            "shm",
        ],
        &["--rank-backends", "rayon,cuda-emulated", "--comm", "sim"],
    ] {
        assert_eq!(said(extra), expected, "{extra:?}");
    }
}

/// The taper example, driven by a mode source (soft point sources the mode solver expands
/// when the scene is read) and read by two mode monitors, on emulated-device ranks: one rank
/// and two on shm write the one-rank scalar run's `modes_in.csv` and `modes_out.csv` (the
/// amplitudes and S-parameters from the device's DFT sums) byte for byte, f64.
/// `every_example_scene_writes_the_scalar_bytes_on_the_emulated_device` runs the example 12
/// steps, before the pulse; here its pulse is 4 times shorter (width 5, peaking on the
/// source's plane near step 360 at Δt = 0.07 a/c) and `out` is 1 a past the taper instead of
/// 4, so that 1000 steps carry the whole pulse through both monitors (the emulator delays
/// every command up to 2 ms, about 25 ms a step for this scene: the example's 2400 steps
/// took 114 s of CI): `out` has received at least 90 % of the forward energy `in` saw
/// (measured 98.8 %).
#[cfg(feature = "cuda")]
#[test]
fn the_emulated_device_writes_the_scalar_mode_amplitudes() {
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/scenes/taper.toml");
    let text = std::fs::read_to_string(example).unwrap();
    let short = text
        .replacen("\nwidth = 20\n", "\nwidth = 5\n", 1)
        .replacen("\nposition = 14\n", "\nposition = 11\n", 1);
    assert!(short.contains("width = 5") && short.contains("position = 11"));
    let scene = crate::tmp_dir(module_path!()).join("taper_short.toml");
    std::fs::create_dir_all(scene.parent().unwrap()).unwrap();
    std::fs::write(&scene, short).unwrap();
    let steps = ["--steps", "1000"];
    let (one, _) = run_into(
        &scene,
        "taper_scalar",
        &[&["--backend", "scalar"][..], &steps].concat(),
    );
    let energy = |file: &str| -> f64 {
        let rows = crate::csv_rows(&one.join(file));
        rows.iter().map(|r| r["forward_power"]).sum()
    };
    let (into, out_of) = (energy("modes_in.csv"), energy("modes_out.csv"));
    assert!(out_of >= 0.9 * into, "out {out_of} against in {into}");
    for (name, extra) in [
        ("taper_device", &[][..]),
        ("taper_device_shm", &["--ranks", "2", "--comm", "shm"][..]),
    ] {
        let (out, doc) = run_into(
            &scene,
            name,
            &[&["--backend", "cuda-emulated"][..], &steps, extra].concat(),
        );
        assert_eq!(doc["backend"], "cuda-emulated", "{name}");
        for file in ["modes_in.csv", "modes_out.csv"] {
            let ours = std::fs::read(one.join(file)).unwrap();
            assert!(
                ours == std::fs::read(out.join(file)).unwrap(),
                "{name}: {file} differs from the one-rank scalar run's"
            );
        }
    }
}
