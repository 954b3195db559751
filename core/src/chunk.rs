//! The `Chunk` trait: the block of the global grid that one rank owns.

use crate::direction::Direction;
use crate::geometry::Box3;
use crate::scalar::Scalar;

/// The rectangular block of the global grid one rank owns, with its fields and materials.
///
/// A time step is a sequence of phases (Yee: H then E). In each phase the driver applies the
/// chunk's stencils to the border shell, starts the halo exchange, applies them to the interior
/// and finishes the exchange (the kernel-split method of Kim & Park 2012), so a chunk must give
/// the same values whatever sub-boxes a phase is applied to.
pub trait Chunk {
    /// The element type of the fields.
    type Value: Scalar;

    /// The global box this chunk owns.
    fn owned(&self) -> Box3;

    /// Ghost width on each side of each active axis: the largest reach of its stencils.
    fn ghost(&self) -> [usize; 3];

    /// Number of phases per time step.
    fn phases(&self) -> usize;

    /// Applies phase `phase` of time step `step` to `region`, a sub-box of [`Chunk::owned`].
    fn apply(&mut self, step: u64, phase: usize, region: Box3);

    /// Values sent toward `toward` after phase `phase` (0 when that direction needs nothing).
    fn halo_len(&self, phase: usize, toward: Direction) -> usize;

    /// Values expected from the neighbour on the `from` side after phase `phase`: what that
    /// neighbour's [`Chunk::halo_len`] toward `from.opposite()` gives.
    fn ghost_len(&self, phase: usize, from: Direction) -> usize;

    /// Packs the owned cells next to the `toward` side that the neighbour there needs after
    /// phase `phase`, into `out[..halo_len]`.
    fn pack_halo(&self, phase: usize, toward: Direction, out: &mut [Self::Value]);

    /// Unpacks values received from the neighbour on the `from` side into the ghost cells on
    /// that side. `from` is the opposite of the sender's `toward`.
    fn unpack_halo(&mut self, phase: usize, from: Direction, data: &[Self::Value]);

    /// The work of updating `region` for one whole step, in units of a plain vacuum cell
    /// (the balancer's load). Default: one per cell.
    fn work(&self, region: Box3) -> f64 {
        region.cells() as f64
    }

    /// Values [`Chunk::pack_slab`] writes for `region` (a sub-box of the owned box), or `None`
    /// when this chunk cannot migrate (its borders then never move).
    fn slab_len(&self, region: Box3) -> Option<usize> {
        let _ = region;
        None
    }

    /// Packs everything the cells of `region` hold (fields, auxiliary variables) for migration.
    fn pack_slab(&self, region: Box3, out: &mut [Self::Value]) {
        let _ = (region, out);
    }

    /// Unpacks what [`Chunk::pack_slab`] of another chunk wrote for `region`.
    fn unpack_slab(&mut self, region: Box3, data: &[Self::Value]) {
        let _ = (region, data);
    }
}
