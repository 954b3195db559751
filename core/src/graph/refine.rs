//! Boundary refinement after the redeployment: the positive-gain moves of Fiduccia and
//! Mattheyses (1982), the algorithm Smyk & Tudruj's redeployment extends (§1, §3), applied
//! until none is left. yee adds it to RCDC because CDC's diffusion clusters and the balancing
//! moves leave ragged borders that cost edge cut (docs/partitioning.md has the numbers).

use alloc::vec;
use alloc::vec::Vec;

use super::csr::Graph;
use super::redeploy::hanging_on;

/// Moves boundary nodes to the neighbouring part they share the most edge weight with while
/// that lowers the edge cut, the receiving part's weight stays within `(1 + tolerance)` of its
/// target (its share of the total in proportion to `speeds`), and the giving part keeps a node
/// and stays connected (nothing hangs on the moved node alone). Sweeps the nodes in order
/// until a sweep moves nothing; returns the number of moves.
pub fn refine(g: &Graph, speeds: &[f64], tolerance: f64, part: &mut [usize]) -> usize {
    let parts = speeds.len();
    let total_speed: f64 = speeds.iter().sum();
    let limit: Vec<f64> = speeds
        .iter()
        .map(|s| (1.0 + tolerance) * g.total_weight() * s / total_speed)
        .collect();
    let mut weight = vec![0.0; parts];
    let mut count = vec![0usize; parts];
    for n in 0..g.len() {
        weight[part[n]] += g.weight[n];
        count[part[n]] += 1;
    }
    let mut seen = vec![false; g.len()];
    let mut to = vec![0.0; parts];
    let mut moves = 0;
    loop {
        let mut moved = false;
        for n in 0..g.len() {
            let p = part[n];
            if count[p] < 2 {
                continue;
            }
            let mut touched: Vec<usize> = Vec::new();
            for (m, w) in g.edges(n) {
                if to[part[m]] == 0.0 {
                    touched.push(part[m]);
                }
                to[part[m]] += w;
            }
            let inside = to[p];
            let best = touched
                .iter()
                .copied()
                .filter(|&q| q != p && weight[q] + g.weight[n] <= limit[q])
                .max_by(|&a, &b| to[a].total_cmp(&to[b]).then(b.cmp(&a)));
            let lowers_cut = best.filter(|&q| to[q] > inside);
            for &q in &touched {
                to[q] = 0.0;
            }
            let Some(q) = lowers_cut else {
                continue;
            };
            if hanging_on(g, part, p, n, &mut seen).is_none_or(|h| !h.is_empty()) {
                continue;
            }
            part[n] = q;
            weight[p] -= g.weight[n];
            weight[q] += g.weight[n];
            count[p] -= 1;
            count[q] += 1;
            moves += 1;
            moved = true;
        }
        if !moved {
            return moves;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::{TileGraph, quality};

    #[test]
    fn a_spike_is_taken_back_and_balance_and_connectivity_hold() {
        // A 4 × 4 square split down the middle, with one cell of the right part poking into
        // the left: moving it back cuts 2 edges.
        let g = TileGraph::from_mask([4, 4, 1], &[true; 16], [1, 1, 1], 1.0)
            .unwrap()
            .graph;
        let mut part: Vec<usize> = (0..16).map(|n| usize::from(n % 4 >= 2)).collect();
        part[5] = 1; // (1, 1) joins the right part
        part[6] = 0; // and (2, 1) the left, so both keep 8 cells
        let before = quality(&g, &part, &[1.0, 1.0]);
        let moves = refine(&g, &[1.0, 1.0], 0.0, &mut part);
        let after = quality(&g, &part, &[1.0, 1.0]);
        // With no room above the targets nothing can move.
        assert_eq!((moves, after.edge_cut), (0, before.edge_cut));
        let moves = refine(&g, &[1.0, 1.0], 0.2, &mut part);
        let after = quality(&g, &part, &[1.0, 1.0]);
        assert!(
            moves > 0 && after.edge_cut < before.edge_cut,
            "{before:?} {after:?}"
        );
        assert!(after.imbalance <= 1.2 + 1e-12);
        assert_eq!(after.disconnected, 0);
    }
}
