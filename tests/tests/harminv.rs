//! Harmonic inversion (`yee_em::harminv`, filter diagonalization) on synthetic signals — sums of
//! decaying complex and real sinusoids with Gaussian noise, two of them closer than the Fourier
//! resolution 1/T — against the bounds: frequencies within 1e-6 relative, Q within
//! 1e-3, amplitudes within 1e-4 (relative; phases within 1e-4 rad); harminv's spurious-mode
//! filters; and the PEC cavity's modes on the discrete dispersion relation.

use core::f64::consts::PI;

use num_complex::Complex;
use yee_em::harminv::{HarminvOptions, Mode, ModeFilter, harminv, harminv_real, solve};

type C = Complex<f64>;

/// One synthetic mode: `amplitude · e^{−i(2π frequency t − phase) − decay t}`.
#[derive(Clone, Copy, Debug)]
struct Truth {
    frequency: f64,
    decay: f64,
    amplitude: f64,
    phase: f64,
}

impl Truth {
    const fn new(frequency: f64, decay: f64, amplitude: f64, phase: f64) -> Self {
        Self {
            frequency,
            decay,
            amplitude,
            phase,
        }
    }

    fn q(&self) -> f64 {
        PI * self.frequency.abs() / self.decay
    }
}

/// A deterministic Gaussian source (a 64-bit LCG through Box–Muller).
struct Noise(u64);

impl Noise {
    fn uniform(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 11) as f64 + 0.5) / (1u64 << 53) as f64
    }

    fn normal(&mut self) -> f64 {
        let (a, b) = (self.uniform(), self.uniform());
        (-2.0 * a.ln()).sqrt() * (2.0 * PI * b).cos()
    }
}

fn complex_signal(modes: &[Truth], samples: usize, dt: f64, sigma: f64, seed: u64) -> Vec<C> {
    let mut noise = Noise(seed);
    (0..samples)
        .map(|n| {
            let t = n as f64 * dt;
            let clean: C = modes
                .iter()
                .map(|m| {
                    C::from_polar(m.amplitude, -(2.0 * PI * m.frequency * t - m.phase))
                        * (-m.decay * t).exp()
                })
                .sum();
            clean + C::new(noise.normal(), noise.normal()) * sigma
        })
        .collect()
}

/// Σ A cos(2π f t + φ) e^{−γt} + noise, for modes given as (f, γ, A, φ).
fn real_signal(modes: &[Truth], samples: usize, dt: f64, sigma: f64, seed: u64) -> Vec<f64> {
    let mut noise = Noise(seed);
    (0..samples)
        .map(|n| {
            let t = n as f64 * dt;
            let clean: f64 = modes
                .iter()
                .map(|m| {
                    m.amplitude
                        * (2.0 * PI * m.frequency * t + m.phase).cos()
                        * (-m.decay * t).exp()
                })
                .sum();
            clean + noise.normal() * sigma
        })
        .collect()
}

/// Relative errors (frequency, Q, amplitude) and the phase error of the mode found nearest
/// each truth, checked against the bounds; returns the worst of each.
fn check_modes(name: &str, truths: &[Truth], found: &[Mode]) -> [f64; 4] {
    let mut worst = [0.0f64; 4];
    for t in truths {
        let m = found
            .iter()
            .min_by(|a, b| {
                (a.frequency - t.frequency)
                    .abs()
                    .total_cmp(&(b.frequency - t.frequency).abs())
            })
            .unwrap_or_else(|| panic!("{name}: no modes"));
        let wrap = |x: f64| (x + PI).rem_euclid(2.0 * PI) - PI;
        let errors = [
            ((m.frequency - t.frequency) / t.frequency).abs(),
            ((m.q - t.q()) / t.q()).abs(),
            ((m.amplitude - t.amplitude) / t.amplitude).abs(),
            wrap(m.phase - t.phase).abs(),
        ];
        eprintln!(
            "{name}: f {:+.5}: δf/f {:.1e}, δQ/Q {:.1e}, δa/a {:.1e}, δphase {:.1e} (error \
             estimate {:.1e})",
            t.frequency, errors[0], errors[1], errors[2], errors[3], m.error
        );
        assert!(errors[0] <= 1e-6, "{name}: {t:?} found as {m:?}");
        assert!(errors[1] <= 1e-3, "{name}: {t:?} found as {m:?}");
        assert!(errors[2] <= 1e-4, "{name}: {t:?} found as {m:?}");
        assert!(errors[3] <= 1e-4, "{name}: {t:?} found as {m:?}");
        for (w, e) in worst.iter_mut().zip(errors) {
            *w = w.max(e);
        }
    }
    worst
}

/// Four complex modes, one at a negative frequency and two 0.4/T apart, in noise of 10⁻⁵ of
/// the strongest: every one within the bounds, and every other mode found weaker than 10⁻³.
#[test]
fn complex_modes_in_noise() {
    let (samples, dt) = (4000, 0.5);
    let t_total = samples as f64 * dt;
    let truths = [
        Truth::new(-0.05, 1e-4, 0.5, 0.0),
        Truth::new(0.1, 1e-3, 1.0, 0.3),
        Truth::new(0.1 + 0.4 / t_total, 2e-4, 0.7, -1.2),
        Truth::new(0.13, 5e-4, 0.2, 2.0),
    ];
    let signal = complex_signal(&truths, samples, dt, 1e-5, 7);
    let found = harminv(&signal, dt, -0.08, 0.16, &HarminvOptions::default()).unwrap();
    check_modes("complex, noise 1e-5", &truths, &found);
    for m in &found {
        let true_mode = truths
            .iter()
            .any(|t| (m.frequency - t.frequency).abs() < 1e-6);
        assert!(true_mode || m.amplitude < 1e-3, "spurious {m:?}");
    }
}

/// Three damped cosines, two of them 0.6/T apart, in noise of 10⁻⁵: each found once, at
/// half its amplitude and with its phase negated (the mode at +f of A cos(2πft + φ) is
/// (A/2) e^{−i(2πft + φ)}).
#[test]
fn real_modes_in_noise() {
    let (samples, dt) = (4000, 0.5);
    let t_total = samples as f64 * dt;
    let cosines = [
        Truth::new(0.08, 2e-4, 1.5, 0.4),
        Truth::new(0.08 + 0.6 / t_total, 3e-4, 1.0, -0.5),
        Truth::new(0.11, 1e-3, 0.3, 1.0),
    ];
    let signal = real_signal(&cosines, samples, dt, 1e-5, 3);
    let found = harminv_real(&signal, dt, 0.06, 0.13, &HarminvOptions::default()).unwrap();
    let truths = cosines.map(|c| Truth::new(c.frequency, c.decay, c.amplitude / 2.0, -c.phase));
    check_modes("real, noise 1e-5", &truths, &found);
    assert!(found.iter().all(|m| m.frequency >= 0.0), "{found:?}");
}

/// Two modes a quarter of the Fourier resolution apart (an FFT of this record shows one
/// peak), noise-free and with noise 10⁻⁷.
#[test]
fn two_modes_closer_than_the_fourier_resolution() {
    let (samples, dt) = (1000, 1.0);
    let t_total = samples as f64 * dt;
    let truths = [
        Truth::new(0.2, 5e-4, 1.0, 0.1),
        Truth::new(0.2 + 0.25 / t_total, 8e-4, 0.8, 1.1),
    ];
    for (sigma, seed) in [(0.0, 0), (1e-7, 5)] {
        let signal = complex_signal(&truths, samples, dt, sigma, seed);
        let found = harminv(&signal, dt, 0.15, 0.25, &HarminvOptions::default()).unwrap();
        let worst = check_modes(
            &format!("pair 0.25/T apart, noise {sigma}"),
            &truths,
            &found,
        );
        if sigma == 0.0 {
            // Without noise the fit is exact but for rounding.
            assert!(worst[0] < 1e-9 && worst[2] < 1e-6, "{worst:?}");
        }
    }
}

/// Of every mode filter diagonalization finds in a noisy record, harminv's default filter
/// drops the one of Q < 10 and keeps the noise's (harminv keeps them too); a relative
/// amplitude limit (harminv's `-a`) leaves only the true modes, and `only_in_band` (`-F`) the
/// one in the band.
#[test]
fn spurious_modes_are_filtered() {
    let (samples, dt, band) = (1000, 1.0, [0.05, 0.2]);
    let truths = [
        Truth::new(0.1, 0.1, 1.0, 0.0), // Q = π/1 ≈ 3.1
        Truth::new(0.15, 1e-4, 1.0, 0.5),
        Truth::new(0.21, 2e-4, 0.5, -0.5), // just outside the band
    ];
    let signal = complex_signal(&truths, samples, dt, 1e-3, 9);
    let all = solve(&signal, dt, band[0], band[1], 100).unwrap();
    let low_q = |m: &Mode| (m.frequency - 0.1).abs() < 1e-3 && m.amplitude > 0.5;
    assert!(all.iter().any(|m| low_q(m) && m.q < 10.0), "{all:?}");
    let filtered = |filter: ModeFilter| {
        let mut modes = all.clone();
        filter.apply(&mut modes, band[0], band[1]);
        modes
    };
    let kept = filtered(ModeFilter::default());
    assert!(!kept.iter().any(low_q), "{kept:?}");
    assert!(kept.len() > 2 && kept.len() < all.len(), "{kept:?}");
    assert!(kept.iter().all(|m| m.q.abs() >= 10.0 && m.error <= 0.1));
    let strong = ModeFilter {
        min_relative_amplitude: 0.1,
        ..ModeFilter::default()
    };
    let kept = filtered(strong);
    assert_eq!(kept.len(), 2, "{kept:?}");
    assert!((kept[0].frequency - 0.15).abs() < 1e-6 && (kept[1].frequency - 0.21).abs() < 1e-6);
    let kept = filtered(ModeFilter {
        only_in_band: true,
        ..strong
    });
    assert_eq!(kept.len(), 1, "{kept:?}");
    assert!((kept[0].frequency - 0.15).abs() < 1e-6);
}

/// A 2D TMz PEC cavity of 40×30 cells rung by a Ricker pulse for 4000 steps: the five
/// lowest modes (two of them 1.6 % apart) found on the discrete dispersion relation within
/// 1e-6 relative, undamped (|Q| > 10⁵). The band spans every mode the pulse excites: modes
/// left outside it would leak into it through the filters and bias these by ~10⁻⁴.
#[test]
fn pec_cavity_modes_on_the_discrete_dispersion_relation() {
    use yee_em::dispersion::{cavity_wavevector, discrete_omega};
    use yee_em::{
        Boundary, Component, Material, Mode as Lattice, PointSource, Probe, Setup, SourceKind,
        Waveform,
    };
    const SIZE: [usize; 3] = [40, 30, 1];
    let sources = [PointSource {
        component: Component::Ez,
        cell: [11, 7, 0],
        waveform: Waveform::Ricker {
            frequency: 0.03,
            delay: 60.0,
        },
        amplitude: 1.0,
        kind: SourceKind::Soft,
    }];
    let probes = [Probe {
        component: Component::Ez,
        cell: [29, 19, 0],
    }];
    let setup = Setup {
        mode: Lattice::Tmz,
        grid: SIZE,
        courant: 0.5,
        background: Material::VACUUM,
        poles: &[],
        regions: &[],
        boundaries: [[Boundary::Pec; 2]; 3],
        sources: &sources,
        probes: &probes,
        plane_waves: &[],
        monitors: &[],
        frequencies: &[],
        active: None,
        smoothing: true,
        smoothing_tensor: true,
        bloch: [0.0; 3],
    };
    let mut sim = yee_scalar::Simulation::<f64>::new(&setup).unwrap();
    sim.run(4000).unwrap();
    let dt = sim.dt();
    // After the pulse (its centre at t = 60, 120 steps).
    let signal = &sim.probe_series(0)[300..];
    let found = harminv_real(signal, dt, 0.0, 0.15, &HarminvOptions::default()).unwrap();
    for mode in [[1, 1, 0], [2, 1, 0], [1, 2, 0], [3, 1, 0], [2, 2, 0]] {
        let discrete = discrete_omega(cavity_wavevector(mode, SIZE), dt).unwrap() / (2.0 * PI);
        let m = found
            .iter()
            .min_by(|a, b| {
                (a.frequency - discrete)
                    .abs()
                    .total_cmp(&(b.frequency - discrete).abs())
            })
            .unwrap();
        let rel = (m.frequency / discrete - 1.0).abs();
        eprintln!(
            "cavity mode {mode:?}: f {:.9} against {discrete:.9} ({rel:.1e}), Q {:.1e}",
            m.frequency, m.q
        );
        assert!(rel <= 1e-6, "{mode:?}: {m:?} against {discrete}");
        assert!(m.q.abs() > 1e5, "{mode:?}: {m:?}");
    }
}
