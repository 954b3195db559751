//! The order in which a sum over ranks is accumulated: a fixed binary tree over rank index
//! (issue 53).
//!
//! Floating-point addition is not associative, so a sum over N ranks has the bits of one
//! parenthesization. The balancer's sums over the ranks (eq. (21)'s line performances, S of
//! eq. (12), the mean performance of the measured ranks) all use this one, whether one rank
//! computes them from every rank's values ([`crate::balance::Balancer::decide`]) or the ranks
//! reduce them ([`crate::comm::Comm::all_reduce`], a binomial tree over rank index that takes
//! ⌈log₂ N⌉ message latencies, where summing in rank order took a chain of N − 1):
//!
//! the sum over the ranks `lo .. lo + 2ᵏ` (`lo` a multiple of 2ᵏ) is the sum over the lower half
//! plus the sum over the upper half, `S(lo, 2ᵏ) = S(lo, 2ᵏ⁻¹) + S(lo + 2ᵏ⁻¹, 2ᵏ⁻¹)`; ranks at or
//! past N, and ranks that contribute nothing to this sum (those off a line), count as 0, and
//! `x + 0 = x` exactly, so the sum is that of the members alone in this tree. The whole sum is
//! `S(0, 2^⌈log₂ N⌉)`. (It is pairwise summation over aligned blocks, Higham 1993, SIAM J. Sci.
//! Comput. 14(4): its rounding error grows like log₂ N, where the chain's grew like N.)
//!
//! A sum of exactly zero may come out as +0 where the dense tree of zeros would give it, or
//! −0 where every member is −0; every other value is the dense tree's bit for bit.

use alloc::vec::Vec;

/// A sum over ranks in the tree order of this module, fed its members in increasing rank
/// order: O(1) amortized per member, O(log N) memory.
///
/// It keeps the sums of the completed blocks still waiting for their upper neighbours, each
/// with the first rank of its block; a member past the block a kept sum shares with the
/// previous member closes that block's lower half, whose kept sums are combined upper ones
/// first (`E₁ + (E₂ + E₃)`: the upper halves are summed before they are added to the lower).
#[derive(Clone, Debug, Default)]
pub struct TreeSum {
    /// (first rank, sum) of the open blocks, lowest rank first.
    open: Vec<(usize, f64)>,
    /// The last member added.
    last: Option<usize>,
}

impl TreeSum {
    /// An empty sum.
    pub fn new() -> Self {
        TreeSum::default()
    }

    /// Adds `value` of `rank`, which must be above every rank added before (a rank not above
    /// the last one is a caller's bug: it panics in debug builds).
    pub fn add(&mut self, rank: usize, value: f64) {
        if let Some(last) = self.last {
            debug_assert!(rank > last, "TreeSum: rank {rank} after {last}");
            // The smallest aligned block holding both: `last` is in its lower half and `rank`
            // in its upper, so that lower half is complete.
            let level = usize::BITS - (last ^ rank).leading_zeros();
            let start = match level < usize::BITS {
                true => (rank >> level) << level,
                false => 0,
            };
            self.close_from(start);
        }
        self.open.push((rank, value));
        self.last = Some(rank);
    }

    /// Combines the open sums of the blocks at or above rank `start` into one.
    fn close_from(&mut self, start: usize) {
        let Some((mut first, mut sum)) = self.open.pop() else {
            return;
        };
        while let Some(&(lo, lower)) = self.open.last() {
            if lo < start {
                break;
            }
            self.open.pop();
            (first, sum) = (lo, lower + sum);
        }
        self.open.push((first, sum));
    }

    /// The sum (0 with no member).
    pub fn total(mut self) -> f64 {
        self.close_from(0);
        self.open.first().map_or(0.0, |&(_, s)| s)
    }
}

/// The sum of `values` (rank r's at `values[r]`) in the tree order of this module. O(N).
pub fn tree_sum(values: &[f64]) -> f64 {
    let mut sum = TreeSum::new();
    for (r, &v) in values.iter().enumerate() {
        sum.add(r, v);
    }
    sum.total()
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    /// The tree of the module's doc, written out: the dense blocks, zeros included.
    fn by_blocks(values: &[f64]) -> f64 {
        let mut level: Vec<f64> = values.to_vec();
        if level.is_empty() {
            return 0.0;
        }
        while level.len() > 1 {
            level = level
                .chunks(2)
                .map(|p| {
                    if p.len() == 2 {
                        p[0] + p[1]
                    } else {
                        p[0] + 0.0
                    }
                })
                .collect();
        }
        level[0]
    }

    #[test]
    fn the_sum_is_the_tree_of_aligned_blocks() {
        // 1 + ε/2 + ε/2 + …: in rank order every half ulp rounds away (ties to even); in the
        // tree, the halves pair up first. Six values: ((1 + h) + (h + h)) + (h + h).
        let h = f64::EPSILON / 2.0;
        let six = [1.0, h, h, h, h, h];
        assert_eq!(tree_sum(&six), (1.0 + h + (h + h)) + (h + h));
        assert_eq!(tree_sum(&six), 1.0 + 2.0 * f64::EPSILON);
        assert_eq!(six.iter().fold(0.0, |s, v| s + v), 1.0);
        assert_eq!(tree_sum(&[]), 0.0);
        assert_eq!(tree_sum(&[3.5]), 3.5);
    }

    #[test]
    fn members_alone_sum_as_the_dense_tree_with_zeros() {
        // Random positive values on random subsets of up to 70 ranks: the sparse sum of the
        // members equals the dense block tree with 0 for every other rank, bit for bit.
        let mut state = 0x2545_F491_4F6C_DD1Du64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for _ in 0..2000 {
            let n = (next() % 70) as usize;
            let mut dense = vec![0.0; n];
            let mut sparse = TreeSum::new();
            for (r, d) in dense.iter_mut().enumerate() {
                if next() % 3 != 0 {
                    let v = 1.0 + (next() >> 11) as f64 / (1u64 << 40) as f64;
                    *d = v;
                    sparse.add(r, v);
                }
            }
            assert_eq!(
                sparse.total().to_bits(),
                by_blocks(&dense).to_bits(),
                "{dense:?}"
            );
            assert_eq!(tree_sum(&dense).to_bits(), by_blocks(&dense).to_bits());
        }
    }
}
