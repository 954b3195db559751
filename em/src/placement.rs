//! Where geometry lands on the Yee lattice: the material of every field node.
//!
//! Cell `i` spans `[i, i+1)` (docs/scene.md, "Where geometry lands"), so a box `[lo, hi]`
//! with integer bounds is `hi − lo` cells long along each axis. Each component is placed at
//! its own node (Yee 1966; [`Component::position`]), at an integer coordinate along some axes
//! and a half-integer one along the others, and one rule serves all six:
//!
//! - a node strictly inside a shape takes the shape's material;
//! - a node exactly on its surface takes the mean of the materials on the two sides, along
//!   every axis whose face it lies on: the mean of 2 on a face, of 4 on an edge, of 8 on a
//!   corner ([`Material::mean`]), the edge averaging of cell-based codes (gprMax: Warren,
//!   Giannopoulos & Giannakis 2016, *Comput. Phys. Commun.* 209, 163–170). A sphere's or a
//!   cylinder's curved surface is two-sided along the axis of its normal's largest component;
//! - every other node keeps what lies under it.
//!
//! Each side is decided as regions always were: the last region holding it wins, else the
//! background. Along an axis, the integer nodes inside `[lo, hi]` then weigh `hi − lo` (two
//! halves and `hi − lo − 1` whole ones) and so do the half-integer ones, so every component
//! sees exactly `hi − lo` cells of material. Fractional bounds follow the same rule: a node
//! is in when it lies inside.
//!
//! Beyond the grid's low face (coordinate 0, the only face nodes lie on) a node's outer side
//! is its periodic image at the high face on a periodic axis, and otherwise the mirror of its
//! inner side, as PEC, PMC and the PEC-backed CPML see their images. Along an axis the mode
//! does not use there is nothing to average: the closed test applies, as before.
//!
//! The mask of inactive cells does not come through here: it asks [`Shape::contains`] at cell
//! centres.

use crate::candidates::Candidates;
use crate::material::{Material, PoleSet};
use crate::medium::NodeMedium;
use crate::setup::Setup;
use crate::yee::Component;
use yee_core::geometry::{Axis, Index3};

use crate::shape::Shape;

/// The most sides a node is split into: two along each of three axes.
pub const MAX_SIDES: usize = 8;

/// The material of one node as the regions holding its 1, 2, 4 or 8 sides (module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Placement {
    sides: [Option<usize>; MAX_SIDES],
    len: u8,
}

impl Placement {
    /// A node wholly held by `region` (`None`: the background).
    pub const fn whole(region: Option<usize>) -> Placement {
        Placement {
            sides: [region; MAX_SIDES],
            len: 1,
        }
    }

    /// The region holding each side (`None`: the background), 1, 2, 4 or 8 of them.
    pub fn sides(&self) -> &[Option<usize>] {
        &self.sides[..usize::from(self.len)]
    }

    /// True when the sides are held by more than one region.
    pub fn is_mixed(&self) -> bool {
        self.sides().iter().any(|&s| s != self.sides[0])
    }

    /// The fraction of the node held by `region` (`None`: the background).
    pub fn weight(&self, region: Option<usize>) -> f64 {
        let held = self.sides().iter().filter(|&&s| s == region).count();
        held as f64 / self.sides().len() as f64
    }

    /// The node's material in `setup` (whose regions this placement indexes): the mean of its
    /// sides' materials, summed in the order of their bit patterns so that equal mixes give
    /// equal bits whichever regions hold them; a node whose sides share one material gets it
    /// unchanged. A component along `axis` sees each side's material [`Material::along`] it;
    /// `None` averages the materials as they are (for outputs).
    pub fn material(&self, setup: &Setup, axis: Option<Axis>) -> Material {
        let material_of = |side: Option<usize>| {
            let m = side
                .and_then(|r| setup.regions.get(r))
                .map_or(setup.background, |r| r.material);
            axis.map_or(m, |a| m.along(a))
        };
        let mut parts = [(Material::VACUUM, 0u32); MAX_SIDES];
        let mut distinct = 0;
        for &side in self.sides() {
            let m = material_of(side);
            match parts[..distinct]
                .iter_mut()
                .find(|(p, _)| p.to_bits() == m.to_bits())
            {
                Some((_, n)) => *n += 1,
                None => {
                    parts[distinct] = (m, 1);
                    distinct += 1;
                }
            }
        }
        let parts = &mut parts[..distinct];
        parts.sort_unstable_by_key(|(m, _)| m.to_bits());
        Material::mean(parts).unwrap_or(setup.background)
    }

    /// The electric medium in `setup` of a node along `axis`: its [`Placement::material`] and
    /// the pole set of each side's material, weighed by the fraction of the node it holds
    /// (equal sets merged, in ascending order), so the node's ε(ω) is the mean of its sides'.
    pub fn medium(&self, setup: &Setup, axis: Axis) -> NodeMedium {
        let material = self.material(setup, Some(axis));
        let mut sets = [(PoleSet::NONE, 0u32); MAX_SIDES];
        let mut distinct = 0;
        for &side in self.sides() {
            let set = side
                .and_then(|r| setup.regions.get(r))
                .map_or(setup.background, |r| r.material)
                .poles;
            match sets[..distinct].iter_mut().find(|(s, _)| *s == set) {
                Some((_, n)) => *n += 1,
                None => {
                    sets[distinct] = (set, 1);
                    distinct += 1;
                }
            }
        }
        let sets = &mut sets[..distinct];
        sets.sort_unstable();
        let total = self.sides().len() as f64;
        let mut weighed = [(PoleSet::NONE, 0.0); MAX_SIDES];
        for (w, &(set, n)) in weighed.iter_mut().zip(sets.iter()) {
            *w = (set, f64::from(n) / total);
        }
        NodeMedium::from_sets(material, &weighed[..distinct])
    }
}

impl Setup<'_> {
    /// The placement of the node at continuous position `p` (module docs).
    pub fn placement(&self, p: [f64; 3]) -> Placement {
        self.placement_among(p, Candidates::All)
    }

    /// [`Setup::placement`] looking only at the `candidates` regions, which must include every
    /// region that holds a side of the node or has a surface through it (or its periodic image).
    pub fn placement_among(&self, p: [f64; 3], candidates: Candidates) -> Placement {
        let active = self.mode.active_axes();
        let n = self.regions.len();
        // On the low face of a periodic axis the node is also at the high face.
        let wraps: [bool; 3] =
            core::array::from_fn(|a| active[a] && p[a] == 0.0 && self.is_periodic(Axis::ALL[a]));
        if candidates.iter(n).next().is_none() && !wraps.contains(&true) {
            // What the search below finds with nothing to find: set-up of a vacuum grid.
            return Placement::whole(None);
        }
        let mut axes = wraps;
        for image in 0..8u8 {
            if (0..3).any(|a| image & (1 << a) != 0 && !wraps[a]) {
                continue;
            }
            let q = self.image(p, image);
            for r in candidates.iter(n) {
                let on = self.regions[r].shape.surface_axes(q);
                for a in 0..3 {
                    axes[a] |= on[a] && active[a];
                }
            }
        }
        if !axes.contains(&true) {
            return Placement::whole(self.last_holding(candidates, |shape| shape.contains(p)));
        }
        // Side k of the 2^n: bit b of k picks the low (0) or high (1) side along the b-th
        // sampled axis.
        let mut list = [0usize; 3];
        let mut n = 0;
        for a in (0..3).filter(|&a| axes[a]) {
            list[n] = a;
            n += 1;
        }
        let len = 1usize << n;
        let mut sides = [None; MAX_SIDES];
        for (k, side) in sides.iter_mut().take(len).enumerate() {
            let mut d = [0i8; 3];
            let mut image = 0u8;
            for (b, &a) in list[..n].iter().enumerate() {
                let mut sign = if k & (1 << b) == 0 { -1 } else { 1 };
                if sign < 0 && p[a] == 0.0 {
                    // Beyond the grid's low face: the periodic image, or the mirror.
                    if wraps[a] {
                        image |= 1 << a;
                    } else {
                        sign = 1;
                    }
                }
                d[a] = sign;
            }
            let q = self.image(p, image);
            *side = self.last_holding(candidates, |shape| shape.contains_toward(q, d));
        }
        Placement {
            sides,
            len: len as u8,
        }
    }

    /// The last of the `candidates` regions whose shape passes `test`: the region holding a
    /// point, the later winning.
    pub(crate) fn last_holding(
        &self,
        candidates: Candidates,
        test: impl Fn(&Shape) -> bool,
    ) -> Option<usize> {
        let n = self.regions.len();
        candidates
            .iter(n)
            .rev()
            .find(|&r| test(&self.regions[r].shape))
    }

    /// The placement of the node of component `c` in `cell`.
    pub fn node_placement(&self, c: Component, cell: Index3) -> Placement {
        self.placement(c.position(cell))
    }

    /// The material the node of component `c` in `cell` sees (module docs), smoothed where
    /// [`Setup::smoothed_medium`] smooths it.
    pub fn node_material(&self, c: Component, cell: Index3) -> Material {
        match self.smoothed_medium(c, cell) {
            Some(m) => m.material,
            None => self.node_placement(c, cell).material(self, Some(c.axis())),
        }
    }

    /// The electric medium (material and weighed poles) of the node of `c` in `cell`,
    /// smoothed where [`Setup::smoothed_medium`] smooths it.
    pub fn node_medium(&self, c: Component, cell: Index3) -> NodeMedium {
        match self.smoothed_medium(c, cell) {
            Some(m) => m,
            None => self.node_placement(c, cell).medium(self, c.axis()),
        }
    }

    /// `p` moved from the low to the high face along the axes whose bit `image` sets.
    fn image(&self, p: [f64; 3], image: u8) -> [f64; 3] {
        core::array::from_fn(|a| {
            if image & (1 << a) != 0 {
                self.grid[a] as f64
            } else {
                p[a]
            }
        })
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::setup::{Boundary, Region};
    use crate::shape::Shape;
    use crate::yee::Mode;

    const GLASS: Material = Material::dielectric(4.0);

    /// PEC walls around `regions` in vacuum, every other list empty.
    pub(crate) fn setup<'a>(mode: Mode, grid: [usize; 3], regions: &'a [Region]) -> Setup<'a> {
        Setup {
            regions,
            ..Setup::vacuum(mode, grid, 0.5, [[Boundary::Pec; 2]; 3])
        }
    }

    fn block(lo: [f64; 3], hi: [f64; 3], material: Material) -> Region {
        Region {
            shape: Shape::Block { lo, hi },
            material,
        }
    }

    #[test]
    fn faces_edges_and_corners_take_a_half_a_quarter_and_an_eighth() {
        let regions = [block([2.0; 3], [6.0; 3], GLASS)];
        let s = setup(Mode::ThreeD, [10; 3], &regions);
        let weight = |p| s.placement(p).weight(Some(0));
        assert_eq!(weight([2.0, 2.0, 2.0]), 0.125);
        assert_eq!(weight([6.0, 2.0, 3.0]), 0.25);
        assert_eq!(weight([2.0, 3.0, 3.5]), 0.5);
        assert_eq!(weight([3.0, 3.0, 3.0]), 1.0);
        assert_eq!(weight([1.0, 3.0, 3.0]), 0.0);
        assert_eq!(weight([6.5, 3.0, 3.0]), 0.0);
        let face = s.placement([2.0, 3.0, 3.0]);
        assert!(face.is_mixed());
        assert_eq!(face.material(&s, None), Material::dielectric(2.5));
        assert!(!s.placement([3.0, 3.0, 3.0]).is_mixed());
        assert_eq!(s.material_at([3.0, 3.0, 3.0]), GLASS);
    }

    #[test]
    fn a_shared_face_takes_both_regions_and_no_background() {
        let sand = Material::dielectric(3.0);
        let regions = [
            block([2.0; 3], [6.0; 3], GLASS),
            block([6.0, 2.0, 2.0], [9.0, 6.0, 6.0], sand),
        ];
        let s = setup(Mode::ThreeD, [12; 3], &regions);
        let p = s.placement([6.0, 4.0, 4.0]);
        assert_eq!((p.weight(Some(0)), p.weight(Some(1))), (0.5, 0.5));
        assert_eq!(p.material(&s, None), Material::dielectric(3.5));
        // A later region of the same material leaves the node whole, bit for bit.
        let same = [
            block([2.0; 3], [6.0; 3], GLASS),
            block([6.0, 2.0, 2.0], [9.0, 6.0, 6.0], GLASS),
        ];
        let s = setup(Mode::ThreeD, [12; 3], &same);
        assert_eq!(s.material_at([6.0, 4.0, 4.0]), GLASS);
    }

    #[test]
    fn a_zero_thickness_box_holds_no_node() {
        let regions = [block([4.0, 0.0, 0.0], [4.0, 9.0, 9.0], GLASS)];
        let s = setup(Mode::ThreeD, [10; 3], &regions);
        assert_eq!(s.placement([4.0, 3.0, 3.0]).weight(Some(0)), 0.0);
    }

    #[test]
    fn fractional_bounds_hold_the_nodes_inside() {
        // 1D: Ez at integer x, Hy at half-integer x.
        let regions = [block(
            [10.0, f64::NEG_INFINITY, f64::NEG_INFINITY],
            [69.999, f64::INFINITY, f64::INFINITY],
            GLASS,
        )];
        let s = setup(Mode::OneD, [100, 1, 1], &regions);
        let count = |c: Component| -> f64 {
            (0..100)
                .map(|i| s.node_placement(c, [i, 0, 0]).weight(Some(0)))
                .sum()
        };
        // Ez: half a node at 10, whole ones at 11..=69; Hy: 10.5..=69.5.
        assert_eq!(count(Component::Ez), 59.5);
        assert_eq!(count(Component::Hy), 60.0);
    }

    #[test]
    fn a_sphere_surface_node_takes_half() {
        let regions = [Region {
            shape: Shape::Sphere {
                center: [8.0, 8.0, 8.0],
                radius: 5.0,
            },
            material: GLASS,
        }];
        let s = setup(Mode::ThreeD, [16; 3], &regions);
        for p in [
            [13.0, 8.0, 8.0],
            [11.0, 12.0, 8.0],
            [8.0, 4.0, 5.0],
            [5.0, 8.0, 4.0],
        ] {
            assert_eq!(s.placement(p).weight(Some(0)), 0.5, "{p:?}");
        }
        assert_eq!(s.placement([12.0, 8.0, 8.0]).weight(Some(0)), 1.0);
        assert_eq!(s.placement([13.5, 8.0, 8.0]).weight(Some(0)), 0.0);
    }

    #[test]
    fn the_low_grid_face_mirrors_or_wraps() {
        let regions = [block(
            [0.0, f64::NEG_INFINITY, f64::NEG_INFINITY],
            [5.0, f64::INFINITY, f64::INFINITY],
            GLASS,
        )];
        let mut s = setup(Mode::OneD, [20, 1, 1], &regions);
        // A wall mirrors the inside: the node at 0 is wholly glass.
        assert_eq!(s.placement([0.0, 0.0, 0.5]).weight(Some(0)), 1.0);
        // A periodic axis wraps to the vacuum below 20.
        s.boundaries[0] = [Boundary::Periodic; 2];
        assert_eq!(s.placement([0.0, 0.0, 0.5]).weight(Some(0)), 0.5);
        // ... and a box reaching the high face covers the node at 0 from that side.
        let upper = [block(
            [15.0, f64::NEG_INFINITY, f64::NEG_INFINITY],
            [20.0, f64::INFINITY, f64::INFINITY],
            GLASS,
        )];
        let s = Setup {
            regions: &upper,
            ..s
        };
        assert_eq!(s.placement([0.0, 0.0, 0.5]).weight(Some(0)), 0.5);
        assert_eq!(s.placement([15.0, 0.0, 0.5]).weight(Some(0)), 0.5);
    }

    #[test]
    fn unused_axes_keep_the_closed_test() {
        // TEz: Ex sits at z = 0, on the face of a box from z = 0 to 1.
        let regions = [block([2.0, 2.0, 0.0], [6.0, 6.0, 1.0], GLASS)];
        let s = setup(Mode::Tez, [10, 10, 1], &regions);
        assert_eq!(
            s.node_placement(Component::Ex, [3, 3, 0]).weight(Some(0)),
            1.0
        );
        assert_eq!(
            s.node_placement(Component::Ex, [3, 2, 0]).weight(Some(0)),
            0.5
        );
    }
}
