//! The guided modes of a [`CrossSection`] at one frequency: the eigenvalues `β²` of
//! [`crate::operator`]'s `P` nearest `n_max² ω²` (shift-invert Arnoldi over a band LU), each
//! with its six field components on the plane's nodes, its effective index and its group
//! index.
//!
//! **Discretisation.** With [`ModeOptions::time_step`] set, the mode is one of the FDTD grid
//! itself: ω enters as the time-discrete `ω̃ = 2 sin(ωΔt/2)/Δt`, ε as the discrete-time
//! `ε(ω)` of the update, and the eigenvalue is `β̃² = (2 sin(β/2))²` of the grid's difference
//! along the normal, so `β = 2 asin(β̃/2)`; a uniform guide of the grid then carries the mode
//! unchanged (up to rounding). Without it, only the plane is discretised: ω and β are those of
//! the continuous equations, and the effective index converges to the waveguide's as the cells
//! shrink (second order in the cell size).
//!
//! **Group index.** From the eigenvector, not by differencing in ω: for a lossless,
//! non-dispersive guide `v_g = dω/dβ = ∫ Re(E × H*)·p / ∫ (ε|E|² + μ|H|²)/2` (the variational
//! theorem, Snyder & Love, *Optical Waveguide Theory*, 1983, §31-5; on the lattice the sums over
//! nodes hold it exactly, the transverse differences being adjoint, `D' = −Dᵀ`). With the grid's
//! discretisation the chain rule adds `cos(β/2)/cos(ωΔt/2)`. Material dispersion is not in
//! it: a dispersive medium's `d(ωε)/dω` is taken as ε.

use num_complex::Complex64;
use yee_core::geometry::Axis;

use crate::arnoldi;
use crate::cross_section::CrossSection;
use crate::error::ModeError;
use crate::operator::{Operators, apply};
use crate::parity::{self, Parity};

/// What to solve for.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ModeOptions {
    /// The frequency, normalised (cycles per unit time, c = 1, cell = 1).
    pub frequency: f64,
    /// How many modes, highest effective index first.
    pub count: usize,
    /// The FDTD time step: the grid's own dispersion in time and along the normal (module
    /// docs); `None` for the continuous equations along the normal.
    pub time_step: Option<f64>,
    /// The mirror parity the modes are to have ([`crate::parity`]; the default: any). With a
    /// parity the modes are numbered among those of that parity.
    pub parity: Parity,
}

/// One mode of a cross-section.
#[derive(Clone, Debug)]
pub struct WaveguideMode {
    /// The propagation constant β, radians per cell.
    pub beta: f64,
    /// The effective index `β/ω` (ω = 2πf).
    pub n_eff: f64,
    /// The group index `c/v_g`.
    pub group_index: f64,
    /// The fields on the plane's nodes ([`CrossSection`]'s storage, `i + n_u·j`).
    pub fields: ModeFields,
}

/// A mode's six components on the plane, each at its own node, normalised to unit power
/// `½ Σ Re(E × H*)·p = 1` over the nodes, the phase making the transverse components real
/// (the longitudinal ones are then imaginary) and the largest E component positive.
#[derive(Clone, Debug)]
pub struct ModeFields {
    /// The plane's axes (u, v).
    pub axes: [Axis; 2],
    /// Nodes along u and v.
    pub size: [usize; 2],
    /// E along x, y, z (grid axes), per node.
    pub e: [Vec<Complex64>; 3],
    /// H along x, y, z, per node.
    pub h: [Vec<Complex64>; 3],
}

/// The first `options.count` modes of `cs` (fewer when fewer are guided: `β² > 0`), of
/// `options.parity` (the Arnoldi iteration on the wanted parity's subspace,
/// [`crate::parity`]).
pub fn solve(cs: &CrossSection, options: &ModeOptions) -> Result<Vec<WaveguideMode>, ModeError> {
    let f = options.frequency;
    if !(f.is_finite() && f > 0.0) {
        return Err(ModeError::Frequency(f));
    }
    if options.count == 0 {
        return Err(ModeError::NoCount);
    }
    let omega = 2.0 * std::f64::consts::PI * f;
    let omega_grid = match options.time_step {
        Some(dt) => 2.0 * (omega * dt / 2.0).sin() / dt,
        None => omega,
    };
    let mirrors = parity::mirrors(cs, &options.parity)?;
    let ops = Operators::new(cs, omega_grid);
    let n = ops.a.len();
    // Unknowns numbered across the shorter side first: the band is then narrowest.
    let [nu, nv] = cs.size;
    let order: Vec<usize> = (0..n)
        .map(|k| {
            let (node, c) = (k / 2, k % 2);
            let (i, j) = (node % nu, node / nu);
            2 * if nu <= nv { i + nu * j } else { j + nv * i } + c
        })
        .collect();
    let sigma = omega_grid * omega_grid * cs.max_index_squared() * (1.0 + 1e-9);
    let lu = ops
        .shifted_band(sigma, &order)
        .factor()
        .map_err(|_| ModeError::Singular)?;
    let pairs = arnoldi::nearest(n, options.count, sigma, 1e-11, |x| {
        parity::project(cs, &mirrors, x);
        let mut y = vec![0.0; x.len()];
        for (k, &o) in order.iter().enumerate() {
            y[o] = x[k];
        }
        lu.solve(&mut y);
        for (k, &o) in order.iter().enumerate() {
            x[k] = y[o];
        }
        parity::project(cs, &mirrors, x);
    })
    .map_err(ModeError::Eigen)?;
    let mut modes = Vec::new();
    // Below σ: the projected operator's zero eigenvalues (the other parity) give λ = ±∞.
    for pair in pairs
        .into_iter()
        .filter(|p| p.value > 0.0 && p.value < sigma)
    {
        modes.push(mode_of(
            cs,
            &ops,
            pair,
            [omega, omega_grid],
            options.time_step,
        )?);
    }
    modes.sort_by(|a, b| b.n_eff.total_cmp(&a.n_eff));
    Ok(modes)
}

/// The guided modes among the first `options.count` of `cs`: those whose effective index
/// exceeds the largest index on the plane's edges ([`CrossSection::edge_index_squared`]);
/// below it a mode fills the plane, one of the modes of the box its walls make.
pub fn guided(cs: &CrossSection, options: &ModeOptions) -> Result<Vec<WaveguideMode>, ModeError> {
    let edge = cs.edge_index_squared();
    let mut modes = solve(cs, options)?;
    modes.retain(|m| m.n_eff * m.n_eff > edge);
    Ok(modes)
}

/// The mode of eigenpair `pair` (module docs).
fn mode_of(
    cs: &CrossSection,
    ops: &Operators,
    pair: arnoldi::Eigenpair,
    [omega, omega_grid]: [f64; 2],
    time_step: Option<f64>,
) -> Result<WaveguideMode, ModeError> {
    let beta_grid = pair.value.sqrt();
    let beta = match time_step {
        Some(_) if beta_grid > 2.0 => return Err(ModeError::BeyondGrid { beta: beta_grid }),
        Some(_) => 2.0 * (beta_grid / 2.0).asin(),
        None => beta_grid,
    };
    let e = pair.vector;
    let h = magnetic(cs, ops, &e, beta_grid, omega_grid);
    let ep = apply(&ops.ep, &h);
    let hp = apply(&ops.hp, &e);
    let nodes = cs.nodes();
    let power: f64 = 0.5
        * (0..nodes)
            .map(|k| e[2 * k] * h[2 * k + 1] - e[2 * k + 1] * h[2 * k])
            .sum::<f64>();
    let weigh = |x: f64, w: f64| if x == 0.0 { 0.0 } else { w * x * x };
    let energy: f64 = 0.25
        * (0..nodes)
            .map(|k| {
                weigh(e[2 * k], cs.eps[0][k])
                    + weigh(e[2 * k + 1], cs.eps[1][k])
                    + weigh(ep[k], cs.eps[2][k])
                    + weigh(h[2 * k], cs.mu[0][k])
                    + weigh(h[2 * k + 1], cs.mu[1][k])
                    + weigh(hp[k], cs.mu[2][k])
            })
            .sum::<f64>();
    let grid_factor = match time_step {
        Some(dt) => (beta / 2.0).cos() / (omega * dt / 2.0).cos(),
        None => 1.0,
    };
    let group_velocity = power / energy * grid_factor;
    // Unit power, the largest E component positive.
    let big = e
        .iter()
        .chain(&ep)
        .copied()
        .max_by(|a, b| a.abs().total_cmp(&b.abs()))
        .unwrap_or(1.0);
    let scale = big.signum() / power.abs().sqrt();
    let mut fields = ModeFields {
        axes: cs.axes,
        size: cs.size,
        e: core::array::from_fn(|_| vec![Complex64::new(0.0, 0.0); nodes]),
        h: core::array::from_fn(|_| vec![Complex64::new(0.0, 0.0); nodes]),
    };
    let [u, v, p] = [cs.axes[0].index(), cs.axes[1].index(), cs.normal.index()];
    for k in 0..nodes {
        fields.e[u][k] = Complex64::new(scale * e[2 * k], 0.0);
        fields.e[v][k] = Complex64::new(scale * e[2 * k + 1], 0.0);
        fields.e[p][k] = Complex64::new(0.0, scale * ep[k]);
        fields.h[u][k] = Complex64::new(scale * h[2 * k], 0.0);
        fields.h[v][k] = Complex64::new(scale * h[2 * k + 1], 0.0);
        fields.h[p][k] = Complex64::new(0.0, scale * hp[k]);
    }
    Ok(WaveguideMode {
        beta,
        n_eff: beta / omega,
        group_index: 1.0 / group_velocity,
        fields,
    })
}

/// H of the mode of E: `β H = B E` from the equations at the E nodes, and where an E node is
/// held at zero (a wall, a conductor, a component the scene lacks) — whose equation then does
/// not hold — from Faraday's law at the H node instead, `ω μ_u H_u = D_v e_p − β E_v`,
/// `ω μ_v H_v = β E_u − D_u e_p` with `E = 0` there, `e_p` from the first H (at a wall `e_p`
/// is zero and so is this H).
fn magnetic(cs: &CrossSection, ops: &Operators, e: &[f64], beta: f64, omega: f64) -> Vec<f64> {
    let mut h: Vec<f64> = apply(&ops.b, e).iter().map(|x| x / beta).collect();
    // The E node beside H_u is E_v's, beside H_v E_u's.
    let held = |k: usize| !ops.free[k ^ 1];
    for (k, hk) in h.iter_mut().enumerate() {
        if held(k) {
            *hk = 0.0;
        }
    }
    let ep = apply(&ops.ep, &h);
    let [nu, nv] = cs.size;
    let [au, av] = cs.active;
    for k in (0..h.len()).filter(|&k| held(k)) {
        let node = k / 2;
        let (i, j) = (node % nu, node / nu);
        let next = |di: usize, dj: usize| {
            let (i, j) = (i + di, j + dj);
            if i < nu && j < nv {
                ep[i + nu * j]
            } else {
                0.0
            }
        };
        h[k] = match k % 2 {
            0 if av => (next(0, 1) - ep[node]) / (omega * cs.mu[0][node]),
            1 if au => -(next(1, 0) - ep[node]) / (omega * cs.mu[1][node]),
            _ => 0.0,
        };
    }
    h
}
