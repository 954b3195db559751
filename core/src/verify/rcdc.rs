//! The oracle of the RCDC partitioner (Smyk & Tudruj 2011) and the tile map built on it.

use alloc::vec;

use crate::graph::{RcdcParams, TileGraph, quality, rcdc};
use crate::tile_map::{TileMap, TileMapError};

/// Checks what [`rcdc`](crate::graph::rcdc) promises for `mask` (one value per cell of `grid`) cut into tiles of
/// `tile` over `parts` equal parts, by running it: an error exactly when there are more parts
/// than nodes (tiles, or pieces of tiles); otherwise every node in exactly one part below
/// `parts`, and, where the cells form one connected area, no empty part and no part in pieces,
/// node by node and cell by cell. Returns what failed. The
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
    // And cell by cell: the graph joins only joined cells.
    let Some(pieces) = tiles.cell_pieces(mask, &part, parts) else {
        return Err("the graph's cells are not the mask's".into());
    };
    if whole && pieces.iter().any(|&p| p != 1) {
        return Err(format!(
            "a connected area gave parts of {pieces:?} pieces cell by cell"
        ));
    }
    // Where no part is empty, the tile map built from it gives every tile with an active
    // cell exactly one owner and every other tile none.
    if q.empty_parts == 0 {
        let mut active = tiles.tile_of.clone();
        active.dedup();
        // Tiles run whole: a rank whose every node shares its tile with another part's node
        // may be left without a tile.
        let shares_every_tile = |rank: usize| {
            (0..g.len()).filter(|&n| part[n] == rank).all(|n| {
                (0..g.len()).any(|m| tiles.tile_of[m] == tiles.tile_of[n] && part[m] != rank)
            })
        };
        let map = match TileMap::new(&tiles, &part, parts) {
            Err(TileMapError::IdleRank { rank }) if shares_every_tile(rank) => return Ok(()),
            Err(e) => return Err(format!("no tile map: {e}")),
            Ok(map) => map,
        };
        let owned = map.owner.iter().filter(|o| o.is_some()).count();
        if owned != active.len() || active.iter().any(|&t| map.owner[t].is_none()) {
            return Err(format!(
                "{owned} owned tiles for {} active ones",
                active.len()
            ));
        }
    }
    Ok(())
}
