//! Diagonal anisotropy against the lattice's own dispersion relation: a plane wave along one
//! axis, polarised along another, in a medium with `ε = diag(2, 3, 5)` and
//! `μ = diag(1.5, 1.2, 1)`, travels with the wavenumber of `ε` along its E and `μ` along its H.
//!
//! The grid is long along the direction of travel (CPML at both ends) and one cell across with
//! periodic faces, so a soft point source is a sheet and the wave is plane. The transforms of
//! E at two planes give `E(x₂)/E(x₁) = e^{ik(x₂ − x₁)}`; the Yee lattice's relation for a wave
//! along an axis is `sin(k/2) = (sin(ωΔt/2)/Δt) √(ε_E μ_H)` (cell size 1; Taflove & Hagness,
//! 3rd ed., eq. (4.12) with the medium's speed), so the measured k must match the one of the
//! right pair of diagonal entries and no other.

use std::f64::consts::PI;

use yee_core::{Axis, Box3};
use yee_em::{
    Boundary, Component, CpmlParams, DftMonitor, Material, Mode, PointSource, Setup, Waveform,
};
use yee_tests::{ricker_source, vacuum};

const COURANT: f64 = 0.5;
const EPS: [f64; 3] = [2.0, 3.0, 5.0];
const MU: [f64; 3] = [1.5, 1.2, 1.0];
const LENGTH: usize = 400;
const SOURCE: i64 = 100;
const PLANES: [i64; 2] = [200, 203];

/// The measured wavenumbers at `frequencies` of the wave along `along`, E along `e`.
fn wavenumbers(along: Axis, e: Axis, frequencies: &[f64]) -> Vec<f64> {
    let a = along.index();
    let mut grid = [1; 3];
    grid[a] = LENGTH;
    let mut boundaries = [[Boundary::Periodic; 2]; 3];
    boundaries[a] = [Boundary::Cpml(CpmlParams::with_thickness(20)); 2];
    let component = Component::along(e, true);
    let at = |x: i64| {
        let mut cell = [0; 3];
        cell[a] = x;
        cell
    };
    let sources = [PointSource {
        waveform: Waveform::Ricker {
            frequency: 0.04,
            delay: 50.0,
        },
        ..ricker_source(component, at(SOURCE))
    }];
    let monitors = PLANES.map(|x| {
        let cell = at(x);
        DftMonitor {
            region: Box3::new(cell, cell.map(|c| c + 1)),
            components: std::array::from_fn(|c| c == component.index()),
            first: 0,
            count: frequencies.len(),
        }
    });
    let setup = Setup {
        background: Material::anisotropic(EPS, MU),
        sources: &sources,
        monitors: &monitors,
        frequencies,
        ..vacuum(Mode::ThreeD, grid, COURANT, boundaries)
    };
    setup.validate().unwrap();
    let out = yee_tests::single_chunk::<f64>(&setup, 3000);
    (0..frequencies.len())
        .map(|i| {
            let e = |m: usize| out.dft[m].at(component, at(PLANES[m]), i, grid, [false; 3]);
            ((e(1) / e(0)).ln() / (PLANES[1] - PLANES[0]) as f64).im
        })
        .collect()
}

/// The lattice's wavenumber at `f` for a medium of `eps` and `mu`.
fn lattice(f: f64, eps: f64, mu: f64) -> f64 {
    let s = (PI * f * COURANT).sin() / COURANT * (eps * mu).sqrt();
    2.0 * s.asin()
}

#[test]
fn each_polarisation_sees_its_own_diagonal_entries() {
    let frequencies: Vec<f64> = (0..8).map(|i| 0.02 + 0.005 * f64::from(i)).collect();
    for along in Axis::ALL {
        for e in Axis::ALL.into_iter().filter(|&e| e != along) {
            // H is along the third axis.
            let h = Axis::ALL
                .into_iter()
                .find(|&h| h != along && h != e)
                .unwrap();
            let measured = wavenumbers(along, e, &frequencies);
            let mut worst = 0.0f64;
            for (&f, k) in frequencies.iter().zip(measured) {
                let expect = lattice(f, EPS[e.index()], MU[h.index()]);
                worst = worst.max((k / expect - 1.0).abs());
                // Any other pair of entries is far off.
                for (ee, mh) in [
                    (EPS[h.index()], MU[e.index()]),
                    (EPS[along.index()], MU[h.index()]),
                ] {
                    let wrong = lattice(f, ee, mh);
                    assert!(
                        (k / wrong - 1.0).abs() > 0.05,
                        "{along:?}/{e:?}: {k} vs {wrong}"
                    );
                }
            }
            eprintln!("along {along:?}, E along {e:?}: k within {worst:.1e} of the lattice's");
            assert!(
                worst < 1e-4,
                "along {along:?}, E along {e:?}: k misses by {worst}"
            );
        }
    }
}
