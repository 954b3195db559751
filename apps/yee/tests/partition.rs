//! `yee partition`: the report's JSON keys and values, the PNG, the speedup table, and the
//! errors for bad command-line values.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn yee(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_yee"))
        .args(args)
        .output()
        .unwrap()
}

fn json(out: &Output) -> serde_json::Value {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn a_masked_scene_into_four_connected_balanced_parts_with_a_png() {
    let scene = repo().join("examples/scenes/bend2d.toml");
    let png = crate::tmp_dir(module_path!()).join("bend_partition.png");
    let _ = std::fs::remove_file(&png);
    let r = json(&yee(&[
        "partition",
        scene.to_str().unwrap(),
        "--ranks",
        "4",
        "--json",
        "--png",
        png.to_str().unwrap(),
    ]));
    assert_eq!(r["method"], "rcdc");
    assert_eq!(r["ranks"], 4);
    assert_eq!(r["tile"], serde_json::json!([8, 8, 1]));
    // The guide: 120 × 20 + 20 × 140 cells, less their overlap of 20 × 20.
    assert_eq!(r["cells"], 4800);
    let parts = r["parts"].as_array().unwrap();
    assert_eq!(parts.len(), 4);
    let weight: f64 = parts.iter().map(|p| p["weight"].as_f64().unwrap()).sum();
    assert_eq!(weight, 4800.0);
    assert!(parts.iter().all(|p| p["pieces"] == 1), "{parts:?}");
    assert_eq!(r["disconnected"], 0);
    assert!(r["imbalance"].as_f64().unwrap() <= 1.05, "{r}");
    let volume: f64 = parts.iter().map(|p| p["volume"].as_f64().unwrap()).sum();
    assert_eq!(volume, 2.0 * r["edge_cut"].as_f64().unwrap());
    for key in [
        "edge_cut",
        "volume",
        "seconds",
        "nodes",
        "empty_parts",
        "png",
    ] {
        assert!(r.get(key).is_some(), "{key} missing: {r}");
    }
    let decoder = png::Decoder::new(std::fs::File::open(&png).unwrap());
    let info = decoder.read_info().unwrap().info().clone();
    assert_eq!((info.width, info.height), (480, 480)); // 160 cells × 3 pixels
}

#[test]
fn target_weights_are_met() {
    let r = json(&yee(&[
        "partition",
        "--shape",
        "annulus",
        "--ranks",
        "4",
        "--weights",
        "3,1,1,1",
        "--tile",
        "4x4",
        "--json",
        "--png",
        crate::tmp_dir(module_path!())
            .join("annulus.png")
            .to_str()
            .unwrap(),
    ]));
    let parts = r["parts"].as_array().unwrap();
    assert_eq!(parts[0]["target"], 0.5);
    let share = parts[0]["weight"].as_f64().unwrap() / r["cells"].as_f64().unwrap();
    assert!((0.45..=0.53).contains(&share), "{share}");
    assert!(r["imbalance"].as_f64().unwrap() <= 1.05, "{r}");
}

#[test]
fn the_speedup_table_covers_table_2() {
    let r = json(&yee(&[
        "partition",
        "--shape",
        "l-shape",
        "--ranks",
        "1",
        "--speedup",
        "--json",
    ]));
    assert_eq!(
        r["processors"],
        serde_json::json!([8, 16, 32, 64, 128, 256])
    );
    let rows = r["rows"].as_array().unwrap();
    let names: Vec<&str> = rows
        .iter()
        .map(|r| r["architecture"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["FF", "FM", "FS", "MF", "MM", "MS", "SF", "SM", "SS"]
    );
    for row in rows {
        let s: Vec<f64> = row["speedup"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_f64().unwrap())
            .collect();
        // Never above the processor count.
        assert!(
            s.iter()
                .zip([8.0, 16.0, 32.0, 64.0, 128.0, 256.0])
                .all(|(v, p)| *v > 0.0 && *v <= p)
        );
    }
    // Slow processors and fast links scale best; fast processors on MPI worst.
    let at_256 = |name: &str| {
        rows.iter().find(|r| r["architecture"] == name).unwrap()["speedup"][5]
            .as_f64()
            .unwrap()
    };
    assert!(at_256("SF") > at_256("FF") && at_256("FF") > at_256("FS"));
}

#[test]
fn bad_values_are_named() {
    let scene = repo().join("examples/scenes/bend2d.toml");
    let scene = scene.to_str().unwrap();
    for (args, message) in [
        (
            vec!["partition", scene, "--ranks", "4", "--weights", "1,2"],
            "error: --weights 1,2: 2 weights for --ranks 4\n",
        ),
        (
            vec!["partition", scene, "--ranks", "2", "--weights", "1,-1"],
            "error: --weights 1,-1: -1 is not a positive number\n",
        ),
        (
            vec!["partition", scene, "--ranks", "500"],
            "error: --ranks 500: cannot split a graph of 90 tile(s) into 500 part(s); use fewer ranks or a smaller --tile\n",
        ),
        (
            vec!["partition", "--shape", "star", "--ranks", "2"],
            "error: --shape star: unknown (known: l-shape, annulus, porous, comb)\n",
        ),
        (
            vec!["partition", scene, "--ranks", "2", "--tile", "8x0"],
            "error: --tile 8x0: expected 1 to 3 positive integers joined by x, like 256x256 or 4x2x1\n",
        ),
    ] {
        let out = yee(&args);
        assert!(!out.status.success());
        assert_eq!(String::from_utf8_lossy(&out.stderr), message, "{args:?}");
    }
}

#[test]
fn yee_run_on_tile_sets_writes_the_bits_of_one_box() {
    let scene = repo().join("examples/scenes/bend2d.toml");
    let scene = scene.to_str().unwrap();
    let dir = |name: &str| crate::tmp_dir(module_path!()).join(name);
    let run = |name: &str, extra: &[&str]| {
        let out = dir(name);
        let _ = std::fs::remove_dir_all(&out);
        let mut args = vec![
            "run",
            scene,
            "--steps",
            "150",
            "--backend",
            "scalar",
            "--quiet",
        ];
        args.extend_from_slice(extra);
        args.extend_from_slice(&["--out", out.to_str().unwrap()]);
        let o = yee(&args);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        out
    };
    let one = run("tiles_one_box", &[]);
    for (name, extra) in [
        ("tiles_shm", vec!["--ranks", "4", "--partition", "rcdc"]),
        (
            "tiles_sim",
            vec!["--ranks", "4", "--partition", "redeploy", "--comm", "sim"],
        ),
        (
            "tiles_speeds",
            vec![
                "--ranks",
                "3",
                "--partition",
                "rcdc",
                "--balance",
                "static",
                "--speeds",
                "2,1,1",
            ],
        ),
    ] {
        let out = run(name, &extra);
        for file in [
            "probe_before_bend.csv",
            "probe_after_bend.csv",
            "slice_ez_000100.png",
            "slice_ez_000150.png",
        ] {
            let a = std::fs::read(one.join(file)).unwrap();
            let b = std::fs::read(out.join(file)).unwrap();
            assert!(a == b, "{name}: {file} differs");
        }
        let report: serde_json::Value =
            serde_json::from_slice(&std::fs::read(out.join("run.json")).unwrap()).unwrap();
        assert_eq!(report["partition"]["tile"], serde_json::json!([8, 8, 1]));
        assert!(report["partition"]["imbalance"].as_f64().unwrap() <= 1.05);
    }
    // --balance dynamic rebalances the tile sets (tests/tests/tile_execution.rs proves the
    // bits); docs/partitioning.md.
}
