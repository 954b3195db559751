//! Convolutional PML (CPML) of Roden & Gedney (2000), with polynomial grading.
//!
//! In a layer of `thickness` cells along an axis, each derivative `∂/∂x` of the update is
//! replaced by `(1/κ) ∂/∂x + ψ` with the recursive convolution
//! `ψ^{n+1} = b ψ^n + c ∂/∂x`, where
//! `b = exp(−(σ/κ + α) Δt)` and `c = σ (b − 1) / (κ (σ + κ α))`
//! (Roden & Gedney, "Convolution PML (CPML)", Microw. Opt. Technol. Lett. 27(5), 2000;
//! normalised units, ε₀ = 1). The profiles are graded over the depth ρ ∈ [0, d] into the layer
//! (Taflove & Hagness, 3rd ed., §7.6): `σ = σmax (ρ/d)^m`, `κ = 1 + (κmax − 1)(ρ/d)^m`,
//! `α = αmax (1 − ρ/d)`.

// Float gives f64 its math in a pure no_std build; when std is linked anywhere in the
// build, f64's inherent methods win and the import goes unused.
#[allow(unused_imports)]
use num_traits::Float;

/// The parameters of one CPML layer.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CpmlParams {
    /// Thickness in cells (≥ 1).
    pub thickness: usize,
    /// Polynomial grading order m of σ and κ (typically 3 or 4).
    pub order: f64,
    /// Peak conductivity σmax; `None` takes [`optimal_sigma`].
    pub sigma_max: Option<f64>,
    /// Peak real stretch κmax (≥ 1).
    pub kappa_max: f64,
    /// Peak complex-frequency shift αmax (≥ 0), largest at the inner interface.
    pub alpha_max: f64,
}

impl CpmlParams {
    /// A layer of `thickness` cells with the defaults used by yee: m = 3, σmax = σopt,
    /// κmax = 1, αmax = 0.05. These gave the lowest reflection in the CPML validation test.
    pub const fn with_thickness(thickness: usize) -> CpmlParams {
        CpmlParams {
            thickness,
            order: 3.0,
            sigma_max: None,
            kappa_max: 1.0,
            alpha_max: 0.05,
        }
    }

    /// σmax, resolving the default.
    pub fn resolved_sigma_max(&self) -> f64 {
        self.sigma_max.unwrap_or_else(|| optimal_sigma(self.order))
    }
}

/// The near-optimal peak conductivity `σopt = 0.8 (m + 1) / (η Δ)` for a vacuum background
/// (Taflove & Hagness, 3rd ed., §7.6, the optimum of polynomial grading; normalised units, η = Δ = 1).
pub fn optimal_sigma(order: f64) -> f64 {
    0.8 * (order + 1.0)
}

/// Update coefficients of one node inside (or outside) a CPML layer.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CpmlCoefficients {
    /// `b`: decay of ψ per step.
    pub b: f64,
    /// `c`: weight of the new derivative in ψ.
    pub c: f64,
    /// `1/κ`: scale of the plain derivative.
    pub inv_kappa: f64,
}

impl CpmlCoefficients {
    /// A node outside every layer: ψ stays zero and the derivative is unscaled.
    pub const OUTSIDE: CpmlCoefficients = CpmlCoefficients {
        b: 0.0,
        c: 0.0,
        inv_kappa: 1.0,
    };
}

/// The coefficients of a node at `depth` cells into a layer (0 at the inner interface,
/// `thickness` at the outer wall); a depth ≤ 0 is outside the layer.
pub fn cpml_coefficients(p: &CpmlParams, depth: f64, dt: f64) -> CpmlCoefficients {
    if depth <= 0.0 {
        return CpmlCoefficients::OUTSIDE;
    }
    let x = (depth / p.thickness as f64).min(1.0);
    let graded = x.powf(p.order);
    let sigma = p.resolved_sigma_max() * graded;
    let kappa = 1.0 + (p.kappa_max - 1.0) * graded;
    let alpha = p.alpha_max * (1.0 - x);
    let b = (-(sigma / kappa + alpha) * dt).exp();
    let denominator = kappa * (sigma + kappa * alpha);
    let c = if denominator > 0.0 {
        sigma * (b - 1.0) / denominator
    } else {
        0.0
    };
    CpmlCoefficients {
        b,
        c,
        inv_kappa: 1.0 / kappa,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outside_and_at_interface_do_nothing() {
        let p = CpmlParams::with_thickness(10);
        assert_eq!(cpml_coefficients(&p, 0.0, 0.5), CpmlCoefficients::OUTSIDE);
        assert_eq!(cpml_coefficients(&p, -3.0, 0.5), CpmlCoefficients::OUTSIDE);
    }

    #[test]
    fn deep_node_by_hand() {
        // At the outer wall: σ = σmax = 0.8·4 = 3.2, κ = 1, α = 0.
        let p = CpmlParams::with_thickness(10);
        let k = cpml_coefficients(&p, 10.0, 0.5);
        let b = (-3.2f64 * 0.5).exp();
        assert!((k.b - b).abs() < 1e-15);
        assert!((k.c - (b - 1.0)).abs() < 1e-15);
        assert_eq!(k.inv_kappa, 1.0);
    }
}
