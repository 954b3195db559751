//! Slab modes of 2D scenes (a 1D cross-section) against the symmetric slab's transcendental
//! dispersion relation ([`yee_modes::slab`]).

use std::path::Path;

use yee_core::geometry::Axis;
use yee_modes::slab::{SlabPolarisation, slab_n_eff};
use yee_modes::{CrossSection, ModeOptions, solve};

/// A slab of ε = 4, 1 unit thick, along x in vacuum between PEC walls 6 units apart, at
/// `resolution` cells per unit: the n_eff of its first `count` modes at f = 0.5 (λ = 2).
fn slab_modes(mode: &str, resolution: usize, count: usize) -> Vec<f64> {
    slab_solution(mode, resolution, count)
        .iter()
        .map(|m| m.n_eff)
        .collect()
}

/// The fundamental mode's n_eff and group index of [`slab_modes`]' slab.
fn slab(mode: &str, resolution: usize) -> (f64, f64) {
    let m = &slab_solution(mode, resolution, 1)[0];
    (m.n_eff, m.group_index)
}

fn slab_solution(mode: &str, resolution: usize, count: usize) -> Vec<yee_modes::WaveguideMode> {
    let text = format!(
        r#"
name = "slab_guide"
[units]
resolution = {resolution}
[grid]
mode = "{mode}"
size = [1, 6]
[boundaries]
all = "pec"
[materials.core]
eps = 4.0
[[geometry]]
shape = "box"
material = "core"
lo = [0, 2.5]
hi = [1, 3.5]
[run]
steps = 1
"#
    );
    let scene = yee_scene::parse(Path::new("slab_guide.toml"), &text).unwrap();
    let f = scene.units.frequency(0.5);
    let cs = CrossSection::of_setup(&scene.setup(), Axis::X, 0, f, None).unwrap();
    let options = ModeOptions {
        frequency: f,
        count,
        time_step: None,
        parity: Default::default(),
    };
    solve(&cs, &options).unwrap()
}

/// TE0, TM0 and TE1 within 1e-4 of the dispersion relation at 80 cells per unit, the error
/// falling fourfold each time the cells halve (second order) from 10 cells per unit.
///
/// Measured (`cargo test -p yee-modes --test it slab:: -- --nocapture`), n_eff − exact:
///
/// | cells/unit | TE0 | TE1 | TM0 |
/// |---|---|---|---|
/// | 10 | −1.97e-3 | 8.40e-5 | 2.86e-3 |
/// | 20 | −5.07e-4 | 1.49e-5 | 7.22e-4 |
/// | 40 | −1.28e-4 | 3.33e-6 | 1.81e-4 |
/// | 80 | −3.20e-5 | 7.79e-7 | 4.53e-5 |
#[test]
fn slab_modes_converge_to_the_dispersion_relation() {
    let k0 = std::f64::consts::PI;
    let exact = [
        slab_n_eff(SlabPolarisation::Te, 0, 2.0, 1.0, 1.0, k0).unwrap(),
        slab_n_eff(SlabPolarisation::Te, 1, 2.0, 1.0, 1.0, k0).unwrap(),
        slab_n_eff(SlabPolarisation::Tm, 0, 2.0, 1.0, 1.0, k0).unwrap(),
    ];
    let mut previous: Option<[f64; 3]> = None;
    for r in [10, 20, 40, 80] {
        // A TMz scene carries Ez, Hx, Hy: E along the slab, its TE modes; TEz its TM ones.
        let te = slab_modes("tmz", r, 2);
        let tm = slab_modes("tez", r, 1);
        let error = [te[0] - exact[0], te[1] - exact[1], tm[0] - exact[2]];
        println!("{r} cells per unit: n_eff − exact {error:?}");
        if let Some(p) = previous {
            // TE0 and TM0 second order; TE1's error, 100 times smaller, falls at least as fast.
            for m in [0, 2] {
                let ratio = p[m] / error[m];
                assert!((3.5..4.5).contains(&ratio), "{r}: {p:?} → {error:?}");
            }
            assert!(p[1] / error[1] > 3.5, "{r}: {p:?} → {error:?}");
        }
        previous = Some(error);
    }
    let error = previous.unwrap();
    assert!(error.iter().all(|e| e.abs() < 1e-4), "{error:?}");
}

/// The group index from the eigenvector against the derivative of the exact dispersion
/// relation, `n_g = n + k₀ dn/dk₀` (a central difference of [`slab_n_eff`]): within the
/// discretisation error of n_eff itself at 80 cells per unit.
#[test]
fn the_group_index_is_the_derivative_of_the_dispersion_relation() {
    let k0 = std::f64::consts::PI;
    let h = 1e-5;
    for (mode, polarisation) in [("tmz", SlabPolarisation::Te), ("tez", SlabPolarisation::Tm)] {
        let n = |k: f64| slab_n_eff(polarisation, 0, 2.0, 1.0, 1.0, k).unwrap();
        let exact = n(k0) + k0 * (n(k0 + h) - n(k0 - h)) / (2.0 * h);
        let got = slab(mode, 80).1;
        println!("{mode}: n_g {got:.6} exact {exact:.6}");
        assert!((got - exact).abs() < 3e-4, "{mode}: {got} against {exact}");
    }
}

/// With the time step, the mode is the FDTD grid's: in a vacuum-filled parallel-plate guide
/// (PEC walls at y = 0 and y = L) the TMz grid's lowest mode `E_z ∝ sin(πy/L)` obeys the Yee
/// scheme's numerical dispersion relation (Taflove & Hagness, 3rd ed., eq. 4.12),
/// `(sin(ωΔt/2)/Δt)² = sin²(β/2) + sin²(k_y/2)` with `k_y = π/L`, to rounding; without it,
/// the continuous `ω² = β² + (2 sin(k_y/2))²` along the guide.
#[test]
fn with_the_time_step_a_mode_obeys_the_yee_dispersion_relation() {
    let text = r#"
name = "parallel_plate"
[grid]
mode = "tmz"
size = [1, 20]
courant = 0.5
[boundaries]
all = "pec"
[run]
steps = 1
"#;
    let scene = yee_scene::parse(Path::new("parallel_plate.toml"), text).unwrap();
    let (f, dt) = (0.05, 0.5);
    let cs = CrossSection::of_setup(&scene.setup(), Axis::X, 0, f, Some(dt)).unwrap();
    let options = ModeOptions {
        frequency: f,
        count: 1,
        time_step: Some(dt),
        parity: Default::default(),
    };
    let grid = &solve(&cs, &options).unwrap()[0];
    let w = 2.0 * std::f64::consts::PI * f;
    let ky = std::f64::consts::PI / 20.0;
    let lhs = ((w * dt / 2.0).sin() / dt).powi(2);
    let beta = 2.0 * (lhs - (ky / 2.0).sin().powi(2)).sqrt().asin();
    assert!(
        (grid.beta - beta).abs() < 1e-12,
        "{} against {beta}",
        grid.beta
    );
    let options = ModeOptions {
        time_step: None,
        ..options
    };
    let cs = CrossSection::of_setup(&scene.setup(), Axis::X, 0, f, None).unwrap();
    let continuous = &solve(&cs, &options).unwrap()[0];
    let beta = (w * w - (2.0 * (ky / 2.0).sin()).powi(2)).sqrt();
    assert!((continuous.beta - beta).abs() < 1e-12);
    // The grid's group velocity: dω/dβ of the relation above, by implicit differentiation.
    let vg = (grid.beta / 2.0).sin() * (grid.beta / 2.0).cos() * dt
        / ((w * dt / 2.0).sin() * (w * dt / 2.0).cos());
    assert!(
        (1.0 / grid.group_index - vg).abs() < 1e-10,
        "{} against {vg}",
        1.0 / grid.group_index
    );
}
