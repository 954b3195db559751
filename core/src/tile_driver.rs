//! The time-step driver of a rank that owns a set of tiles instead of one box (Smyk & Tudruj
//! 2011: a processor executes one macro node of the macro data flow graph), or one box whose
//! faces may touch several neighbours (a jagged or k-d layout, [`crate::box_layout`]): any
//! [`Ownership`] that says what a rank updates and which layers it exchanges with each peer.
//!
//! The rank's [`Chunk`] holds the bounding box of its tiles grown by the stencil reach
//! ([`TileMap::chunk_box`]), but only its own tiles are ever updated. After each phase it sends
//! every peer one message: the layers of its tiles that face the peer's tiles
//! ([`TileMap::layers`]), packed with [`Chunk::pack_slabs`]; what arrives is unpacked into the
//! same global boxes. Tiles that face another rank are updated first, the others while the
//! messages travel (the kernel split of Kim & Park 2012 at tile granularity). Cells of tiles
//! nobody owns are never written: they stay zero, exactly as inactive cells do in a
//! one-chunk run, so the fields are bit for bit those of any other decomposition.

use alloc::vec::Vec;

use crate::chunk::{Chunk, ChunkError};
use crate::comm::{Comm, Incoming, Outgoing, Route};
use crate::driver::{StepError, StepErrorOf, StepRecord, ensure_buffers};
use crate::geometry::Box3;
use crate::staging::StagingBuffer;
use crate::tile_map::TileMap;

/// What one peer and this rank exchange after each phase: the global boxes this rank packs
/// for the peer and those it unpacks from it, in the order both sides use.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PeerLayers {
    /// The peer.
    pub peer: usize,
    /// Boxes of this rank's cells the peer's stencils read.
    pub send: Vec<Box3>,
    /// Boxes of the peer's cells this rank's stencils read.
    pub receive: Vec<Box3>,
}

/// What one rank of a layout updates and exchanges: its boxes, those that touch another rank
/// (updated first, before the exchange starts) apart from the others, and its peers' layers.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Regions {
    /// Boxes whose cells another rank reads.
    pub border: Vec<Box3>,
    /// The rest of the rank's cells.
    pub inner: Vec<Box3>,
    /// Per peer, the layers each way (peers with nothing to exchange left out).
    pub peers: Vec<PeerLayers>,
}

/// Who owns which cells of a grid, as far as the [`TileDriver`] needs to know: a tile set per
/// rank ([`TileMap`]) or one box per rank ([`crate::box_layout::BoxLayout`]).
pub trait Ownership {
    /// Number of ranks.
    fn ranks(&self) -> usize;
    /// Grid extent in cells.
    fn grid(&self) -> [usize; 3];
    /// The box `rank`'s chunk must hold: its cells' bounding box grown by `ghost` (the
    /// stencil's reach) and clipped to the grid.
    fn chunk_box(&self, rank: usize, ghost: [usize; 3]) -> Box3;
    /// What `rank` updates and exchanges with a stencil reaching `ghost` cells.
    fn regions(&self, rank: usize, ghost: [usize; 3]) -> Regions;
    /// The cells `rank` owns, as disjoint boxes in a fixed order (what a checkpoint saves).
    fn owned(&self, rank: usize) -> Vec<Box3>;
}

impl Ownership for TileMap {
    fn ranks(&self) -> usize {
        self.ranks
    }

    fn grid(&self) -> [usize; 3] {
        self.grid
    }

    fn chunk_box(&self, rank: usize, ghost: [usize; 3]) -> Box3 {
        TileMap::chunk_box(self, rank, ghost)
    }

    fn owned(&self, rank: usize) -> Vec<Box3> {
        self.owned_tiles(rank).map(|t| self.tile_box(t)).collect()
    }

    fn regions(&self, rank: usize, ghost: [usize; 3]) -> Regions {
        let mut regions = Regions::default();
        for t in self.owned_tiles(rank) {
            if self.on_border(t) {
                regions.border.push(self.tile_box(t));
            } else {
                regions.inner.push(self.tile_box(t));
            }
        }
        for peer in (0..self.ranks).filter(|&p| p != rank) {
            let send = self.layers(rank, peer, ghost);
            let receive = self.layers(peer, rank, ghost);
            if !(send.is_empty() && receive.is_empty()) {
                regions.peers.push(PeerLayers {
                    peer,
                    send,
                    receive,
                });
            }
        }
        regions
    }
}

/// One peer's layers and their lengths in values.
#[derive(Clone, Debug)]
struct Peer {
    layers: PeerLayers,
    send_values: usize,
    receive_values: usize,
}

/// Steps the tiles of one rank, with the chunk's own staging buffers (one per peer and way).
#[derive(Debug)]
pub struct TileDriver<C: Chunk> {
    border_tiles: Vec<Box3>,
    inner_tiles: Vec<Box3>,
    peers: Vec<Peer>,
    overlap: bool,
    /// Per peer, the buffers of the messages sent and received (kept between steps).
    sends: Vec<C::Buffer>,
    receives: Vec<C::Buffer>,
}

impl<C: Chunk> TileDriver<C> {
    /// The driver of `rank` in `map` for `chunk`, which must hold `map.chunk_box(rank,
    /// chunk.ghost())`. Fails with the chunk's `unsupported` error when it cannot pack
    /// arbitrary boxes ([`crate::Capabilities::migration`]).
    pub fn new(map: &(impl Ownership + ?Sized), rank: usize, chunk: &C) -> Result<Self, C::Error> {
        Self::for_regions(map.regions(rank, chunk.ghost()), chunk)
    }

    /// The driver of a rank that updates and exchanges `regions`.
    pub fn for_regions(regions: Regions, chunk: &C) -> Result<Self, C::Error> {
        if !C::CAPABILITIES.migration {
            return Err(C::Error::unsupported(
                "tile-set and box-layout runs (packing arbitrary boxes)",
            ));
        }
        let count = |boxes: &[Box3]| -> usize { boxes.iter().map(|b| chunk.slab_len(*b)).sum() };
        let peers: Vec<Peer> = regions
            .peers
            .into_iter()
            .map(|layers| Peer {
                send_values: count(&layers.send),
                receive_values: count(&layers.receive),
                layers,
            })
            .collect();
        let size = core::mem::size_of::<C::Value>();
        let mut sends = Vec::new();
        let mut receives = Vec::new();
        ensure_buffers(
            chunk,
            &mut sends,
            peers.iter().map(|p| p.send_values * size),
        )?;
        ensure_buffers(
            chunk,
            &mut receives,
            peers.iter().map(|p| p.receive_values * size),
        )?;
        Ok(TileDriver {
            border_tiles: regions.border,
            inner_tiles: regions.inner,
            peers,
            overlap: true,
            sends,
            receives,
        })
    }

    /// Overlap the exchange with the update of the inner tiles (`true`, the default), or
    /// update every tile first. The fields are the same either way.
    pub fn set_overlap(&mut self, overlap: bool) {
        self.overlap = overlap;
    }

    /// Whether the exchange overlaps the inner tiles' update.
    pub fn overlap(&self) -> bool {
        self.overlap
    }

    /// The ranks this one exchanges layers with, in the order of a [`StepRecord`]'s entries.
    pub fn peers(&self) -> impl Iterator<Item = usize> + '_ {
        self.peers.iter().map(|p| p.layers.peer)
    }

    /// The boxes of the tiles this rank updates.
    pub fn tiles(&self) -> impl Iterator<Item = &Box3> {
        self.border_tiles.iter().chain(&self.inner_tiles)
    }

    /// Advances the rank's tiles by time step `step`. The record's per-direction entries are
    /// per peer (in [`TileDriver::peers`] order); `cells` counts the owned tiles' cells.
    pub fn step<M: Comm>(
        &mut self,
        chunk: &mut C,
        comm: &mut M,
        step: u64,
    ) -> Result<StepRecord, StepErrorOf<C, M>> {
        let mut record = StepRecord::for_directions(self.peers.len());
        let phases = chunk.phases() as f64;
        for phase in 0..chunk.phases() {
            let mut compute = 0.0;
            let mut failure = None;
            let mut update = |chunk: &mut C, comm: &mut M, tiles: &[Box3]| {
                let t = comm.now_seconds();
                for &tile in tiles {
                    if failure.is_none() {
                        failure = chunk.submit(step, phase, tile).err();
                    }
                    comm.compute_done(chunk.work(tile) / phases);
                }
                compute += comm.now_seconds() - t;
            };
            update(chunk, comm, &self.border_tiles);
            if !self.overlap {
                update(chunk, comm, &self.inner_tiles);
            }
            let inner = &self.inner_tiles;
            let overlapped = self.overlap;
            share(
                &self.peers,
                &mut self.sends,
                &mut self.receives,
                chunk,
                comm,
                &mut record,
                &mut |chunk, comm| {
                    if overlapped {
                        update(chunk, comm, inner);
                    }
                },
            )?;
            if let Some(e) = failure {
                return Err(StepError::Chunk(e));
            }
            record.compute_seconds += compute;
        }
        record.cells = self.tiles().map(Box3::cells).sum::<usize>() as u64;
        record.work = self.tiles().map(|t| chunk.work(*t)).sum();
        comm.step_done();
        Ok(record)
    }

    /// Sends every peer its layers and unpacks theirs, updating nothing: the ghosts of a
    /// chunk whose cells just migrated ([`crate::driver::migrate_cells`]) hold its neighbours'
    /// current values again.
    pub fn refresh_halos<M: Comm>(
        &mut self,
        chunk: &mut C,
        comm: &mut M,
    ) -> Result<(), StepErrorOf<C, M>> {
        let mut record = StepRecord::for_directions(self.peers.len());
        share(
            &self.peers,
            &mut self.sends,
            &mut self.receives,
            chunk,
            comm,
            &mut record,
            &mut |_, _| {},
        )
    }
}

/// One exchange of every peer's layers: pack, send and receive while `during` runs, unpack;
/// the bytes and times go into `record` (per peer).
fn share<C: Chunk, M: Comm>(
    peers: &[Peer],
    sends: &mut [C::Buffer],
    receives: &mut [C::Buffer],
    chunk: &mut C,
    comm: &mut M,
    record: &mut StepRecord,
    during: &mut dyn FnMut(&mut C, &mut M),
) -> Result<(), StepErrorOf<C, M>> {
    let size = core::mem::size_of::<C::Value>();
    for (p, buffer) in peers.iter().zip(sends.iter_mut()) {
        if p.send_values > 0 {
            chunk
                .pack_slabs(&p.layers.send, buffer)
                .map_err(StepError::Chunk)?;
        }
    }
    chunk.wait().map_err(StepError::Chunk)?;
    let outgoing: Vec<Outgoing<'_>> = peers
        .iter()
        .zip(sends.iter())
        .filter(|(p, _)| p.send_values > 0)
        .map(|(p, buffer)| Outgoing {
            peer: p.layers.peer,
            route: Route::Tiles,
            bytes: &buffer.bytes()[..p.send_values * size],
        })
        .collect();
    let mut incoming: Vec<Incoming<'_>> = peers
        .iter()
        .zip(receives.iter_mut())
        .filter(|(p, _)| p.receive_values > 0)
        .map(|(p, buffer)| {
            let bytes = &mut buffer.bytes_mut()[..p.receive_values * size];
            Incoming::new(p.layers.peer, Route::Tiles, bytes)
        })
        .collect();
    comm.exchange(&outgoing, &mut incoming, &mut |comm| during(chunk, comm))
        .map_err(StepError::Comm)?;
    let costs: Vec<(f64, f64)> = incoming.iter().map(|i| (i.waited, i.transfer)).collect();
    drop(incoming);
    chunk.wait().map_err(StepError::Chunk)?;
    let mut cost = costs.into_iter();
    for (k, p) in peers.iter().enumerate() {
        record.bytes_sent[k] += (p.send_values * size) as u64;
        if p.receive_values == 0 {
            continue;
        }
        let (waited, transfer) = cost.next().unwrap_or((0.0, f64::NAN));
        let t = comm.now_seconds();
        chunk
            .unpack_slabs(&p.layers.receive, &receives[k])
            .and_then(|()| chunk.wait())
            .map_err(StepError::Chunk)?;
        record.bytes_received[k] += (p.receive_values * size) as u64;
        record.share_seconds[k] += waited + (comm.now_seconds() - t);
        record.transfer_seconds[k] += transfer;
    }
    Ok(())
}
