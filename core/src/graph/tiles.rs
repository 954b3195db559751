//! The macro data flow graph of a masked grid at tile granularity (Smyk & Tudruj 2011, §3:
//! one macro node per tile, edges weighted by the communication volume).

use alloc::vec;
use alloc::vec::Vec;
use core::fmt;

use super::csr::Graph;

/// Why a graph could not be built.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GraphError {
    /// The mask's length is not the grid's cell count.
    MaskLength {
        /// Cells of the grid.
        cells: usize,
        /// Length of the mask.
        mask: usize,
    },
    /// A tile extent is zero.
    ZeroTile,
    /// No cell is active.
    Empty,
    /// A part count of zero, or more parts than nodes.
    Parts {
        /// Parts asked for.
        parts: usize,
        /// Nodes of the graph.
        nodes: usize,
    },
}

impl fmt::Display for GraphError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GraphError::MaskLength { cells, mask } => {
                write!(f, "the mask has {mask} values for a grid of {cells} cells")
            }
            GraphError::ZeroTile => write!(f, "a tile extent is zero"),
            GraphError::Empty => write!(f, "the mask has no active cell"),
            GraphError::Parts { parts, nodes } => write!(
                f,
                "cannot split a graph of {nodes} tile(s) into {parts} part(s)"
            ),
        }
    }
}

/// The tile graph. Nodes are the tiles with active cells, in increasing linear tile index (x
/// fastest, then y, then z); node weights are active cells × cost, edge weights facing active
/// cell pairs.
#[derive(Clone, Debug, PartialEq)]
pub struct TileGraph {
    /// The graph.
    pub graph: Graph,
    /// Grid extent in cells.
    pub grid: [usize; 3],
    /// Tiles per axis.
    pub tiles: [usize; 3],
    /// Tile extent in cells.
    pub tile: [usize; 3],
    /// The linear tile index of each node.
    pub tile_of: Vec<usize>,
    /// Active cells of each node.
    pub cells: Vec<usize>,
}

impl TileGraph {
    /// The graph of `mask` (one value per cell of `grid`, x fastest; `true` = active) cut into
    /// tiles of `tile` cells (the last tile of an axis may be shorter), each active cell
    /// costing `cost`.
    pub fn from_mask(
        grid: [usize; 3],
        mask: &[bool],
        tile: [usize; 3],
        cost: f64,
    ) -> Result<TileGraph, GraphError> {
        let cells = grid[0] * grid[1] * grid[2];
        if mask.len() != cells {
            return Err(GraphError::MaskLength {
                cells,
                mask: mask.len(),
            });
        }
        if tile.contains(&0) {
            return Err(GraphError::ZeroTile);
        }
        let tiles: [usize; 3] = core::array::from_fn(|a| grid[a].div_ceil(tile[a]));
        let tile_count = tiles[0] * tiles[1] * tiles[2];
        let tile_index = |p: [usize; 3]| {
            let t: [usize; 3] = core::array::from_fn(|a| p[a] / tile[a]);
            t[0] + tiles[0] * (t[1] + tiles[1] * t[2])
        };
        let mut active_in = vec![0usize; tile_count];
        // Facing active pairs between tiles: counted per (lower tile, axis) and kept sparse.
        let mut pairs: Vec<(usize, usize, f64)> = Vec::new();
        for z in 0..grid[2] {
            for y in 0..grid[1] {
                for x in 0..grid[0] {
                    let p = [x, y, z];
                    let i = x + grid[0] * (y + grid[1] * z);
                    if !mask[i] {
                        continue;
                    }
                    let t = tile_index(p);
                    active_in[t] += 1;
                    for a in 0..3 {
                        // The neighbour across a tile face on the + side of axis `a`.
                        if (p[a] + 1) % tile[a] != 0 || p[a] + 1 >= grid[a] {
                            continue;
                        }
                        let mut q = p;
                        q[a] += 1;
                        let j = q[0] + grid[0] * (q[1] + grid[1] * q[2]);
                        if mask[j] {
                            let u = tile_index(q);
                            match pairs.last_mut() {
                                Some((s, d, w)) if *s == t && *d == u => *w += 1.0,
                                _ => pairs.push((t, u, 1.0)),
                            }
                        }
                    }
                }
            }
        }
        let tile_of: Vec<usize> = (0..tile_count).filter(|&t| active_in[t] > 0).collect();
        if tile_of.is_empty() {
            return Err(GraphError::Empty);
        }
        let mut node_of = vec![usize::MAX; tile_count];
        for (n, &t) in tile_of.iter().enumerate() {
            node_of[t] = n;
        }
        // Merge the pair counts of each undirected edge, then lay them out by node.
        pairs.sort_unstable_by_key(|&(s, d, _)| (s, d));
        let mut edges: Vec<(usize, usize, f64)> = Vec::new();
        for (s, d, w) in pairs {
            match edges.last_mut() {
                Some((a, b, x)) if *a == node_of[s] && *b == node_of[d] => *x += w,
                _ => edges.push((node_of[s], node_of[d], w)),
            }
        }
        let cells: Vec<usize> = tile_of.iter().map(|&t| active_in[t]).collect();
        let weight = cells.iter().map(|&c| c as f64 * cost).collect();
        Ok(TileGraph {
            grid,
            graph: Graph::from_edges(weight, &edges),
            tiles,
            tile,
            cells,
            tile_of,
        })
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.tile_of.len()
    }

    /// Whether the graph has no node (never, for a graph built from a mask).
    pub fn is_empty(&self) -> bool {
        self.tile_of.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 4×4 square of which the top-right 2×2 block is inactive (an L), tiles of 2×2.
    fn l_shape() -> TileGraph {
        let grid = [4, 4, 1];
        let mask: Vec<bool> = (0..16).map(|i| !(i % 4 >= 2 && i / 4 >= 2)).collect();
        TileGraph::from_mask(grid, &mask, [2, 2, 1], 1.5).unwrap()
    }

    #[test]
    fn an_l_of_three_tiles_by_hand() {
        let g = l_shape();
        assert_eq!(g.tiles, [2, 2, 1]);
        // Tiles 0 (lower left), 1 (lower right), 2 (upper left); tile 3 is empty.
        assert_eq!(g.tile_of, [0, 1, 2]);
        assert_eq!(g.cells, [4, 4, 4]);
        assert_eq!(g.graph.weight, [6.0, 6.0, 6.0]);
        // 0–1 across x: two facing pairs; 0–2 across y: two; 1 and 2 do not touch.
        let e0: Vec<(usize, f64)> = g.graph.edges(0).collect();
        assert_eq!(e0, [(1, 2.0), (2, 2.0)]);
        assert_eq!(g.graph.edges(1).collect::<Vec<_>>(), [(0, 2.0)]);
        assert_eq!(g.graph.edges(2).collect::<Vec<_>>(), [(0, 2.0)]);
    }

    #[test]
    fn partly_active_faces_count_only_facing_active_cells() {
        // 4×2: cells (1, 1) and (2, 0) inactive; tiles 2×2 → two tiles facing across x = 1|2.
        let mut mask = [true; 8];
        mask[1 + 4] = false;
        mask[2] = false;
        let g = TileGraph::from_mask([4, 2, 1], &mask, [2, 2, 1], 1.0).unwrap();
        // Row y = 0: (1,0)–(2,0) has (2,0) inactive; row y = 1: (1,1) inactive. No pair.
        assert_eq!(g.len(), 2);
        assert_eq!(g.graph.edges(0).count(), 0);
        assert_eq!(g.cells, [3, 3]);
    }

    #[test]
    fn tile_size_one_is_the_cell_graph_and_3d_counts_faces() {
        let g = TileGraph::from_mask([3, 2, 2], &[true; 12], [1, 1, 1], 1.0).unwrap();
        assert_eq!(g.len(), 12);
        // Edges of a 3×2×2 grid graph: 2·2·2 (x) + 3·1·2 (y) + 3·2·1 (z) = 20.
        assert_eq!(g.graph.neighbours.len(), 40);
        assert!(g.graph.edge_weight.iter().all(|&w| w == 1.0));
        let g = TileGraph::from_mask([4, 4, 4], &[true; 64], [2, 2, 2], 1.0).unwrap();
        // 8 tiles, 12 edges of a 2×2×2 block, each a 2×2 face.
        assert_eq!(g.graph.neighbours.len(), 24);
        assert!(g.graph.edge_weight.iter().all(|&w| w == 4.0));
    }

    #[test]
    fn bad_masks_are_errors() {
        assert_eq!(
            TileGraph::from_mask([2, 2, 1], &[true; 3], [1, 1, 1], 1.0),
            Err(GraphError::MaskLength { cells: 4, mask: 3 })
        );
        assert_eq!(
            TileGraph::from_mask([2, 2, 1], &[false; 4], [1, 1, 1], 1.0),
            Err(GraphError::Empty)
        );
        assert_eq!(
            TileGraph::from_mask([2, 2, 1], &[true; 4], [0, 1, 1], 1.0),
            Err(GraphError::ZeroTile)
        );
    }
}
