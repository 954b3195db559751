//! The runs of one material along a row of several: recorded when the chunk was built
//! ([`RowRuns`]), or scanned from the ids where the row was cut too finely to record.

use yee_scalar::row_runs::Run;

/// The runs `(start, end, id)` of cells `a..b` of a storage row: the recorded ones clipped to
/// `a..b`, or scanned from the ids ([`id_runs`]) where none were recorded.
pub(crate) enum Runs<'a> {
    /// Recorded when the chunk was built, in order along the row.
    Known {
        runs: core::slice::Iter<'a, Run>,
        a: usize,
        b: usize,
    },
    /// Scanned from the row's ids.
    Scanned(IdRuns<'a>),
}

impl<'a> Runs<'a> {
    /// The runs of cells `a..b` of the row whose recorded runs are `known` (empty if none were
    /// recorded) and whose ids are `ids` (the row's, from its first cell).
    #[inline(always)]
    pub(crate) fn of(known: &'a [Run], ids: &'a [u16], (a, b): (usize, usize)) -> Self {
        if known.is_empty() {
            Runs::Scanned(id_runs(&ids[..b], a))
        } else {
            Runs::Known {
                runs: known.iter(),
                a,
                b,
            }
        }
    }
}

impl Iterator for Runs<'_> {
    type Item = (usize, usize, u16);

    #[inline(always)]
    fn next(&mut self) -> Option<Self::Item> {
        match self {
            Runs::Known { runs, a, b } => loop {
                let run = runs.next()?;
                let (start, end) = ((run.start as usize).max(*a), (run.end as usize).min(*b));
                if start >= *b {
                    return None;
                }
                if start < end {
                    return Some((start, end, run.id));
                }
            },
            Runs::Scanned(scan) => scan.next(),
        }
    }
}

/// How many ids from the start of `ids` equal `id`: 16 at a time as a bit mask of the
/// differing ones (vector compares; a sphere's rows hold runs of 10–100 cells), the first set
/// bit giving the end, then the last few one by one.
#[inline(always)]
fn run_length(ids: &[u16], id: u16) -> usize {
    let mut n = 0;
    for block in ids.chunks_exact(16) {
        let differing = block
            .iter()
            .enumerate()
            .fold(0u32, |mask, (k, &i)| mask | (u32::from(i != id) << k));
        if differing != 0 {
            return n + differing.trailing_zeros() as usize;
        }
        n += 16;
    }
    n + ids[n..].iter().take_while(|&&i| i == id).count()
}

/// The runs of equal ids in `ids[a..]`: `(start, end, id)` with `ids[start..end]` all `id`.
#[inline(always)]
pub(crate) fn id_runs(ids: &[u16], a: usize) -> IdRuns<'_> {
    IdRuns { ids, start: a }
}

/// The iterator of [`id_runs`]: a named type whose `next` is inlined into the
/// multiversioned sweep (an out-of-line closure is compiled for the baseline target only).
pub(crate) struct IdRuns<'a> {
    ids: &'a [u16],
    start: usize,
}

impl Iterator for IdRuns<'_> {
    type Item = (usize, usize, u16);

    #[inline(always)]
    fn next(&mut self) -> Option<Self::Item> {
        let start = self.start;
        let id = *self.ids.get(start)?;
        let end = start + run_length(&self.ids[start..], id);
        self.start = end;
        Some((start, end, id))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recorded_runs_are_clipped_to_the_cells_asked_for() {
        let run = |start, end, id| Run { start, end, id };
        let known = [run(2, 5, 0), run(5, 6, 7), run(6, 12, 0)];
        let ids = [9u16; 14];
        let runs: Vec<_> = Runs::of(&known, &ids, (3, 8)).collect();
        assert_eq!(runs, [(3, 5, 0), (5, 6, 7), (6, 8, 0)]);
        let runs: Vec<_> = Runs::of(&known, &ids, (6, 12)).collect();
        assert_eq!(runs, [(6, 12, 0)]);
        // Nothing recorded: the ids are scanned.
        let runs: Vec<_> = Runs::of(&[], &ids, (3, 8)).collect();
        assert_eq!(runs, [(3, 8, 9)]);
    }

    #[test]
    fn id_runs_cover_the_row_in_maximal_runs_across_block_edges() {
        // Runs ending inside, at and across the 16-id blocks, and a last short one.
        let mut ids = vec![3u16; 15];
        ids.extend([4; 17]);
        ids.extend([3; 40]);
        ids.extend([5; 3]);
        let runs: Vec<_> = id_runs(&ids, 0).collect();
        assert_eq!(runs, [(0, 15, 3), (15, 32, 4), (32, 72, 3), (72, 75, 5)]);
        assert_eq!(id_runs(&ids, 20).next(), Some((20, 32, 4)));
        assert_eq!(id_runs(&ids, 75).next(), None);
        for (a, b, id) in runs {
            assert!(ids[a..b].iter().all(|&i| i == id));
        }
    }
}
