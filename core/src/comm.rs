//! The `Comm` trait: how ranks talk.

use core::fmt::Debug;

use crate::direction::Direction;

/// What went wrong in a communicator, for generic code to react to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum CommErrorKind {
    /// A peer went away.
    PeerLost,
    /// A message had a different size than expected.
    SizeMismatch,
    /// Waiting took too long.
    Timeout,
    /// The operation is not supported by this communicator.
    Unsupported,
    /// Anything else.
    Other,
}

/// An error of a communicator.
pub trait CommError: Debug {
    /// The kind of error.
    fn kind(&self) -> CommErrorKind;
}

/// What a point-to-point message is for; messages of different routes never mix.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Route {
    /// A halo (or a link probe) travelling in this direction, from sender to receiver.
    Halo(Direction),
    /// Cells migrating to their new owner.
    Slab,
    /// The halo layers between tiles of two ranks (one message per peer and phase).
    Tiles,
}

impl Route {
    /// The route of a halo that arrives from the `from` side (it travels the other way).
    pub fn arriving_from(from: Direction) -> Route {
        Route::Halo(from.opposite())
    }

    /// A small integer naming the route (an MPI tag): 0..27 for halos, 27 for slabs, 28 for
    /// tile halos.
    pub fn tag(self) -> u8 {
        match self {
            Route::Halo(d) => {
                let [x, y, z] = d.0.map(|c| (c + 1) as u8);
                x + 3 * y + 9 * z
            }
            Route::Slab => 27,
            Route::Tiles => 28,
        }
    }
}

/// A message to send: to whom, on which route, and its bytes.
#[derive(Clone, Copy, Debug)]
pub struct Outgoing<'a> {
    /// The receiving rank.
    pub peer: usize,
    /// The route.
    pub route: Route,
    /// The payload.
    pub bytes: &'a [u8],
}

/// A message to receive into `bytes` (whose length is the message's), and what it cost.
#[derive(Debug)]
pub struct Incoming<'a> {
    /// The sending rank.
    pub peer: usize,
    /// The route (as sent).
    pub route: Route,
    /// Where the payload goes; its length must equal the message's.
    pub bytes: &'a mut [u8],
    /// Set by the communicator: seconds spent waiting for this message after the overlap.
    pub waited: f64,
    /// Set by the communicator: the transfer time as the link would take it alone (the
    /// simulated communicator's Hockney time), NaN where only the wait is known.
    pub transfer: f64,
}

impl<'a> Incoming<'a> {
    /// A receive of `bytes.len()` bytes from `peer` on `route`.
    pub fn new(peer: usize, route: Route, bytes: &'a mut [u8]) -> Self {
        Incoming {
            peer,
            route,
            bytes,
            waited: 0.0,
            transfer: f64::NAN,
        }
    }
}

/// Rank, size, topology, the overlapped point-to-point exchange, the all-gather of the
/// balancer and a clock. Messages are bytes; chunks pack values with [`crate::Scalar::write_le`].
///
/// The simulated communicator's clock is virtual (Balykov 2019, eq. (2)): compute time is
/// cells / speed, share time is latency + bytes / bandwidth; real communicators read a clock.
pub trait Comm {
    /// The error type.
    type Error: CommError;

    /// This rank, `0..size`.
    fn rank(&self) -> usize;

    /// Number of ranks.
    fn size(&self) -> usize;

    /// Shape of the virtual topology (ranks along x, y, z).
    fn topology(&self) -> [usize; 3];

    /// Coordinates of this rank in the virtual topology.
    fn coords(&self) -> [usize; 3];

    /// One overlapped exchange (the kernel split of Kim & Park 2012): starts every receive in
    /// `incoming` and every send in `outgoing` without waiting, runs `overlap` while they
    /// travel, then completes them all, filling each [`Incoming`]'s `waited` and `transfer`.
    /// Every rank that sends to a peer must have that peer take part in the same exchange
    /// with the matching receive. At most one message per (peer, route) in one exchange.
    fn exchange(
        &mut self,
        outgoing: &[Outgoing<'_>],
        incoming: &mut [Incoming<'_>],
        overlap: &mut dyn FnMut(&mut Self),
    ) -> Result<(), Self::Error>;

    /// Every rank contributes `mine`; `all[r * mine.len()..][..mine.len()]` receives rank r's.
    fn all_gather(&mut self, mine: &[f64], all: &mut [f64]) -> Result<(), Self::Error>;

    /// Seconds since an arbitrary origin: virtual for the simulated communicator.
    fn now_seconds(&self) -> f64;

    /// Tells the communicator that `cells` cell updates were just done (a phase of a step
    /// over `c` cells counts `c / phases`, so a whole step over the chunk counts its cells).
    /// A simulated communicator advances its virtual clock by `cells / speed`; real ones
    /// ignore it.
    fn compute_done(&mut self, cells: f64) {
        let _ = cells;
    }

    /// Marks the end of a time step (a simulated communicator adds its per-step delay).
    fn step_done(&mut self) {}
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::direction::share_directions;

    #[test]
    fn routes_have_distinct_tags() {
        let mut tags: heapless::Vec<u8, 32> = share_directions([true; 3])
            .iter()
            .map(|&d| Route::Halo(d).tag())
            .collect();
        tags.push(Route::Slab.tag()).unwrap();
        tags.push(Route::Tiles.tag()).unwrap();
        tags.sort_unstable();
        assert!(tags.windows(2).all(|w| w[0] < w[1]), "{tags:?}");
        assert!(tags.iter().all(|&t| t <= 28));
    }
}
