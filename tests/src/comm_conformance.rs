//! The behaviour every [`Comm`] owes its callers, written once and run by every rank of every
//! communicator: `tests/comm_conformance.rs` runs it on the simulated and shared-memory ones,
//! the `mpi_conformance` binary (feature `mpi`) under `mpirun`. Each check is collective (every
//! rank calls it, in the same order) and returns `Err` with what this rank saw.
//!
//! A check that provokes an error leaves no message behind, so the checks run in any order on
//! one communicator, as [`run_suite`] does.

use std::time::Duration;

use yee_core::comm::{gather_by_exchange, gather_lens_by_exchange};
use yee_core::decomposition::{rank_coords, rank_of};
use yee_core::tree_sum::tree_sum;
use yee_core::{
    Axis, Comm, CommError, CommErrorKind, Direction, Incoming, Outgoing, Route, Topology,
};

/// What a communicator can notice; the checks of what it cannot are left out of [`run_suite`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Abilities {
    /// A message longer than its receive is a [`CommErrorKind::SizeMismatch`]. MPI cannot say:
    /// with the default error handler `MPI_ERR_TRUNCATE` aborts the job (MPI 3.1 §3.2.4), and
    /// rsmpi has no safe way to install another.
    pub longer_message: bool,
    /// An `all_gather` where ranks contribute different lengths is an error on every rank.
    /// For MPI it is erroneous, unchecked, usage (MPI 3.1 §5.7: the amounts must match).
    pub unequal_all_gather: bool,
    /// A gather where ranks disagree on a length is a [`CommErrorKind::SizeMismatch`] where
    /// the message arrives. For MPI it is erroneous, unchecked, usage (MPI 3.1 §5.5: the
    /// amount sent must equal the amount the root receives).
    pub disagreeing_gather: bool,
    /// A receive that never comes ends in [`CommErrorKind::Timeout`] (or `PeerLost`) after
    /// the communicator's timeout, which the caller has set short. MPI waits forever.
    pub timeout: bool,
}

impl Abilities {
    /// Everything: the in-process communicators see every mistake.
    pub const ALL: Abilities = Abilities {
        longer_message: true,
        unequal_all_gather: true,
        disagreeing_gather: true,
        timeout: true,
    };

    /// What MPI sees (see each field for why not the rest).
    pub const MPI: Abilities = Abilities {
        longer_message: false,
        unequal_all_gather: false,
        disagreeing_gather: false,
        timeout: false,
    };
}

/// The checks, by name, so that a runner in another process (the MPI binary) and its test
/// agree on what runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Check {
    /// [`check_identity`].
    Identity,
    /// [`check_routes_do_not_mix`].
    RoutesDoNotMix,
    /// [`check_successive_exchanges_do_not_mix`].
    SuccessiveExchangesDoNotMix,
    /// [`check_overlap_runs_once`].
    OverlapRunsOnce,
    /// [`check_size_mismatch`] with a shorter message.
    ShorterMessage,
    /// [`check_size_mismatch`] with a longer message.
    LongerMessage,
    /// [`check_missing_message_times_out`].
    MissingMessageTimesOut,
    /// [`check_all_gather_order`].
    AllGatherOrder,
    /// [`check_all_gather_wrong_buffer`].
    AllGatherWrongBuffer,
    /// [`check_all_gather_unequal_lengths`].
    AllGatherUnequalLengths,
    /// [`check_gather_lens`].
    GatherLens,
    /// [`check_gather_bytes`].
    GatherBytes,
    /// [`check_gather_empty`].
    GatherEmpty,
    /// [`check_all_gather_bytes`].
    AllGatherBytes,
    /// [`check_gathers_by_exchange`].
    GathersByExchange,
    /// [`check_gather_vecs`].
    GatherVecs,
    /// [`check_gather_misuse`].
    GatherMisuse,
    /// [`check_gather_disagreeing_lengths`].
    GatherDisagreeingLengths,
    /// [`check_all_reduce_in_tree_order`].
    AllReduceInTreeOrder,
}

impl Check {
    /// Every check, in the order [`run_suite`] runs them.
    pub const ALL: [Check; 19] = [
        Check::Identity,
        Check::RoutesDoNotMix,
        Check::SuccessiveExchangesDoNotMix,
        Check::OverlapRunsOnce,
        Check::ShorterMessage,
        Check::LongerMessage,
        Check::MissingMessageTimesOut,
        Check::AllGatherOrder,
        Check::AllGatherWrongBuffer,
        Check::AllGatherUnequalLengths,
        Check::GatherLens,
        Check::GatherBytes,
        Check::GatherEmpty,
        Check::AllGatherBytes,
        Check::GathersByExchange,
        Check::GatherVecs,
        Check::GatherMisuse,
        Check::GatherDisagreeingLengths,
        Check::AllReduceInTreeOrder,
    ];

    /// Whether a communicator of `abilities` can pass it.
    pub fn applies(self, abilities: Abilities) -> bool {
        match self {
            Check::LongerMessage => abilities.longer_message,
            Check::MissingMessageTimesOut => abilities.timeout,
            Check::AllGatherUnequalLengths => abilities.unequal_all_gather,
            Check::GatherDisagreeingLengths => abilities.disagreeing_gather,
            _ => true,
        }
    }

    /// Runs it on this rank.
    pub fn run<M: Comm>(self, comm: &mut M) -> Result<(), String> {
        match self {
            Check::Identity => check_identity(comm),
            Check::RoutesDoNotMix => check_routes_do_not_mix(comm),
            Check::SuccessiveExchangesDoNotMix => check_successive_exchanges_do_not_mix(comm),
            Check::OverlapRunsOnce => check_overlap_runs_once(comm),
            Check::ShorterMessage => check_size_mismatch(comm, Mismatch::Shorter),
            Check::LongerMessage => check_size_mismatch(comm, Mismatch::Longer),
            Check::MissingMessageTimesOut => check_missing_message_times_out(comm),
            Check::AllGatherOrder => check_all_gather_order(comm),
            Check::AllGatherWrongBuffer => check_all_gather_wrong_buffer(comm),
            Check::AllGatherUnequalLengths => check_all_gather_unequal_lengths(comm),
            Check::GatherLens => check_gather_lens(comm),
            Check::GatherBytes => check_gather_bytes(comm),
            Check::GatherEmpty => check_gather_empty(comm),
            Check::AllGatherBytes => check_all_gather_bytes(comm),
            Check::GathersByExchange => check_gathers_by_exchange(comm),
            Check::GatherVecs => check_gather_vecs(comm),
            Check::GatherMisuse => check_gather_misuse(comm),
            Check::GatherDisagreeingLengths => check_gather_disagreeing_lengths(comm),
            Check::AllReduceInTreeOrder => check_all_reduce_in_tree_order(comm),
        }
    }
}

/// The checks a communicator of `abilities` runs, in order.
pub fn suite(abilities: Abilities) -> impl Iterator<Item = Check> {
    Check::ALL.into_iter().filter(move |c| c.applies(abilities))
}

/// Runs every check of [`suite`] in order, on one communicator, and returns each one's
/// outcome.
pub fn run_suite<M: Comm>(comm: &mut M, abilities: Abilities) -> Vec<(Check, Result<(), String>)> {
    suite(abilities).map(|c| (c, c.run(comm))).collect()
}

/// `Ok` if `got` failed with one of `kinds`.
fn expect_error<T, E: CommError>(
    what: &str,
    got: Result<T, E>,
    kinds: &[CommErrorKind],
) -> Result<(), String> {
    match got {
        Ok(_) => Err(format!(
            "{what}: succeeded, expected an error of kind {kinds:?}"
        )),
        Err(e) if kinds.contains(&e.kind()) => Ok(()),
        Err(e) => Err(format!("{what}: {e:?}, expected kind {kinds:?}")),
    }
}

fn ok<T, E: CommError>(what: &str, got: Result<T, E>) -> Result<T, String> {
    got.map_err(|e| format!("{what}: {e:?}"))
}

/// Bytes that name their message: a different `seed` differs in every byte (251 is prime and
/// each seed value moves the byte by at least one step).
pub fn pattern(seed: [usize; 4], len: usize) -> Vec<u8> {
    let h = seed.iter().fold(0usize, |h, &s| (h * 131 + s + 1) % 251);
    (0..len).map(|i| ((h + i * 29) % 251) as u8).collect()
}

/// Rank, size, topology and coordinates agree with each other and with yee's numbering
/// (x fastest), and the ranks sit at distinct coordinates.
pub fn check_identity<M: Comm>(comm: &mut M) -> Result<(), String> {
    let (rank, size, shape, coords) = (comm.rank(), comm.size(), comm.topology(), comm.coords());
    if size != shape.iter().product::<usize>() || rank >= size {
        return Err(format!("rank {rank} of {size} in topology {shape:?}"));
    }
    let topology = Topology(shape);
    if coords != rank_coords(rank, topology) || rank_of(coords, topology) != rank {
        return Err(format!("rank {rank} at {coords:?} in {shape:?}"));
    }
    let mine = [
        rank as f64,
        coords[0] as f64,
        coords[1] as f64,
        coords[2] as f64,
    ];
    let mut all = vec![0.0; 4 * size];
    ok(
        "all_gather of coordinates",
        comm.all_gather(&mine, &mut all),
    )?;
    for (r, got) in all.chunks_exact(4).enumerate() {
        let expected = rank_coords(r, topology).map(|c| c as f64);
        if got[0] != r as f64 || got[1..] != expected {
            return Err(format!(
                "rank {r} reports {got:?}, expected rank {r} at {expected:?}"
            ));
        }
    }
    Ok(())
}

/// The routes of the exchange checks (the gather route is reserved).
const ROUTES: [Route; 4] = [
    Route::Halo(Direction::face(Axis::X, true)),
    Route::Halo(Direction::face(Axis::Y, false)),
    Route::Slab,
    Route::Tiles,
];

/// Length of the message from `from` to `to` on route `q` in `round`: 1 to 9 bytes, different
/// for neighbouring routes and rounds so that a mix-up also shows as a size mismatch.
fn message_len(from: usize, to: usize, q: usize, round: usize) -> usize {
    1 + (3 * q + 5 * round + from + 2 * to) % 9
}

/// Every rank sends every rank (itself included) one message on each of four routes in one
/// exchange, and receives them posted in the opposite order (peers and routes reversed): each
/// arrives on its route with its own bytes. Two rounds, with other lengths in the second.
pub fn check_routes_do_not_mix<M: Comm>(comm: &mut M) -> Result<(), String> {
    let (rank, size) = (comm.rank(), comm.size());
    for round in 0..2 {
        let sent: Vec<(usize, usize, Vec<u8>)> = (0..size)
            .flat_map(|p| (0..ROUTES.len()).map(move |q| (p, q)))
            .map(|(p, q)| {
                (
                    p,
                    q,
                    pattern([rank, p, q, round], message_len(rank, p, q, round)),
                )
            })
            .collect();
        let outgoing: Vec<Outgoing<'_>> = sent
            .iter()
            .map(|(p, q, bytes)| Outgoing {
                peer: *p,
                route: ROUTES[*q],
                bytes,
            })
            .collect();
        let mut received: Vec<(usize, usize, Vec<u8>)> = (0..size)
            .rev()
            .flat_map(|p| (0..ROUTES.len()).rev().map(move |q| (p, q)))
            .map(|(p, q)| (p, q, vec![0u8; message_len(p, rank, q, round)]))
            .collect();
        let mut incoming: Vec<Incoming<'_>> = received
            .iter_mut()
            .map(|(p, q, bytes)| Incoming::new(*p, ROUTES[*q], bytes))
            .collect();
        ok(
            &format!("rank {rank}, round {round}: exchange"),
            comm.exchange(&outgoing, &mut incoming, &mut |_| {}),
        )?;
        drop(incoming);
        for (p, q, bytes) in &received {
            if *bytes != pattern([*p, rank, *q, round], bytes.len()) {
                return Err(format!(
                    "rank {rank}, round {round}: {:?} from rank {p} holds {bytes:?}",
                    ROUTES[*q]
                ));
            }
        }
    }
    Ok(())
}

/// Three exchanges in a row on one route, equal lengths: each receive gets the message of its
/// own exchange, not one of the one before or after. Odd ranks dawdle in the overlap, so their
/// predecessor's next message is already there when they receive: a communicator that let it
/// overtake would fail here on content alone.
pub fn check_successive_exchanges_do_not_mix<M: Comm>(comm: &mut M) -> Result<(), String> {
    let (rank, size) = (comm.rank(), comm.size());
    let (next, previous) = ((rank + 1) % size, (rank + size - 1) % size);
    for round in 0..3 {
        let bytes = pattern([rank, next, 9, round], 16);
        let outgoing = [Outgoing {
            peer: next,
            route: Route::Slab,
            bytes: &bytes,
        }];
        let mut got = [0u8; 16];
        let mut incoming = [Incoming::new(previous, Route::Slab, &mut got)];
        let mut dawdle = |_: &mut M| {
            if rank % 2 == 1 {
                std::thread::sleep(Duration::from_millis(20));
            }
        };
        ok(
            &format!("rank {rank}, exchange {round}"),
            comm.exchange(&outgoing, &mut incoming, &mut dawdle),
        )?;
        if got[..] != pattern([previous, rank, 9, round], 16) {
            return Err(format!(
                "rank {rank}, exchange {round}: received {got:?} from rank {previous}"
            ));
        }
    }
    Ok(())
}

/// The overlap closure runs exactly once per exchange, with messages in flight or none, and may
/// use the communicator it is given.
pub fn check_overlap_runs_once<M: Comm>(comm: &mut M) -> Result<(), String> {
    let (rank, size) = (comm.rank(), comm.size());
    let (next, previous) = ((rank + 1) % size, (rank + size - 1) % size);
    for with_messages in [true, false] {
        let bytes = [rank as u8; 8];
        let mut got = [0u8; 8];
        let send = [Outgoing {
            peer: next,
            route: Route::Tiles,
            bytes: &bytes,
        }];
        let mut receive = [Incoming::new(previous, Route::Tiles, &mut got)];
        let (outgoing, incoming): (&[Outgoing<'_>], &mut [Incoming<'_>]) = if with_messages {
            (&send, &mut receive)
        } else {
            (&[], &mut [])
        };
        let mut runs = 0;
        let mut seen_rank = usize::MAX;
        ok(
            &format!("rank {rank}: exchange"),
            comm.exchange(outgoing, incoming, &mut |c| {
                runs += 1;
                seen_rank = c.rank();
            }),
        )?;
        if runs != 1 || seen_rank != rank {
            return Err(format!(
                "rank {rank} (messages: {with_messages}): the overlap ran {runs} times and saw rank {seen_rank}"
            ));
        }
        if with_messages && got != [previous as u8; 8] {
            return Err(format!(
                "rank {rank}: received {got:?} from rank {previous}"
            ));
        }
    }
    Ok(())
}

/// Which way a message disagrees with its receive.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mismatch {
    /// The message is shorter than the receive.
    Shorter,
    /// The message is longer than the receive.
    Longer,
}

/// Every rank sends its successor a 12-byte Slab and an 8-byte Tiles message; the successor
/// expects the Slab one byte shorter or longer than sent, in the same exchange as the Tiles
/// one. The exchange fails with [`CommErrorKind::SizeMismatch`] (no panic, no hang), and the
/// next exchange on both routes gets its own messages: nothing was left behind.
pub fn check_size_mismatch<M: Comm>(comm: &mut M, mismatch: Mismatch) -> Result<(), String> {
    let (rank, size) = (comm.rank(), comm.size());
    let (next, previous) = ((rank + 1) % size, (rank + size - 1) % size);
    let expected_slab = match mismatch {
        Mismatch::Shorter => 13,
        Mismatch::Longer => 11,
    };
    for round in 0..2 {
        let slab = pattern([rank, next, 1, round], 12);
        let tiles = pattern([rank, next, 2, round], 8);
        let outgoing = [
            Outgoing {
                peer: next,
                route: Route::Slab,
                bytes: &slab,
            },
            Outgoing {
                peer: next,
                route: Route::Tiles,
                bytes: &tiles,
            },
        ];
        let mut got_slab = vec![0u8; if round == 0 { expected_slab } else { 12 }];
        let mut got_tiles = [0u8; 8];
        let mut incoming = [
            Incoming::new(previous, Route::Slab, &mut got_slab),
            Incoming::new(previous, Route::Tiles, &mut got_tiles),
        ];
        let result = comm.exchange(&outgoing, &mut incoming, &mut |_| {});
        if round == 0 {
            let what = format!("rank {rank}: a {mismatch:?} message");
            expect_error(&what, result, &[CommErrorKind::SizeMismatch])?;
            continue;
        }
        ok(
            &format!("rank {rank}: the exchange after a mismatch"),
            result,
        )?;
        if got_slab != pattern([previous, rank, 1, 1], 12)
            || got_tiles[..] != pattern([previous, rank, 2, 1], 8)
        {
            return Err(format!(
                "rank {rank}: after a mismatch the next exchange received {got_slab:?} and {got_tiles:?}: a message of the failed exchange was left behind"
            ));
        }
    }
    Ok(())
}

/// Every rank waits for a message its predecessor never sends: the exchange ends with
/// [`CommErrorKind::Timeout`] or [`CommErrorKind::PeerLost`] instead of hanging. The caller
/// sets the communicator's timeout short first.
pub fn check_missing_message_times_out<M: Comm>(comm: &mut M) -> Result<(), String> {
    let (rank, size) = (comm.rank(), comm.size());
    let previous = (rank + size - 1) % size;
    let mut got = [0u8; 4];
    let mut incoming = [Incoming::new(previous, Route::Tiles, &mut got)];
    let result = comm.exchange(&[], &mut incoming, &mut |_| {});
    let what = format!("rank {rank}: a receive that never comes");
    expect_error(
        &what,
        result,
        &[CommErrorKind::Timeout, CommErrorKind::PeerLost],
    )
}

/// `all_gather` puts rank r's values at `r * mine.len()`, for three values and for none.
pub fn check_all_gather_order<M: Comm>(comm: &mut M) -> Result<(), String> {
    let (rank, size) = (comm.rank(), comm.size());
    for n in [3, 0] {
        let value = |r: usize, i: usize| (r * 10 + i) as f64 + 0.25;
        let mine: Vec<f64> = (0..n).map(|i| value(rank, i)).collect();
        let mut all = vec![f64::NAN; n * size];
        ok(
            &format!("rank {rank}: all_gather of {n}"),
            comm.all_gather(&mine, &mut all),
        )?;
        let expected: Vec<f64> = (0..size)
            .flat_map(|r| (0..n).map(move |i| value(r, i)))
            .collect();
        if all != expected {
            return Err(format!(
                "rank {rank}: gathered {all:?}, expected {expected:?}"
            ));
        }
    }
    Ok(())
}

/// `all_reduce` gives every rank each sum accumulated in the tree order over rank index of
/// `yee_core::tree_sum` (the bits of `tree_sum` over the ranks: the values below make the
/// orders of 3 ranks differ, `(x₀ + x₁) + x₂` from `x₀ + (x₁ + x₂)`, and from 4 ranks on the tree
/// `(x₀ + x₁) + (x₂ + x₃)` from the sum in rank order) and each maximum, for sums and maxima
/// together, sums alone, maxima alone and nothing.
pub fn check_all_reduce_in_tree_order<M: Comm>(comm: &mut M) -> Result<(), String> {
    let (rank, size) = (comm.rank(), comm.size());
    // 2^i, then half an ulp of it from every other rank: in rank order each half rounds
    // away (ties to even), summed first two of them make a whole ulp.
    let summand = |r: usize, i: usize| {
        let x0 = f64::from(1u32 << i);
        if r == 0 { x0 } else { f64::EPSILON / 2.0 * x0 }
    };
    let largest = |r: usize, i: usize| -(((r + i) % size) as f64) - 0.5;
    for (sums, maxima) in [(4, 3), (2, 0), (0, 5), (0, 0)] {
        let mut sum: Vec<f64> = (0..sums).map(|i| summand(rank, i)).collect();
        let mut max: Vec<f64> = (0..maxima).map(|i| largest(rank, i)).collect();
        ok(
            &format!("rank {rank}: all_reduce of {sums} sums, {maxima} maxima"),
            comm.all_reduce(&mut sum, &mut max),
        )?;
        let expected_sum: Vec<f64> = (0..sums)
            .map(|i| tree_sum(&(0..size).map(|r| summand(r, i)).collect::<Vec<_>>()))
            .collect();
        let expected_max: Vec<f64> = (0..maxima)
            .map(|i| (0..size).map(|r| largest(r, i)).fold(f64::MIN, f64::max))
            .collect();
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        if bits(&sum) != bits(&expected_sum) || max != expected_max {
            return Err(format!(
                "rank {rank}: all_reduce gave {sum:?} and {max:?}, expected {expected_sum:?} and {expected_max:?}"
            ));
        }
    }
    Ok(())
}

/// An `all_gather` into a buffer one value too short or too long, on every rank, is a
/// [`CommErrorKind::SizeMismatch`] on every rank; the next, right one still works.
pub fn check_all_gather_wrong_buffer<M: Comm>(comm: &mut M) -> Result<(), String> {
    let (rank, size) = (comm.rank(), comm.size());
    let mine = [rank as f64, 0.5];
    for len in [2 * size - 1, 2 * size + 1] {
        let mut all = vec![0.0; len];
        let what = format!("rank {rank}: all_gather of 2 values into {len}");
        expect_error(
            &what,
            comm.all_gather(&mine, &mut all),
            &[CommErrorKind::SizeMismatch],
        )?;
    }
    check_all_gather_order(comm)
}

/// Rank 0 contributes one value more than the others: with several ranks, every rank's
/// `all_gather` fails with [`CommErrorKind::SizeMismatch`], and the next `all_gather` gathers
/// its own values (the failed one left none of its messages behind).
pub fn check_all_gather_unequal_lengths<M: Comm>(comm: &mut M) -> Result<(), String> {
    let (rank, size) = (comm.rank(), comm.size());
    let n = if rank == 0 { 3 } else { 2 };
    let mine = vec![-1.0; n];
    let mut all = vec![0.0; n * size];
    let result = comm.all_gather(&mine, &mut all);
    if size > 1 {
        let what = format!("rank {rank}: all_gather of {n} values while others give another count");
        expect_error(&what, result, &[CommErrorKind::SizeMismatch])?;
    } else {
        ok("all_gather on one rank", result)?;
    }
    check_all_gather_order(comm)
}

/// Length of rank `r`'s message in the gather checks: 0 to 6 bytes, empty on some ranks
/// (rank 2, and rank 0 once `shift` is 5).
fn gather_len(r: usize, shift: usize) -> usize {
    (r * 5 + shift) % 7
}

/// Every rank learns every rank's length.
pub fn check_gather_lens<M: Comm>(comm: &mut M) -> Result<(), String> {
    let (rank, size) = (comm.rank(), comm.size());
    let mut lens = vec![usize::MAX; size];
    ok(
        &format!("rank {rank}: gather_lens"),
        comm.gather_lens(3 * rank + 1, &mut lens),
    )?;
    let expected: Vec<usize> = (0..size).map(|r| 3 * r + 1).collect();
    if lens != expected {
        return Err(format!("rank {rank}: lens {lens:?}, expected {expected:?}"));
    }
    Ok(())
}

/// The messages of every rank at `shift`, concatenated in rank order.
fn gathered(size: usize, shift: usize) -> Vec<u8> {
    (0..size)
        .flat_map(|r| pattern([r, shift, 0, 0], gather_len(r, shift)))
        .collect()
}

/// Which implementation of the variable-size gathers a check calls.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Via {
    /// The communicator's own (an override such as `MPI_Gatherv`, or the default).
    Trait,
    /// The core's point-to-point defaults, [`gather_lens_by_exchange`] and
    /// [`gather_by_exchange`], whatever the communicator overrides: MPI falls back on the
    /// latter for messages beyond 32-bit counts.
    Exchange,
}

/// `gather_lens`, then a gather to `root` (`None`: to every rank) of messages of the lengths
/// of `shift`, some empty. Every receiving rank gets them all in rank order; the buffer of a
/// rank that does not receive stays as it was.
fn gather_and_compare<M: Comm>(
    comm: &mut M,
    root: Option<usize>,
    shift: usize,
    via: Via,
) -> Result<(), String> {
    let (rank, size) = (comm.rank(), comm.size());
    let mine = pattern([rank, shift, 0, 0], gather_len(rank, shift));
    let mut lens = vec![0; size];
    let got_lens = match via {
        Via::Trait => comm.gather_lens(mine.len(), &mut lens),
        Via::Exchange => gather_lens_by_exchange(comm, mine.len(), &mut lens),
    };
    ok(&format!("rank {rank}: gather_lens via {via:?}"), got_lens)?;
    let receives = root.is_none_or(|r| r == rank);
    let untouched = vec![0xEE; 5];
    let mut all = if receives {
        vec![0xEE; lens.iter().sum()]
    } else {
        untouched.clone()
    };
    let what = format!("rank {rank}: gather to {root:?} via {via:?}");
    let result = match (via, root) {
        (Via::Trait, Some(root)) => comm.gather_bytes(root, &mine, &lens, &mut all),
        (Via::Trait, None) => comm.all_gather_bytes(&mine, &lens, &mut all),
        (Via::Exchange, _) => gather_by_exchange(comm, root, &mine, &lens, &mut all),
    };
    ok(&what, result)?;
    let expected = if receives {
        gathered(size, shift)
    } else {
        untouched
    };
    if all != expected {
        return Err(format!("{what}: holds {all:?}, expected {expected:?}"));
    }
    Ok(())
}

/// Root 0, the last rank and a middle one.
fn roots(size: usize) -> Vec<usize> {
    let mut roots = vec![0, size - 1, size / 2];
    roots.dedup();
    roots
}

/// `gather_bytes` to root 0, the last rank and a middle one, with messages of different
/// lengths (some empty): the root gets them all in rank order; the other ranks' buffers stay
/// as they were.
pub fn check_gather_bytes<M: Comm>(comm: &mut M) -> Result<(), String> {
    for (shift, root) in roots(comm.size()).into_iter().enumerate() {
        gather_and_compare(comm, Some(root), shift, Via::Trait)?;
    }
    Ok(())
}

/// A gather of empty messages only, to the last rank: it completes and the root's buffer stays
/// empty.
pub fn check_gather_empty<M: Comm>(comm: &mut M) -> Result<(), String> {
    let (rank, size) = (comm.rank(), comm.size());
    let mut lens = vec![usize::MAX; size];
    ok(
        &format!("rank {rank}: gather_lens"),
        comm.gather_lens(0, &mut lens),
    )?;
    if lens.iter().any(|&l| l != 0) {
        return Err(format!("rank {rank}: lens {lens:?} of empty messages"));
    }
    ok(
        &format!("rank {rank}: empty gather_bytes"),
        comm.gather_bytes(size - 1, &[], &lens, &mut []),
    )?;
    ok(
        &format!("rank {rank}: empty all_gather_bytes"),
        comm.all_gather_bytes(&[], &lens, &mut []),
    )
}

/// `all_gather_bytes` gives every rank every message in rank order, twice in a row with
/// other lengths.
pub fn check_all_gather_bytes<M: Comm>(comm: &mut M) -> Result<(), String> {
    for shift in [3, 5] {
        gather_and_compare(comm, None, shift, Via::Trait)?;
    }
    Ok(())
}

/// The core's exchange-based defaults, called directly: lengths, then a gather to each of the roots of
/// [`check_gather_bytes`], then to every rank. On the in-process communicators it is what
/// the trait methods run; on MPI it is the fallback of the overrides, over MPI's exchange.
pub fn check_gathers_by_exchange<M: Comm>(comm: &mut M) -> Result<(), String> {
    for (shift, root) in roots(comm.size()).into_iter().enumerate() {
        gather_and_compare(comm, Some(root), shift, Via::Exchange)?;
    }
    gather_and_compare(comm, None, 4, Via::Exchange)
}

/// `gather_vecs`: the root gets `Some` of each rank's message in rank order (rank 0 as root
/// is what the yee app's output gathering needs), the others `None`.
pub fn check_gather_vecs<M: Comm>(comm: &mut M) -> Result<(), String> {
    let (rank, size) = (comm.rank(), comm.size());
    for root in [size - 1, 0] {
        let shift = 6;
        let mine = pattern([rank, shift, 0, 0], gather_len(rank, shift));
        let got = ok(
            &format!("rank {rank}: gather_vecs to {root}"),
            comm.gather_vecs(root, &mine),
        )?;
        let expected = (rank == root).then(|| {
            (0..size)
                .map(|r| pattern([r, shift, 0, 0], gather_len(r, shift)))
                .collect::<Vec<_>>()
        });
        if got != expected {
            return Err(format!(
                "rank {rank}, root {root}: got {got:?}, expected {expected:?}"
            ));
        }
    }
    Ok(())
}

/// Gathers whose arguments disagree, alike on every rank (so no rank waits for another): one
/// length too few, a message longer than its length, a wrong buffer where every rank receives,
/// a root out of range. Each is an error of its kind on every rank; a right gather follows.
pub fn check_gather_misuse<M: Comm>(comm: &mut M) -> Result<(), String> {
    let (rank, size) = (comm.rank(), comm.size());
    let mismatch = [CommErrorKind::SizeMismatch];
    let lens = vec![2; size];
    let total = 2 * size;
    let mut all = vec![0u8; total];
    let what = |case: &str| format!("rank {rank}: {case}");
    let mut short = vec![0; size - 1];
    expect_error(
        &what("gather_lens into too few lengths"),
        comm.gather_lens(2, &mut short),
        &mismatch,
    )?;
    expect_error(
        &what("gather_bytes with too few lengths"),
        comm.gather_bytes(0, &[1, 2], &lens[1..], &mut all[2..]),
        &mismatch,
    )?;
    expect_error(
        &what("gather_bytes of 3 bytes announced as 2"),
        comm.gather_bytes(0, &[1, 2, 3], &lens, &mut all),
        &mismatch,
    )?;
    expect_error(
        &what("all_gather_bytes into a buffer one byte short"),
        comm.all_gather_bytes(&[1, 2], &lens, &mut all[1..]),
        &mismatch,
    )?;
    expect_error(
        &what("gather_bytes to a root out of range"),
        comm.gather_bytes(size, &[1, 2], &lens, &mut all),
        &[CommErrorKind::Other],
    )?;
    check_all_gather_bytes(comm)
}

/// Rank 1 believes its message one byte longer than the others do, and sends it so, in a
/// gather to root 0 and in an all-gather: every rank that receives it fails with
/// [`CommErrorKind::SizeMismatch`] and the others succeed, and the gathers after it get their
/// own messages (the failed one left none behind, also from the ranks after rank 1).
pub fn check_gather_disagreeing_lengths<M: Comm>(comm: &mut M) -> Result<(), String> {
    let (rank, size) = (comm.rank(), comm.size());
    if size < 2 {
        return Ok(());
    }
    let liar = 1;
    let shift = 2;
    let mut mine = pattern([rank, shift, 0, 0], gather_len(rank, shift));
    let mut lens = vec![0; size];
    ok(
        &format!("rank {rank}: gather_lens"),
        comm.gather_lens(mine.len(), &mut lens),
    )?;
    if rank == liar {
        mine.push(0);
        lens[liar] += 1;
    }
    for root in [Some(0), None] {
        let receives_from_liar = root.is_none_or(|r| r == rank) && rank != liar;
        let mut all = vec![
            0;
            if root.is_none_or(|r| r == rank) {
                lens.iter().sum()
            } else {
                0
            }
        ];
        let result = match root {
            Some(root) => comm.gather_bytes(root, &mine, &lens, &mut all),
            None => comm.all_gather_bytes(&mine, &lens, &mut all),
        };
        let what = format!("rank {rank}: gather to {root:?} with rank {liar}'s length disputed");
        if receives_from_liar {
            expect_error(&what, result, &[CommErrorKind::SizeMismatch])?;
        } else {
            ok(&what, result)?;
        }
    }
    check_gather_bytes(comm)?;
    check_all_gather_bytes(comm)
}
