//! LU factorisation with partial pivoting of a real band matrix, and solves with it: LAPACK's
//! `DGBTRF`/`DGBTRS` (Golub & Van Loan, *Matrix Computations*, 4th ed., §4.3.5, "Band Gaussian
//! elimination with partial pivoting"). Row interchanges widen the upper band from `ku` to
//! `kl + ku`; the multipliers of step k stay where step k wrote them, and a solve applies the
//! interchanges and the Gauss transforms in the order the factorisation made them.

/// A band matrix of order n with `kl` sub- and `ku` super-diagonals, stored by rows with room
/// for the fill-in: entry (i, j) for `i − kl ≤ j ≤ i + kl + ku` at `i·w + (j + kl − i)`,
/// `w = 2kl + ku + 1`.
#[derive(Clone, Debug)]
pub struct BandMatrix {
    n: usize,
    kl: usize,
    ku: usize,
    w: usize,
    a: Vec<f64>,
}

/// A factorised [`BandMatrix`]: its L and U in place and the row interchanges.
#[derive(Clone, Debug)]
pub struct BandLu {
    m: BandMatrix,
    pivots: Vec<usize>,
}

/// The matrix is singular to working precision: a zero pivot in column `column`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Singular {
    /// The column without a pivot.
    pub column: usize,
}

impl BandMatrix {
    /// The zero matrix of order `n` with `kl` sub- and `ku` super-diagonals.
    pub fn zeros(n: usize, kl: usize, ku: usize) -> BandMatrix {
        let w = 2 * kl + ku + 1;
        BandMatrix {
            n,
            kl,
            ku,
            w,
            a: vec![0.0; n * w],
        }
    }

    /// The order n.
    pub fn order(&self) -> usize {
        self.n
    }

    fn at(&self, i: usize, j: usize) -> usize {
        i * self.w + j + self.kl - i
    }

    /// Adds `value` to entry (i, j), which must lie in the band.
    ///
    /// # Panics
    /// When (i, j) lies outside the band (a caller's indexing error).
    pub fn add(&mut self, i: usize, j: usize, value: f64) {
        assert!(
            j + self.kl >= i && j <= i + self.ku && i < self.n && j < self.n,
            "entry ({i}, {j}) outside the band"
        );
        let k = self.at(i, j);
        self.a[k] += value;
    }

    /// The LU factorisation with partial pivoting (`DGBTRF`).
    pub fn factor(mut self) -> Result<BandLu, Singular> {
        let (n, kl, ku) = (self.n, self.kl, self.ku);
        let mut pivots = vec![0; n];
        for k in 0..n {
            let last_row = (k + kl).min(n - 1);
            let last_col = (k + kl + ku).min(n - 1);
            let mut p = k;
            for r in k + 1..=last_row {
                if self.a[self.at(r, k)].abs() > self.a[self.at(p, k)].abs() {
                    p = r;
                }
            }
            pivots[k] = p;
            let pivot = self.a[self.at(p, k)];
            if pivot == 0.0 || !pivot.is_finite() {
                return Err(Singular { column: k });
            }
            if p != k {
                for j in k..=last_col {
                    let (x, y) = (self.at(k, j), self.at(p, j));
                    self.a.swap(x, y);
                }
            }
            for r in k + 1..=last_row {
                let rk = self.at(r, k);
                let l = self.a[rk] / pivot;
                self.a[rk] = l;
                if l != 0.0 {
                    for j in k + 1..=last_col {
                        let (rj, kj) = (self.at(r, j), self.at(k, j));
                        self.a[rj] -= l * self.a[kj];
                    }
                }
            }
        }
        Ok(BandLu { m: self, pivots })
    }
}

impl BandLu {
    /// The order n.
    pub fn order(&self) -> usize {
        self.m.n
    }

    /// Solves A x = b in place (`DGBTRS`).
    pub fn solve(&self, b: &mut [f64]) {
        let m = &self.m;
        let n = m.n;
        for k in 0..n {
            b.swap(k, self.pivots[k]);
            let bk = b[k];
            if bk != 0.0 {
                for r in k + 1..=(k + m.kl).min(n - 1) {
                    b[r] -= m.a[m.at(r, k)] * bk;
                }
            }
        }
        for k in (0..n).rev() {
            let mut s = b[k];
            for j in k + 1..=(k + m.kl + m.ku).min(n - 1) {
                s -= m.a[m.at(k, j)] * b[j];
            }
            b[k] = s / m.a[m.at(k, k)];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A band matrix that needs pivoting (a zero first diagonal entry) against the dense
    /// product: A x reproduces b.
    #[test]
    fn solves_a_band_system_that_needs_pivoting() {
        let (n, kl, ku) = (12, 2, 3);
        let mut m = BandMatrix::zeros(n, kl, ku);
        let entry = |i: usize, j: usize| {
            if i == j && i % 4 == 0 {
                0.0
            } else {
                ((i * 7 + j * 3) % 11) as f64 - 5.0 + if i == j { 0.5 } else { 0.0 }
            }
        };
        let mut dense = vec![0.0; n * n];
        for i in 0..n {
            for j in i.saturating_sub(kl)..=(i + ku).min(n - 1) {
                m.add(i, j, entry(i, j));
                dense[i * n + j] = entry(i, j);
            }
        }
        let lu = m.factor().unwrap();
        let b: Vec<f64> = (0..n).map(|i| (i as f64).sin() + 1.0).collect();
        let mut x = b.clone();
        lu.solve(&mut x);
        for i in 0..n {
            let ax: f64 = (0..n).map(|j| dense[i * n + j] * x[j]).sum();
            assert!((ax - b[i]).abs() < 1e-10, "row {i}: {ax} against {}", b[i]);
        }
    }

    #[test]
    fn a_zero_column_is_singular() {
        let mut m = BandMatrix::zeros(3, 1, 1);
        m.add(0, 0, 1.0);
        m.add(2, 2, 1.0);
        assert_eq!(m.factor().unwrap_err(), Singular { column: 1 });
    }
}
