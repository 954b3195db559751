//! Pinned (page-locked) host staging buffers: halos are copied into them from the device
//! asynchronously and sent from them (Kim & Park 2012's host buffers).

use std::sync::Arc;

use cudarc::driver::{CudaContext, PinnedHostSlice};
use yee_core::StagingBuffer;

use super::{CudaError, DeviceReal};

/// A pinned host buffer of values. Its bytes are only read or written by the host after the
/// chunk's [`yee_core::Chunk::wait`], as the `Chunk` contract asks.
#[derive(Debug)]
pub struct PinnedBuffer<T> {
    pinned: PinnedHostSlice<T>,
    ptr: *mut T,
}

impl<T: DeviceReal> PinnedBuffer<T> {
    /// A zeroed buffer of at least `bytes` bytes in page-locked memory of `context` (plain
    /// flags: the host reads it, so not write-combined).
    pub fn with_bytes(context: &Arc<CudaContext>, bytes: usize) -> Result<Self, CudaError> {
        let len = bytes.div_ceil(size_of::<T>()).max(1);
        // SAFETY: the memory is zeroed below before anything reads it.
        let mut pinned = unsafe { context.alloc_pinned_with_flags::<T>(len, 0) }?;
        let ptr = pinned.as_mut_ptr()?;
        pinned.as_mut_slice()?.fill(T::zero());
        Ok(PinnedBuffer { pinned, ptr })
    }

    /// Values held.
    pub fn len(&self) -> usize {
        self.pinned.len()
    }

    /// Whether it holds nothing.
    pub fn is_empty(&self) -> bool {
        self.pinned.is_empty()
    }

    /// The values (the chunk has waited for every copy into them).
    pub fn values(&self) -> &[T] {
        // SAFETY: `ptr` is the start of the `len` values `pinned` owns for as long as `self`
        // lives; copies into them are ordered before the chunk's wait.
        unsafe { std::slice::from_raw_parts(self.ptr, self.pinned.len()) }
    }

    /// The values, mutable.
    pub fn values_mut(&mut self) -> &mut [T] {
        // SAFETY: as in `values`, and `&mut self` makes the borrow unique.
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.pinned.len()) }
    }
}

impl<T: DeviceReal> StagingBuffer for PinnedBuffer<T> {
    fn bytes(&self) -> &[u8] {
        bytemuck::cast_slice(self.values())
    }

    fn bytes_mut(&mut self) -> &mut [u8] {
        bytemuck::cast_slice_mut(self.values_mut())
    }
}
