//! A rank of a heterogeneous run (`--rank-backends cuda,rayon,…`): a host chunk or a device
//! chunk behind one chunk type, so the ranks of one run share a `YeeBackend`. Both send and
//! receive through plain host buffers ([`HostBuffer`]: the device chunk copies its halos and
//! slabs into them synchronously) and both use one slab wire format (every field, then each
//! CPML layer's ψ, the DFT sums and the polarisations of dispersive nodes), so cells
//! migrate between device and host ranks as between two ranks of one backend (Balykov 2019,
//! §3).

use yee_core::{Box3, Capabilities, Chunk, Direction, HostBuffer, HostChunkError, Index3};
use yee_em::{Component, YeeFields};

use super::chunk::CudaChunk;
use super::driver::Driver;
use super::{CudaError, DeviceScalar};

/// One rank's chunk: on the host (`H`, a chunk of the scalar or rayon backend) or on a device
/// of driver `D`.
#[derive(Debug)]
pub enum MixedChunk<'s, T: DeviceScalar, H, D: Driver> {
    /// A host rank.
    Host(H),
    /// A device rank, sending through host buffers.
    Device(Box<CudaChunk<'s, T, D, HostBuffer<T>>>),
}

impl From<HostChunkError> for CudaError {
    fn from(e: HostChunkError) -> Self {
        CudaError::new(e.kind, e.what)
    }
}

/// `$body` on the rank's chunk `$c`, the host chunk's error turned into the device's.
macro_rules! on_chunk {
    ($self:expr, $c:ident => $body:expr) => {
        match $self {
            MixedChunk::Host($c) => $body.map_err(CudaError::from),
            MixedChunk::Device($c) => $body,
        }
    };
}

/// `$body` (no error) on the rank's chunk `$c`.
macro_rules! either {
    ($self:expr, $c:ident => $body:expr) => {
        match $self {
            MixedChunk::Host($c) => $body,
            MixedChunk::Device($c) => $body,
        }
    };
}

impl<T, H, D> Chunk for MixedChunk<'_, T, H, D>
where
    T: DeviceScalar,
    H: Chunk<Value = T, Buffer = HostBuffer<T>, Error = HostChunkError>,
    D: Driver,
{
    type Value = T;
    type Buffer = HostBuffer<T>;
    type Error = CudaError;
    const CAPABILITIES: Capabilities = Capabilities {
        asynchronous: true,
        migration: H::CAPABILITIES.migration,
    };

    fn owned(&self) -> Box3 {
        either!(self, c => c.owned())
    }

    fn ghost(&self) -> [usize; 3] {
        either!(self, c => c.ghost())
    }

    fn phases(&self) -> usize {
        either!(self, c => c.phases())
    }

    fn submit(&mut self, step: u64, phase: usize, region: Box3) -> Result<(), CudaError> {
        on_chunk!(self, c => c.submit(step, phase, region))
    }

    fn submit_step(&mut self, step: u64, region: Box3) -> Result<(), CudaError> {
        on_chunk!(self, c => c.submit_step(step, region))
    }

    fn wait(&mut self) -> Result<(), CudaError> {
        on_chunk!(self, c => c.wait())
    }

    fn splits_border(&self) -> bool {
        either!(self, c => c.splits_border())
    }

    fn submit_border(&mut self, step: u64, phase: usize, region: Box3) -> Result<(), CudaError> {
        on_chunk!(self, c => c.submit_border(step, phase, region))
    }

    fn wait_halos(&mut self) -> Result<(), CudaError> {
        on_chunk!(self, c => c.wait_halos())
    }

    fn buffer(&self, bytes: usize) -> Result<HostBuffer<T>, CudaError> {
        on_chunk!(self, c => c.buffer(bytes))
    }

    fn halo_len(&self, phase: usize, toward: Direction) -> usize {
        either!(self, c => c.halo_len(phase, toward))
    }

    fn ghost_len(&self, phase: usize, from: Direction) -> usize {
        either!(self, c => c.ghost_len(phase, from))
    }

    fn pack_halos(
        &mut self,
        phase: usize,
        towards: &[Direction],
        out: &mut [HostBuffer<T>],
    ) -> Result<(), CudaError> {
        on_chunk!(self, c => c.pack_halos(phase, towards, out))
    }

    fn unpack_halos(
        &mut self,
        phase: usize,
        froms: &[Direction],
        data: &[HostBuffer<T>],
    ) -> Result<(), CudaError> {
        on_chunk!(self, c => c.unpack_halos(phase, froms, data))
    }

    fn work(&self, region: Box3) -> f64 {
        either!(self, c => c.work(region))
    }

    fn slab_len(&self, region: Box3) -> usize {
        either!(self, c => c.slab_len(region))
    }

    fn pack_slabs(&mut self, regions: &[Box3], out: &mut HostBuffer<T>) -> Result<(), CudaError> {
        on_chunk!(self, c => c.pack_slabs(regions, out))
    }

    fn unpack_slabs(&mut self, regions: &[Box3], data: &HostBuffer<T>) -> Result<(), CudaError> {
        on_chunk!(self, c => c.unpack_slabs(regions, data))
    }

    fn resize(&mut self, owned: Box3) -> Result<(), CudaError> {
        on_chunk!(self, c => c.resize(owned))
    }
}

impl<T, H, D> YeeFields for MixedChunk<'_, T, H, D>
where
    T: DeviceScalar,
    H: YeeFields<Value = T, Buffer = HostBuffer<T>, Error = HostChunkError>,
    D: Driver,
{
    fn read_component(
        &mut self,
        c: Component,
        region: Box3,
        out: &mut [T],
    ) -> Result<bool, CudaError> {
        on_chunk!(self, k => k.read_component(c, region, out))
    }

    fn value(&mut self, c: Component, cell: Index3) -> Result<T, CudaError> {
        on_chunk!(self, k => k.value(c, cell))
    }

    fn read_dft(
        &mut self,
        monitor: usize,
        c: Component,
        region: Box3,
        out: &mut [T],
    ) -> Result<bool, CudaError> {
        on_chunk!(self, k => k.read_dft(monitor, c, region, out))
    }

    fn first_non_finite(
        &mut self,
        regions: &[Box3],
    ) -> Result<Option<(Component, Index3)>, CudaError> {
        on_chunk!(self, k => k.first_non_finite(regions))
    }
}
