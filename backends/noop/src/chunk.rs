//! A chunk that only costs time: it holds no fields, sends the Yee halos' sizes ([`yee_em::halo`], the
//! faces' shape: a tensor setup's shell is not modelled) in zeros and moves
//! nothing when migrating, so balancing runs on large virtual machines (Balykov 2019's 100³ on
//! 8 nodes for 20 000 steps) take seconds. Its work is one unit per cell.

use yee_core::{Box3, Capabilities, Chunk, Direction, HostBuffer, HostChunkError};
use yee_em::{Mode, halo};

/// A stand-in for a Yee chunk of `mode` over `owned`.
#[derive(Clone, Debug)]
pub struct NoopChunk {
    owned: Box3,
    mode: Mode,
}

impl NoopChunk {
    /// A chunk owning `owned`.
    pub fn new(owned: Box3, mode: Mode) -> Self {
        NoopChunk { owned, mode }
    }
}

impl Chunk for NoopChunk {
    type Value = f32;
    type Buffer = HostBuffer<f32>;
    type Error = HostChunkError;
    const CAPABILITIES: Capabilities = Capabilities {
        asynchronous: false,
        migration: true,
    };

    fn owned(&self) -> Box3 {
        self.owned
    }
    fn ghost(&self) -> [usize; 3] {
        self.mode.active_axes().map(usize::from)
    }
    fn phases(&self) -> usize {
        2
    }
    fn submit(&mut self, _step: u64, _phase: usize, _region: Box3) -> Result<(), HostChunkError> {
        Ok(())
    }
    fn buffer(&self, bytes: usize) -> Result<HostBuffer<f32>, HostChunkError> {
        // Zeros, and nothing ever writes them: the halos are zeros.
        Ok(HostBuffer::with_bytes(bytes))
    }
    fn halo_len(&self, phase: usize, toward: Direction) -> usize {
        halo::halo(self.mode, self.owned, phase, toward, halo::HaloShape::Faces)
            .map_or(0, |(l, n)| n * l.cells())
    }
    fn ghost_len(&self, phase: usize, from: Direction) -> usize {
        self.halo_len(phase, from.opposite())
    }
    fn pack_halos(
        &mut self,
        _phase: usize,
        _towards: &[Direction],
        _out: &mut [HostBuffer<f32>],
    ) -> Result<(), HostChunkError> {
        Ok(())
    }
    fn unpack_halos(
        &mut self,
        _phase: usize,
        _froms: &[Direction],
        _data: &[HostBuffer<f32>],
    ) -> Result<(), HostChunkError> {
        Ok(())
    }
    fn slab_len(&self, _region: Box3) -> usize {
        0
    }
    fn pack_slabs(
        &mut self,
        _regions: &[Box3],
        _out: &mut HostBuffer<f32>,
    ) -> Result<(), HostChunkError> {
        Ok(())
    }
    fn unpack_slabs(
        &mut self,
        _regions: &[Box3],
        _data: &HostBuffer<f32>,
    ) -> Result<(), HostChunkError> {
        Ok(())
    }
    fn resize(&mut self, owned: Box3) -> Result<(), HostChunkError> {
        self.owned = owned;
        Ok(())
    }
}
