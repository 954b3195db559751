//! Real symmetric 3×3 tensors (a general anisotropic ε or μ): symmetry, positive definiteness,
//! the inverse and the extreme eigenvalues.
//!
//! A general anisotropic material `ε` enters the E update as `E = ε⁻¹D`: the diagonal entries
//! of `ε⁻¹` weigh each component's own curl, the off-diagonal ones the curls of the other
//! components ([`crate::material::Coupling`]). The eigenvalues bound the speed of light in the
//! medium: no wave is faster than `1/√(λmin(ε) λmin(μ))`.

// Float gives f64 its math in a pure no_std build.
#[allow(unused_imports)]
use num_traits::Float;

/// A 3×3 matrix, rows first.
pub type Matrix3 = [[f64; 3]; 3];

/// Why a tensor cannot be a material's ε or μ.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum TensorProblem {
    /// An entry is NaN or infinite.
    NotFinite,
    /// `m[i][j] ≠ m[j][i]` for the pair `(i, j)`.
    NotSymmetric(usize, usize),
    /// Some eigenvalue is ≤ 0 (the smallest is given).
    NotPositiveDefinite(f64),
}

/// `m`, checked to be finite, symmetric (exactly) and positive definite.
pub fn check_symmetric_positive(m: &Matrix3) -> Result<(), TensorProblem> {
    if m.iter().flatten().any(|v| !v.is_finite()) {
        return Err(TensorProblem::NotFinite);
    }
    for (i, j) in [(0, 1), (0, 2), (1, 2)] {
        if m[i][j] != m[j][i] {
            return Err(TensorProblem::NotSymmetric(i, j));
        }
    }
    let [low, _] = extreme_eigenvalues(m);
    // Sylvester's criterion as well: the leading minors decide exactly where the eigenvalue
    // is rounded near zero.
    let minors = [
        m[0][0],
        m[0][0] * m[1][1] - m[0][1] * m[1][0],
        determinant(m),
    ];
    if low <= 0.0 || minors.iter().any(|&d| d <= 0.0) {
        return Err(TensorProblem::NotPositiveDefinite(low));
    }
    Ok(())
}

/// The determinant.
pub fn determinant(m: &Matrix3) -> f64 {
    m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
        - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
        + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
}

/// The inverse (by cofactors; `m` must be invertible).
pub fn inverse(m: &Matrix3) -> Matrix3 {
    let d = determinant(m);
    let c = |i: usize, j: usize| {
        let (r0, r1) = ((i + 1) % 3, (i + 2) % 3);
        let (c0, c1) = ((j + 1) % 3, (j + 2) % 3);
        m[r0][c0] * m[r1][c1] - m[r0][c1] * m[r1][c0]
    };
    // inverse[j][i] = cofactor(i, j) / det (the cyclic minors carry their own sign).
    core::array::from_fn(|i| core::array::from_fn(|j| c(j, i) / d))
}

/// The smallest and the largest eigenvalue of the symmetric `m` (the trigonometric solution
/// of the characteristic cubic; Smith 1961, *Commun. ACM* 4, 168).
pub fn extreme_eigenvalues(m: &Matrix3) -> [f64; 2] {
    let off = m[0][1] * m[0][1] + m[0][2] * m[0][2] + m[1][2] * m[1][2];
    let diagonal = [m[0][0], m[1][1], m[2][2]];
    if off == 0.0 {
        let low = diagonal.iter().copied().fold(f64::INFINITY, f64::min);
        let high = diagonal.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        return [low, high];
    }
    let q = (diagonal[0] + diagonal[1] + diagonal[2]) / 3.0;
    let p2 = diagonal.iter().map(|d| (d - q) * (d - q)).sum::<f64>() + 2.0 * off;
    let p = (p2 / 6.0).sqrt();
    let b: Matrix3 = core::array::from_fn(|i| {
        core::array::from_fn(|j| (m[i][j] - if i == j { q } else { 0.0 }) / p)
    });
    let r = (determinant(&b) / 2.0).clamp(-1.0, 1.0);
    let phi = r.acos() / 3.0;
    let high = q + 2.0 * p * phi.cos();
    let low = q + 2.0 * p * (phi + 2.0 * core::f64::consts::PI / 3.0).cos();
    [low, high]
}

/// The tensor `diag(d)` rotated by `angle` about `axis` (`R diag(d) Rᵀ`): a uniaxial or
/// biaxial crystal whose principal axes are turned from the grid's.
pub fn rotated_diagonal(d: [f64; 3], axis: usize, angle: f64) -> Matrix3 {
    let (s, c) = angle.sin_cos();
    let (u, v) = ((axis + 1) % 3, (axis + 2) % 3);
    let mut r = [[0.0; 3]; 3];
    r[axis][axis] = 1.0;
    r[u][u] = c;
    r[u][v] = -s;
    r[v][u] = s;
    r[v][v] = c;
    let mut out = [[0.0; 3]; 3];
    for (i, row) in out.iter_mut().enumerate() {
        for (j, entry) in row.iter_mut().enumerate() {
            *entry = (0..3).map(|k| r[i][k] * d[k] * r[j][k]).sum();
        }
    }
    // Symmetric exactly, whatever the rounding of the two products.
    for (i, j) in [(0, 1), (0, 2), (1, 2)] {
        out[j][i] = out[i][j];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inverse_and_eigenvalues_of_a_rotated_crystal() {
        let m = rotated_diagonal([2.0, 3.0, 5.0], 2, 0.4);
        let inv = inverse(&m);
        for i in 0..3 {
            for j in 0..3 {
                let p: f64 = (0..3).map(|k| m[i][k] * inv[k][j]).sum();
                assert!(
                    (p - f64::from(u8::from(i == j))).abs() < 1e-14,
                    "{i}{j}: {p}"
                );
            }
        }
        let [low, high] = extreme_eigenvalues(&m);
        assert!(
            (low - 2.0).abs() < 1e-12 && (high - 5.0).abs() < 1e-12,
            "{low} {high}"
        );
        assert_eq!(check_symmetric_positive(&m), Ok(()));
        let mut skew = m;
        skew[1][0] += 1e-3;
        assert_eq!(
            check_symmetric_positive(&skew),
            Err(TensorProblem::NotSymmetric(0, 1))
        );
        let indefinite = [[1.0, 2.0, 0.0], [2.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
        assert!(matches!(
            check_symmetric_positive(&indefinite),
            Err(TensorProblem::NotPositiveDefinite(v)) if (v + 1.0).abs() < 1e-12
        ));
    }
}
