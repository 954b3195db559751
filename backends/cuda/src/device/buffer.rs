//! Pinned (page-locked) host staging buffers: halos are copied into them from the device
//! asynchronously and sent from them (Kim & Park 2012's host buffers).

use yee_core::StagingBuffer;

use super::DeviceReal;
use super::driver::Driver;

/// A pinned host buffer of values on driver `D`. Its bytes are only read or written by the
/// host after the chunk's [`yee_core::Chunk::wait`], as the `Chunk` contract asks.
#[derive(Debug)]
pub struct PinnedBuffer<T: DeviceReal, D: Driver> {
    pub(super) pinned: D::Pinned<T>,
}

impl<T: DeviceReal, D: Driver> PinnedBuffer<T, D> {
    /// Values held.
    pub fn len(&self) -> usize {
        self.values().len()
    }

    /// Whether it holds nothing.
    pub fn is_empty(&self) -> bool {
        self.values().is_empty()
    }

    /// The values (the chunk has waited for every copy into them).
    pub fn values(&self) -> &[T] {
        D::pinned(&self.pinned)
    }

    /// The values, mutable.
    pub fn values_mut(&mut self) -> &mut [T] {
        D::pinned_mut(&mut self.pinned)
    }
}

impl<T: DeviceReal, D: Driver> StagingBuffer for PinnedBuffer<T, D> {
    fn bytes(&self) -> &[u8] {
        bytemuck::cast_slice(self.values())
    }

    fn bytes_mut(&mut self) -> &mut [u8] {
        bytemuck::cast_slice_mut(self.values_mut())
    }
}
