//! The index maps and launch geometry the kernels and their callers share, as pure functions:
//! a field's storage box, the region a launch covers, the order key of the first non-finite
//! node, and the blocks a launch is cut into.

use core::ffi::c_longlong;

/// The box a field is stored over: its lowest corner and its extents (x fastest).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Storage {
    /// The lowest corner, in global coordinates.
    pub lo: [i64; 3],
    /// Cells along each axis.
    pub extent: [usize; 3],
}

impl Storage {
    /// Cells stored.
    pub fn cells(&self) -> usize {
        self.extent.iter().product()
    }

    /// Whether the box `[lo, hi)` lies inside.
    pub fn contains(&self, [lo, hi]: [[i64; 3]; 2]) -> bool {
        (0..3).all(|a| lo[a] >= self.lo[a] && hi[a] <= self.lo[a] + self.extent[a] as i64)
    }

    /// The storage offset of global position `p` (x fastest), if it is stored.
    pub fn offset(&self, p: [i64; 3]) -> Option<usize> {
        self.contains([p, p.map(|x| x + 1)]).then(|| {
            let [x, y, z] = core::array::from_fn(|a| (p[a] - self.lo[a]) as usize);
            x + self.extent[0] * (y + self.extent[1] * z)
        })
    }
}

/// The material ids of a component's nodes: one per node, or one every node shares (a
/// uniform medium: the kernel reads no id).
#[derive(Clone, Copy, Debug)]
pub enum Ids<'a> {
    /// One id per storage node.
    PerNode(&'a [u16]),
    /// The id of every node.
    Uniform(u16),
}

/// The nodes a launch covers and the box the field is stored over (`yee_region` in
/// `kernels/yee_cell.h`).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RawRegion {
    /// The lowest node updated.
    pub lo: [c_longlong; 3],
    /// One past the highest node updated.
    pub hi: [c_longlong; 3],
    /// The storage box's lowest corner.
    pub storage_lo: [c_longlong; 3],
    /// The storage box's extents.
    pub extent: [c_longlong; 3],
}

impl RawRegion {
    /// The nodes `[lo, hi)` of a field stored over `storage`.
    pub fn new([lo, hi]: [[i64; 3]; 2], storage: Storage) -> Self {
        RawRegion {
            lo,
            hi,
            storage_lo: storage.lo,
            extent: storage.extent.map(|x| x as c_longlong),
        }
    }
}

/// The key of a finite node (`YEE_FINITE_KEY`): larger than every node's.
pub const FINITE_KEY: u64 = u64::MAX;

/// The order key of `p` over a grid of extents `grid` (x fastest, `yee_order_key`): the
/// first non-finite node is the one with the smallest key.
pub fn order_key(p: [i64; 3], grid: [usize; 3]) -> u64 {
    (p[0] + grid[0] as i64 * (p[1] + grid[1] as i64 * p[2])) as u64
}

/// The node of an order key ([`order_key`]'s inverse).
pub fn cell_of_key(key: u64, grid: [usize; 3]) -> [i64; 3] {
    let [gx, gy] = [grid[0] as u64, grid[1] as u64];
    [key % gx, (key / gx) % gy, key / (gx * gy)].map(|x| x as i64)
}

/// Threads per block of a box launch: 128 along x (whole rows for coalesced reads) by 2
/// along y, the plain pair of kernels measured on an H100 (issue 17).
pub const BLOCK: [u32; 3] = [128, 2, 1];

/// Threads per block of a linear launch (box copies, reductions).
pub const LINEAR_BLOCK: u32 = 256;

/// The most blocks along each grid axis the CUDA launch takes.
pub const MAX_GRID: [u64; 3] = [(1 << 31) - 1, 65_535, 65_535];

/// The blocks and threads of one launch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Launch {
    /// Blocks along x, y, z.
    pub grid: [u32; 3],
    /// Threads per block along x, y, z.
    pub block: [u32; 3],
}

/// Why a launch cannot cover a box.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TooLarge {
    /// The axis whose block count is over [`MAX_GRID`].
    pub axis: usize,
    /// The blocks it would need.
    pub blocks: u64,
}

impl core::fmt::Display for TooLarge {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "a launch needs {} blocks along axis {}, more than CUDA's {}",
            self.blocks, self.axis, MAX_GRID[self.axis]
        )
    }
}

/// The launch giving one thread to each node of a box of `extent` nodes ([`BLOCK`]-sized
/// blocks; threads past the box return at once), or `None` for an empty box.
pub fn box_launch(extent: [usize; 3]) -> Result<Option<Launch>, TooLarge> {
    if extent.contains(&0) {
        return Ok(None);
    }
    let mut grid = [0u32; 3];
    for a in 0..3 {
        let blocks = (extent[a] as u64).div_ceil(u64::from(BLOCK[a]));
        if blocks > MAX_GRID[a] {
            return Err(TooLarge { axis: a, blocks });
        }
        grid[a] = blocks as u32;
    }
    Ok(Some(Launch { grid, block: BLOCK }))
}

/// The launch giving one thread to each of `n` values, or `None` when `n` is 0.
pub fn linear_launch(n: usize) -> Result<Option<Launch>, TooLarge> {
    if n == 0 {
        return Ok(None);
    }
    let blocks = (n as u64).div_ceil(u64::from(LINEAR_BLOCK));
    if blocks > MAX_GRID[0] {
        return Err(TooLarge { axis: 0, blocks });
    }
    Ok(Some(Launch {
        grid: [blocks as u32, 1, 1],
        block: [LINEAR_BLOCK, 1, 1],
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every node of the box gets exactly one thread: the threads of a launch, mapped as the
    /// kernels map them (block · size + thread, then the bounds test), cover each once.
    #[test]
    fn a_box_launch_covers_every_node_once() {
        for extent in [
            [1, 1, 1],
            [127, 3, 2],
            [128, 2, 1],
            [129, 5, 3],
            [300, 1, 1],
        ] {
            let l = box_launch(extent).unwrap().unwrap();
            let mut hits = vec![0u32; extent.iter().product()];
            for a in 0..3 {
                assert!(u64::from(l.grid[a] * l.block[a]) >= extent[a] as u64);
                assert!(u64::from((l.grid[a] - 1) * l.block[a]) < extent[a] as u64);
            }
            for z in 0..l.grid[2] * l.block[2] {
                for y in 0..l.grid[1] * l.block[1] {
                    for x in 0..l.grid[0] * l.block[0] {
                        let [x, y, z] = [x, y, z].map(|v| v as usize);
                        if x < extent[0] && y < extent[1] && z < extent[2] {
                            hits[x + extent[0] * (y + extent[1] * z)] += 1;
                        }
                    }
                }
            }
            assert!(hits.iter().all(|&h| h == 1), "{extent:?}");
        }
        assert_eq!(box_launch([0, 4, 4]), Ok(None));
        assert_eq!(
            box_launch([1, 1, 70_000]),
            Err(TooLarge {
                axis: 2,
                blocks: 70_000
            })
        );
    }

    #[test]
    fn a_linear_launch_covers_n_values() {
        assert_eq!(linear_launch(0), Ok(None));
        let l = linear_launch(1000).unwrap().unwrap();
        assert_eq!(l.grid, [4, 1, 1]);
        assert_eq!(linear_launch(256).unwrap().unwrap().grid, [1, 1, 1]);
    }

    #[test]
    fn order_keys_follow_x_fastest_order_and_invert() {
        let grid = [5, 4, 3];
        let mut last = None;
        for z in 0..3 {
            for y in 0..4 {
                for x in 0..5 {
                    let key = order_key([x, y, z], grid);
                    assert!(last.is_none_or(|l| key == l + 1));
                    assert_eq!(cell_of_key(key, grid), [x, y, z]);
                    last = Some(key);
                }
            }
        }
    }

    #[test]
    fn storage_offsets_are_x_fastest_and_none_outside() {
        let s = Storage {
            lo: [-1, -1, 0],
            extent: [4, 3, 2],
        };
        assert_eq!(s.offset([-1, -1, 0]), Some(0));
        assert_eq!(s.offset([0, -1, 0]), Some(1));
        assert_eq!(s.offset([-1, 0, 0]), Some(4));
        assert_eq!(s.offset([-1, -1, 1]), Some(12));
        assert_eq!(s.offset([3, 0, 0]), None);
        assert_eq!(s.offset([0, 0, -1]), None);
    }
}
