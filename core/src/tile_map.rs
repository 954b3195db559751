//! Which rank owns which tile of a masked grid (Smyk & Tudruj 2011: a rank executes a macro
//! node, i.e. a set of tiles, instead of one box), and the halo layers two ranks exchange.

use alloc::vec::Vec;

use crate::geometry::{Box3, Index3};
use crate::graph::TileGraph;

/// Why a tile map cannot be built.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TileMapError {
    /// The part list does not have one entry per node of the tile graph.
    PartsLength {
        /// Nodes of the graph.
        nodes: usize,
        /// Entries given.
        parts: usize,
    },
    /// A part number is not below the rank count.
    PartOutOfRange {
        /// The tile graph node.
        node: usize,
        /// Its part.
        part: usize,
        /// Ranks.
        ranks: usize,
    },
    /// A rank owns no tile.
    IdleRank {
        /// The rank.
        rank: usize,
    },
}

impl core::fmt::Display for TileMapError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match *self {
            TileMapError::PartsLength { nodes, parts } => {
                write!(f, "{parts} part numbers for a graph of {nodes} tiles")
            }
            TileMapError::PartOutOfRange { node, part, ranks } => {
                write!(
                    f,
                    "tile node {node} is in part {part}, but there are {ranks} ranks"
                )
            }
            TileMapError::IdleRank { rank } => write!(f, "rank {rank} owns no tile"),
        }
    }
}

/// The grid cut into tiles, each owned by one rank or by none (no active cell).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TileMap {
    /// Grid extent in cells.
    pub grid: [usize; 3],
    /// Tile extent in cells (the last tile of an axis may be shorter).
    pub tile: [usize; 3],
    /// Tiles per axis.
    pub tiles: [usize; 3],
    /// The owner of each tile (linear tile index, x fastest), `None` for tiles with no active
    /// cell: nobody computes them.
    pub owner: Vec<Option<usize>>,
    /// Number of ranks.
    pub ranks: usize,
}

impl TileMap {
    /// The map giving node `n` of `graph` to rank `part[n]`, for `ranks` ranks that each own
    /// at least one tile. A tile whose pieces (see [`TileGraph`]) lie in different parts goes
    /// whole to the part of its largest piece, unless a part would then own no tile: it takes
    /// one of its tiles from an owner that keeps another.
    pub fn new(graph: &TileGraph, part: &[usize], ranks: usize) -> Result<TileMap, TileMapError> {
        let nodes = graph.tile_of.len();
        if part.len() != nodes {
            return Err(TileMapError::PartsLength {
                nodes,
                parts: part.len(),
            });
        }
        let mut owner = alloc::vec![None; graph.tiles.iter().product()];
        // Cells of the piece that gave each tile its owner: a tile is executed whole, so when
        // its pieces lie in different parts, the part of its largest piece (the first on a
        // tie) computes it (the fields are the same whoever does).
        let mut largest = alloc::vec![0usize; owner.len()];
        let mut owns = alloc::vec![false; ranks];
        for (node, (&t, &p)) in graph.tile_of.iter().zip(part).enumerate() {
            if p >= ranks {
                return Err(TileMapError::PartOutOfRange {
                    node,
                    part: p,
                    ranks,
                });
            }
            if graph.cells[node] > largest[t] {
                largest[t] = graph.cells[node];
                owner[t] = Some(p);
            }
        }
        let mut owned = alloc::vec![0usize; ranks];
        for p in owner.iter().flatten() {
            owned[*p] += 1;
        }
        // A rank whose pieces all lie in tiles given to others takes one of those tiles from
        // an owner that keeps another.
        for (&t, &p) in graph.tile_of.iter().zip(part) {
            if owned[p] == 0 {
                if let Some(o) = owner[t].filter(|&o| owned[o] > 1) {
                    owned[o] -= 1;
                    owned[p] += 1;
                    owner[t] = Some(p);
                }
            }
        }
        for (o, &n) in owns.iter_mut().zip(&owned) {
            *o = n > 0;
        }
        if let Some(rank) = owns.iter().position(|&o| !o) {
            return Err(TileMapError::IdleRank { rank });
        }
        Ok(TileMap {
            grid: graph.grid,
            tile: graph.tile,
            tiles: graph.tiles,
            owner,
            ranks,
        })
    }

    /// The cells of tile `t` (clipped to the grid).
    pub fn tile_box(&self, t: usize) -> Box3 {
        let [nx, ny, _] = self.tiles;
        let at = [t % nx, (t / nx) % ny, t / (nx * ny)];
        let lo: Index3 = core::array::from_fn(|a| (at[a] * self.tile[a]) as i64);
        let hi: Index3 =
            core::array::from_fn(|a| (((at[a] + 1) * self.tile[a]).min(self.grid[a])) as i64);
        Box3::new(lo, hi)
    }

    /// The tiles `rank` owns, in increasing linear index.
    pub fn owned_tiles(&self, rank: usize) -> impl Iterator<Item = usize> + '_ {
        (0..self.owner.len()).filter(move |&t| self.owner[t] == Some(rank))
    }

    /// The box a rank's chunk must hold: its tiles' bounding box grown by `ghost` (the
    /// stencil's reach) and clipped to the grid, so that every cell its tiles read is inside.
    pub fn chunk_box(&self, rank: usize, ghost: [usize; 3]) -> Box3 {
        Box3::bounding(self.owned_tiles(rank).map(|t| self.tile_box(t)))
            .grow(ghost.map(|g| g as i64))
            .intersect(&Box3::from_extent(self.grid))
    }

    /// The face neighbours of tile `t` as (tile, axis, true when it lies on the high side).
    pub fn face_neighbours(&self, t: usize) -> impl Iterator<Item = (usize, usize, bool)> + '_ {
        let [nx, ny, _] = self.tiles;
        let at = [t % nx, (t / nx) % ny, t / (nx * ny)];
        let stride = [1, nx, nx * ny];
        (0..3).flat_map(move |a| {
            let low = (at[a] > 0).then(|| (t - stride[a], a, false));
            let high = (at[a] + 1 < self.tiles[a]).then(|| (t + stride[a], a, true));
            low.into_iter().chain(high)
        })
    }

    /// The layers `from` sends to `to` after each phase, in the order both sides use: for
    /// each tile of `from` (increasing index), for each face neighbour owned by `to` (x, y, z;
    /// low then high), the `ghost`-thick layer of the tile facing that neighbour. Unpacked
    /// into the same global boxes of `to`'s chunk, they are every value `to`'s tiles read
    /// from `from`'s (the Yee stencils reach only along the axes).
    pub fn layers(&self, from: usize, to: usize, ghost: [usize; 3]) -> Vec<Box3> {
        let mut layers = Vec::new();
        for t in self.owned_tiles(from) {
            let b = self.tile_box(t);
            for (u, a, high) in self.face_neighbours(t) {
                if self.owner[u] != Some(to) || ghost[a] == 0 {
                    continue;
                }
                let g = ghost[a] as i64;
                let mut layer = b;
                if high {
                    layer.lo[a] = (b.hi[a] - g).max(b.lo[a]);
                } else {
                    layer.hi[a] = (b.lo[a] + g).min(b.hi[a]);
                }
                layers.push(layer);
            }
        }
        layers
    }

    /// True when tile `t` touches a tile of another rank across a face.
    pub fn on_border(&self, t: usize) -> bool {
        let me = self.owner[t];
        self.face_neighbours(t)
            .any(|(u, _, _)| self.owner[u].is_some() && self.owner[u] != me)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    #[test]
    fn a_split_tile_runs_whole_on_its_largest_piece() {
        // 8×4 in tiles of 4×4: tile 0 holds x = 0 (4 cells) and x = 2..4 (8 cells), apart;
        // tile 1 holds x = 4..8, joined to the x = 2..4 piece. Nodes: 0 (x = 0), 1 (x = 2..4),
        // 2 (tile 1).
        let mask: Vec<bool> = (0..32).map(|i| i % 8 != 1).collect();
        let g = TileGraph::from_mask([8, 4, 1], &mask, [4, 4, 1], 1.0).unwrap();
        assert_eq!(
            (g.tile_of.clone(), g.cells.clone()),
            (vec![0, 0, 1], vec![4, 8, 16])
        );
        // Tile 0's pieces in parts 0 and 1: part 0's piece is the larger.
        let map = TileMap::new(&g, &[1, 0, 1], 2).unwrap();
        assert_eq!(map.owner, [Some(0), Some(1)]);
        // Part 1's only piece lies in tile 0, whose larger piece is part 0's; part 0 also owns
        // tile 1, so part 1 takes tile 0.
        let map = TileMap::new(&g, &[1, 0, 0], 2).unwrap();
        assert_eq!(map.owner, [Some(1), Some(0)]);
        // One tile, two parts: one rank must go without.
        let fingers: Vec<bool> = (0..16).map(|i| i % 4 != 1).collect();
        let g = TileGraph::from_mask([4, 4, 1], &fingers, [4, 4, 1], 1.0).unwrap();
        assert_eq!(
            TileMap::new(&g, &[0, 1], 2),
            Err(TileMapError::IdleRank { rank: 0 })
        );
    }
}
