//! `[[modes]]` monitors: a straight single-mode slab guide (ε = 4, 8 cells wide, TMz) driven
//! by an ordinary line source across its core, its fundamental mode's amplitudes on planes
//! 170 cells either side of the source against the flux through the same planes; the same
//! bits on one rank and on several; and the mode number beyond the plane's guided modes
//! refused before the run, naming the key.

use std::process::Command;

/// The guide of these tests and of `mode_sources`: an ε = 4 core 8 cells wide along x in a
/// 400 × 80 TMz grid with CPML 12 cells thick.
pub const GUIDE: &str = r#"
name = "guide"
[grid]
mode = "tmz"
size = [400, 80]
[boundaries]
all = "cpml"
[boundaries.cpml]
thickness = 12
[materials.core]
eps = 4.0
[[geometry]]
shape = "box"
material = "core"
lo = [0, 36]
hi = [400, 44]
"#;

/// The guide along x, the source across its core at x = 200, mode monitors and flux planes
/// at x = 370 (downstream) and x = 30 (upstream), a band where only TE0 is guided
/// (`V = k₀ w/2 √3 < π/2` up to f = 0.036).
fn guide(modes: &str) -> String {
    let mut text = String::from(GUIDE);
    text.push_str(
        r#"[[sources]]
component = "ez"
lo = [200, 36]
hi = [200, 44]
waveform = "gaussian"
frequency = 0.025
width = 30
[run]
time = 1600
"#,
    );
    for (name, x) in [("down", 370), ("up", 30)] {
        text.push_str(&format!(
            "[[flux]]\nname = \"{name}_flux\"\naxis = \"x\"\nposition = {x}\nfmin = 0.02\n\
             fmax = 0.03\ncount = 11\n[[modes]]\nname = \"{name}\"\naxis = \"x\"\n\
             position = {x}\n{modes}fmin = 0.02\nfmax = 0.03\ncount = 11\n"
        ));
    }
    text
}

/// Downstream the fundamental mode carries the power forward: `|A⁺|²` within 1 % of the flux
/// monitor's flux (measured ≤ 0.53 %: the flux interpolates E and H onto the cells' centres,
/// the amplitudes sum over the nodes), `|A⁺|² − |A⁻|²` no more than the net power through
/// the plane by the same node sum and within 1e-3 of it (measured 4e-4 … 7.4e-4: the source's
/// radiation still crossing the plane), `|A⁻|²` below 1e-6 of `|A⁺|²` (measured ≤ 2.3e-9).
/// Upstream the same with the directions swapped. `n_eff` against the slab's dispersion
/// relation within the discretisation error. The files are listed in run.json.
#[test]
fn a_straight_guides_fundamental_mode_carries_the_flux() {
    let dir = crate::tmp_dir(module_path!());
    let out = crate::run_text(&dir, "guide", &guide(""));
    for (name, sign) in [("down", 1.0), ("up", -1.0)] {
        let modes = crate::csv_rows(&out.join(format!("modes_{name}.csv")));
        let flux = crate::csv_rows(&out.join(format!("flux_{name}_flux.csv")));
        assert_eq!(modes.len(), 11);
        for (m, f) in modes.iter().zip(&flux) {
            let (fw, bw) = (m["forward_power"], m["backward_power"]);
            let (along, against) = if sign > 0.0 { (fw, bw) } else { (bw, fw) };
            let (net, phi) = (sign * m["power"], sign * f["flux"]);
            assert_eq!(m["mode"], 0.0);
            assert!((along / phi - 1.0).abs() < 1e-2, "{name}: {m:?} flux {phi}");
            let carried = along - against;
            assert!(carried <= net * (1.0 + 1e-12), "{name}: {m:?}");
            assert!(carried / net > 1.0 - 1e-3, "{name}: {m:?}");
            assert!(against < 1e-6 * along, "{name}: {m:?}");
            let k0 = 2.0 * std::f64::consts::PI * m["frequency"];
            let exact = yee_modes::slab::slab_n_eff(
                yee_modes::slab::SlabPolarisation::Te,
                0,
                2.0,
                1.0,
                8.0,
                k0,
            )
            .unwrap();
            assert!((m["n_eff"] - exact).abs() < 5e-3, "{m:?} against {exact}");
        }
    }
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("run.json")).unwrap()).unwrap();
    let outputs = report["outputs"].as_array().unwrap();
    for file in [
        "modes_down.csv",
        "modes_down.png",
        "modes_up.csv",
        "modes_up.png",
    ] {
        assert!(outputs.iter().any(|o| o == file), "{file} in {outputs:?}");
        assert!(out.join(file).is_file(), "{file}");
    }
    let down = &report["modes"][0];
    assert_eq!(down["name"], "down");
    assert_eq!(down["csv"], "modes_down.csv");
    assert_eq!(down["modes"], serde_json::json!([0]));
    assert_eq!(down["forward_power"][0].as_array().unwrap().len(), 11);
    // Driven by a line source, not a mode source: no S-parameters.
    assert!(down.get("source").is_none() && down.get("s_forward_power").is_none());
    let header = std::fs::read_to_string(out.join("modes_down.csv")).unwrap();
    assert!(!header.lines().next().unwrap().contains("s_forward"));
}

/// One rank and four (and rayon threads) write the same `modes_<name>.csv`, byte for byte.
#[test]
fn the_amplitudes_are_the_same_bits_on_any_decomposition() {
    let dir = crate::tmp_dir(module_path!()).join("ranks");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("guide.toml");
    std::fs::write(&file, guide("")).unwrap();
    let run = |name: &str, args: &[&str]| {
        let out = dir.join(name);
        let status = Command::new(env!("CARGO_BIN_EXE_yee"))
            .args(["run", "--quiet", "--steps", "1200", "--out"])
            .arg(&out)
            .args(args)
            .arg(&file)
            .status()
            .unwrap();
        assert!(status.success(), "{name}");
        std::fs::read(out.join("modes_down.csv")).unwrap()
    };
    let one = run("one", &["--ranks", "1", "--backend", "scalar"]);
    let four = run("four", &["--ranks", "4", "--backend", "scalar"]);
    assert_eq!(one, four);
    let threads = run("rayon", &["--ranks", "3", "--backend", "rayon"]);
    assert_eq!(one, threads);
}

/// A mode number beyond the guided modes of the plane at the band's lowest frequency is
/// refused before the run, the error naming the key, the mode and how many there are.
#[test]
fn a_mode_the_plane_does_not_guide_is_refused_before_the_run() {
    let dir = crate::tmp_dir(module_path!()).join("beyond");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("guide.toml");
    std::fs::write(&file, guide("modes = [0, 2]\n")).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_yee"))
        .args(["run", "--quiet", "--out"])
        .arg(dir.join("out"))
        .arg(&file)
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(
            "modes[0].modes: mode 2: the plane x=370 carries 1 guided mode at frequency 0.02"
        ),
        "{stderr}"
    );
    assert!(!dir.join("out/run.json").exists());
}

/// Meep's `|a⁻|²/|a⁺|²` of the facet scene at resolution 2, per frequency 0.02 … 0.03
/// (`bench/meep_guide_facet.py`).
const MEEP_FACET_R: [f64; 11] = [
    0.098288, 0.102507, 0.108253, 0.112544, 0.114155, 0.119258, 0.125246, 0.125991, 0.129150,
    0.133555, 0.132575,
];

/// The guide ends at x = 260: its fundamental mode's reflection `|A⁻|²/|A⁺|²` on a plane
/// between the source and the facet against Meep's eigenmode coefficients on the same scene
/// (16 cells across the core): within 5 % at every frequency (measured ≤ 3.8 %: Meep's curve
/// ripples by ±2 % about a smooth rise that yee's follows; at 8 cells across the two differ by
/// up to 16 %).
#[test]
fn a_guide_ends_reflection_agrees_with_meep() {
    let dir = crate::tmp_dir(module_path!());
    let scene = r#"
name = "facet"
[units]
resolution = 2
[grid]
mode = "tmz"
size = [400, 80]
[boundaries]
all = "cpml"
[boundaries.cpml]
thickness = 12
[materials.core]
eps = 4.0
[[geometry]]
shape = "box"
material = "core"
lo = [0, 36]
hi = [260, 44]
[[sources]]
component = "ez"
lo = [100, 36]
hi = [100, 44]
waveform = "gaussian"
frequency = 0.025
width = 8
[[modes]]
name = "refl"
axis = "x"
position = 180
fmin = 0.02
fmax = 0.03
count = 11
[run]
time = 3000
"#;
    let out = crate::run_text(&dir, "facet", scene);
    let modes = crate::csv_rows(&out.join("modes_refl.csv"));
    for (m, meep) in modes.iter().zip(MEEP_FACET_R) {
        let r = m["backward_power"] / m["forward_power"];
        assert!(
            (r / meep - 1.0).abs() < 0.05,
            "{m:?}: R {r} against Meep's {meep}"
        );
    }
}
