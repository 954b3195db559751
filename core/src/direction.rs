//! Share directions: the neighbours a chunk exchanges halos with.
//!
//! A direction is an offset in {−1, 0, 1}³ other than 0, restricted to the active axes of the
//! grid: 2 directions in 1D, 8 in 2D and 26 in 3D (Balykov 2017, §2: faces, edges and corners).

use crate::geometry::Axis;

/// The largest number of share directions (3D: 6 faces, 12 edges, 8 corners).
pub const MAX_DIRECTIONS: usize = 26;

/// A neighbour offset, each component −1, 0 or +1, not all zero.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Direction(pub [i8; 3]);

/// The share directions of a grid, at most 26.
pub type Directions = heapless::Vec<Direction, MAX_DIRECTIONS>;

impl Direction {
    /// The face direction along `axis`, toward the high side when `positive`.
    pub const fn face(axis: Axis, positive: bool) -> Direction {
        let mut d = [0i8; 3];
        d[axis.index()] = if positive { 1 } else { -1 };
        Direction(d)
    }

    /// The direction pointing the other way.
    pub const fn opposite(self) -> Direction {
        Direction([-self.0[0], -self.0[1], -self.0[2]])
    }

    /// Number of non-zero components: 1 for a face, 2 for an edge, 3 for a corner.
    pub fn order(self) -> usize {
        self.0.iter().filter(|&&c| c != 0).count()
    }

    /// The axis of a face direction, `None` for edges and corners.
    pub fn face_axis(self) -> Option<Axis> {
        if self.order() == 1 {
            (0..3).find(|&a| self.0[a] != 0).map(Axis::from_index)
        } else {
            None
        }
    }

    /// A short name such as "+x", "-y+z" or "+x+y+z".
    pub fn name(self) -> heapless::String<9> {
        let mut s = heapless::String::new();
        for a in 0..3 {
            let sign = match self.0[a] {
                1 => "+",
                -1 => "-",
                _ => continue,
            };
            // Capacity 9 holds the longest name, "+x+y+z".
            let _ = s.push_str(sign);
            let _ = s.push_str(Axis::from_index(a).name());
        }
        s
    }
}

/// All share directions of a grid whose active axes are `active` (collapsed axes have no
/// neighbours), in a fixed order: z slowest, then y, then x, each from −1 to +1.
pub fn share_directions(active: [bool; 3]) -> Directions {
    let mut out = Directions::new();
    let range = |a: usize| if active[a] { -1i8..=1 } else { 0i8..=0 };
    for dz in range(2) {
        for dy in range(1) {
            for dx in range(0) {
                if (dx, dy, dz) != (0, 0, 0) {
                    // At most 26 offsets exist, the capacity of `Directions`.
                    let _ = out.push(Direction([dx, dy, dz]));
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_match_the_paper() {
        assert_eq!(share_directions([true, false, false]).len(), 2);
        assert_eq!(share_directions([true, true, false]).len(), 8);
        assert_eq!(share_directions([true, true, true]).len(), 26);
    }

    #[test]
    fn every_direction_has_its_opposite() {
        let dirs = share_directions([true, true, true]);
        for d in &dirs {
            assert!(dirs.contains(&d.opposite()));
            assert_ne!(*d, d.opposite());
        }
        assert_eq!(Direction([1, -1, 1]).name().as_str(), "+x-y+z");
    }
}
