//! Source waveforms: pure functions of time (normalised units, c = 1, cell size 1).

use core::f64::consts::PI;
// Float gives f64 its math in a pure no_std build; when std is linked anywhere in the
// build, f64's inherent methods win and the import goes unused.
#[allow(unused_imports)]
use num_traits::Float;

/// The time dependence of a source.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Waveform {
    /// `exp(−(t − t0)² / 2w²) · cos(2πf (t − t0))`: a baseband Gaussian when `frequency` is 0,
    /// a Gaussian-modulated carrier otherwise.
    Gaussian {
        /// Centre time t0.
        delay: f64,
        /// Standard deviation w of the envelope in time.
        width: f64,
        /// Carrier frequency f (0 for baseband).
        frequency: f64,
    },
    /// The Ricker wavelet (negated, normalised second derivative of a Gaussian):
    /// `(1 − 2π²f²τ²) exp(−π²f²τ²)` with `τ = t − t0`. It has no DC content, so a soft source
    /// driven by it leaves no static charge behind.
    Ricker {
        /// Peak frequency f.
        frequency: f64,
        /// Centre time t0.
        delay: f64,
    },
    /// `sin(2πf t + φ)` switched on smoothly: multiplied by `(1 − cos(πt/T))/2` for `t < T`.
    Sinusoid {
        /// Frequency f.
        frequency: f64,
        /// Phase φ in radians.
        phase: f64,
        /// Ramp duration T (0 switches on at once).
        ramp: f64,
    },
}

impl Waveform {
    /// The value at time `t`.
    pub fn value(&self, t: f64) -> f64 {
        match *self {
            Waveform::Gaussian {
                delay,
                width,
                frequency,
            } => {
                let tau = t - delay;
                let envelope = (-(tau * tau) / (2.0 * width * width)).exp();
                if frequency == 0.0 {
                    envelope
                } else {
                    envelope * (2.0 * PI * frequency * tau).cos()
                }
            }
            Waveform::Ricker { frequency, delay } => {
                let a = PI * frequency * (t - delay);
                let a2 = a * a;
                (1.0 - 2.0 * a2) * (-a2).exp()
            }
            Waveform::Sinusoid {
                frequency,
                phase,
                ramp,
            } => {
                let carrier = (2.0 * PI * frequency * t + phase).sin();
                if t <= 0.0 {
                    0.0
                } else if t < ramp {
                    carrier * 0.5 * (1.0 - (PI * t / ramp).cos())
                } else {
                    carrier
                }
            }
        }
    }

    /// The frequency the waveform is centred on: the carrier of a Gaussian (half its
    /// [`Waveform::max_frequency`] for a baseband one), the Ricker's peak, the sinusoid's tone.
    pub fn centre_frequency(&self) -> f64 {
        match *self {
            Waveform::Gaussian { frequency, .. } if frequency > 0.0 => frequency,
            Waveform::Gaussian { .. } => self.max_frequency() / 2.0,
            Waveform::Ricker { frequency, .. } | Waveform::Sinusoid { frequency, .. } => frequency,
        }
    }

    /// The highest frequency with significant energy: where the amplitude spectrum has fallen
    /// to about 1 % of its peak (used to check cells per wavelength).
    pub fn max_frequency(&self) -> f64 {
        match *self {
            // The spectrum of the envelope is exp(−(2πf w)²/2): 1 % at 2πf w = √(2 ln 100).
            Waveform::Gaussian {
                width, frequency, ..
            } => frequency + (2.0 * (100.0f64).ln()).sqrt() / (2.0 * PI * width),
            // Ricker: |S(f)| ∝ (f/fp)² exp(−f²/fp²), below 1 % of its peak beyond ≈ 2.75 fp.
            Waveform::Ricker { frequency, .. } => 2.75 * frequency,
            Waveform::Sinusoid { frequency, .. } => frequency,
        }
    }

    /// The DC part: the amplitude spectrum at zero frequency over its value at
    /// [`Waveform::centre_frequency`], capped at 1. A Gaussian-modulated carrier's spectrum is
    /// `g(f − f₀) + g(f + f₀)` with `g(x) = exp(−2π²w²x²)` (up to a common factor), so its DC
    /// part is `2 exp(−2π²(f₀w)²) / (1 + exp(−8π²(f₀w)²))`: 15 % at f₀w = 0.36, below 1e-3
    /// from f₀w = 0.621 ([`Waveform::width_for_dc_fraction`]); a baseband Gaussian is all DC
    /// (1). The Ricker wavelet has none (0), and a sinusoid, whose spectrum at its tone grows
    /// with the run while its switch-on's DC part does not, counts as none (0).
    pub fn dc_fraction(&self) -> f64 {
        match *self {
            Waveform::Gaussian {
                width, frequency, ..
            } => {
                if frequency == 0.0 {
                    return 1.0;
                }
                let a = 2.0 * PI * PI * (frequency * width).powi(2);
                (2.0 * (-a).exp() / (1.0 + (-4.0 * a).exp())).min(1.0)
            }
            Waveform::Ricker { .. } | Waveform::Sinusoid { .. } => 0.0,
        }
    }

    /// The smallest envelope width `w` that brings the DC part of a Gaussian-modulated carrier
    /// of frequency `frequency` down to `fraction` (`2 exp(−2π²(f₀w)²) ≤ fraction`, which
    /// bounds [`Waveform::dc_fraction`] from above).
    pub fn width_for_dc_fraction(frequency: f64, fraction: f64) -> f64 {
        ((2.0 / fraction).ln() / (2.0 * PI * PI)).sqrt() / frequency
    }

    /// Checks the parameters; returns the name of the first invalid one.
    pub fn invalid_parameter(&self) -> Option<&'static str> {
        let bad = |x: f64| !x.is_finite();
        match *self {
            Waveform::Gaussian {
                delay,
                width,
                frequency,
            } => {
                if bad(width) || width <= 0.0 {
                    Some("width")
                } else if bad(delay) {
                    Some("delay")
                } else if bad(frequency) || frequency < 0.0 {
                    Some("frequency")
                } else {
                    None
                }
            }
            Waveform::Ricker { frequency, delay } => {
                if bad(frequency) || frequency <= 0.0 {
                    Some("frequency")
                } else if bad(delay) {
                    Some("delay")
                } else {
                    None
                }
            }
            Waveform::Sinusoid {
                frequency,
                phase,
                ramp,
            } => {
                if bad(frequency) || frequency <= 0.0 {
                    Some("frequency")
                } else if bad(phase) {
                    Some("phase")
                } else if bad(ramp) || ramp < 0.0 {
                    Some("ramp")
                } else {
                    None
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gaussian_peaks_at_its_delay() {
        let g = Waveform::Gaussian {
            delay: 10.0,
            width: 2.0,
            frequency: 0.0,
        };
        assert_eq!(g.value(10.0), 1.0);
        assert!((g.value(12.0) - (-0.5f64).exp()).abs() < 1e-15);
    }

    /// The amplitude spectrum `|∫ w(t) e^{−2πift} dt|` by the rectangle rule.
    fn spectrum(w: &Waveform, f: f64, until: f64) -> f64 {
        let dt = 0.05;
        let (mut re, mut im) = (0.0, 0.0);
        for n in 0..(until / dt) as usize {
            let t = n as f64 * dt;
            let v = w.value(t) * dt;
            re += v * (2.0 * PI * f * t).cos();
            im -= v * (2.0 * PI * f * t).sin();
        }
        f64::hypot(re, im)
    }

    #[test]
    fn the_dc_fraction_is_the_spectrum_at_zero_over_the_carrier() {
        // The issue 51 pulse, f₀w = 0.3625 (15 %), and one at the 1e-3 bound.
        for (frequency, width) in [(0.0145, 25.0), (0.0145, 0.0)] {
            let width = if width == 0.0 {
                Waveform::width_for_dc_fraction(frequency, 1e-3)
            } else {
                width
            };
            let g = Waveform::Gaussian {
                delay: 8.0 * width,
                width,
                frequency,
            };
            let numeric = spectrum(&g, 0.0, 16.0 * width) / spectrum(&g, frequency, 16.0 * width);
            let dc = g.dc_fraction();
            assert!(
                (dc - numeric).abs() <= 1e-9 * numeric,
                "{dc} against {numeric}"
            );
            assert!(
                (0.999e-3..=1e-3 * (1.0 + 1e-12)).contains(&dc) || width == 25.0,
                "{dc}"
            );
        }
        let g = Waveform::Gaussian {
            delay: 125.0,
            width: 25.0,
            frequency: 0.0145,
        };
        assert!(
            (g.dc_fraction() - 0.1495).abs() < 1e-4,
            "{}",
            g.dc_fraction()
        );
        let ricker = Waveform::Ricker {
            frequency: 0.05,
            delay: 40.0,
        };
        assert_eq!(ricker.dc_fraction(), 0.0);
    }

    #[test]
    fn ricker_has_unit_peak_and_zero_mean() {
        let r = Waveform::Ricker {
            frequency: 0.05,
            delay: 40.0,
        };
        assert_eq!(r.value(40.0), 1.0);
        let dt = 0.01;
        let sum: f64 = (0..20000).map(|n| r.value(n as f64 * dt) * dt).sum();
        assert!(sum.abs() < 1e-6, "mean {sum}");
    }

    #[test]
    fn sinusoid_ramps_smoothly() {
        let s = Waveform::Sinusoid {
            frequency: 0.1,
            phase: PI / 2.0,
            ramp: 20.0,
        };
        assert_eq!(s.value(0.0), 0.0);
        assert!((s.value(10.0) - 0.5 * (2.0 * PI + PI / 2.0).sin()).abs() < 1e-12);
        assert!((s.value(25.0) - (5.0 * PI + PI / 2.0).sin()).abs() < 1e-12);
    }
}
