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
}
