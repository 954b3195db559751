//! Reflection and transmission of a plane wave at normal incidence on a slab of a general
//! anisotropic (non-magnetic, lossless or lossy) medium between two vacuum half-spaces: the
//! 4×4 transfer matrix of Berreman (1972, *J. Opt. Soc. Am.* 62, 502–510).
//!
//! With the tangential fields `Ψ = (Ex, Hy, Ey, −Hx)` (c = ε₀ = μ₀ = 1, time `e^{−iωt}`),
//! Maxwell's equations in a layer uniform in x and y read `dΨ/dz = i k₀ Δ Ψ`. At normal
//! incidence (no tangential wavevector) and μ = 1, Berreman's matrix is
//!
//! ```text
//! Δ = ⎡ 0                 1  0                  0 ⎤
//!     ⎢ ε₁₁ − ε₁₃ε₃₁/ε₃₃   0  ε₁₂ − ε₁₃ε₃₂/ε₃₃    0 ⎥
//!     ⎢ 0                 0  0                  1 ⎥
//!     ⎣ ε₂₁ − ε₂₃ε₃₁/ε₃₃   0  ε₂₂ − ε₂₃ε₃₂/ε₃₃    0 ⎦
//! ```
//!
//! (his eq. (7) with ξ = 0; Ez = −(ε₃₁Ex + ε₃₂Ey)/ε₃₃ is eliminated), so a slab of thickness
//! `d` carries `Ψ(d) = exp(i k₀ d Δ) Ψ(0)`. In vacuum a wave along +z has `Ψ = (1, 1, 0, 0)`
//! (x-polarised) or `(0, 0, 1, 1)` (y-polarised), and along −z `(1, −1, 0, 0)` and
//! `(0, 0, 1, −1)`; the incident, reflected and transmitted amplitudes follow from the four
//! equations `Ψ(d) = P Ψ(0)`. The same conventions as [`crate::airy`]: `r` at z = 0, `t` at
//! z = d over the incident field at z = 0.

use num_complex::Complex64;
// Float gives f64 its math in a pure no_std build.
#[allow(unused_imports)]
use num_traits::Float;

use crate::tensor::Matrix3;

type C4 = [[Complex64; 4]; 4];

/// The reflected and transmitted fields of one incident polarisation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct JonesResponse {
    /// Reflected `[Ex, Ey]` at z = 0 over the incident amplitude.
    pub r: [Complex64; 2],
    /// Transmitted `[Ex, Ey]` at z = d over the incident amplitude.
    pub t: [Complex64; 2],
}

/// Berreman's `Δ` of a medium of permittivity `eps` (complex for a lossy one) at normal
/// incidence (module docs).
fn delta(eps: &[[Complex64; 3]; 3]) -> C4 {
    let e = |i: usize, j: usize| eps[i][j];
    let zero = Complex64::new(0.0, 0.0);
    let one = Complex64::new(1.0, 0.0);
    [
        [zero, one, zero, zero],
        [
            e(0, 0) - e(0, 2) * e(2, 0) / e(2, 2),
            zero,
            e(0, 1) - e(0, 2) * e(2, 1) / e(2, 2),
            zero,
        ],
        [zero, zero, zero, one],
        [
            e(1, 0) - e(1, 2) * e(2, 0) / e(2, 2),
            zero,
            e(1, 1) - e(1, 2) * e(2, 1) / e(2, 2),
            zero,
        ],
    ]
}

fn product(a: &C4, b: &C4) -> C4 {
    core::array::from_fn(|i| core::array::from_fn(|j| (0..4).map(|k| a[i][k] * b[k][j]).sum()))
}

/// `exp(m)` by scaling and squaring with a Taylor series (Moler & Van Loan 2003, *SIAM Rev.*
/// 45, 3, method 3): `m` is halved until its norm is below ½, where 24 terms leave an error
/// below 1e-30, then squared back.
fn exponential(m: &C4) -> C4 {
    let norm: f64 = m
        .iter()
        .map(|row| row.iter().map(|v| v.norm()).sum::<f64>())
        .fold(0.0, f64::max);
    let mut halvings = 0;
    let mut scale = 1.0;
    while norm * scale > 0.5 {
        scale /= 2.0;
        halvings += 1;
    }
    let a: C4 = core::array::from_fn(|i| core::array::from_fn(|j| m[i][j] * scale));
    let identity: C4 = core::array::from_fn(|i| {
        core::array::from_fn(|j| Complex64::new(f64::from(u8::from(i == j)), 0.0))
    });
    let mut sum = identity;
    let mut term = identity;
    for n in 1..=24 {
        term = product(&term, &a);
        let k = 1.0 / f64::from(n);
        term = core::array::from_fn(|i| core::array::from_fn(|j| term[i][j] * k));
        sum = core::array::from_fn(|i| core::array::from_fn(|j| sum[i][j] + term[i][j]));
    }
    for _ in 0..halvings {
        sum = product(&sum, &sum);
    }
    sum
}

/// Solves `a x = b` by Gaussian elimination with partial pivoting; `None` when singular.
fn solve(mut a: C4, mut b: [Complex64; 4]) -> Option<[Complex64; 4]> {
    for col in 0..4 {
        let pivot = (col..4).max_by(|&i, &j| a[i][col].norm().total_cmp(&a[j][col].norm()))?;
        if a[pivot][col].norm() == 0.0 {
            return None;
        }
        a.swap(col, pivot);
        b.swap(col, pivot);
        for row in col + 1..4 {
            let f = a[row][col] / a[col][col];
            for k in col..4 {
                let v = a[col][k];
                a[row][k] -= f * v;
            }
            let v = b[col];
            b[row] -= f * v;
        }
    }
    let mut x = [Complex64::new(0.0, 0.0); 4];
    for row in (0..4).rev() {
        let s: Complex64 = (row + 1..4).map(|k| a[row][k] * x[k]).sum();
        x[row] = (b[row] - s) / a[row][row];
    }
    Some(x)
}

/// The response of a slab of permittivity `eps` (a real symmetric tensor, or with the
/// imaginary parts of a lossy one), `thickness` thick in vacuum, at `frequency` (vacuum
/// wavelength `1/frequency`), to a wave polarised along `incident = [Ex, Ey]`; `None` when
/// the equations are singular or the input not finite.
pub fn slab_response(
    eps: &[[Complex64; 3]; 3],
    thickness: f64,
    frequency: f64,
    incident: [f64; 2],
) -> Option<JonesResponse> {
    let k0 = 2.0 * core::f64::consts::PI * frequency;
    let d = delta(eps);
    let m: C4 = core::array::from_fn(|i| {
        core::array::from_fn(|j| d[i][j] * Complex64::new(0.0, k0 * thickness))
    });
    let p = exponential(&m);
    // Unknowns: r_x, r_y, t_x, t_y. Ψ(0) = a_x(1,1,0,0) + a_y(0,0,1,1) + r_x(1,−1,0,0) +
    // r_y(0,0,1,−1); Ψ(d) = t_x(1,1,0,0) + t_y(0,0,1,1); P Ψ(0) − Ψ(d) = 0.
    let c = |v: f64| Complex64::new(v, 0.0);
    let forward = [[1.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 1.0]];
    let backward = [[1.0, -1.0, 0.0, 0.0], [0.0, 0.0, 1.0, -1.0]];
    let apply = |v: &[f64; 4]| -> [Complex64; 4] {
        core::array::from_fn(|i| (0..4).map(|k| p[i][k] * v[k]).sum())
    };
    let reflected = backward.map(|v| apply(&v));
    let incoming: [f64; 4] =
        core::array::from_fn(|i| incident[0] * forward[0][i] + incident[1] * forward[1][i]);
    let driven = apply(&incoming);
    let a: C4 = core::array::from_fn(|i| {
        [
            reflected[0][i],
            reflected[1][i],
            -c(forward[0][i]),
            -c(forward[1][i]),
        ]
    });
    let b: [Complex64; 4] = core::array::from_fn(|i| -driven[i]);
    let x = solve(a, b)?;
    x.iter()
        .all(|v| v.re.is_finite() && v.im.is_finite())
        .then_some(JonesResponse {
            r: [x[0], x[1]],
            t: [x[2], x[3]],
        })
}

/// [`slab_response`] of a lossless slab of real symmetric `eps`.
pub fn lossless_slab(
    eps: &Matrix3,
    thickness: f64,
    frequency: f64,
    incident: [f64; 2],
) -> Option<JonesResponse> {
    let eps = eps.map(|row| row.map(|v| Complex64::new(v, 0.0)));
    slab_response(&eps, thickness, frequency, incident)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tensor::rotated_diagonal;

    /// An isotropic slab gives Airy's coefficients, with no cross-polarised part.
    #[test]
    fn an_isotropic_slab_is_airys() {
        let (eps, d, f) = (2.25, 13.7, 0.031);
        let airy = crate::airy::slab(Complex64::new(eps, 0.0), d, f).unwrap();
        let m = rotated_diagonal([eps; 3], 2, 0.0);
        let b = lossless_slab(&m, d, f, [1.0, 0.0]).unwrap();
        assert!((b.t[0] - airy.t).norm() < 1e-12, "{} {}", b.t[0], airy.t);
        assert!((b.r[0] - airy.r).norm() < 1e-12, "{} {}", b.r[0], airy.r);
        assert!(b.t[1].norm() < 1e-14 && b.r[1].norm() < 1e-14);
    }

    /// A crystal turned about z splits into its two eigenpolarisations, each an Airy slab of
    /// its own index, and a lossless slab conserves energy.
    #[test]
    fn a_turned_crystal_is_two_airy_slabs() {
        let (no, ne, d, f, angle) = (2.25, 2.89, 21.0, 0.0125, 0.6);
        let m = rotated_diagonal([ne, no, no], 2, angle);
        let b = lossless_slab(&m, d, f, [1.0, 0.0]).unwrap();
        let e = crate::airy::slab(Complex64::new(ne, 0.0), d, f).unwrap();
        let o = crate::airy::slab(Complex64::new(no, 0.0), d, f).unwrap();
        let (c, s) = (angle.cos(), angle.sin());
        // x̂ = c â − s b̂ with â the optic axis: t = c t_e â − s t_o b̂.
        let expected = [e.t * c * c + o.t * s * s, (e.t - o.t) * c * s];
        assert!((b.t[0] - expected[0]).norm() < 1e-12);
        assert!((b.t[1] - expected[1]).norm() < 1e-12);
        let power: f64 = b.r.iter().chain(&b.t).map(|v| v.norm_sqr()).sum();
        assert!((power - 1.0).abs() < 1e-12, "{power}");
        // A tilt out of the plane (εxz, εyz) couples Ez too, still conserving energy.
        let tilted = rotated_diagonal([ne, no, 3.5], 0, 0.4);
        let b = lossless_slab(&tilted, d, f, [0.3, 0.8]).unwrap();
        let power: f64 = b.r.iter().chain(&b.t).map(|v| v.norm_sqr()).sum();
        assert!((power - 0.73).abs() < 1e-12, "{power}");
    }
}
