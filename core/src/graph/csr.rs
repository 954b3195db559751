//! A weighted undirected graph in compressed sparse rows: what every partitioner here works on.

use alloc::vec;
use alloc::vec::Vec;

/// Node weights and weighted edges, each edge stored at both ends. Bytes: 16 a node (weight,
/// offset) and 12 an edge end (a `u32` neighbour, an `f64` weight), so a 3D cell graph (6
/// edge ends a cell) takes 88 bytes a node; at most `u32::MAX` nodes.
#[derive(Clone, Debug, PartialEq)]
pub struct Graph {
    /// Weight of each node (its computation).
    pub weight: Vec<f64>,
    /// `neighbours[offsets[n]..offsets[n + 1]]` are the nodes adjacent to node `n`.
    pub offsets: Vec<usize>,
    /// Adjacent nodes, by node.
    pub neighbours: Vec<u32>,
    /// Weight of each edge (same index as `neighbours`): its communication volume.
    pub edge_weight: Vec<f64>,
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
        let mut offsets = vec![0usize; n + 1];
        for (a, b, _) in edges() {
            offsets[a + 1] += 1;
            offsets[b + 1] += 1;
        }
        for k in 0..n {
            offsets[k + 1] += offsets[k];
        }
        let mut fill = offsets.clone();
        let mut neighbours = vec![0u32; offsets[n]];
        let mut edge_weight = vec![0.0; offsets[n]];
        for (a, b, w) in edges() {
            for (from, to) in [(a, b), (b, a)] {
                neighbours[fill[from]] = to as u32;
                edge_weight[fill[from]] = w;
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
        self.offsets[n + 1] - self.offsets[n]
    }

    /// The neighbours of node `n` with the edge weights.
    pub fn edges(&self, n: usize) -> impl Iterator<Item = (usize, f64)> + '_ {
        let range = self.offsets[n]..self.offsets[n + 1];
        self.neighbours[range.clone()]
            .iter()
            .map(|&m| m as usize)
            .zip(self.edge_weight[range].iter().copied())
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
