//! Values of boxes of a grid (a rank's tiles, or its owned box) written into the whole grid:
//! what assembling the ranks' pieces of a field comes to, for tiled and box layouts alike.

use yee_core::{Box3, Scalar};

/// Writes `values` (as [`crate::tiled::tile_values`] lays them out for `tiles`) into `whole`, a
/// grid of extent `grid`, x fastest.
pub fn scatter_tiles<T: Scalar>(grid: [usize; 3], tiles: &[Box3], values: &[T], whole: &mut [T]) {
    let all = Box3::from_extent(grid);
    let mut at = 0;
    for t in tiles {
        for n in 0..t.cells() {
            whole[all.linear_index(t.index_at(n))] = values[at + n];
        }
        at += t.cells();
    }
}
