//! How good a partition of a tile graph is: part weights, edge cut, communication volume,
//! imbalance against target weights, and parts that fall apart into disconnected pieces.

use alloc::vec;
use alloc::vec::Vec;

use super::csr::Graph;
use super::fork::{Fork, Sequential};

/// The measures of one partition.
#[derive(Clone, Debug, PartialEq)]
pub struct PartitionQuality {
    /// Weight of each part.
    pub part_weight: Vec<f64>,
    /// Sum of the weights of edges whose ends lie in different parts.
    pub edge_cut: f64,
    /// Per part, the weight of its edges to other parts (what it sends per step).
    pub comm_volume: Vec<f64>,
    /// Max over parts of weight ÷ target weight, the targets scaled to the total weight.
    pub imbalance: f64,
    /// Connected pieces beyond the first, summed over the parts (0: every part is connected).
    pub disconnected: usize,
    /// Parts with no node.
    pub empty_parts: usize,
}

/// The quality of `part` (the part of each node, `< targets.len()`) against `targets` (the
/// relative weight each part should get; all equal for a homogeneous machine).
pub fn quality(g: &Graph, part: &[usize], targets: &[f64]) -> PartitionQuality {
    quality_on(&Sequential, g, part, targets)
}

/// [`quality`] with the parts' pieces counted side by side through `fork`
/// ([`Graph::piece_counts_on`]): the same measures.
pub fn quality_on<F: Fork>(
    fork: &F,
    g: &Graph,
    part: &[usize],
    targets: &[f64],
) -> PartitionQuality {
    let parts = targets.len();
    let mut part_weight = vec![0.0; parts];
    let mut comm_volume = vec![0.0; parts];
    let mut edge_cut = 0.0;
    for n in 0..g.len() {
        part_weight[part[n]] += g.weight[n];
        for (m, w) in g.edges(n) {
            if part[m] != part[n] {
                comm_volume[part[n]] += w;
                if m > n {
                    edge_cut += w;
                }
            }
        }
    }
    let total: f64 = part_weight.iter().sum();
    let target_sum: f64 = targets.iter().sum();
    let imbalance = part_weight
        .iter()
        .zip(targets)
        .map(|(&w, &t)| w / (total * t / target_sum))
        .fold(0.0, f64::max);
    let pieces = g.piece_counts_on(fork, part, parts);
    PartitionQuality {
        disconnected: pieces.iter().map(|&p| p.saturating_sub(1)).sum(),
        empty_parts: pieces.iter().filter(|&&p| p == 0).count(),
        part_weight,
        edge_cut,
        comm_volume,
        imbalance,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::TileGraph;

    /// A 4×1 row of cells, tile size 1: a path 0–1–2–3.
    fn path() -> Graph {
        TileGraph::from_mask([4, 1, 1], &[true; 4], [1, 1, 1], 1.0)
            .unwrap()
            .graph
    }

    #[test]
    fn measures_by_hand() {
        let g = path();
        let q = quality(&g, &[0, 0, 1, 1], &[1.0, 1.0]);
        assert_eq!(q.part_weight, [2.0, 2.0]);
        assert_eq!(q.edge_cut, 1.0);
        assert_eq!(q.comm_volume, [1.0, 1.0]);
        assert_eq!(q.imbalance, 1.0);
        assert_eq!(q.disconnected, 0);
        // Parts 0, 1, 0, 1: each part in two pieces, three cut edges.
        let q = quality(&g, &[0, 1, 0, 1], &[1.0, 1.0]);
        assert_eq!((q.edge_cut, q.disconnected), (3.0, 2));
        // Against targets 3 : 1, an even split overloads part 1 twice over.
        let q = quality(&g, &[0, 0, 1, 1], &[3.0, 1.0]);
        assert_eq!(q.imbalance, 2.0);
        let q = quality(&g, &[0, 0, 0, 0], &[1.0, 1.0]);
        assert_eq!((q.empty_parts, q.imbalance), (1, 2.0));
    }
}
