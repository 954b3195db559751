//! The macro data flow graph of a masked grid at tile granularity (Smyk & Tudruj 2011, §3:
//! one macro node per tile, edges weighted by the communication volume), with a node per
//! connected piece where inactive cells cut a tile apart (the paper partitions cells, whose
//! parts are connected cell by cell).

use alloc::vec;
use alloc::vec::Vec;
use core::fmt;

use super::csr::Graph;
use super::fork::{Fork, Sequential, map_chunks, map_chunks_mut};

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
    /// The graph would hold more nodes or edge ends than its `u32` indices can number
    /// ([`Graph`]: at most `u32::MAX` of each).
    TooLarge {
        /// What overflows: "nodes" or "edge ends".
        what: &'static str,
        /// How many the mask gives (at least: at tiles above one cell, an upper bound is
        /// checked first and the exact count once the pieces are labelled).
        count: u64,
        /// The most a graph holds.
        limit: u64,
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
            GraphError::TooLarge { what, count, limit } => write!(
                f,
                "the mask's graph would have {count} {what}: at most {limit} fit (u32 indices)"
            ),
        }
    }
}

/// The tile graph. Nodes are the connected pieces of the tiles' active cells (two active cells
/// of a tile are in one piece when a chain of face neighbours inside the tile joins them: the
/// Yee stencil reaches only along the axes), ordered by linear tile index (x fastest, then y,
/// then z) and, inside a tile, by the first cell of each piece in x-fastest order. A tile
/// whose active cells are all joined is one node, so a graph of such tiles is the paper's
/// macro data flow graph at tile granularity; a tile crossed by inactive cells (a comb's
/// fingers in one tile) gives one node per piece, so the graph never joins cells that are
/// not joined, and a part connected in the graph is connected cell by cell. Node weights
/// are active cells × cost, edge weights facing active cell pairs.
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
    /// The linear tile index of each node (non-decreasing; repeated for the pieces of a tile).
    pub tile_of: Vec<usize>,
    /// Active cells of each node.
    pub cells: Vec<usize>,
}

/// No node: an inactive cell in [`TileGraph::node_of_cells`].
pub const NO_NODE: u32 = u32::MAX;

/// The node of each cell, the tile of each node and each node's active cells.
type Labels = (Vec<u32>, Vec<usize>, Vec<usize>);

/// The piece labels of `mask` cut into tiles of `tile`: the node of each cell ([`NO_NODE`]
/// when inactive), the tile of each node and its active cells. Inputs are checked by the
/// caller. The slabs of tiles along z (each `tile[2]` planes of cells, contiguous in the
/// mask) are labelled side by side through `fork`, each numbering its pieces from 0, then
/// shifted by the pieces of the slabs below: the numbers of a labelling slab by slab in
/// order.
fn label_pieces<F: Fork>(
    fork: &F,
    grid: [usize; 3],
    mask: &[bool],
    tile: [usize; 3],
    limit: u64,
) -> Result<Labels, GraphError> {
    let slab_cells = grid[0] * grid[1] * tile[2];
    let mut node_of = vec![NO_NODE; mask.len()];
    let slabs = map_chunks_mut(
        fork,
        &mut node_of,
        slab_cells,
        &|tz, node_of: &mut [u32]| label_slab(grid, mask, tile, tz, node_of, limit),
    );
    let mut base = Vec::with_capacity(slabs.len());
    let (mut tile_of, mut cells) = (Vec::new(), Vec::new());
    for slab in slabs {
        let (slab_tiles, slab_cells) = slab?;
        base.push(tile_of.len() as u32);
        if (tile_of.len() + slab_tiles.len()) as u64 > limit {
            return Err(GraphError::TooLarge {
                what: "nodes",
                count: limit + 1,
                limit,
            });
        }
        tile_of.extend(slab_tiles);
        cells.extend(slab_cells);
    }
    map_chunks_mut(
        fork,
        &mut node_of,
        slab_cells,
        &|tz, node_of: &mut [u32]| {
            for n in node_of.iter_mut().filter(|n| **n != NO_NODE) {
                *n += base[tz];
            }
        },
    );
    Ok((node_of, tile_of, cells))
}

/// The pieces of the tiles of slab `tz` (the tiles at z index `tz`), numbered from 0 in the
/// order of their tiles (x fastest) and first cells: the node of each of the slab's cells
/// written into `node_of` (the slab's part of the grid), the tile and active cells of each
/// node returned. An error where the slab alone holds more than `limit` pieces.
fn label_slab(
    grid: [usize; 3],
    mask: &[bool],
    tile: [usize; 3],
    tz: usize,
    node_of: &mut [u32],
    limit: u64,
) -> Result<(Vec<usize>, Vec<usize>), GraphError> {
    let tiles: [usize; 3] = core::array::from_fn(|a| grid[a].div_ceil(tile[a]));
    let offset = tz * tile[2] * grid[0] * grid[1];
    let index = |p: [usize; 3]| p[0] + grid[0] * (p[1] + grid[1] * p[2]);
    let (mut tile_of, mut cells) = (Vec::new(), Vec::new());
    let mut stack: Vec<[usize; 3]> = Vec::new();
    if tz >= tiles[2] {
        return Ok((tile_of, cells));
    }
    for ty in 0..tiles[1] {
        for tx in 0..tiles[0] {
            let t = [tx, ty, tz];
            let lo: [usize; 3] = core::array::from_fn(|a| t[a] * tile[a]);
            let hi: [usize; 3] = core::array::from_fn(|a| (lo[a] + tile[a]).min(grid[a]));
            let linear = tx + tiles[0] * (ty + tiles[1] * tz);
            for z in lo[2]..hi[2] {
                for y in lo[1]..hi[1] {
                    for x in lo[0]..hi[0] {
                        let i = index([x, y, z]);
                        if !mask[i] || node_of[i - offset] != NO_NODE {
                            continue;
                        }
                        // A new piece: flood its cells inside the tile.
                        let node = tile_of.len() as u64;
                        if node >= limit {
                            return Err(GraphError::TooLarge {
                                what: "nodes",
                                count: limit + 1,
                                limit,
                            });
                        }
                        let node = node as u32;
                        node_of[i - offset] = node;
                        stack.push([x, y, z]);
                        let mut count = 0usize;
                        while let Some(p) = stack.pop() {
                            count += 1;
                            for a in 0..3 {
                                for up in [false, true] {
                                    let mut q = p;
                                    if up && p[a] + 1 < hi[a] {
                                        q[a] += 1;
                                    } else if !up && p[a] > lo[a] {
                                        q[a] -= 1;
                                    } else {
                                        continue;
                                    }
                                    let j = index(q);
                                    if mask[j] && node_of[j - offset] == NO_NODE {
                                        node_of[j - offset] = node;
                                        stack.push(q);
                                    }
                                }
                            }
                        }
                        tile_of.push(linear);
                        cells.push(count);
                    }
                }
            }
        }
    }
    Ok((tile_of, cells))
}

/// The facing active pairs across tile faces whose lower cell lies in the planes `z_cells`,
/// as (lower node, upper node, pairs), sorted and merged: the edges of the tile graph from
/// those planes' nodes.
fn facing_pairs(
    grid: [usize; 3],
    tile: [usize; 3],
    node_of: &[u32],
    z_cells: core::ops::Range<usize>,
) -> Vec<(u32, u32, u32)> {
    let mut pairs: Vec<(u32, u32, u32)> = Vec::new();
    for z in z_cells {
        for y in 0..grid[1] {
            for x in 0..grid[0] {
                let p = [x, y, z];
                let i = x + grid[0] * (y + grid[1] * z);
                if node_of[i] == NO_NODE {
                    continue;
                }
                for a in 0..3 {
                    // The neighbour across a tile face on the + side of axis `a`.
                    if (p[a] + 1) % tile[a] != 0 || p[a] + 1 >= grid[a] {
                        continue;
                    }
                    let mut q = p;
                    q[a] += 1;
                    let j = q[0] + grid[0] * (q[1] + grid[1] * q[2]);
                    if node_of[j] != NO_NODE {
                        let (s, d) = (node_of[i], node_of[j]);
                        match pairs.last_mut() {
                            Some((ps, pd, w)) if *ps == s && *pd == d => *w += 1,
                            _ => pairs.push((s, d, 1)),
                        }
                    }
                }
            }
        }
    }
    // Merge the pair counts of each undirected edge (nodes grow with the tile index, so
    // the lower tile's node is always first), in place.
    pairs.sort_unstable_by_key(|&(s, d, _)| (s, d));
    let mut kept = 0;
    for k in 0..pairs.len() {
        let (s, d, w) = pairs[k];
        if kept > 0 && pairs[kept - 1].0 == s && pairs[kept - 1].1 == d {
            pairs[kept - 1].2 += w;
        } else {
            pairs[kept] = (s, d, w);
            kept += 1;
        }
    }
    pairs.truncate(kept);
    pairs
}

/// Most nodes and edge ends a [`Graph`] holds (`u32` indices; a node numbered `u32::MAX`
/// would be [`NO_NODE`], so node numbers stop one below).
pub const GRAPH_LIMIT: u64 = u32::MAX as u64;

/// The active cells of `mask` and twice its facing active pairs across tile faces, counted
/// without allocating: upper bounds of the tile graph's nodes and edge ends (exact at tile 1,
/// where each cell is a node and each facing pair an edge).
fn size_bounds<F: Fork>(fork: &F, grid: [usize; 3], mask: &[bool], tile: [usize; 3]) -> (u64, u64) {
    let stride = [1, grid[0], grid[0] * grid[1]];
    // Plane by plane of cells along z, side by side (counts: the same in any order).
    let planes = map_chunks(fork, 0..grid[2], 8, &|zs| {
        let (mut active, mut pairs) = (0u64, 0u64);
        for z in zs {
            for y in 0..grid[1] {
                for x in 0..grid[0] {
                    let p = [x, y, z];
                    let i = x + stride[1] * y + stride[2] * z;
                    if !mask[i] {
                        continue;
                    }
                    active += 1;
                    for a in 0..3 {
                        if (p[a] + 1) % tile[a] == 0 && p[a] + 1 < grid[a] && mask[i + stride[a]] {
                            pairs += 1;
                        }
                    }
                }
            }
        }
        (active, pairs)
    });
    let (active, pairs) = planes
        .into_iter()
        .fold((0, 0), |(a, p), (da, dp)| (a + da, p + dp));
    (active, 2 * pairs)
}

impl TileGraph {
    /// The graph of `mask` (one value per cell of `grid`, x fastest; `true` = active) cut into
    /// tiles of `tile` cells (the last tile of an axis may be shorter), each active cell
    /// costing `cost`.
    ///
    /// A mask whose graph would hold more than [`GRAPH_LIMIT`] nodes or edge ends is an error
    /// ([`GraphError::TooLarge`]): at tile 1 found before anything is allocated (a counting
    /// pass over the mask); at larger tiles, where the cells and facing pairs only bound the
    /// nodes and edges, the exact counts are checked as the pieces are labelled and once the
    /// pairs are merged, before the graph is allocated.
    pub fn from_mask(
        grid: [usize; 3],
        mask: &[bool],
        tile: [usize; 3],
        cost: f64,
    ) -> Result<TileGraph, GraphError> {
        Self::from_mask_on(&Sequential, grid, mask, tile, cost)
    }

    /// [`TileGraph::from_mask`] with the slabs of tiles along z labelled and their facing
    /// pairs counted side by side through `fork`: the same graph.
    pub fn from_mask_on<F: Fork>(
        fork: &F,
        grid: [usize; 3],
        mask: &[bool],
        tile: [usize; 3],
        cost: f64,
    ) -> Result<TileGraph, GraphError> {
        Self::from_mask_within(fork, grid, mask, tile, cost, GRAPH_LIMIT)
    }

    /// [`TileGraph::from_mask_on`] with at most `limit` nodes and edge ends.
    fn from_mask_within<F: Fork>(
        fork: &F,
        grid: [usize; 3],
        mask: &[bool],
        tile: [usize; 3],
        cost: f64,
        limit: u64,
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
        if tile == [1, 1, 1] {
            let (active, ends) = size_bounds(fork, grid, mask, tile);
            for (what, count) in [("nodes", active), ("edge ends", ends)] {
                if count > limit {
                    return Err(GraphError::TooLarge { what, count, limit });
                }
            }
        }
        let tiles: [usize; 3] = core::array::from_fn(|a| grid[a].div_ceil(tile[a]));
        let (node_of, tile_of, cells) = label_pieces(fork, grid, mask, tile, limit)?;
        if tile_of.is_empty() {
            return Err(GraphError::Empty);
        }
        // Facing active pairs of different nodes (always across a tile face: the cells of one
        // tile that face each other are one piece), kept sparse, slab by slab of tiles along
        // z side by side (12 bytes a pair: at tile 1, 3 a cell). A pair's lower node is
        // always the lower tile's, in the slab it is counted in, so the slabs' lists, each
        // sorted and merged, follow one another in order: the graph is built from them as
        // they are.
        let slab_pairs = map_chunks(fork, 0..tiles[2], 1, &|slabs| {
            let z_cells = slabs.start * tile[2]..(slabs.end * tile[2]).min(grid[2]);
            facing_pairs(grid, tile, &node_of, z_cells)
        });
        drop(node_of);
        let kept: usize = slab_pairs.iter().map(Vec::len).sum();
        if 2 * kept as u64 > limit {
            return Err(GraphError::TooLarge {
                what: "edge ends",
                count: 2 * kept as u64,
                limit,
            });
        }
        let weight = cells.iter().map(|&c| c as f64 * cost).collect();
        let graph = Graph::from_edge_iter(weight, || {
            slab_pairs
                .iter()
                .flatten()
                .map(|&(s, d, w)| (s as usize, d as usize, f64::from(w)))
        });
        drop(slab_pairs);
        Ok(TileGraph {
            grid,
            graph,
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

    /// The node of each cell of `mask` (the mask the graph was built from), [`NO_NODE`] for
    /// inactive cells; `None` when `mask` is not that mask's length or gives other pieces.
    pub fn node_of_cells(&self, mask: &[bool]) -> Option<Vec<u32>> {
        if mask.len() != self.grid.iter().product::<usize>() {
            return None;
        }
        let (node_of, tile_of, cells) =
            label_pieces(&Sequential, self.grid, mask, self.tile, GRAPH_LIMIT).ok()?;
        (tile_of == self.tile_of && cells == self.cells).then_some(node_of)
    }

    /// The connected pieces of each of `parts` parts at cell level (0 for an empty part): a
    /// flood fill over the active cells of `mask` (the graph's mask), two face neighbours
    /// joined when their nodes are in the same part (`part[node]`). Checks what the graph
    /// claims, cell by cell; `None` when `mask` is not the graph's or `part` is not one entry
    /// per node below `parts`.
    pub fn cell_pieces(&self, mask: &[bool], part: &[usize], parts: usize) -> Option<Vec<usize>> {
        if part.len() != self.len() || part.iter().any(|&p| p >= parts) {
            return None;
        }
        let node_of = self.node_of_cells(mask)?;
        let grid = self.grid;
        let mut seen = vec![false; mask.len()];
        let mut pieces = vec![0usize; parts];
        let mut stack: Vec<usize> = Vec::new();
        let stride = [1, grid[0], grid[0] * grid[1]];
        for start in 0..mask.len() {
            if node_of[start] == NO_NODE || seen[start] {
                continue;
            }
            let p = part[node_of[start] as usize];
            pieces[p] += 1;
            seen[start] = true;
            stack.push(start);
            while let Some(i) = stack.pop() {
                let at = [i % grid[0], (i / grid[0]) % grid[1], i / stride[2]];
                for a in 0..3 {
                    let mut next = [None, None];
                    if at[a] > 0 {
                        next[0] = Some(i - stride[a]);
                    }
                    if at[a] + 1 < grid[a] {
                        next[1] = Some(i + stride[a]);
                    }
                    for j in next.into_iter().flatten() {
                        if !seen[j] && node_of[j] != NO_NODE && part[node_of[j] as usize] == p {
                            seen[j] = true;
                            stack.push(j);
                        }
                    }
                }
            }
        }
        Some(pieces)
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
        assert!((0..12).all(|n| g.graph.edges(n).all(|(_, w)| w == 1.0)));
        // Unit weights are not stored.
        assert!(g.graph.edge_weight.is_unit());
        let g = TileGraph::from_mask([4, 4, 4], &[true; 64], [2, 2, 2], 1.0).unwrap();
        // 8 tiles, 12 edges of a 2×2×2 block, each a 2×2 face.
        assert_eq!(g.graph.neighbours.len(), 24);
        assert_eq!(
            g.graph.edge_weight,
            crate::graph::EdgeWeights::Small(vec![4; g.graph.neighbours.len()])
        );
    }

    #[test]
    fn a_tile_crossed_by_inactive_cells_is_one_node_per_piece() {
        // 4×4, one tile of 4×4: columns x = 0 and x = 2..4 active, x = 1 inactive except at
        // y = 3 (a U joined at the top). Then cut the top row: two fingers, two nodes.
        let u: Vec<bool> = (0..16).map(|i| i % 4 != 1 || i / 4 == 3).collect();
        let g = TileGraph::from_mask([4, 4, 1], &u, [4, 4, 1], 1.0).unwrap();
        assert_eq!((g.tile_of.clone(), g.cells.clone()), (vec![0], vec![13]));
        let fingers: Vec<bool> = (0..16).map(|i| i % 4 != 1).collect();
        let g = TileGraph::from_mask([4, 4, 1], &fingers, [4, 4, 1], 1.0).unwrap();
        assert_eq!(
            (g.tile_of.clone(), g.cells.clone()),
            (vec![0, 0], vec![4, 8])
        );
        assert_eq!(g.graph.edges(0).count(), 0);
        let labels = g.node_of_cells(&fingers).unwrap();
        assert_eq!(&labels[..4], [0, NO_NODE, 1, 1]);
        // Two pieces in one part are two pieces at cell level; each in its own part, one each.
        assert_eq!(g.cell_pieces(&fingers, &[0, 0], 1), Some(vec![2]));
        assert_eq!(g.cell_pieces(&fingers, &[0, 1], 2), Some(vec![1, 1]));
        assert_eq!(g.cell_pieces(&fingers, &[0, 2], 2), None);
        assert_eq!(g.cell_pieces(&u, &[0, 0], 1), None);
        // Tiles of 2×2: tile 0 (x 0..2, y 0..2) holds x = 0 only; tile 1 holds x = 2..4;
        // pieces meet only across tile faces, upwards.
        let g = TileGraph::from_mask([4, 4, 1], &u, [2, 2, 1], 1.0).unwrap();
        assert_eq!(g.tile_of, [0, 1, 2, 3]);
        assert_eq!(g.cells, [2, 4, 3, 4]);
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

    #[test]
    fn a_mask_beyond_the_u32_indices_is_refused_naming_its_size() {
        // A 3×2×1 block: 6 cells, 7 edges (14 edge ends); at tile 2×1×1: 3 nodes, 2 edges.
        let mask = [true; 6];
        let within = |tile, limit| {
            TileGraph::from_mask_within(&Sequential, [3, 2, 1], &mask, tile, 1.0, limit)
        };
        assert_eq!(
            within([1, 1, 1], 5),
            Err(GraphError::TooLarge {
                what: "nodes",
                count: 6,
                limit: 5
            })
        );
        let e = within([1, 1, 1], 13).unwrap_err();
        assert_eq!(
            e,
            GraphError::TooLarge {
                what: "edge ends",
                count: 14,
                limit: 13
            }
        );
        assert_eq!(
            alloc::format!("{e}"),
            "the mask's graph would have 14 edge ends: at most 13 fit (u32 indices)"
        );
        assert_eq!(within([1, 1, 1], 14).unwrap().graph.neighbours.len(), 14);
        // At tile 2×1×1: the cells (6) and facing pairs across tile faces (5, 10 ends) only
        // bound the graph; its exact counts (4 nodes, 4 edges: 8 ends) decide.
        assert_eq!(within([2, 1, 1], 8).unwrap().len(), 4);
        assert_eq!(
            within([2, 1, 1], 7),
            Err(GraphError::TooLarge {
                what: "edge ends",
                count: 8,
                limit: 7
            })
        );
        assert_eq!(
            within([2, 1, 1], 3),
            Err(GraphError::TooLarge {
                what: "nodes",
                count: 4,
                limit: 3
            })
        );
        // The bounds, counted over the mask before anything is allocated (at tile 1 the
        // graph's exact size: a 1 626³ mask's 4.3 × 10⁹ cells or a 900³ one's 4.4 × 10⁹ edge
        // ends are refused by them).
        assert_eq!(
            size_bounds(&Sequential, [5, 4, 3], &[true; 60], [1, 1, 1]),
            (60, 2 * (4 * 4 * 3 + 5 * 3 * 3 + 5 * 4 * 2))
        );
        assert_eq!(
            size_bounds(&Sequential, [4, 4, 1], &[true; 16], [2, 2, 1]),
            (16, 2 * 8)
        );
    }
}
