//! Whether a set of boxes tiles a grid exactly: every box inside it, no cell in two boxes, no
//! cell in none. A checkpoint's rank files, a box layout and a tile set must all do so; this is
//! the one check they share.
//!
//! It allocates nothing and runs in O(n²) for n boxes: pairs for the overlaps; for a gap, the
//! search of [`first_gap`], which only looks at the planes, rows and cells where a box ends.

use crate::geometry::{Box3, Index3};

/// How a set of boxes fails to tile a grid. Indices are positions in the slice checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum TilingError {
    /// Box `index` reaches outside the grid.
    Outside {
        /// Its position in the slice.
        index: usize,
        /// The box.
        boxed: Box3,
    },
    /// Boxes `first` and `second` both hold the cells `cells`.
    Overlap {
        /// The earlier box's position.
        first: usize,
        /// The later box's position.
        second: usize,
        /// The cells both hold.
        cells: Box3,
    },
    /// `missing` cells of the grid are in no box; `cells` is a row of them along x (the first
    /// found, in z, y, x order of the planes, rows and cells where boxes end).
    Gap {
        /// How many cells no box holds.
        missing: usize,
        /// A run of them along x.
        cells: Box3,
    },
}

impl core::fmt::Display for TilingError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match *self {
            TilingError::Outside { index, boxed } => {
                write!(f, "box {index} ({}) reaches outside the grid", boxed)
            }
            TilingError::Overlap {
                first,
                second,
                cells,
            } => write!(
                f,
                "boxes {first} and {second} both hold the {} cells {}",
                cells.cells(),
                cells
            ),
            TilingError::Gap { missing, cells } => {
                write!(f, "{missing} cells are in no box, among them {}", cells)
            }
        }
    }
}

/// Checks that `boxes` tile the grid of extent `grid` exactly: each inside it (an empty box is
/// inside any), no two sharing a cell, and together holding every cell. The error names the
/// first box outside, the first pair that overlaps with the cells they share, or the cells no
/// box holds.
pub fn check_tiling(grid: [usize; 3], boxes: &[Box3]) -> Result<(), TilingError> {
    let whole = Box3::from_extent(grid);
    for (index, b) in boxes.iter().enumerate() {
        if !whole.contains_box(b) {
            return Err(TilingError::Outside { index, boxed: *b });
        }
    }
    // Every box is inside the grid, so no count below overflows.
    let mut held = 0usize;
    for (first, b) in boxes.iter().enumerate() {
        held += b.cells();
        for (second, o) in boxes.iter().enumerate().skip(first + 1) {
            let cells = b.intersect(o);
            if !cells.is_empty() {
                return Err(TilingError::Overlap {
                    first,
                    second,
                    cells,
                });
            }
        }
    }
    if held == whole.cells() {
        return Ok(());
    }
    let missing = whole.cells() - held;
    let cells = first_gap(whole, boxes).unwrap_or(Box3::new([0; 3], [0; 3]));
    Err(TilingError::Gap { missing, cells })
}

/// A run along x of cells of `whole` that no box of `boxes` (disjoint, inside `whole`) holds.
///
/// A missing cell slides down any axis, still missing, until it meets the grid's face or a
/// box's upper face: so some missing cell has every coordinate 0 or a box's `hi`. The search
/// takes the lowest such plane along z whose cells the boxes do not fill, the lowest such row
/// in it, then the lowest such cell.
fn first_gap(whole: Box3, boxes: &[Box3]) -> Option<Box3> {
    let mut region = whole;
    for axis in [2, 1, 0] {
        let mut best: Option<i64> = None;
        let candidates =
            core::iter::once(0).chain(boxes.iter().filter(|b| !b.is_empty()).map(|b| b.hi[axis]));
        for at in candidates {
            if at >= whole.hi[axis] || best.is_some_and(|b| b <= at) {
                continue;
            }
            let mut slab = region;
            slab.lo[axis] = at;
            slab.hi[axis] = at + 1;
            let held: usize = boxes.iter().map(|b| b.intersect(&slab).cells()).sum();
            if held < slab.cells() {
                best = Some(at);
            }
        }
        let at = best?;
        region.lo[axis] = at;
        region.hi[axis] = at + 1;
    }
    // `region` is one missing cell: run on along x while no box holds the next.
    let start: Index3 = region.lo;
    let mut end = start[0] + 1;
    while end < whole.hi[0] && !boxes.iter().any(|b| b.contains([end, start[1], start[2]])) {
        end += 1;
    }
    Some(Box3::new(start, [end, start[1] + 1, start[2] + 1]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn halves_tile_and_their_faults_are_named() {
        let grid = [4, 3, 2];
        let low = Box3::new([0, 0, 0], [2, 3, 2]);
        let high = Box3::new([2, 0, 0], [4, 3, 2]);
        let empty = Box3::new([9, 9, 9], [9, 9, 9]);
        assert_eq!(check_tiling(grid, &[low, empty, high]), Ok(()));
        assert_eq!(
            check_tiling(grid, &[low]),
            Err(TilingError::Gap {
                missing: 12,
                cells: Box3::new([2, 0, 0], [4, 1, 1]),
            })
        );
        assert_eq!(
            check_tiling(grid, &[low, low]),
            Err(TilingError::Overlap {
                first: 0,
                second: 1,
                cells: low,
            })
        );
        let outside = Box3::new([2, 0, 0], [5, 3, 2]);
        assert_eq!(
            check_tiling(grid, &[low, outside]),
            Err(TilingError::Outside {
                index: 1,
                boxed: outside
            })
        );
    }

    #[test]
    fn a_hole_in_the_middle_is_found() {
        // A 3×3×3 grid whose middle cell no box holds: 26 cells in 6 boxes.
        let boxes = [
            Box3::new([0, 0, 0], [3, 3, 1]),
            Box3::new([0, 0, 2], [3, 3, 3]),
            Box3::new([0, 0, 1], [3, 1, 2]),
            Box3::new([0, 2, 1], [3, 3, 2]),
            Box3::new([0, 1, 1], [1, 2, 2]),
            Box3::new([2, 1, 1], [3, 2, 2]),
        ];
        let error = check_tiling([3, 3, 3], &boxes).unwrap_err();
        assert_eq!(
            error,
            TilingError::Gap {
                missing: 1,
                cells: Box3::new([1, 1, 1], [2, 2, 2]),
            }
        );
        assert_eq!(
            std::format!("{error}"),
            "1 cells are in no box, among them x 1..2, y 1..2, z 1..2"
        );
    }
}
