//! Whether a set of boxes tiles a grid exactly: every box inside it, no cell in two boxes, and
//! every cell that must be held — all of them, or the active ones of a masked grid — in one.
//! A checkpoint's rank files, a box layout and a tile set must all do so; this is the one
//! check they share.
//!
//! It allocates nothing. The overlaps take O(n²) for n boxes; the cells no box holds are
//! counted and found plane by plane, row by row, in O(cells + (nx + ny + nz) · n) with a mask
//! and O((nx + ny + nz) · n) without.

use crate::geometry::Box3;

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
    /// `missing` cells that must be held are in no box; `cells` is a run of them along x,
    /// the first in z, y, x order.
    Gap {
        /// How many cells that must be held no box holds.
        missing: usize,
        /// A run of them along x.
        cells: Box3,
    },
}

#[cfg(feature = "alloc")]
impl TilingError {
    /// The error in words, each box named by `owner(position)` (the rank or the file that
    /// holds it), the missing cells said by `missing` ("active cells are in no rank file").
    pub fn describe(
        &self,
        owner: impl Fn(usize) -> alloc::string::String,
        missing_said: &str,
    ) -> alloc::string::String {
        match *self {
            TilingError::Outside { index, boxed } => {
                alloc::format!("{} holds the box {boxed}, outside the grid", owner(index))
            }
            TilingError::Overlap {
                first,
                second,
                cells,
            } => alloc::format!(
                "{} and {} both hold the {} cells {cells}",
                owner(first),
                owner(second),
                cells.cells()
            ),
            TilingError::Gap { missing, cells } => {
                alloc::format!("{missing} {missing_said}, among them {cells}")
            }
        }
    }
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
/// inside any), no two sharing a cell, and together holding every cell — or, with `active`
/// (one value per cell, x fastest), every active cell (inactive ones may be held or not: a
/// tile set leaves tiles with no active cell to no one). The error names the first box
/// outside, the first pair that overlaps with the cells they share, or the cells that must be
/// held and are not.
///
/// `active`, when given, holds one value per cell of `grid` (a shorter mask counts the cells
/// past its end as inactive).
pub fn check_tiling(
    grid: [usize; 3],
    boxes: &[Box3],
    active: Option<&[bool]>,
) -> Result<(), TilingError> {
    let whole = Box3::from_extent(grid);
    for (index, b) in boxes.iter().enumerate() {
        if !whole.contains_box(b) {
            return Err(TilingError::Outside { index, boxed: *b });
        }
    }
    for (first, b) in boxes.iter().enumerate() {
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
    // Every box is inside the grid and none overlaps, so no count below overflows.
    let needed = |region: &Box3| match active {
        None => region.cells(),
        Some(mask) => count_active(whole, mask, region),
    };
    let held =
        |region: &Box3| -> usize { boxes.iter().map(|b| needed(&b.intersect(region))).sum() };
    let missing = needed(&whole) - held(&whole);
    if missing == 0 {
        return Ok(());
    }
    // Narrow down to the lowest plane along z, then row along y, then cell along x, that
    // holds a cell that must be held and is not.
    let mut region = whole;
    for axis in [2, 1, 0] {
        let slab = |at: i64| {
            let mut s = region;
            s.lo[axis] = at;
            s.hi[axis] = at + 1;
            s
        };
        let Some(at) = (region.lo[axis]..region.hi[axis]).find(|&at| {
            let s = slab(at);
            held(&s) < needed(&s)
        }) else {
            break;
        };
        region = slab(at);
    }
    // Run on along x while the next cell must be held and is not.
    let mut cells = region;
    loop {
        let next = Box3::new(
            [cells.hi[0], cells.lo[1], cells.lo[2]],
            [cells.hi[0] + 1, cells.hi[1], cells.hi[2]],
        );
        if next.hi[0] > whole.hi[0] || needed(&next) == 0 || held(&next) > 0 {
            break;
        }
        cells.hi[0] += 1;
    }
    Err(TilingError::Gap { missing, cells })
}

/// Active cells of `region` (inside `whole`, which starts at the origin) by `mask`.
fn count_active(whole: Box3, mask: &[bool], region: &Box3) -> usize {
    if region.is_empty() {
        return 0;
    }
    let [nx, ny, _] = whole.extent();
    let mut count = 0;
    for z in region.lo[2]..region.hi[2] {
        for y in region.lo[1]..region.hi[1] {
            let row = (z as usize * ny + y as usize) * nx;
            let from = (row + region.lo[0] as usize).min(mask.len());
            let to = (row + region.hi[0] as usize).min(mask.len());
            count += mask[from..to].iter().filter(|&&a| a).count();
        }
    }
    count
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
        assert_eq!(check_tiling(grid, &[low, empty, high], None), Ok(()));
        assert_eq!(
            check_tiling(grid, &[low], None),
            Err(TilingError::Gap {
                missing: 12,
                cells: Box3::new([2, 0, 0], [4, 1, 1]),
            })
        );
        assert_eq!(
            check_tiling(grid, &[low, low], None),
            Err(TilingError::Overlap {
                first: 0,
                second: 1,
                cells: low,
            })
        );
        let outside = Box3::new([2, 0, 0], [5, 3, 2]);
        assert_eq!(
            check_tiling(grid, &[low, outside], None),
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
        let error = check_tiling([3, 3, 3], &boxes, None).unwrap_err();
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

    #[test]
    fn with_a_mask_only_the_active_cells_must_be_held() {
        let grid = [4, 1, 1];
        let first = Box3::new([0, 0, 0], [1, 1, 1]);
        let two = Box3::new([0, 0, 0], [2, 1, 1]);
        // Inactive cells may be held or not.
        let mask = [true, true, false, false];
        assert_eq!(check_tiling(grid, &[two], Some(&mask)), Ok(()));
        let all = Box3::from_extent(grid);
        assert_eq!(check_tiling(grid, &[all], Some(&mask)), Ok(()));
        assert_eq!(
            check_tiling(grid, &[first], Some(&mask)),
            Err(TilingError::Gap {
                missing: 1,
                cells: Box3::new([1, 0, 0], [2, 1, 1]),
            })
        );
        // The run of missing cells starts at the first active one.
        let mask = [true, false, true, true];
        assert_eq!(
            check_tiling(grid, &[first], Some(&mask)),
            Err(TilingError::Gap {
                missing: 2,
                cells: Box3::new([2, 0, 0], [4, 1, 1]),
            })
        );
    }
}
