//! A weighted undirected graph in compressed sparse rows: what every partitioner here works on.

use alloc::vec;
use alloc::vec::Vec;
use core::sync::atomic::AtomicBool;
use core::sync::atomic::Ordering::Relaxed;

use super::fork::{Fork, Sequential, map_chunks};

/// Parts one branch of [`Graph::piece_counts_on`] counts (fixed: the chunks never depend on
/// the number of threads).
const PIECE_GRAIN: usize = 4;

/// Node weights and weighted edges, each edge stored at both ends. Bytes: 12 a node (an `f64`
/// weight, a `u32` offset) and 8 an edge end (a `u32` neighbour, an `f32` weight), 4 where
/// every edge weighs 1 (the weights are then not stored), so a 3D cell graph (6 edge ends a
/// cell, all of weight 1) takes 36 bytes a node and a coarse graph about 12 + 8 × degree; at
/// most `u32::MAX` nodes and `u32::MAX` edge ends (a 3D cell graph of 7 × 10⁸ cells). Two
/// graphs of the same edges compare equal only when both store or both omit unit weights
/// (every builder here omits them where all are 1). Edge weights are `f32`: the facing-pair counts of a tile graph and their sums in
/// coarse graphs are integers, exact below 2²⁴ (16 777 216 pairs on one edge), so every
/// algorithm here sees the same `f64` values as with `f64` storage; a weight above that, or
/// not an integer, is rounded to the nearest `f32` once, when the graph is built.
#[derive(Clone, Debug, PartialEq)]
pub struct Graph {
    /// Weight of each node (its computation).
    pub weight: Vec<f64>,
    /// `neighbours[offsets[n]..offsets[n + 1]]` are the nodes adjacent to node `n`.
    pub offsets: Vec<u32>,
    /// Adjacent nodes, by node.
    pub neighbours: Vec<u32>,
    /// Weight of each edge (same index as `neighbours`): its communication volume. Empty
    /// where every edge weighs 1 (a cell graph: tile 1), so such a graph takes 36 bytes a
    /// node in 3D (6 edge ends of 4 bytes, 12 a node).
    pub edge_weight: Vec<f32>,
}

impl Graph {
    /// The graph of `weight.len()` nodes and the undirected `edges` `(a, b, w)`, `a != b`, each
    /// pair at most once.
    pub fn from_edges(weight: Vec<f64>, edges: &[(usize, usize, f64)]) -> Graph {
        Graph::from_edge_iter(weight, || edges.iter().copied())
    }

    /// [`Graph::from_edges`] from an iterator over the edges that `edges` makes afresh (it is
    /// walked twice: degrees, then the lists), so no list of them need be held.
    pub fn from_edge_iter<I: Iterator<Item = (usize, usize, f64)>>(
        weight: Vec<f64>,
        edges: impl Fn() -> I,
    ) -> Graph {
        let n = weight.len();
        assert!(
            u32::try_from(n).is_ok(),
            "a graph of {n} nodes: at most u32::MAX (4 294 967 295) fit"
        );
        let mut offsets = vec![0u32; n + 1];
        let mut unit = true;
        for (a, b, w) in edges() {
            offsets[a + 1] += 1;
            offsets[b + 1] += 1;
            unit &= w as f32 == 1.0;
        }
        let mut sum = 0u64;
        for o in offsets.iter_mut() {
            sum += u64::from(*o);
            *o = u32::try_from(sum).expect("at most u32::MAX (4 294 967 295) edge ends");
        }
        let mut fill = offsets.clone();
        let mut neighbours = vec![0u32; offsets[n] as usize];
        let mut edge_weight = vec![0.0f32; if unit { 0 } else { offsets[n] as usize }];
        for (a, b, w) in edges() {
            for (from, to) in [(a, b), (b, a)] {
                let at = fill[from] as usize;
                neighbours[at] = to as u32;
                if !unit {
                    edge_weight[at] = w as f32;
                }
                fill[from] += 1;
            }
        }
        Graph {
            weight,
            offsets,
            neighbours,
            edge_weight,
        }
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.weight.len()
    }

    /// Whether the graph has no node.
    pub fn is_empty(&self) -> bool {
        self.weight.is_empty()
    }

    /// Number of neighbours of node `n`.
    pub fn degree(&self, n: usize) -> usize {
        (self.offsets[n + 1] - self.offsets[n]) as usize
    }

    /// The neighbours of node `n` with the edge weights.
    pub fn edges(&self, n: usize) -> impl Iterator<Item = (usize, f64)> + '_ {
        let range = self.offsets[n] as usize..self.offsets[n + 1] as usize;
        let weights = self.edge_weight.get(range.clone()).unwrap_or(&[]);
        self.neighbours[range]
            .iter()
            .enumerate()
            .map(move |(i, &m)| (m as usize, weights.get(i).map_or(1.0, |&w| f64::from(w))))
    }

    /// The neighbours of node `n` (no weights).
    pub fn neighbours_of(&self, n: usize) -> impl Iterator<Item = usize> + '_ {
        self.neighbours[self.offsets[n] as usize..self.offsets[n + 1] as usize]
            .iter()
            .map(|&m| m as usize)
    }

    /// Sum of the node weights.
    pub fn total_weight(&self) -> f64 {
        self.weight.iter().sum()
    }

    /// The nodes reachable from `start` through nodes `inside` accepts (`start` included,
    /// whatever `inside` says of it), skipping and marking those `seen` marks.
    pub fn flood(
        &self,
        start: usize,
        inside: impl Fn(usize) -> bool,
        seen: &mut [bool],
    ) -> Vec<usize> {
        let mut reached = vec![start];
        seen[start] = true;
        let mut next = 0;
        while next < reached.len() {
            let k = reached[next];
            next += 1;
            for (m, _) in self.edges(k) {
                if !seen[m] && inside(m) {
                    seen[m] = true;
                    reached.push(m);
                }
            }
        }
        reached
    }

    /// The number of connected pieces of each of `parts` parts of `part` (0 for an empty
    /// part): [`Graph::pieces`] counted, with 5 bytes a node (the nodes listed by part, a
    /// flag each) and a stack of one piece's nodes at most as scratch rather than a list of
    /// every node.
    pub fn piece_counts(&self, part: &[usize], parts: usize) -> Vec<usize> {
        self.piece_counts_on(&Sequential, part, parts)
    }

    /// [`Graph::piece_counts`] with the parts counted in chunks side by side through `fork`
    /// (a part's flood stays inside its nodes, so each chunk sets only its own nodes' flags):
    /// the same counts.
    pub fn piece_counts_on<F: Fork>(&self, fork: &F, part: &[usize], parts: usize) -> Vec<usize> {
        // The nodes of each part, in ascending order (a counting sort).
        let mut first = vec![0u32; parts + 1];
        for &p in part {
            first[p + 1] += 1;
        }
        for p in 0..parts {
            first[p + 1] += first[p];
        }
        let mut fill = first.clone();
        let mut members = vec![0u32; self.len()];
        for (n, &p) in part.iter().enumerate() {
            members[fill[p] as usize] = n as u32;
            fill[p] += 1;
        }
        drop(fill);
        let seen: Vec<AtomicBool> = (0..self.len()).map(|_| AtomicBool::new(false)).collect();
        let chunks = map_chunks(fork, 0..parts, PIECE_GRAIN, &|range| {
            let mut stack: Vec<u32> = Vec::new();
            range
                .map(|p| {
                    let mut count = 0;
                    for &start in &members[first[p] as usize..first[p + 1] as usize] {
                        // Plain loads and stores (no read-modify-write): only this
                        // chunk touches its parts' nodes.
                        if seen[start as usize].load(Relaxed) {
                            continue;
                        }
                        count += 1;
                        seen[start as usize].store(true, Relaxed);
                        stack.push(start);
                        while let Some(k) = stack.pop() {
                            for m in self.neighbours_of(k as usize) {
                                if part[m] == p && !seen[m].load(Relaxed) {
                                    seen[m].store(true, Relaxed);
                                    stack.push(m as u32);
                                }
                            }
                        }
                    }
                    count
                })
                .collect::<Vec<usize>>()
        });
        chunks.concat()
    }

    /// The connected pieces of every part of `part` (the part of each node), each as its list
    /// of nodes, in the order of their first node.
    pub fn pieces(&self, part: &[usize]) -> Vec<Vec<usize>> {
        let mut seen = vec![false; self.len()];
        let mut out = Vec::new();
        for start in 0..self.len() {
            if !seen[start] {
                out.push(self.flood(start, |m| part[m] == part[start], &mut seen));
            }
        }
        out
    }
}

/// A node number stored as `u32` (coarsening's groups, 4 bytes a node) or `usize`.
pub trait NodeIndex: Copy {
    /// The number as an index.
    fn index(self) -> usize;
}

impl NodeIndex for u32 {
    fn index(self) -> usize {
        self as usize
    }
}

impl NodeIndex for usize {
    fn index(self) -> usize {
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::TileGraph;

    #[test]
    fn piece_counts_are_the_pieces_counted() {
        // A 30 × 30 square in 13 parts of scattered nodes (many pieces each).
        let g = TileGraph::from_mask([30, 30, 1], &[true; 900], [1, 1, 1], 1.0)
            .unwrap()
            .graph;
        let part: Vec<usize> = (0..900)
            .map(|n| (n * 7 + n / 30) % 11 + n / 450 * 2)
            .collect();
        let mut expected = vec![0; 13];
        for piece in g.pieces(&part) {
            expected[part[piece[0]]] += 1;
        }
        assert!(expected.iter().sum::<usize>() > 100);
        assert_eq!(g.piece_counts(&part, 13), expected);
        assert_eq!(g.piece_counts(&part, 14)[13], 0);
    }
}
