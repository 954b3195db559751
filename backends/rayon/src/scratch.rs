//! The lists a phase hands its parallel tasks (row batches, ψ shares, DFT rows, dispersive
//! runs, runs of tensor nodes), kept between phases so that stepping allocates nothing (issue 18, build item 3).
//!
//! Each list borrows the state for one phase only, so what is kept is an empty vector of the
//! same element type with the lifetime `'static`: a phase takes it ([`Scratch::take`]; a
//! `Vec<X<'static>>` is a `Vec<X<'a>>`, the borrows being covariant), fills and empties it,
//! and gives it back ([`Scratch::give`], through [`recycle`]), its capacity kept.

use std::any::Any;
use std::sync::Mutex;

/// Empty vectors of any element type, one of each, with their capacity.
#[derive(Default)]
pub(crate) struct Scratch {
    kept: Mutex<Vec<Box<dyn Any + Send>>>,
}

impl Scratch {
    /// The kept `Vec<E>`, empty (a new one the first time).
    pub(crate) fn take<E: Send + 'static>(&self) -> Vec<E> {
        let mut kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        kept.iter_mut()
            .find_map(|v| v.downcast_mut::<Vec<E>>())
            .map(std::mem::take)
            .unwrap_or_default()
    }

    /// Keeps `list`'s allocation for the next [`Scratch::take`] of `Vec<E>`.
    pub(crate) fn give<E: Send + 'static>(&self, list: Vec<E>) {
        let mut kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        match kept.iter_mut().find_map(|v| v.downcast_mut::<Vec<E>>()) {
            Some(slot) => *slot = list,
            None => kept.push(Box::new(list)),
        }
    }
}

/// A fresh, empty scratch: a clone of an executor (another chunk's) shares nothing.
impl Clone for Scratch {
    fn clone(&self) -> Self {
        Scratch::default()
    }
}

impl std::fmt::Debug for Scratch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Scratch")
    }
}

/// `list` emptied, as a vector of `B`, in the same allocation where `A` and `B` have the same
/// size and alignment (a type and its `'static` form): the standard library collects a mapped
/// `vec::IntoIter` in place. Nothing is mapped (the list is empty).
pub(crate) fn recycle<A, B>(mut list: Vec<A>) -> Vec<B> {
    list.clear();
    list.into_iter()
        .map(|_| unreachable!("the list is empty"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_recycled_list_keeps_its_allocation_across_lifetimes() {
        let scratch = Scratch::default();
        let mut values = [1.0f32, 2.0, 3.0];
        let mut list: Vec<&mut [f32]> = scratch.take::<&'static mut [f32]>();
        list.extend(values.chunks_mut(1));
        let (pointer, capacity) = (list.as_ptr() as usize, list.capacity());
        scratch.give::<&'static mut [f32]>(recycle(list));
        let again = scratch.take::<&'static mut [f32]>();
        assert_eq!(
            (again.as_ptr() as usize, again.capacity()),
            (pointer, capacity)
        );
        assert!(again.is_empty());
        // Another element type has a list of its own.
        assert_eq!(scratch.take::<u8>().capacity(), 0);
    }
}
