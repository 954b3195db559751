//! Geometric shapes that place materials, in continuous grid coordinates (cell size 1).

use crate::geometry::Axis;

/// A solid region of space. A point on the surface counts as inside.
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
    /// True when `p` lies in the shape.
    pub fn contains(&self, p: [f64; 3]) -> bool {
        match *self {
            Shape::Everywhere => true,
            Shape::Block { lo, hi } => (0..3).all(|a| lo[a] <= p[a] && p[a] <= hi[a]),
            Shape::Sphere { center, radius } => {
                let d2: f64 = (0..3)
                    .map(|a| (p[a] - center[a]) * (p[a] - center[a]))
                    .sum();
                d2 <= radius * radius
            }
            Shape::Cylinder {
                center,
                radius,
                axis,
                length,
            } => {
                let a = axis.index();
                let d2: f64 = (0..3)
                    .filter(|&b| b != a)
                    .map(|b| (p[b] - center[b]) * (p[b] - center[b]))
                    .sum();
                d2 <= radius * radius && (p[a] - center[a]).abs() <= length / 2.0
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
}
