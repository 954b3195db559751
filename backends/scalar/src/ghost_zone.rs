//! A Yee chunk with a ghost zone `k` cells deep (ghost-zone expansion: Ding & He, "A ghost
//! cell expansion method for reducing communications in solving PDE problems", SC 2001;
//! [`yee_core::ghost_zone`]): its arrays cover the owned box grown by `k` cells toward every
//! neighbour (the compute box), it advances the whole compute box `k` steps with nothing
//! exchanged, and then takes the `k`-deep layers its neighbours own, every field, CPML ψ and
//! dispersive polarisation, from each share direction (faces, edges and corners) in one
//! message each.
//!
//! Why the owned cells stay exact: the Yee stencil reaches one cell (Yee 1966). H reads E at
//! its own node and the next one up each axis, E reads H at its own node and the next one
//! down; CPML ψ, sources, the media and the poles' polarisations are per node. If every value is exact on a box `B` at
//! the start of a step, H is exact on `B` less its top layer and E on `B` less its top and
//! bottom layers after it: both are exact on `B` shrunk by one cell on every side. After `s`
//! steps from a fresh exchange the exact region is the owned box grown by `k − s`, so after
//! `k` steps it is the owned box, and every owned node was updated from exactly the values,
//! and by the arithmetic, of the one-rank run: the bits are its bits. The zone's outer layers
//! go stale (they read ghosts no one refreshed) and are overwritten at the next exchange. A
//! component updated in 3D reads a node diagonally across an edge (Ex reads Hz one cell down
//! in y, which read Ey one cell up in x), so edge and corner neighbours send their layers too.
//!
//! The chunk's side of it is `crate::ghost_zone_chunk`. What this holds is what the
//! single-chunk wavefront holds ([`crate::time_tile::fallback`]: not 1D), without a periodic wrap, tensor nodes (they read a cell further: the exact region
//! would shrink two cells a step, and their running sums are not in the deep halos) or TF/SF
//! plane waves ([`crate::time_tile::zone_fallback`]).

use yee_core::{Box3, Direction};

/// A chunk's ghost zone: how many steps it holds, and the box the chunk owns within it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GhostZone {
    /// Steps between exchanges (the zone is that many cells deep: the Yee reach is one).
    pub steps: u64,
    /// The owned box ([`yee_core::Chunk::owned`]); the state covers [`compute_box`] of it.
    pub owned: Box3,
}

/// `owned` grown by `depth` cells on each `active` axis, within the grid of `grid` cells:
/// the cells a chunk with a ghost zone updates (no neighbour beyond a grid face).
pub fn compute_box(owned: Box3, depth: u64, grid: [usize; 3], active: [bool; 3]) -> Box3 {
    let by = active.map(|a| if a { depth as i64 } else { 0 });
    owned.grow(by).intersect(&Box3::from_extent(grid))
}

/// The owned cells of `owned` within `depth` cells of the side(s) `toward` points at: what
/// the neighbour there takes into its ghost zone.
pub fn deep_border(owned: Box3, toward: Direction, depth: u64) -> Box3 {
    let mut b = owned;
    for a in 0..3 {
        match toward.0[a] {
            1 => b.lo[a] = (owned.hi[a] - depth as i64).max(owned.lo[a]),
            -1 => b.hi[a] = (owned.lo[a] + depth as i64).min(owned.hi[a]),
            _ => {}
        }
    }
    b
}

/// The ghost cells `depth` deep beyond `owned` on the `from` side(s): where the neighbour
/// there's [`deep_border`] arrives.
pub fn deep_ghosts(owned: Box3, from: Direction, depth: u64) -> Box3 {
    let mut b = owned;
    for a in 0..3 {
        match from.0[a] {
            1 => (b.lo[a], b.hi[a]) = (owned.hi[a], owned.hi[a] + depth as i64),
            -1 => (b.lo[a], b.hi[a]) = (owned.lo[a] - depth as i64, owned.lo[a]),
            _ => {}
        }
    }
    b
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_deep_border_lands_in_the_neighbours_deep_ghosts() {
        let owned = Box3::new([0, 0, 0], [6, 5, 4]);
        for d in [[1, 0, 0], [1, 1, 0], [1, 1, 1], [0, 1, -1]] {
            let d = Direction(d);
            let shift: [i64; 3] =
                core::array::from_fn(|a| i64::from(d.0[a]) * owned.extent()[a] as i64);
            let beyond = Box3::new(
                core::array::from_fn(|a| owned.lo[a] + shift[a]),
                core::array::from_fn(|a| owned.hi[a] + shift[a]),
            );
            assert_eq!(
                deep_border(owned, d, 3),
                deep_ghosts(beyond, d.opposite(), 3)
            );
            assert!(owned.contains_box(&deep_border(owned, d, 3)));
        }
        assert_eq!(
            compute_box(owned, 2, [10, 5, 8], [true; 3]),
            Box3::new([0, 0, 0], [8, 5, 6])
        );
    }
}
