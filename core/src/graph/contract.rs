//! Contraction: the graph of macro nodes that a grouping of the nodes defines, weights and
//! edge weights summed. What the coarsening of multilevel partitioning builds each level
//! with (Karypis & Kumar 1998, §3: the coarse graph of a matching) and what RCDC's merged
//! macro data flow graph is (Smyk & Tudruj 2011, §3 and §6).

use alloc::vec;
use alloc::vec::Vec;

use super::csr::{EdgeWeights, Graph, NodeIndex};
use super::fork::{Fork, map_chunks};

/// Macro nodes whose rows one branch of [`contract`] sums: chunks of this many run side by
/// side (fixed, so the chunks never depend on the number of threads).
const GRAIN: usize = 1 << 13;

/// The graph of the macro nodes `group` defines (`count` of them): weights and edge weights
/// summed. Each macro node's edges to higher macro nodes are summed fine node by fine node
/// in ascending order and edge by edge (as a map keyed by the pair would), so every sum is
/// the same whatever the chunks; chunks of [`GRAIN`] macro nodes run through `fork`, each
/// keeping its rows (5 bytes an edge where the sums are integers up to 255, else 8), and the
/// graph is built from them in order. O(edges × log degree) work.
pub fn contract<F: Fork, T: NodeIndex + Sync>(
    fork: &F,
    g: &Graph,
    group: &[T],
    count: usize,
) -> Graph {
    contract_in_chunks(fork, g, group, count, GRAIN)
}

/// [`contract`] with chunks of `grain` macro nodes.
fn contract_in_chunks<F: Fork, T: NodeIndex + Sync>(
    fork: &F,
    g: &Graph,
    group: &[T],
    count: usize,
    grain: usize,
) -> Graph {
    // The fine nodes of each macro node, in ascending order (a counting sort).
    // (`u32`: at most `g.len()` fine nodes, which fit.)
    let mut first = vec![0u32; count + 1];
    for &c in group {
        first[c.index() + 1] += 1;
    }
    for c in 0..count {
        first[c + 1] += first[c];
    }
    let mut fill = first.clone();
    let mut members = vec![0u32; g.len()];
    for (n, &c) in group.iter().enumerate() {
        let c = c.index();
        members[fill[c] as usize] = n as u32;
        fill[c] += 1;
    }
    drop(fill);
    // Each macro node's weight, its fine nodes' summed in ascending order.
    let mut weight = vec![0.0; count];
    for &n in &members {
        weight[group[n as usize].index()] += g.weight[n as usize];
    }
    let chunks = map_chunks(fork, 0..count, grain, &|range: core::ops::Range<usize>| {
        let first_node = range.start;
        let mut ends = Vec::with_capacity(range.len());
        let mut higher: Vec<u32> = Vec::new();
        let mut sums: Vec<f32> = Vec::new();
        // A macro node's edges to higher macro nodes in the order met, then sorted by
        // neighbour, stably: runs of one neighbour summed in the order met.
        let mut row: Vec<(u32, f64)> = Vec::new();
        for a in range {
            for &n in &members[first[a] as usize..first[a + 1] as usize] {
                let n = n as usize;
                for (m, e) in g.edges(n) {
                    let b = group[m].index();
                    if a < b {
                        row.push((b as u32, e));
                    }
                }
            }
            row.sort_by_key(|&(b, _)| b);
            let mut i = 0;
            while i < row.len() {
                let b = row[i].0;
                let mut sum = 0.0;
                while i < row.len() && row[i].0 == b {
                    sum += row[i].1;
                    i += 1;
                }
                higher.push(b);
                sums.push(sum as f32);
            }
            row.clear();
            ends.push(u32::try_from(higher.len()).expect("at most u32::MAX edge ends"));
        }
        // No growth slack kept while the other chunks and the graph are built.
        higher.shrink_to_fit();
        let weights = EdgeWeights::narrowed(sums);
        Rows {
            first_node,
            ends,
            higher,
            weights,
        }
    });
    drop((first, members));
    Graph::from_edge_iter(weight, || chunks.iter().flat_map(Rows::edges))
}

/// The rows of a chunk of macro nodes: their edges to higher macro nodes.
struct Rows {
    /// The chunk's first macro node.
    first_node: usize,
    /// Where each macro node's row ends in `higher`.
    ends: Vec<u32>,
    /// The rows, one after the other: the higher macro node of each edge.
    higher: Vec<u32>,
    /// Each edge's summed weight (a byte each where all fit, as the graph will store them).
    weights: EdgeWeights,
}

impl Rows {
    /// The chunk's edges, row by row: (lower node, higher node, weight).
    fn edges(&self) -> RowsEdges<'_> {
        RowsEdges {
            rows: self,
            edge: 0,
            row: 0,
        }
    }
}

/// [`Rows::edges`]: one index over the edges, the row advanced past the rows it ends.
struct RowsEdges<'a> {
    rows: &'a Rows,
    edge: usize,
    row: usize,
}

impl Iterator for RowsEdges<'_> {
    type Item = (usize, usize, f64);

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        let rows = self.rows;
        let e = self.edge;
        let b = *rows.higher.get(e)?;
        while rows.ends[self.row] as usize <= e {
            self.row += 1;
        }
        self.edge += 1;
        Some((rows.first_node + self.row, b as usize, rows.weights.at(e)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::TileGraph;
    use crate::graph::fork::Sequential;

    /// Runs the second branch first: what a pool's threads may do.
    struct Reversed;

    impl Fork for Reversed {
        fn join<A: Send, B: Send>(
            &self,
            a: impl FnOnce() -> A + Send,
            b: impl FnOnce() -> B + Send,
        ) -> (A, B) {
            let b = b();
            (a(), b)
        }

        fn side_by_side(&self) -> bool {
            true
        }
    }

    #[test]
    fn contraction_sums_weights_and_edges_the_same_in_any_chunks() {
        // A 90 × 90 square cut in 3 × 3 blocks (900 macro nodes).
        let g = TileGraph::from_mask([90, 90, 1], &[true; 8100], [1, 1, 1], 1.0)
            .unwrap()
            .graph;
        let blocks: Vec<u32> = (0..8100)
            .map(|i| (i % 90 / 3 + 30 * (i / 270)) as u32)
            .collect();
        let c = contract(&Sequential, &g, &blocks, 900);
        assert_eq!(c.weight, vec![9.0; 900]);
        // Block 0's neighbours: block 1 (right) and block 30 (above), 3 facing pairs each.
        assert_eq!(c.edges(0).collect::<Vec<_>>(), [(1, 3.0), (30, 3.0)]);
        assert_eq!(c.edges(31).count(), 4);
        assert_eq!(c.neighbours.len(), 2 * (2 * 30 * 29));
        // In chunks of 1, 7 and 64 macro nodes, run in either order: the same graph.
        for grain in [1, 7, 64] {
            for fork in [&Sequential as &dyn Run, &Reversed] {
                assert_eq!(fork.contract(&g, &blocks, 900, grain), c, "grain {grain}");
            }
        }
    }

    /// [`contract_in_chunks`] through either fork.
    trait Run {
        fn contract(&self, g: &Graph, group: &[u32], count: usize, grain: usize) -> Graph;
    }

    impl<F: Fork> Run for F {
        fn contract(&self, g: &Graph, group: &[u32], count: usize, grain: usize) -> Graph {
            contract_in_chunks(self, g, group, count, grain)
        }
    }
}
