//! Chunks of a decomposed grid: per-axis borders, rank coordinates and neighbours.
//!
//! A layout cuts each axis at borders `0 = x₀ < x₁ < … < x_n = A` (caller-provided slices, so
//! the balancer can move them); rank `r` with coordinates `(i, j, l)` owns
//! `[x_i, x_{i+1}) × [y_j, y_{j+1}) × [z_l, z_{l+1})`. Ranks are numbered x fastest.

use crate::direction::Direction;
use crate::geometry::Box3;
use crate::topology::Topology;

/// Borders splitting `extent` cells into `parts` segments whose sizes differ by at most one:
/// `out[i] = ⌊i·extent/parts⌋` for `i = 0..=parts` (`out` holds `parts + 1` values).
pub fn uniform_borders(extent: usize, parts: usize, out: &mut [i64]) {
    for (i, b) in out.iter_mut().enumerate().take(parts + 1) {
        *b = (i as u128 * extent as u128 / parts as u128) as i64;
    }
}

/// Uniform borders of every axis of `grid` over `topology` (needs the `alloc` feature).
#[cfg(feature = "alloc")]
pub fn uniform_layout_borders(grid: [usize; 3], topology: Topology) -> [alloc::vec::Vec<i64>; 3] {
    core::array::from_fn(|a| {
        let mut b = alloc::vec![0; topology.0[a] + 1];
        uniform_borders(grid[a], topology.0[a], &mut b);
        b
    })
}

/// Coordinates of `rank` in `topology` (x fastest).
pub fn rank_coords(rank: usize, topology: Topology) -> [usize; 3] {
    let [n, m, _] = topology.0;
    [rank % n, (rank / n) % m, rank / (n * m)]
}

/// The rank at `coords` in `topology`.
pub fn rank_of(coords: [usize; 3], topology: Topology) -> usize {
    let [n, m, _] = topology.0;
    coords[0] + n * (coords[1] + m * coords[2])
}

/// A decomposition of a grid over a topology.
#[derive(Clone, Copy, Debug)]
pub struct Layout<'a> {
    /// Ranks along each axis.
    pub topology: Topology,
    /// Borders along each axis: `topology.0[a] + 1` increasing coordinates from 0 to the extent.
    pub borders: [&'a [i64]; 3],
    /// Axes that wrap around.
    pub periodic: [bool; 3],
}

impl Layout<'_> {
    /// The box rank `rank` owns.
    pub fn chunk_box(&self, rank: usize) -> Box3 {
        let c = rank_coords(rank, self.topology);
        Box3 {
            lo: core::array::from_fn(|a| self.borders[a][c[a]]),
            hi: core::array::from_fn(|a| self.borders[a][c[a] + 1]),
        }
    }

    /// Width of line `i` along axis `a` (0 for a disabled line).
    pub fn width(&self, a: usize, i: usize) -> i64 {
        self.borders[a][i + 1] - self.borders[a][i]
    }

    /// The rank beside `rank` in direction `dir`, skipping disabled (zero-width) lines and
    /// wrapping periodic axes; `None` past a non-periodic face and for a disabled rank. A rank
    /// alone along a periodic axis is its own neighbour.
    pub fn neighbour(&self, rank: usize, dir: Direction) -> Option<usize> {
        let c = rank_coords(rank, self.topology);
        if (0..3).any(|a| self.width(a, c[a]) == 0) {
            return None;
        }
        let mut out = [0usize; 3];
        for a in 0..3 {
            let n = self.topology.0[a] as i64;
            let step = dir.0[a] as i64;
            let mut x = c[a] as i64;
            if step != 0 {
                // At most n moves reach every line once.
                let mut found = false;
                for _ in 0..n {
                    x += step;
                    if x < 0 || x >= n {
                        if !self.periodic[a] {
                            return None;
                        }
                        x = x.rem_euclid(n);
                    }
                    if self.width(a, x as usize) > 0 {
                        found = true;
                        break;
                    }
                }
                if !found {
                    return None;
                }
            }
            out[a] = x as usize;
        }
        Some(rank_of(out, self.topology))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uniform_borders_differ_by_at_most_one() {
        let mut b = [0i64; 7];
        uniform_borders(37, 6, &mut b);
        assert_eq!(b, [0, 6, 12, 18, 24, 30, 37]);
    }

    #[test]
    fn neighbours_wrap_only_on_periodic_axes() {
        let (mut x, mut y, z) = ([0i64; 4], [0i64; 3], [0i64, 5]);
        uniform_borders(30, 3, &mut x);
        uniform_borders(20, 2, &mut y);
        let layout = Layout {
            topology: Topology([3, 2, 1]),
            borders: [&x, &y, &z],
            periodic: [true, false, false],
        };
        assert_eq!(layout.chunk_box(4), Box3::new([10, 10, 0], [20, 20, 5]));
        assert_eq!(layout.neighbour(0, Direction([-1, 0, 0])), Some(2));
        assert_eq!(layout.neighbour(0, Direction([0, -1, 0])), None);
        assert_eq!(layout.neighbour(0, Direction([1, 1, 0])), Some(4));
        assert_eq!(rank_of(rank_coords(5, layout.topology), layout.topology), 5);
    }

    #[test]
    fn disabled_lines_are_skipped() {
        let (x, y, z) = ([0i64, 4, 4, 9, 12], [0i64, 6], [0i64, 1]);
        let layout = Layout {
            topology: Topology([4, 1, 1]),
            borders: [&x, &y, &z],
            periodic: [false; 3],
        };
        assert_eq!(layout.neighbour(0, Direction([1, 0, 0])), Some(2));
        assert_eq!(layout.neighbour(2, Direction([-1, 0, 0])), Some(0));
        assert_eq!(layout.neighbour(1, Direction([1, 0, 0])), None);
        let periodic = Layout {
            periodic: [true, false, false],
            ..layout
        };
        assert_eq!(periodic.neighbour(0, Direction([-1, 0, 0])), Some(3));
    }
}
