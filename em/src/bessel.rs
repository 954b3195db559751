//! Cylindrical Bessel functions of integer order for the cylinder scattering series
//! ([`crate::cylinder_scattering`]): `J_n(z)` for complex `z` and `Y_n(x)` for real `x > 0`,
//! from their ascending series (Abramowitz & Stegun 1964, eqs. 9.1.10 and 9.1.11), with
//! `ψ(k + 1) = −γ + Σ_{j≤k} 1/j`.
//!
//! The terms of the series grow to about `e^{|z|}` before they fall, so digits cancel as |z|
//! grows: [`LARGEST_ARGUMENT`] keeps ten or more of them (checked against mpmath in the tests).

use core::f64::consts::PI;
use num_complex::Complex64;
// Float gives f64 its math in a pure no_std build.
#[allow(unused_imports)]
use num_traits::Float;

/// The largest |z| the series are used for.
pub const LARGEST_ARGUMENT: f64 = 12.0;

/// Euler's constant γ.
const EULER_GAMMA: f64 = 0.577_215_664_901_532_9;

/// Terms past this size relative to the sum end the series.
const TAIL: f64 = 1e-17;

/// `J_n(z)` (A&S 9.1.10): `Σ_k (−z²/4)^k / (k! (n + k)!) · (z/2)^n`.
pub fn j(n: u32, z: Complex64) -> Complex64 {
    let quarter = -z * z / 4.0;
    let mut term = (z / 2.0).powu(n) / factorial(n);
    let mut sum = term;
    for k in 1..200u32 {
        term *= quarter / (f64::from(k) * f64::from(n + k));
        sum += term;
        if term.norm() <= TAIL * sum.norm() {
            break;
        }
    }
    sum
}

/// `J_n′(z) = (J_{n−1}(z) − J_{n+1}(z)) / 2`, with `J_{−1} = −J_1`.
pub fn j_prime(n: u32, z: Complex64) -> Complex64 {
    let before = match n {
        0 => -j(1, z),
        _ => j(n - 1, z),
    };
    (before - j(n + 1, z)) / 2.0
}

/// `Y_n(x)` for `x > 0` (A&S 9.1.11):
/// `−(x/2)^{−n}/π Σ_{k<n} (n−k−1)!/k! (x²/4)^k + (2/π) ln(x/2) J_n(x)
///  − (x/2)^n/π Σ_k [ψ(k+1) + ψ(n+k+1)] (−x²/4)^k / (k! (n+k)!)`.
pub fn y(n: u32, x: f64) -> f64 {
    let half = x / 2.0;
    let square = half * half;
    let mut head = 0.0;
    for k in 0..n {
        head += factorial(n - k - 1) / factorial(k) * square.powi(k as i32);
    }
    let head = -head / (PI * half.powi(n as i32));
    let log = 2.0 / PI * half.ln() * j(n, Complex64::new(x, 0.0)).re;
    // ψ(k+1) and ψ(n+k+1) updated as k grows.
    let mut psi_k = -EULER_GAMMA;
    let mut psi_nk = -EULER_GAMMA + (1..=n).map(|i| 1.0 / f64::from(i)).sum::<f64>();
    let mut term = 1.0 / factorial(n);
    let mut sum = (psi_k + psi_nk) * term;
    for k in 1..200u32 {
        term *= -square / (f64::from(k) * f64::from(n + k));
        psi_k += 1.0 / f64::from(k);
        psi_nk += 1.0 / f64::from(n + k);
        let add = (psi_k + psi_nk) * term;
        sum += add;
        if add.abs() <= TAIL * sum.abs() && k > 2 {
            break;
        }
    }
    head + log - half.powi(n as i32) / PI * sum
}

/// `Y_n′(x) = (Y_{n−1}(x) − Y_{n+1}(x)) / 2`, with `Y_{−1} = −Y_1`.
pub fn y_prime(n: u32, x: f64) -> f64 {
    let before = match n {
        0 => -y(1, x),
        _ => y(n - 1, x),
    };
    (before - y(n + 1, x)) / 2.0
}

fn factorial(n: u32) -> f64 {
    (1..=n).map(f64::from).product()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `(n, x, J_n(x), Y_n(x))` from mpmath at 30 digits, rounded to f64.
    const MPMATH: [(u32, f64, f64, f64); 7] = [
        (0, 1.0, 0.7651976865579666, 0.08825696421567696),
        (1, 1.0, 0.4400505857449335, -0.7812128213002887),
        (2, 2.5, 0.44605905843961724, -0.38133584924180325),
        (5, 4.0, 0.13208665604709827, -0.7958514211142),
        (0, 7.5, 0.2663396578803784, 0.11731328614820863),
        (3, 0.3, 0.000559343047748846, -190.77481501430938),
        (1, 9.0, 0.24531178657332528, 0.10431457519671589),
    ];

    #[test]
    fn series_match_mpmath() {
        for (n, x, jn, yn) in MPMATH {
            let got = j(n, Complex64::new(x, 0.0));
            assert!(
                (got.re - jn).abs() < 1e-12 * jn.abs().max(1e-3),
                "J_{n}({x}) = {got}"
            );
            assert_eq!(got.im, 0.0);
            let got = y(n, x);
            assert!(
                (got - yn).abs() < 1e-11 * yn.abs().max(1e-3),
                "Y_{n}({x}) = {got}"
            );
        }
    }

    /// The Wronskian `J_{n+1}(x) Y_n(x) − J_n(x) Y_{n+1}(x) = 2/(πx)` (A&S 9.1.16) ties the
    /// two series together at every order.
    #[test]
    fn the_wronskian_holds() {
        for n in 0..12 {
            for x in [0.2, 1.0, 3.3, 6.0, 10.0] {
                let z = Complex64::new(x, 0.0);
                let w = j(n + 1, z).re * y(n, x) - j(n, z).re * y(n + 1, x);
                let exact = 2.0 / (PI * x);
                assert!((w / exact - 1.0).abs() < 1e-9, "n = {n}, x = {x}: {w}");
                // And the derivative pair's: J_n Y_n′ − J_n′ Y_n = 2/(πx) (A&S 9.1.16).
                let w = j(n, z).re * y_prime(n, x) - j_prime(n, z).re * y(n, x);
                assert!((w / exact - 1.0).abs() < 1e-9, "n = {n}, x = {x}: {w}");
            }
        }
    }
}
