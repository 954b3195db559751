//! Staging buffers: the host memory messages are packed into, sent from and received into.

#[cfg(feature = "alloc")]
use alloc::vec::Vec;

#[cfg(feature = "alloc")]
use crate::scalar::Scalar;

/// Host memory a backend stages messages in: halos and slabs are packed into it by the
/// chunk and sent from it by the communicator, and received messages land in it. A device
/// backend may use pinned (page-locked) memory so its copies run asynchronously (Kim & Park
/// 2012's host-buffer method).
pub trait StagingBuffer {
    /// The buffer as bytes (its whole capacity).
    fn bytes(&self) -> &[u8];
    /// The buffer as bytes, mutable.
    fn bytes_mut(&mut self) -> &mut [u8];
}

/// A staging buffer in ordinary host memory, typed so its values are aligned.
#[cfg(feature = "alloc")]
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HostBuffer<T>(pub Vec<T>);

#[cfg(feature = "alloc")]
impl<T: Scalar> HostBuffer<T> {
    /// A zeroed buffer of at least `bytes` bytes.
    pub fn with_bytes(bytes: usize) -> Self {
        HostBuffer(alloc::vec![T::zero(); bytes.div_ceil(core::mem::size_of::<T>())])
    }

    /// The first `len` values.
    pub fn values(&self, len: usize) -> &[T] {
        &self.0[..len]
    }

    /// The first `len` values, mutable.
    pub fn values_mut(&mut self, len: usize) -> &mut [T] {
        &mut self.0[..len]
    }
}

#[cfg(feature = "alloc")]
impl<T: Scalar> StagingBuffer for HostBuffer<T> {
    fn bytes(&self) -> &[u8] {
        bytemuck::cast_slice(&self.0)
    }

    fn bytes_mut(&mut self) -> &mut [u8] {
        bytemuck::cast_slice_mut(&mut self.0)
    }
}
