//! A row of nodes placed a stretch at a time: the set-up asks [`Setup::placement`] and
//! [`Setup::smoothed_medium`] only for the nodes near some region's surface.
//!
//! Along a storage row (x free, y and z fixed) each region's shape gives, from its geometry
//! alone ([`Shape::along_x`]), the x outside which its nodes are clear of it and the x between
//! which they lie deep inside: more than [`MARGIN`] from a curved surface (a sphere's, a
//! cylinder's side), and not on a flat face (a box's, a cylinder's cap), which splits only the
//! nodes exactly on it and is never smoothed. A node clear of or deep inside every region is
//! placed wholly in the last region holding it (or the background), with no surface axis to
//! split it and a voxel (at most 1.5 cells from its node) that no curved surface crosses, so
//! unsmoothed: exactly what the search finds there (module docs of [`crate::placement`] and
//! [`crate::smoothing`]). The rows of a 256³ sphere then search a shell a few cells thick
//! instead of its whole bounding box, and those of a half-space only the nodes on its faces.
//!
//! On a periodic axis a node on the low face (coordinate 0) is also at the high face: such
//! nodes always take the search.

use alloc::vec::Vec;
use num_traits::Float;

use yee_core::geometry::{Axis, Index3};

use crate::placement::Placement;
use crate::setup::Setup;
use crate::yee::Component;

#[cfg(doc)]
use crate::shape::Shape;

/// Distance (cells) from every curved surface beyond which a node is placed without the
/// search: more than the 1.5 cells a node's voxel reaches (half a cell along each of three
/// axes), with room for the rounding of the shapes' square roots.
pub const MARGIN: f64 = 2.0;

/// How a stretch of a row's nodes is placed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stretch {
    /// Every node wholly in this region (`None`: the background), unsmoothed.
    Whole(Option<usize>),
    /// Each node needs the search ([`Setup::placement`], [`Setup::smoothed_medium`]).
    Search,
}

/// Where one region's shape leaves a row's nodes: those before `near_lo` and from `near_hi` on
/// lie outside it, those in `deep_lo..deep_hi` inside it, the rest near its surface.
#[derive(Clone, Copy, Debug)]
pub struct RegionStretches {
    region: usize,
    near_lo: i64,
    deep_lo: i64,
    deep_hi: i64,
    near_hi: i64,
}

impl Setup<'_> {
    /// Cuts the nodes `from..to` of component `c`'s storage row at (`y`, `z`) into stretches
    /// placed alike, in ascending x, and hands each to `each(start, end, stretch)`. `spans` is
    /// scratch kept by the caller across rows (no allocation per row once it has grown).
    pub fn row_stretches(
        &self,
        c: Component,
        [y, z]: [i64; 2],
        (from, to): (i64, i64),
        spans: &mut Vec<RegionStretches>,
        mut each: impl FnMut(i64, i64, Stretch),
    ) {
        let p = c.position([0, y, z]);
        let on_periodic_face = |a: Axis| self.is_periodic(a) && p[a.index()] == 0.0;
        if from >= to {
            return;
        }
        if on_periodic_face(Axis::Y) || on_periodic_face(Axis::Z) {
            each(from, to, Stretch::Search);
            return;
        }
        // x's node on the low face of a periodic x axis: searched on its own.
        let wrapped = on_periodic_face(Axis::X) && (from..to).contains(&0);
        // The node index of position `v` along x, rounded with `round`, within `from..=to`.
        let (lo, hi) = ((from - 1) as f64, (to + 1) as f64);
        let node = |v: f64, round: fn(f64) -> f64| -> i64 {
            (round((v - p[0]).clamp(lo, hi)) as i64).clamp(from, to)
        };
        spans.clear();
        for (region, r) in self.regions.iter().enumerate() {
            let line = r.shape.along_x(p[1], p[2], MARGIN);
            if line.near[0] > line.near[1] {
                continue;
            }
            // Outside: x < near[0] (nodes below ⌈near[0]⌉) and x > near[1] (from ⌊near[1]⌋ + 1).
            let near_lo = node(line.near[0], Float::ceil);
            let near_hi = node(line.near[1], Float::floor).saturating_add(1).min(to);
            // Inside: deep[0] < x < deep[1].
            let (deep_lo, deep_hi) = if line.deep[0] <= line.deep[1] {
                let deep_lo = node(line.deep[0], Float::floor).saturating_add(1).min(to);
                (deep_lo, node(line.deep[1], Float::ceil).max(deep_lo))
            } else {
                (near_lo, near_lo)
            };
            spans.push(RegionStretches {
                region,
                near_lo,
                deep_lo: deep_lo.clamp(near_lo, near_hi.max(near_lo)),
                deep_hi: deep_hi.clamp(near_lo, near_hi.max(near_lo)),
                near_hi: near_hi.max(near_lo),
            });
        }
        let mut x = from;
        while x < to {
            let mut end = to;
            let mut search = false;
            if wrapped {
                if x == 0 {
                    end = 1;
                    search = true;
                } else if x < 0 {
                    end = 0;
                }
            }
            let mut whole = None;
            for s in spans.iter() {
                let (inside, next) = match x {
                    x if x < s.near_lo => (false, s.near_lo),
                    x if x < s.deep_lo => {
                        search = true;
                        (false, s.deep_lo)
                    }
                    x if x < s.deep_hi => (true, s.deep_hi),
                    x if x < s.near_hi => {
                        search = true;
                        (false, s.near_hi)
                    }
                    _ => (false, to),
                };
                if inside {
                    whole = Some(s.region);
                }
                end = end.min(next);
            }
            let stretch = if search {
                Stretch::Search
            } else {
                Stretch::Whole(whole)
            };
            each(x, end, stretch);
            x = end;
        }
    }
}

/// A row whose stretches are wrong, found by [`Setup::verify_row_stretches`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StretchError {
    /// The component of the row.
    pub component: Component,
    /// The node (or, for a gap or an overlap, the first node of the stretch).
    pub cell: Index3,
    /// What is wrong.
    pub what: &'static str,
}

impl Setup<'_> {
    /// Checks the rows of every component over the grid and one node around it: the stretches
    /// tile each row in ascending order, and every node of a stretch placed whole is placed so
    /// by the search ([`Setup::node_placement`]) and not smoothed. Returns how many nodes were
    /// placed whole. The unit tests and the cargo-fuzz target `row_placement` call it.
    pub fn verify_row_stretches(&self) -> Result<usize, StretchError> {
        let mut spans = Vec::new();
        let mut whole = 0;
        let grid = self.grid.map(|n| n as i64);
        for c in Component::ALL.into_iter().filter(|&c| self.mode.has(c)) {
            for z in -1..grid[2] + 1 {
                for y in -1..grid[1] + 1 {
                    let mut next = -1;
                    let mut error = None;
                    let row = (-1, grid[0] + 1);
                    self.row_stretches(c, [y, z], row, &mut spans, |a, b, stretch| {
                        let fail = |x: i64, what| StretchError {
                            component: c,
                            cell: [x, y, z],
                            what,
                        };
                        if error.is_some() {
                            return;
                        }
                        if a != next || a >= b {
                            error = Some(fail(a, "the stretches leave a gap or overlap"));
                            return;
                        }
                        next = b;
                        let Stretch::Whole(region) = stretch else {
                            return;
                        };
                        for x in a..b {
                            let cell = [x, y, z];
                            if self.node_placement(c, cell) != Placement::whole(region) {
                                error = Some(fail(x, "the search places the node otherwise"));
                                return;
                            }
                            if self.smoothed_medium(c, cell).is_some() {
                                error = Some(fail(x, "the node is smoothed"));
                                return;
                            }
                            whole += 1;
                        }
                    });
                    if let Some(error) = error {
                        return Err(error);
                    }
                    if next != row.1 {
                        return Err(StretchError {
                            component: c,
                            cell: [next, y, z],
                            what: "the stretches end before the row does",
                        });
                    }
                }
            }
        }
        Ok(whole)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::material::Material;
    use crate::setup::{Boundary, Region};
    use crate::shape::Shape;
    use crate::yee::Mode;

    fn region(shape: Shape, eps: f64) -> Region {
        Region {
            shape,
            material: Material::dielectric(eps),
        }
    }

    #[test]
    fn nodes_placed_a_stretch_at_a_time_are_placed_as_the_search_places_them() {
        let regions = [
            region(
                Shape::Block {
                    lo: [0.0, 0.0, 0.0],
                    hi: [6.5, 20.0, 3.0],
                },
                3.0,
            ),
            region(
                Shape::Sphere {
                    center: [11.3, 10.2, 9.6],
                    radius: 7.4,
                },
                2.0,
            ),
            region(
                Shape::Cylinder {
                    center: [13.0, 5.0, 8.0],
                    radius: 3.5,
                    axis: Axis::Z,
                    length: 9.0,
                },
                5.0,
            ),
            region(
                Shape::Cylinder {
                    center: [9.0, 15.0, 12.0],
                    radius: 4.0,
                    axis: Axis::X,
                    length: 11.0,
                },
                6.0,
            ),
            region(
                Shape::Cylinder {
                    center: [15.5, 9.0, 4.0],
                    radius: 3.0,
                    axis: Axis::Y,
                    length: f64::INFINITY,
                },
                7.0,
            ),
        ];
        let mut whole = 0;
        for (mode, grid) in [
            (Mode::ThreeD, [22, 20, 18]),
            (Mode::Tmz, [22, 20, 1]),
            (Mode::Tez, [22, 20, 1]),
        ] {
            for periodic in [false, true] {
                let wall = |p| if p { Boundary::Periodic } else { Boundary::Pec };
                let walls = [[wall(periodic); 2], [Boundary::Pec; 2], [wall(periodic); 2]];
                for smoothing in [true, false] {
                    let setup = Setup {
                        regions: &regions,
                        smoothing,
                        ..Setup::vacuum(mode, grid, 0.5, walls)
                    };
                    whole += setup.verify_row_stretches().unwrap();
                }
            }
        }
        // Most nodes are placed without the search.
        assert!(whole > 60_000, "{whole} nodes placed whole");
    }

    #[test]
    fn a_row_far_from_every_shape_is_one_stretch_of_background() {
        let regions = [region(
            Shape::Sphere {
                center: [10.0; 3],
                radius: 3.0,
            },
            2.0,
        )];
        let setup = Setup {
            regions: &regions,
            ..Setup::vacuum(Mode::ThreeD, [20; 3], 0.5, [[Boundary::Pec; 2]; 3])
        };
        let mut got = Vec::new();
        let mut spans = Vec::new();
        setup.row_stretches(Component::Ex, [2, 2], (-1, 21), &mut spans, |a, b, s| {
            got.push((a, b, s))
        });
        assert_eq!(got, [(-1, 21, Stretch::Whole(None))]);
        got.clear();
        // Through the centre: outside, the surface, inside, the surface, outside.
        setup.row_stretches(Component::Ey, [10, 10], (-1, 21), &mut spans, |a, b, s| {
            got.push((a, b, s))
        });
        let kinds: Vec<Stretch> = got.iter().map(|g| g.2).collect();
        assert_eq!(
            kinds,
            [
                Stretch::Whole(None),
                Stretch::Search,
                Stretch::Whole(Some(0)),
                Stretch::Search,
                Stretch::Whole(None)
            ]
        );
    }
}
