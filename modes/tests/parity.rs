//! Modes of one mirror parity ([`yee_modes::parity`]) against the solver's unfiltered list: in
//! a slab centred in its plane the modes alternate even, odd, even, … about its centre, so
//! the first odd mode is the unfiltered list's mode 1 and the second even one its mode 2.

use std::path::Path;

use yee_core::geometry::Axis;
use yee_modes::{CrossSection, ModeError, ModeOptions, Parity, WaveguideMode, solve};

/// A slab of ε = 4, 1 unit thick, along x between PEC walls 6 units apart (its centre at
/// `centre`), 10 cells per unit, in a `mode` ("tmz" or "tez") scene: its plane x = 0.
fn slab_plane(mode: &str, centre: f64) -> CrossSection {
    let text = format!(
        r#"
name = "slab_guide"
[units]
resolution = 10
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
lo = [0, {}]
hi = [1, {}]
[run]
steps = 1
"#,
        centre - 0.5,
        centre + 0.5
    );
    let scene = yee_scene::parse(Path::new("slab_guide.toml"), &text).unwrap();
    CrossSection::of_setup(&scene.setup(), Axis::X, 0, scene.units.frequency(0.5), None).unwrap()
}

/// The first `count` modes of `cs` at f = 0.5 (λ = 2) with `parity` (x, y, z).
fn modes(cs: &CrossSection, count: usize, even: [Option<bool>; 3]) -> Vec<WaveguideMode> {
    let options = ModeOptions {
        frequency: 0.05,
        count,
        time_step: None,
        parity: Parity { even },
    };
    solve(cs, &options).unwrap()
}

/// The largest difference between two modes' six components over the plane's nodes.
fn field_difference(a: &WaveguideMode, b: &WaveguideMode) -> f64 {
    let pairs = a.fields.e.iter().zip(&b.fields.e);
    pairs
        .chain(a.fields.h.iter().zip(&b.fields.h))
        .flat_map(|(x, y)| x.iter().zip(y).map(|(p, q)| (p - q).norm()))
        .fold(0.0, f64::max)
}

/// TE0, TE1, TE2 of the slab (a TMz scene: E along z) unfiltered; `odd_y` mode 0 is TE1
/// (n_eff and fields), `even_y` modes 0 and 1 are TE0 and TE2; `odd_z` (every TMz mode has E
/// along z) changes nothing. Measured: the same n_eff to 1e-13, fields to 1e-9.
#[test]
fn a_parity_picks_the_unfiltered_modes_of_that_symmetry() {
    let cs = slab_plane("tmz", 3.0);
    let all = modes(&cs, 3, [None; 3]);
    assert_eq!(all.len(), 3);
    let odd = modes(&cs, 1, [None, Some(false), None]);
    let even = modes(&cs, 2, [None, Some(true), None]);
    let tm = modes(&cs, 3, [None, None, Some(false)]);
    for (filtered, unfiltered) in [
        (&odd[0], &all[1]),
        (&even[0], &all[0]),
        (&even[1], &all[2]),
        (&tm[1], &all[1]),
    ] {
        assert!(
            (filtered.n_eff - unfiltered.n_eff).abs() < 1e-10,
            "n_eff {} against {}",
            filtered.n_eff,
            unfiltered.n_eff
        );
        let d = field_difference(filtered, unfiltered);
        assert!(d < 1e-6, "fields differ by {d}");
    }
    // The mirror image of the odd mode's E_z is its negative.
    let ez = &odd[0].fields.e[2];
    let n = ez.len();
    for i in 1..n {
        assert!((ez[i] + ez[n - i]).norm() < 1e-9, "E_z at {i}");
    }
}

/// A slab off the plane's centre, a parity about the normal, and `even_z` in a TMz scene are
/// refused, each saying why.
#[test]
fn a_parity_the_plane_cannot_have_is_an_error() {
    let shifted = slab_plane("tmz", 2.5);
    let options = |even| ModeOptions {
        frequency: 0.05,
        count: 1,
        time_step: None,
        parity: Parity { even },
    };
    let e = solve(&shifted, &options([None, Some(false), None])).unwrap_err();
    assert!(
        matches!(e, ModeError::NotSymmetric { axis: Axis::Y, .. }),
        "{e:?}"
    );
    let text = e.to_string();
    assert!(
        text.contains(
            "symmetric about its centre (cell 30 along y), but ε of Ez at cell 20 along y is"
        ),
        "{text}"
    );
    let cs = slab_plane("tmz", 3.0);
    let e = solve(&cs, &options([Some(true), None, None])).unwrap_err();
    assert_eq!(e, ModeError::ParityAlongNormal { axis: Axis::X });
    let e = solve(&cs, &options([None, None, Some(true)])).unwrap_err();
    assert_eq!(
        e,
        ModeError::ParityOfPolarisation {
            axis: Axis::Z,
            even: false
        }
    );
    assert!(
        e.to_string().contains("odd in z (its E lies along z)"),
        "{e}"
    );
    let tez = slab_plane("tez", 3.0);
    let e = solve(&tez, &options([None, None, Some(false)])).unwrap_err();
    assert!(
        e.to_string().contains("even in z (its E lies across z)"),
        "{e}"
    );
}

/// A strip (0.5 × 0.22 µm, ε = 11.9 in 2.1, λ = 1.55 µm, a coarse 25 cells per µm, its faces
/// smoothed) centred in a 2 × 1.52 µm plane: the unfiltered list's TE0 (E along y, the width) is `odd_y+even_z` (Meep's
/// `ODD_Y+EVEN_Z`: its dominant E_y normal to the y mirror, parallel to the z one) and its
/// TM0 `even_y+odd_z` — the same n_eff to 1e-9 — and `even_y+even_z` has neither.
#[test]
fn a_strips_te_and_tm_modes_have_meeps_parities() {
    let text = r#"
name = "strip"
background = "oxide"
[units]
resolution = 25
[grid]
mode = "3d"
size = [0.04, 2, 1.52]
[boundaries]
all = "pec"
[materials.oxide]
eps = 2.1025
[materials.silicon]
eps = 11.9025
[[geometry]]
shape = "box"
material = "silicon"
lo = [0, 0.75, 0.65]
hi = [0.04, 1.25, 0.87]
[run]
steps = 1
"#;
    let scene = yee_scene::parse(Path::new("strip.toml"), text).unwrap();
    let f = scene.units.frequency(1.0 / 1.55);
    let cs = CrossSection::of_setup(&scene.setup(), Axis::X, 0, f, None).unwrap();
    let solve_with = |count, even| {
        let options = ModeOptions {
            frequency: f,
            count,
            time_step: None,
            parity: Parity { even },
        };
        solve(&cs, &options).unwrap()
    };
    let all = solve_with(2, [None; 3]);
    let te = solve_with(1, [None, Some(false), Some(true)]);
    let tm = solve_with(1, [None, Some(true), Some(false)]);
    let neither = solve_with(1, [None, Some(true), Some(true)]);
    for (filtered, unfiltered) in [(&te[0], &all[0]), (&tm[0], &all[1])] {
        assert!(
            (filtered.n_eff - unfiltered.n_eff).abs() < 1e-9,
            "n_eff {} against {}",
            filtered.n_eff,
            unfiltered.n_eff
        );
    }
    assert!(
        neither.iter().all(|m| m.n_eff < all[1].n_eff - 1e-3),
        "{}",
        neither[0].n_eff
    );
}
