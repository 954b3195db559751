//! Disjoint mutable parts of one array handed out in increasing order: how the per-node
//! passes (DFT rows, dispersive runs) give each part its own slices, so that a caller may run
//! the parts in parallel.

/// Splits ranges off a slice, each starting at or after the end of the one before.
pub(crate) struct OrderedSplit<'a, T> {
    rest: &'a mut [T],
    at: usize,
}

impl<'a, T> OrderedSplit<'a, T> {
    /// Ranges of `values`, indexed from its start.
    pub(crate) fn new(values: &'a mut [T]) -> Self {
        OrderedSplit {
            rest: values,
            at: 0,
        }
    }

    /// Elements `from..to` (`from` at or after the end of the previous range).
    pub(crate) fn take(&mut self, from: usize, to: usize) -> &'a mut [T] {
        let (_, tail) = core::mem::take(&mut self.rest).split_at_mut(from - self.at);
        let (part, tail) = tail.split_at_mut(to - from);
        self.rest = tail;
        self.at = to;
        part
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_come_out_in_order_with_gaps_skipped() {
        let mut v = [0, 1, 2, 3, 4, 5, 6, 7];
        let mut split = OrderedSplit::new(&mut v);
        let a = split.take(1, 3);
        let b = split.take(3, 4);
        let c = split.take(6, 8);
        assert_eq!(
            (&a[..], &b[..], &c[..]),
            (&[1, 2][..], &[3][..], &[6, 7][..])
        );
        a[0] = 10;
        c[1] = 70;
        assert_eq!(v, [0, 10, 2, 3, 4, 5, 6, 70]);
    }
}
