//! A plane of a scene's grid as the mode solver sees it: the ε and μ of every node of the
//! cells at one index along the normal, as [`Setup::node_medium`] and
//! [`Setup::node_material`] place them for the FDTD run (staircase rule, face weights,
//! subpixel smoothing), at the solver's frequency.
//!
//! The plane's axes are `(u, v) = (p.next(), p.next().next())` for the normal `p`, so that
//! `(u, v, p)` is right-handed. Node `(i, j)` of a component is the node of that component in
//! the cell with `u = i`, `v = j`, `p = index`: `E_u` at `(i + ½, j)`, `E_v` at `(i, j + ½)`,
//! `E_p` at `(i, j)`, `H_u` at `(i, j + ½)`, `H_v` at `(i + ½, j)`, `H_p` at `(i + ½, j + ½)`
//! in the plane (Yee 1966). Storage is `i + n_u·j`.
//!
//! Losses are left out: ε is the real part of the node's `ε(ω)` (its conductivity and the
//! imaginary part of its poles' susceptibility dropped, [`CrossSection::loss_tangent`] tells how
//! much was), except that a node whose conductivity makes `|Im ε| > 10³ |Re ε|` (the scene's
//! `pec`, any metal) is a perfect conductor: its E is zero.

use yee_core::geometry::Axis;
use yee_em::Setup;
use yee_em::yee::{Component, Mode};

use crate::error::ModeError;

/// The ε and μ of the nodes of one plane of the grid (module docs).
#[derive(Clone, Debug)]
pub struct CrossSection {
    /// The normal `p`, the direction of propagation.
    pub normal: Axis,
    /// The plane's cell index along the normal.
    pub index: usize,
    /// `(u, v)`: the plane's axes, right-handed with the normal.
    pub axes: [Axis; 2],
    /// Nodes along u and v (the grid's cells; 1 along an axis a 2D scene lacks).
    pub size: [usize; 2],
    /// Whether the fields vary along u and v (false for the z of a 2D scene).
    pub active: [bool; 2],
    /// ε of the nodes of `E_u`, `E_v`, `E_p`; infinite where the node is a conductor.
    pub eps: [Vec<f64>; 3],
    /// μ of the nodes of `H_u`, `H_v`, `H_p`.
    pub mu: [Vec<f64>; 3],
    /// Whether the scene carries `E_u, E_v, E_p, H_u, H_v, H_p` (a 2D scene carries three).
    pub carried: [bool; 6],
    /// The largest `|Im ε| / Re ε` dropped at a node that is not a conductor.
    pub loss_tangent: f64,
}

/// `|Im ε| / Re ε` above which a node is a perfect conductor.
const CONDUCTOR: f64 = 1e3;

impl CrossSection {
    /// The plane of `setup` normal to `normal` at cell `index`, its media at `frequency`
    /// (normalised); with `time_step`, ε is the discrete-time one the update gives a sinusoid
    /// ([`yee_em::NodeMedium::discrete_permittivity`]).
    pub fn of_setup(
        setup: &Setup,
        normal: Axis,
        index: usize,
        frequency: f64,
        time_step: Option<f64>,
    ) -> Result<CrossSection, ModeError> {
        let mode_active = setup.mode.active_axes();
        if setup.mode == Mode::OneD || !mode_active[normal.index()] {
            return Err(ModeError::NoCrossSection {
                mode: setup.mode.name(),
                normal,
            });
        }
        if !(frequency.is_finite() && frequency > 0.0) {
            return Err(ModeError::Frequency(frequency));
        }
        let cells = setup.grid[normal.index()];
        if index >= cells {
            return Err(ModeError::IndexOutside {
                normal,
                index,
                cells,
            });
        }
        let u = normal.next();
        let axes = [u, u.next()];
        let size = axes.map(|a| setup.grid[a.index()]);
        let active = axes.map(|a| mode_active[a.index()]);
        let directions = [axes[0], axes[1], normal];
        let carried =
            core::array::from_fn(|k| setup.mode.has(Component::along(directions[k % 3], k < 3)));
        let nodes = size[0] * size[1];
        let cell = |n: usize| {
            let mut c = [0i64; 3];
            c[axes[0].index()] = (n % size[0]) as i64;
            c[axes[1].index()] = (n / size[0]) as i64;
            c[normal.index()] = index as i64;
            c
        };
        let mut loss_tangent: f64 = 0.0;
        let eps = directions.map(|a| {
            let c = Component::along(a, true);
            (0..nodes)
                .map(|n| {
                    let medium = setup.node_medium(c, cell(n));
                    let e = match time_step {
                        Some(dt) => medium.discrete_permittivity(setup.poles, frequency, dt),
                        None => medium.permittivity(setup.poles, frequency),
                    };
                    let tangent = e.im.abs() / e.re;
                    if e.re.is_nan() || e.re <= 0.0 || tangent > CONDUCTOR {
                        return f64::INFINITY;
                    }
                    loss_tangent = loss_tangent.max(tangent);
                    e.re
                })
                .collect()
        });
        let mu = directions.map(|a| {
            let c = Component::along(a, false);
            (0..nodes)
                .map(|n| setup.node_material(c, cell(n)).mu)
                .collect()
        });
        Ok(CrossSection {
            normal,
            index,
            axes,
            size,
            active,
            eps,
            mu,
            carried,
            loss_tangent,
        })
    }

    /// Nodes in the plane.
    pub fn nodes(&self) -> usize {
        self.size[0] * self.size[1]
    }

    /// The largest `ε μ` over the nodes on the plane's edges (along the axes the fields vary
    /// on) that are not conductors: a mode whose `n_eff²` exceeds it decays towards the edges,
    /// a guided mode; below it a mode fills the plane, one of the modes of the box its walls
    /// make.
    pub fn edge_index_squared(&self) -> f64 {
        let [nu, nv] = self.size;
        let [au, av] = self.active;
        let on_edge = |n: usize| {
            let (i, j) = (n % nu, n / nu);
            (au && (i == 0 || i + 1 == nu)) || (av && (j == 0 || j + 1 == nv))
        };
        let largest = |values: &[Vec<f64>; 3]| {
            values
                .iter()
                .flat_map(|v| v.iter().enumerate())
                .filter(|&(n, x)| on_edge(n) && x.is_finite())
                .fold(0.0f64, |a, (_, &b)| a.max(b))
        };
        largest(&self.eps) * largest(&self.mu)
    }

    /// The largest `ε μ` over the nodes that are not conductors: `n_max²`.
    pub fn max_index_squared(&self) -> f64 {
        let eps = self
            .eps
            .iter()
            .flatten()
            .filter(|e| e.is_finite())
            .fold(0.0f64, |a, &b| a.max(b));
        let mu = self.mu.iter().flatten().fold(0.0f64, |a, &b| a.max(b));
        eps * mu
    }
}
