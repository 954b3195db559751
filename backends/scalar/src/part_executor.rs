//! Where a chunk's set-up runs its independent parts (a chunk's material ids, row after row):
//! one after another, or at once on an executor's threads. Below the state, which is built with
//! it, and the curl executors, which are part executors too.

/// Runs the independent parts of a chunk's set-up ([`crate::YeeState::new_with`]).
pub trait PartExecutor {
    /// Calls `work` on each part of `items` cut into parts of `part` elements (the last may be
    /// shorter), with the part's index, and returns the results in the parts' order: the
    /// set-up's independent parts (a chunk's material ids, row after row). Any order gives the
    /// same results. Default: one part after another, on the caller's thread.
    fn each_part<E: Send, R: Send>(
        &self,
        items: &mut [E],
        part: usize,
        work: impl Fn(usize, &mut [E]) -> R + Sync + Send,
    ) -> alloc::vec::Vec<R> {
        items
            .chunks_mut(part.max(1))
            .enumerate()
            .map(|(i, p)| work(i, p))
            .collect()
    }
}

/// One part after another, on the caller's thread: [`PartExecutor`]'s default.
#[derive(Clone, Copy, Debug, Default)]
pub struct Sequential;

impl PartExecutor for Sequential {}
