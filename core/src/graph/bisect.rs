//! Recursive bisection with connected halves: the initial partition of METIS's k-way scheme
//! (Karypis & Kumar 1998, §4), with every half kept connected. A graph of `k` parts is cut in
//! two halves weighing in proportion to the speeds of ⌊k/2⌋ and ⌈k/2⌉ parts, each half cut
//! again, down to one part. A half is grown from a pseudo-peripheral node by greedy graph
//! growing (GGGP, §4.1: the boundary node of largest gain, cut weight saved, joins next);
//! a node whose taking would cut the rest in pieces joins with what hangs on it alone
//! ([`Separation::hanging_on`]) where that fits, so both halves stay connected; the halves are
//! then refined by Fiduccia–Mattheyses passes with the connectivity guard ([`refine`]), and
//! the best of several starting nodes is kept. RCDC's multilevel frame tries it beside the
//! paper's CDC clusters as the partition of the coarsest graph: on a comb it makes parts of
//! whole fingers, where CDC's diffusion spreads a part over the spine (docs/partitioning.md,
//! "Against METIS").

use alloc::collections::BinaryHeap;
use alloc::vec;
use alloc::vec::Vec;

use super::csr::Graph;
use super::fork::{Fork, map_chunks};
use super::refine::{Entry, ordered, refine};
use super::separation::Separation;

/// Starting nodes a bisection tries (pseudo-peripheral ones first).
const STARTS: usize = 4;

/// Partitions `g` into `speeds.len()` parts by recursive bisection, each half weighing in
/// proportion to its parts' speeds within `1 + tolerance` where the node weights allow (so
/// a part within about `(1 + tolerance)^⌈log₂ parts⌉` of its share), every part
/// connected where `g` is. Writes each node's part into `part`; returns `false` (with `part`
/// unspecified) where a half came out in pieces or with fewer nodes than its parts (a graph
/// not connected, or too coarse for the parts). The two halves of each cut are independent
/// subproblems and run through `fork` (side by side on a driver's threads); the partition
/// is the same however they run.
pub fn recursive_bisection<F: Fork>(
    fork: &F,
    g: &Graph,
    speeds: &[f64],
    tolerance: f64,
    part: &mut [usize],
) -> bool {
    let Some(parts) = split(fork, g, 0, speeds, tolerance) else {
        return false;
    };
    part.copy_from_slice(&parts);
    true
}

/// The parts `first..` of `speeds` of each node of `g`, by recursive bisection; `None` where
/// a half came out in pieces or with fewer nodes than its parts.
fn split<F: Fork>(
    fork: &F,
    g: &Graph,
    first: usize,
    speeds: &[f64],
    tolerance: f64,
) -> Option<Vec<usize>> {
    let k = speeds.len();
    if k == 1 {
        return Some(vec![first; g.len()]);
    }
    if g.len() < k {
        return None;
    }
    let k0 = k / 2;
    let shares = [speeds[..k0].iter().sum(), speeds[k0..].iter().sum()];
    let side = bisect(fork, g, shares, [k0, k - k0], tolerance)?;
    let half = |s: usize, first: usize, speeds: &[f64]| -> Option<(Vec<usize>, Vec<usize>)> {
        let members: Vec<usize> = (0..g.len()).filter(|&n| side[n] == s).collect();
        let sub = induced(g, &members);
        if sub.piece_counts(&vec![0; sub.len()], 1)[0] != 1 {
            return None;
        }
        let parts = split(fork, &sub, first, speeds, tolerance)?;
        Some((members, parts))
    };
    let (low, high) = fork.join(
        || half(0, first, &speeds[..k0]),
        || half(1, first + k0, &speeds[k0..]),
    );
    let mut part = vec![0; g.len()];
    for (members, parts) in [low?, high?] {
        for (&n, p) in members.iter().zip(parts) {
            part[n] = p;
        }
    }
    Some(part)
}

/// The subgraph of `g` on `members` (in that order), with the edges among them.
fn induced(g: &Graph, members: &[usize]) -> Graph {
    let mut index = vec![usize::MAX; g.len()];
    for (i, &n) in members.iter().enumerate() {
        index[n] = i;
    }
    let mut edges = Vec::new();
    for (i, &n) in members.iter().enumerate() {
        for (m, w) in g.edges(n) {
            if index[m] != usize::MAX && index[m] > i {
                edges.push((i, index[m], w));
            }
        }
    }
    Graph::from_edges(members.iter().map(|&n| g.weight[n]).collect(), &edges)
}

/// The last node a breadth-first search from `start` reaches: one of the farthest.
fn farthest(g: &Graph, start: usize) -> usize {
    let mut seen = vec![false; g.len()];
    *g.flood(start, |_| true, &mut seen)
        .last()
        .expect("the start at least")
}

/// Two connected halves of `g` (side 0 or 1 for each node) weighing in the ratio `shares`,
/// with at least `need` nodes each: grown from each of [`STARTS`] starting nodes and refined
/// (the starts side by side through `fork`), the smallest cut among the halves within
/// `1 + tolerance` of their shares kept (the best balanced where none is; the earlier start
/// on a tie). `None` where no start gives halves with enough nodes.
fn bisect<F: Fork>(
    fork: &F,
    g: &Graph,
    shares: [f64; 2],
    need: [usize; 2],
    tolerance: f64,
) -> Option<Vec<usize>> {
    let u = farthest(g, 0);
    let v = farthest(g, u);
    let mut starts = vec![u, v];
    for i in 1..=STARTS {
        let s = i * g.len() / (STARTS + 1);
        if starts.len() < STARTS && !starts.contains(&s) {
            starts.push(s);
        }
    }
    let halves = map_chunks(fork, 0..starts.len(), 1, &|r| {
        let start = starts[r.start];
        let mut sep = Separation::new(g.len());
        let mut side = grow(g, start, shares, tolerance, &mut sep)?;
        refine(g, &shares, tolerance, &mut side);
        let count = side.iter().filter(|&&s| s == 0).count();
        if count < need[0] || g.len() - count < need[1] {
            return None;
        }
        let q = super::quality(g, &side, &shares);
        let key = if q.imbalance > 1.0 + tolerance + 1e-9 {
            (true, q.imbalance)
        } else {
            (false, q.edge_cut)
        };
        Some((key, side))
    });
    let mut best: Option<((bool, f64), Vec<usize>)> = None;
    for (key, side) in halves.into_iter().flatten() {
        if best.as_ref().is_none_or(|(b, _)| key < *b) {
            best = Some((key, side));
        }
    }
    best.map(|(_, side)| side)
}

/// Side 0 grown from `start` by greedy graph growing until it weighs its share: the boundary
/// node of largest gain (edge weight to side 0 less edge weight to side 1) joins, with what
/// hangs on it alone in side 1, as long as side 0 stays within `1 + tolerance` of its share.
/// `None` where what hangs on `start` is too heavy.
fn grow(
    g: &Graph,
    start: usize,
    shares: [f64; 2],
    tolerance: f64,
    sep: &mut Separation,
) -> Option<Vec<usize>> {
    let total = g.total_weight();
    let target = total * shares[0] / (shares[0] + shares[1]);
    let bound = (1.0 + tolerance) * target;
    let mut side = vec![1usize; g.len()];
    let mut stamp = vec![0u32; g.len()];
    let mut heap: BinaryHeap<Entry> = BinaryHeap::new();
    let gain = |side: &[usize], n: usize| -> f64 {
        g.edges(n)
            .map(|(m, w)| if side[m] == 0 { w } else { -w })
            .sum()
    };
    let mut weight = 0.0;
    // The start, with what hangs on it (it may join pieces of the graph).
    let mut taken = if g.degree(start) == 0 {
        Vec::new()
    } else {
        sep.hanging_on(g, &side, start, total, bound - g.weight[start])?
    };
    taken.push(start);
    loop {
        for &n in &taken {
            side[n] = 0;
            weight += g.weight[n];
        }
        for &n in &taken {
            for (m, _) in g.edges(n) {
                if side[m] == 1 {
                    stamp[m] = stamp[m].wrapping_add(1);
                    heap.push(Entry {
                        gain: ordered(gain(&side, m)),
                        node: core::cmp::Reverse(m),
                        stamp: stamp[m],
                    });
                }
            }
        }
        taken.clear();
        if weight >= target {
            return Some(side);
        }
        // The next node that fits, with what hangs on it.
        while let Some(e) = heap.pop() {
            let n = e.node.0;
            if side[n] == 0 || e.stamp != stamp[n] {
                continue;
            }
            let room = bound - weight - g.weight[n];
            // Past the share, a node joins only where that brings side 0 closer to it.
            if room < 0.0 || weight + g.weight[n] - target > target - weight {
                continue;
            }
            let Some(hanging) = sep.hanging_on(g, &side, n, total - weight, room) else {
                if g.edges(n).all(|(m, _)| side[m] == 0) {
                    taken.push(n);
                    break;
                }
                continue;
            };
            taken.push(n);
            taken.extend(hanging);
            break;
        }
        if taken.is_empty() {
            return Some(side);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::fork::Sequential;
    use crate::graph::{TileGraph, quality};

    /// A comb: a spine 4 cells tall under 3-cell fingers 3 cells apart, 30 cells tall.
    fn comb() -> ([usize; 3], Vec<bool>) {
        let (w, h) = (48, 34);
        let mask = (0..w * h).map(|i| i / w < 4 || (i % w) % 6 < 3).collect();
        ([w, h, 1], mask)
    }

    #[test]
    fn parts_are_connected_and_balanced() {
        let (grid, mask) = comb();
        let tg = TileGraph::from_mask(grid, &mask, [1, 1, 1], 1.0).unwrap();
        let g = &tg.graph;
        for speeds in [&[1.0; 8][..], &[1.0; 4], &[3.0, 1.0, 1.0]] {
            let parts = speeds.len();
            let mut part = vec![0; g.len()];
            assert!(recursive_bisection(&Sequential, g, speeds, 0.05, &mut part));
            let q = quality(g, &part, speeds);
            assert_eq!((q.disconnected, q.empty_parts), (0, 0), "{q:?}");
            assert!(q.imbalance <= 1.05 + 1e-9, "{q:?}");
            assert_eq!(tg.cell_pieces(&mask, &part, parts).unwrap(), vec![1; parts]);
        }
        // A graph in two pieces cannot give connected halves.
        let two = Graph::from_edges(vec![1.0; 4], &[(0, 1, 1.0), (2, 3, 1.0)]);
        let mut part = vec![0; 4];
        assert!(!recursive_bisection(
            &Sequential,
            &two,
            &[1.0; 3],
            0.05,
            &mut part
        ));
    }
}
