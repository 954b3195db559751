//! Smoothing of absorbing media: an absorbing sphere (ε = 2.25, σ = 0.02) against the Mie
//! series ([`yee_em::mie`]) and an absorbing cylinder (the same material, along z) against its
//! series ([`yee_em::cylinder_scattering`]), lit by a TF/SF plane wave; absorption and
//! scattering at the nominal radius, smoothed ([`yee_em::smoothing`]: the conductivity smoothed
//! with ε, so a surface node holds Kottke's mean of the complex permittivity) and staircased.
//!
//! Two closed flux boxes in one run: one in the total-field region between the object and the
//! TF surface, whose inward flux is the absorbed power (the incident wave alone carries no net
//! flux through a closed box), and one in the scattered-field region, whose outward flux is the
//! scattered power (as `tests/tests/mie.rs` explains). The incident intensity is the flux
//! through one plane of an empty 1D run with the same pulse. Everything scales with the
//! radius: the band (size parameters x = 2πRf from 0.6 to 2.0), the gaps, the run length and,
//! in the convergence tests, the conductivity in cells (σ = 0.2/R), so that the loss tangent
//! σ/(2πfε) runs from 0.15 to 0.04 over the band at every radius. The centre is off the
//! lattice's symmetry points, so the staircase is not a lucky one.

use std::f64::consts::PI;

use num_complex::Complex64;
use yee_core::Topology;
use yee_core::{Axis, Box3, Side};
use yee_em::cylinder_scattering::{CylinderPolarisation, absorption_width, scattering_width};
use yee_em::flux::flux_spectrum;
use yee_em::mie::sphere_cross_sections;
use yee_em::{DftMonitor, FluxPlane, Material, Mode, PlaneWave, Region, Setup, Shape, Waveform};
use yee_tests::{CommKind, cpml_everywhere, planned_on_backend, single_chunk, vacuum};

const COURANT: f64 = 0.5;
const EPS: f64 = 2.25;
/// σ at radius 10, the issue's sphere; a convergence study scales it as 1/R, which keeps the
/// physical conductivity (σ in cells is `σ η₀ Δ`) and the loss tangent at each size parameter.
const SIGMA: f64 = 0.02;
const X_LO: f64 = 0.6;
const X_HI: f64 = 2.0;
const FREQUENCIES: usize = 8;

/// One run: a sphere (3D) or a cylinder along z (TMz, TEz), its radius in cells and
/// everything that scales with it.
#[derive(Clone, Copy, Debug)]
struct Scatterer {
    mode: Mode,
    radius: f64,
    /// The conductivity in cells.
    sigma: f64,
    smoothing: bool,
    runner: Runner,
}

/// How a run is stepped; every way gives the same bits.
#[derive(Clone, Copy, Debug)]
enum Runner {
    /// The single-chunk scalar `Simulation`.
    OneChunk,
    /// One rank on the rayon backend, over every core: the fastest, for the long studies.
    Rayon,
}

/// The cross-sections of a run over the band, and Mie's.
struct Spectra {
    frequencies: Vec<f64>,
    absorption: Vec<f64>,
    scattering: Vec<f64>,
}

impl Scatterer {
    /// The object of `radius` with the conductivity of radius 10's `SIGMA` in physical units.
    fn scaled(mode: Mode, radius: f64, smoothing: bool) -> Scatterer {
        Scatterer {
            mode,
            radius,
            sigma: SIGMA * 10.0 / radius,
            smoothing,
            runner: Runner::OneChunk,
        }
    }

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
        self.sca_half() + self.gap() + self.cpml() as i64
    }
    /// Eight cells, and half the radius above 16.
    fn cpml(self) -> usize {
        ((self.radius / 2.0).ceil() as usize).max(8)
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
            polarization: match self.mode {
                Mode::Tez => [0.0, 1.0, 0.0],
                _ => [0.0, 0.0, 1.0],
            },
            waveform: self.waveform(),
            amplitude: 1.0,
        }
    }

    /// The absorbed and the scattered power over the band.
    fn powers(self) -> (Vec<f64>, Vec<f64>) {
        let (mode, half) = (self.mode, self.half());
        let three = mode == Mode::ThreeD;
        let n = 2 * half as usize;
        let grid = if three { [n; 3] } else { [n, n, 1] };
        let centre = half as f64;
        let shape = match three {
            true => Shape::Sphere {
                center: [centre + 0.3, centre + 0.15, centre - 0.2],
                radius: self.radius,
            },
            false => Shape::Cylinder {
                center: [centre + 0.3, centre + 0.15, 0.5],
                radius: self.radius,
                axis: Axis::Z,
                length: f64::INFINITY,
            },
        };
        let regions = [Region {
            shape,
            material: Material {
                sigma: self.sigma,
                ..Material::dielectric(EPS)
            },
        }];
        let around = |h: i64| match three {
            true => Box3::new([half - h; 3], [half + h; 3]),
            false => Box3::new([half - h, half - h, 0], [half + h, half + h, 1]),
        };
        let waves = [self.wave(around(self.tf_half()))];
        let inner = FluxPlane::faces_of_box(around(self.abs_half()), mode);
        let outer = FluxPlane::faces_of_box(around(self.sca_half()), mode);
        let frequencies = self.frequencies();
        let monitors: Vec<DftMonitor> = inner
            .iter()
            .chain(&outer)
            .map(|p| p.monitor(mode, grid, 0, frequencies.len()))
            .collect();
        let setup = Setup {
            regions: &regions,
            plane_waves: &waves,
            monitors: &monitors,
            frequencies: &frequencies,
            smoothing: self.smoothing,
            ..vacuum(mode, grid, COURANT, cpml_everywhere(self.cpml()))
        };
        setup.validate().unwrap();
        let out = match self.runner {
            Runner::OneChunk => single_chunk::<f64>(&setup, self.steps()),
            Runner::Rayon => {
                let plan = yee_scalar::decomposed::uniform_plan(&setup, Topology([1, 1, 1]));
                let rayon = yee_rayon::RayonCurl::global();
                planned_on_backend::<f64, _>(
                    &setup,
                    &plan,
                    CommKind::Shm,
                    None,
                    &rayon,
                    self.steps(),
                )
                .0
            }
        };
        let mut absorbed = vec![0.0; frequencies.len()];
        let mut scattered = vec![0.0; frequencies.len()];
        for (k, (face, data)) in inner.iter().chain(&outer).zip(&out.dft).enumerate() {
            let outward = flux_spectrum(face, data, None, mode, grid, [false; 3], COURANT);
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
        let waves = [PlaneWave {
            polarization: [0.0, 0.0, 1.0],
            ..self.wave(Box3::new([half - tf, 0, 0], [half + tf, 1, 1]))
        }];
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
            ..vacuum(Mode::OneD, grid, COURANT, cpml_everywhere(self.cpml()))
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

    /// The exact absorption and scattering cross-sections (widths in 2D) at `f`.
    fn exact(self, f: f64) -> (f64, f64) {
        let eps = Complex64::new(EPS, self.sigma / (2.0 * PI * f));
        let polarisation = match self.mode {
            Mode::ThreeD => {
                let mie = sphere_cross_sections(eps, self.radius, f).unwrap();
                return (mie.absorption, mie.scattering);
            }
            Mode::Tez => CylinderPolarisation::ElectricAcross,
            _ => CylinderPolarisation::ElectricAlong,
        };
        (
            absorption_width(eps, self.radius, f, polarisation).unwrap(),
            scattering_width(eps, self.radius, f, polarisation).unwrap(),
        )
    }

    /// The relative errors `σ/σ_exact − 1` of absorption and scattering over the band, printed.
    fn errors(self) -> (Vec<f64>, Vec<f64>) {
        let s = self.spectra();
        let mut errors = (Vec::new(), Vec::new());
        for (k, &f) in s.frequencies.iter().enumerate() {
            let (absorption, scattering) = self.exact(f);
            let (ea, es) = (
                s.absorption[k] / absorption - 1.0,
                s.scattering[k] / scattering - 1.0,
            );
            eprintln!(
                "{:?}, R = {}, smoothing {}, x = {:.2}: σ_abs {:9.4} (exact {:9.4}, {:+.2} %), \
                 σ_sca {:9.4} (exact {:9.4}, {:+.2} %)",
                self.mode,
                self.radius,
                self.smoothing,
                yee_em::mie::size_parameter(self.radius, f),
                s.absorption[k],
                absorption,
                100.0 * ea,
                s.scattering[k],
                scattering,
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

/// Measured: at radius 10 the worst errors over the band are 0.52 % (absorption) and 0.82 %
/// (scattering); with the real off-diagonal entries alone 1.51 % and 1.45 %, with the volume
/// average of σ 5.45 % and 1.61 %; the staircase gives 1.03 % and 1.32 %
/// (`issue51_before_after`).
#[test]
fn a_smoothed_absorbing_sphere_absorbs_and_scatters_as_mie_predicts() {
    let sphere = Scatterer::scaled(Mode::ThreeD, 10.0, true);
    let (absorption, scattering) = sphere.errors();
    let (a, s) = (worst(&absorption), worst(&scattering));
    assert!(a <= 0.02, "σ_abs misses Mie by {:.2} %", 100.0 * a);
    assert!(s <= 0.02, "σ_sca misses Mie by {:.2} %", 100.0 * s);
}

/// The RMS errors over the band at radius 8, 16 and 32 (σ = 0.2/R, the same physical sphere)
/// and the orders between them, on the rayon backend (the bits of the scalar oracle: radius
/// 8's figures are the scalar decomposition's to the last digit). Measured (2026-11-28/29, two
/// cores, at nice 19 beside other work for most of it: 56 min in all; radius 32 is 162³
/// cells and 6 400 steps): absorption 0.50, 0.13, 0.04 % (orders 1.92, 1.91), scattering 0.89,
/// 0.22, 0.05 % (2.05, 2.05); at radius 32 every size parameter within 0.06 % (absorption) and
/// 0.08 % (scattering) of Mie. `a_smoothed_absorbing_sphere_at_radius_8_and_16` is the first
/// two.
#[test]
#[ignore = "a study: about an hour on two cores"]
fn a_smoothed_absorbing_sphere_converges_at_second_order() {
    let errors = [8.0, 16.0, 32.0].map(|radius| {
        let (a, s) = Scatterer {
            runner: Runner::Rayon,
            ..Scatterer::scaled(Mode::ThreeD, radius, true)
        }
        .errors();
        [rms(&a), rms(&s)]
    });
    for (k, name) in ["absorption", "scattering"].iter().enumerate() {
        let e = errors.map(|e| e[k]);
        let orders = [0, 1].map(|i| (e[i] / e[i + 1]).log2());
        eprintln!(
            "{name}: RMS errors {:?} %, orders {orders:.2?}",
            e.map(|x| (x * 1e4).round() / 1e2)
        );
        for order in orders {
            assert!(order > 1.8, "{name} converges at order {order}");
        }
    }
}

/// The absorbing sphere at radius 8 and 16 (σ = 0.2/R), smoothed with the full effective
/// tensor and its loss: RMS errors and the order between them. Measured (two shared cores,
/// about twenty minutes): absorption 0.50, 0.13 % (order 1.92), scattering 0.89, 0.22 %
/// (2.05); with the real off-diagonal entries alone (before) absorption 0.85, 0.37 % (1.20),
/// scattering 0.87, 0.21 % (2.08); with the diagonal alone absorption 1.21, 0.55 % (1.14),
/// scattering 1.60, 0.62 % (1.37).
#[test]
#[ignore = "a study: about ten minutes on two cores"]
fn a_smoothed_absorbing_sphere_at_radius_8_and_16() {
    let errors = [8.0, 16.0].map(|radius| {
        let (a, s) = Scatterer {
            runner: Runner::Rayon,
            ..Scatterer::scaled(Mode::ThreeD, radius, true)
        }
        .errors();
        [rms(&a), rms(&s)]
    });
    for (k, name) in ["absorption", "scattering"].iter().enumerate() {
        let e = errors.map(|e| e[k]);
        let order = (e[0] / e[1]).log2();
        eprintln!(
            "sphere {name}: RMS errors {:?} %, order {order:.2}",
            e.map(|x| (x * 1e4).round() / 1e2)
        );
        assert!(order > 1.8, "{name} converges at order {order}");
    }
}

/// An absorbing cylinder at radius 8, 16 and 32, smoothed and staircased: the RMS errors of
/// its absorption and scattering widths over the band and the orders between them.
///
/// With E along the axis (TMz) E lies along the surface, where the smoothed medium is the
/// mean of ε and of σ. With E across it (TEz) the normal enters and the effective tensor has
/// off-diagonal entries (module docs of [`yee_em::smoothing`]) with their loss, the running
/// sum of the other component's D that Kottke's complex mean weighs. Every width converges at
/// second order, and TEz's errors are below the staircase's.
///
/// Measured (RMS over the band, radius 8, 16, 32):
///
/// | | smoothed | staircased | smoothed, real off-diagonal entries (before) | smoothed, diagonal only |
/// | --- | --- | --- | --- | --- |
/// | TMz absorption | 0.41, 0.09, 0.02 % (2.16, 2.08) | 1.48, 0.36, 0.12 % (2.04, 1.52) | the same | the same |
/// | TMz scattering | 0.63, 0.16, 0.04 % (2.02, 2.00) | 1.84, 0.57, 0.18 % (1.69, 1.67) | the same | the same |
/// | TEz absorption | 0.83, 0.19, 0.05 % (2.09, 2.07) | 1.01, 0.38, 0.15 % (1.39, 1.31) | 1.07, 0.33, 0.12 % (1.71, 1.47) | 0.97, 0.32, 0.12 % (1.62, 1.36) |
/// | TEz scattering | 0.92, 0.22, 0.05 % (2.04, 2.06) | 1.61, 0.58, 0.23 % (1.48, 1.34) | 0.97, 0.25, 0.06 % (1.97, 1.92) | 0.93, 0.26, 0.10 % (1.81, 1.35) |
#[test]
fn a_smoothed_absorbing_cylinder_converges() {
    let radii = [8.0, 16.0, 32.0];
    for mode in [Mode::Tmz, Mode::Tez] {
        let [smooth, stair] = [true, false].map(|smoothing| {
            radii.map(|radius| {
                let (a, s) = Scatterer::scaled(mode, radius, smoothing).errors();
                [rms(&a), rms(&s)]
            })
        });
        for (k, name) in ["absorption", "scattering"].iter().enumerate() {
            for (errors, smoothing) in [(smooth, true), (stair, false)] {
                let e = errors.map(|e| e[k]);
                let orders = [0, 1].map(|i| (e[i] / e[i + 1]).log2());
                eprintln!(
                    "{mode:?} {name}, smoothing {smoothing}: RMS errors {:?} %, orders {orders:.2?}",
                    e.map(|x| (x * 1e4).round() / 1e2)
                );
                if smoothing {
                    for order in orders {
                        assert!(
                            order > 1.85,
                            "{mode:?} {name} converges at order {order}, not 2"
                        );
                    }
                }
            }
        }
        if mode == Mode::Tez {
            for i in 0..radii.len() {
                let [absorption, scattering] = smooth[i];
                let at = format!("TEz, radius {}", radii[i]);
                assert!(
                    absorption <= 0.85 * stair[i][0],
                    "{at}: smoothed absorption error {absorption} not below the staircase's {}",
                    stair[i][0]
                );
                assert!(
                    scattering <= 0.7 * stair[i][1],
                    "{at}: smoothed scattering error {scattering} not below the staircase's {}",
                    stair[i][1]
                );
            }
        }
    }
}

/// Issue 51's before/after figures: the worst errors over the band at radius 10 and 15 (σ =
/// 0.02 at both), smoothed and staircased. Measured, absorption / scattering:
///
/// | | staircased | smoothed, σ averaged by volume (before) | smoothed, real off-diagonal entries | smoothed (now) |
/// | --- | --- | --- | --- | --- |
/// | radius 10 | 1.03 / 1.32 % | 5.45 / 1.61 % | 1.51 / 1.45 % | 0.52 / 0.82 % |
/// | radius 15 | 0.66 / 0.74 % | 3.62 / 1.10 % | 0.99 / 0.82 % | not measured again |
#[test]
#[ignore = "a study: about ten minutes on one core"]
fn issue51_before_after() {
    for radius in [10.0, 15.0] {
        for smoothing in [false, true] {
            let (a, s) = Scatterer {
                sigma: SIGMA,
                ..Scatterer::scaled(Mode::ThreeD, radius, smoothing)
            }
            .errors();
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
