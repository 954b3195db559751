//! The redeployment algorithm of Smyk & Tudruj 2011, §3: merging macro nodes by the rules of
//! table 1 down to a given count, and redeploying cells between adjacent parts until their
//! execution times are balanced.

use alloc::collections::{BTreeMap, BinaryHeap, VecDeque};
use alloc::vec;
use alloc::vec::Vec;
use core::cmp::Reverse;

use super::csr::Graph;
use super::ranking::Ranking;
use super::separation::Separation;

/// The merging rules of table 1. Node A is always the least loaded macro node of the graph (§3:
/// "node A has the smallest execution time in the whole macro data flow graph"); the rule
/// picks its partner B among A's neighbours, so rules that differ only in A coincide.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MergeRule {
    /// Two least loaded adjacent nodes: B is A's least loaded neighbour.
    Mr0,
    /// The most loaded node with the least loaded adjacent node: B least loaded.
    Mr1,
    /// The least loaded node with the most loaded adjacent node: B most loaded.
    Mr2,
    /// Two most loaded adjacent nodes: B most loaded.
    Mr3,
    /// Biggest communication volume with its biggest neighbour: B shares the heaviest edge.
    Mr4,
    /// Smallest communication volume with its biggest neighbour: B shares the heaviest edge.
    Mr5,
    /// Smallest communication volume with its smallest neighbour: B shares the lightest edge.
    Mr6,
    /// As MR4 (the paper lists it twice).
    Mr7,
    /// The least loaded node with the neighbour of the biggest communication volume.
    Mr8,
    /// The least loaded node with the neighbour of the lowest communication volume.
    Mr9,
}

impl MergeRule {
    /// Whether this rule prefers `candidate` over `best` as A's partner: (weight, shared edge).
    fn prefers(self, candidate: (f64, f64), best: (f64, f64)) -> bool {
        use MergeRule::*;
        match self {
            Mr0 | Mr1 => candidate.0 < best.0,
            Mr2 | Mr3 => candidate.0 > best.0,
            Mr4 | Mr5 | Mr7 | Mr8 => candidate.1 > best.1,
            Mr6 | Mr9 => candidate.1 < best.1,
        }
    }
}

/// Merges the nodes of `g` (each its own macro node to start with) by `rule` until `target`
/// macro nodes remain, or until the least loaded one has no neighbour left to merge with (a
/// connected component already whole). Writes each node's macro node (numbered 0.. in the
/// order of their first node) into `group` and returns the number of macro nodes.
pub fn merge(g: &Graph, target: usize, rule: MergeRule, group: &mut [usize]) -> usize {
    let n = g.len();
    let mut weight = g.weight.clone();
    let mut adjacency: Vec<BTreeMap<usize, f64>> = (0..n).map(|k| g.edges(k).collect()).collect();
    let mut parent: Vec<usize> = (0..n).collect();
    let mut alive = n;
    // Least weight first; weights are never negative, so their bits order like the values.
    let mut heap: BinaryHeap<Reverse<(u64, usize)>> =
        (0..n).map(|k| Reverse((weight[k].to_bits(), k))).collect();
    while alive > target {
        let Some(Reverse((bits, a))) = heap.pop() else {
            break;
        };
        if parent[a] != a || bits != weight[a].to_bits() {
            continue; // merged away, or a stale entry
        }
        let mut partner: Option<(usize, (f64, f64))> = None;
        for (&b, &w) in &adjacency[a] {
            let key = (weight[b], w);
            if partner.is_none_or(|(_, best)| rule.prefers(key, best)) {
                partner = Some((b, key));
            }
        }
        let Some((b, _)) = partner else {
            continue; // an isolated component: it stays one macro node
        };
        // A joins B.
        parent[a] = b;
        weight[b] += weight[a];
        let edges = core::mem::take(&mut adjacency[a]);
        adjacency[b].remove(&a);
        for (c, w) in edges {
            if c == b {
                continue;
            }
            adjacency[c].remove(&a);
            *adjacency[c].entry(b).or_insert(0.0) += w;
            *adjacency[b].entry(c).or_insert(0.0) += w;
        }
        heap.push(Reverse((weight[b].to_bits(), b)));
        alive -= 1;
    }
    let root = |mut k: usize| {
        while parent[k] != k {
            k = parent[k];
        }
        k
    };
    let mut number = vec![usize::MAX; n];
    let mut count = 0;
    for k in 0..n {
        let r = root(k);
        if number[r] == usize::MAX {
            number[r] = count;
            count += 1;
        }
        group[k] = number[r];
    }
    count
}

/// Moves every piece of a part that is not its largest connected piece to the adjacent part it
/// shares the most edge weight with, until every part is connected (where the graph is). A
/// piece always touches the part it joins, so that part stays connected.
///
/// The pieces are those of [`Graph::pieces`] after each move, in its order (by first node),
/// found again only for the part that took the piece: the donor's other pieces do not touch
/// it, and no other part changed; each piece's weight is summed when it is found. Time
/// O(nodes) once, then O(the receiving part + pieces × log pieces + the moved piece's edges)
/// a move, where finding and weighing every piece anew after each move took O(nodes).
pub fn join_pieces(g: &Graph, parts: usize, part: &mut [usize]) {
    // Each piece with its weight, summed once in the piece's order.
    let weighed = |piece: Vec<usize>| {
        let w: f64 = piece.iter().map(|&k| g.weight[k]).sum();
        (piece, w)
    };
    let mut pieces: Vec<(Vec<usize>, f64)> = g.pieces(part).into_iter().map(weighed).collect();
    let mut seen = vec![false; g.len()];
    loop {
        let mut largest: Vec<Option<(usize, f64)>> = vec![None; parts];
        for (id, &(ref piece, w)) in pieces.iter().enumerate() {
            let p = part[piece[0]];
            if largest[p].is_none_or(|(_, best)| w > best) {
                largest[p] = Some((id, w));
            }
        }
        let mut moved = None;
        for (id, (piece, _)) in pieces.iter().enumerate() {
            let p = part[piece[0]];
            if largest[p].is_some_and(|(keep, _)| keep == id) {
                continue;
            }
            let mut shared: BTreeMap<usize, f64> = BTreeMap::new();
            for &k in piece {
                for (m, w) in g.edges(k) {
                    if part[m] != p {
                        *shared.entry(part[m]).or_insert(0.0) += w;
                    }
                }
            }
            let best = shared
                .iter()
                .fold(None, |b: Option<(usize, f64)>, (&q, &w)| match b {
                    Some((_, bw)) if bw >= w => b,
                    _ => Some((q, w)),
                });
            if let Some((q, _)) = best {
                moved = Some((id, q));
                break;
            }
        }
        let Some((id, q)) = moved else {
            return;
        };
        // The piece joins `q`; `q`'s pieces (the piece among them) are found anew, each
        // flooded from its first node as `Graph::pieces` floods it.
        let (mut nodes, _) = pieces.swap_remove(id);
        for &k in &nodes {
            part[k] = q;
        }
        pieces.retain_mut(|(other, _)| {
            let of_q = part[other[0]] == q;
            if of_q {
                nodes.append(other);
            }
            !of_q
        });
        nodes.sort_unstable();
        for &start in &nodes {
            if !seen[start] {
                pieces.push(weighed(g.flood(start, |m| part[m] == q, &mut seen)));
            }
        }
        for &k in &nodes {
            seen[k] = false;
        }
        pieces.sort_unstable_by_key(|(piece, _)| piece[0]);
        debug_assert!(
            pieces
                .iter()
                .map(|(piece, _)| piece)
                .eq(g.pieces(part).iter()),
            "the pieces found again are the pieces"
        );
    }
}

/// CliqueB of §3: |L − S| ÷ the number of cliques. A clique is a "central" part with every
/// part an edge joins to it, so there is one per part; L (S) is the number of cliques whose
/// maximal execution time (its slowest part's weight ÷ speed) is larger (smaller) than the
/// average execution time of the parts. The paper ends the redeployment when CliqueB is close
/// to 1; [`redeploy`] does not, for the reason docs/partitioning.md measures.
pub fn clique_balance(g: &Graph, speeds: &[f64], part: &[usize]) -> f64 {
    let parts = speeds.len();
    let mut time = vec![0.0; parts];
    for n in 0..g.len() {
        time[part[n]] += g.weight[n] / speeds[part[n]];
    }
    let mut slowest = time.clone();
    for n in 0..g.len() {
        for (m, _) in g.edges(n) {
            let (p, q) = (part[n], part[m]);
            slowest[p] = slowest[p].max(time[q]);
        }
    }
    let mean = time.iter().sum::<f64>() / parts as f64;
    let above = slowest.iter().filter(|&&t| t > mean).count() as f64;
    let below = slowest.iter().filter(|&&t| t < mean).count() as f64;
    (above - below).abs() / parts as f64
}

/// The redeployment phase: while the slowest part's execution time (weight ÷ speed) exceeds
/// the ideal by more than `tolerance`, moves one boundary node (with what hangs on it alone)
/// from a part to an adjacent one whose time stays below the donor's (so the sum of squared
/// times falls and the loop ends), taking the donor with the largest time that has such a move
/// and, among its moves, the one that cuts the most edge weight. Stops when balanced, when no
/// move is left, or after 4 × parts chains (below) that did not make the slowest part faster
/// (the paper's second stop rule). Moves between parts below the maximum are what let a
/// surplus travel to a part that is not adjacent. Returns the final imbalance (max time ÷
/// ideal time).
pub fn redeploy(g: &Graph, speeds: &[f64], tolerance: f64, part: &mut [usize]) -> f64 {
    redeploy_marked(g, speeds, tolerance, part, true)
}

/// [`redeploy`], keeping the marks of the parts known to have no move (`keep_marks`) or
/// forgetting them before every move, so that every part is asked again in order: the same
/// moves either way, which the tests check.
fn redeploy_marked(
    g: &Graph,
    speeds: &[f64],
    tolerance: f64,
    part: &mut [usize],
    keep_marks: bool,
) -> f64 {
    let parts = speeds.len();
    let ideal = g.total_weight() / speeds.iter().sum::<f64>();
    let mut split = Split::new(g, parts, part);
    let time = |split: &Split, p: usize| split.load[p] / speeds[p];
    let mut sep = Separation::new(g.len());
    // Stop rule 2 of §3: this many chains without a faster slowest part end it.
    let patience = 4 * parts;
    let heaviest = g.weight.iter().copied().fold(0.0, f64::max);
    let (mut best, mut stalled) = (f64::INFINITY, 0);
    // The parts by decreasing time, ties in the order a stable sort of the order before gives
    // (the parts whose load changed placed anew before each move), and the parts known to
    // have no move: `best_move(a, None)` reads only `a`'s nodes, their neighbours' parts and
    // the loads of `a` and its adjacent parts, so its `None` holds until a shift touches one
    // of those (`Split::unstick` clears the marks it may change). Skipping them gives the
    // moves of calling it on every part each time.
    let mut ranking = Ranking::new(parts, |p| time(&split, p));
    loop {
        if !keep_marks {
            (0..parts).for_each(|p| ranking.unstick(p));
        }
        ranking.resort(|p| time(&split, p));
        // No parts: nothing to balance.
        let Some(slowest) = ranking.first() else {
            return 1.0;
        };
        let imbalance = time(&split, slowest) / ideal;
        if imbalance <= 1.0 + tolerance {
            return imbalance;
        }
        if imbalance < best {
            (best, stalled) = (imbalance, 0);
        }
        let mut moved = false;
        while let Some(a) = ranking.first_live() {
            let Some((set, b)) = best_move(g, speeds, &split, a, None, &mut sep) else {
                ranking.stick(a);
                continue;
            };
            for n in set {
                let from = split.part[n];
                split.shift(g, n, b);
                split.unstick(n, from, &mut ranking);
            }
            moved = true;
            break;
        }
        // No neighbour of any part is light enough: pass one node along a chain of parts
        // from the slowest to the nearest part that can take it (the parts between give one
        // and get one). Moves to lighter neighbours always end (each lowers the sum of squared
        // times); chains need the patience.
        if !moved {
            stalled += 1;
            if stalled > patience {
                return imbalance;
            }
            moved = pass_along_chain(
                g,
                speeds,
                &mut split,
                slowest,
                heaviest,
                &mut sep,
                &mut ranking,
            );
        }
        if !moved {
            return imbalance;
        }
    }
}

/// A partition being redeployed: the part of each node, and the load and nodes of each part.
struct Split<'a> {
    part: &'a mut [usize],
    load: Vec<f64>,
    members: Vec<Vec<usize>>,
    /// Where each node sits in its part's `members`.
    slot: Vec<usize>,
    /// For each part, the other parts it has edges to, with the number of such edges.
    adjacent: Vec<BTreeMap<usize, u32>>,
}

impl<'a> Split<'a> {
    fn new(g: &Graph, parts: usize, part: &'a mut [usize]) -> Self {
        let mut load = vec![0.0; parts];
        let mut members = vec![Vec::new(); parts];
        let mut slot = vec![0; g.len()];
        let mut adjacent: Vec<BTreeMap<usize, u32>> = vec![BTreeMap::new(); parts];
        for n in 0..g.len() {
            load[part[n]] += g.weight[n];
            slot[n] = members[part[n]].len();
            members[part[n]].push(n);
            for (m, _) in g.edges(n) {
                if part[m] != part[n] {
                    *adjacent[part[n]].entry(part[m]).or_insert(0) += 1;
                }
            }
        }
        Split {
            part,
            load,
            members,
            slot,
            adjacent,
        }
    }

    /// Counts one edge between parts `p` and `q` more (`add`) or fewer (none where `p == q`).
    /// Time O(log parts).
    fn link(&mut self, p: usize, q: usize, add: bool) {
        if p == q {
            return;
        }
        for (a, b) in [(p, q), (q, p)] {
            let c = self.adjacent[a].entry(b).or_insert(0);
            if add {
                *c += 1;
            } else {
                *c -= 1;
                if *c == 0 {
                    self.adjacent[a].remove(&b);
                }
            }
        }
    }

    /// Moves node `n` to part `to`.
    fn shift(&mut self, g: &Graph, n: usize, to: usize) {
        let from = self.part[n];
        for (m, _) in g.edges(n) {
            let q = self.part[m];
            self.link(from, q, false);
            self.link(to, q, true);
        }
        let list = &mut self.members[from];
        list.swap_remove(self.slot[n]);
        if let Some(&moved) = list.get(self.slot[n]) {
            self.slot[moved] = self.slot[n];
        }
        self.slot[n] = self.members[to].len();
        self.members[to].push(n);
        self.part[n] = to;
        self.load[from] -= g.weight[n];
        self.load[to] += g.weight[n];
    }

    /// Whether some part adjacent to `a` would stay below `time_a` with `a`'s lightest node
    /// added. Where none would, [`Split::candidate_moves`] finds none: the sum and the
    /// quotient round monotonically, so no heavier node passes where the lightest fails. Time
    /// O(`a`'s nodes and adjacent parts).
    fn has_taker(&self, g: &Graph, speeds: &[f64], a: usize, time_a: f64) -> bool {
        let lightest = self.members[a]
            .iter()
            .map(|&n| g.weight[n])
            .fold(f64::INFINITY, f64::min);
        let load = &self.load;
        self.adjacent[a]
            .keys()
            .any(|&b| (load[b] + lightest) / speeds[b] < time_a)
    }

    /// Appends to `moves` every move of one node of `a` to an adjacent part (`to` only, where
    /// named) that stays below `time_a` with it: (the cut weight it saves, the node, the
    /// part), by node, then part. Time O(`a`'s edges).
    fn candidate_moves(
        &self,
        g: &Graph,
        speeds: &[f64],
        a: usize,
        to: Option<usize>,
        time_a: f64,
        moves: &mut Vec<(f64, usize, usize)>,
    ) {
        let (part, load) = (&*self.part, &self.load);
        // The edge weight from a node to each other part, by part (a node has few: one scan of
        // its edges, each part's weights summed in edge order).
        let mut to_part: Vec<(usize, f64)> = Vec::new();
        for &n in &self.members[a] {
            let mut to_own = 0.0;
            to_part.clear();
            for (m, w) in g.edges(n) {
                let q = part[m];
                if q == a {
                    to_own += w;
                } else if let Some(slot) = to_part.iter_mut().find(|(p, _)| *p == q) {
                    slot.1 += w;
                } else {
                    to_part.push((q, w));
                }
            }
            // Not on the boundary when empty; the parts in increasing order otherwise.
            to_part.sort_unstable_by_key(|&(q, _)| q);
            for &(b, w) in &to_part {
                if to.is_none_or(|t| t == b) && (load[b] + g.weight[n]) / speeds[b] < time_a {
                    moves.push((w - to_own, n, b));
                }
            }
        }
    }

    /// After node `n` moved out of part `from`: notes the changed loads of `from` and `n`'s new
    /// part, and clears the stuck mark of every part whose moves it may have changed: the two
    /// and every part adjacent to either (their loads changed; `n`'s neighbours are among
    /// them). The adjacent parts are those the two parts' edges reach, kept by
    /// [`Split::link`]. Time O(the parts adjacent to the two × log parts).
    fn unstick(&self, n: usize, from: usize, ranking: &mut Ranking) {
        for p in [from, self.part[n]] {
            ranking.unstick(p);
            ranking.changed(p);
            for &q in self.adjacent[p].keys() {
                ranking.unstick(q);
            }
        }
    }
}

/// Moves one node (with what hangs on it) along the shortest chain of adjacent parts from `a`
/// to the nearest part whose time stays below `a`'s after taking the heaviest node (of weight
/// `heaviest`); each step
/// goes from one part of the chain to the next, the last first. Returns whether the chain was
/// passed.
fn pass_along_chain(
    g: &Graph,
    speeds: &[f64],
    split: &mut Split,
    a: usize,
    heaviest: f64,
    sep: &mut Separation,
    ranking: &mut Ranking,
) -> bool {
    let parts = speeds.len();
    let time_a = split.load[a] / speeds[a];
    let adjacent = &split.adjacent;
    let mut previous = vec![usize::MAX; parts];
    previous[a] = a;
    let mut queue = VecDeque::from([a]);
    let mut end = None;
    while let Some(p) = queue.pop_front() {
        if p != a && (split.load[p] + heaviest) / speeds[p] < time_a {
            end = Some(p);
            break;
        }
        for &q in adjacent[p].keys() {
            if previous[q] == usize::MAX {
                previous[q] = p;
                queue.push_back(q);
            }
        }
    }
    let Some(mut to) = end else {
        return false;
    };
    let mut passed = false;
    while to != a {
        let from = previous[to];
        let Some((set, b)) = best_move(g, speeds, split, from, Some(to), sep) else {
            return passed;
        };
        for n in set {
            let from = split.part[n];
            split.shift(g, n, b);
            split.unstick(n, from, ranking);
        }
        passed = true;
        to = from;
    }
    passed
}

/// The best move out of part `a`: a boundary node, with whatever of `a` it alone connects to
/// the rest (so `a` stays connected: the moved set hangs on the node, which touches the
/// receiver), to an adjacent part whose time stays below `a`'s; among those, the one that cuts
/// the most edge weight. Returns the nodes to move and the receiving part.
fn best_move(
    g: &Graph,
    speeds: &[f64],
    split: &Split,
    a: usize,
    to: Option<usize>,
    sep: &mut Separation,
) -> Option<(Vec<usize>, usize)> {
    let (part, load) = (&*split.part, &split.load);
    // Toward a named part (a step of a chain), only the donor's connectivity matters.
    let time_a = if to.is_some() {
        f64::INFINITY
    } else {
        load[a] / speeds[a]
    };
    // In the slowest try of docs/partitioning.md's 10⁸-cell shell a third of the calls end
    // here, without reading `a`'s edges.
    if to.is_none() && !split.has_taker(g, speeds, a, time_a) {
        return None;
    }
    let mut moves: Vec<(f64, usize, usize)> = Vec::new();
    split.candidate_moves(g, speeds, a, to, time_a, &mut moves);
    moves.sort_by(|x, y| y.0.total_cmp(&x.0).then(x.1.cmp(&y.1)));
    for (_, n, b) in moves {
        // What may hang on `n` for the receiver to stay below `a`.
        let limit = time_a * speeds[b] - load[b] - g.weight[n];
        let Some(mut set) = sep.hanging_on(g, part, n, load[a], limit) else {
            continue;
        };
        set.push(n);
        let weight: f64 = set.iter().map(|&k| g.weight[k]).sum();
        if (load[b] + weight) / speeds[b] < time_a {
            return Some((set, b));
        }
    }
    None
}

/// Gives every empty part one node of the heaviest part of two nodes or more, one whose
/// removal leaves that part connected (the redeployment then grows it).
pub fn seed_empty_parts(g: &Graph, parts: usize, part: &mut [usize]) {
    let mut sep = Separation::new(g.len());
    let loads = |part: &[usize]| {
        let mut load = vec![0.0; parts];
        for n in 0..g.len() {
            load[part[n]] += g.weight[n];
        }
        load
    };
    // Summed again only after a node moves (the sums of every part, in node order, as before
    // each part's turn: summing them for every part took parts × nodes steps).
    let mut load = loads(part);
    for p in 0..parts {
        if load[p] > 0.0 || part.contains(&p) {
            continue;
        }
        // The heaviest part that can spare a node.
        let mut size = vec![0usize; parts];
        for &q in part.iter() {
            size[q] += 1;
        }
        let Some(heaviest) = (0..parts)
            .filter(|&q| size[q] >= 2)
            .max_by(|&a, &b| load[a].total_cmp(&load[b]))
        else {
            return;
        };
        let mut nodes: Vec<usize> = (0..g.len()).filter(|&n| part[n] == heaviest).collect();
        nodes.sort_by_key(|&n| g.degree(n));
        let leaf = nodes.into_iter().find(|&n| {
            sep.hanging_on(g, part, n, load[heaviest], 0.0)
                .is_some_and(|h| h.is_empty())
        });
        if let Some(n) = leaf {
            part[n] = p;
            load = loads(part);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::{TileGraph, quality};

    fn strip(n: usize) -> Graph {
        TileGraph::from_mask([n, 1, 1], &vec![true; n], [1, 1, 1], 1.0)
            .unwrap()
            .graph
    }

    #[test]
    fn merging_a_path_by_weight_pairs_neighbours() {
        let g = strip(8);
        let mut group = vec![0; 8];
        assert_eq!(merge(&g, 4, MergeRule::Mr0, &mut group), 4);
        // Least loaded first, least loaded partner: 0+1, 2+3, 4+5, 6+7.
        assert_eq!(group, [0, 0, 1, 1, 2, 2, 3, 3]);
        let c = crate::graph::contract(&crate::graph::Sequential, &g, &group, 4);
        assert_eq!(c.weight, [2.0, 2.0, 2.0, 2.0]);
        assert_eq!(c.edges(1).collect::<Vec<_>>(), [(0, 1.0), (2, 1.0)]);
    }

    #[test]
    fn pieces_join_their_neighbours_and_redeployment_balances() {
        let g = strip(10);
        // Part 1 in two pieces (node 9 apart from 4..=6), part 0 too heavy.
        let mut part = [0, 0, 0, 0, 1, 1, 1, 0, 0, 1];
        join_pieces(&g, 2, &mut part);
        assert_eq!(quality(&g, &part, &[1.0, 1.0]).disconnected, 0);
        let imbalance = redeploy(&g, &[1.0, 1.0], 0.0, &mut part);
        let q = quality(&g, &part, &[1.0, 1.0]);
        assert_eq!(
            (q.disconnected, q.imbalance, imbalance),
            (0, 1.0, 1.0),
            "{part:?}"
        );
        // Speeds 3 : 2 on 10 nodes: 6 and 4.
        let imbalance = redeploy(&g, &[3.0, 2.0], 0.0, &mut part);
        assert_eq!(quality(&g, &part, &[3.0, 2.0]).part_weight, [6.0, 4.0]);
        assert_eq!(imbalance, 1.0);
    }

    /// The tile graph of a random mask of `grid` cells at tile 3 (nodes of 1 to 27 cells),
    /// if it has an active cell.
    fn tiles_of_three(bits: &[bool], grid: [usize; 3], weight: f64) -> Option<TileGraph> {
        TileGraph::from_mask(grid, bits, [3, 3, 3], weight).ok()
    }

    proptest::proptest! {
        /// Where no adjacent part takes a part's lightest node, the part has no candidate move
        /// (the test `best_move` skips the edge scan by), on tile graphs of random masks at
        /// tile 3 (nodes of 1 to 27 cells) in random parts of random speeds.
        #[test]
        fn a_part_without_a_taker_has_no_candidate_move(
            bits in proptest::collection::vec(proptest::bool::weighted(0.8), 12 * 12 * 3),
            assign in proptest::collection::vec(0usize..5, 64),
            speeds in proptest::collection::vec(0.5f64..2.0, 5),
            weight_of_one in 0.5f64..3.0,
        ) {
            let Some(tiles) = tiles_of_three(&bits, [12, 12, 3], weight_of_one) else {
                return Ok(());
            };
            let g = tiles.graph;
            let mut part: Vec<usize> = (0..g.len()).map(|n| assign[n % 64]).collect();
            let split = Split::new(&g, 5, &mut part);
            let mut moves = Vec::new();
            for a in 0..5 {
                for time_a in [split.load[a] / speeds[a], split.load[a] / speeds[a] * 1.5] {
                    if !split.has_taker(&g, &speeds, a, time_a) {
                        moves.clear();
                        split.candidate_moves(&g, &speeds, a, None, time_a, &mut moves);
                        proptest::prop_assert!(moves.is_empty(), "part {a}: {moves:?}");
                    }
                }
            }
        }

        /// The marks of the parts known to have no move (kept from move to move, cleared by
        /// `Split::unstick` where a move may have opened one) give the moves of asking every
        /// part again before each move: the same partition and imbalance, on tile graphs of
        /// random masks at tile 3 in random parts of random speeds.
        #[test]
        fn the_stuck_marks_change_no_move(
            bits in proptest::collection::vec(proptest::bool::weighted(0.85), 36 * 36 * 6),
            assign in proptest::collection::vec(0usize..16, 64),
            speeds in proptest::collection::vec(0.5f64..2.0, 16),
        ) {
            let Some(tiles) = tiles_of_three(&bits, [36, 36, 6], 1.0) else {
                return Ok(());
            };
            let g = &tiles.graph;
            // Blocks of 4 × 4 × 2 nodes in random parts, so parts start in few pieces.
            let start: Vec<usize> = (0..g.len())
                .map(|n| {
                    let t = tiles.tile_of[n];
                    assign[(t % 12 / 4) + 3 * (t / 12 % 12 / 4) + 9 * (t / 144)]
                })
                .collect();
            let (mut marked, mut asked) = (start.clone(), start);
            let a = redeploy_marked(g, &speeds, 0.0, &mut marked, true);
            let b = redeploy_marked(g, &speeds, 0.0, &mut asked, false);
            proptest::prop_assert_eq!(&marked, &asked);
            proptest::prop_assert_eq!(a.to_bits(), b.to_bits());
        }
    }

    #[test]
    fn clique_balance_by_hand() {
        // A path of 8 nodes in four parts of 1, 1, 1 and 5 nodes: times 1, 1, 1, 5, mean 2.
        // Cliques {0, 1}, {0, 1, 2}, {1, 2, 3}, {2, 3}: slowest 1, 1, 5, 5, so L = S = 2.
        let g = strip(8);
        let part = [0, 1, 2, 3, 3, 3, 3, 3];
        assert_eq!(clique_balance(&g, &[1.0; 4], &part), 0.0);
        // Parts in the order 0, 3, 1, 2: cliques {0, 3}, {0, 3, 1}, {3, 1, 2}, {1, 2}; only
        // the last is below the mean: (3 − 1) ÷ 4.
        let part = [0, 3, 3, 3, 3, 3, 1, 2];
        assert_eq!(clique_balance(&g, &[1.0; 4], &part), 0.5);
        // Balanced: every time is the mean, L = S = 0.
        let part = [0, 0, 1, 1, 2, 2, 3, 3];
        assert_eq!(clique_balance(&g, &[1.0; 4], &part), 0.0);
        // Two parts of different times: both cliques hold both parts, so both are above.
        assert_eq!(
            clique_balance(&g, &[1.0; 2], &[0, 0, 0, 0, 0, 1, 1, 1]),
            1.0
        );
    }
}
