//! The oracle of the RCDC partitioner (Smyk & Tudruj 2011) and the tile map built on it.

use alloc::vec;

use crate::graph::{RcdcParams, TileGraph, quality, rcdc};
use crate::tile_map::TileMap;

/// Checks what [`rcdc`](crate::graph::rcdc) promises for `mask` (one value per cell of `grid`) cut into tiles of
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
    let Ok(tiles) = TileGraph::from_mask(grid, mask, tile, 1.0) else {
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
    let whole = quality(g, &vec![0; g.len()], &[1.0]).disconnected == 0;
    let q = quality(g, &part, &speeds);
    if whole && (q.disconnected > 0 || q.empty_parts > 0) {
        return Err(format!("a connected area gave {q:?}"));
    }
    // Where no part is empty, the tile map built from it gives every tile with an active
    // cell exactly one owner and every other tile none.
    if q.empty_parts == 0 {
        let map = TileMap::new(&tiles, &part, parts).map_err(|e| format!("no tile map: {e}"))?;
        let owned = map.owner.iter().filter(|o| o.is_some()).count();
        if owned != g.len() || tiles.tile_of.iter().any(|&t| map.owner[t].is_none()) {
            return Err(format!("{owned} owned tiles for {} active ones", g.len()));
        }
    }
    Ok(())
}
