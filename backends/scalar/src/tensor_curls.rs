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

use crate::tensor_nodes::neighbours;
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
    /// The shared curls of the other component along `b` for the nodes of a component along
    /// `a` of the `electric` field at storage `offsets` (in pass order);
    /// `present(p, n)` says whether neighbour `n` of the node at `p` evolves, `active` which
    /// axes the mode uses and `strides` the storage strides.
    pub fn of(
        (electric, a, b): (bool, usize, usize),
        offsets: impl Iterator<Item = usize>,
        present: impl Fn(usize, usize) -> bool,
        active: [bool; 3],
        strides: [usize; 3],
    ) -> Self {
        let around = neighbours(electric, a, b, [0; 3], active).map(|q| {
            (0..3)
                .map(|i| q[i] as isize * strides[i] as isize)
                .sum::<isize>()
        });
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

#[cfg(test)]
mod tests {
    use super::*;
    use yee_core::Index3;

    #[test]
    fn a_run_of_nodes_finds_its_curls_in_the_needed_stretch() {
        // Nodes of Ex along a row and a plane above, in a 6 × 5 × 4 storage box; every
        // neighbour present but those of the last node.
        let strides = [1, 6, 30];
        let cells: Vec<(Index3, usize)> = [[1, 1, 1], [2, 1, 1], [3, 2, 1], [1, 1, 2], [2, 2, 2]]
            .iter()
            .map(|&c| (c, (c[0] + 6 * c[1] + 30 * c[2]) as usize))
            .collect();
        for b in [1, 2] {
            let shared = SharedCurls::of(
                (true, 0, b),
                cells.iter().map(|&(_, offset)| offset),
                |p, _| p < 4,
                [true; 3],
                strides,
            );
            // Each node's neighbours are the cells the scheme names, each listed once.
            for (p, &(cell, _)) in cells.iter().enumerate() {
                for (n, q) in neighbours(true, 0, b, cell, [true; 3]).iter().enumerate() {
                    let r = shared.refs[p][n];
                    if p == 4 {
                        assert_eq!(r, u32::MAX);
                        continue;
                    }
                    let offset = (q[0] + 6 * q[1] + 30 * q[2]) as usize;
                    assert_eq!(shared.offsets[r as usize], offset);
                }
            }
            let mut unique = shared.offsets.clone();
            unique.sort_unstable();
            unique.dedup();
            assert_eq!(unique.len(), shared.offsets.len());
            // Neighbours along x share nodes of b: fewer than four a node.
            assert!(shared.offsets.len() < 4 * 4);
            for lo in 0..=cells.len() {
                for hi in lo..=cells.len() {
                    let needed = shared.needed(lo..hi);
                    for p in lo..hi {
                        for &r in shared.refs[p].iter().filter(|&&r| r != u32::MAX) {
                            assert!(needed.contains(&(r as usize)), "{lo}..{hi}: {r}");
                        }
                    }
                }
            }
        }
    }
}
