//! Poynting flux spectra from DFT fields (Taflove & Hagness, 3rd ed., §5.10; Meep's flux
//! regions, Oskooi et al. 2010 §4.3): `Φ(f) = ½ Re Σ (E(f) × H(f)*) · n̂ ΔA` over a plane of
//! the grid ([`net_flux`]: the time-averaged power of the transforms taken as phasors; ratios
//! such as R and T do not depend on the ½), with E and H brought to common points first.
//!
//! A plane normal to axis `a` at integer coordinate `k` holds the tangential E nodes; the
//! tangential H nodes sit half a cell either side and are averaged, and in the plane every
//! component is averaged onto the centres of the plane's cells (`i + ½` on each axis in use).
//! H is also averaged over its two half steps around E's time ([`DftMonitor::h_average`]).
//! The sums run over cells in x-fastest order on whole gathered arrays, so the spectrum is the
//! same bits for every decomposition.

use alloc::vec;
use alloc::vec::Vec;

use num_complex::Complex64;
use yee_core::geometry::{Axis, Box3, Index3, Side};

use crate::dft::DftMonitor;
use crate::near_to_far::{SurfaceSample, net_flux};
use crate::yee::{Component, Mode};
// Float gives f64 its math in a pure no_std build.
#[allow(unused_imports)]
use num_traits::Float;

/// A plane of the grid a flux is taken through.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FluxPlane {
    /// The cells of the plane: extent 1 along `axis`, whose low bound is the plane's
    /// coordinate.
    pub cells: Box3,
    /// The normal axis.
    pub axis: Axis,
    /// `High`: flux counted positive along increasing `axis`; `Low`: along decreasing.
    pub normal: Side,
}

impl FluxPlane {
    /// The nodes whose transforms the plane needs: its cells, one more layer below along the
    /// normal (H half a cell below), one more above on each axis in use across the plane,
    /// clipped to the grid (a wrapped neighbour on a periodic axis is read from the grid's
    /// other end, which the clipped box then covers whole).
    pub fn monitor_box(&self, mode: Mode, grid: [usize; 3]) -> Box3 {
        let active = mode.active_axes();
        let a = self.axis.index();
        let c = self.cells;
        let lo = core::array::from_fn(|b| if b == a { c.lo[b] - 1 } else { c.lo[b] });
        let hi = core::array::from_fn(|b| {
            if b != a && active[b] {
                c.hi[b] + 1
            } else {
                c.hi[b]
            }
        });
        Box3::new(lo, hi).intersect(&Box3::from_extent(grid))
    }

    /// The components a flux through the plane needs (tangential E and H the mode carries).
    pub fn components(&self, mode: Mode) -> [bool; 6] {
        core::array::from_fn(|c| {
            let c = Component::ALL[c];
            mode.has(c) && c.axis() != self.axis
        })
    }

    /// The DFT monitor a flux through the plane needs on a `mode` grid of `grid` cells, at
    /// `count` frequencies of the setup's table from `first`.
    pub fn monitor(&self, mode: Mode, grid: [usize; 3], first: usize, count: usize) -> DftMonitor {
        DftMonitor {
            region: self.monitor_box(mode, grid),
            components: self.components(mode),
            first,
            count,
        }
    }

    /// The outward unit normal.
    pub fn normal_vector(&self) -> [f64; 3] {
        let mut n = [0.0; 3];
        n[self.axis.index()] = match self.normal {
            Side::High => 1.0,
            Side::Low => -1.0,
        };
        n
    }

    /// The six faces of the closed box `[lo, hi]` (cells), normals outward; on axes the mode
    /// does not use the box has no faces.
    pub fn faces_of_box(region: Box3, mode: Mode) -> Vec<FluxPlane> {
        let active = mode.active_axes();
        let mut faces = Vec::new();
        for axis in Axis::ALL {
            if !active[axis.index()] {
                continue;
            }
            for side in Side::BOTH {
                let k = match side {
                    Side::Low => region.lo[axis.index()],
                    Side::High => region.hi[axis.index()],
                };
                faces.push(FluxPlane {
                    cells: region.with_bound(axis, Side::Low, k).with_bound(
                        axis,
                        Side::High,
                        k + 1,
                    ),
                    axis,
                    normal: side,
                });
            }
        }
        faces
    }
}

/// The gathered transforms of one monitor: per component, complex values per node of `region`
/// (x fastest) and frequency (fastest).
#[derive(Clone, Debug, PartialEq)]
pub struct DftFields {
    /// The nodes.
    pub region: Box3,
    /// The frequencies.
    pub frequencies: Vec<f64>,
    /// Per component ([`Component::index`]), `None` where not transformed.
    pub values: [Option<Vec<Complex64>>; 6],
}

impl DftFields {
    /// The transform of `c` at node `cell` and frequency index `f`; cells outside the region
    /// wrap on `periodic` axes of a `grid` and are otherwise clamped to the region.
    pub fn at(
        &self,
        c: Component,
        cell: Index3,
        f: usize,
        grid: [usize; 3],
        periodic: [bool; 3],
    ) -> Complex64 {
        let Some(values) = &self.values[c.index()] else {
            return Complex64::new(0.0, 0.0);
        };
        let p: Index3 = core::array::from_fn(|a| {
            let n = grid[a] as i64;
            let mut x = cell[a];
            if periodic[a] {
                x = x.rem_euclid(n);
            }
            x.clamp(self.region.lo[a], self.region.hi[a] - 1)
        });
        values[self.region.linear_index(p) * self.frequencies.len() + f]
    }
}

/// The value of component `c` at continuous position `x`: the mean of the one or two nodes of
/// `c` around `x` on each axis in use.
fn interpolate(
    data: &DftFields,
    c: Component,
    x: [f64; 3],
    f: usize,
    mode: Mode,
    grid: [usize; 3],
    periodic: [bool; 3],
) -> Complex64 {
    let active = mode.active_axes();
    let s = c.stagger();
    // Per axis: the node cells and their weights.
    let mut picks = [[(0i64, 0.0f64); 2]; 3];
    let mut counts = [1usize; 3];
    for a in 0..3 {
        if !active[a] {
            picks[a][0] = (0, 1.0);
            continue;
        }
        let u = x[a] - s[a];
        let below = u.floor();
        if u == below {
            picks[a][0] = (below as i64, 1.0);
        } else {
            picks[a] = [(below as i64, 0.5), (below as i64 + 1, 0.5)];
            counts[a] = 2;
        }
    }
    let mut sum = Complex64::new(0.0, 0.0);
    for i in 0..counts[0] {
        for j in 0..counts[1] {
            for k in 0..counts[2] {
                let (px, wx) = picks[0][i];
                let (py, wy) = picks[1][j];
                let (pz, wz) = picks[2][k];
                sum += data.at(c, [px, py, pz], f, grid, periodic) * (wx * wy * wz);
            }
        }
    }
    sum
}

/// The common points of `plane` at frequency index `f`: one per cell of the plane, at the
/// cell's centre in the plane.
pub fn surface_points(
    plane: &FluxPlane,
    data: &DftFields,
    f: usize,
    mode: Mode,
    grid: [usize; 3],
    periodic: [bool; 3],
    dt: f64,
) -> Vec<SurfaceSample> {
    let active = mode.active_axes();
    let a = plane.axis.index();
    let h_scale = DftMonitor::h_average(data.frequencies[f], dt);
    let mut points = Vec::with_capacity(plane.cells.cells());
    for n in 0..plane.cells.cells() {
        let cell = plane.cells.index_at(n);
        let position: [f64; 3] = core::array::from_fn(|b| {
            if b == a {
                cell[b] as f64
            } else if active[b] {
                cell[b] as f64 + 0.5
            } else {
                0.0
            }
        });
        let mut e = [Complex64::new(0.0, 0.0); 3];
        let mut h = [Complex64::new(0.0, 0.0); 3];
        for &c in mode.components() {
            if data.values[c.index()].is_none() {
                continue;
            }
            let v = interpolate(data, c, position, f, mode, grid, periodic);
            if c.is_electric() {
                e[c.axis().index()] = v;
            } else {
                h[c.axis().index()] = v * h_scale;
            }
        }
        points.push(SurfaceSample {
            position,
            normal: plane.normal_vector(),
            area: 1.0,
            e,
            h,
        });
    }
    points
}

/// The flux spectrum through `plane` from `data`, less the fields of `minus` (the incident
/// run's transforms over the same nodes, Meep's `load_minus_flux_data`) when given.
pub fn flux_spectrum(
    plane: &FluxPlane,
    data: &DftFields,
    minus: Option<&DftFields>,
    mode: Mode,
    grid: [usize; 3],
    periodic: [bool; 3],
    dt: f64,
) -> Vec<f64> {
    let mut out = vec![0.0; data.frequencies.len()];
    for (f, o) in out.iter_mut().enumerate() {
        let mut points = surface_points(plane, data, f, mode, grid, periodic, dt);
        if let Some(m) = minus {
            let incident = surface_points(plane, m, f, mode, grid, periodic, dt);
            for (p, q) in points.iter_mut().zip(&incident) {
                for a in 0..3 {
                    p.e[a] -= q.e[a];
                    p.h[a] -= q.h[a];
                }
            }
        }
        *o = net_flux(&points);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 1D plane wave `Ez = e^{ikx}`, `Hy = −Ez` (travelling +x: S = E × H along +x needs
    /// Ez·(−Hy) > 0) sampled on the Yee nodes: the flux through a plane is |E|² = 1 up to the
    /// interpolation's cos²-like factor, and a plane facing the other way gives the opposite.
    #[test]
    fn a_plane_wave_carries_unit_flux_along_its_travel() {
        let mode = Mode::OneD;
        let grid = [40, 1, 1];
        let k = 0.05;
        let region = Box3::from_extent(grid);
        let values = |c: Component| {
            let s = c.stagger();
            (0..40)
                .map(|i| {
                    let x = i as f64 + s[0];
                    let phase = Complex64::new(0.0, k * x).exp();
                    if c == Component::Ez { phase } else { -phase }
                })
                .collect::<Vec<_>>()
        };
        let mut v: [Option<Vec<Complex64>>; 6] = Default::default();
        v[Component::Ez.index()] = Some(values(Component::Ez));
        v[Component::Hy.index()] = Some(values(Component::Hy));
        let data = DftFields {
            region,
            frequencies: alloc::vec![0.0],
            values: v,
        };
        let mut plane = FluxPlane {
            cells: Box3::new([20, 0, 0], [21, 1, 1]),
            axis: Axis::X,
            normal: Side::High,
        };
        let phi = flux_spectrum(&plane, &data, None, mode, grid, [false; 3], 0.5)[0];
        // ½ |E|², with H averaged from x ± ½ to x: cos(k/2).
        assert!((phi - 0.5 * (k / 2.0).cos()).abs() < 1e-12, "{phi}");
        plane.normal = Side::Low;
        let back = flux_spectrum(&plane, &data, None, mode, grid, [false; 3], 0.5)[0];
        assert_eq!(back, -phi);
        // Less itself, nothing flows.
        let none = flux_spectrum(&plane, &data, Some(&data), mode, grid, [false; 3], 0.5)[0];
        assert_eq!(none, 0.0);
    }

    #[test]
    fn a_box_has_two_faces_per_axis_in_use() {
        let faces = FluxPlane::faces_of_box(Box3::new([2, 3, 0], [8, 9, 1]), Mode::Tmz);
        assert_eq!(faces.len(), 4);
        assert_eq!(faces[1].cells, Box3::new([8, 3, 0], [9, 9, 1]));
        assert_eq!(faces[1].normal_vector(), [1.0, 0.0, 0.0]);
        assert_eq!(
            faces[0].monitor_box(Mode::Tmz, [20, 20, 1]),
            Box3::new([1, 3, 0], [3, 10, 1])
        );
    }
}
