//! The coarsening phase of multilevel partitioning (Karypis & Kumar 1998, "A fast and high
//! quality multilevel scheme for partitioning irregular graphs", §3.1): heavy-edge matching
//! collapses pairs of adjacent nodes into one, the heaviest edge first, so the edges that
//! vanish inside coarse nodes carry the most weight and the coarse graph's cut stays close to
//! the fine one's. A coarse node is a matched pair of adjacent nodes, so every coarse node is
//! a connected set of fine nodes and a part connected in a coarse graph is connected in every
//! finer one.

use alloc::vec;
use alloc::vec::Vec;

use super::contract::contract;
use super::csr::Graph;
use super::fork::Fork;

/// Heavy-edge matching (HEM, Karypis & Kumar 1998, §3.1): visits the nodes in a fixed
/// pseudo-random order (xorshift from `seed`); an unmatched node is matched with the unmatched
/// neighbour it shares the heaviest edge with (the lighter neighbour on a tie) such that the
/// pair weighs at most `max_weight` (and, given `within`, lies in one part of it), or stays
/// alone. Writes each node's coarse node (numbered in the order of their first node) into
/// `group` and returns the number of coarse nodes.
pub fn heavy_edge_matching(
    g: &Graph,
    max_weight: f64,
    seed: u64,
    within: Option<&[u32]>,
    group: &mut [u32],
) -> usize {
    let n = g.len();
    let mut order: Vec<u32> = (0..n as u32).collect();
    let mut state = seed | 1;
    for i in (1..n).rev() {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        order.swap(i, (state % (i as u64 + 1)) as usize);
    }
    const NONE: u32 = u32::MAX;
    let mut mate = vec![NONE; n];
    // The neighbours' weights are read (random accesses, most of the matching's time on a
    // large graph) only where they can matter: a node whose weight with the heaviest node's
    // stays within `max_weight` pairs with any neighbour (addition is monotonic, so this
    // skips no pair the test would refuse), and on a graph of equal weights no tie is
    // broken by weight.
    let (lightest, heaviest) = g
        .weight
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &w| {
            (lo.min(w), hi.max(w))
        });
    let equal = lightest == heaviest;
    // Where every edge weighs 1 as well, the first neighbour that may pair wins (no later
    // one is heavier or, weights being equal, breaks a tie): the scan stops there.
    let first_wins = equal && g.edge_weight.is_unit();
    for &a in &order {
        let a = a as usize;
        if mate[a] != NONE {
            continue;
        }
        let fits_any = g.weight[a] + heaviest <= max_weight;
        let mut best: Option<(usize, f64)> = None;
        for (b, w) in g.edges(a) {
            if mate[b] != NONE
                || b == a
                || (!fits_any && g.weight[a] + g.weight[b] > max_weight)
                || within.is_some_and(|p| p[a] != p[b])
            {
                continue;
            }
            let better = best
                .is_none_or(|(c, bw)| w > bw || (w == bw && !equal && g.weight[b] < g.weight[c]));
            if better {
                best = Some((b, w));
                if first_wins && fits_any {
                    break;
                }
            }
        }
        let b = best.map_or(a, |(b, _)| b);
        mate[a] = b as u32;
        mate[b] = a as u32;
    }
    drop(order);
    let mut count = 0u32;
    for k in 0..n {
        let m = mate[k] as usize;
        if m >= k {
            group[k] = count;
            if m != k {
                group[m] = count;
            }
            count += 1;
        }
    }
    count as usize
}

/// One level of the hierarchy: the coarse graph and each finer node's coarse node.
#[derive(Clone, Debug)]
pub struct Level {
    /// The coarse graph; `None` where [`coarsen`] dropped it (the first level of a graph of
    /// more than [`REBUILD_NODES`] nodes), for [`Level::rebuild`] to make again.
    pub graph: Option<Graph>,
    /// The coarse node of each node of the next finer graph (4 bytes a fine node).
    pub group: Vec<u32>,
    /// Nodes of the coarse graph.
    pub nodes: usize,
}

impl Level {
    /// The coarse graph, contracted again from `fine` (the next finer graph) where it was
    /// dropped: the same graph ([`contract`] is a function of the fine graph and the groups).
    /// A peak of memory, so through [`Fork::one_at_a_time`].
    pub fn rebuild<F: Fork>(&mut self, fork: &F, fine: &Graph) -> &Graph {
        self.graph.get_or_insert_with(|| {
            fork.one_at_a_time(|| contract(fork, fine, &self.group, self.nodes))
        })
    }
}

/// Above this many nodes, [`coarsen`] drops its first coarse graph once the second is built
/// and the projection back rebuilds it ([`Level::rebuild`], one more contraction of the
/// finest graph, about 5 % of a multilevel run): the first coarse graph of a 3D cell graph
/// holds about 29 bytes a node of the fine graph (its edge weights a byte each) and the
/// coarser ones about 40 together, so the coarsening's peak falls from the fine graph and the
/// whole hierarchy to the fine graph and the first two levels (docs/partitioning.md, "At
/// scale"). Both contractions of the finest graph (the first level and its rebuild) run
/// through [`Fork::one_at_a_time`]: RCDC's tries side by side add one such peak, not one each.
pub const REBUILD_NODES: usize = 1 << 20;

/// Coarsens `g` by heavy-edge matching until at most `target` nodes remain or a matching
/// shrinks the graph by less than a tenth; no coarse node weighs more than 1.5 × the total ÷
/// `target` (Karypis & Kumar's bound, which keeps the coarsest graph partitionable); `seed`
/// picks the matchings' visiting orders. Given `within` (a part of each node), only nodes of
/// one part are matched, so the partition holds on every level (the V-cycles of Walshaw's
/// iterated multilevel refinement). Returns the levels, finest first (none when `g` is
/// already small enough).
pub fn coarsen<F: Fork>(
    fork: &F,
    g: &Graph,
    target: usize,
    seed: u64,
    within: Option<&[u32]>,
) -> Vec<Level> {
    let max_weight = 1.5 * g.total_weight() / target.max(1) as f64;
    let mut levels: Vec<Level> = Vec::new();
    // The part of each node of the finest graph not yet coarsened (`within` itself on `g`,
    // so no copy of a part per node of `g` is made).
    let mut coarse_part: Option<Vec<u32>> = None;
    loop {
        let fine_part = coarse_part.as_deref().or(within);
        if levels.len() == 2 && g.len() > REBUILD_NODES {
            levels[0].graph = None;
        }
        let fine = levels
            .last()
            .map_or(g, |l| l.graph.as_ref().expect("the coarsest level is kept"));
        if fine.len() <= target {
            return levels;
        }
        let mut group = vec![0u32; fine.len()];
        let level_seed = 0x9e37_79b9_7f4a_7c15 ^ seed.rotate_left(17) ^ levels.len() as u64;
        let count = heavy_edge_matching(fine, max_weight, level_seed, fine_part, &mut group);
        if let Some(p) = fine_part {
            // A coarse node's part: that of its fine nodes (all one).
            let mut coarse = vec![0u32; count];
            for (n, &c) in group.iter().enumerate() {
                coarse[c as usize] = p[n];
            }
            coarse_part = Some(coarse);
        }
        if count * 10 > fine.len() * 9 {
            return levels;
        }
        let graph = if levels.is_empty() && g.len() > REBUILD_NODES {
            // The finest graph's contraction: a peak of memory (its rows and the first coarse
            // graph, about 45 bytes a fine node at tile 1), one at a time among tries.
            fork.one_at_a_time(|| contract(fork, fine, &group, count))
        } else {
            contract(fork, fine, &group, count)
        };
        levels.push(Level {
            graph: Some(graph),
            group,
            nodes: count,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::TileGraph;
    use crate::graph::fork::Sequential;

    #[test]
    fn matching_pairs_adjacent_nodes_heaviest_edge_first_and_keeps_weights() {
        // A path 0 –5– 1 –1– 2 –5– 3: the heavy edges pair 0 with 1 and 2 with 3.
        let g = Graph::from_edges(vec![1.0; 4], &[(0, 1, 5.0), (1, 2, 1.0), (2, 3, 5.0)]);
        let mut group = vec![0; 4];
        assert_eq!(heavy_edge_matching(&g, 10.0, 7, None, &mut group), 2);
        assert_eq!(group, [0, 0, 1, 1]);
        // A weight bound of 1: nothing pairs.
        assert_eq!(heavy_edge_matching(&g, 1.0, 7, None, &mut group), 4);
    }

    #[test]
    fn coarse_nodes_are_connected_and_weights_are_kept() {
        let mask: Vec<bool> = (0..900).map(|i| (i % 30) % 7 != 3 || i / 30 < 4).collect();
        let g = TileGraph::from_mask([30, 30, 1], &mask, [1, 1, 1], 1.0)
            .unwrap()
            .graph;
        let levels = coarsen(&Sequential, &g, 40, 0, None);
        assert!(levels.len() >= 3, "{}", levels.len());
        let mut fine = &g;
        for level in &levels {
            let c = level.graph.as_ref().unwrap();
            assert!(c.len() < fine.len());
            assert_eq!(c.total_weight(), fine.total_weight());
            // Each coarse node's fine nodes are joined (one piece), and the cut of any
            // partition of the coarse graph is the cut of its projection.
            let group: Vec<usize> = level.group.iter().map(|&c| c as usize).collect();
            for piece in fine.pieces(&group) {
                assert_eq!(
                    piece.len(),
                    level
                        .group
                        .iter()
                        .filter(|&&x| x == level.group[piece[0]])
                        .count()
                );
            }
            let coarse_part: Vec<usize> = (0..c.len()).map(|k| k % 3).collect();
            let fine_part: Vec<usize> = level
                .group
                .iter()
                .map(|&k| coarse_part[k as usize])
                .collect();
            let cut = |g: &Graph, p: &[usize]| crate::graph::quality(g, p, &[1.0; 3]).edge_cut;
            assert_eq!(cut(c, &coarse_part), cut(fine, &fine_part));
            fine = c;
        }
        assert!(
            fine.weight
                .iter()
                .all(|&w| w <= 1.5 * g.total_weight() / 40.0)
        );
    }

    #[test]
    fn a_dropped_level_is_rebuilt_as_it_was() {
        let mask: Vec<bool> = (0..900).map(|i| (i % 30) % 7 != 3 || i / 30 < 4).collect();
        let g = TileGraph::from_mask([30, 30, 1], &mask, [1, 1, 1], 1.0)
            .unwrap()
            .graph;
        let mut levels = coarsen(&Sequential, &g, 40, 5, None);
        let kept = levels[0].graph.take().unwrap();
        assert_eq!(levels[0].nodes, kept.len());
        assert_eq!(*levels[0].rebuild(&Sequential, &g), kept);
        // The second level is a contraction of the first.
        let second = levels[1].graph.take().unwrap();
        assert_eq!(*levels[1].rebuild(&Sequential, &kept), second);
    }

    #[test]
    fn matching_within_parts_keeps_every_coarse_node_in_one_part() {
        let g = TileGraph::from_mask([30, 30, 1], &[true; 900], [1, 1, 1], 1.0)
            .unwrap()
            .graph;
        // Diagonal stripes: a part of every node, cut by many edges.
        let part: Vec<u32> = (0..900).map(|i| (i % 30 + i / 30) / 7 % 3).collect();
        let levels = coarsen(&Sequential, &g, 40, 3, Some(&part));
        assert!(!levels.is_empty());
        let mut node_part = part.clone();
        for level in &levels {
            let mut coarse = vec![u32::MAX; level.nodes];
            for (n, &c) in level.group.iter().enumerate() {
                let c = c as usize;
                assert!(coarse[c] == u32::MAX || coarse[c] == node_part[n], "mixed");
                coarse[c] = node_part[n];
            }
            node_part = coarse;
        }
        // Without the parts, matching does pair nodes of different parts.
        let free = coarsen(&Sequential, &g, 40, 3, None);
        let mixed = free[0].group.iter().enumerate().any(|(n, &c)| {
            free[0]
                .group
                .iter()
                .enumerate()
                .any(|(m, &d)| d == c && part[m] != part[n])
        });
        assert!(mixed);
    }
}
