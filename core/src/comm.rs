//! The `Comm` trait: how ranks talk.

use core::fmt::{self, Debug};

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

/// A collective called with arguments that cannot go together, found before any message moved.
/// The provided methods of [`Comm`] report it through `Comm::Error: From<ArgumentError>`, so
/// the `no_std` core can check arguments without knowing (or allocating) a communicator's own
/// error type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ArgumentError {
    /// The kind: [`CommErrorKind::SizeMismatch`] for lengths that disagree,
    /// [`CommErrorKind::Other`] for a rank out of range.
    pub kind: CommErrorKind,
    /// Which argument, in words.
    pub what: &'static str,
    /// The value the other arguments imply.
    pub expected: usize,
    /// The value given.
    pub got: usize,
}

impl ArgumentError {
    /// A [`CommErrorKind::SizeMismatch`] of `what`.
    pub fn size_mismatch(what: &'static str, expected: usize, got: usize) -> Self {
        ArgumentError {
            kind: CommErrorKind::SizeMismatch,
            what,
            expected,
            got,
        }
    }
}

impl CommError for ArgumentError {
    fn kind(&self) -> CommErrorKind {
        self.kind
    }
}

impl fmt::Display for ArgumentError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: expected {}, got {}",
            self.what, self.expected, self.got
        )
    }
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
    /// The messages of the provided variable-size gathers ([`Comm::gather_lens`],
    /// [`Comm::gather_bytes`], [`Comm::all_gather_bytes`]); reserved for them.
    Gather,
    /// The messages of the provided all-reduce ([`Comm::all_reduce`]); reserved for it.
    Reduce,
}

impl Route {
    /// The route of a halo that arrives from the `from` side (it travels the other way).
    pub fn arriving_from(from: Direction) -> Route {
        Route::Halo(from.opposite())
    }

    /// A small integer naming the route (an MPI tag): 0..27 for halos, 27 for slabs, 28 for
    /// tile halos, 29 for gathers, 30 for reductions. Every MPI implementation accepts tags up to 32767
    /// (MPI 3.1, §3.2.3: `MPI_TAG_UB` is at least that).
    pub fn tag(self) -> u8 {
        match self {
            Route::Halo(d) => {
                let [x, y, z] = d.0.map(|c| (c + 1) as u8);
                x + 3 * y + 9 * z
            }
            Route::Slab => 27,
            Route::Tiles => 28,
            Route::Gather => 29,
            Route::Reduce => 30,
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
/// balancer and a clock. Messages are bytes: chunks stage their values' plain bytes ([`crate::StagingBuffer`]).
///
/// The simulated communicator's clock is virtual (Balykov 2019, eq. (2)): compute time is
/// cells / speed, share time is latency + bytes / bandwidth; real communicators read a clock.
pub trait Comm {
    /// The error type; it takes in the argument errors found by the provided methods.
    type Error: CommError + From<ArgumentError>;

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
    /// Messages from one rank to another on one route are received in the order they were
    /// sent, also across exchanges (MPI's non-overtaking rule, MPI 3.1 §3.5), which lets the
    /// provided gathers receive at the root with one exchange per sender.
    ///
    /// A message whose length differs from its receive's is an error of kind
    /// [`CommErrorKind::SizeMismatch`] where the communicator can see it; the exchange still
    /// completes its other receives, so the next exchange starts clean.
    fn exchange(
        &mut self,
        outgoing: &[Outgoing<'_>],
        incoming: &mut [Incoming<'_>],
        overlap: &mut dyn FnMut(&mut Self),
    ) -> Result<(), Self::Error>;

    /// Every rank contributes `mine`; `all[r * mine.len()..][..mine.len()]` receives rank r's.
    /// `all.len()` must be `mine.len() * size()` (else [`CommErrorKind::SizeMismatch`]), and
    /// every rank must contribute as many values.
    fn all_gather(&mut self, mine: &[f64], all: &mut [f64]) -> Result<(), Self::Error>;

    /// The first half of a variable-size gather: every rank contributes the length `mine` of
    /// its message and `lens[r]` receives rank r's, on every rank, so that the caller can size
    /// the buffer of [`Comm::gather_bytes`] or [`Comm::all_gather_bytes`] without the core
    /// allocating. Collective: every rank calls it, with `lens.len() == size()`.
    ///
    /// The default is [`gather_lens_by_exchange`].
    fn gather_lens(&mut self, mine: usize, lens: &mut [usize]) -> Result<(), Self::Error> {
        gather_lens_by_exchange(self, mine, lens)
    }

    /// Gathers byte messages of different lengths at `root`: every rank sends `mine`, and at
    /// `root` `all` receives every rank's message concatenated in rank order (rank r's at
    /// `lens[..r].iter().sum()..`, `lens[r]` bytes). `lens` are every rank's lengths, as
    /// [`Comm::gather_lens`] gives them.
    ///
    /// Collective: every rank calls it with the same `root` and `lens`. On `root`, `all.len()`
    /// must be the sum of `lens`; on the other ranks `all` is neither read nor written (pass
    /// `&mut []`). Arguments that disagree (`lens.len() != size()`, `mine.len() != lens[rank]`,
    /// the root's `all` of another length) give [`CommErrorKind::SizeMismatch`], a `root` out
    /// of range [`CommErrorKind::Other`], before this rank sends anything; the other ranks
    /// then wait for it (and time out where the communicator has a timeout).
    ///
    /// The default is [`gather_by_exchange`]; a communicator with a native gather
    /// (`MPI_Gatherv`) overrides it.
    fn gather_bytes(
        &mut self,
        root: usize,
        mine: &[u8],
        lens: &[usize],
        all: &mut [u8],
    ) -> Result<(), Self::Error> {
        gather_by_exchange(self, Some(root), mine, lens, all)
    }

    /// [`Comm::gather_bytes`] to every rank: `all` receives every rank's message concatenated
    /// in rank order on every rank, and must be as long as the sum of `lens` everywhere.
    ///
    /// The default is [`gather_by_exchange`] with no root; a communicator with a native
    /// all-gather (`MPI_Allgatherv`) overrides it.
    fn all_gather_bytes(
        &mut self,
        mine: &[u8],
        lens: &[usize],
        all: &mut [u8],
    ) -> Result<(), Self::Error> {
        gather_by_exchange(self, None, mine, lens, all)
    }

    /// [`Comm::gather_lens`] then [`Comm::gather_bytes`] into buffers of their own: `root`
    /// gets `Some` of every rank's message in rank order, the other ranks `None`.
    /// Collective: every rank calls it with the same `root`.
    #[cfg(feature = "alloc")]
    fn gather_vecs(
        &mut self,
        root: usize,
        mine: &[u8],
    ) -> Result<Option<alloc::vec::Vec<alloc::vec::Vec<u8>>>, Self::Error> {
        let mut lens = alloc::vec![0; self.size()];
        self.gather_lens(mine.len(), &mut lens)?;
        // Every rank has the same lengths, so every rank fails alike on an impossible total.
        let total = checked_total(&lens)?;
        let at_root = self.rank() == root;
        let mut all = alloc::vec![0u8; if at_root { total } else { 0 }];
        self.gather_bytes(root, mine, &lens, &mut all)?;
        if !at_root {
            return Ok(None);
        }
        let mut rest = &all[..];
        let messages = lens
            .iter()
            .map(|&len| {
                let (message, tail) = rest.split_at(len);
                rest = tail;
                message.to_vec()
            })
            .collect();
        Ok(Some(messages))
    }

    /// Element-wise reductions over every rank, on every rank: each `sum[i]` becomes the sum of
    /// every rank's `sum[i]` accumulated in the tree order over rank index of
    /// [`crate::tree_sum`] (`((x₀ + x₁) + (x₂ + x₃)) + …`, so the bits are those of
    /// [`crate::tree_sum::tree_sum`] over the ranks, whatever the communicator), each `max[i]` the
    /// largest of every rank's `max[i]`. Collective: every rank calls it with vectors of the
    /// same lengths (else [`CommErrorKind::SizeMismatch`] where the communicator sees it).
    ///
    /// The default is [`all_reduce_by_exchange`]: O(`sum.len() + max.len()`) bytes sent per
    /// rank ([`all_reduce_bytes_sent`]), whatever the number of ranks.
    #[cfg(feature = "alloc")]
    fn all_reduce(&mut self, sum: &mut [f64], max: &mut [f64]) -> Result<(), Self::Error> {
        all_reduce_by_exchange(self, sum, max)
    }

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

/// The sum of `lens`, or a size mismatch if it overflows.
fn checked_total(lens: &[usize]) -> Result<usize, ArgumentError> {
    lens.iter()
        .try_fold(0usize, |sum, &len| sum.checked_add(len))
        .ok_or_else(|| {
            ArgumentError::size_mismatch(
                "gather: total length beyond usize",
                usize::MAX,
                usize::MAX,
            )
        })
}

/// Checks the arguments of a variable-size gather at rank `rank` of `size` (`root` `None`:
/// an all-gather): `lens` has one length per rank, `mine` is as long as this rank's, and a
/// receiving rank's `all` holds the sum of `lens`. Communicators that override
/// [`Comm::gather_bytes`] call it to report misuse alike.
pub fn check_gather(
    rank: usize,
    size: usize,
    root: Option<usize>,
    mine: usize,
    lens: &[usize],
    all: usize,
) -> Result<(), ArgumentError> {
    if let Some(root) = root.filter(|&r| r >= size) {
        return Err(ArgumentError {
            kind: CommErrorKind::Other,
            what: "gather: root (expected below the rank count)",
            expected: size,
            got: root,
        });
    }
    if lens.len() != size {
        return Err(ArgumentError::size_mismatch(
            "gather: lens.len() vs ranks",
            size,
            lens.len(),
        ));
    }
    if lens[rank] != mine {
        return Err(ArgumentError::size_mismatch(
            "gather: this rank's bytes vs lens[rank]",
            lens[rank],
            mine,
        ));
    }
    let total = checked_total(lens)?;
    if root.is_none_or(|r| r == rank) && all != total {
        return Err(ArgumentError::size_mismatch(
            "gather: all.len() vs the sum of lens",
            total,
            all,
        ));
    }
    Ok(())
}

/// The provided [`Comm::gather_lens`], built on [`Comm::exchange`] alone: each length goes as
/// 8 little-endian bytes on [`Route::Gather`], in the rounds of [`gather_by_exchange`]'s
/// all-gather.
pub fn gather_lens_by_exchange<C: Comm + ?Sized>(
    comm: &mut C,
    mine: usize,
    lens: &mut [usize],
) -> Result<(), C::Error> {
    let (rank, size) = (comm.rank(), comm.size());
    if lens.len() != size {
        let what = "gather_lens: lens.len() vs ranks";
        return Err(ArgumentError::size_mismatch(what, size, lens.len()).into());
    }
    lens[rank] = mine;
    let mine_bytes = (mine as u64).to_le_bytes();
    let mut mismatch = None;
    for k in 1..size {
        let (to, from) = ((rank + k) % size, (rank + size - k) % size);
        let outgoing = [Outgoing {
            peer: to,
            route: Route::Gather,
            bytes: &mine_bytes,
        }];
        let mut got = [0u8; 8];
        let mut incoming = [Incoming::new(from, Route::Gather, &mut got)];
        past_mismatch(
            comm.exchange(&outgoing, &mut incoming, &mut |_| {}),
            &mut mismatch,
        )?;
        let len = u64::from_le_bytes(got);
        lens[from] = usize::try_from(len).map_err(|_| {
            let what = "gather_lens: a length beyond this platform's usize (saturated)";
            ArgumentError::size_mismatch(what, usize::MAX, usize::MAX)
        })?;
    }
    mismatch.map_or(Ok(()), Err)
}

/// Lets a collective built of several exchanges go on past a
/// [`CommErrorKind::SizeMismatch`], keeping the first in `first`: the communicator took the
/// message, and the exchanges still to come take theirs, so the next collective starts clean.
/// Any other error ends the collective (a peer may be gone).
fn past_mismatch<E: CommError>(result: Result<(), E>, first: &mut Option<E>) -> Result<(), E> {
    match result {
        Err(e) if e.kind() == CommErrorKind::SizeMismatch => {
            first.get_or_insert(e);
            Ok(())
        }
        other => other,
    }
}

/// Where rank `r`'s message lies in the concatenation of messages of `lens` bytes.
fn place(lens: &[usize], r: usize) -> core::ops::Range<usize> {
    let start: usize = lens[..r].iter().sum();
    start..start + lens[r]
}

/// The provided [`Comm::gather_bytes`] (`root` `Some`) and [`Comm::all_gather_bytes`]
/// (`root` `None`), built on [`Comm::exchange`] alone, on [`Route::Gather`], each message
/// received straight into its place in `all`:
///
/// - gather: each other rank sends `mine` in one exchange; the root receives them in rank
///   order, one exchange per sender (messages on one route keep their order across
///   exchanges, so each arrives whenever its sender is ready);
/// - all-gather: in round `k` of `1..size` every rank sends to `rank + k` and receives from
///   `rank - k` (mod `size`) in one exchange, the pairwise exchange of MPICH's all-to-all
///   (Thakur, Rabenseifner & Gropp 2005, IJHPCA 19(1)): each round pairs every sender with a
///   receiver posted in the same round, so no rank waits on one that waits on it, and the
///   simulated clock charges `size - 1` rounds, as a ring all-gather takes.
///
/// A message of another length than `lens` says (ranks that disagree on `lens`) is a
/// [`CommErrorKind::SizeMismatch`] at its receiver where the communicator sees it, reported
/// after the other messages are in. Communicators charge these messages as any other (the
/// simulated one by their Hockney time). Public so that an overriding communicator can fall back on it (MPI's counts are
/// 32-bit), and the conformance suite can check it on each.
pub fn gather_by_exchange<C: Comm + ?Sized>(
    comm: &mut C,
    root: Option<usize>,
    mine: &[u8],
    lens: &[usize],
    all: &mut [u8],
) -> Result<(), C::Error> {
    let (rank, size) = (comm.rank(), comm.size());
    check_gather(rank, size, root, mine.len(), lens, all.len())?;
    // `check_gather` made `all` as long as the sum of `lens` where this rank receives, so
    // every `place` below lies inside it.
    match root {
        Some(root) if root != rank => {
            let outgoing = [Outgoing {
                peer: root,
                route: Route::Gather,
                bytes: mine,
            }];
            comm.exchange(&outgoing, &mut [], &mut |_| {})
        }
        Some(_) => {
            all[place(lens, rank)].copy_from_slice(mine);
            let mut mismatch = None;
            for peer in (0..size).filter(|&p| p != rank) {
                let slot = &mut all[place(lens, peer)];
                let mut incoming = [Incoming::new(peer, Route::Gather, slot)];
                let received = comm.exchange(&[], &mut incoming, &mut |_| {});
                past_mismatch(received, &mut mismatch)?;
            }
            mismatch.map_or(Ok(()), Err)
        }
        None => {
            all[place(lens, rank)].copy_from_slice(mine);
            let mut mismatch = None;
            for k in 1..size {
                let (to, from) = ((rank + k) % size, (rank + size - k) % size);
                let outgoing = [Outgoing {
                    peer: to,
                    route: Route::Gather,
                    bytes: mine,
                }];
                let slot = &mut all[place(lens, from)];
                let mut incoming = [Incoming::new(from, Route::Gather, slot)];
                let received = comm.exchange(&outgoing, &mut incoming, &mut |_| {});
                past_mismatch(received, &mut mismatch)?;
            }
            mismatch.map_or(Ok(()), Err)
        }
    }
}

/// The children of `rank` in the broadcast tree of [`all_reduce_by_exchange`]: a binary tree
/// over the ranks rooted at rank 0 (rank `r`'s children are `2r + 1` and `2r + 2`).
pub fn broadcast_children(rank: usize, size: usize) -> impl Iterator<Item = usize> {
    [2 * rank + 1, 2 * rank + 2]
        .into_iter()
        .filter(move |&c| c < size)
}

/// The parent of `rank` in the broadcast tree of [`all_reduce_by_exchange`] (`None` for rank
/// 0, its root).
pub fn broadcast_parent(rank: usize) -> Option<usize> {
    (rank > 0).then(|| (rank - 1) / 2)
}

/// The ranks that send `rank` their partial results in the reduction of
/// [`all_reduce_by_exchange`], in the order they are added: `rank + 2ᵏ` for each `2ᵏ` below
/// `rank`'s lowest set bit (every power of two for rank 0) while below `size` — the binomial
/// tree of the aligned blocks of [`crate::tree_sum`].
pub fn reduce_children(rank: usize, size: usize) -> impl Iterator<Item = usize> {
    (0..usize::BITS)
        .map(|k| 1usize << k)
        .take_while(move |&step| {
            rank & step == 0 && rank.checked_add(step).is_some_and(|c| c < size)
        })
        .map(move |step| rank + step)
}

/// The rank `rank` sends its partial result to in the reduction of [`all_reduce_by_exchange`]:
/// `rank` less its lowest set bit (`None` for rank 0, which ends with the whole result).
pub fn reduce_parent(rank: usize) -> Option<usize> {
    (rank > 0).then(|| rank & (rank - 1))
}

/// Bytes rank `rank` of `size` sends in [`all_reduce_by_exchange`] of `values` f64s in all:
/// one message of its partial result up the reduction tree (rank 0 sends none), then the
/// result to each of its at most two children of the broadcast tree — at most `3 × 8 ×
/// values`, independent of `size`.
pub fn all_reduce_bytes_sent(rank: usize, size: usize, values: usize) -> usize {
    let up = usize::from(rank > 0 && rank < size);
    (up + broadcast_children(rank, size).count()) * 8 * values
}

/// The provided [`Comm::all_reduce`], built on [`Comm::exchange`] alone, on [`Route::Reduce`]:
///
/// 1. a reduction to rank 0 up the binomial tree of [`crate::tree_sum`]: rank `r` receives the
///    partial results of the blocks `r + 2ᵏ .. r + 2ᵏ⁺¹` below its lowest set bit (one exchange
///    for all of them), adds them to its own in increasing `k` — lower ranks' sum on the left,
///    `S(r, 2ᵏ⁺¹) = S(r, 2ᵏ) + S(r + 2ᵏ, 2ᵏ)` — takes the maxima, and sends the result to `r` less
///    its lowest set bit; rank 0 ends with every sum in the tree order over rank index of
///    [`crate::tree_sum`], the order the balancer's formula sums in
///    ([`crate::balance::Balancer::decide`]);
/// 2. a broadcast of the result from rank 0 down a binary tree ([`broadcast_children`]).
///
/// ⌈log₂ size⌉ message latencies up and ⌊log₂ size⌋ down (the chain in rank order it
/// replaced took size − 1 up). Each rank sends at most three messages of `8 × (sum.len() +
/// max.len())` bytes ([`all_reduce_bytes_sent`]): O(values) bytes per rank, not O(ranks);
/// rank 0 receives ⌈log₂ size⌉ of them. A message of another length (ranks that disagree on
/// the lengths) is a [`CommErrorKind::SizeMismatch`] where the communicator sees it, reported
/// once the collective is over.
#[cfg(feature = "alloc")]
pub fn all_reduce_by_exchange<C: Comm + ?Sized>(
    comm: &mut C,
    sum: &mut [f64],
    max: &mut [f64],
) -> Result<(), C::Error> {
    let (rank, size) = (comm.rank(), comm.size());
    let n = sum.len() + max.len();
    let mut mismatch = None;
    let mut partials: alloc::vec::Vec<(usize, alloc::vec::Vec<u8>)> = reduce_children(rank, size)
        .map(|peer| (peer, alloc::vec![0u8; 8 * n]))
        .collect();
    if !partials.is_empty() {
        let mut incoming: alloc::vec::Vec<Incoming<'_>> = partials
            .iter_mut()
            .map(|(peer, bytes)| Incoming::new(*peer, Route::Reduce, bytes))
            .collect();
        past_mismatch(
            comm.exchange(&[], &mut incoming, &mut |_| {}),
            &mut mismatch,
        )?;
    }
    for (_, partial) in &partials {
        let (partial_sum, partial_max) = decode_reduced(partial, sum.len());
        // S(r, 2ᵏ) + S(r + 2ᵏ, 2ᵏ): this rank's block on the left.
        for (mine, upper) in sum.iter_mut().zip(partial_sum) {
            *mine += upper;
        }
        for (mine, upper) in max.iter_mut().zip(partial_max) {
            *mine = upper.max(*mine);
        }
    }
    let mut buffer = alloc::vec![0u8; 8 * n];
    encode_reduced(sum, max, &mut buffer);
    if let Some(parent) = reduce_parent(rank) {
        let outgoing = [Outgoing {
            peer: parent,
            route: Route::Reduce,
            bytes: &buffer,
        }];
        past_mismatch(
            comm.exchange(&outgoing, &mut [], &mut |_| {}),
            &mut mismatch,
        )?;
    }
    if let Some(parent) = broadcast_parent(rank) {
        let mut incoming = [Incoming::new(parent, Route::Reduce, &mut buffer)];
        past_mismatch(
            comm.exchange(&[], &mut incoming, &mut |_| {}),
            &mut mismatch,
        )?;
        let (all_sum, all_max) = decode_reduced(&buffer, sum.len());
        for (mine, v) in sum
            .iter_mut()
            .chain(max.iter_mut())
            .zip(all_sum.chain(all_max))
        {
            *mine = v;
        }
    }
    let outgoing: alloc::vec::Vec<Outgoing<'_>> = broadcast_children(rank, size)
        .map(|peer| Outgoing {
            peer,
            route: Route::Reduce,
            bytes: &buffer,
        })
        .collect();
    if !outgoing.is_empty() {
        past_mismatch(
            comm.exchange(&outgoing, &mut [], &mut |_| {}),
            &mut mismatch,
        )?;
    }
    mismatch.map_or(Ok(()), Err)
}

/// Little-endian bytes of `sum` then `max` into `out` (8 bytes per value).
#[cfg(feature = "alloc")]
fn encode_reduced(sum: &[f64], max: &[f64], out: &mut [u8]) {
    for (v, b) in sum.iter().chain(max).zip(out.chunks_exact_mut(8)) {
        b.copy_from_slice(&v.to_le_bytes());
    }
}

/// The values of [`encode_reduced`]'s bytes: the first `sums` are sums, the rest maxima.
#[cfg(feature = "alloc")]
fn decode_reduced(
    bytes: &[u8],
    sums: usize,
) -> (
    impl Iterator<Item = f64> + '_,
    impl Iterator<Item = f64> + '_,
) {
    let value = |b: &[u8]| f64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]);
    let (s, m) = bytes.split_at(8 * sums);
    (s.chunks_exact(8).map(value), m.chunks_exact(8).map(value))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::direction::share_directions;

    #[test]
    fn the_broadcast_tree_reaches_every_rank_once() {
        for size in 1..40 {
            let mut reached = [0usize; 40];
            reached[0] = 1;
            for rank in 0..size {
                for child in broadcast_children(rank, size) {
                    assert_eq!(broadcast_parent(child), Some(rank), "size {size}");
                    reached[child] += 1;
                }
                assert!(all_reduce_bytes_sent(rank, size, 5) <= 3 * 8 * 5);
            }
            assert_eq!(broadcast_parent(0), None);
            assert!(
                reached[..size].iter().all(|&r| r == 1),
                "size {size}: {reached:?}"
            );
        }
    }

    #[test]
    fn the_reduction_tree_gathers_every_rank_once_in_aligned_blocks() {
        // Every rank but 0 sends to one parent, which lists it among its children; rank r's
        // children are the starts of the blocks r + 2^k .. r + 2^(k+1), in increasing k, so
        // after them r holds the block r .. r + 2^(lowest set bit of r).
        for size in 1..70 {
            let mut covered = [0usize; 70];
            for rank in 0..size {
                for (k, child) in reduce_children(rank, size).enumerate() {
                    assert_eq!(child, rank + (1 << k), "size {size}, rank {rank}");
                    assert_eq!(reduce_parent(child), Some(rank), "size {size}");
                }
                match reduce_parent(rank) {
                    Some(p) => {
                        assert!(p < rank && reduce_children(p, size).any(|c| c == rank));
                        covered[rank] += 1;
                    }
                    None => assert_eq!(rank, 0),
                }
                let depth = rank.count_ones() as usize;
                assert!(depth <= usize::BITS as usize - size.leading_zeros() as usize);
            }
            assert!(covered[1..size].iter().all(|&c| c == 1), "size {size}");
        }
    }

    #[test]
    fn routes_have_distinct_tags() {
        let mut tags: heapless::Vec<u8, 32> = share_directions([true; 3])
            .iter()
            .map(|&d| Route::Halo(d).tag())
            .collect();
        tags.push(Route::Slab.tag()).unwrap();
        tags.push(Route::Tiles.tag()).unwrap();
        tags.push(Route::Gather.tag()).unwrap();
        tags.push(Route::Reduce.tag()).unwrap();
        tags.sort_unstable();
        assert!(tags.windows(2).all(|w| w[0] < w[1]), "{tags:?}");
        assert!(tags.iter().all(|&t| t <= 30));
    }

    #[test]
    fn check_gather_names_what_disagrees() {
        let kind = |r: Result<(), ArgumentError>| r.map_err(|e| (e.kind, e.expected, e.got));
        let lens = [2, 0, 3];
        // Rank 1 sends nothing to root 2, which holds 5 bytes; every rank of an all-gather does.
        assert_eq!(kind(check_gather(1, 3, Some(2), 0, &lens, 0)), Ok(()));
        assert_eq!(kind(check_gather(2, 3, Some(2), 3, &lens, 5)), Ok(()));
        assert_eq!(kind(check_gather(0, 3, None, 2, &lens, 5)), Ok(()));
        let mismatch = CommErrorKind::SizeMismatch;
        assert_eq!(
            kind(check_gather(0, 3, Some(3), 2, &lens, 5)),
            Err((CommErrorKind::Other, 3, 3))
        );
        assert_eq!(
            kind(check_gather(0, 3, Some(0), 2, &lens[..2], 5)),
            Err((mismatch, 3, 2))
        );
        assert_eq!(
            kind(check_gather(0, 3, Some(0), 1, &lens, 5)),
            Err((mismatch, 2, 1))
        );
        assert_eq!(
            kind(check_gather(1, 3, None, 0, &lens, 4)),
            Err((mismatch, 5, 4))
        );
        assert_eq!(
            kind(check_gather(0, 2, None, 1, &[1, usize::MAX], 0)),
            Err((mismatch, usize::MAX, usize::MAX))
        );
    }

    #[test]
    fn place_lays_messages_end_to_end() {
        let lens = [2, 0, 3];
        assert_eq!([0, 1, 2].map(|r| place(&lens, r)), [0..2, 2..2, 2..5]);
    }
}
