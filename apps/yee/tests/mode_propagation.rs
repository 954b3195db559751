//! A computed mode is an eigenmode of the FDTD grid: launched into a long straight guide it
//! keeps its profile, its power and the solver's propagation constant for 50 wavelengths.
//!
//! The guide of `mode_monitors` (ε = 4, 8 cells wide, TMz, single-mode over 0.02 … 0.03) made
//! 1380 cells long and 120 high (the mode's tail at the band's low edge, decaying as
//! `e^{−k₀√(n²−1)·y}` = 0.136 per cell, otherwise reaches the side CPML 24 cells from the core
//! and loses 1.3e-3 of its power over the run), a mode source at x = 40 along +x, mode
//! monitors at x = 60 (`near`) and x = 1335 (`far`): 1275 cells apart, 50.2 guide wavelengths
//! at the centre frequency (`λ/n_eff` = 25.4 cells), 37.7 at 0.02 and 63.1 at 0.03.

/// The long guide.
const LONG_GUIDE: &str = r#"
name = "long_guide"
[grid]
mode = "tmz"
size = [1380, 120]
[boundaries]
all = "cpml"
[boundaries.cpml]
thickness = 12
[materials.core]
eps = 4.0
[[geometry]]
shape = "box"
material = "core"
lo = [0, 56]
hi = [1380, 64]
[[sources]]
kind = "mode"
axis = "x"
position = 40
direction = "+"
waveform = "gaussian"
frequency = 0.025
width = 30
[[modes]]
name = "near"
axis = "x"
position = 60
fmin = 0.02
fmax = 0.03
count = 11
[[modes]]
name = "far"
axis = "x"
position = 1335
fmin = 0.02
fmax = 0.03
count = 11
[run]
time = 3600
"#;

/// The distance between the monitors, in cells.
const LENGTH: f64 = 1275.0;

/// After 50 wavelengths (at the centre frequency; 37.7 … 63.1 over the band) the field on the
/// far plane is the mode: its overlap `|A⁺|²` over the power through the plane (the power
/// coupling of the field into the mode, the amplitudes and the power by the same node sums),
/// at least 0.999 at every frequency (measured ≥ 0.999998); the mode kept its power,
/// `|S21|²` within 1e-4 of 1 (measured within 5.6e-6); and its phase advanced by the solver's
/// `β·L` (β = 2π f n_eff with the grid's own dispersion, L = 1275 cells), `S21(far)/S21(near)`
/// within 1e-3 rad of `e^{iβL}` (measured ≤ 1.3e-5 rad, β right to 1e-8 of itself). With
/// the continuous equations' β along the guide in place of the grid's (the monitors' modes
/// without `--grid-dispersion`) the phase would be off by 0.24 … 1.24 rad (`yee modes` with and without
/// `--grid-dispersion` on the far plane).
#[test]
fn a_launched_mode_keeps_its_profile_for_fifty_wavelengths() {
    let dir = crate::tmp_dir(module_path!());
    let out = crate::run_text(&dir, "long_guide", LONG_GUIDE);
    let near = crate::csv_rows(&out.join("modes_near.csv"));
    let far = crate::csv_rows(&out.join("modes_far.csv"));
    assert_eq!(far.len(), 11);
    let s21 = |r: &std::collections::HashMap<String, f64>| {
        num_complex::Complex64::new(r["s_forward_re"], r["s_forward_im"])
    };
    for (n, f) in near.iter().zip(&far) {
        let freq = f["frequency"];
        let overlap = f["forward_power"] / (f["power"] + f["backward_power"]);
        println!(
            "f {freq:.4}: {:.2} wavelengths, overlap {overlap:.7}, |S21|² {:.7}",
            LENGTH * freq * f["n_eff"],
            s21(f).norm_sqr()
        );
        assert!(overlap >= 0.999, "f {freq}: overlap {overlap}");
        assert!(
            (s21(f).norm_sqr() - 1.0).abs() < 1e-4,
            "f {freq}: |S21|² {}",
            s21(f).norm_sqr()
        );
        let beta = 2.0 * std::f64::consts::PI * freq * f["n_eff"];
        let phase =
            (s21(f) / s21(n) * num_complex::Complex64::from_polar(1.0, -beta * LENGTH)).arg();
        println!("  phase off β·L by {phase:.2e} rad");
        assert!(phase.abs() < 1e-3, "f {freq}: phase off β·L by {phase}");
    }
}
