//! What ranks hand over at an output step: each rank's [`Piece`] (its owned box and its part of
//! each component), and the whole fields [`Assembled`] from every rank's piece.

use yee_core::{Box3, Index3, Scalar};
use yee_em::{Component, Mode, Setup, YeeFields};
pub use yee_scalar::decomposed::Piece;
use yee_scalar::decomposed::{RankOutput, assemble, owned_fields};

/// Whole fields at one step, assembled from every rank's piece.
#[derive(Clone, Debug)]
pub struct Assembled<T> {
    /// Grid extent.
    pub grid: [usize; 3],
    /// Mode.
    pub mode: Mode,
    /// Each component over the grid (x fastest), `None` where the mode lacks it.
    pub fields: [Option<Vec<T>>; 6],
}

impl<T: Scalar> Assembled<T> {
    /// The value of `c` at `cell` (zero for absent components).
    pub fn value(&self, c: Component, cell: Index3) -> T {
        self.fields[c.index()].as_ref().map_or(T::zero(), |f| {
            f[Box3::from_extent(self.grid).linear_index(cell)]
        })
    }
}

/// This rank's owned box and its part of each component, read back from its chunk.
pub fn piece_of<C: YeeFields<Error: std::fmt::Debug>>(
    chunk: &mut C,
) -> Result<Piece<C::Value>, String> {
    owned_fields(chunk).map_err(|e| format!("reading the fields back: {e:?}"))
}

/// Rank 0's end of an output step: whole fields from the pieces, or the first rank's error
/// reading its fields back (logged; that output is skipped and the run goes on).
pub fn finish_output<P>(step: u64, pieces: Vec<Result<P, String>>, write: impl FnOnce(Vec<P>)) {
    match pieces.into_iter().collect::<Result<Vec<P>, String>>() {
        Ok(pieces) => write(pieces),
        Err(e) => log::error!("the output of step {step} is skipped: {e}"),
    }
}

/// Whole fields from every rank's piece.
pub fn assemble_pieces<T: Scalar>(setup: &Setup, pieces: Vec<Piece<T>>) -> Assembled<T> {
    let outputs: Vec<RankOutput<T>> = pieces
        .into_iter()
        .enumerate()
        .map(|(rank, (owned, fields))| RankOutput {
            fields,
            ..RankOutput::empty(rank, owned)
        })
        .collect();
    Assembled {
        grid: setup.grid,
        mode: setup.mode,
        fields: Component::ALL.map(|c| assemble(&outputs, setup.grid, c)),
    }
}
