//! Geometric shapes that place materials, in continuous grid coordinates (cell size 1).
//!
//! Two tests answer "is this point in the shape". [`Shape::contains`] is closed (a point on the
//! surface counts as inside): the mask of inactive cells asks it at cell centres. The material
//! placement of the Yee nodes ([`crate::placement`]) tells the two sides of a surface apart
//! instead: [`Shape::surface_axes`] says along which axes a node lies on the surface, and
//! [`Shape::contains_toward`] whether the points just beside it, on a chosen side along each of
//! those axes, are inside.

use core::f64::consts::PI;
// Float gives f64 its math in a pure no_std build; when std is linked anywhere in the
// build, f64's inherent methods win and the import goes unused.
#[allow(unused_imports)]
use num_traits::Float;

use yee_core::geometry::Axis;

/// A solid region of space.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Shape {
    /// Everything: fills the whole grid.
    Everywhere,
    /// The axis-aligned box `lo ≤ p ≤ hi`.
    Block {
        /// Lower corner.
        lo: [f64; 3],
        /// Upper corner.
        hi: [f64; 3],
    },
    /// The ball `|p − center| ≤ radius`.
    Sphere {
        /// Centre.
        center: [f64; 3],
        /// Radius.
        radius: f64,
    },
    /// A circular cylinder along `axis`: within `radius` of the axis line through `center` and
    /// within `length / 2` of `center` along it (an infinite length reaches through the grid).
    Cylinder {
        /// Centre.
        center: [f64; 3],
        /// Radius.
        radius: f64,
        /// Direction of the cylinder's axis.
        axis: Axis,
        /// Length along the axis.
        length: f64,
    },
}

impl Shape {
    /// True when `p` lies in the closed shape (a point on the surface counts as inside).
    pub fn contains(&self, p: [f64; 3]) -> bool {
        match *self {
            Shape::Everywhere => true,
            Shape::Block { lo, hi } => (0..3).all(|a| lo[a] <= p[a] && p[a] <= hi[a]),
            Shape::Sphere { center, radius } => {
                distance_squared(p, center, None) <= radius * radius
            }
            Shape::Cylinder {
                center,
                radius,
                axis,
                length,
            } => {
                let a = axis.index();
                distance_squared(p, center, Some(a)) <= radius * radius
                    && (p[a] - center[a]).abs() <= length / 2.0
            }
        }
    }

    /// The axes along which `p` lies on the surface, where its two sides must be told apart:
    /// for a box the axes of the faces through `p`; for a sphere the axis of the largest
    /// component of the outward normal at `p` (the first of equals); for a cylinder that of its
    /// curved side, and its own axis on a cap. None when `p` lies outside the closed shape or
    /// strictly inside it.
    pub fn surface_axes(&self, p: [f64; 3]) -> [bool; 3] {
        let mut axes = [false; 3];
        if !self.contains(p) {
            return axes;
        }
        match *self {
            Shape::Everywhere => {}
            Shape::Block { lo, hi } => {
                for a in 0..3 {
                    axes[a] = p[a] == lo[a] || p[a] == hi[a];
                }
            }
            Shape::Sphere { center, radius } => {
                if let Some(a) = round_surface_axis(p, center, radius, None) {
                    axes[a] = true;
                }
            }
            Shape::Cylinder {
                center,
                radius,
                axis,
                length,
            } => {
                let a = axis.index();
                if let Some(b) = round_surface_axis(p, center, radius, Some(a)) {
                    axes[b] = true;
                }
                let (lo, hi) = cylinder_span(center[a], length);
                axes[a] = p[a] == lo || p[a] == hi;
            }
        }
        axes
    }

    /// True when the points `p + δ·d` lie in the shape for every small enough δ > 0, where each
    /// `d[a]` is −1, 0 or +1: the side of the surface that `d` points to, along the axes of
    /// [`Shape::surface_axes`]. `d[a] = 0` keeps the closed test along `a`, so
    /// `contains_toward(p, [0; 3])` equals `contains(p)`. A round surface is told apart along
    /// its surface axis alone: the side its outward normal points to is outside. A shape of
    /// zero thickness (`lo = hi`, a zero radius or length) has no inside on either side.
    pub fn contains_toward(&self, p: [f64; 3], d: [i8; 3]) -> bool {
        match *self {
            Shape::Everywhere => true,
            Shape::Block { lo, hi } => (0..3).all(|a| interval_toward(lo[a], hi[a], p[a], d[a])),
            Shape::Sphere { center, radius } => round_toward(p, d, center, radius, None),
            Shape::Cylinder {
                center,
                radius,
                axis,
                length,
            } => {
                let a = axis.index();
                let (lo, hi) = cylinder_span(center[a], length);
                round_toward(p, d, center, radius, Some(a)) && interval_toward(lo, hi, p[a], d[a])
            }
        }
    }

    /// Where the line of points `(x, y, z)`, x free, passes the shape ([`LineSpan`]): outside
    /// `near` the shape does not hold a point, nor has it on its surface, nor has a curved
    /// surface within `margin` of it; inside `deep` it holds the point, not on its surface, with
    /// no curved surface within `margin`. Neither the placement nor the smoothing can tell such
    /// a point from its neighbours (the set-up places them a stretch at a time,
    /// [`crate::row_placement`]).
    pub fn along_x(&self, y: f64, z: f64, margin: f64) -> LineSpan {
        let (q, m) = ([0.0, y, z], margin);
        // A box is three slabs, a cylinder its round part and one slab: a point near both
        // pieces' intersection is near each, and one deep inside each is deep inside the
        // intersection. A flat face needs no margin: it splits only the nodes exactly on it,
        // and smoothing leaves it to the staircase rule whatever voxel it crosses
        // (`crate::smoothing`), so its `near` is the closed slab and its `deep` the open one.
        let slab = |a: usize, lo: f64, hi: f64| match a {
            0 => LineSpan {
                near: [lo, hi],
                deep: [lo, hi],
            },
            _ => LineSpan::whole(lo <= q[a] && q[a] <= hi, lo < q[a] && q[a] < hi),
        };
        match *self {
            Shape::Everywhere => LineSpan::whole(true, true),
            Shape::Block { lo, hi } => (1..3).fold(slab(0, lo[0], hi[0]), |line, a| {
                line.and(slab(a, lo[a], hi[a]))
            }),
            Shape::Sphere { center, radius } => {
                chord(center[0], distance_squared(q, center, Some(0)), radius, m)
            }
            Shape::Cylinder {
                center,
                radius,
                axis,
                length,
            } => {
                let a = axis.index();
                let (lo, hi) = cylinder_span(center[a], length);
                let round = match a {
                    // Along x the line keeps its distance from the axis.
                    0 => {
                        let d2 = distance_squared(q, center, Some(0));
                        let (out, inner) = (radius + m, radius - m);
                        LineSpan::whole(d2 <= out * out, inner > 0.0 && d2 < inner * inner)
                    }
                    // Along y or z it crosses the disc at its height.
                    _ => {
                        let d = q[3 - a] - center[3 - a];
                        chord(center[0], d * d, radius, m)
                    }
                };
                round.and(slab(a, lo, hi))
            }
        }
    }

    /// The smallest axis-aligned box `[lo, hi]` holding the shape (infinite for
    /// [`Shape::Everywhere`] and along an infinite cylinder).
    pub fn bounds(&self) -> ([f64; 3], [f64; 3]) {
        match *self {
            Shape::Everywhere => ([f64::NEG_INFINITY; 3], [f64::INFINITY; 3]),
            Shape::Block { lo, hi } => (lo, hi),
            Shape::Sphere { center, radius } => {
                (center.map(|c| c - radius), center.map(|c| c + radius))
            }
            Shape::Cylinder {
                center,
                radius,
                axis,
                length,
            } => {
                let a = axis.index();
                let (mut lo, mut hi) = (center.map(|c| c - radius), center.map(|c| c + radius));
                (lo[a], hi[a]) = cylinder_span(center[a], length);
                (lo, hi)
            }
        }
    }

    /// The shape's measure over the `used` axes, in cells: its length in 1D, its area in a 2D
    /// plane, its volume in 3D, the unused axes taken as reaching through (a box's extent along
    /// them does not count). `None` when its section by the grid's line or plane is not one of
    /// these figures (a sphere outside 3D, a cylinder lying in a 2D plane).
    pub fn measure(&self, used: [bool; 3]) -> Option<f64> {
        let dims = used.iter().filter(|&&u| u).count() as i32;
        match *self {
            Shape::Everywhere => Some(f64::INFINITY),
            Shape::Block { lo, hi } => {
                Some((0..3).filter(|&a| used[a]).map(|a| hi[a] - lo[a]).product())
            }
            Shape::Sphere { radius, .. } => (dims == 3).then(|| 4.0 / 3.0 * PI * radius.powi(3)),
            Shape::Cylinder {
                radius,
                axis,
                length,
                ..
            } => {
                let disc = PI * radius * radius;
                let radial = (0..3).filter(|&b| b != axis.index()).all(|b| used[b]);
                match (radial, used[axis.index()]) {
                    (true, true) => Some(disc * length),
                    (true, false) => Some(disc),
                    _ => None,
                }
            }
        }
    }

    /// Name of the first invalid parameter, if any (non-finite, negative radius, lo > hi).
    pub fn invalid_parameter(&self) -> Option<&'static str> {
        let finite = |v: &[f64]| v.iter().all(|x| x.is_finite());
        match *self {
            Shape::Everywhere => None,
            // Infinite bounds are fine: a 2D box reaches through z.
            Shape::Block { lo, hi } => {
                if lo.iter().any(|x| x.is_nan()) {
                    Some("lo")
                } else if hi.iter().any(|x| x.is_nan()) || (0..3).any(|a| hi[a] < lo[a]) {
                    Some("hi")
                } else {
                    None
                }
            }
            Shape::Sphere { center, radius } => {
                if !finite(&center) {
                    Some("center")
                } else if !radius.is_finite() || radius < 0.0 {
                    Some("radius")
                } else {
                    None
                }
            }
            Shape::Cylinder {
                center,
                radius,
                length,
                ..
            } => {
                if !finite(&center) {
                    Some("center")
                } else if !radius.is_finite() || radius < 0.0 {
                    Some("radius")
                } else if length.is_nan() || length < 0.0 {
                    Some("length")
                } else {
                    None
                }
            }
        }
    }
}

/// Where a line along x passes a shape, from [`Shape::along_x`]: outside the closed interval
/// `near = [lo, hi]` the line's points are clear of the shape, inside the open interval
/// `deep = (lo, hi)` deep within it. An empty interval has `lo > hi`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LineSpan {
    /// The closed interval outside which the points are clear of the shape.
    pub near: [f64; 2],
    /// The open interval of points deep inside the shape.
    pub deep: [f64; 2],
}

/// An empty interval.
const EMPTY: [f64; 2] = [f64::INFINITY, f64::NEG_INFINITY];

/// The whole line.
const ALL: [f64; 2] = [f64::NEG_INFINITY, f64::INFINITY];

impl LineSpan {
    /// The whole line or none of it, for `near` and `deep` alike.
    fn whole(near: bool, deep: bool) -> LineSpan {
        let all_or_none = |b: bool| if b { ALL } else { EMPTY };
        LineSpan {
            near: all_or_none(near),
            deep: all_or_none(deep),
        }
    }

    /// The line past the intersection of two shapes, from the line past each.
    fn and(self, other: LineSpan) -> LineSpan {
        let both = |a: [f64; 2], b: [f64; 2]| [a[0].max(b[0]), a[1].min(b[1])];
        LineSpan {
            near: both(self.near, other.near),
            deep: both(self.deep, other.deep),
        }
    }
}

/// The line through a ball of `radius` (or a disc) whose centre is at x = `c` and `d2` away
/// from the line squared: `near` within `margin` outside the surface, `deep` more than
/// `margin` inside.
fn chord(c: f64, d2: f64, radius: f64, margin: f64) -> LineSpan {
    let (out, inner) = (radius + margin, radius - margin);
    let half = |r: f64| (r * r - d2).sqrt();
    LineSpan {
        near: if d2 <= out * out {
            [c - half(out), c + half(out)]
        } else {
            EMPTY
        },
        deep: if inner > 0.0 && d2 < inner * inner {
            [c - half(inner), c + half(inner)]
        } else {
            EMPTY
        },
    }
}

/// The span `[c − length/2, c + length/2]` of a cylinder along its axis.
fn cylinder_span(c: f64, length: f64) -> (f64, f64) {
    (c - length / 2.0, c + length / 2.0)
}

/// `x + δ·d` in the interval `[lo, hi]` for every small δ > 0 (the closed test when `d = 0`).
fn interval_toward(lo: f64, hi: f64, x: f64, d: i8) -> bool {
    if lo < x && x < hi {
        return true;
    }
    let on_face = x == lo || x == hi;
    on_face
        && match d.signum() {
            0 => true,
            1 => x < hi,
            _ => x > lo,
        }
}

/// Squared distance of `p` from `center` over the axes other than `skip`.
fn distance_squared(p: [f64; 3], center: [f64; 3], skip: Option<usize>) -> f64 {
    (0..3)
        .filter(|&b| Some(b) != skip)
        .map(|b| (p[b] - center[b]) * (p[b] - center[b]))
        .sum()
}

/// The surface axis of `p` on the round surface at `radius` from `center` (over the axes other
/// than `skip`): the axis of the largest component of the normal, the first of equals.
fn round_surface_axis(
    p: [f64; 3],
    center: [f64; 3],
    radius: f64,
    skip: Option<usize>,
) -> Option<usize> {
    if distance_squared(p, center, skip) != radius * radius {
        return None;
    }
    (0..3)
        .filter(|&b| Some(b) != skip)
        .fold(None, |best: Option<usize>, b| match best {
            Some(a) if (p[a] - center[a]).abs() >= (p[b] - center[b]).abs() => Some(a),
            _ => Some(b),
        })
}

/// [`Shape::contains_toward`] for the round part of a sphere or cylinder.
fn round_toward(
    p: [f64; 3],
    d: [i8; 3],
    center: [f64; 3],
    radius: f64,
    skip: Option<usize>,
) -> bool {
    let (d2, r2) = (distance_squared(p, center, skip), radius * radius);
    if d2 != r2 {
        return d2 < r2;
    }
    match round_surface_axis(p, center, radius, skip) {
        Some(s) if d[s] != 0 => (p[s] - center[s]) * f64::from(d[s]) < 0.0,
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn containment() {
        let s = Shape::Sphere {
            center: [5.0, 5.0, 5.0],
            radius: 2.0,
        };
        assert!(s.contains([6.0, 6.0, 5.0]));
        assert!(!s.contains([7.5, 5.0, 5.0]));
        let c = Shape::Cylinder {
            center: [5.0, 5.0, 0.0],
            radius: 1.0,
            axis: Axis::Z,
            length: f64::INFINITY,
        };
        assert!(c.contains([5.5, 5.5, 100.0]));
        assert!(!c.contains([6.5, 5.0, 0.0]));
    }

    #[test]
    fn sides_of_a_box_face() {
        let b = Shape::Block {
            lo: [1.0, 1.0, 1.0],
            hi: [3.0, 3.0, 3.0],
        };
        let p = [1.0, 2.0, 3.0];
        assert_eq!(b.surface_axes(p), [true, false, true]);
        assert!(b.contains_toward(p, [1, 0, -1]));
        assert!(!b.contains_toward(p, [-1, 0, -1]));
        assert!(!b.contains_toward(p, [1, 0, 1]));
        assert_eq!(b.surface_axes([2.0, 2.0, 2.0]), [false; 3]);
        assert_eq!(b.surface_axes([0.0, 1.0, 2.0]), [false; 3]);
    }

    #[test]
    fn sides_of_round_surfaces() {
        let s = Shape::Sphere {
            center: [0.0; 3],
            radius: 5.0,
        };
        // The normal (3, −4, 0)/5 is largest along y.
        let p = [3.0, -4.0, 0.0];
        assert_eq!(s.surface_axes(p), [false, true, false]);
        assert!(s.contains_toward(p, [0, 1, 0]));
        assert!(!s.contains_toward(p, [0, -1, 0]));
        let c = Shape::Cylinder {
            center: [0.0; 3],
            radius: 5.0,
            axis: Axis::Z,
            length: 4.0,
        };
        // On the rim: the curved side along x, the cap along z.
        let p = [5.0, 0.0, 2.0];
        assert_eq!(c.surface_axes(p), [true, false, true]);
        assert!(c.contains_toward(p, [-1, 0, -1]));
        assert!(!c.contains_toward(p, [-1, 0, 1]));
        assert!(!c.contains_toward(p, [1, 0, -1]));
        // A zero radius holds nothing, even its centre.
        let dot = Shape::Sphere {
            center: [2.0; 3],
            radius: 0.0,
        };
        assert!(!dot.contains_toward([2.0; 3], [1, 0, 0]));
        assert!(!dot.contains_toward([2.0; 3], [-1, 0, 0]));
    }

    #[test]
    fn no_direction_is_the_closed_test() {
        let shapes = [
            Shape::Block {
                lo: [1.0, 1.5, 0.0],
                hi: [3.0, 3.0, 3.0],
            },
            Shape::Sphere {
                center: [2.0, 2.0, 2.0],
                radius: 1.0,
            },
            Shape::Cylinder {
                center: [2.0, 2.0, 2.0],
                radius: 1.0,
                axis: Axis::Y,
                length: 2.0,
            },
        ];
        for s in shapes {
            for n in 0..7 * 7 * 7 {
                let p = [n % 7, (n / 7) % 7, n / 49].map(|i| f64::from(i) * 0.5);
                assert_eq!(s.contains_toward(p, [0; 3]), s.contains(p), "{s:?} {p:?}");
            }
        }
    }

    #[test]
    fn measures() {
        let b = Shape::Block {
            lo: [1.0, 2.0, f64::NEG_INFINITY],
            hi: [4.0, 7.0, f64::INFINITY],
        };
        assert_eq!(b.measure([true, true, false]), Some(15.0));
        let s = Shape::Sphere {
            center: [0.0; 3],
            radius: 3.0,
        };
        assert!((s.measure([true; 3]).unwrap() - 36.0 * PI).abs() < 1e-12);
        assert_eq!(s.measure([true, true, false]), None);
        let c = Shape::Cylinder {
            center: [0.0; 3],
            radius: 2.0,
            axis: Axis::Z,
            length: f64::INFINITY,
        };
        assert_eq!(c.measure([true, true, false]), Some(4.0 * PI));
        assert_eq!(c.bounds().0, [-2.0, -2.0, f64::NEG_INFINITY]);
    }
}
