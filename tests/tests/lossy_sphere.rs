//! An absorbing sphere (ε = 2.25, σ = 0.02) lit by a TF/SF plane wave: its absorption and
//! scattering cross-sections against the Mie series ([`yee_em::mie`]) at the nominal radius,
//! smoothed ([`yee_em::smoothing`]: the conductivity smoothed with ε, so the surface nodes
//! hold the complex permittivity's Kottke mean) and staircased.
//!
//! Two closed flux boxes in one run: one in the total-field region between the sphere and the
//! TF surface, whose inward flux is the absorbed power (the incident wave alone carries no net
//! flux through a closed box), and one in the scattered-field region, whose outward flux is the
//! scattered power (as `tests/tests/mie.rs` explains). The incident intensity is the flux
//! through one plane of an empty 1D run with the same pulse. Everything scales with the
//! radius: the band (size parameters x = 2πRf from 0.6 to 2.0, where the loss tangent
//! σ/(2πfε) runs from 0.15 to 0.04), the gaps and the run length. The centre is off the
//! lattice's symmetry points, so the staircase is not a lucky one.

use std::f64::consts::PI;

use num_complex::Complex64;
use yee_core::{Axis, Box3, Side};
use yee_em::flux::flux_spectrum;
use yee_em::mie::sphere_cross_sections;
use yee_em::{DftMonitor, FluxPlane, Material, Mode, PlaneWave, Region, Setup, Shape, Waveform};
use yee_tests::{cpml_everywhere, single_chunk, vacuum};

const COURANT: f64 = 0.5;
const EPS: f64 = 2.25;
const SIGMA: f64 = 0.02;
const X_LO: f64 = 0.6;
const X_HI: f64 = 2.0;
const FREQUENCIES: usize = 8;
const CPML: usize = 8;

/// One sphere: its radius in cells and everything that scales with it.
#[derive(Clone, Copy, Debug)]
struct Sphere {
    radius: f64,
    smoothing: bool,
}

/// The cross-sections of a run over the band, and Mie's.
struct Spectra {
    frequencies: Vec<f64>,
    absorption: Vec<f64>,
    scattering: Vec<f64>,
}

impl Sphere {
    /// Cells between the sphere, the absorption box, the TF surface, the scattering box and
    /// the CPML.
    fn gap(self) -> i64 {
        ((self.radius / 4.0).ceil() as i64).max(2)
    }
    fn abs_half(self) -> i64 {
        (self.radius + 0.5).ceil() as i64 + self.gap()
    }
    fn tf_half(self) -> i64 {
        self.abs_half() + self.gap()
    }
    fn sca_half(self) -> i64 {
        self.tf_half() + self.gap()
    }
    fn half(self) -> i64 {
        self.sca_half() + self.gap() + CPML as i64
    }
    fn frequencies(self) -> Vec<f64> {
        (0..FREQUENCIES)
            .map(|i| {
                let x = X_LO + (X_HI - X_LO) * i as f64 / (FREQUENCIES - 1) as f64;
                x / (2.0 * PI * self.radius)
            })
            .collect()
    }
    /// A Ricker pulse (no DC part) peaked inside the band.
    fn waveform(self) -> Waveform {
        let peak = 1.3 / (2.0 * PI * self.radius);
        Waveform::Ricker {
            frequency: peak,
            delay: 4.0 / (PI * peak),
        }
    }
    fn steps(self) -> u64 {
        (self.radius * 100.0 / COURANT) as u64
    }
    fn wave(self, region: Box3) -> PlaneWave {
        PlaneWave {
            region,
            direction: [1.0, 0.0, 0.0],
            polarization: [0.0, 0.0, 1.0],
            waveform: self.waveform(),
            amplitude: 1.0,
        }
    }

    /// The absorbed and the scattered power over the band.
    fn powers(self) -> (Vec<f64>, Vec<f64>) {
        let half = self.half();
        let grid = [2 * half as usize; 3];
        let centre = half as f64;
        let regions = [Region {
            shape: Shape::Sphere {
                center: [centre + 0.3, centre + 0.15, centre - 0.2],
                radius: self.radius,
            },
            material: Material {
                sigma: SIGMA,
                ..Material::dielectric(EPS)
            },
        }];
        let around = |h: i64| Box3::new([half - h; 3], [half + h; 3]);
        let waves = [self.wave(around(self.tf_half()))];
        let inner = FluxPlane::faces_of_box(around(self.abs_half()), Mode::ThreeD);
        let outer = FluxPlane::faces_of_box(around(self.sca_half()), Mode::ThreeD);
        let frequencies = self.frequencies();
        let monitors: Vec<DftMonitor> = inner
            .iter()
            .chain(&outer)
            .map(|p| p.monitor(Mode::ThreeD, grid, 0, frequencies.len()))
            .collect();
        let setup = Setup {
            regions: &regions,
            plane_waves: &waves,
            monitors: &monitors,
            frequencies: &frequencies,
            smoothing: self.smoothing,
            ..vacuum(Mode::ThreeD, grid, COURANT, cpml_everywhere(CPML))
        };
        setup.validate().unwrap();
        let out = single_chunk::<f64>(&setup, self.steps());
        let mut absorbed = vec![0.0; frequencies.len()];
        let mut scattered = vec![0.0; frequencies.len()];
        for (k, (face, data)) in inner.iter().chain(&outer).zip(&out.dft).enumerate() {
            let outward = flux_spectrum(face, data, None, Mode::ThreeD, grid, [false; 3], COURANT);
            let (sum, sign) = match k < inner.len() {
                true => (&mut absorbed, -1.0),
                false => (&mut scattered, 1.0),
            };
            for (p, s) in sum.iter_mut().zip(outward) {
                *p += sign * s;
            }
        }
        (absorbed, scattered)
    }

    /// The incident intensity: the flux through one plane of an empty 1D run.
    fn intensity(self) -> Vec<f64> {
        let half = self.half();
        let grid = [2 * half as usize, 1, 1];
        let tf = self.tf_half();
        let waves = [self.wave(Box3::new([half - tf, 0, 0], [half + tf, 1, 1]))];
        let plane = FluxPlane {
            cells: Box3::new([half, 0, 0], [half + 1, 1, 1]),
            axis: Axis::X,
            normal: Side::High,
        };
        let frequencies = self.frequencies();
        let monitors = [plane.monitor(Mode::OneD, grid, 0, frequencies.len())];
        let setup = Setup {
            plane_waves: &waves,
            monitors: &monitors,
            frequencies: &frequencies,
            ..vacuum(Mode::OneD, grid, COURANT, cpml_everywhere(CPML))
        };
        setup.validate().unwrap();
        let out = single_chunk::<f64>(&setup, self.steps());
        let data = &out.dft[0];
        flux_spectrum(&plane, data, None, Mode::OneD, grid, [false; 3], COURANT)
    }

    /// The measured cross-sections over the band.
    fn spectra(self) -> Spectra {
        let (absorbed, scattered) = self.powers();
        let intensity = self.intensity();
        Spectra {
            frequencies: self.frequencies(),
            absorption: absorbed
                .iter()
                .zip(&intensity)
                .map(|(p, i)| p / i)
                .collect(),
            scattering: scattered
                .iter()
                .zip(&intensity)
                .map(|(p, i)| p / i)
                .collect(),
        }
    }

    /// The relative errors `σ/σ_Mie − 1` of absorption and scattering over the band, printed.
    fn errors(self) -> (Vec<f64>, Vec<f64>) {
        let s = self.spectra();
        let mut errors = (Vec::new(), Vec::new());
        for (k, &f) in s.frequencies.iter().enumerate() {
            let w = 2.0 * PI * f;
            let mie =
                sphere_cross_sections(Complex64::new(EPS, SIGMA / w), self.radius, f).unwrap();
            let (ea, es) = (
                s.absorption[k] / mie.absorption - 1.0,
                s.scattering[k] / mie.scattering - 1.0,
            );
            eprintln!(
                "R = {}, smoothing {}, x = {:.2}: σ_abs {:9.4} (Mie {:9.4}, {:+.2} %), \
                 σ_sca {:9.4} (Mie {:9.4}, {:+.2} %)",
                self.radius,
                self.smoothing,
                yee_em::mie::size_parameter(self.radius, f),
                s.absorption[k],
                mie.absorption,
                100.0 * ea,
                s.scattering[k],
                mie.scattering,
                100.0 * es
            );
            errors.0.push(ea);
            errors.1.push(es);
        }
        errors
    }
}

/// The largest magnitude.
fn worst(errors: &[f64]) -> f64 {
    errors.iter().fold(0.0f64, |m, e| m.max(e.abs()))
}

/// The root-mean-square.
fn rms(errors: &[f64]) -> f64 {
    (errors.iter().map(|e| e * e).sum::<f64>() / errors.len() as f64).sqrt()
}

#[test]
#[ignore = "measurement"]
fn measure() {
    for radius in [10.0, 15.0] {
        for smoothing in [false, true] {
            let (a, s) = Sphere { radius, smoothing }.errors();
            eprintln!(
                "R = {radius}, smoothing {smoothing}: worst |abs| {:.2} % (rms {:.2} %), \
                 worst |sca| {:.2} % (rms {:.2} %)",
                100.0 * worst(&a),
                100.0 * rms(&a),
                100.0 * worst(&s),
                100.0 * rms(&s)
            );
        }
    }
}
