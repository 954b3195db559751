//! The guided modes of a symmetric slab waveguide from its transcendental dispersion relation,
//! the reference the mode solver is tested against (Marcuse, *Theory of Dielectric Optical
//! Waveguides*, 2nd ed., 1991, §1.3; Snyder & Love 1983, §12-9).
//!
//! A core of index `n₁` and thickness d in a cladding `n₂ < n₁`, at vacuum wavenumber k₀:
//! with `κ = √(n₁²k₀² − β²)`, `γ = √(β² − n₂²k₀²)`, `x = κd/2` and `V = (k₀d/2)√(n₁² − n₂²)`,
//! mode m solves `x tan x = r √(V² − x²)` (m even) or `−x cot x = r √(V² − x²)` (m odd) on
//! `mπ/2 < x < (m + 1)π/2`, `r = 1` for TE (E along the slab) and `r = n₁²/n₂²` for TM.

/// The polarisation of a slab mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SlabPolarisation {
    /// E parallel to the slab's faces.
    Te,
    /// H parallel to the slab's faces.
    Tm,
}

/// The effective index `β/k₀` of mode `m` of the slab, or `None` when it is cut off.
pub fn slab_n_eff(
    polarisation: SlabPolarisation,
    m: usize,
    n_core: f64,
    n_clad: f64,
    thickness: f64,
    k0: f64,
) -> Option<f64> {
    let v = 0.5 * k0 * thickness * (n_core * n_core - n_clad * n_clad).sqrt();
    let r = match polarisation {
        SlabPolarisation::Te => 1.0,
        SlabPolarisation::Tm => (n_core / n_clad).powi(2),
    };
    let half_pi = std::f64::consts::FRAC_PI_2;
    let (lo, hi) = (m as f64 * half_pi, ((m + 1) as f64 * half_pi).min(v));
    if lo >= hi {
        return None;
    }
    // Sine and cosine forms free of the poles of tan and cot; f(lo) and f(hi) differ in sign.
    let f = |x: f64| {
        let g = r * (v * v - x * x).max(0.0).sqrt();
        match m % 2 {
            0 => x * x.sin() - g * x.cos(),
            _ => -x * x.cos() - g * x.sin(),
        }
    };
    let (mut a, mut b) = (lo, hi);
    let fa = f(a);
    for _ in 0..200 {
        let mid = 0.5 * (a + b);
        if (f(mid) > 0.0) == (fa > 0.0) {
            a = mid;
        } else {
            b = mid;
        }
    }
    let kappa = 2.0 * 0.5 * (a + b) / thickness;
    Some((n_core * n_core - (kappa / k0).powi(2)).sqrt())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Marcuse's normalised chart: at V = π/2·… a check by the relation itself, and the
    /// weak-guidance limit where TE and TM agree.
    #[test]
    fn satisfies_its_relation_and_orders_its_modes() {
        let (n1, n2, d, k0) = (2.0, 1.0, 1.0, std::f64::consts::PI * 2.0);
        let te0 = slab_n_eff(SlabPolarisation::Te, 0, n1, n2, d, k0).unwrap();
        let te1 = slab_n_eff(SlabPolarisation::Te, 1, n1, n2, d, k0).unwrap();
        let tm0 = slab_n_eff(SlabPolarisation::Tm, 0, n1, n2, d, k0).unwrap();
        assert!(n2 < te1 && te1 < tm0 && tm0 < te0 && te0 < n1);
        let kappa = k0 * (n1 * n1 - te0 * te0).sqrt();
        let gamma = k0 * (te0 * te0 - n2 * n2).sqrt();
        assert!(((kappa * d / 2.0).tan() - gamma / kappa).abs() < 1e-9);
        // Weak guidance: TE0 and TM0 within the square of the contrast.
        let a = slab_n_eff(SlabPolarisation::Te, 0, 1.001, 1.0, 20.0, k0).unwrap();
        let b = slab_n_eff(SlabPolarisation::Tm, 0, 1.001, 1.0, 20.0, k0).unwrap();
        assert!((a - b).abs() < 1e-5, "{a} {b}");
        assert!(slab_n_eff(SlabPolarisation::Te, 9, n1, n2, d, k0).is_none());
    }
}
