//! The device chunk's message buffers: pinned (page-locked) host staging buffers, which halos
//! and slabs are copied into from the device asynchronously and sent from (Kim & Park 2012's
//! host buffers), or plain host buffers, which a rank of a heterogeneous run shares with the
//! host ranks beside it (copied synchronously).

use yee_core::{HostBuffer, StagingBuffer};

use super::driver::Driver;
use super::{CudaError, DeviceScalar};

/// Host memory the device chunk sends messages from and receives them into.
pub trait MessageBuffer<T: DeviceScalar, D: Driver>: StagingBuffer + Sized {
    /// A zeroed buffer of `len` values.
    fn zeroed(driver: &D, len: usize) -> Result<Self, CudaError>;

    /// Values held.
    fn values_len(&self) -> usize;

    /// Queues on `stream` the copy of `len` values of `memory` from value `at` into the
    /// buffer's start: its values are there after the chunk's wait.
    fn copy_from_device(
        &mut self,
        driver: &D,
        stream: &D::Stream,
        memory: &D::Memory<T>,
        at: usize,
        len: usize,
    ) -> Result<(), CudaError>;

    /// Queues on `stream` the copy of the buffer's first `len` values into `memory` from
    /// value `at`.
    fn copy_to_device(
        &self,
        driver: &D,
        stream: &D::Stream,
        len: usize,
        memory: &mut D::Memory<T>,
        at: usize,
    ) -> Result<(), CudaError>;
}

/// A pinned host buffer of values on driver `D`. Its bytes are only read or written by the
/// host after the chunk's [`yee_core::Chunk::wait`], as the `Chunk` contract asks.
#[derive(Debug)]
pub struct PinnedBuffer<T: DeviceScalar, D: Driver> {
    pinned: D::Pinned<T>,
}

impl<T: DeviceScalar, D: Driver> PinnedBuffer<T, D> {
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

impl<T: DeviceScalar, D: Driver> StagingBuffer for PinnedBuffer<T, D> {
    fn bytes(&self) -> &[u8] {
        bytemuck::cast_slice(self.values())
    }

    fn bytes_mut(&mut self) -> &mut [u8] {
        bytemuck::cast_slice_mut(self.values_mut())
    }
}

impl<T: DeviceScalar, D: Driver> MessageBuffer<T, D> for PinnedBuffer<T, D> {
    fn zeroed(driver: &D, len: usize) -> Result<Self, CudaError> {
        Ok(PinnedBuffer {
            pinned: driver.alloc_pinned(len)?,
        })
    }

    fn values_len(&self) -> usize {
        self.len()
    }

    /// Asynchronous: a copy into page-locked memory.
    fn copy_from_device(
        &mut self,
        driver: &D,
        stream: &D::Stream,
        memory: &D::Memory<T>,
        at: usize,
        len: usize,
    ) -> Result<(), CudaError> {
        driver.device_to_pinned(stream, memory, at, len, &mut self.pinned)
    }

    fn copy_to_device(
        &self,
        driver: &D,
        stream: &D::Stream,
        len: usize,
        memory: &mut D::Memory<T>,
        at: usize,
    ) -> Result<(), CudaError> {
        driver.pinned_to_device(stream, &self.pinned, len, memory, at)
    }
}

impl<T: DeviceScalar, D: Driver> MessageBuffer<T, D> for HostBuffer<T> {
    fn zeroed(_driver: &D, len: usize) -> Result<Self, CudaError> {
        Ok(HostBuffer(vec![T::zero(); len]))
    }

    fn values_len(&self) -> usize {
        self.0.len()
    }

    /// Synchronous: pageable memory is copied into before the call returns.
    fn copy_from_device(
        &mut self,
        driver: &D,
        stream: &D::Stream,
        memory: &D::Memory<T>,
        at: usize,
        len: usize,
    ) -> Result<(), CudaError> {
        let out = self.0.get_mut(..len).ok_or_else(|| too_short(len))?;
        driver.read(stream, memory, at, out)
    }

    fn copy_to_device(
        &self,
        driver: &D,
        stream: &D::Stream,
        len: usize,
        memory: &mut D::Memory<T>,
        at: usize,
    ) -> Result<(), CudaError> {
        let values = self.0.get(..len).ok_or_else(|| too_short(len))?;
        driver.write(stream, values, memory, at)
    }
}

/// A host buffer shorter than the `len` values of a copy.
fn too_short(len: usize) -> CudaError {
    CudaError::new(
        yee_core::ChunkErrorKind::InvalidArgument,
        format!("a message buffer shorter than the {len} values copied"),
    )
}
