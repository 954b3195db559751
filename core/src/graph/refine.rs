//! Boundary refinement with connected parts: k-way passes of Fiduccia & Mattheyses (1982, "A
//! linear-time heuristic for improving network partitions"), the algorithm Smyk & Tudruj's
//! redeployment extends (§1, §3), as multilevel partitioners run it at every level (Karypis &
//! Kumar 1998, §5). A pass moves boundary nodes one at a time, the move of largest gain (cut
//! weight saved) first, negative gains included, each node at most once, and rolls back to the
//! prefix of moves with the smallest cut. Two guards hold throughout: no part grows beyond
//! `(1 + tolerance)` × its target (its share of the total in proportion to `speeds`), and no
//! part is cut in pieces (a move must leave its source part connected, asked of
//! [`Separation`]). Gains are real numbers (edge weights are), so the gain buckets are a
//! priority queue with stale entries skipped rather than FM's array of lists.

use alloc::collections::BinaryHeap;
use alloc::vec;
use alloc::vec::Vec;

use super::csr::Graph;
use super::separation::Separation;

/// Nodes a connectivity test may visit before it counts the move as cutting its part.
const GUARD_BUDGET: usize = 256;
/// Moves a pass makes past its best prefix before it gives up.
const PATIENCE: usize = 100;
/// Passes per call at most (each must lower the cut to be followed by another).
const PASSES: usize = 12;
/// Balancing passes per call at most (each lowers the sum of squared loads).
const BALANCING_PASSES: usize = 256;

/// A partition being refined: parts, loads, bounds and scratch.
struct State<'a> {
    g: &'a Graph,
    part: &'a mut [usize],
    load: Vec<f64>,
    count: Vec<usize>,
    /// The weight no part may exceed.
    bound: Vec<f64>,
    /// Edge weight from the node being weighed to each part (all zero between uses).
    to: Vec<f64>,
    touched: Vec<usize>,
    separation: Separation,
    /// Nodes the guard refused to move out of their part, until a neighbour changes part
    /// (only that can unmake a cut node of a part that loses nodes).
    refused: Vec<bool>,
    /// Each node's count of queue entries made for it: an entry whose stamp is not its
    /// node's is stale. Kept from pass to pass (a pass's entries are made with the current
    /// stamps), so no pass allocates or clears a stamp a node.
    stamp: Vec<u32>,
    /// Nodes moved in the current pass (cleared from `moved` when it ends).
    locked: Vec<bool>,
    /// The nodes that may be on a border: every node on one when the refinement started,
    /// and every node moved since and their neighbours (only a move makes a border node);
    /// a pass queues from these instead of testing every node of the graph, and drops those
    /// it finds inside their part.
    candidates: Vec<u32>,
    /// Whether a node is in `candidates`.
    listed: Vec<bool>,
}

/// A candidate move: gain, then node; `stamp` tells a stale entry.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct Entry {
    pub(super) gain: i64,
    pub(super) node: core::cmp::Reverse<usize>,
    pub(super) stamp: u32,
}

/// `x`'s bits as an integer that orders like `x` (for the gain queue).
pub(super) fn ordered(x: f64) -> i64 {
    let b = x.to_bits() as i64;
    b ^ (((b >> 63) as u64) >> 1) as i64
}

impl State<'_> {
    /// The best move of `n` out of its part: the adjacent part with room for it that it
    /// shares the most edge weight with (the lighter relative to its bound on a tie), and the
    /// gain (that weight less the weight to its own part). When `balancing`, a part has room
    /// when it stays lighter than `n`'s part is, relative to their bounds, even above its own
    /// bound: the move lowers the sum of squared loads (as the redeployment's moves, Smyk &
    /// Tudruj 2011, §3), and the excess flows on from part to part.
    fn best_move(&mut self, n: usize, balancing: bool) -> Option<(usize, f64)> {
        let p = self.part[n];
        let g = self.g;
        for (m, w) in g.edges(n) {
            let q = self.part[m];
            if self.to[q] == 0.0 {
                self.touched.push(q);
            }
            self.to[q] += w;
        }
        let inside = self.to[p];
        let mut best: Option<(usize, f64)> = None;
        let level = |q: usize, load: f64| load / self.bound[q];
        for &q in &self.touched {
            let after = self.load[q] + g.weight[n];
            let room = if balancing {
                level(q, after) < level(p, self.load[p])
            } else {
                after <= self.bound[q]
            };
            if q == p || !room {
                continue;
            }
            let better = best.is_none_or(|(b, w)| {
                self.to[q] > w
                    || (self.to[q] == w
                        && self.load[q] / self.bound[q] < self.load[b] / self.bound[b])
            });
            if better {
                best = Some((q, self.to[q]));
            }
        }
        for &q in &self.touched {
            self.to[q] = 0.0;
        }
        self.touched.clear();
        best.map(|(q, w)| (q, w - inside))
    }

    fn shift(&mut self, n: usize, to: usize) {
        let from = self.part[n];
        let w = self.g.weight[n];
        self.load[from] -= w;
        self.count[from] -= 1;
        self.load[to] += w;
        self.count[to] += 1;
        self.part[n] = to;
        self.list(n);
        for (m, _) in self.g.edges(n) {
            self.refused[m] = false;
            self.list(m);
        }
    }

    /// Adds `n` to the border candidates.
    fn list(&mut self, n: usize) {
        if !self.listed[n] {
            self.listed[n] = true;
            self.candidates.push(n as u32);
        }
    }

    /// Whether `n` has a neighbour in another part.
    fn on_border(&self, n: usize) -> bool {
        self.g.edges(n).any(|(m, _)| self.part[m] != self.part[n])
    }

    /// Whether `n` may leave its part: the part keeps a node and stays connected.
    fn may_leave(&mut self, n: usize) -> bool {
        if self.refused[n] || self.count[self.part[n]] < 2 {
            return false;
        }
        let may = self
            .separation
            .leaves_connected(self.g, self.part, n, GUARD_BUDGET);
        self.refused[n] = !may;
        may
    }

    fn over(&self, p: usize) -> bool {
        self.load[p] > self.bound[p]
    }

    /// One pass. With `balancing`, only nodes of parts above their bound move, and the pass
    /// keeps every move (each brings a part toward its bound); otherwise it rolls back to the
    /// best prefix. Returns the cut weight saved and the moves kept.
    fn pass(&mut self, balancing: bool) -> (f64, usize) {
        let g = self.g;
        let mut heap: BinaryHeap<Entry> = BinaryHeap::new();
        // The border nodes, from the candidates (the queue pops in the order of its
        // entries, whatever order they were pushed in); those off the border leave the list.
        // In node order, so their edges are read in the graph's order (fewer cache misses).
        self.candidates.sort_unstable();
        let mut kept = 0;
        for i in 0..self.candidates.len() {
            let n = self.candidates[i] as usize;
            if !self.on_border(n) {
                self.listed[n] = false;
                continue;
            }
            self.candidates[kept] = n as u32;
            kept += 1;
            if balancing && !self.over(self.part[n]) {
                continue;
            }
            if let Some((_, gain)) = self.best_move(n, balancing) {
                heap.push(Entry {
                    gain: ordered(gain),
                    node: core::cmp::Reverse(n),
                    stamp: self.stamp[n],
                });
            }
        }
        self.candidates.truncate(kept);
        let mut log: Vec<(usize, usize)> = Vec::new();
        let (mut saved, mut best_saved, mut best_len) = (0.0, 0.0, 0);
        while let Some(e) = heap.pop() {
            let n = e.node.0;
            if self.locked[n] || e.stamp != self.stamp[n] {
                continue;
            }
            let p = self.part[n];
            if balancing && !self.over(p) {
                continue;
            }
            let Some((q, gain)) = self.best_move(n, balancing) else {
                continue;
            };
            if ordered(gain) != e.gain {
                // Loads changed since it was queued: queue it again at its gain.
                heap.push(Entry {
                    gain: ordered(gain),
                    ..e
                });
                continue;
            }
            if !self.may_leave(n) {
                continue;
            }
            self.shift(n, q);
            self.locked[n] = true;
            log.push((n, p));
            saved += gain;
            if balancing || saved > best_saved {
                (best_saved, best_len) = (saved, log.len());
            } else if log.len() - best_len > PATIENCE {
                break;
            }
            for (m, _) in g.edges(n) {
                if self.locked[m] || (balancing && !self.over(self.part[m])) {
                    continue;
                }
                self.stamp[m] = self.stamp[m].wrapping_add(1);
                if self.on_border(m)
                    && let Some((_, gain)) = self.best_move(m, balancing)
                {
                    heap.push(Entry {
                        gain: ordered(gain),
                        node: core::cmp::Reverse(m),
                        stamp: self.stamp[m],
                    });
                }
            }
        }
        for &(n, _) in &log {
            self.locked[n] = false;
        }
        // Roll back past the best prefix, last move first: each undo restores a state the
        // pass went through, balanced and connected.
        while log.len() > best_len {
            let (n, p) = log.pop().expect("longer than the prefix");
            self.shift(n, p);
        }
        (best_saved, best_len)
    }
}

/// Refines `part` (the part of each node of `g`, `< speeds.len()`): first, while a part is
/// above `(1 + tolerance)` × its target, moves nodes out of it to adjacent parts that stay
/// lighter than it (relative to their targets), largest gain first; then Fiduccia–Mattheyses
/// passes (module doc) while they lower the edge cut. The passes never raise the cut, never
/// put a part above its bound (one already above it only loses weight), and no move empties a
/// part or cuts one in pieces. Returns the moves kept.
pub fn refine(g: &Graph, speeds: &[f64], tolerance: f64, part: &mut [usize]) -> usize {
    let parts = speeds.len();
    let total_speed: f64 = speeds.iter().sum();
    // Summed once (a pass over the nodes), not once a part.
    let total_weight = g.total_weight();
    let bound: Vec<f64> = speeds
        .iter()
        .map(|s| (1.0 + tolerance) * total_weight * s / total_speed)
        .collect();
    let mut load = vec![0.0; parts];
    let mut count = vec![0usize; parts];
    for n in 0..g.len() {
        load[part[n]] += g.weight[n];
        count[part[n]] += 1;
    }
    let mut state = State {
        g,
        part,
        load,
        count,
        bound,
        to: vec![0.0; parts],
        touched: Vec::new(),
        separation: Separation::new(g.len()),
        refused: vec![false; g.len()],
        stamp: vec![0; g.len()],
        locked: vec![false; g.len()],
        candidates: Vec::new(),
        listed: vec![false; g.len()],
    };
    for n in 0..g.len() {
        if state.on_border(n) {
            state.list(n);
        }
    }
    let mut moves = 0;
    for _ in 0..BALANCING_PASSES {
        if !(0..parts).any(|p| state.over(p)) {
            break;
        }
        let (_, kept) = state.pass(true);
        if kept == 0 {
            break;
        }
        moves += kept;
    }
    for _ in 0..PASSES {
        let (saved, kept) = state.pass(false);
        moves += kept;
        if saved <= 0.0 {
            break;
        }
    }
    moves
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::{TileGraph, quality};
    use alloc::format;

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

    /// A comb: a spine 4 cells tall under 3-cell fingers 3 cells apart, 30 cells tall.
    fn comb() -> ([usize; 3], Vec<bool>) {
        let (w, h) = (48, 34);
        let mask = (0..w * h).map(|i| i / w < 4 || (i % w) % 6 < 3).collect();
        ([w, h, 1], mask)
    }

    /// An E with a hole in its middle arm and a one-cell bridge joining the tips of its upper
    /// arms.
    fn e_with_a_hole() -> ([usize; 3], Vec<bool>) {
        let (w, h) = (30, 36);
        let mask = (0..w * h)
            .map(|i| {
                let (x, y) = (i % w, i / w);
                let arm = y < 8 || (14..22).contains(&y) || y >= 28;
                let hole = (14..20).contains(&x) && (16..20).contains(&y);
                let bridge = x == 29 && (22..28).contains(&y);
                (x < 8 || arm || bridge) && !hole
            })
            .collect();
        ([w, h, 1], mask)
    }

    #[test]
    fn refinement_never_raises_the_cut_cuts_a_part_or_breaks_the_bound() {
        use crate::graph::{Method, partition};
        let tolerance = 0.05;
        let mut improved = 0;
        for (name, (grid, mask)) in [("comb", comb()), ("E", e_with_a_hole())] {
            for tile in [1, 2] {
                let tg = TileGraph::from_mask(grid, &mask, [tile, tile, 1], 1.0).unwrap();
                let g = &tg.graph;
                for parts in [2, 4, 8] {
                    // Connected, balanced starting points: the redeployment and CDC's
                    // clusters redeployed (RCDC without its levels).
                    let speeds = vec![1.0; parts];
                    for method in [Method::Redeploy, Method::Rcdc] {
                        let mut part = vec![0; g.len()];
                        partition(g, &speeds, method, &mut part).unwrap();
                        if method == Method::Rcdc {
                            // Undo the refinement RCDC ran by scrambling the borders: a
                            // node moves to a neighbour's part where that keeps parts whole.
                            let mut sep = Separation::new(g.len());
                            for n in (0..g.len()).step_by(7) {
                                if let Some((m, _)) = g.edges(n).find(|&(m, _)| part[m] != part[n])
                                    && part.iter().filter(|&&p| p == part[n]).count() > 1
                                    && sep.leaves_connected(g, &part, n, usize::MAX)
                                {
                                    part[n] = part[m];
                                }
                            }
                        }
                        let before = quality(g, &part, &speeds);
                        if before.disconnected > 0 || before.imbalance > 1.0 + tolerance {
                            continue;
                        }
                        refine(g, &speeds, tolerance, &mut part);
                        let after = quality(g, &part, &speeds);
                        let at = format!("{name} tile {tile} {parts} parts {method:?}");
                        assert!(
                            after.edge_cut <= before.edge_cut,
                            "{at}: {before:?} {after:?}"
                        );
                        assert!(
                            after.imbalance <= 1.0 + tolerance + 1e-12,
                            "{at}: {after:?}"
                        );
                        assert_eq!((after.disconnected, after.empty_parts), (0, 0), "{at}");
                        let pieces = tg.cell_pieces(&mask, &part, parts).unwrap();
                        assert_eq!(pieces, vec![1; parts], "{at}: pieces cell by cell");
                        improved += usize::from(after.edge_cut < before.edge_cut);
                    }
                }
            }
        }
        // The passes do straighten borders (not only keep them).
        assert!(improved >= 8, "{improved}");
    }
}
