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
use super::csr::{EdgeWeights, Graph};
use super::fork::{Fork, map_chunks_mut};

/// Graphs of at least this many nodes are matched in windows side by side
/// ([`heavy_edge_matching`]) where the fork has more than one thread.
pub const WINDOWED_MATCHING_NODES: usize = 1 << 16;

/// The mark of a node not yet matched.
const NONE: u32 = u32::MAX;

/// Heavy-edge matching (HEM, Karypis & Kumar 1998, §3.1): visits the nodes in a fixed
/// pseudo-random order (xorshift from `seed`); an unmatched node is matched with the unmatched
/// neighbour it shares the heaviest edge with (the lighter neighbour on a tie) such that the
/// pair weighs at most `max_weight` (and, given `within`, lies in one part of it), or stays
/// alone. Writes each node's coarse node (numbered in the order of their first node) into
/// `group` and returns the number of coarse nodes. On a graph of at least
/// [`WINDOWED_MATCHING_NODES`] nodes and a fork of several threads the visit runs in
/// windows ([`match_in_windows`]), which give the same matching.
pub fn heavy_edge_matching<F: Fork>(
    fork: &F,
    g: &Graph,
    max_weight: f64,
    seed: u64,
    within: Option<&[u32]>,
    group: &mut [u32],
) -> usize {
    let n = g.len();
    let order = visit_order(n, seed);
    let chooser = Chooser::new(g, max_weight, within);
    let mut mate = vec![NONE; n];
    if fork.side_by_side() && n >= WINDOWED_MATCHING_NODES {
        match_in_windows(
            fork,
            &chooser,
            &order,
            &mut mate,
            (n / 128).clamp(1 << 11, 1 << 16),
        );
    } else {
        match_one_at_a_time(&chooser, &order, &mut mate);
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

/// The nodes `0..n` shuffled by Fisher–Yates with xorshift64 from `seed`.
fn visit_order(n: usize, seed: u64) -> Vec<u32> {
    let mut order: Vec<u32> = (0..n as u32).collect();
    let mut state = seed | 1;
    for i in (1..n).rev() {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        order.swap(i, (state % (i as u64 + 1)) as usize);
    }
    order
}

/// The greedy visit of [`heavy_edge_matching`], one node of `order` after the other.
fn match_one_at_a_time(chooser: &Chooser<'_>, order: &[u32], mate: &mut [u32]) {
    for &a in order {
        let a = a as usize;
        if mate[a] == NONE {
            let b = chooser.choose(a, mate);
            pair(mate, a, b);
        }
    }
}

/// Matches `a` with `b` (itself: alone).
fn pair(mate: &mut [u32], a: usize, b: usize) {
    mate[a] = b as u32;
    mate[b] = a as u32;
}

/// The greedy visit of [`heavy_edge_matching`] in windows of `window` nodes of `order`: each
/// window's unmatched nodes choose their mates side by side against the matching as the
/// window found it, then commit in order, choosing again only where the chosen node was
/// matched since by an earlier node of the window. The nodes still unmatched are a subset of
/// those the choice saw, so a choice whose node is still free is the best among them (on the
/// first-wins scan the first), and the matching is the one-at-a-time visit's, node for node,
/// whatever the window and however the choices run. The commits stay sequential: about a
/// third of the visit's memory accesses (the node's and its mate's slots, against its row
/// and every neighbour's slot and weight).
fn match_in_windows<F: Fork>(
    fork: &F,
    chooser: &Chooser<'_>,
    order: &[u32],
    mate: &mut [u32],
    window: usize,
) {
    let window = window.max(1);
    let grain = window.div_ceil(8);
    let mut choices = vec![NONE; window.min(order.len())];
    for visit in order.chunks(window) {
        let choices = &mut choices[..visit.len()];
        let seen: &[u32] = mate;
        map_chunks_mut(fork, choices, grain, &|i, chunk: &mut [u32]| {
            for (choice, &a) in chunk.iter_mut().zip(&visit[i * grain..]) {
                let a = a as usize;
                if seen[a] == NONE {
                    *choice = chooser.choose(a, seen) as u32;
                }
            }
        });
        for (&a, choice) in visit.iter().zip(choices.iter_mut()) {
            let a = a as usize;
            let chosen = core::mem::replace(choice, NONE) as usize;
            if mate[a] != NONE {
                continue;
            }
            let b = if chosen == a || mate[chosen] == NONE {
                chosen
            } else {
                chooser.choose(a, mate)
            };
            pair(mate, a, b);
        }
    }
}

/// A node's choice of mate in [`heavy_edge_matching`], with what the scan reads of the graph
/// once.
struct Chooser<'a> {
    g: &'a Graph,
    max_weight: f64,
    within: Option<&'a [u32]>,
    /// The heaviest node's weight.
    heaviest: f64,
    /// Every node weighs the same.
    equal: bool,
    /// Every node and every edge weighs the same: the first neighbour that may pair wins.
    first_wins: bool,
}

impl<'a> Chooser<'a> {
    fn new(g: &'a Graph, max_weight: f64, within: Option<&'a [u32]>) -> Self {
        let (lightest, heaviest) = g
            .weight
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &w| {
                (lo.min(w), hi.max(w))
            });
        let equal = lightest == heaviest;
        Chooser {
            g,
            max_weight,
            within,
            heaviest,
            equal,
            first_wins: equal && g.edge_weight.is_unit(),
        }
    }

    /// The unmatched neighbour (by `mate`) that `a` pairs with, or `a` itself. The
    /// neighbours' weights are read (random accesses, most of the matching's time on a large
    /// graph) only where they can matter: a node whose weight with the heaviest node's stays
    /// within `max_weight` pairs with any neighbour (addition is monotonic, so this skips no
    /// pair the test would refuse), and on a graph of equal weights no tie is broken by
    /// weight; where every edge weighs 1 as well, the scan stops at the first neighbour that
    /// may pair (no later one is heavier or, weights being equal, breaks a tie).
    fn choose(&self, a: usize, mate: &[u32]) -> usize {
        let g = self.g;
        let fits_any = g.weight[a] + self.heaviest <= self.max_weight;
        let mut best: Option<(usize, f64)> = None;
        for (b, w) in g.edges(a) {
            if mate[b] != NONE
                || b == a
                || (!fits_any && g.weight[a] + g.weight[b] > self.max_weight)
                || self.within.is_some_and(|p| p[a] != p[b])
            {
                continue;
            }
            let better = best.is_none_or(|(c, bw)| {
                w > bw || (w == bw && !self.equal && g.weight[b] < g.weight[c])
            });
            if better {
                best = Some((b, w));
                if self.first_wins && fits_any {
                    break;
                }
            }
        }
        best.map_or(a, |(b, _)| b)
    }
}

/// One level of the hierarchy: the coarse graph and each finer node's coarse node.
#[derive(Clone, Debug)]
pub struct Level {
    /// The coarse graph; `None` where [`coarsen`] dropped it (the first level, or two, of a
    /// graph of more than [`REBUILD_NODES`] nodes), for [`last_graph`] to make again.
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

/// The graph of the last of `levels` (coarsened from `g`), contracted again where
/// [`coarsen`] dropped it: the first level from `g`, the second from `g` grouped straight
/// into it (which [`coarsen`] drops only where [`sums_are_exact`]), a coarser one never
/// dropped; `g` itself where `levels` is empty. A contraction of `g` is a peak of memory, so
/// through [`Fork::one_at_a_time`].
pub fn last_graph<'a, F: Fork>(fork: &F, g: &'a Graph, levels: &'a mut [Level]) -> &'a Graph {
    if let [first, second] = levels
        && second.graph.is_none()
    {
        let through: Vec<u32> = first
            .group
            .iter()
            .map(|&k| second.group[k as usize])
            .collect();
        second.graph = Some(fork.one_at_a_time(|| contract(fork, g, &through, second.nodes)));
    }
    match levels {
        [] => g,
        [first] => first.rebuild(fork, g),
        [.., last] => last
            .graph
            .as_ref()
            .expect("only the first two levels are dropped"),
    }
}

/// Above this many nodes, [`coarsen`] drops its first coarse graph once the second level's
/// matching is made, and the projection back contracts it again ([`last_graph`]). Where
/// [`sums_are_exact`] holds for the finest graph (every tile graph of equal-cost cells), the
/// second coarse graph is contracted from the finest graph itself (each fine node grouped
/// straight into its second-level node) after the first is dropped, and is dropped in turn
/// once the third is built, to be contracted from the finest graph again on the way back.
/// At tile 1 in 3D the first coarse graph holds about 29 bytes a node of the fine graph (its
/// edge weights a byte each) and the second about 19, so a multilevel run's peak is the
/// fine graph and one coarse level being built (about 46 bytes a fine node) and its
/// hierarchy from the coarsest graph's partition back to the third level about 32, for two
/// more contractions of the finest graph a run (about 20 % more work on one thread). Every
/// contraction of the finest graph runs through [`Fork::one_at_a_time`], so RCDC's tries
/// side by side add one such peak, not one each (issue 53: two tries at once on the 256³
/// shell at tile 1 within 1 GB; docs/partitioning.md, "At scale").
pub const REBUILD_NODES: usize = 1 << 20;

/// Whether contracting `g` through two groupings of at most two nodes each (two matchings)
/// gives the same graph as contracting it twice: every node weight an integer and their
/// total below 2⁵³ (so the `f64` sums are exact in any order), and every edge weight an
/// integer ([`EdgeWeights::Unit`] or [`EdgeWeights::Small`]) with each node's incident
/// weights summing below 2²² (so a coarse edge, at most four fine nodes' incident weights,
/// is exact in `f32` in any order).
pub fn sums_are_exact(g: &Graph) -> bool {
    let integers = matches!(g.edge_weight, EdgeWeights::Unit | EdgeWeights::Small(_));
    // (Integers by a cast: `f64::fract` needs `std`.)
    let node_weights = g.weight.iter().all(|&w| w >= 0.0 && (w as u64) as f64 == w)
        && g.total_weight() < 9_007_199_254_740_992.0;
    integers
        && node_weights
        && (0..g.len()).all(|n| g.edges(n).map(|(_, w)| w).sum::<f64>() < f64::from(1u32 << 22))
}

/// Coarsens `g` by heavy-edge matching until at most `target` nodes remain or a matching
/// shrinks the graph by less than a tenth; no coarse node weighs more than 1.5 × the total ÷
/// `target` (Karypis & Kumar's bound, which keeps the coarsest graph partitionable); `seed`
/// picks the matchings' visiting orders. Given `within` (a part of each node), only nodes of
/// one part are matched, so the partition holds on every level (the V-cycles of Walshaw's
/// iterated multilevel refinement). Returns the levels, finest first (none when `g` is
/// already small enough); [`last_graph`] gives a level's graph where it was dropped.
pub fn coarsen<F: Fork>(
    fork: &F,
    g: &Graph,
    target: usize,
    seed: u64,
    within: Option<&[u32]>,
) -> Vec<Level> {
    coarsen_dropping_above(fork, g, target, seed, within, REBUILD_NODES)
}

/// [`coarsen`], dropping coarse graphs as there on graphs of more than `rebuild_nodes`
/// nodes (the same levels otherwise).
fn coarsen_dropping_above<F: Fork>(
    fork: &F,
    g: &Graph,
    target: usize,
    seed: u64,
    within: Option<&[u32]>,
    rebuild_nodes: usize,
) -> Vec<Level> {
    let max_weight = 1.5 * g.total_weight() / target.max(1) as f64;
    let mut levels: Vec<Level> = Vec::new();
    let drop_first = g.len() > rebuild_nodes;
    let straight = drop_first && sums_are_exact(g);
    // The part of each node of the finest graph not yet coarsened (`within` itself on `g`,
    // so no copy of a part per node of `g` is made).
    let mut coarse_part: Option<Vec<u32>> = None;
    loop {
        let fine_part = coarse_part.as_deref().or(within);
        if levels.len() == 2 && drop_first {
            levels[0].graph = None;
        }
        if levels.len() == 3 && straight {
            levels[1].graph = None;
        }
        let fine = levels
            .last()
            .map_or(g, |l| l.graph.as_ref().expect("the coarsest level is kept"));
        if fine.len() <= target {
            return levels;
        }
        let mut group = vec![0u32; fine.len()];
        let level_seed = 0x9e37_79b9_7f4a_7c15 ^ seed.rotate_left(17) ^ levels.len() as u64;
        let count = heavy_edge_matching(fork, fine, max_weight, level_seed, fine_part, &mut group);
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
        let graph = if straight && levels.len() == 1 {
            // The first coarse graph is no longer needed: the second is `g` grouped
            // straight into it (the same sums, `sums_are_exact`).
            let first = &mut levels[0];
            first.graph = None;
            let through: Vec<u32> = first.group.iter().map(|&k| group[k as usize]).collect();
            fork.one_at_a_time(|| contract(fork, g, &through, count))
        } else if levels.is_empty() && drop_first {
            fork.one_at_a_time(|| contract(fork, g, &group, count))
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

    /// A 30 × 30 × `layers` block of cells with slots (every seventh column of cells empty
    /// from the fifth row up), as tiles of `tile` cells.
    fn slotted(layers: usize, tile: [usize; 3]) -> Graph {
        let mask: Vec<bool> = (0..900 * layers)
            .map(|i| (i % 30) % 7 != 3 || i % 900 / 30 < 4)
            .collect();
        TileGraph::from_mask([30, 30, layers], &mask, tile, 1.0)
            .unwrap()
            .graph
    }

    #[test]
    fn matching_pairs_adjacent_nodes_heaviest_edge_first_and_keeps_weights() {
        // A path 0 –5– 1 –1– 2 –5– 3: the heavy edges pair 0 with 1 and 2 with 3.
        let g = Graph::from_edges(vec![1.0; 4], &[(0, 1, 5.0), (1, 2, 1.0), (2, 3, 5.0)]);
        let mut group = vec![0; 4];
        assert_eq!(
            heavy_edge_matching(&Sequential, &g, 10.0, 7, None, &mut group),
            2
        );
        assert_eq!(group, [0, 0, 1, 1]);
        // A weight bound of 1: nothing pairs.
        assert_eq!(
            heavy_edge_matching(&Sequential, &g, 1.0, 7, None, &mut group),
            4
        );
    }

    /// The windowed visit against the one-at-a-time visit, on unit weights (the first-wins
    /// scan), on a coarse level's node and edge weights (ties broken by weight) and within
    /// parts, with windows from one node to the whole order: the same mate for every node.
    #[test]
    fn matching_in_windows_is_the_one_at_a_time_matching() {
        let fine = slotted(3, [1, 1, 1]);
        let coarse = coarsen(&Sequential, &fine, 500, 5, None)[1]
            .graph
            .clone()
            .unwrap();
        assert!(!coarse.edge_weight.is_unit());
        let stripes = |n: usize| -> Vec<u32> { (0..n as u32).map(|i| i / 37 % 4).collect() };
        for (g, bound) in [(&fine, 2.0), (&coarse, 6.0), (&coarse, 1e9)] {
            let part = stripes(g.len());
            for within in [None, Some(&part[..])] {
                let chooser = Chooser::new(g, bound, within);
                let order = visit_order(g.len(), 11);
                let mut one = vec![NONE; g.len()];
                match_one_at_a_time(&chooser, &order, &mut one);
                assert!(one.iter().enumerate().any(|(a, &b)| b as usize != a));
                for window in [1, 2, 7, 64, 1000, g.len()] {
                    let mut windowed = vec![NONE; g.len()];
                    match_in_windows(&Sequential, &chooser, &order, &mut windowed, window);
                    assert_eq!(windowed, one, "window {window}, {} nodes", g.len());
                }
            }
        }
    }

    #[test]
    fn coarse_nodes_are_connected_and_weights_are_kept() {
        let g = slotted(1, [1, 1, 1]);
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
        let g = slotted(1, [1, 1, 1]);
        let mut levels = coarsen(&Sequential, &g, 40, 5, None);
        let kept = levels[0].graph.take().unwrap();
        assert_eq!(levels[0].nodes, kept.len());
        assert_eq!(*levels[0].rebuild(&Sequential, &g), kept);
        // The second level is a contraction of the first.
        let second = levels[1].graph.take().unwrap();
        assert_eq!(*levels[1].rebuild(&Sequential, &kept), second);
    }

    /// On graphs of integer weights, the second level contracted straight from the finest
    /// graph (the first dropped, then the second) is the one contracted from the first, and
    /// both are made again as they were; where a weight is not an integer, nothing is
    /// contracted straight.
    #[test]
    fn the_second_level_straight_from_the_finest_graph_is_the_same() {
        let g = slotted(3, [1, 1, 1]);
        assert!(sums_are_exact(&g));
        // Tile 2 in x: integer edge weights (facing pairs), stored a byte each.
        let tiled = slotted(3, [2, 1, 1]);
        assert!(matches!(tiled.edge_weight, EdgeWeights::Small(_)) && sums_are_exact(&tiled));
        let halves = Graph::from_edges(g.weight.iter().map(|w| w * 0.5).collect(), &[]);
        assert!(!sums_are_exact(&halves));
        let stripes: Vec<u32> = (0..g.len() as u32).map(|n| n / 7 % 3).collect();
        for (graph, within) in [(&g, None), (&tiled, None), (&g, Some(&stripes[..]))] {
            let kept = coarsen_dropping_above(&Sequential, graph, 40, 9, within, usize::MAX);
            let dropped = coarsen_dropping_above(&Sequential, graph, 40, 9, within, 0);
            assert!(kept.len() >= 3);
            assert_eq!(kept.len(), dropped.len());
            assert!(dropped[0].graph.is_none() && dropped[1].graph.is_none());
            for (k, d) in kept.iter().zip(&dropped) {
                assert_eq!((&k.group, k.nodes), (&d.group, d.nodes));
            }
            for (k, d) in kept.iter().zip(&dropped).skip(2) {
                assert_eq!(k.graph, d.graph);
            }
            // Made again from the finest graph, as the projection back does: the same.
            for depth in [2, 1] {
                let mut upper = dropped[..depth].to_vec();
                let again = last_graph(&Sequential, graph, &mut upper);
                assert_eq!(Some(again), kept[depth - 1].graph.as_ref());
            }
        }
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
