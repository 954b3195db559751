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

use alloc::collections::VecDeque;
use alloc::vec;
use alloc::vec::Vec;

use super::csr::Graph;
use super::tiles::GraphError;

/// The parameters of phase 2.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CdcParams {
    /// Messages lighter than this are destroyed (MinWeight).
    pub min_weight: f64,
    /// The TTL of an originator's messages (MaxTTL).
    pub max_ttl: u32,
}

impl Default for CdcParams {
    fn default() -> Self {
        CdcParams {
            min_weight: 1e-6,
            max_ttl: 64,
        }
    }
}

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

/// Writes the part of each node into `part` (length `g.len()`).
pub fn cdc(
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
    const NONE: usize = usize::MAX;
    let mut queue = VecDeque::new();
    for node in 0..n {
        let row = &table[node * parts..(node + 1) * parts];
        let (best, w) = row
            .iter()
            .enumerate()
            .fold((NONE, 0.0), |b, (k, &w)| if w > b.1 { (k, w) } else { b });
        part[node] = if w > 0.0 { best } else { NONE };
        if part[node] != NONE {
            queue.push_back(node);
        }
    }
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
