//! Geometry lands where the scene says (issue 25): a box `[lo, hi]` holds `hi − lo` cells of
//! material for every component, shown by the reflection spectrum of a 1D dielectric slab
//! against the Airy formula at the nominal thickness, by the weighted node count of a 3D box,
//! and by a sphere's count converging to its volume.
//!
//! The slab: ε = 4 between vacuum, a Gaussian pulse from the left, a probe before the slab.
//! The reflected field is the probe's record minus that of the same run without the slab; its
//! spectrum over the incident one gives R(f). On the Yee grid (Δx = 1, Δt = S) a plane wave of
//! angular frequency ω in a medium of index n has the wavenumber
//! `sin(k/2) = (n/S) sin(ωS/2)` (Taflove & Hagness, *Computational Electrodynamics*, 3rd ed.,
//! ch. 4, the 1D numerical dispersion relation), and the slab of thickness d reflects
//! `r = r₁₂ (1 − e^{−2ikd}) / (1 − r₁₂² e^{−2ikd})` with `r₁₂ = (1 − n)/(1 + n)` (the Airy
//! sum of the multiple reflections; Born & Wolf, *Principles of Optics*, §7.6.1).

use num_complex::Complex;
use std::f64::consts::PI;
use yee_em::{
    Component, Material, Mode, PointSource, Probe, Region, Setup, Shape, SourceKind, Waveform,
};
use yee_scalar::Simulation;
use yee_tests::{cpml_everywhere, dtft, vacuum};

const COURANT: f64 = 0.5;
const EPS: f64 = 4.0;
/// The slab's low face.
const N: f64 = 400.0;
/// Carrier and spectral standard deviation of the pulse: its band `f0 ± 2σ` is [0.005, 0.025],
/// and at 0.025 a wavelength in the slab is 1/(0.025 · 2) = 20 cells.
const F0: f64 = 0.015;
const SIGMA_F: f64 = 0.005;

/// The probe's Ez record with a slab `[lo, hi]` along x, or without one.
fn probe_record(slab: Option<(f64, f64)>) -> Vec<f64> {
    let regions: Vec<Region> = slab
        .into_iter()
        .map(|(lo, hi)| Region {
            shape: Shape::Block {
                lo: [lo, f64::NEG_INFINITY, f64::NEG_INFINITY],
                hi: [hi, f64::INFINITY, f64::INFINITY],
            },
            material: Material::dielectric(EPS),
        })
        .collect();
    let width = 1.0 / (2.0 * PI * SIGMA_F);
    let sources = [PointSource {
        component: Component::Ez,
        cell: [100, 0, 0],
        waveform: Waveform::Gaussian {
            delay: 5.0 * width,
            width,
            frequency: F0,
        },
        amplitude: 1.0,
        kind: SourceKind::Soft,
    }];
    let probes = [Probe {
        component: Component::Ez,
        cell: [300, 0, 0],
    }];
    let setup = Setup {
        regions: &regions,
        sources: &sources,
        probes: &probes,
        ..vacuum(Mode::OneD, [600, 1, 1], COURANT, cpml_everywhere(20))
    };
    let mut sim = Simulation::<f64>::new(&setup).expect("valid setup");
    // The echo leaves the probe by t ≈ 560; nine round trips of 240 later (each × 1/9 in
    // amplitude) the record ends at t = 2800 with the ringing below 1e-8.
    sim.run(5600).expect("no divergence");
    sim.probe_series(0).to_vec()
}

/// The Yee wavenumber at angular frequency `omega` in a medium of index `n`.
fn discrete_k(n: f64, omega: f64) -> f64 {
    2.0 * ((n / COURANT) * (omega * COURANT / 2.0).sin()).asin()
}

/// |r|² of a slab `thickness` cells thick (module docs).
fn airy(thickness: f64, omega: f64) -> f64 {
    let n = EPS.sqrt();
    let r12 = (1.0 - n) / (1.0 + n);
    let phase = Complex::from_polar(1.0, -2.0 * discrete_k(n, omega) * thickness);
    (r12 * (1.0 - phase) / (1.0 - r12 * r12 * phase)).norm_sqr()
}

/// The measured R(f) of the slab `[lo, hi]` over the band, as `(ω, R)`.
fn reflection_spectrum(lo: f64, hi: f64) -> Vec<(f64, f64)> {
    let empty = probe_record(None);
    let reflected: Vec<f64> = probe_record(Some((lo, hi)))
        .iter()
        .zip(&empty)
        .map(|(a, b)| a - b)
        .collect();
    // What is left at the end (the CPML's faint echoes) is far below the incident pulse.
    let tail = yee_tests::peak(&reflected[reflected.len() - 400..]) / yee_tests::peak(&empty);
    assert!(
        tail < 1e-4,
        "the echo has not died down: {tail:e} of the pulse"
    );
    (0..=80)
        .map(|i| {
            let f = F0 - 2.0 * SIGMA_F + 4.0 * SIGMA_F * i as f64 / 80.0;
            let omega = 2.0 * PI * f;
            let r = dtft(&reflected, COURANT, omega) / dtft(&empty, COURANT, omega);
            (omega, r.norm_sqr())
        })
        .collect()
}

/// The largest |R − Airy(thickness)| over the band.
fn worst_miss(spectrum: &[(f64, f64)], thickness: f64) -> f64 {
    spectrum
        .iter()
        .map(|&(omega, r)| (r - airy(thickness, omega)).abs())
        .fold(0.0, f64::max)
}

#[test]
fn integer_bounds_give_the_nominal_thickness() {
    let spectrum = reflection_spectrum(N, N + 60.0);
    let (at_60, at_61) = (worst_miss(&spectrum, 60.0), worst_miss(&spectrum, 61.0));
    eprintln!("slab [N, N + 60]: |R − Airy| ≤ {at_60:.4} at d = 60, {at_61:.4} at d = 61");
    assert!(at_60 <= 0.01, "misses the 60-cell Airy spectrum by {at_60}");
    assert!(at_61 >= 0.05, "cannot tell 60 cells from 61 ({at_61})");
    // The Fabry–Pérot minima sit at f = m / (2 n d): R there is a tiny fraction of the peak.
    for m in [3.0, 4.0, 5.0] {
        let omega = 2.0 * PI * m / (2.0 * EPS.sqrt() * 60.0);
        let minimum = spectrum
            .iter()
            .min_by(|a, b| (a.0 - omega).abs().total_cmp(&(b.0 - omega).abs()))
            .map(|&(_, r)| r)
            .unwrap_or(f64::NAN);
        assert!(minimum < 0.01, "R = {minimum} at the minimum m = {m}");
    }
}

#[test]
fn fractional_bounds_give_the_thickness_the_rule_says() {
    // [N, N + 59.999]: Ez, which carries ε in 1D, takes half a node at N (on the face) and whole
    // ones at N + 1 ..= N + 59 (inside), so the slab reaches the half-node N + 59.5: 59.5 cells.
    let spectrum = reflection_spectrum(N, N + 59.999);
    let (at_rule, at_60) = (worst_miss(&spectrum, 59.5), worst_miss(&spectrum, 60.0));
    eprintln!("slab [N, N + 59.999]: |R − Airy| ≤ {at_rule:.4} at d = 59.5, {at_60:.4} at d = 60");
    assert!(
        at_rule <= 0.01,
        "misses the 59.5-cell Airy spectrum by {at_rule}"
    );
    assert!(at_60 >= 0.03, "cannot tell 59.5 cells from 60 ({at_60})");
}

/// The weighted count of `component`'s nodes held by region 0, over the whole grid.
fn weighted_count(setup: &Setup, component: Component) -> f64 {
    let [nx, ny, nz] = setup.grid.map(|n| n as i64);
    let mut count = 0.0;
    for k in 0..nz {
        for j in 0..ny {
            for i in 0..nx {
                count += setup.node_placement(component, [i, j, k]).weight(Some(0));
            }
        }
    }
    count
}

#[test]
fn a_box_holds_its_cell_volume_for_every_component() {
    for (lo, hi) in [
        ([3.0, 4.0, 5.0], [11.0, 9.0, 14.0]),
        // Half-integer bounds land on the other components' nodes: still exact.
        ([3.5, 4.0, 2.5], [10.5, 13.0, 6.0]),
    ] {
        let regions = [Region {
            shape: Shape::Block { lo, hi },
            material: Material::dielectric(EPS),
        }];
        let setup = Setup {
            regions: &regions,
            ..vacuum(Mode::ThreeD, [16, 16, 18], 0.5, yee_tests::PEC)
        };
        let volume: f64 = (0..3).map(|a| hi[a] - lo[a]).product();
        for c in Component::ALL {
            assert_eq!(
                weighted_count(&setup, c),
                volume,
                "{c:?} in [{lo:?}, {hi:?}]"
            );
        }
    }
}

#[test]
fn a_sphere_count_converges_to_its_volume_to_first_order() {
    for radius in [4.0f64, 8.0, 16.0, 32.0] {
        // Centred on a node, so that many nodes lie exactly on the surface.
        let centre = radius + 3.0;
        let regions = [Region {
            shape: Shape::Sphere {
                center: [centre; 3],
                radius,
            },
            material: Material::dielectric(EPS),
        }];
        let side = 2 * (radius as usize + 3);
        let setup = Setup {
            regions: &regions,
            ..vacuum(Mode::ThreeD, [side; 3], 0.5, yee_tests::PEC)
        };
        let volume = 4.0 / 3.0 * PI * radius.powi(3);
        for c in Component::ALL {
            let relative = (weighted_count(&setup, c) / volume - 1.0).abs();
            eprintln!("sphere r = {radius}, {c:?}: relative error {relative:.2e}");
            // First order: the error is at most a fixed fraction of the surface over the volume.
            assert!(
                relative <= 0.25 / radius,
                "r = {radius}, {c:?}: relative error {relative}"
            );
        }
    }
}
