//! Flux spectra from DFT monitors against the Airy formula: a dielectric slab (ε = 4, 25 cells
//! per wavelength in it at the top of the band) lit by a TF/SF plane wave; R from the
//! reflected fields (the run's transforms less the empty run's, Meep's
//! `load_minus_flux_data`), T from the transmitted flux, both over the empty run's incident
//! flux at the same plane.
//!
//! The reference is the Airy formula ([`yee_em::airy::slab`]) at the wavenumber a plane wave
//! has on the Yee grid (and, at 50 cells per wavelength, the continuous formula too): `sin(k/2) = (n/S) sin(ωS/2)` (Taflove & Hagness, 3rd ed., eq. (4.12)
//! in 1D), whose wave impedance ratio stays exactly `n`; so the slab answers like a continuous
//! one of index `n` at the frequency `k / (2πn)`. The continuous formula at the true frequency
//! differs from it by the grid's dispersion (about 1.5 % in R at 25 cells per wavelength).

use std::f64::consts::PI;

use num_complex::Complex64;
use yee_core::{Axis, Box3, Side};
use yee_em::flux::flux_spectrum;
use yee_em::{Component, FluxPlane, Material, Mode, PlaneWave, Region, Setup, Shape, Waveform};
use yee_tests::{cpml_everywhere, single_chunk, vacuum};

const COURANT: f64 = 0.5;
const EPS: f64 = 4.0;
/// At resolution 1 (every length below times the resolution, every frequency over it): the
/// grid, the slab `[SLAB_LO, SLAB_LO + THICKNESS]` along x, the pulse's carrier and spectral
/// standard deviation (its band `f0 ± 2σ` is [0.005, 0.02], 25 cells per wavelength in the
/// slab at the top).
const GRID: usize = 500;
const SLAB_LO: f64 = 220.0;
const THICKNESS: f64 = 40.0;
const F0: f64 = 0.0125;
const SIGMA_F: f64 = 0.00375;

fn plane(x: i64) -> FluxPlane {
    FluxPlane {
        cells: Box3::new([x, 0, 0], [x + 1, 1, 1]),
        axis: Axis::X,
        normal: Side::High,
    }
}

/// The transforms at the reflection plane (x = 120) and the transmission plane (x = 380),
/// with or without the slab, at `resolution`.
fn transforms(
    with_slab: bool,
    frequencies: &[f64],
    resolution: usize,
) -> (Vec<yee_em::DftFields>, [FluxPlane; 2]) {
    let k = resolution as f64;
    let at = |x: i64| x * resolution as i64;
    let grid = [GRID * resolution, 1, 1];
    let regions: Vec<Region> = with_slab
        .then_some(Region {
            shape: Shape::Block {
                lo: [SLAB_LO * k, f64::NEG_INFINITY, f64::NEG_INFINITY],
                hi: [(SLAB_LO + THICKNESS) * k, f64::INFINITY, f64::INFINITY],
            },
            material: Material::dielectric(EPS),
        })
        .into_iter()
        .collect();
    let width = k / (2.0 * PI * SIGMA_F);
    let waves = [PlaneWave {
        region: Box3::new([at(40), 0, 0], [at(460), 1, 1]),
        direction: [1.0, 0.0, 0.0],
        polarization: [0.0, 0.0, 1.0],
        waveform: Waveform::Gaussian {
            delay: 5.0 * width,
            width,
            frequency: F0 / k,
        },
        amplitude: 1.0,
    }];
    let planes = [plane(at(120)), plane(at(380))];
    let monitors = planes.map(|p| p.monitor(Mode::OneD, grid, 0, frequencies.len()));
    let setup = Setup {
        regions: &regions,
        plane_waves: &waves,
        monitors: &monitors,
        frequencies,
        ..vacuum(Mode::OneD, grid, COURANT, cpml_everywhere(20))
    };
    setup.validate().unwrap();
    // The pulse is over by t ≈ 320 and reaches the far plane by t ≈ 660; the slab's ringing
    // loses 1/9 of its amplitude per round trip of 160, below 1e-9 after ten: t = 2400.
    let out = single_chunk::<f64>(&setup, 4800 * resolution as u64);
    let tail = out.fields[Component::Ez.index()]
        .as_ref()
        .unwrap()
        .iter()
        .fold(0.0f64, |m, v| m.max(v.abs()));
    // The CPML (α = 0.05) absorbs the pulse's small DC part slowly.
    assert!(tail < 1e-4, "the fields have not died down: {tail:e}");
    (out.dft, planes)
}

/// R and T at `resolution` over the band, with the largest misses of the Airy formula at the
/// grid's wavenumber, of R at the continuous one, and of R + T = 1.
fn misses(resolution: usize) -> (f64, f64, f64, f64) {
    let k = resolution as f64;
    let frequencies: Vec<f64> = (0..=30).map(|i| (0.005 + 0.0005 * i as f64) / k).collect();
    let (empty, planes) = transforms(false, &frequencies, resolution);
    let (slab, _) = transforms(true, &frequencies, resolution);
    let grid = [GRID * resolution, 1, 1];
    let spectrum = |p: &FluxPlane, d: &yee_em::DftFields, minus: Option<&yee_em::DftFields>| {
        flux_spectrum(p, d, minus, Mode::OneD, grid, [false; 3], COURANT)
    };
    let incident_r = spectrum(&planes[0], &empty[0], None);
    let incident_t = spectrum(&planes[1], &empty[1], None);
    let reflected = spectrum(&planes[0], &slab[0], Some(&empty[0]));
    let transmitted = spectrum(&planes[1], &slab[1], None);
    let (mut worst_r, mut worst_t, mut worst_sum) = (0.0f64, 0.0f64, 0.0f64);
    let mut worst_continuous = 0.0f64;
    let thickness = THICKNESS * k;
    for (i, &f) in frequencies.iter().enumerate() {
        let r = -reflected[i] / incident_r[i];
        let t = transmitted[i] / incident_t[i];
        let n = EPS.sqrt();
        let grid_k = 2.0 * ((n / COURANT) * (PI * f * COURANT).sin()).asin();
        let airy = yee_em::airy::slab(Complex64::new(EPS, 0.0), thickness, grid_k / (2.0 * PI * n))
            .unwrap();
        let continuous = yee_em::airy::slab(Complex64::new(EPS, 0.0), thickness, f).unwrap();
        worst_continuous = worst_continuous
            .max((r - continuous.reflectance).abs())
            .max((t - continuous.transmittance).abs());
        worst_r = worst_r.max((r - airy.reflectance).abs());
        worst_t = worst_t.max((t - airy.transmittance).abs());
        worst_sum = worst_sum.max((r + t - 1.0).abs());
    }
    eprintln!(
        "slab ε = {EPS}, d = {thickness} cells ({} cells per wavelength inside at the top of the \
         band): |R − Airy| ≤ {worst_r:.2e}, |T − Airy| ≤ {worst_t:.2e} at the grid's \
         wavenumber, ≤ {worst_continuous:.2e} at the continuous one; |R + T − 1| ≤ {worst_sum:.2e}",
        25 * resolution
    );
    (worst_r, worst_t, worst_continuous, worst_sum)
}

#[test]
fn slab_reflection_and_transmission_match_airy() {
    let (r, t, _, sum) = misses(1);
    assert!(r <= 0.005, "R misses Airy by {r}");
    assert!(t <= 0.005, "T misses Airy by {t}");
    assert!(sum <= 1e-3, "R + T − 1 = {sum}");
    // At twice the resolution the grid's dispersion is a quarter: the continuous formula too.
    let (r, t, continuous, sum) = misses(2);
    assert!(
        r.max(t) <= 0.005 && sum <= 1e-3,
        "R {r}, T {t}, R + T − 1 {sum}"
    );
    assert!(
        continuous <= 0.005,
        "R or T misses the continuous Airy formula by {continuous}"
    );
}
