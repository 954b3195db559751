//! How many steps the ranks of a decomposed run advance between halo exchanges
//! (ghost-zone expansion: Ding & He, "A ghost cell expansion method for reducing
//! communications in solving PDE problems", SC 2001): every rank keeps ghosts `k` stencil
//! reaches deep and updates them redundantly, so its owned cells stay exact for `k` steps.
//!
//! `k` is the same on every rank: the least any chunk asks for ([`Chunk::ghost_zone_steps`]),
//! and no more than lets each rank's deep halos come from its direct neighbours alone (every
//! box at least `k` reaches thick along each axis the ranks are split along). A periodic
//! wrap, a disabled rank or a run of one rank keeps `k = 1`.

use alloc::vec;

use crate::chunk::Chunk;
use crate::comm::Comm;
use crate::decomposition::Layout;

/// The least [`Chunk::ghost_zone_steps`] over the ranks (collective: every rank calls it);
/// 1, with nothing sent, for one rank alone or a run that asks for no ghost zones
/// ([`Chunk::ghost_zones_asked`], the same on every rank); 1 for a periodic layout.
pub fn agreed_wish<C: Chunk, M: Comm>(
    chunk: &C,
    comm: &mut M,
    periodic: [bool; 3],
) -> Result<u64, M::Error> {
    if comm.size() == 1 || !chunk.ghost_zones_asked() {
        return Ok(1);
    }
    let mut all = vec![0.0; comm.size()];
    comm.all_gather(&[chunk.ghost_zone_steps() as f64], &mut all)?;
    let least = all.iter().fold(f64::INFINITY, |a, &b| a.min(b)) as u64;
    Ok(if periodic.iter().any(|&p| p) {
        1
    } else {
        least.max(1)
    })
}

/// The steps between exchanges on `layout` for ranks that wish for `wish` with stencils of
/// `reach` cells on the `active` axes: `wish`, cut to the thinnest box along each axis the
/// ranks are split along (in reaches), 1 where that leaves less than 2 or a box is empty.
pub fn zone_steps(wish: u64, reach: usize, layout: &Layout, active: [bool; 3]) -> u64 {
    let mut k = wish;
    for a in (0..3).filter(|&a| active[a] && layout.topology.0[a] > 1) {
        for w in layout.borders[a].windows(2) {
            let thick = (w[1] - w[0]).max(0) as u64;
            k = k.min(thick / reach.max(1) as u64);
        }
    }
    if k < 2 { 1 } else { k }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::Topology;

    #[test]
    fn the_thinnest_box_bounds_the_depth() {
        let (x, y, z): (&[i64], &[i64], &[i64]) = (&[0, 5, 12], &[0, 3, 9], &[0, 8]);
        let layout = Layout {
            topology: Topology([2, 2, 1]),
            borders: [x, y, z],
            periodic: [false; 3],
        };
        assert_eq!(zone_steps(4, 1, &layout, [true; 3]), 3);
        assert_eq!(zone_steps(2, 1, &layout, [true; 3]), 2);
        // Two cells of reach per step: three cells hold one step, which is no zone.
        assert_eq!(zone_steps(4, 2, &layout, [true; 3]), 1);
        // A disabled rank's empty box.
        let y: &[i64] = &[0, 0, 9];
        let layout = Layout {
            borders: [x, y, z],
            ..layout
        };
        assert_eq!(zone_steps(4, 1, &layout, [true; 3]), 1);
    }
}
