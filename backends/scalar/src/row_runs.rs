//! The runs of one material along the storage rows of several: worked out once when a chunk is
//! built, so fast kernels do not scan the per-node ids of a row every step to find where its
//! material changes (a sphere cuts a row into a few long runs and the one- or two-node runs of
//! its smoothed surface).

use alloc::vec::Vec;

/// Cells `start..end` of a storage row (x offsets from the storage box's low corner) whose
/// nodes share material `id`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Run {
    /// The first cell.
    pub start: u32,
    /// One past the last cell.
    pub end: u32,
    /// The material.
    pub id: u16,
}

/// Per storage row, the maximal runs of one material covering its updated cells, recorded for
/// rows of several materials cut into at most [`RowRuns::cap`] runs; empty for the others
/// (rows of one material, rows with nothing to update, rows cut finer, where a kernel reads
/// the ids node by node anyway). At most `12 · (n/16 + 2)` bytes per row of `n` updated cells,
/// so under 1 byte per node beside the ids' 2.
#[derive(Clone, Debug, Default)]
pub struct RowRuns {
    /// Row `r`'s runs are `runs[first[r]..first[r + 1]]`.
    first: Vec<u32>,
    runs: Vec<Run>,
}

impl RowRuns {
    /// The most runs recorded for a row of `n` updated cells.
    pub fn cap(n: usize) -> usize {
        n / 8 + 2
    }

    /// The runs of the `rows` storage rows of `width` cells of `ids`, over cells `a..b` of
    /// each row `r` for which `updated(r)` holds (the rows of several materials).
    pub fn build(
        ids: &[u16],
        width: usize,
        rows: usize,
        (a, b): (usize, usize),
        updated: impl Fn(usize) -> bool,
    ) -> Self {
        let mut first = Vec::with_capacity(rows + 1);
        let mut runs = Vec::new();
        first.push(0);
        // Offsets are stored as u32: a wider row is left to the node-by-node paths.
        let fits = u32::try_from(b).is_ok();
        for r in 0..rows {
            let recorded = runs.len();
            if fits && a < b && updated(r) {
                let row = &ids[r * width..(r + 1) * width];
                let mut start = a;
                while start < b && runs.len() - recorded <= Self::cap(b - a) {
                    let id = row[start];
                    let end = start + row[start..b].iter().take_while(|&&i| i == id).count();
                    runs.push(Run {
                        start: start as u32,
                        end: end as u32,
                        id,
                    });
                    start = end;
                }
                if runs.len() - recorded > Self::cap(b - a) {
                    runs.truncate(recorded);
                }
            }
            first.push(runs.len() as u32);
        }
        RowRuns { first, runs }
    }

    /// The runs of storage row `r`, empty where none were recorded.
    #[inline(always)]
    pub fn of(&self, r: usize) -> &[Run] {
        match (self.first.get(r), self.first.get(r + 1)) {
            (Some(&s), Some(&e)) => &self.runs[s as usize..e as usize],
            _ => &[],
        }
    }

    /// Bytes the runs hold.
    pub fn bytes(&self) -> usize {
        self.first.len() * core::mem::size_of::<u32>() + self.runs.len() * size_of::<Run>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    #[test]
    fn runs_cover_the_updated_cells_of_the_rows_asked_for() {
        // Two rows of 8 cells, cells 1..7 updated; only row 1 asked for.
        let ids = vec![9, 0, 0, 1, 1, 1, 0, 9, 9, 0, 0, 2, 2, 2, 2, 9];
        let runs = RowRuns::build(&ids, 8, 2, (1, 7), |r| r == 1);
        assert_eq!(runs.of(0), &[]);
        let run = |start, end, id| Run { start, end, id };
        assert_eq!(runs.of(1), &[run(1, 3, 0), run(3, 7, 2)]);
        assert_eq!(runs.of(2), &[]);
    }

    #[test]
    fn rows_cut_into_more_runs_than_the_cap_record_none() {
        let n = 32;
        let alternating: Vec<u16> = (0..n).map(|x| (x % 2) as u16).collect();
        let mut ids = alternating.clone();
        // The second row: cap runs exactly.
        let cap = RowRuns::cap(n);
        ids.extend((0..n).map(|x| u16::from(x > n - cap) * x as u16));
        let runs = RowRuns::build(&ids, n, 2, (0, n), |_| true);
        assert_eq!(runs.of(0), &[]);
        assert_eq!(runs.of(1).len(), cap);
        assert_eq!(runs.of(1).last().map(|r| r.end), Some(n as u32));
    }
}
