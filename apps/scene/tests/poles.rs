//! Dispersive poles in scene files: the keys of each kind, their defaults, and SI frequencies
//! (Hz) and times (s) becoming normalised ones (f Δ / c, t c / Δ; docs/scene.md, "Dispersive
//! materials").

use std::path::Path;

use yee_em::{Pole, PoleSet};

const C0: f64 = 299_792_458.0;

fn scene(text: &str) -> yee_scene::Scene {
    let text = format!("{text}\n[run]\nsteps = 1\n");
    yee_scene::parse(Path::new("poles.toml"), &text).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn normalised_poles_are_taken_as_written() {
    let s = scene(
        r#"
[grid]
mode = "1d"
size = [100]

[materials.metal]
eps = 2.0
poles = [
  { kind = "drude", frequency = 0.02 },
  { kind = "lorentz", frequency = 0.03, gamma = 0.001, sigma = 1.5 },
  { kind = "debye", delta_eps = 3.0, tau = 20.0 },
]

[[geometry]]
shape = "box"
material = "metal"
lo = [40]
hi = [60]
"#,
    );
    assert_eq!(
        s.poles,
        vec![
            Pole::Drude {
                frequency: 0.02,
                gamma: 0.0,
                sigma: 1.0
            },
            Pole::Lorentz {
                frequency: 0.03,
                gamma: 0.001,
                sigma: 1.5
            },
            Pole::Debye {
                delta_eps: 3.0,
                tau: 20.0
            },
        ]
    );
    assert_eq!(s.regions[0].material.poles, PoleSet { first: 0, count: 3 });
    assert_eq!(s.regions[0].material.eps, 2.0);
    assert_eq!(s.setup().poles.len(), 3);
}

#[test]
fn si_frequencies_and_times_are_normalised() {
    let s = scene(
        r#"
[units]
system = "si"
cell_size = 1e-8

[grid]
mode = "1d"
size = [100]

[materials.silver]
eps = 3.7
poles = [{ kind = "drude", frequency = 2.18e15, gamma = 4.35e12 }]

[materials.water]
eps = 4.9
poles = [{ kind = "debye", delta_eps = 74.1, tau = 8.3e-12 }]

[[geometry]]
shape = "box"
material = "silver"
lo = [2e-7]
hi = [4e-7]

[[geometry]]
shape = "box"
material = "water"
lo = [5e-7]
hi = [6e-7]
"#,
    );
    let d = 1e-8;
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-12 * b.abs();
    let Pole::Drude {
        frequency,
        gamma,
        sigma,
    } = s.poles[0]
    else {
        panic!("{:?}", s.poles[0])
    };
    assert!(close(frequency, 2.18e15 * d / C0) && close(gamma, 4.35e12 * d / C0));
    assert_eq!(sigma, 1.0);
    let Pole::Debye { delta_eps, tau } = s.poles[1] else {
        panic!("{:?}", s.poles[1])
    };
    assert!(close(tau, 8.3e-12 * C0 / d) && delta_eps == 74.1);
    let materials: Vec<PoleSet> = s.regions.iter().map(|r| r.material.poles).collect();
    assert_eq!(
        materials,
        [
            PoleSet { first: 0, count: 1 },
            PoleSet { first: 1, count: 1 }
        ]
    );
}
