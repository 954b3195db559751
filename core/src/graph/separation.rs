//! Whether taking one node out of its part cuts the part in pieces, found without flooding the
//! whole part: a flood from each neighbour the node has in its part, all advanced one node at a
//! time in turn, floods that meet joining into one. The part stays connected as soon as every
//! flood has met; a piece is cut off as soon as a flood (with those it met) runs out of nodes,
//! after visiting only that piece. So the work is bounded by the distance at which the
//! neighbours meet around the node, or by the smaller pieces, never by the part's size. The
//! guard of the boundary refinement (Fiduccia & Mattheyses 1982 with connected parts) and the
//! redeployment's moves (Smyk & Tudruj 2011, §3) both ask it.

use alloc::collections::VecDeque;
use alloc::vec;
use alloc::vec::Vec;

use super::csr::Graph;

/// No flood has reached the node.
const FREE: u32 = u32::MAX;
/// The node taken out: no flood enters it.
const OUT: u32 = u32::MAX - 1;

/// What a search found.
enum Found {
    /// Every neighbour's flood met: the part stays connected.
    Connected,
    /// Some floods ran out before meeting the rest: the part falls in pieces.
    Pieces,
    /// The search visited more than its budget of nodes, or more than its limit of weight
    /// outside its heaviest group of floods, before either.
    Undecided,
}

/// Scratch space for the searches over one graph: a label per node (all free between calls)
/// and the floods' queues.
#[derive(Clone, Debug)]
pub struct Separation {
    label: Vec<u32>,
    visited: Vec<usize>,
    starts: Vec<usize>,
    queues: Vec<VecDeque<usize>>,
    /// Union-find over the floods: the flood each flood has joined.
    joined: Vec<usize>,
}

impl Separation {
    /// Scratch space for a graph of `nodes` nodes.
    pub fn new(nodes: usize) -> Self {
        Separation {
            label: vec![FREE; nodes],
            visited: Vec::new(),
            starts: Vec::new(),
            queues: Vec::new(),
            joined: Vec::new(),
        }
    }

    fn root(&self, mut f: usize) -> usize {
        while self.joined[f] != f {
            f = self.joined[f];
        }
        f
    }

    /// Floods part `part[n]` without `n` from each of `n`'s neighbours in it, in turn, until
    /// every flood has met (connected), or, with `stop_at_piece`, the first group of floods
    /// runs out (pieces), or without it, until at most one group is still running; or until
    /// more than `budget` nodes are visited, or until what hangs on `n` is sure to weigh
    /// more than `limit` (`part_weight` is the part's weight: the pieces still being flooded
    /// weigh it less `n` and the pieces run out). Leaves labels set for the caller to read;
    /// `clear` frees them.
    fn search(
        &mut self,
        g: &Graph,
        part: &[usize],
        n: usize,
        stop_at_piece: bool,
        budget: usize,
        limit: f64,
        part_weight: f64,
    ) -> Found {
        let p = part[n];
        self.starts.clear();
        self.starts
            .extend(g.edges(n).map(|(m, _)| m).filter(|&m| part[m] == p));
        let floods = self.starts.len();
        if floods <= 1 {
            return Found::Connected;
        }
        self.label[n] = OUT;
        self.visited.push(n);
        if self.queues.len() < floods {
            self.queues.resize_with(floods, VecDeque::new);
        }
        self.joined.clear();
        self.joined.extend(0..floods);
        let mut groups = floods;
        let mut reached = vec![0.0; floods];
        for f in 0..floods {
            let s = self.starts[f];
            self.queues[f].clear();
            if self.label[s] == FREE {
                reached[f] = g.weight[s];
                self.label[s] = f as u32;
                self.visited.push(s);
                self.queues[f].push_back(s);
            } else {
                // A neighbour listed twice (a multigraph): one flood.
                self.joined[f] = self.label[s] as usize;
                groups -= 1;
            }
        }
        let mut running = vec![false; floods];
        let mut group_weight = vec![0.0; floods];
        loop {
            if groups == 1 {
                return Found::Connected;
            }
            if self.visited.len() > budget {
                return Found::Undecided;
            }
            for f in 0..floods {
                let Some(k) = self.queues[f].pop_front() else {
                    continue;
                };
                for (m, _) in g.edges(k) {
                    if part[m] != p {
                        continue;
                    }
                    match self.label[m] {
                        FREE => {
                            reached[f] += g.weight[m];
                            self.label[m] = f as u32;
                            self.visited.push(m);
                            self.queues[f].push_back(m);
                        }
                        OUT => {}
                        other => {
                            let (a, b) = (self.root(f), self.root(other as usize));
                            if a != b {
                                self.joined[a.max(b)] = a.min(b);
                                groups -= 1;
                            }
                        }
                    }
                }
            }
            // Groups still running.
            running.iter_mut().for_each(|r| *r = false);
            for f in 0..floods {
                if !self.queues[f].is_empty() {
                    let r = self.root(f);
                    running[r] = true;
                }
            }
            if limit.is_finite() {
                // Pieces run out are final; the rest, taken as one piece, weighs what is left,
                // so all but the heaviest of these weigh no more than what will hang on `n`.
                group_weight.iter_mut().for_each(|w| *w = 0.0);
                for f in 0..floods {
                    let r = self.root(f);
                    group_weight[r] += reached[f];
                }
                let (mut done, mut heaviest) = (0.0, 0.0f64);
                for r in 0..floods {
                    if self.joined[r] == r && !running[r] {
                        done += group_weight[r];
                        heaviest = heaviest.max(group_weight[r]);
                    }
                }
                let rest = part_weight - g.weight[n] - done;
                if done > 0.0 && done + rest - heaviest.max(rest) > limit {
                    return Found::Undecided;
                }
            }
            let active = running.iter().filter(|&&r| r).count();
            if groups > 1 && (stop_at_piece && active < groups || active <= 1) {
                return Found::Pieces;
            }
        }
    }

    /// Frees every label the last search set.
    fn clear(&mut self) {
        for &k in &self.visited {
            self.label[k] = FREE;
        }
        self.visited.clear();
    }

    /// Whether part `part[n]` stays connected without `n` (where it was connected), deciding
    /// after visiting at most about `budget` nodes; beyond that it answers `false`, the safe
    /// answer for a guard. A node with at most one neighbour in its part never cuts it.
    pub fn leaves_connected(&mut self, g: &Graph, part: &[usize], n: usize, budget: usize) -> bool {
        let found = self.search(g, part, n, true, budget, f64::INFINITY, 0.0);
        self.clear();
        matches!(found, Found::Connected)
    }

    /// The nodes of part `p = part[n]` that only `n` connects to the rest of it: all but the
    /// heaviest of the pieces `p` falls into without `n` (`part_weight` is `p`'s weight, so the
    /// piece still being flooded when the others have run out is weighed without finishing
    /// it). `None` when `n` has no neighbour in `p`, or when what hangs on it weighs more
    /// than `limit` (found as soon as that shows, without finishing the floods).
    pub fn hanging_on(
        &mut self,
        g: &Graph,
        part: &[usize],
        n: usize,
        part_weight: f64,
        limit: f64,
    ) -> Option<Vec<usize>> {
        let p = part[n];
        if !g.edges(n).any(|(m, _)| part[m] == p) {
            return None;
        }
        match self.search(g, part, n, false, usize::MAX, limit, part_weight) {
            Found::Pieces => {}
            Found::Connected => {
                self.clear();
                return Some(Vec::new());
            }
            Found::Undecided => {
                self.clear();
                return None;
            }
        }
        // The pieces: groups of floods, those run out complete, at most one still running.
        let floods = self.starts.len();
        let mut weight = vec![0.0; floods];
        for &k in &self.visited[1..] {
            let r = self.root(self.label[k] as usize);
            weight[r] += g.weight[k];
        }
        let mut runs = None;
        for f in 0..floods {
            if !self.queues[f].is_empty() {
                runs = Some(self.root(f));
            }
        }
        if let Some(r) = runs {
            let others: f64 = (0..floods)
                .filter(|&f| f != r && self.joined[f] == f)
                .map(|f| weight[f])
                .sum();
            // (`weight` holds every piece but the running one in full.)
            weight[r] = part_weight - g.weight[n] - others;
        }
        let keep = (0..floods)
            .filter(|&f| self.joined[f] == f)
            .max_by(|&a, &b| weight[a].total_cmp(&weight[b]))
            .expect("at least two pieces");
        if runs.is_some_and(|r| r != keep) {
            // A finished piece outweighs the one still running: finish it to list its nodes.
            self.clear();
            let mut seen = vec![false; g.len()];
            seen[n] = true;
            let mut pieces: Vec<Vec<usize>> = Vec::new();
            for (s, _) in g.edges(n) {
                if part[s] == p && !seen[s] {
                    pieces.push(g.flood(s, |m| part[m] == p, &mut seen));
                }
            }
            let w = |piece: &Vec<usize>| piece.iter().map(|&k| g.weight[k]).sum::<f64>();
            let keep = (0..pieces.len())
                .max_by(|&a, &b| w(&pieces[a]).total_cmp(&w(&pieces[b])))
                .expect("at least two pieces");
            return Some(
                pieces
                    .into_iter()
                    .enumerate()
                    .filter(|&(i, _)| i != keep)
                    .flat_map(|(_, piece)| piece)
                    .collect(),
            );
        }
        let hanging = self.visited[1..]
            .iter()
            .copied()
            .filter(|&k| self.root(self.label[k] as usize) != keep)
            .collect();
        self.clear();
        Some(hanging)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::TileGraph;

    /// The cell graph of a mask given as rows of `#` (active) and `.`, the first row at y = 0.
    fn cells(rows: &[&str]) -> Graph {
        let (w, h) = (rows[0].len(), rows.len());
        let mask: Vec<bool> = rows
            .iter()
            .flat_map(|r| r.bytes().map(|b| b == b'#'))
            .collect();
        TileGraph::from_mask([w, h, 1], &mask, [1, 1, 1], 1.0)
            .unwrap()
            .graph
    }

    /// The pieces of `part[n]` without `n`, by plain flood fills: the reference.
    fn by_flood(g: &Graph, part: &[usize], n: usize) -> Vec<Vec<usize>> {
        let mut seen = vec![false; g.len()];
        seen[n] = true;
        let mut pieces = Vec::new();
        for m in 0..g.len() {
            if part[m] == part[n] && !seen[m] {
                let mut piece = g.flood(m, |k| part[k] == part[n], &mut seen);
                piece.sort_unstable();
                pieces.push(piece);
            }
        }
        pieces
    }

    #[test]
    fn agrees_with_flood_fills_on_every_node_of_a_ring_with_spurs() {
        // A ring around a hole, a spur, and a bridge to a second block.
        let g = cells(&[
            "#####...##",
            "#...#...##",
            "#...######",
            "#####.....",
            "..#.......",
            "..#.......",
        ]);
        let part = vec![0; g.len()];
        let mut s = Separation::new(g.len());
        let total = g.total_weight();
        for n in 0..g.len() {
            let pieces = by_flood(&g, &part, n);
            assert_eq!(
                s.leaves_connected(&g, &part, n, usize::MAX),
                pieces.len() <= 1,
                "node {n}"
            );
            let heaviest = pieces.iter().map(Vec::len).max().unwrap_or(0);
            let mut hanging = s.hanging_on(&g, &part, n, total, f64::INFINITY).unwrap();
            let heavy = s.hanging_on(&g, &part, n, total, hanging.len() as f64 - 0.5);
            assert_eq!(heavy.is_none(), !hanging.is_empty(), "node {n}");
            hanging.sort_unstable();
            // All but one heaviest piece hang on n.
            assert_eq!(hanging.len(), g.len() - 1 - heaviest, "node {n}");
            assert!(s.label.iter().all(|&l| l == FREE));
        }
        // (1, 0) has two neighbours in the ring, joined only around the hole: a budget too
        // small to see the ring close makes the guard say no.
        assert!(s.leaves_connected(&g, &part, 1, usize::MAX));
        assert!(!s.leaves_connected(&g, &part, 1, 3));
    }

    #[test]
    fn another_part_is_a_wall() {
        // A 3 × 3 block in part 0 with its middle column in part 1 but for the bottom cell:
        // the bottom middle cell joins the two sides of part 0.
        let g = cells(&["###", "###", "###"]);
        let part = [0, 0, 0, 0, 1, 0, 0, 1, 0];
        let mut s = Separation::new(9);
        assert!(!s.leaves_connected(&g, &part, 1, usize::MAX));
        assert_eq!(
            s.hanging_on(&g, &part, 1, 7.0, f64::INFINITY)
                .map(|h| h.len()),
            Some(3)
        );
        // The top left cell has one neighbour in its part, the bottom left cuts off the rest.
        assert!(s.leaves_connected(&g, &part, 6, usize::MAX));
        assert!(!s.leaves_connected(&g, &part, 0, usize::MAX));
        assert_eq!(
            s.hanging_on(&g, &[0, 1, 1, 1, 1, 1, 1, 1, 1], 0, 1.0, f64::INFINITY),
            None
        );
    }
}
