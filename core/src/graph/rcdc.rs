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

/// Checks what [`rcdc`] promises for `mask` (one value per cell of `grid`) cut into tiles of
/// `tile` over `parts` equal parts, by running it: an error exactly when there are more parts
/// than tiles; otherwise every tile in exactly one part below `parts`, and, where the tiles
/// form one connected area, no empty part and no part in pieces. Returns what failed. The
/// property test and the fuzz target call it.
pub fn verify_rcdc(
    grid: [usize; 3],
    mask: &[bool],
    tile: [usize; 3],
    parts: usize,
) -> Result<(), alloc::string::String> {
    use alloc::format;
    let Ok(tiles) = super::TileGraph::from_mask(grid, mask, tile, 1.0) else {
        return Ok(()); // an empty mask or a bad tile: nothing to partition
    };
    let g = &tiles.graph;
    let speeds = vec![1.0; parts];
    let mut part = vec![usize::MAX; g.len()];
    match rcdc(g, &speeds, RcdcParams::default(), &mut part) {
        Err(_) if parts == 0 || parts > g.len() => return Ok(()),
        Err(e) => return Err(format!("{parts} parts of {} tiles refused: {e}", g.len())),
        Ok(_) if parts == 0 || parts > g.len() => {
            return Err(format!("{parts} parts of {} tiles accepted", g.len()));
        }
        Ok(_) => {}
    }
    if let Some(n) = (0..g.len()).find(|&n| part[n] >= parts) {
        return Err(format!("tile {n} in part {}", part[n]));
    }
    let whole = super::quality(g, &vec![0; g.len()], &[1.0]).disconnected == 0;
    let q = super::quality(g, &part, &speeds);
    if whole && (q.disconnected > 0 || q.empty_parts > 0) {
        return Err(format!("a connected area gave {q:?}"));
    }
    // Where no part is empty, the tile map built from it gives every tile with an active
    // cell exactly one owner and every other tile none.
    if q.empty_parts == 0 {
        let map = crate::tile_map::TileMap::new(&tiles, &part, parts)
            .map_err(|e| format!("no tile map: {e}"))?;
        let owned = map.owner.iter().filter(|o| o.is_some()).count();
        if owned != g.len() || tiles.tile_of.iter().any(|&t| map.owner[t].is_none()) {
            return Err(format!("{owned} owned tiles for {} active ones", g.len()));
        }
    }
    Ok(())
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
