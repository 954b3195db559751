//! Dispersive poles: Drude, Lorentz and Debye susceptibilities and their auxiliary
//! differential equations (ADE) in polarisation form.
//!
//! A dispersive material has `ε(ω) = ε∞ + Σ χₚ(ω)` (e^{−iωt} convention, normalised units
//! ε₀ = c = 1, ω = 2πf), with `D = ε∞E + Σ Pₚ` and one polarisation `Pₚ` per pole:
//!
//! - Lorentz: `P'' + γP' + ω₀²P = σω₀²E`, so `χ = σω₀² / (ω₀² − ω² − iωγ)`;
//! - Drude: `P'' + γP' = σω₀²E`, so `χ = σω₀² / (−ω² − iωγ)` (plasma frequency ωₚ² = σω₀²);
//! - Debye: `τP' + P = ΔεE`, so `χ = Δε / (1 − iωτ)`.
//!
//! `frequency` and `gamma` are ordinary frequencies, as Meep's `LorentzianSusceptibility`
//! takes them: ω₀ = 2π·frequency and γ = 2π·gamma (Oskooi et al. 2010, *Comput. Phys.
//! Commun.* 181, 687, §3.5; Taflove & Hagness, 3rd ed., §9.4).
//!
//! Discretisation, P at the integer times of E:
//!
//! - Lorentz and Drude, second-order central differences at step n (Taflove & Hagness 3rd ed.
//!   §9.4.3; Meep's `lorentzian_susceptibility::update_P`):
//!   `(P⁺ − 2P + P⁻)/Δt² + γ(P⁺ − P⁻)/(2Δt) + ω₀²P = σω₀²Eⁿ`, explicit in `P⁺ = Pⁿ⁺¹`; its own
//!   stability needs `ω₀Δt < 2` (the roots of `(1 + γΔt/2)z² − (2 − ω₀²Δt²)z + 1 − γΔt/2`
//!   inside the unit circle).
//! - Debye, trapezoidal at n + ½ (Joseph, Hagness & Taflove 1991, *Opt. Lett.* 16, 1412;
//!   Taflove & Hagness §9.4.1): `τ(P⁺ − P)/Δt + (P⁺ + P)/2 = Δε(Eⁿ⁺¹ + Eⁿ)/2`, so
//!   `P⁺ = αP + β(Eⁿ⁺¹ + Eⁿ)` with `α = (2τ − Δt)/(2τ + Δt)`, `β = ΔεΔt/(2τ + Δt)`: implicit
//!   in E, folded into the E update ([`crate::medium`]); unconditionally stable.
//!
//! The E update then reads `ε∞(Eⁿ⁺¹ − Eⁿ)/Δt + σ(Eⁿ⁺¹ + Eⁿ)/2 + Σ(Pⁿ⁺¹ − Pⁿ)/Δt = ∇×H`.
//! With `z = e^{−iωΔt}` and `Ω = 2 sin(ωΔt/2)/Δt`, the schemes give the discrete-time
//! susceptibilities ([`Pole::discrete_susceptibility`])
//! `χ = σω₀² / (ω₀² − Ω² − iγΩ cos(ωΔt/2))` and `χ = Δε / (1 − iτΩ / cos(ωΔt/2))`.

use core::f64::consts::PI;

use num_complex::Complex64;
// Float gives f64 its math in a pure no_std build.
#[allow(unused_imports)]
use num_traits::Float;

/// One pole of a dispersive material (module docs for the equations and units).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Pole {
    /// A free-electron (Drude) pole.
    Drude {
        /// ω₀/2π (> 0): with `sigma`, the plasma frequency ωₚ = ω₀√σ.
        frequency: f64,
        /// γ/2π (≥ 0): the collision rate over 2π.
        gamma: f64,
        /// Strength σ (≥ 0).
        sigma: f64,
    },
    /// A bound-electron (Lorentz) pole.
    Lorentz {
        /// ω₀/2π (> 0): the resonance frequency.
        frequency: f64,
        /// γ/2π (≥ 0): the damping over 2π.
        gamma: f64,
        /// Strength σ (≥ 0): the static susceptibility Δε.
        sigma: f64,
    },
    /// A relaxation (Debye) pole.
    Debye {
        /// Δε (≥ 0): the static minus the optical permittivity.
        delta_eps: f64,
        /// Relaxation time τ (> 0).
        tau: f64,
    },
}

/// A pole's parameter out of range or past its stability limit at a time step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PoleProblem {
    /// The parameter: "frequency", "gamma", "sigma", "delta_eps" or "tau".
    pub parameter: &'static str,
    /// Its value.
    pub value: f64,
    /// What it breaks.
    pub rule: PoleRule,
}

/// The rule a [`PoleProblem`] breaks.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PoleRule {
    /// Must be positive and finite.
    Positive,
    /// Must be non-negative and finite.
    NonNegative,
    /// The Lorentz recursion is unstable: `ω₀Δt` (the value held) reaches the limit 2.
    OmegaDt {
        /// ω₀Δt.
        omega_dt: f64,
    },
}

impl Pole {
    /// The kind's name in scene files and messages.
    pub const fn name(&self) -> &'static str {
        match self {
            Pole::Drude { .. } => "drude",
            Pole::Lorentz { .. } => "lorentz",
            Pole::Debye { .. } => "debye",
        }
    }

    /// The pole with its strength (σ or Δε) times `weight`: the share of a node it holds.
    pub fn weighted(&self, weight: f64) -> Pole {
        match *self {
            Pole::Drude {
                frequency,
                gamma,
                sigma,
            } => Pole::Drude {
                frequency,
                gamma,
                sigma: sigma * weight,
            },
            Pole::Lorentz {
                frequency,
                gamma,
                sigma,
            } => Pole::Lorentz {
                frequency,
                gamma,
                sigma: sigma * weight,
            },
            Pole::Debye { delta_eps, tau } => Pole::Debye {
                delta_eps: delta_eps * weight,
                tau,
            },
        }
    }

    /// The continuous susceptibility χ(ω) at `frequency` f (ω = 2πf; module docs).
    pub fn susceptibility(&self, frequency: f64) -> Complex64 {
        let w = 2.0 * PI * frequency;
        self.response(w, 1.0)
    }

    /// The susceptibility of the discretised ADE at `frequency` with time step `dt`
    /// (module docs): what the update gives a steady sinusoid.
    pub fn discrete_susceptibility(&self, frequency: f64, dt: f64) -> Complex64 {
        let half = PI * frequency * dt;
        self.response(2.0 * half.sin() / dt, half.cos())
    }

    /// χ with `omega` in the second-derivative (and relaxation) terms, `cos` the centring
    /// factor: continuous with Ω = ω and cos = 1.
    fn response(&self, omega: f64, cos: f64) -> Complex64 {
        let i = Complex64::i();
        match *self {
            Pole::Lorentz {
                frequency,
                gamma,
                sigma,
            } => {
                let (w0, g) = (2.0 * PI * frequency, 2.0 * PI * gamma);
                Complex64::new(sigma * w0 * w0, 0.0)
                    / (Complex64::new(w0 * w0 - omega * omega, 0.0) - i * (g * omega * cos))
            }
            Pole::Drude {
                frequency,
                gamma,
                sigma,
            } => {
                let (w0, g) = (2.0 * PI * frequency, 2.0 * PI * gamma);
                Complex64::new(sigma * w0 * w0, 0.0)
                    / (Complex64::new(-omega * omega, 0.0) - i * (g * omega * cos))
            }
            Pole::Debye { delta_eps, tau } => {
                Complex64::new(delta_eps, 0.0)
                    / (Complex64::new(1.0, 0.0) - i * (tau * omega / cos))
            }
        }
    }

    /// The first parameter out of range, whatever the time step.
    pub fn invalid_parameter(&self) -> Option<PoleProblem> {
        let check = |parameter, value: f64, rule| {
            let ok = value.is_finite()
                && match rule {
                    PoleRule::Positive => value > 0.0,
                    _ => value >= 0.0,
                };
            (!ok).then_some(PoleProblem {
                parameter,
                value,
                rule,
            })
        };
        match *self {
            Pole::Drude {
                frequency,
                gamma,
                sigma,
            }
            | Pole::Lorentz {
                frequency,
                gamma,
                sigma,
            } => check("frequency", frequency, PoleRule::Positive)
                .or(check("gamma", gamma, PoleRule::NonNegative))
                .or(check("sigma", sigma, PoleRule::NonNegative)),
            Pole::Debye { delta_eps, tau } => check("delta_eps", delta_eps, PoleRule::NonNegative)
                .or(check("tau", tau, PoleRule::Positive)),
        }
    }

    /// The first problem of the pole at time step `dt`: a parameter out of range, or a Lorentz
    /// resonance the explicit recursion cannot follow (`ω₀Δt ≥ 2`).
    pub fn check(&self, dt: f64) -> Result<(), PoleProblem> {
        if let Some(p) = self.invalid_parameter() {
            return Err(p);
        }
        if let Pole::Lorentz { frequency, .. } = *self {
            let omega_dt = 2.0 * PI * frequency * dt;
            if omega_dt >= 2.0 {
                return Err(PoleProblem {
                    parameter: "frequency",
                    value: frequency,
                    rule: PoleRule::OmegaDt { omega_dt },
                });
            }
        }
        Ok(())
    }

    /// The discrete susceptibility at the Nyquist frequency 1/(2Δt), real: what the pole
    /// takes from ε∞ for the fastest mode the grid carries (`−ωₚ²Δt²/4` for Drude,
    /// `σω₀²Δt²/(ω₀²Δt² − 4)` for Lorentz, 0 for Debye).
    pub fn nyquist_susceptibility(&self, dt: f64) -> f64 {
        match *self {
            Pole::Drude {
                frequency, sigma, ..
            } => {
                let w = 2.0 * PI * frequency * dt;
                -sigma * w * w / 4.0
            }
            Pole::Lorentz {
                frequency, sigma, ..
            } => {
                let w = 2.0 * PI * frequency * dt;
                sigma * w * w / (w * w - 4.0)
            }
            Pole::Debye { .. } => 0.0,
        }
    }

    /// The update of this pole at time step `dt` (module docs).
    pub fn ade(&self, dt: f64) -> Ade {
        match *self {
            Pole::Drude {
                frequency,
                gamma,
                sigma,
            } => second_order(2.0 * PI * frequency, 0.0, 2.0 * PI * gamma, sigma, dt),
            Pole::Lorentz {
                frequency,
                gamma,
                sigma,
            } => {
                let w0 = 2.0 * PI * frequency;
                second_order(w0, w0, 2.0 * PI * gamma, sigma, dt)
            }
            Pole::Debye { delta_eps, tau } => Ade::Trapezoidal {
                alpha: (2.0 * tau - dt) / (2.0 * tau + dt),
                beta: delta_eps * dt / (2.0 * tau + dt),
            },
        }
    }
}

/// `P⁺ = c₁P + c₂P⁻ + c₃Eⁿ` of `P'' + γP' + ω_r²P = σω₀²E`.
fn second_order(w0: f64, restoring: f64, gamma: f64, sigma: f64, dt: f64) -> Ade {
    let damping = 1.0 + gamma * dt / 2.0;
    Ade::Explicit {
        c1: (2.0 - restoring * restoring * dt * dt) / damping,
        c2: -(1.0 - gamma * dt / 2.0) / damping,
        c3: sigma * w0 * w0 * dt * dt / damping,
    }
}

/// The discrete update of one pole's polarisation at one node.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Ade {
    /// Lorentz and Drude: `Pⁿ⁺¹ = c₁Pⁿ + c₂Pⁿ⁻¹ + c₃Eⁿ`.
    Explicit {
        /// c₁.
        c1: f64,
        /// c₂.
        c2: f64,
        /// c₃.
        c3: f64,
    },
    /// Debye: `Pⁿ⁺¹ = αPⁿ + β(Eⁿ⁺¹ + Eⁿ)`.
    Trapezoidal {
        /// α.
        alpha: f64,
        /// β.
        beta: f64,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    const DRUDE: Pole = Pole::Drude {
        frequency: 0.05,
        gamma: 0.002,
        sigma: 1.5,
    };
    const LORENTZ: Pole = Pole::Lorentz {
        frequency: 0.03,
        gamma: 0.004,
        sigma: 2.0,
    };
    const DEBYE: Pole = Pole::Debye {
        delta_eps: 3.0,
        tau: 8.0,
    };

    #[test]
    fn discrete_tends_to_continuous_at_second_order() {
        for pole in [DRUDE, LORENTZ, DEBYE] {
            let f = 0.02;
            let miss = |dt: f64| {
                (pole.discrete_susceptibility(f, dt) - pole.susceptibility(f)).norm()
                    / pole.susceptibility(f).norm()
            };
            let (coarse, fine) = (miss(0.5), miss(0.25));
            assert!(coarse < 0.05, "{pole:?}: {coarse}");
            assert!(
                (coarse / fine - 4.0).abs() < 0.2,
                "{pole:?}: {coarse} / {fine}"
            );
        }
    }

    #[test]
    fn the_recursion_has_the_stated_discrete_susceptibility() {
        // Drive the ADE with a steady sinusoid Eⁿ = e^{−iωnΔt} and read Pⁿ/Eⁿ.
        let (f, dt) = (0.021, 0.5);
        for pole in [DRUDE, LORENTZ, DEBYE] {
            let z = Complex64::from_polar(1.0, -2.0 * PI * f * dt);
            let p = Complex64::new(1.0, 0.0);
            let chi = pole.discrete_susceptibility(f, dt);
            let (prev, now) = (chi * z.inv(), chi);
            let next = match pole.ade(dt) {
                Ade::Explicit { c1, c2, c3 } => now * c1 + prev * c2 + p * c3,
                Ade::Trapezoidal { alpha, beta } => now * alpha + (p * z + p) * beta,
            };
            assert!((next - chi * z).norm() < 1e-12, "{pole:?}");
        }
    }

    #[test]
    fn limits_and_ranges() {
        let fast = Pole::Lorentz {
            frequency: 0.7,
            gamma: 0.0,
            sigma: 1.0,
        };
        let problem = fast.check(0.5).unwrap_err();
        assert_eq!(problem.parameter, "frequency");
        assert!(matches!(problem.rule, PoleRule::OmegaDt { omega_dt } if omega_dt > 2.0));
        assert!(fast.check(0.4).is_ok());
        let negative = Pole::Debye {
            delta_eps: -1.0,
            tau: 1.0,
        };
        assert_eq!(negative.check(0.5).unwrap_err().parameter, "delta_eps");
        assert!(DRUDE.check(0.5).is_ok());
    }
}
