//! The three partitioning methods of Smyk & Tudruj 2011 behind one call: the redeployment
//! algorithm (§3), CDC (§4) and their hierarchy RCDC (§6).

use alloc::vec;

use super::cdc::{CdcParams, cdc};
use super::csr::Graph;
use super::rcdc::{RcdcParams, rcdc};
use super::redeploy::{MergeRule, join_pieces, merge, redeploy, seed_empty_parts};
use super::tiles::GraphError;

/// A partitioning method.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// RCDC (§6): merge to k × parts macro nodes, CDC, redeployment.
    Rcdc,
    /// The redeployment algorithm (§3): merge by MR0 down to `parts` macro nodes, then
    /// redeploy cells between cliques until balanced.
    Redeploy,
    /// CDC alone (§4) on the whole graph, as the paper runs it: no balancing, parts may come
    /// out in pieces or empty.
    Cdc,
}

impl Method {
    /// All methods, in the order of the paper's figure 13.
    pub const ALL: [Method; 3] = [Method::Redeploy, Method::Cdc, Method::Rcdc];

    /// The name used on the command line.
    pub const fn name(self) -> &'static str {
        match self {
            Method::Rcdc => "rcdc",
            Method::Redeploy => "redeploy",
            Method::Cdc => "cdc",
        }
    }
}

/// Partitions `g` by `method` into `speeds.len()` parts weighted by `speeds`, writing each
/// node's part into `part`.
pub fn partition(
    g: &Graph,
    speeds: &[f64],
    method: Method,
    part: &mut [usize],
) -> Result<(), GraphError> {
    let parts = speeds.len();
    if parts == 0 || parts > g.len() {
        return Err(GraphError::Parts {
            parts,
            nodes: g.len(),
        });
    }
    let tolerance = RcdcParams::default().tolerance;
    match method {
        Method::Rcdc => {
            rcdc(g, speeds, RcdcParams::default(), part)?;
        }
        Method::Cdc => cdc(g, parts, CdcParams::default(), part)?,
        Method::Redeploy => {
            let mut group = vec![0usize; g.len()];
            let count = merge(g, parts, MergeRule::Mr0, &mut group);
            // Merging stops early only at a connected component already whole; the surplus
            // macro nodes then go to the part they touch most (or seed an empty one).
            for n in 0..g.len() {
                part[n] = group[n].min(parts - 1);
            }
            if count > parts {
                join_pieces(g, parts, part);
            }
            seed_empty_parts(g, parts, part);
            redeploy(g, speeds, tolerance, part);
        }
    }
    Ok(())
}
