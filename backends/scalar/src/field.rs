//! Host memory storage of one field with ghost layers.

use alloc::vec;
use alloc::vec::Vec;
use yee_core::{Box3, Field, Scalar};

/// One component array over a chunk's owned box plus ghost layers, x fastest, in a `Vec`.
#[derive(Clone, Debug, PartialEq)]
pub struct HostField<T> {
    owned: Box3,
    ghost: [usize; 3],
    storage: Box3,
    data: Vec<T>,
}

impl<T: Scalar> HostField<T> {
    /// A zeroed field over `owned` with `ghost` layers on each side of each axis.
    pub fn zeros(owned: Box3, ghost: [usize; 3]) -> Self {
        let storage = owned.grow(ghost.map(|g| g as i64));
        HostField {
            owned,
            ghost,
            storage,
            data: vec![T::zero(); storage.cells()],
        }
    }

    /// The value at global cell `p` (owned or ghost).
    #[inline]
    pub fn get(&self, p: [i64; 3]) -> T {
        self.data[self.storage.linear_index(p)]
    }

    /// Sets the value at global cell `p` (owned or ghost).
    #[inline]
    pub fn set(&mut self, p: [i64; 3], value: T) {
        let i = self.storage.linear_index(p);
        self.data[i] = value;
    }

    /// The value at cell `(x, y)` of a 2D grid (z = 0).
    #[inline]
    pub fn get_xy(&self, x: i64, y: i64) -> T {
        self.get([x, y, 0])
    }

    /// Sets the value at cell `(x, y)` of a 2D grid (z = 0).
    #[inline]
    pub fn set_xy(&mut self, x: i64, y: i64, value: T) {
        self.set([x, y, 0], value)
    }

    /// Position of global cell `p` in [`HostField::as_slice`].
    #[inline]
    pub fn storage_offset(&self, p: [i64; 3]) -> usize {
        self.storage.linear_index(p)
    }

    /// The stored row at `(y, z)` in storage order: every x of the storage box, ghosts
    /// included; cell `x` is at [`HostField::column`]`(x)`. One row of a 1D grid is
    /// `row(0, 0)`.
    #[inline]
    pub fn row(&self, y: i64, z: i64) -> &[T] {
        let start = self.storage.linear_index([self.storage.lo[0], y, z]);
        &self.data[start..start + self.storage.extent()[0]]
    }

    /// [`HostField::row`], mutable.
    #[inline]
    pub fn row_mut(&mut self, y: i64, z: i64) -> &mut [T] {
        let start = self.storage.linear_index([self.storage.lo[0], y, z]);
        let len = self.storage.extent()[0];
        &mut self.data[start..start + len]
    }

    /// Where global column `x` lies in a [`HostField::row`].
    #[inline]
    pub fn column(&self, x: i64) -> usize {
        debug_assert!((self.storage.lo[0]..self.storage.hi[0]).contains(&x));
        (x - self.storage.lo[0]) as usize
    }

    /// The positions in a [`HostField::row`] of the columns of `region` (`region.lo[0]` to
    /// `region.hi[0]`).
    #[inline]
    pub fn columns(&self, region: Box3) -> core::ops::Range<usize> {
        self.column(region.lo[0])..self.column(region.lo[0]) + region.extent()[0]
    }

    /// The raw array over [`Field::storage`], x fastest.
    pub fn as_slice(&self) -> &[T] {
        &self.data
    }

    /// The raw array, mutable.
    pub fn as_mut_slice(&mut self) -> &mut [T] {
        &mut self.data
    }

    /// Visits every cell of `region` in x-fastest order with its storage offset.
    pub fn for_each_offset(&self, region: Box3, mut visit: impl FnMut(usize, usize)) {
        if region.is_empty() {
            return;
        }
        let e = region.extent();
        let mut n = 0;
        for z in region.lo[2]..region.hi[2] {
            for y in region.lo[1]..region.hi[1] {
                let row = self.storage.linear_index([region.lo[0], y, z]);
                for x in 0..e[0] {
                    visit(n, row + x);
                    n += 1;
                }
            }
        }
    }
}

impl<T: Scalar> Field for HostField<T> {
    type Value = T;

    fn owned(&self) -> Box3 {
        self.owned
    }

    fn ghost(&self) -> [usize; 3] {
        self.ghost
    }

    fn read_box(&self, region: Box3, out: &mut [T]) {
        debug_assert!(self.storage.contains_box(&region));
        self.for_each_offset(region, |n, o| out[n] = self.data[o]);
    }

    fn write_box(&mut self, region: Box3, src: &[T]) {
        debug_assert!(self.storage.contains_box(&region));
        let mut data = core::mem::take(&mut self.data);
        self.for_each_offset(region, |n, o| data[o] = src[n]);
        self.data = data;
    }

    fn resize(&mut self, owned: Box3) {
        let mut moved = HostField::zeros(owned, self.ghost);
        let kept = self.storage.intersect(&moved.storage);
        let mut buffer = vec![T::zero(); kept.cells()];
        self.read_box(kept, &mut buffer);
        moved.write_box(kept, &buffer);
        *self = moved;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_the_storage_rows() {
        let mut f = HostField::<f64>::zeros(Box3::new([2, 0, 0], [5, 2, 1]), [1, 1, 0]);
        f.set_xy(4, 1, 7.0);
        let row = f.row(1, 0);
        assert_eq!(row.len(), 5);
        assert_eq!(row[f.column(4)], 7.0);
        assert_eq!(f.columns(Box3::new([3, 0, 0], [5, 1, 1])), 2..4);
        f.row_mut(-1, 0)[0] = 1.5;
        assert_eq!(f.get([1, -1, 0]), 1.5);
        assert_eq!(f.get_xy(4, 1), 7.0);
    }

    #[test]
    fn boxes_round_trip_and_resizing_keeps_values() {
        let mut f = HostField::<f64>::zeros(Box3::new([0, 0, 0], [4, 3, 1]), [1, 1, 0]);
        let region = Box3::new([1, 0, 0], [3, 2, 1]);
        f.write_box(region, &[1.0, 2.0, 3.0, 4.0]);
        let mut out = [0.0; 4];
        f.read_box(region, &mut out);
        assert_eq!(out, [1.0, 2.0, 3.0, 4.0]);
        f.resize(Box3::new([0, 0, 0], [2, 3, 1]));
        assert_eq!(f.owned(), Box3::new([0, 0, 0], [2, 3, 1]));
        assert_eq!(f.get([1, 1, 0]), 3.0);
        assert_eq!(f.get([2, 1, 0]), 4.0); // now a ghost cell, still held
        f.resize(Box3::new([0, 0, 0], [5, 3, 1]));
        assert_eq!(f.get([4, 0, 0]), 0.0);
        assert_eq!(f.get([1, 0, 0]), 1.0);
    }
}
