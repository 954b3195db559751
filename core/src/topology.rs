//! Virtual topologies and the choice of the best one (Balykov 2017, §2.1–2.3).
//!
//! A topology splits the grid into `n × m × k` chunks (1D-X … 3D-XYZ). Share time per step is
//! proportional to the share surface of a chunk, eq. (2) in 2D and eq. (5) in 3D. Written in
//! the chunk sizes `a₁ = a/n`, `b₁ = b/m`, `c₁ = c/k` these are
//! `f = a₁ + b₁` (2D) and `f = a₁b₁ + b₁c₁ + a₁c₁ + 4(a₁ + b₁ + c₁)` (3D).
//! The paper only treats sizes the rank counts divide; yee accepts any grid and evaluates `f`
//! on the largest chunk (ceiling sizes), and takes the true minimum over every factorisation
//! `n·m·k = N` instead of the paper's search around `n₀` (eqs. (3), (6)).

use core::fmt;

/// A virtual topology: ranks along x, y and z (1 on axes the grid does not use).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Topology(pub [usize; 3]);

/// A feasible topology and its share surface.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Candidate {
    /// The topology.
    pub topology: Topology,
    /// Its share-surface objective, eq. (2) or (5).
    pub f: f64,
}

/// Why no topology fits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum TopologyError {
    /// Zero ranks.
    NoRanks,
    /// Every factorisation leaves some chunk narrower than the stencil's reach.
    TooNarrow {
        /// The grid.
        grid: [usize; 3],
        /// Ranks asked for.
        ranks: usize,
        /// The minimum chunk width.
        min_width: usize,
    },
    /// A requested topology does not multiply to the rank count.
    WrongProduct {
        /// The topology.
        topology: [usize; 3],
        /// Ranks.
        ranks: usize,
    },
    /// A requested topology splits an axis the grid does not use.
    UnusedAxis {
        /// The topology.
        topology: [usize; 3],
        /// The axis index.
        axis: usize,
    },
    /// A requested topology leaves a chunk narrower than the reach along `axis`.
    ChunkTooNarrow {
        /// The topology.
        topology: [usize; 3],
        /// The axis index.
        axis: usize,
        /// Narrowest chunk along it.
        width: usize,
        /// The minimum.
        min_width: usize,
    },
}

impl fmt::Display for TopologyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const AXES: [&str; 3] = ["x", "y", "z"];
        match *self {
            TopologyError::NoRanks => write!(f, "the number of ranks must be at least 1"),
            TopologyError::TooNarrow {
                grid,
                ranks,
                min_width,
            } => write!(
                f,
                "a grid of {}×{}×{} cells cannot be split into {ranks} chunks at least {min_width} cell(s) wide",
                grid[0], grid[1], grid[2]
            ),
            TopologyError::WrongProduct { topology: t, ranks } => {
                write!(
                    f,
                    "topology {}x{}x{} has {} ranks, not {ranks}",
                    t[0],
                    t[1],
                    t[2],
                    t[0] * t[1] * t[2]
                )
            }
            TopologyError::UnusedAxis { topology: t, axis } => write!(
                f,
                "topology {}x{}x{} splits the {} axis, which this grid does not use",
                t[0], t[1], t[2], AXES[axis]
            ),
            TopologyError::ChunkTooNarrow {
                topology: t,
                axis,
                width,
                min_width,
            } => write!(
                f,
                "topology {}x{}x{} leaves chunks {width} cell(s) wide along {}, narrower than the stencil's reach {min_width}",
                t[0], t[1], t[2], AXES[axis]
            ),
        }
    }
}

impl core::error::Error for TopologyError {}

impl Topology {
    /// Number of ranks.
    pub fn ranks(&self) -> usize {
        self.0.iter().product()
    }

    /// The paper's name: "1D-X", "2D-XY", "3D-XYZ", … for a grid of `dims` dimensions.
    pub fn name(&self, dims: usize) -> heapless::String<8> {
        let mut s = heapless::String::new();
        let _ = s.push(char::from(b'0' + dims as u8));
        let _ = s.push_str("D-");
        let mut any = false;
        for (a, letter) in ['X', 'Y', 'Z'].into_iter().enumerate() {
            if self.0[a] > 1 {
                let _ = s.push(letter);
                any = true;
            }
        }
        if !any {
            let _ = s.push('X');
        }
        s
    }
}

/// The largest chunk extent along each axis (ceiling division).
pub fn largest_chunk(grid: [usize; 3], topology: Topology) -> [usize; 3] {
    core::array::from_fn(|a| grid[a].div_ceil(topology.0[a].max(1)))
}

/// The share surface f of the largest chunk: eq. (2) (`a₁ + b₁`) for 2D, eq. (5)
/// (`a₁b₁ + b₁c₁ + a₁c₁ + 4(a₁ + b₁ + c₁)`) for 3D, and 1 (one point per border) for 1D.
pub fn share_surface(grid: [usize; 3], dims: usize, topology: Topology) -> f64 {
    let [a1, b1, c1] = largest_chunk(grid, topology).map(|x| x as f64);
    match dims {
        1 => 1.0,
        2 => a1 + b1,
        _ => a1 * b1 + b1 * c1 + a1 * c1 + 4.0 * (a1 + b1 + c1),
    }
}

/// Checks that `topology` splits `grid` (of `dims` dimensions) into `ranks` chunks each at
/// least `min_width` wide along every split axis.
pub fn check_topology(
    grid: [usize; 3],
    dims: usize,
    ranks: usize,
    topology: Topology,
    min_width: usize,
) -> Result<(), TopologyError> {
    let t = topology.0;
    if t.iter().product::<usize>() != ranks {
        return Err(TopologyError::WrongProduct { topology: t, ranks });
    }
    for a in 0..3 {
        if a >= dims && t[a] != 1 {
            return Err(TopologyError::UnusedAxis {
                topology: t,
                axis: a,
            });
        }
        let width = grid[a] / t[a].max(1);
        if t[a] == 0 || (a < dims && width < min_width.max(1)) {
            return Err(TopologyError::ChunkTooNarrow {
                topology: t,
                axis: a,
                width,
                min_width,
            });
        }
    }
    Ok(())
}

/// Calls `visit` with every feasible topology of `ranks` over a grid of `dims` dimensions, in
/// the order n descending, then m descending.
pub fn for_each_candidate(
    grid: [usize; 3],
    dims: usize,
    ranks: usize,
    min_width: usize,
    mut visit: impl FnMut(Candidate),
) {
    for n in (1..=ranks).rev().filter(|n| ranks % n == 0) {
        let rest = ranks / n;
        for m in (1..=rest).rev().filter(|m| rest % m == 0) {
            let t = Topology([n, m, rest / m]);
            if check_topology(grid, dims, ranks, t, min_width).is_ok() {
                visit(Candidate {
                    topology: t,
                    f: share_surface(grid, dims, t),
                });
            }
        }
    }
}

/// Writes the feasible candidates into `out` (as many as fit) and returns how many exist.
pub fn candidates(
    grid: [usize; 3],
    dims: usize,
    ranks: usize,
    min_width: usize,
    out: &mut [Candidate],
) -> usize {
    let mut count = 0;
    for_each_candidate(grid, dims, ranks, min_width, |c| {
        if let Some(slot) = out.get_mut(count) {
            *slot = c;
        }
        count += 1;
    });
    count
}

/// The topology with the smallest share surface; ties go to the last in
/// [`for_each_candidate`] order (more ranks along the last axis): x is the fastest index in
/// memory, so cutting across z (or y in 2D) leaves whole rows to every rank and makes the halos
/// contiguous planes, which pack and update fastest (docs/mpi.md measures it).
pub fn choose_topology(
    grid: [usize; 3],
    dims: usize,
    ranks: usize,
    min_width: usize,
) -> Result<Candidate, TopologyError> {
    if ranks == 0 {
        return Err(TopologyError::NoRanks);
    }
    let mut best: Option<Candidate> = None;
    for_each_candidate(grid, dims, ranks, min_width, |c| {
        if best.is_none_or(|b| c.f <= b.f) {
            best = Some(c);
        }
    });
    let best = best.ok_or(TopologyError::TooNarrow {
        grid,
        ranks,
        min_width,
    })?;
    log::debug!(
        "topology {:?} chosen for {grid:?} on {ranks} ranks (f = {})",
        best.topology.0,
        best.f
    );
    Ok(best)
}

/// The smallest rank count whose memory holds the grid (Balykov 2017, eqs. (8)–(11)):
/// `N_s = k₁·cells / (S − k₃ − k₂·P)` with `P = a + b` in 2D (`ab + bc + ac` in 3D, `1` in 1D)
/// bounding the chunk surface for any topology, and `N₀ = ⌈N_s⌉` (the paper takes the first
/// divisor of `ab` above `N_s`; yee splits any grid, so any count will do). `None` when even
/// the surface term exceeds the memory `S` of one node.
pub fn ranks_by_memory(
    grid: [usize; 3],
    dims: usize,
    k1: f64,
    k2: f64,
    k3: f64,
    memory: f64,
) -> Option<usize> {
    let [a, b, c] = grid.map(|x| x as f64);
    let cells = a * b * c;
    let surface = match dims {
        1 => 1.0,
        2 => a + b,
        _ => a * b + b * c + a * c,
    };
    let room = memory - k3 - k2 * surface;
    (room > 0.0).then(|| libm_ceil(k1 * cells / room).max(1.0) as usize)
}

fn libm_ceil(x: f64) -> f64 {
    num_traits::Float::ceil(x)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert_eq!(Topology([2, 2, 1]).name(2).as_str(), "2D-XY");
        assert_eq!(Topology([1, 1, 8]).name(3).as_str(), "3D-Z");
        assert_eq!(Topology([1, 1, 1]).name(1).as_str(), "1D-X");
    }

    #[test]
    fn ranks_by_memory_by_hand() {
        // 2D 1000×1000, 8 bytes × 3 components per cell, 1e6 bytes per node, no overhead:
        // N_s = 24e6 / (1e6 − 0 − 16·2000) = 24.79… → 25.
        assert_eq!(
            ranks_by_memory([1000, 1000, 1], 2, 24.0, 16.0, 0.0, 1e6),
            Some(25)
        );
        assert_eq!(
            ranks_by_memory([1000, 1000, 1], 2, 24.0, 16.0, 0.0, 1e3),
            None
        );
    }

    #[test]
    fn uneven_grids_use_the_largest_chunk() {
        // 37×29×23 on 6 ranks: 3×2×1 gives chunks up to 13×15×23.
        let f = share_surface([37, 29, 23], 3, Topology([3, 2, 1]));
        assert_eq!(
            f,
            13.0 * 15.0 + 15.0 * 23.0 + 13.0 * 23.0 + 4.0 * (13.0 + 15.0 + 23.0)
        );
    }

    #[test]
    fn ties_go_to_the_last_axis() {
        // A cube ties for every 1D cut, a square for both: the cut is across z (y in 2D).
        let cube = choose_topology([160, 160, 160], 3, 2, 1).unwrap();
        assert_eq!(cube.topology, Topology([1, 1, 2]));
        let square = choose_topology([200, 200, 1], 2, 2, 1).unwrap();
        assert_eq!(square.topology, Topology([1, 2, 1]));
        // No tie: the longest axis is cut.
        let long = choose_topology([64, 48, 32], 3, 2, 1).unwrap();
        assert_eq!(long.topology, Topology([2, 1, 1]));
    }
}
