//! The curls a component's tensor nodes average, each taken once per pass.
//!
//! A tensor node of `a` averages the curl of each other component `b` over the four nodes of
//! `b` around it ([`crate::tensor_nodes`], Kottke, Farjadpour & Johnson 2008, sec. III), and
//! the nodes of a smoothed surface lie next to one another: a node of `b` is a neighbour of up
//! to four nodes of `a`, which took its curl each. Here each such node of `b` is listed once,
//! and each node of `a` refers to its four by position in that list, so that a pass takes the
//! curls of the listed nodes its nodes need into a scratch array, then each node sums its four
//! from there. A curl is the same expression of the same values whichever node asks for it
//! (the other field does not change during the pass), so the bits are those of the curls taken
//! node by node.
//!
//! The list is in order of first use by the nodes in the order of a pass ([`crate::tensor_nodes`]'
//! rows, z then y): the curls the nodes of a run of that order need then lie in one stretch of
//! it, from the first use by any later node to the last first use by the run, both kept per
//! position ([`SharedCurls::needed`]).

use alloc::vec;
use alloc::vec::Vec;

/// The nodes of one other component `b` whose curls the tensor nodes of a component `a` read,
/// each once (module docs).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SharedCurls {
    /// The storage offsets of the nodes of `b`, in order of first use.
    pub offsets: Vec<usize>,
    /// Per node of `a` in pass order, the positions in `offsets` of its four neighbours of `b`
    /// in neighbour order ([`neighbours`]); `u32::MAX` for a neighbour that does not evolve.
    pub refs: Vec<[u32; 4]>,
    /// Per position `p` in pass order (and one past the last), how many offsets the nodes
    /// before `p` use: every node before `p` refers below it.
    first_after: Vec<u32>,
    /// Per position `p` in pass order (and one past the last, `u32::MAX`), the lowest position
    /// in `offsets` a node at `p` or later refers to.
    lowest_from: Vec<u32>,
}

impl SharedCurls {
    /// The shared curls of another component for nodes at storage `offsets` (in pass order),
    /// whose four neighbours of that component lie at `around` from each (storage offsets in
    /// neighbour order, from `crate::tensor_nodes::neighbour_offsets`); `present(p, n)` says
    /// whether neighbour `n` of the node at `p` evolves.
    pub fn of(
        around: [isize; 4],
        offsets: impl Iterator<Item = usize>,
        present: impl Fn(usize, usize) -> bool,
    ) -> Self {
        let mut out = SharedCurls::default();
        let mut position = alloc::collections::BTreeMap::new();
        for (p, offset) in offsets.enumerate() {
            out.first_after.push(out.offsets.len() as u32);
            let refs = core::array::from_fn(|n| {
                if !present(p, n) {
                    return u32::MAX;
                }
                let at = offset.wrapping_add_signed(around[n]);
                *position.entry(at).or_insert_with(|| {
                    out.offsets.push(at);
                    (out.offsets.len() - 1) as u32
                })
            });
            out.refs.push(refs);
        }
        out.first_after.push(out.offsets.len() as u32);
        out.lowest_from = vec![u32::MAX; out.refs.len() + 1];
        for p in (0..out.refs.len()).rev() {
            let own = out.refs[p].iter().copied().min().unwrap_or(u32::MAX);
            out.lowest_from[p] = own.min(out.lowest_from[p + 1]);
        }
        out
    }

    /// The stretch of `offsets` that holds every curl the nodes at positions `span` (pass
    /// order) read: from the lowest any of them, or a later node, refers to, to the last
    /// first used before the span's end.
    pub fn needed(&self, span: core::ops::Range<usize>) -> core::ops::Range<usize> {
        if span.is_empty() || self.refs.is_empty() {
            return 0..0;
        }
        let end = self.first_after[span.end] as usize;
        let start = (self.lowest_from[span.start] as usize).min(end);
        start..end
    }
}

/// The scratch a pass takes the shared curls into, one pair of arrays (one per other axis)
/// per run of nodes the pass hands out ([`crate::tensor_update::TensorRun`]), kept between
/// passes so a step allocates nothing. It holds no state of the run: clones start empty and
/// any two compare equal.
#[derive(Debug, Default)]
pub struct CurlScratch<T>(pub Vec<[Vec<T>; 3]>);

impl<T> Clone for CurlScratch<T> {
    fn clone(&self) -> Self {
        CurlScratch(Vec::new())
    }
}

impl<T> PartialEq for CurlScratch<T> {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}
