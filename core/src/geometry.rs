//! Grid indices, axes and half-open boxes.
//!
//! Every grid is three-dimensional: a 1D grid is `[nx, 1, 1]` and a 2D grid `[nx, ny, 1]`.
//! Cell `(i, j, k)` spans `[i, i+1) × [j, j+1) × [k, k+1)` in normalised units (cell size 1).

/// A cell index in global grid coordinates. Signed, so ghost cells below 0 have an index.
pub type Index3 = [i64; 3];

/// One of the three coordinate axes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Axis {
    /// The x axis (fastest-varying in memory).
    X = 0,
    /// The y axis.
    Y = 1,
    /// The z axis.
    Z = 2,
}

impl Axis {
    /// All three axes in order.
    pub const ALL: [Axis; 3] = [Axis::X, Axis::Y, Axis::Z];

    /// 0 for x, 1 for y, 2 for z.
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The axis with the given index (0, 1 or 2).
    ///
    /// # Panics
    /// If `i > 2`; callers pass loop indices over `0..3`.
    pub const fn from_index(i: usize) -> Axis {
        match i {
            0 => Axis::X,
            1 => Axis::Y,
            2 => Axis::Z,
            _ => panic!("axis index out of range"),
        }
    }

    /// The next axis in cyclic order (x → y → z → x).
    pub const fn next(self) -> Axis {
        Axis::from_index((self.index() + 1) % 3)
    }

    /// Lower-case name: "x", "y" or "z".
    pub const fn name(self) -> &'static str {
        match self {
            Axis::X => "x",
            Axis::Y => "y",
            Axis::Z => "z",
        }
    }
}

/// The low or high end of an axis.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Side {
    /// The face at coordinate 0.
    Low = 0,
    /// The face at coordinate `n`.
    High = 1,
}

impl Side {
    /// Both sides, low first.
    pub const BOTH: [Side; 2] = [Side::Low, Side::High];

    /// 0 for low, 1 for high.
    pub const fn index(self) -> usize {
        self as usize
    }

    /// "low" or "high".
    pub const fn name(self) -> &'static str {
        match self {
            Side::Low => "low",
            Side::High => "high",
        }
    }
}

/// A half-open box of cells `lo ≤ p < hi` on every axis.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Box3 {
    /// Inclusive lower corner.
    pub lo: Index3,
    /// Exclusive upper corner.
    pub hi: Index3,
}

/// `x LO..HI, y LO..HI, z LO..HI`: the cells of the box along each axis, `HI` exclusive.
impl core::fmt::Display for Box3 {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let Box3 { lo, hi } = self;
        write!(
            f,
            "x {}..{}, y {}..{}, z {}..{}",
            lo[0], hi[0], lo[1], hi[1], lo[2], hi[2]
        )
    }
}

impl Box3 {
    /// The box `lo ≤ p < hi`.
    pub const fn new(lo: Index3, hi: Index3) -> Self {
        Box3 { lo, hi }
    }

    /// The box from the origin with the given extent.
    pub fn from_extent(extent: [usize; 3]) -> Self {
        Box3 {
            lo: [0; 3],
            hi: [extent[0] as i64, extent[1] as i64, extent[2] as i64],
        }
    }

    /// Cells along each axis (0 where the box is empty along it).
    #[inline]
    pub fn extent(&self) -> [usize; 3] {
        core::array::from_fn(|a| (self.hi[a] - self.lo[a]).max(0) as usize)
    }

    /// Number of cells in the box.
    #[inline]
    pub fn cells(&self) -> usize {
        let e = self.extent();
        e[0] * e[1] * e[2]
    }

    /// True when the box holds no cell.
    pub fn is_empty(&self) -> bool {
        (0..3).any(|a| self.hi[a] <= self.lo[a])
    }

    /// True when `p` lies inside the box.
    #[inline]
    pub fn contains(&self, p: Index3) -> bool {
        (0..3).all(|a| self.lo[a] <= p[a] && p[a] < self.hi[a])
    }

    /// True when `other` lies inside this box (an empty box lies in every box).
    pub fn contains_box(&self, other: &Box3) -> bool {
        other.is_empty() || (0..3).all(|a| self.lo[a] <= other.lo[a] && other.hi[a] <= self.hi[a])
    }

    /// The common part of two boxes (possibly empty).
    pub fn intersect(&self, other: &Box3) -> Box3 {
        Box3 {
            lo: core::array::from_fn(|a| self.lo[a].max(other.lo[a])),
            hi: core::array::from_fn(|a| self.hi[a].min(other.hi[a])),
        }
    }

    /// The smallest box holding both (for bounding boxes of tiles; both should be non-empty).
    pub fn hull(&self, other: &Box3) -> Box3 {
        Box3 {
            lo: core::array::from_fn(|a| self.lo[a].min(other.lo[a])),
            hi: core::array::from_fn(|a| self.hi[a].max(other.hi[a])),
        }
    }

    /// The bounding box of `boxes`, empty at the origin when there are none.
    pub fn bounding(boxes: impl IntoIterator<Item = Box3>) -> Box3 {
        boxes
            .into_iter()
            .reduce(|a, b| a.hull(&b))
            .unwrap_or(Box3::new([0; 3], [0; 3]))
    }

    /// The box grown by `by[a]` cells on both sides of axis `a` (shrunk where negative).
    pub fn grow(&self, by: [i64; 3]) -> Box3 {
        Box3 {
            lo: core::array::from_fn(|a| self.lo[a] - by[a]),
            hi: core::array::from_fn(|a| self.hi[a] + by[a]),
        }
    }

    /// The box with its `side` end along `axis` replaced by `value`.
    pub fn with_bound(&self, axis: Axis, side: Side, value: i64) -> Box3 {
        let mut b = *self;
        match side {
            Side::Low => b.lo[axis.index()] = value,
            Side::High => b.hi[axis.index()] = value,
        }
        b
    }

    /// Position of `p` in an x-fastest array laid out over this box.
    ///
    /// `p` must lie in the box (checked in debug builds).
    #[inline]
    pub fn linear_index(&self, p: Index3) -> usize {
        debug_assert!(self.contains(p), "{p:?} outside {self:?}");
        let e = self.extent();
        let x = (p[0] - self.lo[0]) as usize;
        let y = (p[1] - self.lo[1]) as usize;
        let z = (p[2] - self.lo[2]) as usize;
        (z * e[1] + y) * e[0] + x
    }

    /// Distance in memory between neighbours along each axis in an x-fastest array over this box.
    #[inline]
    pub fn strides(&self) -> [usize; 3] {
        let e = self.extent();
        [1, e[0], e[0] * e[1]]
    }

    /// The cell at linear position `n` of an x-fastest array over this box.
    #[inline]
    pub fn index_at(&self, n: usize) -> Index3 {
        let e = self.extent();
        let x = n % e[0];
        let y = (n / e[0]) % e[1];
        let z = n / (e[0] * e[1]);
        [
            self.lo[0] + x as i64,
            self.lo[1] + y as i64,
            self.lo[2] + z as i64,
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linear_index_round_trips() {
        let b = Box3::new([-1, 2, 0], [4, 5, 3]);
        for n in 0..b.cells() {
            assert_eq!(b.linear_index(b.index_at(n)), n);
        }

        assert_eq!(b.strides(), [1, 5, 15]);
    }

    #[test]
    fn intersection_of_disjoint_boxes_is_empty() {
        let a = Box3::new([0, 0, 0], [2, 2, 2]);
        let b = Box3::new([2, 0, 0], [4, 2, 2]);
        assert!(a.intersect(&b).is_empty());
        assert_eq!(a.intersect(&b).cells(), 0);
        assert!(a.contains_box(&a.intersect(&b)));
    }
}
