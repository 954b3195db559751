//! CDC, connectivity-based distributed node clustering (Smyk & Tudruj 2011, §4, Fig. 6).
//!
//! Phase 1: the nodes in (z, y, x) order; an originator every P of weight, P = total weight ÷
//! parts, one per part. Phase 2: every originator sends a message (OID, W = 1, TTL = MaxTTL) to
//! its neighbours; a node receiving M adds M.W to its table T[M.OID] and passes on a message
//! with W = M.W ÷ degree(node) and TTL − 1 to all its neighbours while TTL > 0 and
//! W ≥ MinWeight. When no message is left, each node joins the originator with the largest T.
//!
//! Messages of one originator that reach a node in the same round are merged (their weights
//! summed) before they are passed on: the tables are those of the paper wherever no message
//! dies, and the work stays within nodes × parts per round instead of growing as degree^TTL.
//! Nodes no message reached join the part of the nearest node that one did (breadth first).
//!
//! Two ways to run phase 2, chosen by the size of a dense table:
//!
//! - up to [`CdcParams::dense_entries`] ([`DENSE_ENTRIES`]) nodes × originators ([`vote_in_arrival_order`]): a dense table of
//!   nodes × originators, the merged messages handled in the order they arrived (a message
//!   that reaches a node still waiting in the current round joins it there);
//! - above ([`vote_in_rounds`]): synchronous rounds in node order, each node keeping only the
//!   [`CdcParams::kept_per_node`] heaviest originators that reach it in a round. With the
//!   paper's MaxTTL of 64 and MinWeight of 10⁻⁶ every originator's messages reach nearly every
//!   node (497 of 512 originators a node on the 5 120 macro nodes of a 256³ shell at tile 8:
//!   10⁸ message merges and 18 s), so the dense way on the 40 960 macro nodes of a 512³ shell
//!   into 4096 parts would hold two tables of 1.34 GB and take of the order of 10¹⁰ merges;
//!   the lighter messages are those of far originators, which lose the vote anyway.
//!
//! The two differ in the order of the sums and in the messages dropped, so their partitions
//! differ; every partition of the tests and tables in docs/partitioning.md (at most 640 macro
//! nodes × 64 parts) is made the dense way, as before.

use alloc::collections::VecDeque;
use alloc::vec;
use alloc::vec::Vec;

use super::csr::Graph;
use super::fork::{Fork, Sequential, map_chunks_mut};
use super::tiles::GraphError;

/// The parameters of phase 2.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CdcParams {
    /// Messages lighter than this are destroyed (MinWeight).
    pub min_weight: f64,
    /// The TTL of an originator's messages (MaxTTL).
    pub max_ttl: u32,
    /// Above [`DENSE_ENTRIES`]: a node keeps (adds to its table and passes on) the messages of
    /// at most this many originators a round, the heaviest (ties: the lower originator); the
    /// others die there. Not in the paper (there: all).
    pub kept_per_node: usize,
    /// Phase 2 runs on dense tables up to this many nodes × originators, in rounds above.
    pub dense_entries: usize,
}

impl Default for CdcParams {
    fn default() -> Self {
        CdcParams {
            min_weight: 1e-6,
            max_ttl: 64,
            kept_per_node: 8,
            dense_entries: DENSE_ENTRIES,
        }
    }
}

/// The default [`CdcParams::dense_entries`]: the most nodes × originators for which phase 2
/// runs on dense tables
/// ([`vote_in_arrival_order`], two arrays of 8 bytes an entry: 16 MiB here).
pub const DENSE_ENTRIES: usize = 1 << 20;

/// The originators of phase 1: node `k · P` in weight order for part `k`.
pub fn originators(g: &Graph, parts: usize, out: &mut [usize]) {
    let p = g.total_weight() / parts as f64;
    let mut before = 0.0;
    let mut k = 0;
    for n in 0..g.len() {
        while k < parts && before >= k as f64 * p {
            out[k] = n;
            k += 1;
        }
        before += g.weight[n];
    }
    // Rounding can leave the last originators unplaced; they take the last nodes, distinct.
    while k < parts {
        out[k] = g.len() - (parts - k);
        k += 1;
    }
}

/// The messages every node passes on in one round, by node: node `n`'s are
/// `entries[offsets[n]..offsets[n + 1]]`, (originator, weight passed to each neighbour).
struct Messages {
    offsets: Vec<u32>,
    entries: Vec<(u32, f64)>,
}

impl Messages {
    fn of(&self, n: usize) -> &[(u32, f64)] {
        &self.entries[self.offsets[n] as usize..self.offsets[n + 1] as usize]
    }
}

/// Writes the part of each node into `part` (length `g.len()`).
///
/// Time: phase 2's ([`vote_in_arrival_order`] or [`vote_in_rounds`]) and O(N + E) for the
/// rest, N nodes and E edge ends.
pub fn cdc(
    g: &Graph,
    parts: usize,
    params: CdcParams,
    part: &mut [usize],
) -> Result<(), GraphError> {
    cdc_on(&Sequential, g, parts, params, part)
}

/// [`cdc`] with the nodes of each of [`vote_in_rounds`]'s rounds visited in chunks side by
/// side through `fork`: the same parts.
pub fn cdc_on<F: Fork>(
    fork: &F,
    g: &Graph,
    parts: usize,
    params: CdcParams,
    part: &mut [usize],
) -> Result<(), GraphError> {
    if parts == 0 || parts > g.len() {
        return Err(GraphError::Parts {
            parts,
            nodes: g.len(),
        });
    }
    let mut origin = vec![0usize; parts];
    originators(g, parts, &mut origin);
    origin.sort_unstable();
    origin.dedup();
    let n = g.len();
    if n * origin.len() <= params.dense_entries {
        vote_in_arrival_order(g, &origin, params, part);
    } else {
        vote_in_rounds(fork, g, &origin, params, ROUND_GRAIN, part);
    }
    let mut queue: VecDeque<usize> = (0..n).filter(|&node| part[node] != NONE).collect();
    while let Some(node) = queue.pop_front() {
        for (m, _) in g.edges(node) {
            if part[m] == NONE {
                part[m] = part[node];
                queue.push_back(m);
            }
        }
    }
    // A component of the mask that no originator touches: its own nodes join part 0.
    for p in part.iter_mut().filter(|p| **p == NONE) {
        *p = 0;
    }
    Ok(())
}

/// No originator's message reached the node (yet).
const NONE: usize = usize::MAX;

/// The originator (its index in `origin`) with the largest T among `row`'s (originator, T),
/// the first of equal ones in `row`'s order, or [`NONE`] where no T is above 0.
fn winner(row: impl Iterator<Item = (usize, f64)>) -> usize {
    let (best, w) = row.fold((NONE, 0.0), |b, (k, w)| if w > b.1 { (k, w) } else { b });
    if w > 0.0 { best } else { NONE }
}

/// Phase 2 on dense tables: writes each node's winning originator (or [`NONE`]) into `part`.
/// The merged messages of a round are handled in the order they first arrived; a message
/// that reaches a node whose merged message of the current round is still waiting joins it.
///
/// Time O(MaxTTL × N × O × degree) at worst (every originator's messages reaching every node
/// each round), memory 16 bytes a node × originator (N × O of `origin`).
fn vote_in_arrival_order(g: &Graph, origin: &[usize], params: CdcParams, part: &mut [usize]) {
    let n = g.len();
    let parts = origin.len();
    let mut table = vec![0.0f64; n * parts];
    // (node, oid) → weight arriving this round; `pending` lists the keys in arrival order.
    let mut arriving = vec![0.0f64; n * parts];
    let mut pending: Vec<usize> = Vec::new();
    let send = |from: usize, oid: usize, w: f64, arriving: &mut [f64], pending: &mut Vec<usize>| {
        for (m, _) in g.edges(from) {
            let key = m * parts + oid;
            if arriving[key] == 0.0 {
                pending.push(key);
            }
            arriving[key] += w;
        }
    };
    for (oid, &o) in origin.iter().enumerate() {
        table[o * parts + oid] += 1.0;
        send(o, oid, 1.0, &mut arriving, &mut pending);
    }
    let mut ttl = params.max_ttl;
    while !pending.is_empty() {
        let round = core::mem::take(&mut pending);
        ttl = ttl.saturating_sub(1);
        for key in round {
            let w = core::mem::replace(&mut arriving[key], 0.0);
            table[key] += w;
            let node = key / parts;
            let degree = g.degree(node);
            let passed = w / degree as f64;
            if ttl > 0 && passed >= params.min_weight {
                send(node, key % parts, passed, &mut arriving, &mut pending);
            }
        }
    }
    for node in 0..n {
        let row = &table[node * parts..(node + 1) * parts];
        part[node] = winner(row.iter().copied().enumerate());
    }
}

/// Nodes one branch of a round of [`vote_in_rounds`] visits (fixed: the chunks never depend
/// on the number of threads).
const ROUND_GRAIN: usize = 1 << 11;

/// Phase 2 in synchronous rounds: writes each node's winning originator (or [`NONE`]) into
/// `part`. Each round visits the nodes in order; a node sums the messages its neighbours
/// passed on in the round before (by originator, in the order of its edges), keeps the
/// [`CdcParams::kept_per_node`] heaviest, adds them to its table and passes them on. A node's
/// table holds only the originators it kept in some round. A round reads only the round
/// before's messages and writes each node's own table and messages (Jacobi-style, as the
/// paper's nodes exchange messages in parallel), so chunks of `grain` nodes ([`ROUND_GRAIN`]
/// in [`cdc_on`]) run side by side through `fork`, each with its own scratch, and the outcome
/// is the same.
///
/// Time O(MaxTTL × (E × K + N × A)) for N nodes, E edge ends, K = `kept_per_node` and A ≤
/// degree × K the originators arriving at a node in a round (plus the sorts of K and the
/// table look-ups, logarithmic); memory O(N × (K + the originators a node kept)) and 8 bytes
/// an originator of scratch a branch, no nodes × originators table.
fn vote_in_rounds<F: Fork>(
    fork: &F,
    g: &Graph,
    origin: &[usize],
    params: CdcParams,
    grain: usize,
    part: &mut [usize],
) {
    let n = g.len();
    // Node `n`'s table: (originator, T) sorted by originator.
    let mut table: Vec<Vec<(u32, f64)>> = vec![Vec::new(); n];
    // The originators send W = 1 to every neighbour.
    let mut sent = Messages {
        offsets: vec![0u32; n + 1],
        entries: Vec::with_capacity(origin.len()),
    };
    {
        let mut o = origin.iter().enumerate().peekable();
        for node in 0..n {
            while let Some((oid, _)) = o.next_if(|&(_, &at)| at == node) {
                table[node].push((oid as u32, 1.0));
                sent.entries.push((oid as u32, 1.0));
            }
            sent.offsets[node + 1] = sent.entries.len() as u32;
        }
    }
    let keep = params.kept_per_node.max(1);
    for round in 1..=params.max_ttl.max(1) {
        let last = round >= params.max_ttl;
        let sent_now = &sent;
        // Each chunk's messages passed on, and where each of its nodes' end.
        let chunks = map_chunks_mut(fork, &mut table, grain, &|c, rows| {
            // Scratch: each originator's weight arriving at the node being visited, and
            // which arrived.
            let mut arriving = vec![0.0f64; origin.len()];
            let mut arrived: Vec<u32> = Vec::new();
            let mut passing: Vec<(u32, f64)> = Vec::new();
            let mut entries: Vec<(u32, f64)> = Vec::new();
            let mut ends: Vec<u32> = Vec::with_capacity(rows.len());
            for (i, row) in rows.iter_mut().enumerate() {
                let node = c * grain + i;
                for (m, _) in g.edges(node) {
                    for &(oid, w) in sent_now.of(m) {
                        if arriving[oid as usize] == 0.0 {
                            arrived.push(oid);
                        }
                        arriving[oid as usize] += w;
                    }
                }
                // The heaviest `keep` arrivals (ties: the lower originator), by originator.
                passing.clear();
                passing.extend(
                    arrived
                        .drain(..)
                        .map(|oid| (oid, core::mem::replace(&mut arriving[oid as usize], 0.0))),
                );
                if passing.len() > keep {
                    let heavier =
                        |a: &(u32, f64), b: &(u32, f64)| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0));
                    passing.select_nth_unstable_by(keep - 1, heavier);
                    passing.truncate(keep);
                }
                passing.sort_unstable_by_key(|e| e.0);
                let degree = g.degree(node) as f64;
                for &(oid, w) in &passing {
                    match row.binary_search_by_key(&oid, |e| e.0) {
                        Ok(i) => row[i].1 += w,
                        Err(i) => row.insert(i, (oid, w)),
                    }
                }
                // The messages passed on: W ÷ degree, while TTL > 0 and W ≥ MinWeight.
                passing.retain_mut(|e| {
                    e.1 /= degree;
                    !last && e.1 >= params.min_weight
                });
                entries.extend_from_slice(&passing);
                ends.push(entries.len() as u32);
            }
            (entries, ends)
        });
        let mut next = Messages {
            offsets: Vec::with_capacity(n + 1),
            entries: Vec::with_capacity(chunks.iter().map(|c| c.0.len()).sum()),
        };
        next.offsets.push(0);
        for (entries, ends) in chunks {
            let base = next.entries.len() as u32;
            next.offsets.extend(ends.iter().map(|&e| base + e));
            next.entries.extend(entries);
        }
        sent = next;
        if sent.entries.is_empty() {
            break;
        }
    }
    drop(sent);
    for (node, row) in table.iter().enumerate() {
        part[node] = winner(row.iter().map(|&(k, w)| (k as usize, w)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::TileGraph;
    use crate::graph::quality;

    fn square(side: usize) -> Graph {
        TileGraph::from_mask([side, side, 1], &vec![true; side * side], [1, 1, 1], 1.0)
            .unwrap()
            .graph
    }

    #[test]
    fn originators_every_p_of_weight() {
        let g = square(4);
        let mut o = [0; 4];
        originators(&g, 4, &mut o);
        assert_eq!(o, [0, 4, 8, 12]);
    }

    #[test]
    fn a_square_in_four_assigns_every_node_once_and_stays_connected() {
        let g = square(16);
        let mut part = vec![0; g.len()];
        cdc(&g, 4, CdcParams::default(), &mut part).unwrap();
        let q = quality(&g, &part, &[1.0; 4]);
        assert_eq!(q.empty_parts, 0, "{q:?}");
        assert_eq!(q.disconnected, 0, "{q:?}");
        assert!(q.imbalance < 1.6, "{q:?}");
    }

    #[test]
    fn rounds_on_a_square_in_four_assign_every_node_and_stay_connected() {
        let g = square(16);
        for kept_per_node in [2, 4, 8] {
            let params = CdcParams {
                kept_per_node,
                dense_entries: 0,
                ..CdcParams::default()
            };
            let mut part = vec![0; g.len()];
            cdc(&g, 4, params, &mut part).unwrap();
            let q = quality(&g, &part, &[1.0; 4]);
            assert_eq!(q.empty_parts, 0, "{kept_per_node}: {q:?}");
            assert_eq!(q.disconnected, 0, "{kept_per_node}: {q:?}");
            assert!(q.imbalance < 1.6, "{kept_per_node}: {q:?}");
            // Each originator's node votes for itself.
            let mut o = [0; 4];
            originators(&g, 4, &mut o);
            for (k, &node) in o.iter().enumerate() {
                assert_eq!(part[node], k);
            }
            // The rounds in chunks of 7 nodes: the same votes.
            let origin: Vec<usize> = o.to_vec();
            let mut whole = vec![0; g.len()];
            let mut chunked = vec![0; g.len()];
            vote_in_rounds(&Sequential, &g, &origin, params, ROUND_GRAIN, &mut whole);
            vote_in_rounds(&Sequential, &g, &origin, params, 7, &mut chunked);
            assert_eq!(chunked, whole, "{kept_per_node}");
        }
    }

    #[test]
    fn part_counts_the_graph_cannot_take_are_errors() {
        let g = square(2);
        let mut part = vec![0; 4];
        assert_eq!(
            cdc(&g, 5, CdcParams::default(), &mut part),
            Err(GraphError::Parts { parts: 5, nodes: 4 })
        );
        assert!(cdc(&g, 0, CdcParams::default(), &mut part).is_err());
    }
}
