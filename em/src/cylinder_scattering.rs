//! Scattering by an infinite homogeneous circular cylinder in vacuum at normal incidence: the
//! scattering width (the 2D cross-section, per unit length) for the two polarisations, from
//! the series of Bohren & Huffman (*Absorption and Scattering of Light by Small Particles*,
//! 1983, §8.4).
//!
//! With `x = kR` (k = 2πf in normalised units), `m = √ε` and `H_n = J_n + iY_n`, matching
//! `E_z` (or `H_z`) and the tangential H (or E) at `r = R` gives
//! - E along the axis (TMz: B&H's case I):
//!   `b_n = [J_n(mx)J_n′(x) − mJ_n′(mx)J_n(x)] / [J_n(mx)H_n′(x) − mJ_n′(mx)H_n(x)]`,
//! - E across the axis (TEz: case II):
//!   `a_n = [mJ_n(mx)J_n′(x) − J_n′(mx)J_n(x)] / [mJ_n(mx)H_n′(x) − J_n′(mx)H_n(x)]`,
//!
//! and the scattering efficiency `Q_sca = (2/x)[|c_0|² + 2 Σ_{n≥1} |c_n|²]` (B&H eqs. 8.32,
//! 8.36), the scattering width `σ = 2R Q_sca`; the extinction efficiency
//! `Q_ext = (2/x) Re[c_0 + 2 Σ_{n≥1} c_n]` (B&H eq. 8.36) and the absorption `Q_ext − Q_sca`. Conventions as [`crate::mie`]: e^{−iωt}, an
//! absorbing cylinder has Im m ≥ 0.

use num_complex::Complex64;
// Float gives f64 its math in a pure no_std build.
#[allow(unused_imports)]
use num_traits::Float;

use crate::bessel::{LARGEST_ARGUMENT, j, j_prime, y, y_prime};

/// The polarisation of a wave incident across a cylinder.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CylinderPolarisation {
    /// E along the cylinder's axis (TMz for a cylinder along z).
    ElectricAlong,
    /// E across the axis, H along it (TEz).
    ElectricAcross,
}

/// The scattering efficiency `Q_sca` (the width over the diameter 2R) of a cylinder of
/// permittivity `eps` at size parameter `x = 2πRf`, or `None` when `x` or `|m|x` is past the
/// Bessel series' range ([`LARGEST_ARGUMENT`]) or not positive.
pub fn scattering_efficiency(
    eps: Complex64,
    x: f64,
    polarisation: CylinderPolarisation,
) -> Option<f64> {
    efficiencies(eps, x, polarisation).map(|(scattering, _)| scattering)
}

/// The absorption efficiency `Q_abs = Q_ext − Q_sca` (B&H eq. 8.36 for the extinction,
/// `Q_ext = (2/x) Re[c_0 + 2 Σ_{n≥1} c_n]`), as [`scattering_efficiency`] takes its arguments.
pub fn absorption_efficiency(
    eps: Complex64,
    x: f64,
    polarisation: CylinderPolarisation,
) -> Option<f64> {
    efficiencies(eps, x, polarisation).map(|(scattering, extinction)| extinction - scattering)
}

/// `(Q_sca, Q_ext)` summed over the same coefficients (module docs).
fn efficiencies(eps: Complex64, x: f64, polarisation: CylinderPolarisation) -> Option<(f64, f64)> {
    let m = eps.sqrt();
    let mx = m * x;
    if x.is_nan() || x <= 0.0 || x > LARGEST_ARGUMENT || mx.norm() > LARGEST_ARGUMENT {
        return None;
    }
    let real = |v: f64| Complex64::new(v, 0.0);
    let terms = (x + 4.0 * x.cbrt() + 2.0).ceil() as u32 + 4;
    let (mut scattering, mut extinction) = (0.0, 0.0);
    for n in 0..=terms {
        let (jx, jpx) = (real(j(n, real(x)).re), real(j_prime(n, real(x)).re));
        let (hx, hpx) = (
            Complex64::new(jx.re, y(n, x)),
            Complex64::new(jpx.re, y_prime(n, x)),
        );
        let (jm, jpm) = (j(n, mx), j_prime(n, mx));
        let c = match polarisation {
            CylinderPolarisation::ElectricAlong => {
                (jm * jpx - m * jpm * jx) / (jm * hpx - m * jpm * hx)
            }
            CylinderPolarisation::ElectricAcross => {
                (m * jm * jpx - jpm * jx) / (m * jm * hpx - jpm * hx)
            }
        };
        let weight = if n == 0 { 1.0 } else { 2.0 };
        scattering += weight * c.norm_sqr();
        extinction += weight * c.re;
    }
    Some((2.0 / x * scattering, 2.0 / x * extinction))
}

/// The absorption width (per unit length) of a cylinder of `radius` and permittivity `eps`
/// at frequency `f` (normalised units).
pub fn absorption_width(
    eps: Complex64,
    radius: f64,
    frequency: f64,
    polarisation: CylinderPolarisation,
) -> Option<f64> {
    width(radius, frequency, |x| {
        absorption_efficiency(eps, x, polarisation)
    })
}

/// The scattering width (per unit length) of a cylinder of `radius` and permittivity `eps` at
/// frequency `f` (normalised units).
pub fn scattering_width(
    eps: Complex64,
    radius: f64,
    frequency: f64,
    polarisation: CylinderPolarisation,
) -> Option<f64> {
    width(radius, frequency, |x| {
        scattering_efficiency(eps, x, polarisation)
    })
}

/// A width per unit length from an `efficiency` of the size parameter `x = 2πRf`: the
/// efficiency times the diameter `2R` (Bohren & Huffman §8.4).
fn width(radius: f64, frequency: f64, efficiency: impl Fn(f64) -> Option<f64>) -> Option<f64> {
    let x = 2.0 * core::f64::consts::PI * radius * frequency;
    Some(2.0 * radius * efficiency(x)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use CylinderPolarisation::*;

    /// `(m, x, Q_sca along, Q_sca across)` from the same series summed in mpmath at 30 digits
    /// with its own Bessel functions (40 terms).
    const MPMATH: [(f64, f64, f64, f64, f64); 4] = [
        (2.0, 0.0, 1.0, 2.862_930_404_836_54, 1.163_192_091_331_01),
        (1.5, 0.0, 2.5, 3.489_412_353_351_39, 2.801_940_032_926_16),
        (
            core::f64::consts::SQRT_2,
            0.0,
            0.5,
            0.169_024_185_823_868,
            0.032_966_555_539_03,
        ),
        (1.5, 0.1, 1.7, 1.571_277_346_403_15, 1.060_922_854_515_72),
    ];

    #[test]
    fn efficiencies_match_mpmath() {
        for (re, im, x, along, across) in MPMATH {
            let m = Complex64::new(re, im);
            let eps = m * m;
            for (p, expect) in [(ElectricAlong, along), (ElectricAcross, across)] {
                let q = scattering_efficiency(eps, x, p).unwrap();
                assert!(
                    (q / expect - 1.0).abs() < 1e-10,
                    "m = {m}, x = {x}, {p:?}: {q}"
                );
            }
        }
    }

    /// A lossless cylinder absorbs nothing (the extinction sum equals the scattering sum),
    /// and a thin lossy one absorbs as the field inside it predicts: `E_in = E_0` along the
    /// axis and `2E_0/(ε + 1)` across it, so `Q_abs → (πx/2) Im ε |E_in/E_0|²`.
    #[test]
    fn absorption_is_nil_without_loss_and_the_thin_cylinder_limit_with_it() {
        for p in [ElectricAlong, ElectricAcross] {
            for x in [0.3, 1.7] {
                let q = absorption_efficiency(Complex64::new(2.25, 0.0), x, p).unwrap();
                assert!(q.abs() < 1e-12, "{p:?}, x = {x}: {q}");
            }
        }
        let (eps, x) = (Complex64::new(2.25, 0.3), 1e-3);
        for (p, inside) in [
            (ElectricAlong, Complex64::new(1.0, 0.0)),
            (ElectricAcross, 2.0 / (eps + 1.0)),
        ] {
            let q = absorption_efficiency(eps, x, p).unwrap();
            let thin = core::f64::consts::PI * x / 2.0 * eps.im * inside.norm_sqr();
            assert!((q / thin - 1.0).abs() < 1e-3, "{p:?}: {q} vs {thin}");
        }
    }

    /// A thin cylinder scatters as a line dipole: for E along the axis,
    /// `Q_sca → (π²x³/8)(ε − 1)²` (the small-x limit `b_0 ≈ −iπx²(ε − 1)/4` of B&H §8.4).
    #[test]
    fn a_thin_cylinder_scatters_as_a_line_dipole() {
        let (eps, x) = (3.0, 0.01);
        let q = scattering_efficiency(Complex64::new(eps, 0.0), x, ElectricAlong).unwrap();
        let dipole = core::f64::consts::PI.powi(2) * x.powi(3) / 8.0 * (eps - 1.0).powi(2);
        assert!((q / dipole - 1.0).abs() < 1e-3, "{q} vs {dipole}");
        assert_eq!(
            scattering_efficiency(Complex64::new(eps, 0.0), 20.0, ElectricAlong),
            None
        );
    }
}
