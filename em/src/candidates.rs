//! The regions a search for one node looks at: all of a setup's, or only those that can hold
//! the node or reach its voxel ([`crate::row_placement`] lists them per stretch of a row), so
//! that a scene of hundreds of shapes does not test every shape at every node near a surface.
//! Either way the search finds the same: a region left out holds no side of the node, has no
//! surface through it, and does not reach its voxel.

/// The regions a search looks at, by index into the setup's regions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Candidates<'r> {
    /// Every region.
    All,
    /// These regions, in ascending order.
    Only(&'r [usize]),
}

impl<'r> Candidates<'r> {
    /// The indices, ascending, out of `n` regions.
    pub fn iter(self, n: usize) -> CandidateIter<'r> {
        match self {
            Candidates::All => CandidateIter::All(0..n),
            Candidates::Only(list) => CandidateIter::Only(list.iter()),
        }
    }

    /// Those below region `r` (the regions under it, for smoothing against what lies beneath).
    pub fn below(self, r: usize) -> Candidates<'r> {
        match self {
            Candidates::All => Candidates::All,
            Candidates::Only(list) => Candidates::Only(&list[..list.partition_point(|&i| i < r)]),
        }
    }
}

/// The iterator of [`Candidates::iter`].
#[derive(Clone, Debug)]
pub enum CandidateIter<'r> {
    /// `0..n`.
    All(core::ops::Range<usize>),
    /// A list.
    Only(core::slice::Iter<'r, usize>),
}

impl Iterator for CandidateIter<'_> {
    type Item = usize;

    fn next(&mut self) -> Option<usize> {
        match self {
            CandidateIter::All(range) => range.next(),
            CandidateIter::Only(list) => list.next().copied(),
        }
    }
}

impl DoubleEndedIterator for CandidateIter<'_> {
    fn next_back(&mut self) -> Option<usize> {
        match self {
            CandidateIter::All(range) => range.next_back(),
            CandidateIter::Only(list) => list.next_back().copied(),
        }
    }
}
