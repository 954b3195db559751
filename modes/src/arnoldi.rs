//! The eigenvalues of a real operator nearest a shift σ, by Arnoldi's method on the
//! shift-inverted operator `(P − σI)⁻¹` (Saad, *Numerical Methods for Large Eigenvalue
//! Problems*, 2nd ed., 2011, §4.3 and §7.1 (shift-and-invert), with explicit restarts §7.1.1),
//! the eigenvalue θ of the small Hessenberg matrix giving `λ = σ + 1/θ`.
//!
//! The Krylov basis is kept orthonormal by modified Gram–Schmidt run twice ("twice is
//! enough", Giraud, Langou & Rozložník 2005); a Ritz pair `(θ, V y)` has the residual
//! `|h_{m+1,m}| · |y_m|` (Saad eq. 6.10), and the `count` of largest |θ| are accepted when each
//! residual is below `tol·|θ|`. Until then the method restarts from the sum of those Ritz
//! vectors. The Hessenberg matrix's eigenpairs are [`yee_em::complex_eigen`]'s.

use num_complex::Complex64;
use yee_em::complex_eigen;

/// Why no eigenpairs came back.
#[derive(Clone, Debug, PartialEq)]
pub enum ArnoldiError {
    /// The small Hessenberg eigenproblem failed.
    Hessenberg(complex_eigen::EigenError),
    /// The wanted Ritz pairs did not reach the tolerance within the restarts.
    NoConvergence {
        /// The largest relative residual left.
        residual: f64,
    },
}

impl std::fmt::Display for ArnoldiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ArnoldiError::Hessenberg(e) => write!(f, "the Arnoldi projection: {e}"),
            ArnoldiError::NoConvergence { residual } => write!(
                f,
                "the Arnoldi iteration did not converge (relative residual {residual:.1e})"
            ),
        }
    }
}

/// An eigenpair of P: `value` λ (its real part) and a real unit vector.
#[derive(Clone, Debug)]
pub struct Eigenpair {
    /// λ.
    pub value: f64,
    /// The eigenvector, of unit 2-norm.
    pub vector: Vec<f64>,
}

/// The `count` eigenpairs of P nearest `sigma`, nearest first, given `solve`, which overwrites
/// its argument x with `(P − σI)⁻¹ x`. `n` is the order of P; `dimension` the Krylov space's.
pub fn nearest(
    n: usize,
    count: usize,
    sigma: f64,
    tol: f64,
    solve: impl Fn(&mut [f64]),
) -> Result<Vec<Eigenpair>, ArnoldiError> {
    let count = count.min(n);
    let m = n.min((3 * count + 20).max(40));
    // A start vector with every component present, and no symmetry a mode could lack.
    let mut start: Vec<f64> = (0..n)
        .map(|i| 1.0 + 0.5 * ((i as f64) * 0.618_033_988_7).fract())
        .collect();
    let mut worst = f64::INFINITY;
    for _restart in 0..30 {
        let (basis, h, dim, beta) = krylov(&start, m, &solve);
        let hd: Vec<Complex64> = (0..dim * dim)
            .map(|k| Complex64::new(h[(k / dim) * m + k % dim], 0.0))
            .collect();
        let eig = complex_eigen::eigen(&hd, dim).map_err(ArnoldiError::Hessenberg)?;
        let mut order: Vec<usize> = (0..dim).collect();
        order.sort_by(|&a, &b| eig.values[b].norm().total_cmp(&eig.values[a].norm()));
        let wanted = &order[..count.min(dim)];
        worst = 0.0;
        let mut pairs = Vec::new();
        start = vec![0.0; n];
        for &k in wanted {
            let theta = eig.values[k];
            let y = real_vector(eig.vector(k));
            worst = worst.max(beta * y[dim - 1].abs() / theta.norm());
            let mut x = vec![0.0; n];
            for (j, yj) in y.iter().enumerate() {
                for (xi, vi) in x.iter_mut().zip(&basis[j * n..(j + 1) * n]) {
                    *xi += yj * vi;
                }
            }
            normalise(&mut x);
            for (s, xi) in start.iter_mut().zip(&x) {
                *s += xi;
            }
            pairs.push(Eigenpair {
                value: sigma + 1.0 / theta.re,
                vector: x,
            });
        }
        if worst <= tol || dim < m {
            return Ok(pairs);
        }
    }
    Err(ArnoldiError::NoConvergence { residual: worst })
}

/// The Arnoldi factorisation from `start`: the basis (row j: v_j), the Hessenberg matrix
/// (m × m, row-major, h[i·m + j]), the dimension reached (less than m when the space is
/// invariant) and |h_{dim, dim−1}|.
fn krylov(
    start: &[f64],
    m: usize,
    solve: &impl Fn(&mut [f64]),
) -> (Vec<f64>, Vec<f64>, usize, f64) {
    let n = start.len();
    let mut basis = Vec::with_capacity(m * n);
    let mut h = vec![0.0; m * m];
    let mut v = start.to_vec();
    normalise(&mut v);
    basis.extend_from_slice(&v);
    for j in 0..m {
        let mut w = basis[j * n..(j + 1) * n].to_vec();
        solve(&mut w);
        for _pass in 0..2 {
            for i in 0..=j {
                let vi = &basis[i * n..(i + 1) * n];
                let d: f64 = vi.iter().zip(&w).map(|(a, b)| a * b).sum();
                h[i * m + j] += d;
                for (wk, vk) in w.iter_mut().zip(vi) {
                    *wk -= d * vk;
                }
            }
        }
        let norm = w.iter().map(|x| x * x).sum::<f64>().sqrt();
        let scale = h[..].iter().map(|x| x.abs()).fold(0.0, f64::max);
        if j + 1 == m || norm <= 1e-14 * scale {
            return (basis, h, j + 1, norm);
        }
        h[(j + 1) * m + j] = norm;
        basis.extend(w.iter().map(|x| x / norm));
    }
    unreachable!("the loop returns at j = m − 1")
}

/// A complex eigenvector of a real eigenvalue turned real: rotated so its largest component
/// is real, then its real part, of unit norm.
fn real_vector(y: &[Complex64]) -> Vec<f64> {
    let big = y
        .iter()
        .copied()
        .max_by(|a, b| a.norm().total_cmp(&b.norm()))
        .unwrap_or(Complex64::new(1.0, 0.0));
    let phase = if big.norm() > 0.0 {
        big.conj() / big.norm()
    } else {
        Complex64::new(1.0, 0.0)
    };
    let mut x: Vec<f64> = y.iter().map(|c| (c * phase).re).collect();
    normalise(&mut x);
    x
}

fn normalise(x: &mut [f64]) {
    let norm = x.iter().map(|v| v * v).sum::<f64>().sqrt();
    if norm > 0.0 {
        x.iter_mut().for_each(|v| *v /= norm);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A diagonal operator with known eigenvalues: the three nearest 10.3 are 10, 11 and 9.
    #[test]
    fn finds_the_eigenvalues_nearest_the_shift() {
        let n = 200;
        let d: Vec<f64> = (0..n).map(|i| i as f64 * 0.5).collect();
        let sigma = 10.3;
        let pairs = nearest(n, 3, sigma, 1e-12, |x| {
            for (xi, di) in x.iter_mut().zip(&d) {
                *xi /= di - sigma;
            }
        })
        .unwrap();
        let values: Vec<f64> = pairs.iter().map(|p| p.value).collect();
        for (got, want) in values.iter().zip([10.5, 10.0, 11.0]) {
            assert!((got - want).abs() < 1e-9, "{values:?}");
        }
        let i = pairs[0].vector.iter().position(|v| v.abs() > 0.5).unwrap();
        assert_eq!(i, 21);
    }
}
