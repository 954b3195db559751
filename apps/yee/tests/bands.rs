//! `yee bands` (docs/bands.md) on the 1D Bragg stack of examples/scenes/bragg_bands.toml (ε 13
//! and 1, 0.2a and 0.8a, a = 40 cells) against its transfer matrix: every mode found at each
//! k-point from Γ to X on the discrete (Yee) transfer-matrix dispersion of the same layers
//! within 1e-5 relative (measured: 1e-8–1e-9 for bands 2 and 3, up to 7e-6 for band 1 near
//! f ≈ 0.1 c/a, which rings only ~15 periods in the record), and every band below 0.9 c/a
//! found. The continuous transfer matrix
//! is printed beside it (it differs by the resolution's O((Δ/λ)²) dispersion, ~1 %).

use std::f64::consts::PI;
use std::path::Path;

use yee_em::Component;

/// tr(M)/2 of the discrete transfer matrix over one period at frequency `f`: the 1D Yee
/// recurrence `E_{i+1} + E_{i−1} = (2 − Ω² ε_i) E_i` with `Ω = 2 sin(πfΔt)/Δt` (μ = 1, Δx = 1).
fn discrete_half_trace(eps: &[f64], f: f64, dt: f64) -> f64 {
    let omega = 2.0 * (PI * f * dt).sin() / dt;
    let mut m = [[1.0, 0.0], [0.0, 1.0]];
    for &e in eps {
        let step = [[2.0 - omega * omega * e, -1.0], [1.0, 0.0]];
        m = [
            [
                step[0][0] * m[0][0] + step[0][1] * m[1][0],
                step[0][0] * m[0][1] + step[0][1] * m[1][1],
            ],
            [m[0][0], m[0][1]],
        ];
    }
    (m[0][0] + m[1][1]) / 2.0
}

/// The continuous quarter-stack dispersion's right-hand side: cos(k₁d₁)cos(k₂d₂) −
/// ½(n₁/n₂ + n₂/n₁) sin(k₁d₁) sin(k₂d₂) at frequency `f` (c/a), a = 1.
fn continuous_half_trace(f: f64) -> f64 {
    let (n1, d1, n2, d2) = (13f64.sqrt(), 0.2, 1.0, 0.8);
    let (p1, p2) = (2.0 * PI * f * n1 * d1, 2.0 * PI * f * n2 * d2);
    p1.cos() * p2.cos() - 0.5 * (n1 / n2 + n2 / n1) * p1.sin() * p2.sin()
}

/// The frequencies in (0, f_max] where `half_trace(f) = cos(2πk)`, by scanning and bisection.
fn roots(half_trace: impl Fn(f64) -> f64, k: f64, f_max: f64) -> Vec<f64> {
    let g = |f: f64| half_trace(f) - (2.0 * PI * k).cos();
    let n = 40_000;
    let mut out = Vec::new();
    for i in 0..n {
        let (mut lo, mut hi) = (
            f_max * i as f64 / n as f64,
            f_max * (i + 1) as f64 / n as f64,
        );
        if lo == 0.0 {
            lo = 1e-9 * f_max;
        }
        if g(lo) * g(hi) > 0.0 {
            continue;
        }
        for _ in 0..100 {
            let mid = 0.5 * (lo + hi);
            if g(lo) * g(mid) <= 0.0 {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        let f = 0.5 * (lo + hi);
        // Γ's band 1 at f = 0 is no mode a pulse rings.
        if f > 1e-3 * f_max {
            out.push(f);
        }
    }
    out
}

#[test]
fn a_bragg_stack_has_the_transfer_matrix_bands() {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/scenes/bragg_bands.toml");
    let scene = yee_scene::load(&file).unwrap();
    let out = crate::tmp_dir(module_path!()).join("bragg");
    let modes = yee::bands::compute(&scene, &out, 2, true).unwrap();
    let bands = scene.bands.as_ref().unwrap();
    let setup = scene.setup();
    let eps: Vec<f64> = (0..scene.grid[0] as i64)
        .map(|i| setup.node_medium(Component::Ez, [i, 0, 0]).material.eps)
        .collect();
    let a = bands.lattice_cells;
    let f_max = 0.9 / a;
    let mut worst: f64 = 0.0;
    let mut worst_continuous: f64 = 0.0;
    for (index, k) in bands.k_points.iter().enumerate() {
        let expected = roots(|f| discrete_half_trace(&eps, f, scene.dt()), k[0], f_max);
        let continuous = roots(continuous_half_trace, k[0], 0.9);
        let found: Vec<f64> = modes
            .iter()
            .filter(|m| m.k_index == index)
            .map(|m| m.mode.frequency)
            .collect();
        assert!(!expected.is_empty(), "k {k:?}");
        for (n, &f) in expected.iter().enumerate() {
            let nearest = found
                .iter()
                .copied()
                .min_by(|x, y| (x - f).abs().total_cmp(&(y - f).abs()))
                .unwrap_or_else(|| panic!("k {k:?}: no modes"));
            let rel = (nearest / f - 1.0).abs();
            let c = continuous.get(n).copied().unwrap_or(f64::NAN);
            let cont = (f * a / c - 1.0).abs();
            eprintln!(
                "k {:.2}: band {} at {:.6} c/a, discrete TMM {:.6} ({rel:.1e}), continuous {c:.6} ({cont:.1e})",
                k[0],
                n + 1,
                nearest * a,
                f * a
            );
            assert!(
                rel <= 1e-5,
                "k {k:?}: band {} found at {nearest}, TMM {f}",
                n + 1
            );
            worst = worst.max(rel);
            worst_continuous = worst_continuous.max(cont);
        }
    }
    eprintln!("worst against the discrete TMM {worst:.1e}, the continuous {worst_continuous:.1e}");
    assert!(worst_continuous < 0.02, "{worst_continuous}");
    yee::bands::write_bands_csv(&out.join("bands.csv"), &scene, bands, &modes).unwrap();
    yee::bands::write_bands_png(&out.join("bands.png"), &scene, bands, &modes).unwrap();
    for file in [
        "bands.csv",
        "bands.png",
        "k_000/run.json",
        "k_010/probe_p1.csv",
    ] {
        assert!(out.join(file).is_file(), "{file}");
    }
    let csv = std::fs::read_to_string(out.join("bands.csv")).unwrap();
    assert!(csv.starts_with(
        "k_index,kx,ky,kz,k_distance,frequency,frequency_ac,decay,q,amplitude,error,probes\n"
    ));
    assert_eq!(csv.lines().count(), modes.len() + 1);
}

/// MPB's TM frequencies (c/a) of the square lattice of ε = 12 rods, r = 0.2a, at resolution 32
/// (`/usr/bin/python3 bench/mpb_square_rods.py`, MPB of Debian's python3-meep 1.25.0, tolerance
/// 1e-10, run 2026-11-29; X, (0.5, 0.2) and M digit for digit those recorded from an earlier
/// run): bands 1–5 at the 16 k-points of the example's Γ–X–M–Γ path with 4 points between
/// corners (bands 6–8 lie above 0.8 c/a everywhere).
const MPB_TM: [([f64; 2], [f64; 5]); 16] = [
    (
        [0.0, 0.0],
        [0.000000, 0.546027, 0.552094, 0.552096, 0.812093],
    ),
    (
        [0.1, 0.0],
        [0.064367, 0.518896, 0.552617, 0.579095, 0.812721],
    ),
    (
        [0.2, 0.0],
        [0.126061, 0.487950, 0.553991, 0.610359, 0.812384],
    ),
    (
        [0.3, 0.0],
        [0.181523, 0.456650, 0.555709, 0.644685, 0.802314],
    ),
    (
        [0.4, 0.0],
        [0.224302, 0.429317, 0.557116, 0.682524, 0.772176],
    ),
    (
        [0.5, 0.0],
        [0.241821, 0.417114, 0.557658, 0.713395, 0.741311],
    ),
    (
        [0.5, 0.1],
        [0.245235, 0.423600, 0.551085, 0.711571, 0.749855],
    ),
    (
        [0.5, 0.2],
        [0.254420, 0.441321, 0.535034, 0.706018, 0.772267],
    ),
    (
        [0.5, 0.3],
        [0.266397, 0.465222, 0.516482, 0.697068, 0.802974],
    ),
    (
        [0.5, 0.4],
        [0.276774, 0.487010, 0.501823, 0.687264, 0.837704],
    ),
    (
        [0.5, 0.5],
        [0.280948, 0.496196, 0.496197, 0.682617, 0.859474],
    ),
    (
        [0.4, 0.4],
        [0.271410, 0.485365, 0.501693, 0.689111, 0.830636],
    ),
    (
        [0.3, 0.3],
        [0.236529, 0.473888, 0.515941, 0.679199, 0.819377],
    ),
    (
        [0.2, 0.2],
        [0.172884, 0.482973, 0.533242, 0.640233, 0.819202],
    ),
    (
        [0.1, 0.1],
        [0.090417, 0.510404, 0.546943, 0.593803, 0.813730],
    ),
    (
        [0.0, 0.0],
        [0.000000, 0.546027, 0.552094, 0.552096, 0.812093],
    ),
];

/// The first TM gap by MPB: the top of band 1 (at M) to the bottom of band 2 (at X), c/a.
const MPB_GAP: [f64; 2] = [0.280948, 0.417114];

/// examples/scenes/square_rods_bands.toml as it is (subpixel smoothing on, resolution 32, the
/// 16 k-points of Γ–X–M–Γ): at every k-point every band of MPB's below 0.8 c/a within 1 % of
/// MPB at the same resolution (measured: 0.47 % at worst, every band low by the Yee scheme's
/// dispersion), and the first TM gap's edges (the top of the lowest band over the path, the
/// bottom of the next) within 1 %. Above 0.8 c/a that dispersion at 32 cells per a (λ ≈ 11
/// cells in the rods) puts the bands up to ~1.1 % low (M's band 5: 0.8500 against 0.8595;
/// docs/bands.md). Γ's band 1 (f = 0) is no mode a pulse rings.
#[test]
fn square_rods_have_mpb_tm_bands_and_gap() {
    let file =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/scenes/square_rods_bands.toml");
    let scene = yee_scene::load(&file).unwrap();
    let out = crate::tmp_dir(module_path!()).join("rods");
    let modes = yee::bands::compute(&scene, &out, 2, true).unwrap();
    let bands = scene.bands.as_ref().unwrap();
    let a = bands.lattice_cells;
    assert_eq!(bands.k_points.len(), MPB_TM.len());
    let mut worst: f64 = 0.0;
    let (mut band_1_top, mut band_2_bottom) = (0.0f64, f64::INFINITY);
    for (index, (k, mpb)) in MPB_TM.iter().enumerate() {
        let path_k = bands.k_points[index];
        assert!(
            (path_k[0] - k[0]).abs() < 1e-12 && (path_k[1] - k[1]).abs() < 1e-12,
            "k-point {index}: the scene's {path_k:?}, MPB's {k:?}"
        );
        let found: Vec<f64> = modes
            .iter()
            .filter(|m| m.k_index == index)
            .map(|m| m.mode.frequency * a)
            .collect();
        for (band, &f) in mpb
            .iter()
            .enumerate()
            .filter(|(_, f)| **f > 0.0 && **f < 0.8)
        {
            let nearest = found
                .iter()
                .copied()
                .min_by(|x, y| (x - f).abs().total_cmp(&(y - f).abs()))
                .unwrap_or_else(|| panic!("k {k:?}: no modes"));
            let rel = nearest / f - 1.0;
            eprintln!(
                "k {k:?} band {}: yee {nearest:.6} c/a, MPB {f:.6} ({:+.2} %)",
                band + 1,
                100.0 * rel
            );
            assert!(
                rel.abs() <= 0.01,
                "k {k:?} band {}: {nearest} against MPB {f}",
                band + 1
            );
            worst = worst.max(rel.abs());
        }
        // Bands 1 and 2 where band 1 is a mode (not at Γ).
        if mpb[0] > 0.0 {
            let lowest = found.iter().copied().fold(f64::INFINITY, f64::min);
            let second = found
                .iter()
                .copied()
                .filter(|&f| f > lowest * 1.01)
                .fold(f64::INFINITY, f64::min);
            band_1_top = band_1_top.max(lowest);
            band_2_bottom = band_2_bottom.min(second);
        }
    }
    let gap = [band_1_top, band_2_bottom];
    eprintln!(
        "worst {:.2} %; first TM gap: yee {:.4}–{:.4} c/a, MPB {:.4}–{:.4}",
        100.0 * worst,
        gap[0],
        gap[1],
        MPB_GAP[0],
        MPB_GAP[1]
    );
    for (g, m) in gap.iter().zip(MPB_GAP) {
        assert!((g / m - 1.0).abs() <= 0.01, "{gap:?} against {MPB_GAP:?}");
    }
}

/// `yee bands SCENE.toml` itself, on the Bragg stack at four k-points (Γ, two between, X):
/// `bands.csv` with a row per mode at every k-point (its `frequency_ac` the frequency in c/a),
/// `bands.png` with the modes and the light line drawn, `run.json` naming the k-points, corners
/// and files, and each k-point's own run in `k_NNN/`.
#[test]
fn yee_bands_writes_the_csv_the_diagram_and_run_json() {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/scenes/bragg_bands.toml");
    let text = std::fs::read_to_string(&file).unwrap();
    let four = text.replace("points = 9", "points = 2");
    assert_ne!(text, four, "the example has points = 9");
    let dir = crate::tmp_dir(module_path!());
    let scene = dir.join("bragg_four.toml");
    std::fs::write(&scene, four).unwrap();
    let out = dir.join("bragg_four");
    let _ = std::fs::remove_dir_all(&out);
    let done = std::process::Command::new(env!("CARGO_BIN_EXE_yee"))
        .args(["bands", "--quiet", "--jobs", "2", "--out"])
        .arg(&out)
        .arg(&scene)
        .output()
        .unwrap();
    assert!(
        done.status.success(),
        "{}",
        String::from_utf8_lossy(&done.stderr)
    );
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("run.json")).unwrap()).unwrap();
    assert_eq!(report["command"], "bands");
    assert_eq!(
        report["k_points"],
        serde_json::json!([
            [0.0, 0.0, 0.0],
            [1.0 / 6.0, 0.0, 0.0],
            [1.0 / 3.0, 0.0, 0.0],
            [0.5, 0.0, 0.0]
        ])
    );
    assert_eq!(
        report["corners"],
        serde_json::json!([{"k_index": 0, "label": "Γ"}, {"k_index": 3, "label": "X"}])
    );
    assert_eq!(
        report["files"],
        serde_json::json!(["bands.csv", "bands.png"])
    );
    let csv = std::fs::read_to_string(out.join("bands.csv")).unwrap();
    let mut lines = csv.lines();
    assert_eq!(
        lines.next(),
        Some("k_index,kx,ky,kz,k_distance,frequency,frequency_ac,decay,q,amplitude,error,probes")
    );
    let rows: Vec<Vec<f64>> = lines
        .map(|l| l.split(',').map(|x| x.parse().unwrap()).collect())
        .collect();
    assert_eq!(report["modes"], rows.len());
    for k in 0..4 {
        let at_k: Vec<&Vec<f64>> = rows.iter().filter(|r| r[0] == k as f64).collect();
        // Bands 1-3 below 1 c/a at every k but Γ, whose band 1 is at f = 0.
        assert!(at_k.len() >= 2 + usize::from(k > 0), "k {k}: {at_k:?}");
        for r in at_k {
            assert_eq!(r[1], [0.0, 1.0 / 6.0, 1.0 / 3.0, 0.5][k]);
            assert_eq!(r[4], r[1], "the distance along Γ-X is kx");
            assert!((r[6] / (r[5] * 40.0) - 1.0).abs() < 1e-12, "{r:?}");
        }
    }
    let (w, h, rgb) = yee_io::png::read_rgb(&out.join("bands.png")).unwrap();
    assert_eq!((w, h), yee_io::band_plot::SIZE);
    let count = |c: [u8; 3]| rgb.chunks(3).filter(|p| *p == c).count();
    let (mode, light) = (
        yee_io::band_plot::MODE_COLOUR,
        yee_io::band_plot::LIGHT_LINE_COLOUR,
    );
    assert!(count([mode.0, mode.1, mode.2]) > 100, "the modes");
    assert!(count([light.0, light.1, light.2]) > 100, "the light line");
    for k in 0..4 {
        assert!(out.join(format!("k_{k:03}/run.json")).is_file(), "k_{k:03}");
    }
}
