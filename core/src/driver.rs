//! The generic time-step driver over any [`Chunk`] and [`Comm`] (needs the `alloc` feature).
//!
//! Each phase: update the border shell, pack the halos, start the exchange, update the interior
//! while they travel, then complete the receives and unpack (the kernel-split overlap of Kim &
//! Park 2012). Without overlap ([`Driver::set_overlap`]) the whole chunk is updated first and
//! the exchange follows (their "exchange after the whole update"). With one rank and no
//! periodic axis the exchange is empty and this is plain sequential FDTD.

use alloc::vec;
use alloc::vec::Vec;

use crate::staging::StagingBuffer;

use crate::chunk::{Chunk, ChunkError};
use crate::comm::{Comm, Incoming, Outgoing, Route};
use crate::decomposition::Layout;
use crate::direction::{Direction, Directions, MAX_DIRECTIONS, share_directions};
use crate::geometry::Box3;

/// The neighbours of one rank in each share direction.
#[derive(Clone, Debug)]
pub struct Schedule {
    /// Share directions of the grid, in the fixed order of [`share_directions`].
    pub directions: Directions,
    /// The rank in each direction (same index), if any.
    pub peers: heapless::Vec<Option<usize>, MAX_DIRECTIONS>,
}

impl Schedule {
    /// The schedule of `rank` in `layout` for a grid whose active axes are `active`.
    pub fn new(layout: &Layout, rank: usize, active: [bool; 3]) -> Schedule {
        let directions = share_directions(active);
        let peers = directions
            .iter()
            .map(|&d| layout.neighbour(rank, d))
            .collect();
        Schedule { directions, peers }
    }

    /// The sides (low, high) of each axis that face a neighbour in some share direction.
    pub fn sides_with_peers(&self) -> [[bool; 2]; 3] {
        let mut sides = [[false; 2]; 3];
        for (d, peer) in self.directions.iter().zip(&self.peers) {
            if peer.is_some() {
                for (a, side) in sides.iter_mut().enumerate() {
                    match d.0[a] {
                        -1 => side[0] = true,
                        1 => side[1] = true,
                        _ => {}
                    }
                }
            }
        }
        sides
    }
}

/// What one rank did in one step: the inputs of the balancer and of eq. (2) of Balykov 2019.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StepRecord {
    /// Time spent updating cells.
    pub compute_seconds: f64,
    /// Time spent receiving (and unpacking) per share direction, in schedule order.
    pub share_seconds: Vec<f64>,
    /// Bytes sent toward each share direction, in schedule order.
    pub bytes_sent: Vec<u64>,
    /// Bytes received from each share direction, in schedule order.
    pub bytes_received: Vec<u64>,
    /// Cells owned.
    pub cells: u64,
    /// Work done ([`Chunk::work`] of the owned box): the balancer's load.
    pub work: f64,
    /// Transfer time per share direction as the communicator knows it (the link's own time,
    /// without waiting), in schedule order; NaN where it only knows the wait.
    pub transfer_seconds: Vec<f64>,
}

impl StepRecord {
    /// An empty record for `directions` share directions.
    pub fn for_directions(directions: usize) -> Self {
        StepRecord {
            share_seconds: vec![0.0; directions],
            bytes_sent: vec![0; directions],
            bytes_received: vec![0; directions],
            transfer_seconds: vec![0.0; directions],
            ..StepRecord::default()
        }
    }
}

/// Splits `owned` into the shell of width `ghost[a]` on each side `sides[a]` marks (low, high)
/// and the interior. Returns the shell boxes (up to 6) and the interior; together they tile
/// `owned`. A side without a neighbour needs no shell: nothing is sent from it, and the ghosts
/// the interior reads there never change during the exchange.
pub fn shell_and_interior(
    owned: Box3,
    ghost: [usize; 3],
    sides: [[bool; 2]; 3],
) -> (heapless::Vec<Box3, 6>, Box3) {
    let mut shell = heapless::Vec::new();
    let mut rest = owned;
    for a in 0..3 {
        let width = |side: usize| if sides[a][side] { ghost[a] as i64 } else { 0 };
        let low_end = (rest.lo[a] + width(0)).min(rest.hi[a]);
        let high_start = (rest.hi[a] - width(1)).max(low_end);
        let mut low = rest;
        low.hi[a] = low_end;
        let mut high = rest;
        high.lo[a] = high_start;
        for b in [low, high] {
            if !b.is_empty() {
                // Two boxes per axis, three axes: the capacity of 6 holds them.
                let _ = shell.push(b);
            }
        }
        rest.lo[a] = low_end;
        rest.hi[a] = high_start;
    }
    (shell, rest)
}

/// A failure of one step: the chunk's or the communicator's, each with its own kind.
#[derive(Clone, Debug, PartialEq)]
pub enum StepError<CE, ME> {
    /// The chunk failed (a device error, an unsupported operation).
    Chunk(CE),
    /// The communicator failed (a lost peer, a size mismatch, a timeout).
    Comm(ME),
}

impl<CE: core::fmt::Display, ME: core::fmt::Display> core::fmt::Display for StepError<CE, ME> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            StepError::Chunk(e) => write!(f, "chunk: {e}"),
            StepError::Comm(e) => write!(f, "communicator: {e}"),
        }
    }
}

/// The error of a step of chunk `C` on communicator `M`.
pub type StepErrorOf<C, M> = StepError<<C as Chunk>::Error, <M as Comm>::Error>;

/// One direction's message of a phase: its slot in the schedule and its length in values.
#[derive(Clone, Copy, Debug)]
struct Message {
    slot: usize,
    peer: usize,
    values: usize,
}

/// What the phase loop does with a region.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Update {
    /// Submits a box of the border shell ([`Chunk::submit_border`]), charging its work.
    Border,
    /// Submits it ([`Chunk::submit`]), charging its work.
    Whole,
    /// Submits it uncharged: the interior of a chunk that splits its border off, queued
    /// before the exchange ([`Chunk::splits_border`]).
    Queue,
    /// Charges the work of the interior queued so, while the exchange runs.
    Charge,
}

/// Steps one chunk, exchanging halos through one communicator, with the chunk's own staging
/// buffers (kept between steps, grown when a halo outgrows them).
#[derive(Debug)]
pub struct Driver<C: Chunk> {
    schedule: Schedule,
    overlap: bool,
    sends: Vec<C::Buffer>,
    receives: Vec<C::Buffer>,
}

impl<C: Chunk> Driver<C> {
    /// A driver for a rank with this schedule (overlapping by default).
    pub fn new(schedule: Schedule) -> Self {
        Driver {
            schedule,
            overlap: true,
            sends: Vec::new(),
            receives: Vec::new(),
        }
    }

    /// Overlap the exchange with the interior update (`true`, the default), or update the
    /// whole chunk and exchange afterwards (`false`). The fields are the same either way.
    pub fn set_overlap(&mut self, overlap: bool) {
        self.overlap = overlap;
    }

    /// The schedule.
    pub fn schedule(&self) -> &Schedule {
        &self.schedule
    }

    /// Advances `chunk` by time step `step`.
    pub fn step<M: Comm>(
        &mut self,
        chunk: &mut C,
        comm: &mut M,
        step: u64,
    ) -> Result<StepRecord, StepErrorOf<C, M>> {
        let mut record = StepRecord::for_directions(self.schedule.directions.len());
        // Without neighbours (but itself across a wrap the chunk refreshes) there is nothing to
        // overlap: one region, one kernel call.
        let lonely = self.submits_alone(chunk, comm.rank());
        let (shell, interior) = if lonely || !self.overlap {
            (heapless::Vec::new(), chunk.owned())
        } else {
            shell_and_interior(
                chunk.owned(),
                chunk.ghost(),
                self.schedule.sides_with_peers(),
            )
        };
        let phases = chunk.phases() as f64;
        if lonely {
            // Nothing arrives between the phases: the chunk may sweep the whole step at once.
            if !interior.is_empty() {
                let t = comm.now_seconds();
                let done = chunk.submit_step(step, interior);
                for _ in 0..chunk.phases() {
                    comm.compute_done(chunk.work(interior) / phases);
                }
                record.compute_seconds += comm.now_seconds() - t;
                done.map_err(StepError::Chunk)?;
            }
            // No message travels (not even to itself across a wrap its chunk refreshes); the
            // exchanges keep the communicator's per-phase bookkeeping.
            for phase in 0..chunk.phases() {
                self.exchange_halos(chunk, comm, phase, &mut record, &mut |_, _| {})?;
            }
        }
        // A chunk that splits its border off runs the interior beside the shell, the packs
        // and the copies: submitted right after the shell, its work charged to the exchange.
        let split = self.overlap && chunk.splits_border();
        for phase in (0..chunk.phases()).filter(|_| !lonely) {
            let mut compute = 0.0;
            let mut failure = None;
            let mut update = |chunk: &mut C, comm: &mut M, region: Box3, how: Update| {
                if !region.is_empty() && failure.is_none() {
                    let t = comm.now_seconds();
                    let done = match how {
                        Update::Border => chunk.submit_border(step, phase, region),
                        Update::Whole | Update::Queue => chunk.submit(step, phase, region),
                        Update::Charge => Ok(()),
                    };
                    if let Err(e) = done {
                        failure = Some(e);
                    }
                    if how != Update::Queue {
                        comm.compute_done(chunk.work(region) / phases);
                    }
                    compute += comm.now_seconds() - t;
                }
            };
            for b in &shell {
                update(chunk, comm, *b, Update::Border);
            }
            if !self.overlap {
                update(chunk, comm, interior, Update::Whole);
            } else if split {
                update(chunk, comm, interior, Update::Queue);
            }
            let overlapped = self.overlap;
            self.exchange_halos(chunk, comm, phase, &mut record, &mut |chunk, comm| match (
                overlapped, split,
            ) {
                (true, false) => update(chunk, comm, interior, Update::Whole),
                (true, true) => update(chunk, comm, interior, Update::Charge),
                (false, _) => {}
            })?;
            if let Some(e) = failure {
                return Err(StepError::Chunk(e));
            }
            record.compute_seconds += compute;
        }
        record.cells = chunk.owned().cells() as u64;
        record.work = chunk.work(chunk.owned());
        comm.step_done();
        Ok(record)
    }

    /// Whether this rank has no neighbour at all: nothing arrives between its phases or steps.
    pub fn lonely(&self) -> bool {
        self.schedule.peers.iter().all(Option::is_none)
    }

    /// Whether rank `rank` may submit several steps of `chunk` at once, nothing arriving in
    /// between: it has no neighbour, or none but itself across a periodic wrap that the chunk
    /// refreshes itself ([`Chunk::wraps_itself`]).
    pub fn submits_alone(&self, chunk: &C, rank: usize) -> bool {
        let only_itself = (self.schedule.peers.iter()).all(|p| p.is_none_or(|p| p == rank));
        self.lonely() || (only_itself && chunk.wraps_itself())
    }

    /// Advances `chunk` by the `count` steps from `first`, one record each. A rank without
    /// neighbours but itself ([`Driver::submits_alone`]) submits them at once
    /// ([`Chunk::submit_steps`]: the chunk may tile them over space and time), the compute
    /// time shared evenly among them;
    /// a chunk with a ghost zone ([`Chunk::set_ghost_zone`]) does too and then exchanges its
    /// deep halos once; any other steps them one by one ([`Driver::step`]).
    pub fn steps<M: Comm>(
        &mut self,
        chunk: &mut C,
        comm: &mut M,
        first: u64,
        count: u64,
    ) -> Result<Vec<StepRecord>, StepErrorOf<C, M>> {
        if chunk.steps_per_exchange() > 1 {
            return self.block(chunk, comm, first, count);
        }
        if count <= 1 || !self.submits_alone(chunk, comm.rank()) {
            return (first..first + count)
                .map(|step| self.step(chunk, comm, step))
                .collect();
        }
        let owned = chunk.owned();
        let phases = chunk.phases();
        let t = comm.now_seconds();
        let done = submit_owned(chunk, first, count);
        // The owned box's work does not change within the steps: taken once, not every step.
        let work = chunk.work(owned);
        for _ in 0..count * phases as u64 {
            comm.compute_done(work / phases as f64);
        }
        let seconds = (comm.now_seconds() - t) / count as f64;
        done.map_err(StepError::Chunk)?;
        let mut records = Vec::with_capacity(count as usize);
        for _ in 0..count {
            let mut record = StepRecord::for_directions(self.schedule.directions.len());
            record.compute_seconds = seconds;
            // No message travels (not even to itself across a wrap its chunk refreshes); the
            // exchanges keep the communicator's per-phase bookkeeping.
            for phase in 0..phases {
                self.exchange_halos(chunk, comm, phase, &mut record, &mut |_, _| {})?;
            }
            record.cells = owned.cells() as u64;
            record.work = work;
            comm.step_done();
            records.push(record);
        }
        Ok(records)
    }

    /// Advances a chunk with a ghost zone ([`Chunk::set_ghost_zone`]) by the `count` steps
    /// from `first` (at most [`Chunk::steps_per_exchange`]), one record each: the chunk
    /// updates its owned box and ghost zone at once ([`Chunk::submit_steps`]), then the deep
    /// halos go out once, their bytes and times in the last step's record. The compute time
    /// ([`Chunk::block_work`], the zone's redundant updates included) is shared evenly, while
    /// each record's work is the owned box's ([`Chunk::work`]): a balancer sees the rank's
    /// effective rate of owned cells, the zone's cost folded in.
    fn block<M: Comm>(
        &mut self,
        chunk: &mut C,
        comm: &mut M,
        first: u64,
        count: u64,
    ) -> Result<Vec<StepRecord>, StepErrorOf<C, M>> {
        debug_assert!(count <= chunk.steps_per_exchange());
        let owned = chunk.owned();
        let phases = chunk.phases() as u64;
        let t = comm.now_seconds();
        let done = submit_owned(chunk, first, count);
        // What a clock saw of the whole block, shared evenly; a simulated clock moves only
        // at `compute_done`, step by step below, each step's delay charged with its own.
        let measured = (comm.now_seconds() - t) / count as f64;
        done.map_err(StepError::Chunk)?;
        let work = chunk.block_work(count) / (count * phases) as f64;
        // The owned box's work does not change within a block: taken once, not every step.
        let owned_work = chunk.work(owned);
        let mut records = Vec::with_capacity(count as usize);
        for n in 0..count {
            let t = comm.now_seconds();
            for _ in 0..phases {
                comm.compute_done(work);
            }
            let mut record = StepRecord::for_directions(self.schedule.directions.len());
            record.compute_seconds = measured + (comm.now_seconds() - t);
            record.cells = owned.cells() as u64;
            record.work = owned_work;
            if n + 1 == count {
                self.refresh(chunk, comm, &mut record)?;
            }
            comm.step_done();
            records.push(record);
        }
        Ok(records)
    }

    /// Exchanges the halos of every phase in order, recording them in `record`: a chunk with
    /// a ghost zone sends its deep halos once ([`Chunk::set_ghost_zone`]).
    fn refresh<M: Comm>(
        &mut self,
        chunk: &mut C,
        comm: &mut M,
        record: &mut StepRecord,
    ) -> Result<(), StepErrorOf<C, M>> {
        for phase in 0..chunk.phases() {
            self.exchange_halos(chunk, comm, phase, record, &mut |_, _| {})?;
        }
        Ok(())
    }

    /// Exchanges the halos of `phase` without updating anything: for initial conditions set
    /// on each chunk's owned cells, before the first step.
    pub fn exchange<M: Comm>(
        &mut self,
        chunk: &mut C,
        comm: &mut M,
        phase: usize,
    ) -> Result<(), StepErrorOf<C, M>> {
        let mut record = StepRecord::for_directions(self.schedule.directions.len());
        self.exchange_halos(chunk, comm, phase, &mut record, &mut |_, _| {})
    }

    /// Waits for what was submitted, packs every halo of `phase` in one call, exchanges them
    /// with `overlap(chunk, comm)` running while they travel, waits for the overlapped work
    /// and unpacks what arrived in one call, recording bytes and times per direction.
    fn exchange_halos<M: Comm>(
        &mut self,
        chunk: &mut C,
        comm: &mut M,
        phase: usize,
        record: &mut StepRecord,
        overlap: &mut dyn FnMut(&mut C, &mut M),
    ) -> Result<(), StepErrorOf<C, M>> {
        let size = core::mem::size_of::<C::Value>();
        let mut sent: heapless::Vec<Message, MAX_DIRECTIONS> = heapless::Vec::new();
        let mut expected: heapless::Vec<Message, MAX_DIRECTIONS> = heapless::Vec::new();
        let mut towards: heapless::Vec<Direction, MAX_DIRECTIONS> = heapless::Vec::new();
        let mut froms: heapless::Vec<Direction, MAX_DIRECTIONS> = heapless::Vec::new();
        // A rank alone but for its own wrap, which its chunk refreshes as it sweeps: nothing
        // to send itself.
        let (rank, alone) = (comm.rank(), self.submits_alone(chunk, comm.rank()));
        for (slot, &dir) in self.schedule.directions.iter().enumerate() {
            let Some(peer) = self.schedule.peers[slot] else {
                continue;
            };
            if alone && peer == rank {
                continue;
            }
            // At most one message each way per share direction: the capacities hold them.
            let values = chunk.halo_len(phase, dir);
            if values > 0 {
                let _ = sent.push(Message { slot, peer, values });
                let _ = towards.push(dir);
            }
            let values = chunk.ghost_len(phase, dir);
            if values > 0 {
                let _ = expected.push(Message { slot, peer, values });
                let _ = froms.push(dir);
            }
        }
        ensure_buffers(chunk, &mut self.sends, sent.iter().map(|m| m.values * size))
            .map_err(StepError::Chunk)?;
        ensure_buffers(
            chunk,
            &mut self.receives,
            expected.iter().map(|m| m.values * size),
        )
        .map_err(StepError::Chunk)?;
        let t = comm.now_seconds();
        chunk
            .pack_halos(phase, &towards, &mut self.sends[..sent.len()])
            .and_then(|()| chunk.wait_halos())
            .map_err(StepError::Chunk)?;
        spread(comm.now_seconds() - t, &sent, &mut record.share_seconds);
        for m in &sent {
            record.bytes_sent[m.slot] += (m.values * size) as u64;
        }
        let directions = &self.schedule.directions;
        let outgoing: Vec<Outgoing<'_>> = sent
            .iter()
            .zip(&self.sends)
            .map(|(m, buffer)| Outgoing {
                peer: m.peer,
                route: Route::Halo(directions[m.slot]),
                bytes: &buffer.bytes()[..m.values * size],
            })
            .collect();
        let mut incoming: Vec<Incoming<'_>> = expected
            .iter()
            .zip(self.receives.iter_mut())
            .map(|(m, buffer)| {
                let route = Route::arriving_from(directions[m.slot]);
                Incoming::new(m.peer, route, &mut buffer.bytes_mut()[..m.values * size])
            })
            .collect();
        comm.exchange(&outgoing, &mut incoming, &mut |comm| overlap(chunk, comm))
            .map_err(StepError::Comm)?;
        let costs: Vec<(f64, f64)> = incoming.iter().map(|i| (i.waited, i.transfer)).collect();
        drop(incoming);
        // The overlapped work ends here on an asynchronous chunk (a no-op on the host), unless
        // the chunk splits its border off: its interior runs on beside the unpacks.
        if !chunk.splits_border() {
            chunk.wait().map_err(StepError::Chunk)?;
        }
        let t = comm.now_seconds();
        chunk
            .unpack_halos(phase, &froms, &self.receives[..expected.len()])
            .and_then(|()| chunk.wait_halos())
            .map_err(StepError::Chunk)?;
        spread(comm.now_seconds() - t, &expected, &mut record.share_seconds);
        for (m, (waited, transfer)) in expected.iter().zip(costs) {
            record.bytes_received[m.slot] += (m.values * size) as u64;
            record.share_seconds[m.slot] += waited;
            // NaN marks a transfer time the communicator does not know (only the wait).
            record.transfer_seconds[m.slot] += transfer;
        }
        Ok(())
    }

    /// Moves the cells whose owner changes from `old` to `new` layout ([`migrate_cells`]),
    /// then refreshes every halo. A chunk without [`crate::Capabilities::migration`] fails
    /// with its `unsupported` error before anything moves.
    pub fn migrate<M: Comm>(
        &mut self,
        chunk: &mut C,
        comm: &mut M,
        old: &Layout,
        new: &Layout,
        active: [bool; 3],
    ) -> Result<(), StepErrorOf<C, M>> {
        let me = comm.rank();
        migrate_cells(
            chunk,
            comm,
            |r| old.chunk_box(r),
            |r| new.chunk_box(r),
            new.chunk_box(me),
        )?;
        self.schedule = Schedule::new(new, me, active);
        for phase in 0..chunk.phases() {
            self.exchange(chunk, comm, phase)?;
        }
        Ok(())
    }
}

/// Moves the cells whose owner changes: rank `r` owns `old(r)` before and `new(r)` after (one
/// box each, every cell owned once). Each rank packs the parts of its old box that others now
/// own, resizes its chunk in place to `storage` (its new box, grown by whatever ghosts its
/// driver keeps inside the chunk; the overlap with the old storage is kept), and the parts
/// move in one collective step. Every value [`Chunk::pack_slabs`] carries moves with its
/// cell (fields, CPML ψ, polarisations, DFT sums). Halos are the caller's to refresh. A chunk
/// without [`crate::Capabilities::migration`] fails with its `unsupported` error before
/// anything moves.
pub fn migrate_cells<C: Chunk, M: Comm>(
    chunk: &mut C,
    comm: &mut M,
    old: impl Fn(usize) -> Box3,
    new: impl Fn(usize) -> Box3,
    storage: Box3,
) -> Result<(), StepErrorOf<C, M>> {
    let me = comm.rank();
    let part = |a: Box3, b: Box3| {
        let p = a.intersect(&b);
        if p.is_empty() {
            Vec::new()
        } else {
            alloc::vec![p]
        }
    };
    migrate_regions(
        chunk,
        comm,
        |peer| part(old(me), new(peer)),
        |peer| part(old(peer), new(me)),
        storage,
    )
}

/// [`migrate_cells`] for any regions: this rank sends `leaving(peer)` (boxes of its old cells
/// that `peer` owns next) and receives `arriving(peer)` (boxes of `peer`'s old cells it owns
/// next), resizing its chunk to `storage` in between — the tiles of a tile set whose owner
/// changes, or the one intersection of two boxes.
pub fn migrate_regions<C: Chunk, M: Comm>(
    chunk: &mut C,
    comm: &mut M,
    leaving: impl Fn(usize) -> Vec<Box3>,
    arriving: impl Fn(usize) -> Vec<Box3>,
    storage: Box3,
) -> Result<(), StepErrorOf<C, M>> {
    if !C::CAPABILITIES.migration {
        return Err(StepError::Chunk(C::Error::unsupported("migration")));
    }
    let me = comm.rank();
    let size = core::mem::size_of::<C::Value>();
    let others = || (0..comm.size()).filter(move |&p| p != me);
    let bytes_of = |chunk: &C, parts: &[Box3]| -> usize {
        parts.iter().map(|p| chunk.slab_len(*p)).sum::<usize>() * size
    };
    let mut sent: Vec<(usize, usize, C::Buffer)> = Vec::new();
    for peer in others() {
        let parts = leaving(peer);
        if parts.is_empty() {
            continue;
        }
        let bytes = bytes_of(chunk, &parts);
        let mut buffer = chunk.buffer(bytes).map_err(StepError::Chunk)?;
        chunk
            .pack_slabs(&parts, &mut buffer)
            .map_err(StepError::Chunk)?;
        sent.push((peer, bytes, buffer));
    }
    chunk
        .wait()
        .and_then(|()| chunk.resize(storage))
        .map_err(StepError::Chunk)?;
    let mut received: Vec<(Vec<Box3>, usize, usize, C::Buffer)> = Vec::new();
    for peer in others() {
        let parts = arriving(peer);
        if parts.is_empty() {
            continue;
        }
        let bytes = bytes_of(chunk, &parts);
        let buffer = chunk.buffer(bytes).map_err(StepError::Chunk)?;
        received.push((parts, peer, bytes, buffer));
    }
    let outgoing: Vec<Outgoing<'_>> = sent
        .iter()
        .map(|(peer, bytes, buffer)| Outgoing {
            peer: *peer,
            route: Route::Slab,
            bytes: &buffer.bytes()[..*bytes],
        })
        .collect();
    let mut incoming: Vec<Incoming<'_>> = received
        .iter_mut()
        .map(|(_, p, bytes, buffer)| {
            Incoming::new(*p, Route::Slab, &mut buffer.bytes_mut()[..*bytes])
        })
        .collect();
    comm.exchange(&outgoing, &mut incoming, &mut |_| {})
        .map_err(StepError::Comm)?;
    drop(incoming);
    for (parts, _, _, buffer) in &received {
        chunk
            .unpack_slabs(parts, buffer)
            .map_err(StepError::Chunk)?;
    }
    chunk.wait().map_err(StepError::Chunk)
}

/// Makes `buffers[k]` hold at least `bytes[k]` bytes, allocating only what is missing or too
/// short (halos grow when borders move).
pub fn ensure_buffers<C: Chunk>(
    chunk: &C,
    buffers: &mut Vec<C::Buffer>,
    bytes: impl Iterator<Item = usize>,
) -> Result<(), C::Error> {
    for (k, n) in bytes.enumerate() {
        if k == buffers.len() {
            buffers.push(chunk.buffer(n)?);
        } else if buffers[k].bytes().len() < n {
            buffers[k] = chunk.buffer(n)?;
        }
    }
    Ok(())
}

/// Submits the `count` steps from `first` over the chunk's owned box, none where it owns
/// nothing.
fn submit_owned<C: Chunk>(chunk: &mut C, first: u64, count: u64) -> Result<(), C::Error> {
    let owned = chunk.owned();
    match owned.is_empty() {
        true => Ok(()),
        false => chunk.submit_steps(first, count, owned),
    }
}

/// Shares `seconds` of one batched pack or unpack among its messages by their length.
fn spread(seconds: f64, messages: &[Message], share_seconds: &mut [f64]) {
    let total: usize = messages.iter().map(|m| m.values).sum();
    if total == 0 {
        return;
    }
    for m in messages {
        share_seconds[m.slot] += seconds * m.values as f64 / total as f64;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shell_and_interior_tile_the_box() {
        let owned = Box3::new([2, 3, 0], [9, 5, 1]);
        let all = [[true; 2]; 3];
        let (shell, interior) = shell_and_interior(owned, [1, 1, 0], all);
        let total: usize = shell.iter().map(Box3::cells).sum::<usize>() + interior.cells();
        assert_eq!(total, owned.cells());
        for (i, a) in shell.iter().enumerate() {
            assert!(a.intersect(&interior).is_empty());
            for b in &shell[i + 1..] {
                assert!(a.intersect(b).is_empty());
            }
        }
        assert_eq!(interior, Box3::new([3, 4, 0], [8, 4, 1]));
        // A box one cell thick is all shell.
        let (_, interior) = shell_and_interior(Box3::new([0, 0, 0], [1, 4, 1]), [1, 1, 0], all);
        assert!(interior.is_empty());
        // Only the high x side faces a neighbour: one shell box, one cell thick.
        let sides = [[false, true], [false; 2], [false; 2]];
        let (shell, interior) = shell_and_interior(owned, [1, 1, 0], sides);
        assert_eq!(&shell[..], &[Box3::new([8, 3, 0], [9, 5, 1])]);
        assert_eq!(interior, Box3::new([2, 3, 0], [8, 5, 1]));
    }
}
