//! Fork-join parallelism that a caller lends the partitioners: the core starts no thread and
//! reads no clock, so a driver with threads (the runtime's rayon pool) implements [`Fork`]
//! and passes it in; [`Sequential`] runs both branches on the calling thread. Work is cut
//! at fixed points that depend on the input alone (never on the number of threads), and
//! every branch writes only its own results, so a partition is the same whoever runs the
//! branches (issue 53: partitions in parallel, bit-identical on any number of threads). This
//! is the fork-join model of Blumofe & Leiserson (1999, "Scheduling multithreaded
//! computations by work stealing"), which rayon's `join` implements.

use alloc::vec::Vec;
use core::ops::Range;

/// Runs two independent computations, possibly at once.
pub trait Fork: Sync {
    /// Runs `a` and `b` (in either order, or side by side) and returns both results.
    fn join<A: Send, B: Send>(
        &self,
        a: impl FnOnce() -> A + Send,
        b: impl FnOnce() -> B + Send,
    ) -> (A, B);

    /// Whether branches may run at once (more than one thread): a hint for work that pays
    /// only side by side (speculation, [`super::rcdc`]'s V-cycles); no result depends on it.
    fn side_by_side(&self) -> bool;

    /// Runs `f`, at most one such call at a time among the computations sharing this fork's
    /// threads (the others calling it wait, doing the threads' other work meanwhile). The
    /// core wraps its peaks of memory in it (the contractions of a graph above
    /// [`super::coarsen::REBUILD_NODES`] nodes), so work side by side (RCDC's tries in
    /// lanes) adds one peak, not one each; `f` must not call it again. No result depends on
    /// it; by default it runs `f`.
    fn one_at_a_time<R>(&self, f: impl FnOnce() -> R) -> R {
        f()
    }
}

/// Both branches on the calling thread, `a` first.
#[derive(Clone, Copy, Debug, Default)]
pub struct Sequential;

impl Fork for Sequential {
    fn join<A: Send, B: Send>(
        &self,
        a: impl FnOnce() -> A + Send,
        b: impl FnOnce() -> B + Send,
    ) -> (A, B) {
        let a = a();
        (a, b())
    }

    fn side_by_side(&self) -> bool {
        false
    }
}

/// `f` on the chunks of `range`, in order: the range is halved until a piece holds at most
/// `grain` items (the pieces depend on `range` and `grain` alone), the halves run through
/// `fork`, and the results come back in the order of their pieces.
pub fn map_chunks<F: Fork, T: Send>(
    fork: &F,
    range: Range<usize>,
    grain: usize,
    f: &(impl Fn(Range<usize>) -> T + Sync),
) -> Vec<T> {
    if range.len() <= grain.max(1) {
        return alloc::vec![f(range)];
    }
    let mid = range.start + range.len() / 2;
    let (mut low, high) = fork.join(
        || map_chunks(fork, range.start..mid, grain, f),
        || map_chunks(fork, mid..range.end, grain, f),
    );
    low.extend(high);
    low
}

/// `f` on the consecutive chunks of `data` of `chunk` items each (the last may be shorter;
/// one chunk, all of `data`, when `chunk` is 0), given each chunk's number, side by side
/// through `fork`; the results in the order of the chunks. Each call writes only its own
/// chunk, so the outcome is the same however the calls run.
pub fn map_chunks_mut<F: Fork, E: Send, T: Send>(
    fork: &F,
    data: &mut [E],
    chunk: usize,
    f: &(impl Fn(usize, &mut [E]) -> T + Sync),
) -> Vec<T> {
    let chunks = if chunk == 0 {
        1
    } else {
        data.len().div_ceil(chunk).max(1)
    };
    map_chunks_mut_from(fork, data, 0, chunks, chunk, f)
}

/// [`map_chunks_mut`] on `chunks` chunks of `data`, numbered from `first`.
fn map_chunks_mut_from<F: Fork, E: Send, T: Send>(
    fork: &F,
    data: &mut [E],
    first: usize,
    chunks: usize,
    chunk: usize,
    f: &(impl Fn(usize, &mut [E]) -> T + Sync),
) -> Vec<T> {
    if chunks <= 1 {
        return alloc::vec![f(first, data)];
    }
    let half = chunks / 2;
    let (low_data, high_data) = data.split_at_mut(half * chunk);
    let (mut low, high) = fork.join(
        || map_chunks_mut_from(fork, low_data, first, half, chunk, f),
        || map_chunks_mut_from(fork, high_data, first + half, chunks - half, chunk, f),
    );
    low.extend(high);
    low
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_cover_the_range_in_order_whatever_the_grain() {
        for (len, grain) in [(0, 4), (1, 4), (10, 3), (17, 1), (64, 64), (65, 8)] {
            let pieces = map_chunks(&Sequential, 5..5 + len, grain, &|r| r);
            let mut next = 5;
            for r in &pieces {
                assert_eq!(r.start, next);
                assert!(r.len() <= grain.max(1) && (len == 0 || !r.is_empty()));
                next = r.end;
            }
            assert_eq!(next, 5 + len);
        }
    }

    #[test]
    fn mutable_chunks_are_numbered_in_order_and_cover_the_data() {
        for (len, chunk) in [(0, 4), (1, 4), (10, 3), (12, 3), (7, 0), (5, 1)] {
            let mut data = alloc::vec![0usize; len];
            let sizes = map_chunks_mut(&Sequential, &mut data, chunk, &|i, c: &mut [usize]| {
                c.iter_mut().for_each(|x| *x = i);
                c.len()
            });
            let expected: Vec<usize> = (0..len)
                .map(|k| k.checked_div(chunk).unwrap_or(0))
                .collect();
            assert_eq!(data, expected, "{len} in chunks of {chunk}");
            assert_eq!(sizes.iter().sum::<usize>(), len);
            assert!(sizes[..sizes.len() - 1].iter().all(|&s| s == chunk));
        }
    }
}
