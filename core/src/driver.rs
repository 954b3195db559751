//! The generic time-step driver over any [`Chunk`] and [`Comm`] (needs the `alloc` feature).
//!
//! Each phase: update the border shell, pack the halos, start the exchange, update the interior
//! while they travel, then complete the receives and unpack (the kernel-split overlap of Kim &
//! Park 2012). Without overlap ([`Driver::set_overlap`]) the whole chunk is updated first and
//! the exchange follows (their "exchange after the whole update"). With one rank and no
//! periodic axis the exchange is empty and this is plain sequential FDTD.

use alloc::vec;
use alloc::vec::Vec;

use crate::chunk::Chunk;
use crate::comm::{Comm, Incoming, Outgoing, Route};
use crate::decomposition::Layout;
use crate::direction::{Direction, Directions, MAX_DIRECTIONS, share_directions};
use crate::geometry::Box3;
use crate::scalar::Scalar;

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

/// Steps one chunk, exchanging halos through one communicator.
#[derive(Debug)]
pub struct Driver {
    schedule: Schedule,
    overlap: bool,
    sends: Vec<Vec<u8>>,
    receives: Vec<Vec<u8>>,
}

impl Driver {
    /// A driver for a rank with this schedule (overlapping by default).
    pub fn new(schedule: Schedule) -> Driver {
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
    pub fn step<C: Chunk, M: Comm>(
        &mut self,
        chunk: &mut C,
        comm: &mut M,
        step: u64,
    ) -> Result<StepRecord, M::Error> {
        let mut record = StepRecord::for_directions(self.schedule.directions.len());
        // Without neighbours there is nothing to overlap: one region, one kernel call.
        let lonely = self.schedule.peers.iter().all(Option::is_none);
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
        for phase in 0..chunk.phases() {
            let mut compute = 0.0;
            let mut update = |chunk: &mut C, comm: &mut M, region: Box3| {
                if !region.is_empty() {
                    let t = comm.now_seconds();
                    chunk.apply(step, phase, region);
                    comm.compute_done(chunk.work(region) / phases);
                    compute += comm.now_seconds() - t;
                }
            };
            for b in &shell {
                update(chunk, comm, *b);
            }
            if !self.overlap {
                update(chunk, comm, interior);
            }
            let overlapped = self.overlap;
            self.exchange_halos(chunk, comm, phase, &mut record, &mut |chunk, comm| {
                if overlapped {
                    update(chunk, comm, interior);
                }
            })?;
            record.compute_seconds += compute;
        }
        record.cells = chunk.owned().cells() as u64;
        record.work = chunk.work(chunk.owned());
        comm.step_done();
        Ok(record)
    }

    /// Exchanges the halos of `phase` without updating anything: for initial conditions set
    /// on each chunk's owned cells, before the first step.
    pub fn exchange<C: Chunk, M: Comm>(
        &mut self,
        chunk: &mut C,
        comm: &mut M,
        phase: usize,
    ) -> Result<(), M::Error> {
        let mut record = StepRecord::for_directions(self.schedule.directions.len());
        self.exchange_halos(chunk, comm, phase, &mut record, &mut |_, _| {})
    }

    /// Packs every halo of `phase`, exchanges them with `overlap(chunk, comm)` running while
    /// they travel, and unpacks what arrived, recording bytes and times per direction.
    fn exchange_halos<C: Chunk, M: Comm>(
        &mut self,
        chunk: &mut C,
        comm: &mut M,
        phase: usize,
        record: &mut StepRecord,
        overlap: &mut dyn FnMut(&mut C, &mut M),
    ) -> Result<(), M::Error> {
        let n = self.schedule.directions.len();
        self.sends.resize_with(n, Vec::new);
        self.receives.resize_with(n, Vec::new);
        // (direction index, peer) of each message, in schedule order.
        let mut sent: Vec<(usize, usize)> = Vec::new();
        let mut expected: Vec<(usize, usize)> = Vec::new();
        for (d, &dir) in self.schedule.directions.iter().enumerate() {
            let Some(peer) = self.schedule.peers[d] else {
                continue;
            };
            let len = chunk.halo_len(phase, dir);
            if len > 0 {
                let t = comm.now_seconds();
                pack::<C>(chunk, phase, dir, len, &mut self.sends[d]);
                record.share_seconds[d] += comm.now_seconds() - t;
                record.bytes_sent[d] += self.sends[d].len() as u64;
                sent.push((d, peer));
            }
            let len = chunk.ghost_len(phase, dir);
            if len > 0 {
                self.receives[d].resize(len * C::Value::BYTES, 0);
                expected.push((d, peer));
            }
        }
        let directions = &self.schedule.directions;
        let outgoing: Vec<Outgoing<'_>> = sent
            .iter()
            .map(|&(d, peer)| Outgoing {
                peer,
                route: Route::Halo(directions[d]),
                bytes: &self.sends[d],
            })
            .collect();
        let mut incoming: Vec<Incoming<'_>> = Vec::with_capacity(expected.len());
        let mut wanted = expected.iter().peekable();
        for (d, buffer) in self.receives.iter_mut().enumerate() {
            if let Some(&&(_, peer)) = wanted.peek().filter(|(k, _)| *k == d) {
                wanted.next();
                let route = Route::arriving_from(directions[d]);
                incoming.push(Incoming::new(peer, route, buffer));
            }
        }
        comm.exchange(&outgoing, &mut incoming, &mut |comm| overlap(chunk, comm))?;
        let costs: Vec<(f64, f64)> = incoming.iter().map(|i| (i.waited, i.transfer)).collect();
        drop(incoming);
        for (&(d, _), (waited, transfer)) in expected.iter().zip(costs) {
            let t = comm.now_seconds();
            let len = self.receives[d].len() / C::Value::BYTES;
            unpack::<C>(chunk, phase, directions[d], len, &self.receives[d]);
            record.bytes_received[d] += self.receives[d].len() as u64;
            record.share_seconds[d] += waited + (comm.now_seconds() - t);
            // NaN marks a transfer time the communicator does not know (only the wait).
            record.transfer_seconds[d] += transfer;
        }
        Ok(())
    }
}

impl Driver {
    /// Moves the cells whose owner changes from `old` to `new` layout: each rank packs the
    /// parts of its old box that others now own, builds its new chunk with `build`, keeps its
    /// own overlap, and exchanges the rest in one collective step; then refreshes every halo.
    /// Returns `false` (and changes nothing) when the chunk cannot migrate.
    pub fn migrate<C: Chunk, M: Comm>(
        &mut self,
        chunk: &mut C,
        comm: &mut M,
        old: &Layout,
        new: &Layout,
        active: [bool; 3],
        build: &impl Fn(Box3) -> C,
    ) -> Result<bool, M::Error> {
        let me = comm.rank();
        let (old_box, new_box) = (old.chunk_box(me), new.chunk_box(me));
        if chunk.slab_len(Box3::new([0; 3], [0; 3])).is_none() {
            return Ok(false);
        }
        let size = C::Value::BYTES;
        let mut values: Vec<C::Value> = Vec::new();
        let mut slabs: Vec<(usize, Vec<u8>)> = Vec::new();
        for peer in (0..comm.size()).filter(|&p| p != me) {
            let part = old_box.intersect(&new.chunk_box(peer));
            if part.is_empty() {
                continue;
            }
            let len = chunk.slab_len(part).unwrap_or(0);
            values.resize(len, <C::Value as num_traits::Zero>::zero());
            chunk.pack_slab(part, &mut values);
            let mut bytes = vec![0u8; len * size];
            for (v, b) in values.iter().zip(bytes.chunks_exact_mut(size)) {
                v.write_le(b);
            }
            slabs.push((peer, bytes));
        }
        let mut fresh = build(new_box);
        let kept = old_box.intersect(&new_box);
        if !kept.is_empty() {
            let len = chunk.slab_len(kept).unwrap_or(0);
            values.resize(len, <C::Value as num_traits::Zero>::zero());
            chunk.pack_slab(kept, &mut values);
            fresh.unpack_slab(kept, &values);
        }
        let mut arriving: Vec<(Box3, usize, Vec<u8>)> = (0..comm.size())
            .filter(|&p| p != me)
            .map(|p| (old.chunk_box(p).intersect(&new_box), p))
            .filter(|(part, _)| !part.is_empty())
            .map(|(part, p)| (part, p, vec![0u8; fresh.slab_len(part).unwrap_or(0) * size]))
            .collect();
        let outgoing: Vec<Outgoing<'_>> = slabs
            .iter()
            .map(|(peer, bytes)| Outgoing {
                peer: *peer,
                route: Route::Slab,
                bytes,
            })
            .collect();
        let mut incoming: Vec<Incoming<'_>> = arriving
            .iter_mut()
            .map(|(_, p, bytes)| Incoming::new(*p, Route::Slab, bytes))
            .collect();
        comm.exchange(&outgoing, &mut incoming, &mut |_| {})?;
        drop(incoming);
        for (part, _, bytes) in &arriving {
            let data: Vec<C::Value> = bytes.chunks_exact(size).map(C::Value::read_le).collect();
            fresh.unpack_slab(*part, &data);
        }
        *chunk = fresh;
        self.schedule = Schedule::new(new, me, active);
        for phase in 0..chunk.phases() {
            self.exchange(chunk, comm, phase)?;
        }
        Ok(true)
    }
}

fn pack<C: Chunk>(chunk: &C, phase: usize, toward: Direction, len: usize, bytes: &mut Vec<u8>) {
    let mut values = vec![<C::Value as num_traits::Zero>::zero(); len];
    chunk.pack_halo(phase, toward, &mut values);
    let size = C::Value::BYTES;
    bytes.resize(len * size, 0);
    for (v, out) in values.iter().zip(bytes.chunks_exact_mut(size)) {
        v.write_le(out);
    }
}

fn unpack<C: Chunk>(chunk: &mut C, phase: usize, from: Direction, len: usize, bytes: &[u8]) {
    let size = C::Value::BYTES;
    let values: Vec<C::Value> = bytes[..len * size]
        .chunks_exact(size)
        .map(C::Value::read_le)
        .collect();
    chunk.unpack_halo(phase, from, &values);
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
