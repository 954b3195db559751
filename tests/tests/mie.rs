//! Mie scattering: the scattering cross-section of a dielectric sphere (ε = 2, radius 8 cells)
//! lit by a TF/SF plane wave, against the Mie series ([`yee_em::mie`]) for size parameters
//! x = 2πRf from 0.5 to 2.5 (at x = 2.5, 14 cells per wavelength in the sphere).
//!
//! The sphere sits inside the total-field box; a closed flux box around it in the
//! scattered-field region (outside the TF box, inside the CPML) holds the scattered field
//! alone, so the outward flux of its transforms over the six faces is the scattered power
//! P_sca(f), with nothing to subtract. The incident intensity I_inc(f) is the flux through one
//! plane in an empty run with the same pulse, time step and entry point, on a 1D grid: a wave
//! along an axis is the 1D grid's wave on every line of the 3D one (the auxiliary grid is the
//! main grid's equations restricted to a line), and the same plane of a 3D empty run, over its
//! area, gives the same intensity to 2e-15 (measured). Both spectra use the same transforms,
//! H averaging and interpolation, and both are linear in the pulse's spectrum, so
//! σ_sca = P_sca / I_inc does not depend on the pulse.
//!
//! The sphere is staircased (`smoothing: false`: each node takes the material under it, a node
//! on the surface the mean of both sides), so its volume is not the nominal one. The
//! comparison uses the volume-equivalent radius: the volume is the number of E nodes inside,
//! each weighted by its share `(ε_node − 1)/(ε − 1)` of the sphere's permittivity, averaged over
//! Ex, Ey, Ez (2104 cells here against 4πR³/3 = 2144.7: R_eq = 7.949). Against it the error
//! is +1.2 % at x = 0.5, +2.0 % at most (x ≈ 1.3 and 2.3), a staircasing and dispersion bias
//! that shrinks with resolution: at most 3.8 % for R = 6 and 1.8 % for R = 10 (same ε, band
//! and margins). Against the nominal radius the error is −2.6 % at x = 0.5 and within −1.7 %
//! above x = 1; it follows how many lattice points the sphere happens to hold (−1.2 % at most
//! for R = 10, +2.9 % for R = 8 centred on a cell centre) and is printed, not asserted.
//!
//! The margins, the CPML thickness and the run length are converged: ten cells of CPML, three
//! cells for every gap and 800 steps of a longer pulse change σ_sca by less than 0.05 %.

use std::f64::consts::PI;

use num_complex::Complex64;
use yee_core::{Axis, Box3, Side};
use yee_em::flux::flux_spectrum;
use yee_em::{
    Component, DftFields, DftMonitor, FluxPlane, Material, Mode, PlaneWave, Region, Setup, Shape,
    Waveform,
};
use yee_tests::{cpml_everywhere, single_chunk, vacuum};

const COURANT: f64 = 0.5;
const EPS: f64 = 2.0;
const RADIUS: f64 = 8.0;
const CPML: usize = 6;
/// The grid is `2 · HALF` cells along each axis, the sphere centred on the node `HALF`.
const HALF: i64 = 21;
/// Half-widths of the total-field box and of the flux box: two cells from the sphere to the
/// TF surface, two more to the flux box, whose outermost nodes lie two cells from the CPML.
const TF_HALF: i64 = 10;
const FLUX_HALF: i64 = 12;
/// The pulse (carrier 0.03, spectral standard deviation 0.02, so the band's edges get 0.61 of
/// the peak) has crossed the flux box by t ≈ 90 and the sphere has rung down by t = 175.
const F0: f64 = 0.03;
const SIGMA_F: f64 = 0.02;
const STEPS: u64 = 350;

fn grid() -> [usize; 3] {
    [2 * HALF as usize; 3]
}

/// The frequencies of size parameters 0.5, 0.6, …, 2.5.
fn frequencies() -> Vec<f64> {
    (0..=20)
        .map(|i| (0.5 + 0.1 * f64::from(i)) / (2.0 * PI * RADIUS))
        .collect()
}

/// The plane wave along +x, Ez, whose total-field box is `region`.
fn wave(region: Box3) -> PlaneWave {
    let width = 1.0 / (2.0 * PI * SIGMA_F);
    PlaneWave {
        region,
        direction: [1.0, 0.0, 0.0],
        polarization: [0.0, 0.0, 1.0],
        waveform: Waveform::Gaussian {
            delay: 4.0 * width,
            width,
            frequency: F0,
        },
        amplitude: 1.0,
    }
}

/// The volume of the sphere as the grid holds it: every E node weighted by its share of the
/// sphere's permittivity, averaged over the three components.
fn discretised_volume(setup: &Setup) -> f64 {
    let around = Box3::new([HALF - TF_HALF; 3], [HALF + TF_HALF; 3]);
    let electric = [Component::Ex, Component::Ey, Component::Ez];
    let mut sum = 0.0;
    for c in electric {
        for n in 0..around.cells() {
            let eps = setup.material_at(c.position(around.index_at(n))).eps;
            sum += (eps - 1.0) / (EPS - 1.0);
        }
    }
    sum / electric.len() as f64
}

/// The scattered power through the flux box, and the discretised sphere's volume.
fn scattered_power(frequencies: &[f64]) -> (Vec<f64>, f64) {
    let grid = grid();
    let center = HALF as f64;
    let regions = [Region {
        shape: Shape::Sphere {
            center: [center; 3],
            radius: RADIUS,
        },
        material: Material::dielectric(EPS),
    }];
    let waves = [wave(Box3::new([HALF - TF_HALF; 3], [HALF + TF_HALF; 3]))];
    let faces = FluxPlane::faces_of_box(
        Box3::new([HALF - FLUX_HALF; 3], [HALF + FLUX_HALF; 3]),
        Mode::ThreeD,
    );
    let monitors: Vec<DftMonitor> = faces
        .iter()
        .map(|p| p.monitor(Mode::ThreeD, grid, 0, frequencies.len()))
        .collect();
    let setup = Setup {
        regions: &regions,
        plane_waves: &waves,
        monitors: &monitors,
        frequencies,
        smoothing: false,
        ..vacuum(Mode::ThreeD, grid, COURANT, cpml_everywhere(CPML))
    };
    setup.validate().unwrap();
    let out = single_chunk::<f64>(&setup, STEPS);
    let mut power = vec![0.0; frequencies.len()];
    for (face, data) in faces.iter().zip(&out.dft) {
        let outward = flux_spectrum(face, data, None, Mode::ThreeD, grid, [false; 3], COURANT);
        for (p, s) in power.iter_mut().zip(outward) {
            *p += s;
        }
    }
    (power, discretised_volume(&setup))
}

/// The incident intensity: the flux through the plane x = HALF inside the total-field box of
/// an empty 1D run (one cell of area).
fn incident_intensity(frequencies: &[f64]) -> Vec<f64> {
    let grid = [2 * HALF as usize, 1, 1];
    let waves = [wave(Box3::new(
        [HALF - TF_HALF, 0, 0],
        [HALF + TF_HALF, 1, 1],
    ))];
    let plane = FluxPlane {
        cells: Box3::new([HALF, 0, 0], [HALF + 1, 1, 1]),
        axis: Axis::X,
        normal: Side::High,
    };
    let monitors = [plane.monitor(Mode::OneD, grid, 0, frequencies.len())];
    let setup = Setup {
        plane_waves: &waves,
        monitors: &monitors,
        frequencies,
        ..vacuum(Mode::OneD, grid, COURANT, cpml_everywhere(CPML))
    };
    setup.validate().unwrap();
    let out = single_chunk::<f64>(&setup, STEPS);
    let data: &DftFields = &out.dft[0];
    flux_spectrum(&plane, data, None, Mode::OneD, grid, [false; 3], COURANT)
}

#[test]
fn dielectric_sphere_scatters_as_mie_predicts() {
    let frequencies = frequencies();
    let (power, volume) = scattered_power(&frequencies);
    let intensity = incident_intensity(&frequencies);
    let equivalent = (3.0 * volume / (4.0 * PI)).cbrt();
    eprintln!(
        "sphere ε = {EPS}, R = {RADIUS}: discretised volume {volume} (nominal {:.1}), \
         volume-equivalent radius {equivalent:.4}",
        4.0 / 3.0 * PI * RADIUS.powi(3)
    );
    let eps = Complex64::new(EPS, 0.0);
    let (mut worst, mut worst_nominal) = (0.0f64, 0.0f64);
    for (i, &f) in frequencies.iter().enumerate() {
        let sigma = power[i] / intensity[i];
        let mie = yee_em::mie::scattering_cross_section(eps, equivalent, f).unwrap();
        let nominal = yee_em::mie::scattering_cross_section(eps, RADIUS, f).unwrap();
        let (error, error_nominal) = (sigma / mie - 1.0, sigma / nominal - 1.0);
        eprintln!(
            "x = {:.1}: σ_sca = {sigma:8.3}, Mie(R_eq) {mie:8.3} ({:+.2} %), \
             Mie(R) {nominal:8.3} ({:+.2} %)",
            yee_em::mie::size_parameter(RADIUS, f),
            100.0 * error,
            100.0 * error_nominal
        );
        worst = worst.max(error.abs());
        worst_nominal = worst_nominal.max(error_nominal.abs());
    }
    eprintln!(
        "|σ_sca / Mie − 1| ≤ {:.2} % (R_eq), {:.2} % (nominal R)",
        100.0 * worst,
        100.0 * worst_nominal
    );
    assert!(
        worst <= 0.03,
        "σ_sca misses Mie at the volume-equivalent radius by {:.2} %",
        100.0 * worst
    );
}
