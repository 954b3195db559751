//! The `Chunk` trait: the block of the global grid that one rank owns, on any device.
//!
//! The contract is asynchronous: [`Chunk::submit`] and the packing calls may return before
//! their work is done, and [`Chunk::wait`] blocks until everything submitted has finished (the
//! `flush` of embedded-hal's SPI traits, the fence wait of wgpu-hal). The host backends do the
//! work inside `submit` and their `wait` returns at once: they are the trivial, synchronous
//! case of the same API, as wgpu-hal's noop backend is of its queue. Drivers take timings at
//! the wait, so a device's compute time is measured where it ends.

use core::fmt::Debug;

use crate::direction::Direction;
use crate::geometry::Box3;
use crate::scalar::Scalar;
use crate::staging::StagingBuffer;

/// What went wrong in a chunk, for generic code to react to without knowing the backend.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ChunkErrorKind {
    /// The device failed (a kernel launch, a copy, a lost context).
    Device,
    /// The device or host ran out of memory.
    OutOfMemory,
    /// The backend does not support the operation (see [`Capabilities`]).
    Unsupported,
    /// An argument broke the operation's preconditions (a box outside the chunk, a buffer
    /// too short).
    InvalidArgument,
    /// Anything else.
    Other,
}

/// An error of a chunk.
pub trait ChunkError: Debug {
    /// The kind of error.
    fn kind(&self) -> ChunkErrorKind;

    /// The error a backend returns for an operation it does not support (`operation` names
    /// it, e.g. "migration").
    fn unsupported(operation: &'static str) -> Self
    where
        Self: Sized;
}

/// A chunk error that is only a kind and a static description: enough for host backends,
/// whose only failures are unsupported operations and broken preconditions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HostChunkError {
    /// The kind.
    pub kind: ChunkErrorKind,
    /// What failed.
    pub what: &'static str,
}

impl ChunkError for HostChunkError {
    fn kind(&self) -> ChunkErrorKind {
        self.kind
    }

    fn unsupported(operation: &'static str) -> Self {
        HostChunkError {
            kind: ChunkErrorKind::Unsupported,
            what: operation,
        }
    }
}

impl core::fmt::Display for HostChunkError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self.kind {
            ChunkErrorKind::Unsupported => {
                write!(f, "{} is not supported by this backend", self.what)
            }
            _ => write!(f, "{}", self.what),
        }
    }
}

/// What a backend can do, as constants the drivers check before relying on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Capabilities {
    /// `submit` may return before the work is done (a device): the driver waits at the end of
    /// each phase. False for host backends, whose `wait` is a no-op.
    pub asynchronous: bool,
    /// The chunk can pack and unpack arbitrary boxes of its cells ([`Chunk::pack_slabs`]) and
    /// move its borders in place ([`Chunk::resize`]): needed for migration (dynamic
    /// balancing) and for tile-set runs.
    pub migration: bool,
}

/// The rectangular block of the global grid one rank owns, with its fields and materials.
///
/// A time step is a sequence of phases (Yee: H then E). In each phase the driver submits the
/// chunk's update of the border shell, packs every halo in one call, starts the exchange,
/// submits the interior while the halos travel, waits, and unpacks what arrived (the
/// kernel-split method of Kim & Park 2012). So a chunk must give the same values whatever
/// sub-boxes a phase is applied to, and in whatever order they are submitted within a phase.
///
/// Messages are the values' plain bytes ([`bytemuck::Pod`]): ranks of one run share a byte
/// order, as MPI's own derived types assume.
pub trait Chunk {
    /// The element type of the fields.
    type Value: Scalar;
    /// Host memory for messages (a `Vec` on host backends, pinned memory on a device).
    type Buffer: StagingBuffer;
    /// The error type.
    type Error: ChunkError;
    /// What this backend can do.
    const CAPABILITIES: Capabilities;

    /// The global box this chunk owns.
    fn owned(&self) -> Box3;

    /// Ghost width on each side of each active axis: the largest reach of its stencils.
    fn ghost(&self) -> [usize; 3];

    /// Number of phases per time step.
    fn phases(&self) -> usize;

    /// Submits phase `phase` of time step `step` over `region`, a sub-box of
    /// [`Chunk::owned`]. It may return before the work is done ([`Chunk::wait`]).
    fn submit(&mut self, step: u64, phase: usize, region: Box3) -> Result<(), Self::Error>;

    /// Submits every phase of time step `step` over `region` with nothing exchanged between
    /// them: for a chunk whose ghosts no neighbour writes (the driver calls it for a rank
    /// without peers). A backend may interleave the phases (sweep the step in slabs) as long
    /// as the bits are those of the phases in order, which is the default.
    fn submit_step(&mut self, step: u64, region: Box3) -> Result<(), Self::Error> {
        for phase in 0..self.phases() {
            self.submit(step, phase, region)?;
        }
        Ok(())
    }

    /// The most steps [`Chunk::submit_steps`] advances at once to any gain (temporal
    /// blocking); 1, the default, when it steps one step at a time.
    fn steps_per_submit(&self) -> u64 {
        1
    }

    /// Submits `count` whole steps from `first` over `region` with nothing exchanged between
    /// them and nothing read in between (a chunk whose ghosts no neighbour writes): a backend
    /// may sweep them in tiles over space and time as long as the bits are those of the
    /// steps in order, which is the default.
    fn submit_steps(&mut self, first: u64, count: u64, region: Box3) -> Result<(), Self::Error> {
        for step in first..first + count {
            self.submit_step(step, region)?;
        }
        Ok(())
    }

    /// Whether the run asks for ghost zones ([`Chunk::set_ghost_zone`]): a run-wide choice
    /// (the same answer on every rank), for only then do the ranks agree on a depth, which
    /// takes a collective. No, by default.
    fn ghost_zones_asked(&self) -> bool {
        false
    }

    /// The most steps this chunk could advance between two halo exchanges if its ghosts were
    /// that many stencil reaches deep (ghost-zone expansion: Ding & He, "A ghost cell
    /// expansion method for reducing communications in solving PDE problems", SC 2001): its
    /// wish, which [`Chunk::set_ghost_zone`] may grant. 1, the default, when it cannot.
    fn ghost_zone_steps(&self) -> u64 {
        1
    }

    /// Keeps ghosts `steps` × the stencil reach deep on every side of [`Chunk::owned`] from
    /// now on (1: the plain ghosts again), so that it advances up to `steps` steps between
    /// exchanges ([`Chunk::steps_per_exchange`]): [`Chunk::submit_steps`] then updates the
    /// ghost zone too (redundantly with the neighbour that owns it), and the halos after the
    /// last phase ([`Chunk::halo_len`]) carry everything those steps read from the zone, toward
    /// every share direction (faces, edges, corners); the earlier phases carry nothing. Every
    /// rank of a run must set the same depth, each neighbour at least `steps` cells thick
    /// along the axis it neighbours across. The owned cells keep their values; the ghosts hold
    /// nothing until the next exchange. The default only grants 1.
    fn set_ghost_zone(&mut self, steps: u64) -> Result<(), Self::Error> {
        match steps {
            1 => Ok(()),
            _ => Err(Self::Error::unsupported("ghost-zone expansion")),
        }
    }

    /// Whether [`Chunk::submit_steps`] refreshes, itself and as it goes, the ghosts its own
    /// periodic wrap fills (a rank alone along a periodic axis is its own neighbour there),
    /// so that a run whose only neighbour is the rank itself may submit several steps at
    /// once ([`crate::driver::Driver::submits_alone`]); false, the default, when those ghosts
    /// must be exchanged every step.
    fn wraps_itself(&self) -> bool {
        false
    }

    /// Steps between two halo exchanges ([`Chunk::set_ghost_zone`]); 1, the default, when the
    /// halos of every phase are exchanged every step.
    fn steps_per_exchange(&self) -> u64 {
        1
    }

    /// The work of advancing `count` steps between two exchanges, the ghost zone's redundant
    /// updates included ([`Chunk::set_ghost_zone`]); `count` steps of [`Chunk::work`] of the
    /// owned box by default.
    fn block_work(&self, count: u64) -> f64 {
        count as f64 * self.work(self.owned())
    }

    /// Blocks until everything submitted (updates, packs, unpacks) has finished. The default
    /// is the synchronous case (host backends finish inside each call); an asynchronous
    /// backend ([`Capabilities::asynchronous`]) must override it.
    fn wait(&mut self) -> Result<(), Self::Error> {
        Ok(())
    }

    /// Whether this chunk runs a phase's border shell ([`Chunk::submit_border`]), its halo
    /// packs and copies on a queue of its own beside the interior (Kim & Park 2012's kernel
    /// split on a device's two streams). The overlapping driver then submits the interior
    /// right after the shell, before it waits for the packed halos ([`Chunk::wait_halos`]),
    /// and unpacks the arrived ghosts without waiting for the interior. No, by default.
    fn splits_border(&self) -> bool {
        false
    }

    /// Submits phase `phase` of time step `step` over `region`, a box of the border shell the
    /// halos are packed from. The chunk orders it after everything submitted in earlier
    /// phases; a chunk that [`Chunk::splits_border`] may run it beside the phase's interior.
    /// [`Chunk::submit`], by default.
    fn submit_border(&mut self, step: u64, phase: usize, region: Box3) -> Result<(), Self::Error> {
        self.submit(step, phase, region)
    }

    /// Blocks until the halos packed last ([`Chunk::pack_halos`]) are in their buffers and the
    /// ghosts unpacked last ([`Chunk::unpack_halos`]) are in place (the receive buffers may be
    /// reused): the interior of a chunk that [`Chunk::splits_border`] may still be running,
    /// ordered by the chunk before anything that reads it. [`Chunk::wait`], by default.
    fn wait_halos(&mut self) -> Result<(), Self::Error> {
        self.wait()
    }

    /// A staging buffer of at least `bytes` bytes.
    fn buffer(&self, bytes: usize) -> Result<Self::Buffer, Self::Error>;

    /// Values sent toward `toward` after phase `phase` (0 when that direction needs nothing).
    fn halo_len(&self, phase: usize, toward: Direction) -> usize;

    /// Values expected from the neighbour on the `from` side after phase `phase`: what that
    /// neighbour's [`Chunk::halo_len`] toward `from.opposite()` gives.
    fn ghost_len(&self, phase: usize, from: Direction) -> usize;

    /// Packs, in one batched call, the owned cells next to each direction of `towards` that
    /// the neighbour there needs after phase `phase`: the halo toward `towards[k]` goes to the
    /// first `halo_len` values of `out[k]` (each at least that long). The bytes are ready
    /// after [`Chunk::wait`].
    fn pack_halos(
        &mut self,
        phase: usize,
        towards: &[Direction],
        out: &mut [Self::Buffer],
    ) -> Result<(), Self::Error>;

    /// Unpacks, in one batched call, what arrived from the neighbour on each side of `froms`
    /// (`data[k]` from `froms[k]`, its first `ghost_len` values) into the ghost cells on that
    /// side. `from` is the opposite of the sender's `toward`.
    fn unpack_halos(
        &mut self,
        phase: usize,
        froms: &[Direction],
        data: &[Self::Buffer],
    ) -> Result<(), Self::Error>;

    /// The work of updating `region` for one whole step, in units of a plain vacuum cell
    /// (the balancer's load). Default: one per cell.
    fn work(&self, region: Box3) -> f64 {
        region.cells() as f64
    }

    /// Values [`Chunk::pack_slabs`] writes for `region` (a sub-box of the storage): every
    /// field and auxiliary variable its cells hold. 0 without [`Capabilities::migration`].
    fn slab_len(&self, region: Box3) -> usize {
        let _ = region;
        0
    }

    /// Packs everything the cells of each box of `regions` hold, one box after the other,
    /// into `out` (at least the sum of their [`Chunk::slab_len`] values). The bytes are ready
    /// after [`Chunk::wait`].
    fn pack_slabs(&mut self, regions: &[Box3], out: &mut Self::Buffer) -> Result<(), Self::Error> {
        let _ = (regions, out);
        Err(Self::Error::unsupported("packing slabs"))
    }

    /// Unpacks what [`Chunk::pack_slabs`] of another chunk wrote for the same `regions`.
    fn unpack_slabs(&mut self, regions: &[Box3], data: &Self::Buffer) -> Result<(), Self::Error> {
        let _ = (regions, data);
        Err(Self::Error::unsupported("unpacking slabs"))
    }

    /// Moves the chunk's borders in place to own `owned`: the cells in both the old and the
    /// new box keep their values, new cells start at zero (migration fills them next), and
    /// the memory of cells given away is released. No second chunk is built.
    fn resize(&mut self, owned: Box3) -> Result<(), Self::Error> {
        let _ = owned;
        Err(Self::Error::unsupported("resizing"))
    }
}
