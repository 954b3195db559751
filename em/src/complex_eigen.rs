//! Eigenvalues and right eigenvectors of a small dense complex matrix, `no_std`: the three
//! steps of LAPACK's `ZGEEV` without its balancing — Householder reduction to upper Hessenberg
//! form (Golub & Van Loan, *Matrix Computations*, 4th ed., §7.4.3), the shifted QR iteration on
//! it to the complex Schur form A = Z T Zᴴ with Wilkinson shifts and exceptional shifts every
//! tenth iteration (§7.5; `ZLAHQR`), and back substitution for the eigenvectors of the triangle
//! T (`ZTREVC`), carried back by Z.
//!
//! Harmonic inversion ([`crate::harminv`]) solves complex-symmetric problems with it, as harminv
//! does with `ZGEEV`: [`normalize_symmetric`] rescales each eigenvector to xᵀx = 1, the
//! normalisation in which the eigenvectors of a complex-symmetric matrix are orthonormal under
//! the bilinear product.
//!
//! Matrices are row-major slices: entry (i, j) of an n×n matrix is `a[i * n + j]`.

use alloc::vec;
use alloc::vec::Vec;
use core::fmt;

use num_complex::Complex;
// Float gives f64 its math in a pure no_std build; when std is linked anywhere in the
// build, f64's inherent methods win and the import goes unused.
#[allow(unused_imports)]
use num_traits::Float;

type C = Complex<f64>;

/// Why a matrix has no eigen-decomposition here.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub enum EigenError {
    /// The slice does not hold n×n entries.
    NotSquare {
        /// Entries given.
        len: usize,
        /// The order asked for.
        n: usize,
    },
    /// An entry is NaN or infinite.
    NotFinite {
        /// Its row.
        row: usize,
        /// Its column.
        column: usize,
    },
    /// The QR iteration did not converge within 30·max(10, n) sweeps (`ZLAHQR`'s limit).
    NoConvergence {
        /// The order of the matrix.
        n: usize,
    },
}

impl fmt::Display for EigenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EigenError::NotSquare { len, n } => {
                write!(f, "{len} entries do not make a {n}×{n} matrix")
            }
            EigenError::NotFinite { row, column } => {
                write!(f, "entry ({row}, {column}) of the matrix is not finite")
            }
            EigenError::NoConvergence { n } => {
                write!(f, "the QR iteration did not converge on the {n}×{n} matrix")
            }
        }
    }
}

/// The eigen-decomposition of an n×n matrix: `values[k]` and the right eigenvector in row k
/// of `vectors` (`vectors[k * n..(k + 1) * n]`), each of unit 2-norm.
#[derive(Clone, Debug)]
pub struct Eigen {
    /// The order n.
    pub n: usize,
    /// The eigenvalues, in the order the QR iteration deflated them.
    pub values: Vec<C>,
    /// Row k: the right eigenvector of `values[k]`.
    pub vectors: Vec<C>,
}

impl Eigen {
    /// The right eigenvector of `values[k]`.
    pub fn vector(&self, k: usize) -> &[C] {
        &self.vectors[k * self.n..(k + 1) * self.n]
    }
}

/// The eigenvalues and right eigenvectors of the general complex n×n matrix `a` (row-major),
/// as `ZGEEV` without balancing computes them: A x = λ x for each pair.
pub fn eigen(a: &[C], n: usize) -> Result<Eigen, EigenError> {
    if a.len() != n * n {
        return Err(EigenError::NotSquare { len: a.len(), n });
    }
    if let Some(i) = a
        .iter()
        .position(|x| !(x.re.is_finite() && x.im.is_finite()))
    {
        return Err(EigenError::NotFinite {
            row: i / n,
            column: i % n,
        });
    }
    // Scaled to entries of modulus at most 1: num-complex divides through |b|², which
    // underflows below 1e-154, and the eigenvectors do not change.
    let scale = a.iter().map(|x| x.norm()).fold(0.0, f64::max);
    let scale = if scale > 0.0 && scale.is_finite() {
        scale
    } else {
        1.0
    };
    let mut t: Vec<C> = a.iter().map(|x| x / scale).collect();
    let mut z = identity(n);
    hessenberg(&mut t, &mut z, n);
    schur(&mut t, &mut z, n)?;
    let values: Vec<C> = (0..n).map(|k| t[k * n + k] * scale).collect();
    let vectors = triangular_eigenvectors(&t, &z, n);
    Ok(Eigen { n, values, vectors })
}

/// Rescales every eigenvector x of `e` to xᵀx = 1 (the bilinear product, no conjugation), as
/// harminv does after `ZGEEV` for the complex-symmetric U matrices. A vector with xᵀx = 0 (a
/// quasi-null vector, which a complex-symmetric matrix can have only at a defective
/// eigenvalue) is left with unit 2-norm.
pub fn normalize_symmetric(e: &mut Eigen) {
    let n = e.n;
    for k in 0..e.values.len() {
        let x = &mut e.vectors[k * n..(k + 1) * n];
        let dot = bilinear(x, x);
        if dot.norm() > 0.0 {
            let scale = dot.sqrt().inv();
            for v in x.iter_mut() {
                *v *= scale;
            }
        }
    }
}

/// xᵀy: the bilinear (unconjugated) product of two vectors.
pub fn bilinear(x: &[C], y: &[C]) -> C {
    x.iter().zip(y).map(|(a, b)| a * b).sum()
}

fn identity(n: usize) -> Vec<C> {
    let mut m = vec![C::new(0.0, 0.0); n * n];
    for i in 0..n {
        m[i * n + i] = C::new(1.0, 0.0);
    }
    m
}

/// Reduces `a` to upper Hessenberg form by Householder reflections H = I − τ v vᴴ applied from
/// both sides (Golub & Van Loan, Algorithm 7.4.2), accumulating them into `q`: on return
/// A_in = Q A_out Qᴴ when `q` came in as the identity.
fn hessenberg(a: &mut [C], q: &mut [C], n: usize) {
    let zero = C::new(0.0, 0.0);
    let mut v = vec![zero; n];
    for k in 0..n.saturating_sub(2) {
        let column_norm = (k + 1..n)
            .map(|i| a[i * n + k].norm_sqr())
            .sum::<f64>()
            .sqrt();
        if column_norm == 0.0 {
            continue;
        }
        let x0 = a[(k + 1) * n + k];
        let phase = if x0.norm() > 0.0 {
            x0 / x0.norm()
        } else {
            C::new(1.0, 0.0)
        };
        // α = −e^{i arg x₀}‖x‖: v = x − α e₁ then has no cancellation in its first entry.
        let alpha = -phase * column_norm;
        for i in 0..n {
            v[i] = if i > k { a[i * n + k] } else { zero };
        }
        v[k + 1] -= alpha;
        let v_norm_sqr: f64 = v[k + 1..].iter().map(|x| x.norm_sqr()).sum();
        if v_norm_sqr == 0.0 {
            continue;
        }
        let tau = 2.0 / v_norm_sqr;
        // A ← H A: columns k.. (those left of k are zero in rows k+1..).
        for j in k..n {
            let s: C = (k + 1..n).map(|i| v[i].conj() * a[i * n + j]).sum();
            let s = s * tau;
            for i in k + 1..n {
                a[i * n + j] -= v[i] * s;
            }
        }
        // A ← A H and Q ← Q H.
        for m in [&mut *a, &mut *q] {
            for i in 0..n {
                let row = &mut m[i * n..(i + 1) * n];
                let s: C = (k + 1..n).map(|j| row[j] * v[j]).sum();
                let s = s * tau;
                for j in k + 1..n {
                    row[j] -= s * v[j].conj();
                }
            }
        }
        a[(k + 1) * n + k] = alpha;
        for i in k + 2..n {
            a[i * n + k] = zero;
        }
    }
}

/// The unitary rotation G = [[c, s], [−s̄, c]] (c real) with G [x, y]ᵀ = [r, 0]ᵀ.
fn givens(x: C, y: C) -> (f64, C) {
    let (ax, ay) = (x.norm(), y.norm());
    let norm = ax.hypot(ay);
    if norm == 0.0 {
        (1.0, C::new(0.0, 0.0))
    } else if ax == 0.0 {
        (0.0, y.conj() / ay)
    } else {
        (ax / norm, (x / ax) * y.conj() / norm)
    }
}

/// The eigenvalue of [[a, b], [c, d]] nearer to d: Wilkinson's shift.
fn wilkinson_shift(a: C, b: C, c: C, d: C) -> C {
    let p = (a - d) * 0.5;
    let bc = b * c;
    let disc = (p * p + bc).sqrt();
    // λ − d = p ± disc, and (p + disc)(p − disc) = −bc: the root of smaller size is −bc over
    // the larger, computed without cancellation.
    let (plus, minus) = (p + disc, p - disc);
    let denominator = if plus.norm() >= minus.norm() {
        plus
    } else {
        minus
    };
    if denominator.norm() == 0.0 {
        d
    } else {
        d - bc / denominator
    }
}

/// The shifted QR iteration on the upper Hessenberg `h` (Golub & Van Loan, §7.5; LAPACK's
/// `ZLAHQR` with single shifts): on return `h` is upper triangular (the Schur form T, entries
/// below its diagonal zero) and `z` has been multiplied on the right by the rotations, so that
/// A = Z T Zᴴ.
fn schur(h: &mut [C], z: &mut [C], n: usize) -> Result<(), EigenError> {
    if n == 0 {
        return Ok(());
    }
    let eps = f64::EPSILON;
    let matrix_norm = h.iter().map(|x| x.norm()).fold(0.0, f64::max);
    let max_sweeps = 30 * n.max(10);
    let mut sweeps = 0;
    let mut since_deflation = 0;
    let mut hi = n - 1;
    while hi > 0 {
        // The lowest l whose block [l, hi] is unreduced: a negligible subdiagonal entry is
        // set to zero (the classical criterion of Golub & Van Loan, eq. (7.5.6)).
        let mut l = hi;
        while l > 0 {
            let mut scale = h[(l - 1) * n + l - 1].norm() + h[l * n + l].norm();
            if scale == 0.0 {
                scale = matrix_norm;
            }
            if h[l * n + l - 1].norm() <= eps * scale {
                h[l * n + l - 1] = C::new(0.0, 0.0);
                break;
            }
            l -= 1;
        }
        if l == hi {
            hi -= 1;
            since_deflation = 0;
            continue;
        }
        sweeps += 1;
        since_deflation += 1;
        if sweeps > max_sweeps {
            return Err(EigenError::NoConvergence { n });
        }
        let shift = if since_deflation % 10 == 0 {
            // An exceptional shift breaks the cycles a Wilkinson shift can fall into.
            h[hi * n + hi] + 0.75 * h[hi * n + hi - 1].norm()
        } else {
            wilkinson_shift(
                h[(hi - 1) * n + hi - 1],
                h[(hi - 1) * n + hi],
                h[hi * n + hi - 1],
                h[hi * n + hi],
            )
        };
        // One implicit QR sweep over [l, hi]: the first rotation from the shifted first
        // column, then chasing the bulge down the subdiagonal.
        let mut x = h[l * n + l] - shift;
        let mut y = h[(l + 1) * n + l];
        for k in l..hi {
            if k > l {
                x = h[k * n + k - 1];
                y = h[(k + 1) * n + k - 1];
            }
            let (c, s) = givens(x, y);
            let first = if k > l { k - 1 } else { l };
            for j in first..n {
                let (a, b) = (h[k * n + j], h[(k + 1) * n + j]);
                h[k * n + j] = a * c + s * b;
                h[(k + 1) * n + j] = b * c - s.conj() * a;
            }
            if k > l {
                h[(k + 1) * n + k - 1] = C::new(0.0, 0.0);
            }
            let last = (k + 2).min(hi);
            for i in 0..=last {
                let (a, b) = (h[i * n + k], h[i * n + k + 1]);
                h[i * n + k] = a * c + b * s.conj();
                h[i * n + k + 1] = b * c - a * s;
            }
            for i in 0..n {
                let (a, b) = (z[i * n + k], z[i * n + k + 1]);
                z[i * n + k] = a * c + b * s.conj();
                z[i * n + k + 1] = b * c - a * s;
            }
        }
    }
    for i in 1..n {
        for j in 0..i {
            h[i * n + j] = C::new(0.0, 0.0);
        }
    }
    Ok(())
}

/// The eigenvectors of A = Z T Zᴴ: for each k, (T − λ_k) x = 0 with x_k = 1 and x_j = 0 for
/// j > k, solved upwards by back substitution (a near-zero pivot, from a repeated
/// eigenvalue, is raised to ε‖T‖ as `ZTREVC` does; T is scaled to entries of order 1, so
/// that is far above where num-complex's division underflows), then Z x scaled to unit 2-norm. Row k of
/// the result is the eigenvector of T_kk.
fn triangular_eigenvectors(t: &[C], z: &[C], n: usize) -> Vec<C> {
    let zero = C::new(0.0, 0.0);
    let t_norm = t.iter().map(|x| x.norm()).fold(0.0, f64::max);
    // T's entries are of order 1 (the matrix was scaled) or all zero.
    let small = f64::EPSILON * if t_norm > 0.0 { t_norm } else { 1.0 };
    let mut vectors = vec![zero; n * n];
    let mut x = vec![zero; n];
    for k in 0..n {
        let lambda = t[k * n + k];
        x.iter_mut().for_each(|v| *v = zero);
        x[k] = C::new(1.0, 0.0);
        for i in (0..k).rev() {
            let s: C = (i + 1..=k).map(|j| t[i * n + j] * x[j]).sum();
            let mut pivot = t[i * n + i] - lambda;
            if pivot.norm() < small {
                pivot = C::new(small, 0.0);
            }
            x[i] = -s / pivot;
            // Keep the growing solution representable: a vector may be scaled freely.
            let big = x[i].norm();
            if big > 1e100 {
                for v in x[i..=k].iter_mut() {
                    *v /= big;
                }
            }
        }
        let out = &mut vectors[k * n..(k + 1) * n];
        for (r, o) in out.iter_mut().enumerate() {
            *o = (0..=k).map(|j| z[r * n + j] * x[j]).sum();
        }
        let norm = out.iter().map(|v| v.norm_sqr()).sum::<f64>().sqrt();
        if norm > 0.0 {
            out.iter_mut().for_each(|v| *v /= norm);
        }
    }
    vectors
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lcg(state: &mut u64) -> f64 {
        *state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (*state >> 11) as f64 / (1u64 << 53) as f64 - 0.5
    }

    fn random_matrix(n: usize, seed: u64) -> Vec<C> {
        let mut s = seed;
        (0..n * n)
            .map(|_| C::new(lcg(&mut s), lcg(&mut s)))
            .collect()
    }

    /// max_k ‖A x_k − λ_k x_k‖ / ‖A‖.
    fn residual(a: &[C], e: &Eigen) -> f64 {
        let n = e.n;
        let a_norm = a.iter().map(|x| x.norm()).fold(0.0, f64::max);
        let mut worst = 0.0f64;
        for k in 0..n {
            let x = e.vector(k);
            let x_norm = x.iter().map(|v| v.norm_sqr()).sum::<f64>().sqrt();
            for i in 0..n {
                let ax: C = (0..n).map(|j| a[i * n + j] * x[j]).sum();
                worst = worst.max((ax - e.values[k] * x[i]).norm() / (a_norm * x_norm));
            }
        }
        worst
    }

    #[test]
    fn random_general_matrices_have_small_residuals() {
        for (n, seed) in [(1, 1), (2, 2), (3, 3), (7, 4), (40, 5), (120, 6)] {
            let a = random_matrix(n, seed);
            let e = eigen(&a, n).unwrap();
            let r = residual(&a, &e);
            assert!(r < 1e-12 * n as f64, "n = {n}: residual {r:e}");
            // The trace is the sum of the eigenvalues.
            let trace: C = (0..n).map(|i| a[i * n + i]).sum();
            let sum: C = e.values.iter().sum();
            assert!((trace - sum).norm() < 1e-12 * n as f64);
        }
    }

    #[test]
    fn the_scale_of_the_entries_does_not_matter() {
        let n = 12;
        let a = random_matrix(n, 8);
        let e = eigen(&a, n).unwrap();
        for scale in [1e-300, 1e-160, 1e160, 1e300] {
            let scaled: Vec<C> = a.iter().map(|x| x * scale).collect();
            let s = eigen(&scaled, n).unwrap();
            assert!(residual(&scaled, &s) < 1e-12, "{scale:e}");
            for (v, w) in s.values.iter().zip(&e.values) {
                assert!((v / scale - w).norm() < 1e-12, "{scale:e}: {v} against {w}");
            }
        }
    }

    #[test]
    fn known_eigenvalues_of_a_triangular_similarity() {
        // A = S D S⁻¹ with S unit upper triangular: eigenvalues exactly D's.
        let n = 5;
        let d = [
            C::new(3.0, 1.0),
            C::new(-1.0, 0.5),
            C::new(0.25, -2.0),
            C::new(2.0, 0.0),
            C::new(0.0, 1e-3),
        ];
        let mut s = identity(n);
        let mut s_inv = identity(n);
        for i in 0..n - 1 {
            s[i * n + i + 1] = C::new(0.5, -0.25);
        }
        // (I + N)⁻¹ = I − N + N² − … for the nilpotent N.
        let mut power = identity(n);
        for p in 1..n {
            let mut next = vec![C::new(0.0, 0.0); n * n];
            for i in 0..n {
                for j in 0..n {
                    next[i * n + j] = (0..n)
                        .map(|m| power[i * n + m] * (s[m * n + j] - identity(n)[m * n + j]))
                        .sum();
                }
            }
            power = next;
            let sign = if p % 2 == 1 { -1.0 } else { 1.0 };
            for (o, v) in s_inv.iter_mut().zip(&power) {
                *o += v * sign;
            }
        }
        let mut a = vec![C::new(0.0, 0.0); n * n];
        for i in 0..n {
            for j in 0..n {
                a[i * n + j] = (0..n).map(|m| s[i * n + m] * d[m] * s_inv[m * n + j]).sum();
            }
        }
        let e = eigen(&a, n).unwrap();
        for want in d {
            let nearest = e
                .values
                .iter()
                .map(|v| (v - want).norm())
                .fold(f64::INFINITY, f64::min);
            assert!(nearest < 1e-13, "{want}: {nearest:e}");
        }
        assert!(residual(&a, &e) < 1e-13);
    }

    #[test]
    fn complex_symmetric_eigenvectors_are_bilinear_orthonormal() {
        let n = 30;
        let mut a = random_matrix(n, 9);
        for i in 0..n {
            for j in 0..i {
                a[i * n + j] = a[j * n + i];
            }
        }
        let mut e = eigen(&a, n).unwrap();
        normalize_symmetric(&mut e);
        for k in 0..n {
            for l in 0..n {
                let dot = bilinear(e.vector(k), e.vector(l));
                let want = if k == l { 1.0 } else { 0.0 };
                assert!((dot - want).norm() < 1e-10, "({k}, {l}): {dot}");
            }
        }
    }

    #[test]
    fn bad_input_is_an_error() {
        assert_eq!(
            eigen(&[C::new(1.0, 0.0); 3], 2).unwrap_err(),
            EigenError::NotSquare { len: 3, n: 2 }
        );
        let mut a = vec![C::new(1.0, 0.0); 4];
        a[3] = C::new(f64::NAN, 0.0);
        assert_eq!(
            eigen(&a, 2).unwrap_err(),
            EigenError::NotFinite { row: 1, column: 1 }
        );
        assert_eq!(eigen(&[], 0).unwrap().values.len(), 0);
    }

    #[test]
    fn diagonal_and_zero_matrices() {
        let a = [
            C::new(2.0, 0.0),
            C::new(0.0, 0.0),
            C::new(0.0, 0.0),
            C::new(-3.0, 1.0),
        ];
        let e = eigen(&a, 2).unwrap();
        assert!(residual(&a, &e) < 1e-15);
        let zero = vec![C::new(0.0, 0.0); 9];
        let e = eigen(&zero, 3).unwrap();
        assert!(e.values.iter().all(|v| v.norm() == 0.0));
        // A repeated eigenvalue's zero pivots are raised, not divided by.
        assert!(
            e.vectors
                .iter()
                .all(|v| v.re.is_finite() && v.im.is_finite())
        );
    }
}
