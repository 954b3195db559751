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
/// weight, a `u32` offset) and 4 an edge end (a `u32` neighbour) plus its weight as
/// [`EdgeWeights`] stores it: nothing where every edge weighs 1, 1 byte where every weight is
/// an integer up to 255, else 4 (an `f32`). So a 3D cell graph (6 edge ends a cell, all of
/// weight 1) takes 36 bytes a node, and its first coarse graphs (integer weights of a few
/// facing pairs) about 12 + 5 × degree; at most `u32::MAX` nodes and `u32::MAX` edge ends (a
/// 3D cell graph of 7 × 10⁸ cells). Two graphs of the same edges store their weights alike
/// (every builder goes through [`Graph::from_edge_iter`], which picks the narrowest), so they
/// compare equal. Edge weights are at most `f32`: the facing-pair counts of a tile graph and
/// their sums in coarse graphs are integers, exact below 2²⁴ (16 777 216 pairs on one edge),
/// so every algorithm here sees the same `f64` values as with `f64` storage; a weight above
/// that, or not an integer, is rounded to the nearest `f32` once, when the graph is built.
#[derive(Clone, Debug, PartialEq)]
pub struct Graph {
    /// Weight of each node (its computation).
    pub weight: Vec<f64>,
    /// `neighbours[offsets[n]..offsets[n + 1]]` are the nodes adjacent to node `n`.
    pub offsets: Vec<u32>,
    /// Adjacent nodes, by node.
    pub neighbours: Vec<u32>,
    /// Weight of each edge (same index as `neighbours`): its communication volume, stored
    /// as narrow as its values allow.
    pub edge_weight: EdgeWeights,
}

/// One row's edge weights, borrowed from [`EdgeWeights`].
#[derive(Clone, Copy)]
enum RowWeights<'a> {
    Unit,
    Small(&'a [u8]),
    Wide(&'a [f32]),
}

impl RowWeights<'_> {
    /// The weight of the row's edge end `i` (`i` below the row's length: the neighbours'
    /// slice has the same).
    #[inline]
    fn at(self, i: usize) -> f64 {
        match self {
            RowWeights::Unit => 1.0,
            RowWeights::Small(w) => w.get(i).map_or(1.0, |&w| f64::from(w)),
            RowWeights::Wide(w) => w.get(i).map_or(1.0, |&w| f64::from(w)),
        }
    }
}

/// Whether `w` is an integer from 0 to 255 (held exactly by [`EdgeWeights::Small`]).
#[inline]
fn fits_a_byte(w: f32) -> bool {
    // (A cast rather than `fract`, which is a call into libm without `std`.)
    (0.0..=255.0).contains(&w) && f32::from(w as u8) == w
}

/// The edge weights of a [`Graph`], in the narrowest of three forms that holds every one
/// exactly (as the `f32` it would otherwise be stored as): none stored where all are 1 (a
/// cell graph, tile 1), a byte each where all are integers from 0 to 255 (the first levels
/// of coarsening a cell graph: 1 to 4 facing pairs, issue 53's memory per try), else an
/// `f32` each. Every algorithm reads them through [`Graph::edges`] as the same `f64`s in
/// any form.
#[derive(Clone, Debug, PartialEq)]
pub enum EdgeWeights {
    /// Every edge weighs 1.
    Unit,
    /// Integers from 0 to 255, a byte each.
    Small(Vec<u8>),
    /// Any weight, rounded to `f32` once.
    Wide(Vec<f32>),
}

impl EdgeWeights {
    /// The weight of edge end `i`.
    #[inline]
    pub fn at(&self, i: usize) -> f64 {
        self.range(i..i + 1).at(0)
    }

    /// The weights of edge ends `range` (one node's, in [`Graph::edges`]), the form picked
    /// once for the row.
    #[inline]
    fn range(&self, range: core::ops::Range<usize>) -> RowWeights<'_> {
        match self {
            EdgeWeights::Unit => RowWeights::Unit,
            EdgeWeights::Small(w) => RowWeights::Small(&w[range]),
            EdgeWeights::Wide(w) => RowWeights::Wide(&w[range]),
        }
    }

    /// `weights` (already rounded to `f32`) a byte each where all are integers from 0 to
    /// 255, else as they are, without growth slack: never [`EdgeWeights::Unit`].
    pub fn narrowed(mut weights: Vec<f32>) -> EdgeWeights {
        if weights.iter().all(|&w| fits_a_byte(w)) {
            EdgeWeights::Small(weights.iter().map(|&w| w as u8).collect())
        } else {
            weights.shrink_to_fit();
            EdgeWeights::Wide(weights)
        }
    }

    /// Whether every edge weighs 1 (none stored).
    pub fn is_unit(&self) -> bool {
        matches!(self, EdgeWeights::Unit)
    }

    /// The narrowest form for weights that are all `1` (`unit`), or all integers from 0 to
    /// 255 (`small`), with room for `ends` edge ends.
    fn zeroed(unit: bool, small: bool, ends: usize) -> EdgeWeights {
        if unit {
            EdgeWeights::Unit
        } else if small {
            EdgeWeights::Small(vec![0; ends])
        } else {
            EdgeWeights::Wide(vec![0.0; ends])
        }
    }

    /// Stores `w` (already rounded to `f32`) at edge end `i`: exact in every form
    /// [`EdgeWeights::zeroed`] picked for it.
    fn set(&mut self, i: usize, w: f32) {
        match self {
            EdgeWeights::Unit => {}
            EdgeWeights::Small(v) => v[i] = w as u8,
            EdgeWeights::Wide(v) => v[i] = w,
        }
    }
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
        let (mut unit, mut small) = (true, true);
        for (a, b, w) in edges() {
            offsets[a + 1] += 1;
            offsets[b + 1] += 1;
            let w = w as f32;
            unit &= w == 1.0;
            small &= fits_a_byte(w);
        }
        let mut sum = 0u64;
        for o in offsets.iter_mut() {
            sum += u64::from(*o);
            *o = u32::try_from(sum).expect("at most u32::MAX (4 294 967 295) edge ends");
        }
        let ends = offsets[n] as usize;
        // Node `a`'s row is filled at `offsets[a + 1]`, set to its start (the offsets moved
        // up one) and advanced past each end written, so it ends at the next row's start:
        // no second array of offsets.
        offsets.copy_within(0..n, 1);
        let mut neighbours = vec![0u32; ends];
        let mut edge_weight = EdgeWeights::zeroed(unit, small, ends);
        for (a, b, w) in edges() {
            for (from, to) in [(a, b), (b, a)] {
                let at = offsets[from + 1] as usize;
                neighbours[at] = to as u32;
                edge_weight.set(at, w as f32);
                offsets[from + 1] += 1;
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
    #[inline]
    pub fn edges(&self, n: usize) -> impl Iterator<Item = (usize, f64)> + '_ {
        let range = self.offsets[n] as usize..self.offsets[n + 1] as usize;
        let weights = self.edge_weight.range(range.clone());
        self.neighbours[range]
            .iter()
            .enumerate()
            .map(move |(i, &m)| (m as usize, weights.at(i)))
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

    #[test]
    fn edge_weights_are_stored_as_narrow_as_their_values_allow() {
        let build = |w: f64| Graph::from_edges(vec![1.0; 3], &[(0, 1, 1.0), (1, 2, w)]);
        assert_eq!(build(1.0).edge_weight, EdgeWeights::Unit);
        assert_eq!(
            build(255.0).edge_weight,
            EdgeWeights::Small(vec![1, 1, 255, 255])
        );
        assert_eq!(build(0.0).edge_weight, EdgeWeights::Small(vec![1, 1, 0, 0]));
        // Above a byte, a fraction or negative: an f32 each.
        for w in [256.0, 2.5, -1.0] {
            let g = build(w);
            assert_eq!(
                g.edge_weight,
                EdgeWeights::Wide(vec![1.0, 1.0, w as f32, w as f32])
            );
        }
        // Read back as the same f64 in every form.
        for w in [1.0, 7.0, 2.5, 1e9 + 1.0] {
            let g = build(w);
            assert_eq!(g.edges(2).collect::<Vec<_>>(), [(1, f64::from(w as f32))]);
        }
    }
}
