//! RCDC, redeployment with connectivity-based distributed node clustering (Smyk & Tudruj 2011,
//! §6, Fig. 12): merge the graph down to k × parts macro nodes by a rule of table 1, cluster
//! the macro nodes into the parts by CDC, then redeploy cells for balance. Between CDC and the
//! redeployment, pieces cut off from their part join a neighbouring part (CDC's argmax can
//! leave islands), so every part of a connected area ends connected, and a part CDC left
//! empty gets one node of the heaviest part to grow from.

use alloc::vec;

use super::cdc::{CdcParams, cdc};
use super::csr::Graph;
use super::redeploy::{MergeRule, contract, join_pieces, merge, redeploy, seed_empty_parts};
use super::refine::refine;
use super::tiles::GraphError;

/// The parameters of RCDC.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RcdcParams {
    /// Macro nodes per part when merging stops (the paper takes 5 to 20).
    pub k: usize,
    /// The merging rule of phase 2.
    pub rule: MergeRule,
    /// CDC's parameters for phase 3.
    pub cdc: CdcParams,
    /// The redeployment stops when no part's time exceeds the ideal by more than this.
    pub tolerance: f64,
}

impl Default for RcdcParams {
    fn default() -> Self {
        RcdcParams {
            k: 10,
            rule: MergeRule::Mr0,
            cdc: CdcParams::default(),
            tolerance: 0.02,
        }
    }
}

/// Partitions `g` into `speeds.len()` parts, part `p` getting a share of the weight in
/// proportion to `speeds[p]`; writes each node's part into `part` and returns the imbalance
/// (the slowest part's time ÷ the ideal time).
pub fn rcdc(
    g: &Graph,
    speeds: &[f64],
    params: RcdcParams,
    part: &mut [usize],
) -> Result<f64, GraphError> {
    let parts = speeds.len();
    if parts == 0 || parts > g.len() {
        return Err(GraphError::Parts {
            parts,
            nodes: g.len(),
        });
    }
    let mut group = vec![0usize; g.len()];
    let count = merge(g, (params.k * parts).max(parts), params.rule, &mut group);
    let macros = contract(g, &group, count);
    let mut macro_part = vec![0usize; count];
    cdc(&macros, parts.min(count), params.cdc, &mut macro_part)?;
    for n in 0..g.len() {
        part[n] = macro_part[group[n]];
    }
    join_pieces(g, parts, part);
    seed_empty_parts(g, parts, part);
    let imbalance = redeploy(g, speeds, params.tolerance, part);
    refine(g, speeds, params.tolerance.max(imbalance - 1.0), part);
    Ok(imbalance_of(g, speeds, part))
}

/// The slowest part's time (weight ÷ speed) over the ideal time.
fn imbalance_of(g: &Graph, speeds: &[f64], part: &[usize]) -> f64 {
    super::quality(g, part, speeds).imbalance
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::{TileGraph, quality};

    #[test]
    fn a_square_into_four_and_into_targets() {
        let g = TileGraph::from_mask([40, 40, 1], &[true; 1600], [1, 1, 1], 1.0)
            .unwrap()
            .graph;
        let mut part = vec![0usize; g.len()];
        for speeds in [&[1.0; 4][..], &[2.0, 1.0, 1.0]] {
            let imbalance = rcdc(&g, speeds, RcdcParams::default(), &mut part).unwrap();
            let q = quality(&g, &part, speeds);
            assert_eq!((q.disconnected, q.empty_parts), (0, 0), "{q:?}");
            assert!(imbalance <= 1.02 + 1e-12, "{q:?}");
        }
        assert!(rcdc(&g, &[], RcdcParams::default(), &mut part).is_err());
    }
}
