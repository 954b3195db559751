//! The mode operator of a cross-section on its Yee lattice (Zhu & Brown, *Opt. Express* 10,
//! 853 (2002), §2, there for E with μ = 1; here for E and H together, any ε and μ).
//!
//! With fields `∝ e^{i(βp − ωt)}` and the normalised units of the grid (c = 1, cell = 1),
//! Maxwell's curl equations on the lattice of [`crate::CrossSection`] are, in the real
//! quantities `E_u, E_v, H_u, H_v` and `e_p = −iE_p`, `h_p = −iH_p`,
//!
//! ```text
//! h_p = −(D_u E_v − D_v E_u) / (ω μ_p)        e_p = (D'_u H_v − D'_v H_u) / (ω ε_p)
//! β H_u = −ω ε_v E_v + D'_u h_p              β E_u =  ω μ_v H_v + D_u e_p
//! β H_v =  ω ε_u E_u + D'_v h_p              β E_v = −ω μ_u H_u + D_v e_p
//! ```
//!
//! with `D_a` the forward difference along a (`f(i + 1) − f(i)`, from the nodes at whole
//! coordinates to those at halves) and `D'_a` the backward one (`f(i) − f(i − 1)`) — the
//! differences of the FDTD update itself. So `β H = B E`, `β E = A H` and
//! `β² E = A B E = P E`: a 2N × 2N eigenproblem for `(E_u, E_v)` whose largest eigenvalues are
//! the guided modes' `β²`.
//!
//! Along p the grid's difference of a wave `e^{iβp}` over a cell is `2i sin(β/2)`, not `iβ`:
//! the same equations hold with β read as `β̃ = 2 sin(β/2)`, and with ω read as the
//! time-discrete `ω̃ = 2 sin(ωΔt/2)/Δt` ([`crate::solver`] chooses).
//!
//! The plane is closed by perfect electric walls: fields beyond its last node are zero, and
//! the E nodes on its low faces (`E_v`, `E_p` at `u = 0`; `E_u`, `E_p` at `v = 0`) are held at
//! zero, as are the nodes of conductors and the components a 2D scene does not carry. Along an
//! axis a 2D scene lacks, nothing varies: its differences are zero.

use crate::band_lu::BandMatrix;
use crate::cross_section::CrossSection;

/// A sparse matrix by rows: row r's (column, value) pairs.
pub(crate) type Rows = Vec<Vec<(usize, f64)>>;

/// The maps of one cross-section at one ω (module docs). Unknown `2·n + c` is node n's
/// `E_u` (c = 0) or `E_v` (c = 1), and likewise `H_u`, `H_v`; `e_p`, `h_p` are per node.
pub(crate) struct Operators {
    /// `h_p` from E.
    pub hp: Rows,
    /// `e_p` from H.
    pub ep: Rows,
    /// `β H` from E.
    pub b: Rows,
    /// `β E` from H.
    pub a: Rows,
    /// Whether E unknown k is free (not held at zero).
    pub free: Vec<bool>,
}

/// Adds `scale · row` to `acc`.
fn add_row(acc: &mut Vec<(usize, f64)>, scale: f64, row: &[(usize, f64)]) {
    acc.extend(row.iter().map(|&(c, v)| (c, scale * v)));
}

/// Sorts a row's entries by column and merges repeats.
fn merged(mut row: Vec<(usize, f64)>) -> Vec<(usize, f64)> {
    row.sort_by_key(|&(c, _)| c);
    let mut out: Vec<(usize, f64)> = Vec::with_capacity(row.len());
    for (c, v) in row {
        match out.last_mut() {
            Some((lc, lv)) if *lc == c => *lv += v,
            _ => out.push((c, v)),
        }
    }
    out.retain(|&(_, v)| v != 0.0);
    out
}

impl Operators {
    /// The operators of `cs` at angular frequency `omega`.
    pub fn new(cs: &CrossSection, omega: f64) -> Operators {
        let [nu, nv] = cs.size;
        let n = nu * nv;
        let node = |i: usize, j: usize| i + nu * j;
        let [au, av] = cs.active;
        // Free E unknowns and the inverse ε of E_p, μ of H_p (zero where held at zero).
        let mut free = vec![false; 2 * n];
        let mut inv_eps_p = vec![0.0; n];
        let mut inv_mu_p = vec![0.0; n];
        for j in 0..nv {
            for i in 0..nu {
                let k = node(i, j);
                let wall_u = au && i == 0;
                let wall_v = av && j == 0;
                free[2 * k] = cs.carried[0] && cs.eps[0][k].is_finite() && !wall_v;
                free[2 * k + 1] = cs.carried[1] && cs.eps[1][k].is_finite() && !wall_u;
                if cs.carried[2] && cs.eps[2][k].is_finite() && !wall_u && !wall_v {
                    inv_eps_p[k] = 1.0 / cs.eps[2][k];
                }
                if cs.carried[5] {
                    inv_mu_p[k] = 1.0 / cs.mu[2][k];
                }
            }
        }
        let e_term = |k: usize, c: usize, v: f64| free[2 * k + c].then_some((2 * k + c, v));
        // h_p = −(D_u E_v − D_v E_u)/(ω μ_p)
        let mut hp: Rows = vec![Vec::new(); n];
        for j in 0..nv {
            for i in 0..nu {
                let k = node(i, j);
                let s = -inv_mu_p[k] / omega;
                if s == 0.0 {
                    continue;
                }
                let mut row = Vec::new();
                if au {
                    row.extend(e_term(k, 1, -s));
                    if i + 1 < nu {
                        row.extend(e_term(node(i + 1, j), 1, s));
                    }
                }
                if av {
                    row.extend(e_term(k, 0, s));
                    if j + 1 < nv {
                        row.extend(e_term(node(i, j + 1), 0, -s));
                    }
                }
                hp[k] = merged(row);
            }
        }
        // β H_u = −ω ε_v E_v + D'_u h_p,  β H_v = ω ε_u E_u + D'_v h_p
        let mut b: Rows = vec![Vec::new(); 2 * n];
        for j in 0..nv {
            for i in 0..nu {
                let k = node(i, j);
                let mut hu: Vec<(usize, f64)> =
                    e_term(k, 1, -omega * cs.eps[1][k]).into_iter().collect();
                let mut hv: Vec<(usize, f64)> =
                    e_term(k, 0, omega * cs.eps[0][k]).into_iter().collect();
                if au {
                    add_row(&mut hu, 1.0, &hp[k]);
                    if i > 0 {
                        add_row(&mut hu, -1.0, &hp[node(i - 1, j)]);
                    }
                }
                if av {
                    add_row(&mut hv, 1.0, &hp[k]);
                    if j > 0 {
                        add_row(&mut hv, -1.0, &hp[node(i, j - 1)]);
                    }
                }
                b[2 * k] = merged(hu);
                b[2 * k + 1] = merged(hv);
            }
        }
        // e_p = (D'_u H_v − D'_v H_u)/(ω ε_p)
        let mut ep: Rows = vec![Vec::new(); n];
        for j in 0..nv {
            for i in 0..nu {
                let k = node(i, j);
                let s = inv_eps_p[k] / omega;
                if s == 0.0 {
                    continue;
                }
                let mut row = Vec::new();
                if au {
                    row.push((2 * k + 1, s));
                    if i > 0 {
                        row.push((2 * node(i - 1, j) + 1, -s));
                    }
                }
                if av {
                    row.push((2 * k, -s));
                    if j > 0 {
                        row.push((2 * node(i, j - 1), s));
                    }
                }
                ep[k] = merged(row);
            }
        }
        // β E_u = ω μ_v H_v + D_u e_p,  β E_v = −ω μ_u H_u + D_v e_p
        let mut a: Rows = vec![Vec::new(); 2 * n];
        for j in 0..nv {
            for i in 0..nu {
                let k = node(i, j);
                if free[2 * k] {
                    let mut eu = vec![(2 * k + 1, omega * cs.mu[1][k])];
                    if au {
                        add_row(&mut eu, -1.0, &ep[k]);
                        if i + 1 < nu {
                            add_row(&mut eu, 1.0, &ep[node(i + 1, j)]);
                        }
                    }
                    a[2 * k] = merged(eu);
                }
                if free[2 * k + 1] {
                    let mut ev = vec![(2 * k, -omega * cs.mu[0][k])];
                    if av {
                        add_row(&mut ev, -1.0, &ep[k]);
                        if j + 1 < nv {
                            add_row(&mut ev, 1.0, &ep[node(i, j + 1)]);
                        }
                    }
                    a[2 * k + 1] = merged(ev);
                }
            }
        }
        Operators { hp, ep, b, a, free }
    }

    /// `P − σI` with `P = A B` in band form, its unknowns renumbered by `order` (unknown k
    /// becomes `order[k]`).
    pub fn shifted_band(&self, sigma: f64, order: &[usize]) -> BandMatrix {
        let n = self.a.len();
        let p: Rows = self
            .a
            .iter()
            .map(|row| {
                let mut acc = Vec::new();
                for &(h, v) in row {
                    add_row(&mut acc, v, &self.b[h]);
                }
                merged(acc)
            })
            .collect();
        let (mut kl, mut ku) = (0, 0);
        for (r, row) in p.iter().enumerate() {
            for &(c, _) in row {
                let (r, c) = (order[r], order[c]);
                kl = kl.max(r.saturating_sub(c));
                ku = ku.max(c.saturating_sub(r));
            }
        }
        let mut m = BandMatrix::zeros(n, kl, ku);
        for (r, row) in p.iter().enumerate() {
            for &(c, v) in row {
                m.add(order[r], order[c], v);
            }
            m.add(order[r], order[r], -sigma);
        }
        m
    }
}

/// `rows · x`.
pub(crate) fn apply(rows: &Rows, x: &[f64]) -> Vec<f64> {
    rows.iter()
        .map(|row| row.iter().map(|&(c, v)| v * x[c]).sum())
        .collect()
}
