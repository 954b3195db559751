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

use crate::candidates::Candidates;
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
pub enum Stretch<'r> {
    /// Every node wholly in this region (`None`: the background), unsmoothed.
    Whole(Option<usize>),
    /// Each node needs the search ([`Setup::placement_among`],
    /// [`Setup::smoothed_medium_among`]), among these regions.
    Search(Candidates<'r>),
}

/// Where one region's shape leaves a row's nodes: those outside `reach_lo..reach_hi` are more
/// than [`MARGIN`] outside its bounding box (it holds none of them and reaches none of their
/// voxels), those before `near_lo` and from `near_hi` on are clear of it, those in
/// `deep_lo..deep_hi` deep inside it, the rest near its surface.
#[derive(Clone, Copy, Debug)]
pub struct RegionStretches {
    region: usize,
    reach_lo: i64,
    near_lo: i64,
    deep_lo: i64,
    deep_hi: i64,
    near_hi: i64,
    reach_hi: i64,
}

/// What [`Setup::row_stretches`] keeps between rows: each region's stretches of the row, and
/// the regions a stretch to search looks at.
#[derive(Clone, Debug, Default)]
pub struct RowScratch {
    spans: Vec<RegionStretches>,
    candidates: Vec<usize>,
}

impl Setup<'_> {
    /// Cuts the nodes `from..to` of component `c`'s storage row at (`y`, `z`) into stretches
    /// placed alike, in ascending x, and hands each to `each(start, end, stretch)`. `scratch`
    /// is kept by the caller across rows (no allocation per row once it has grown).
    pub fn row_stretches(
        &self,
        c: Component,
        [y, z]: [i64; 2],
        (from, to): (i64, i64),
        scratch: &mut RowScratch,
        mut each: impl FnMut(i64, i64, Stretch),
    ) {
        let p = c.position([0, y, z]);
        let on_periodic_face = |a: Axis| self.is_periodic(a) && p[a.index()] == 0.0;
        if from >= to {
            return;
        }
        if on_periodic_face(Axis::Y) || on_periodic_face(Axis::Z) {
            each(from, to, Stretch::Search(Candidates::All));
            return;
        }
        // x's node on the low face of a periodic x axis: searched on its own, among all.
        let wrapped = on_periodic_face(Axis::X) && (from..to).contains(&0);
        // The node index of position `v` along x, rounded with `round`, within `from..=to`.
        let (lo, hi) = ((from - 1) as f64, (to + 1) as f64);
        let node = |v: f64, round: fn(f64) -> f64| -> i64 {
            (round((v - p[0]).clamp(lo, hi)) as i64).clamp(from, to)
        };
        // Nodes at or after `v` (⌊v⌋ + 1, for a position strictly above `v`).
        let after = |v: f64| node(v, Float::floor).saturating_add(1).min(to);
        let RowScratch { spans, candidates } = scratch;
        spans.clear();
        for (region, r) in self.regions.iter().enumerate() {
            let (b_lo, b_hi) = r.shape.bounds();
            let reaches = |a: usize| b_lo[a] - MARGIN <= p[a] && p[a] <= b_hi[a] + MARGIN;
            if !(reaches(1) && reaches(2)) {
                continue;
            }
            let (reach_lo, reach_hi) =
                (node(b_lo[0] - MARGIN, Float::ceil), after(b_hi[0] + MARGIN));
            let line = r.shape.along_x(p[1], p[2], MARGIN);
            // Clear: x < near[0] (nodes below ⌈near[0]⌉) and x > near[1].
            let (near_lo, near_hi) = if line.near[0] <= line.near[1] {
                let near_lo = node(line.near[0], Float::ceil).max(reach_lo);
                (
                    near_lo,
                    after(line.near[1]).clamp(near_lo, reach_hi.max(near_lo)),
                )
            } else {
                (reach_lo, reach_lo)
            };
            // Deep: deep[0] < x < deep[1].
            let (deep_lo, deep_hi) = if line.deep[0] <= line.deep[1] {
                let deep_lo = after(line.deep[0]);
                (deep_lo, node(line.deep[1], Float::ceil).max(deep_lo))
            } else {
                (near_lo, near_lo)
            };
            spans.push(RegionStretches {
                region,
                reach_lo,
                near_lo,
                deep_lo: deep_lo.clamp(near_lo, near_hi),
                deep_hi: deep_hi.clamp(near_lo, near_hi),
                near_hi,
                reach_hi: reach_hi.max(near_hi),
            });
        }
        let mut x = from;
        let mut held: Option<(i64, i64, Option<usize>)> = None;
        while x < to {
            let mut end = to;
            let mut all = false;
            if wrapped {
                if x == 0 {
                    end = 1;
                    all = true;
                } else if x < 0 {
                    end = 0;
                }
            }
            let (mut whole, mut search) = (None, all);
            candidates.clear();
            for s in spans.iter() {
                if x < s.reach_lo {
                    end = end.min(s.reach_lo);
                    continue;
                }
                if x >= s.reach_hi {
                    continue;
                }
                candidates.push(s.region);
                let next = match x {
                    x if x < s.near_lo => s.near_lo,
                    x if x < s.deep_lo => {
                        search = true;
                        s.deep_lo
                    }
                    x if x < s.deep_hi => {
                        whole = Some(s.region);
                        s.deep_hi
                    }
                    x if x < s.near_hi => {
                        search = true;
                        s.near_hi
                    }
                    _ => s.reach_hi,
                };
                end = end.min(next);
            }
            // Whole stretches of one region in a row are handed on as one.
            match (search, all) {
                (false, _) => match &mut held {
                    Some((_, held_end, region)) if *region == whole => *held_end = end,
                    _ => {
                        if let Some((a, b, region)) = held.take() {
                            each(a, b, Stretch::Whole(region));
                        }
                        held = Some((x, end, whole));
                    }
                },
                (true, all) => {
                    if let Some((a, b, region)) = held.take() {
                        each(a, b, Stretch::Whole(region));
                    }
                    let candidates = match all {
                        true => Candidates::All,
                        false => Candidates::Only(&candidates[..]),
                    };
                    each(x, end, Stretch::Search(candidates));
                }
            }
            x = end;
        }
        if let Some((a, b, region)) = held {
            each(a, b, Stretch::Whole(region));
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
    /// tile each row in ascending order, every node of a stretch placed whole is placed so by
    /// the search ([`Setup::node_placement`]) and not smoothed, and every node of a stretch to
    /// search is placed and smoothed among its candidates as among all regions. Returns how
    /// many nodes were placed whole. The unit tests and the cargo-fuzz target `row_placement`
    /// call it.
    pub fn verify_row_stretches(&self) -> Result<usize, StretchError> {
        let mut spans = RowScratch::default();
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
                        let region = match stretch {
                            Stretch::Whole(region) => region,
                            Stretch::Search(candidates) => {
                                for x in a..b {
                                    let (cell, p) = ([x, y, z], c.position([x, y, z]));
                                    if self.placement_among(p, candidates) != self.placement(p) {
                                        error = Some(fail(x, "its candidates place it otherwise"));
                                        return;
                                    }
                                    let among = self.smoothed_medium_among(c, cell, candidates);
                                    if among != self.smoothed_medium(c, cell) {
                                        error = Some(fail(x, "its candidates smooth it otherwise"));
                                        return;
                                    }
                                }
                                return;
                            }
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
        let mut spans = RowScratch::default();
        setup.row_stretches(Component::Ex, [2, 2], (-1, 21), &mut spans, |a, b, s| {
            got.push((a, b, s == Stretch::Whole(None)))
        });
        assert_eq!(got, [(-1, 21, true)]);
        got.clear();
        // Through the centre: outside, the surface, inside, the surface, outside.
        // Each stretch as (the region of a whole one, the candidates of one to search).
        let mut kinds = Vec::new();
        setup.row_stretches(Component::Ey, [10, 10], (-1, 21), &mut spans, |_, _, s| {
            kinds.push(match s {
                Stretch::Whole(region) => (Some(region), Vec::new()),
                Stretch::Search(Candidates::Only(c)) => (None, c.to_vec()),
                Stretch::Search(Candidates::All) => (None, Vec::from([usize::MAX])),
            })
        });
        let (search, whole) = ((None, Vec::from([0])), |r| (Some(r), Vec::new()));
        assert_eq!(
            kinds,
            [
                whole(None),
                search.clone(),
                whole(Some(0)),
                search,
                whole(None)
            ]
        );
    }
}
