//! The `Field` trait: one component array of one chunk, with its ghost layers.

use crate::geometry::Box3;
use crate::scalar::Scalar;

/// One component array (say Ey) on one chunk, in memory the backend owns.
///
/// The array covers the chunk's owned box grown by the ghost width on each active axis.
/// Boxes are in global cell coordinates; data crosses the trait in x-fastest order.
pub trait Field {
    /// The element type.
    type Value: Scalar;

    /// The box of cells the chunk owns.
    fn owned(&self) -> Box3;

    /// Ghost layers on each side of each axis (0 on axes the grid does not use).
    fn ghost(&self) -> [usize; 3];

    /// The box the array covers: owned plus ghosts.
    fn storage(&self) -> Box3 {
        let g = self.ghost();
        self.owned().grow([g[0] as i64, g[1] as i64, g[2] as i64])
    }

    /// Copies `region` (inside [`Field::storage`]) into `out[..region.cells()]`, x fastest.
    fn read_box(&self, region: Box3, out: &mut [Self::Value]);

    /// Copies `src[..region.cells()]` into `region` (inside [`Field::storage`]), x fastest.
    fn write_box(&mut self, region: Box3, src: &[Self::Value]);

    /// Moves the owned box to `owned` (same ghost width), keeping the values of the cells
    /// stored before and after and zeroing new cells (migration fills them next): what a
    /// chunk does to each field when its borders move ([`crate::Chunk::resize`]).
    fn resize(&mut self, owned: Box3);
}
