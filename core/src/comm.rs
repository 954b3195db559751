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

/// Rank, size, topology, halo exchange, the reductions of the balancer, slab transfer and a
/// clock. Messages are bytes; chunks pack values with [`crate::Scalar::write_le`].
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

    /// Starts sending `data` to `peer` in direction `toward` (non-blocking).
    fn start_send(
        &mut self,
        peer: usize,
        toward: Direction,
        data: &[u8],
    ) -> Result<(), Self::Error>;

    /// Waits for the message from `peer` that arrives from the `from` side into `out`.
    fn finish_receive(
        &mut self,
        peer: usize,
        from: Direction,
        out: &mut [u8],
    ) -> Result<(), Self::Error>;

    /// Every rank contributes `mine`; `all[r * mine.len()..][..mine.len()]` receives rank r's.
    fn all_gather(&mut self, mine: &[f64], all: &mut [f64]) -> Result<(), Self::Error>;

    /// Sends a migrating slab to `peer` (blocking).
    fn send_slab(&mut self, peer: usize, data: &[u8]) -> Result<(), Self::Error>;

    /// Receives a migrating slab from `peer` into `out` (blocking).
    fn receive_slab(&mut self, peer: usize, out: &mut [u8]) -> Result<(), Self::Error>;

    /// Seconds since an arbitrary origin: virtual for the simulated communicator.
    fn now_seconds(&self) -> f64;

    /// Tells the communicator that `cells` cell updates were just done (a phase of a step
    /// over `c` cells counts `c / phases`, so a whole step over the chunk counts its cells).
    /// A simulated communicator advances its virtual clock by `cells / speed`; real ones
    /// ignore it.
    fn compute_done(&mut self, cells: f64) {
        let _ = cells;
    }

    /// The transfer time of the latest received message as the link would take it alone
    /// (the simulated communicator's Hockney time), if this communicator knows it.
    fn last_transfer_seconds(&self) -> Option<f64> {
        None
    }

    /// Marks the end of a time step (a simulated communicator adds its per-step delay).
    fn step_done(&mut self) {}
}
