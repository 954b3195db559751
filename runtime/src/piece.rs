//! What ranks hand over at an output step: each rank's [`Piece`] (its owned box and its part of
//! each component), and the whole fields [`Assembled`] from every rank's piece.

use yee_core::{Box3, Component, Index3, Mode, Scalar, Setup};
use yee_scalar::chunk::CurlExecutor;
use yee_scalar::decomposed::{RankOutput, assemble};

/// One rank's owned box and its part of each component.
pub type Piece<T> = (Box3, [Option<Vec<T>>; 6]);

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

/// This rank's owned box and its part of each component.
pub fn piece_of<T: Scalar, K: CurlExecutor<T>>(chunk: &yee_scalar::YeeChunk<T, K>) -> Piece<T> {
    let owned = chunk.state.owned;
    let fields = Component::ALL.map(|c| {
        chunk.state.field(c).map(|f| {
            let mut out = vec![T::zero(); owned.cells()];
            yee_core::Field::read_box(f, owned, &mut out);
            out
        })
    });
    (owned, fields)
}

/// Whole fields from every rank's piece.
pub fn assemble_pieces<T: Scalar>(setup: &Setup, pieces: Vec<Piece<T>>) -> Assembled<T> {
    let outputs: Vec<RankOutput<T>> = pieces
        .into_iter()
        .enumerate()
        .map(|(rank, (owned, fields))| RankOutput {
            rank,
            owned,
            fields,
            probes: Vec::new(),
            records: Vec::new(),
            diverged: None,
            history: Vec::new(),
            balancer: None,
        })
        .collect();
    Assembled {
        grid: setup.grid,
        mode: setup.mode,
        fields: Component::ALL.map(|c| assemble(&outputs, setup.grid, c)),
    }
}
