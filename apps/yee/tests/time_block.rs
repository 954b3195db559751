//! `yee run --time-block k|auto|off` (issue 45): the same snapshots, bit for bit, whether the
//! steps run one at a time or in wavefront tiles; snapshots inside a tile's span land on their
//! own step; a probe sampled every step inside tiles writes the one-step run's CSV; tensor
//! nodes, TF/SF plane waves, dispersive media and a periodic wrap across the slabs tile;
//! decomposed runs keep their ghost zones with probes,
//! flux and DFT boxes and write the one-rank run's files; run.json's `time_block` says what
//! ran and why not.

use std::path::{Path, PathBuf};
use std::process::Command;

/// A 3D CPML box with a lossy block and a soft source: snapshots every 7 steps, no probes.
const SCENE: &str = r#"
name = "time_block"

[grid]
mode = "3d"
size = [14, 12, 16]

[boundaries]
all = "cpml"

[boundaries.cpml]
thickness = 3

[materials.lossy]
eps = 3.0
sigma = 0.05

[[geometry]]
shape = "box"
material = "lossy"
lo = [0, 0, 0]
hi = [14, 12, 6]

[[sources]]
component = "ez"
position = [7, 6, 9]
waveform = "ricker"
frequency = 0.1

[output.snapshots]
components = ["ez", "hx"]
every = 7
formats = ["npy"]

[run]
steps = 30
"#;

/// A probe well inside the grid.
const PROBE: &str = r#"
[[probes]]
name = "p"
component = "ez"
position = [3, 3, 3]
"#;

/// Probes on and next to the rank borders of 2×2×1 (x = 7, y = 6) and 1×2×2 (y = 6, z = 8)
/// layouts, E and H, a closed flux box and a DFT box across those borders.
const MONITORS: &str = r#"
[[probes]]
name = "at_corner"
component = "ez"
position = [6, 5, 7]

[[probes]]
name = "on_border"
component = "hy"
position = [7, 6, 8]

[[probes]]
name = "inside"
component = "ex"
position = [3, 9, 10]

[[flux]]
name = "box"
lo = [3, 3, 4]
hi = [11, 9, 12]
frequencies = [0.05, 0.1]

[[dft]]
name = "d"
components = ["ez", "hx"]
lo = [2, 2, 5]
hi = [12, 10, 11]
frequencies = [0.06, 0.1]
"#;

/// A 3D box in CPML with a sphere smoothed with the full tensor (the default: off-diagonal
/// nodes on its surface) and an oblique plane wave through a TF/SF box around it, the same
/// outputs as [`SCENE`].
const TENSOR_TFSF_SCENE: &str = r#"
name = "time_block_tensor_tfsf"

[grid]
mode = "3d"
size = [16, 16, 18]

[boundaries]
all = "cpml"

[boundaries.cpml]
thickness = 3

[materials.glass]
eps = 2.25
mu = 1.3

[[geometry]]
shape = "sphere"
material = "glass"
center = [8, 8, 9]
radius = 2.6

[[plane_waves]]
lo = [4, 4, 4]
hi = [12, 12, 14]
direction = [1.0, 0.5, 0.3]
polarization = [0.0, -0.3, 0.5]
waveform = "ricker"
frequency = 0.1

[output.snapshots]
components = ["ez", "hx"]
every = 7
formats = ["npy"]

[run]
steps = 30
"#;

/// A folder of this topic's own for test `name`: tests that run the scene under the same name
/// ([`run`]) must not share a folder, or one finds the other's run holding its lock.
fn own_dir(name: &str) -> PathBuf {
    let dir = crate::tmp_dir(module_path!()).join(name);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs the scene (with `probe`, a probe added) with `--time-block block`; its output folder
/// and run.json.
fn run(dir: &Path, block: &str, probe: bool) -> (PathBuf, serde_json::Value) {
    run_on(dir, block, if probe { PROBE } else { "" }, &[])
}

/// [`run`] of the scene with `added` (probes, monitors) and `extra` arguments (ranks,
/// topology, communicator).
fn run_on(dir: &Path, block: &str, added: &str, extra: &[&str]) -> (PathBuf, serde_json::Value) {
    let name = format!("tb_{block}_{}_{}", added.len(), extra.join("_"));
    run_text(dir, &name, &format!("{SCENE}{added}"), block, extra)
}

/// Runs the scene `text` (written to `name`.toml) with `--time-block block` and `extra`
/// arguments; its output folder and run.json.
fn run_text(
    dir: &Path,
    name: &str,
    text: &str,
    block: &str,
    extra: &[&str],
) -> (PathBuf, serde_json::Value) {
    let file = dir.join(format!("{name}.toml"));
    std::fs::write(&file, text).unwrap();
    let out = dir.join(name);
    let _ = std::fs::remove_dir_all(&out);
    let done = Command::new(env!("CARGO_BIN_EXE_yee"))
        .args([
            "run",
            "--quiet",
            "--backend",
            "rayon",
            "--time-block",
            block,
        ])
        .args(extra)
        .arg("--out")
        .arg(&out)
        .arg(&file)
        .output()
        .unwrap();
    assert!(
        done.status.success(),
        "{}",
        String::from_utf8_lossy(&done.stderr)
    );
    let report = serde_json::from_slice(&std::fs::read(out.join("run.json")).unwrap()).unwrap();
    (out, report)
}

/// The scene's snapshot steps: every 7, and the last.
const SNAPSHOT_STEPS: [u64; 5] = [7, 14, 21, 28, 30];

/// Asserts that every snapshot of Ez and Hx in `out` is byte for byte the one in `off`.
fn assert_same_snapshots(off: &Path, out: &Path, what: &str) {
    for step in SNAPSHOT_STEPS {
        for c in ["ez", "hx"] {
            let file = format!("{c}_{step:06}.npy");
            let (a, b) = (
                std::fs::read(off.join(&file)),
                std::fs::read(out.join(&file)),
            );
            assert!(a.unwrap() == b.unwrap(), "{what}: {file} differs");
        }
    }
}

#[test]
fn tiles_give_the_one_step_snapshots_and_run_json_says_what_ran() {
    let dir = crate::tmp_dir(module_path!());
    let (off, report) = run(&dir, "off", false);
    assert_eq!(report["time_block"]["ran"], "one-step");
    assert_eq!(report["time_block"]["requested"], "off");
    // auto: the whole grid fits the cache, so the most steps (8); snapshots every 7 steps cut
    // the tiles at 7.
    for (block, k, longest) in [("4", 4, 4), ("auto", 8, 7)] {
        let (out, report) = run(&dir, block, false);
        let tb = &report["time_block"];
        assert_eq!(tb["requested"], block, "{tb}");
        assert_eq!(tb["ran"], "wavefront", "{tb}");
        assert_eq!(tb["k"], k, "{tb}");
        assert_eq!(tb["longest_tile"], longest, "{tb}");
        assert_same_snapshots(&off, &out, &format!("--time-block {block}"));
    }
    // A probe sampled every step: the tiles sample it inside them, and its CSV is the
    // one-step run's, byte for byte.
    let (one_step, _) = run(&dir, "off", true);
    let probe_csv = |out: &Path| std::fs::read(out.join("probe_p.csv")).unwrap();
    let reference = probe_csv(&one_step);
    assert!(reference.len() > 30 * 8, "the probe CSV holds every step");
    for block in ["2", "4", "auto"] {
        let (out, report) = run(&dir, block, true);
        let tb = &report["time_block"];
        assert_eq!(tb["ran"], "wavefront", "{tb}");
        assert!(tb["longest_tile"].as_u64().unwrap() > 1, "{tb}");
        assert!(
            probe_csv(&out) == reference,
            "--time-block {block}: the probe CSV differs from the one-step run's"
        );
    }
}

/// A sphere smoothed with the full tensor and a TF/SF plane wave: the tiles hold both (tensor
/// nodes with H a plane ahead of E, the incident line's values kept for the tile's steps), with
/// the one-step snapshots bit for bit and no fallback reason in run.json; two ranks keep no
/// ghost zones for them and say why.
#[test]
fn tensor_nodes_and_plane_waves_tile_with_the_one_step_snapshots() {
    let dir = crate::tmp_dir(module_path!());
    let scene = TENSOR_TFSF_SCENE;
    let (off, _) = run_text(&dir, "tensor_tfsf_off", scene, "off", &[]);
    for (block, k, longest) in [("2", 2, 2), ("4", 4, 4), ("auto", 8, 7)] {
        let name = format!("tensor_tfsf_{block}");
        let (out, report) = run_text(&dir, &name, scene, block, &[]);
        let tb = &report["time_block"];
        assert_eq!(tb["ran"], "wavefront", "{tb}");
        assert_eq!(tb["k"], k, "{tb}");
        assert_eq!(tb["longest_tile"], longest, "{tb}");
        // Tiles end at the snapshots every 7 steps (k = 8): only that is said.
        match block {
            "auto" => assert_eq!(
                tb["reason"], "tiles end at output, checkpoint and final steps",
                "{tb}"
            ),
            _ => assert!(tb["reason"].is_null(), "{tb}"),
        }
        assert_same_snapshots(&off, &out, &format!("tensor + TF/SF, --time-block {block}"));
    }
    let extra = ["--topology", "2x1x1", "--comm", "shm"];
    let (out, report) = run_text(&dir, "tensor_tfsf_2x1x1", scene, "4", &extra);
    let tb = &report["time_block"];
    assert_eq!(
        (&tb["ran"], &tb["exchange_every"]),
        (&"one-step".into(), &1.into()),
        "{tb}"
    );
    assert!(
        tb["reason"].as_str().unwrap().contains("off-diagonal"),
        "{tb}"
    );
    assert_same_snapshots(&off, &out, "tensor + TF/SF on 2x1x1");
}

/// A Bloch-periodic unit cell (x and y, c64) over CPML along z, with a Drude sphere: a
/// metasurface's set-up. A lone rank's tiles refresh the wrap slab by slab and run the poles'
/// passes per slab; periodic along z (the slab axis), or on two ranks, it steps one step at a
/// time and says why.
const PERIODIC_DRUDE_SCENE: &str = r#"
name = "time_block_periodic_drude"

[grid]
mode = "3d"
size = [12, 10, 16]
value_type = "c64"

[boundaries]
all = "cpml"
x = "periodic"
y = "periodic"
k = [0.05, 0.1, 0.0]

[boundaries.cpml]
thickness = 3

[materials.metal]
eps = 2.0
poles = [{ kind = "drude", frequency = 0.05, gamma = 0.01 }]

[[geometry]]
shape = "sphere"
material = "metal"
center = [6, 5, 8]
radius = 3

[[sources]]
component = "ez"
position = [3, 4, 5]
waveform = "ricker"
frequency = 0.1

[output.snapshots]
components = ["ez", "hx"]
every = 7
formats = ["npy"]

[run]
steps = 30
"#;

#[test]
fn periodic_wraps_and_dispersive_media_tile_with_the_one_step_snapshots() {
    let dir = crate::tmp_dir(module_path!());
    let scene = PERIODIC_DRUDE_SCENE;
    let (off, _) = run_text(&dir, "periodic_off", scene, "off", &[]);
    for (block, k) in [("2", 2), ("4", 4)] {
        let (out, report) = run_text(&dir, &format!("periodic_{block}"), scene, block, &[]);
        let tb = &report["time_block"];
        assert_eq!(
            (&tb["ran"], &tb["k"]),
            (&"wavefront".into(), &k.into()),
            "{tb}"
        );
        assert!(tb["reason"].is_null(), "{tb}");
        assert_same_snapshots(
            &off,
            &out,
            &format!("periodic + Drude, --time-block {block}"),
        );
    }
    // Periodic along z too: the wavefront's axis wraps.
    let along_z = scene.replace("y = \"periodic\"", "y = \"periodic\"\nz = \"periodic\"");
    let (_, report) = run_text(&dir, "periodic_z", &along_z, "4", &[]);
    let tb = &report["time_block"];
    assert_eq!(tb["ran"], "one-step", "{tb}");
    assert!(tb["reason"].as_str().unwrap().contains("slab axis"), "{tb}");
    // Two ranks: the wrap is a halo between ranks, exchanged every step.
    let extra = ["--topology", "1x1x2", "--comm", "shm"];
    let (out, report) = run_text(&dir, "periodic_1x1x2", scene, "4", &extra);
    let tb = &report["time_block"];
    assert_eq!(tb["ran"], "one-step", "{tb}");
    assert!(
        tb["reason"].as_str().unwrap().contains("decomposed"),
        "{tb}"
    );
    assert_same_snapshots(&off, &out, "periodic + Drude on 1x1x2");
}

/// Decomposed runs (2×1×1, 2×2×1 and 1×2×2, on shm and sim) keep ghost zones k cells deep and
/// exchange their halos every k steps: the one-rank, one-step snapshots bit for bit, and
/// run.json says how often they exchanged.
#[test]
fn decomposed_runs_exchange_every_k_steps_and_keep_the_snapshots() {
    let dir = own_dir("decomposed");
    let (off, _) = run(&dir, "off", false);
    for (topology, comm) in [("2x1x1", "shm"), ("2x2x1", "sim"), ("1x2x2", "shm")] {
        for block in ["2", "4", "auto"] {
            let extra = ["--topology", topology, "--comm", comm];
            let (out, report) = run_on(&dir, block, "", &extra);
            let tb = &report["time_block"];
            let k = tb["exchange_every"].as_u64().unwrap();
            match block {
                "auto" => assert!(k > 1, "{topology} {tb}"),
                _ => assert_eq!(k.to_string(), block, "{topology} {tb}"),
            }
            assert_eq!(tb["longest_tile"], k, "{topology} {tb}");
            let what = format!("{topology} on {comm}, --time-block {block}");
            assert_same_snapshots(&off, &out, &what);
        }
    }
}

/// The files of the [`MONITORS`] scene that must be byte for byte the one-rank run's.
const MONITOR_FILES: [&str; 6] = [
    "probe_at_corner.csv",
    "probe_on_border.csv",
    "probe_inside.csv",
    "flux_box.csv",
    "flux_box_dft.npy",
    "dft_d.npy",
];

/// Asserts that `out`'s snapshots and [`MONITOR_FILES`] are byte for byte `off`'s.
fn assert_same_files(off: &Path, out: &Path, what: &str) {
    assert_same_snapshots(off, out, what);
    for file in MONITOR_FILES {
        let (a, b) = (std::fs::read(off.join(file)), std::fs::read(out.join(file)));
        assert!(a.unwrap() == b.unwrap(), "{what}: {file} differs");
    }
}

/// Decomposed runs with probes on the rank borders, a flux box and a DFT box across them keep
/// their ghost zones (2×2×1 on shm, 1×2×2 on sim, k = 2, 4 and auto; and 2×2×1 on shm with
/// rank 0 slowed and the balancer moving the borders every 8 steps): the probe CSVs, the flux spectrum and its transforms, the DFT file and the
/// snapshots are the one-rank `--time-block off` run's, byte for byte.
#[test]
fn decomposed_runs_with_probes_and_monitors_keep_ghost_zones_and_every_byte() {
    let dir = crate::tmp_dir(module_path!());
    let (off, report) = run_on(&dir, "off", MONITORS, &[]);
    assert_eq!(report["time_block"]["exchange_every"], 1);
    for (topology, comm) in [("2x2x1", "shm"), ("1x2x2", "sim")] {
        for block in ["2", "4", "auto"] {
            let extra = ["--topology", topology, "--comm", comm];
            let (out, report) = run_on(&dir, block, MONITORS, &extra);
            let what = format!("{topology} on {comm}, --time-block {block}");
            let tb = &report["time_block"];
            let k = tb["exchange_every"].as_u64().unwrap();
            match block {
                "auto" => assert!(k > 1, "{what}: {tb}"),
                _ => assert_eq!(k.to_string(), block, "{what}: {tb}"),
            }
            // Snapshots every 7 steps and nothing else cut the blocks.
            assert_eq!(
                (&tb["k"], &tb["longest_tile"]),
                (&tb["exchange_every"], &tb["exchange_every"]),
                "{what}: {tb}"
            );
            assert_same_files(&off, &out, &what);
        }
    }
    let balanced = [
        "--topology",
        "2x2x1",
        "--comm",
        "shm",
        "--balance",
        "dynamic",
        "--rebalance-every",
        "8",
        "--slowdown",
        "0=40",
    ];
    let (out, report) = run_on(&dir, "4", MONITORS, &balanced);
    // Blocks of 4 steps ran until the first rebalance at least; after it the depth follows the
    // boxes the real clocks gave (k = 1 while a rank is disabled or a box under 2 cells thick).
    let tb = &report["time_block"];
    assert_eq!(
        (&tb["ran"], &tb["longest_tile"]),
        (&"wavefront".into(), &4.into()),
        "{tb}"
    );
    assert_same_files(&off, &out, "balanced 2x2x1 on shm");
    let history = std::fs::read_to_string(out.join("balance_history.csv")).unwrap();
    assert!(
        history.lines().skip(1).any(|l| !l.contains(",keep,")),
        "the borders never moved: {history}"
    );
}

#[test]
fn a_time_block_that_is_not_a_number_of_steps_is_refused() {
    let dir = crate::tmp_dir(module_path!());
    let file = dir.join("refused.toml");
    std::fs::write(&file, SCENE).unwrap();
    let done = Command::new(env!("CARGO_BIN_EXE_yee"))
        .args(["run", "--quiet", "--time-block", "0"])
        .arg(&file)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&done.stderr);
    assert!(
        !done.status.success() && stderr.contains("--time-block 0"),
        "{stderr}"
    );
}

/// `--cache-bytes`: `auto` sizes its tiles for the cache given rather than the OS's — fewer
/// steps for a smaller cache, the one-step path (with the reason) where not even three
/// one-plane slabs fit half of it — with the one-step snapshots either way, and run.json
/// says which size it used and where it came from; a size that is not one is refused.
#[test]
fn a_given_cache_size_sizes_the_tiles() {
    let dir = own_dir("cache_bytes");
    let (off, report) = run(&dir, "off", false);
    let tb = &report["time_block"];
    assert!(tb["cache_bytes"].as_u64().unwrap() > 0, "{tb}");
    assert!(
        ["os", "default"].contains(&tb["cache_from"].as_str().unwrap()),
        "{tb}"
    );
    let mut steps = Vec::new();
    for size in ["1M", "20K"] {
        let (out, report) = run_on(&dir, "auto", "", &["--cache-bytes", size]);
        let tb = &report["time_block"];
        assert_eq!(tb["cache_from"], "--cache-bytes", "{tb}");
        assert_same_snapshots(&off, &out, &format!("--cache-bytes {size}"));
        steps.push((
            tb["k"].as_u64().unwrap(),
            tb["ran"].clone(),
            tb["reason"].clone(),
        ));
        if size == "1M" {
            assert_eq!(tb["cache_bytes"], 1 << 20, "{tb}");
        }
    }
    // The whole grid fits the OS's cache (k = 8, above); half of 1 MiB holds fewer steps.
    let (k, ran, _) = &steps[0];
    assert!((2..8).contains(k) && ran == "wavefront", "{steps:?}");
    let (_, ran, reason) = &steps[1];
    assert_eq!(ran, "one-step", "{steps:?}");
    assert!(
        reason
            .as_str()
            .unwrap()
            .contains("half the last-level cache"),
        "{reason}"
    );
    let file = dir.join("refused_cache.toml");
    std::fs::write(&file, SCENE).unwrap();
    for bad in ["12X", "0", "lots"] {
        let done = Command::new(env!("CARGO_BIN_EXE_yee"))
            .args([
                "run",
                "--quiet",
                "--time-block",
                "auto",
                "--cache-bytes",
                bad,
            ])
            .arg(&file)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&done.stderr);
        assert!(
            !done.status.success() && stderr.contains(&format!("--cache-bytes {bad}")),
            "{stderr}"
        );
    }
}

/// `--cache-bytes measure`: run.json keeps the read rates the probe took (sizes growing, rates
/// positive) and the knee found in them; the tiles are sized for twice the knee (their working
/// set is half the cache they are sized for) — as for the same size given — or, where the
/// rates show none, for the OS's cache, with the reason. The snapshots are the one-step run's
/// either way. One step at a time needs no cache size, and no probe runs.
#[test]
fn a_measured_cache_sizes_the_tiles() {
    let dir = own_dir("cache_measure");
    let (off, report) = run_on(&dir, "off", "", &["--cache-bytes", "measure"]);
    assert!(report["time_block"]["cache_probe"].is_null(), "{report}");
    let (out, report) = run_on(&dir, "auto", "", &["--cache-bytes", "measure"]);
    assert_same_snapshots(&off, &out, "--cache-bytes measure");
    let tb = &report["time_block"];
    let probe = &tb["cache_probe"];
    let rates = probe["rates"].as_array().expect("the probe's rates");
    let sizes: Vec<u64> = rates.iter().map(|r| r[0].as_u64().unwrap()).collect();
    assert!(
        sizes.len() >= 3 && sizes.windows(2).all(|w| w[0] < w[1]),
        "{probe}"
    );
    assert!(
        rates.iter().all(|r| r[1].as_f64().unwrap() > 0.0),
        "{probe}"
    );
    assert!(probe["seconds"].as_f64().unwrap() > 0.0, "{probe}");
    match probe["knee_bytes"].as_u64() {
        Some(knee) => {
            // The tiles' working set is half the cache they are sized for: twice the knee.
            assert_eq!(tb["cache_from"], "measured", "{tb}");
            assert_eq!(tb["cache_bytes"], 2 * knee, "{tb}");
            let given = (2 * knee).to_string();
            let (_, same) = run_on(&dir, "auto", "", &["--cache-bytes", &given]);
            assert_eq!(same["time_block"]["k"], tb["k"], "{tb} against {same}");
        }
        None => {
            assert!(probe["error"].is_string(), "{probe}");
            assert!(
                ["os", "default"].contains(&tb["cache_from"].as_str().unwrap()),
                "{tb}"
            );
        }
    }
}
