//! The curl executor a chunk runs its phases on ([`CurlExecutor`]): the one part of a step other
//! backends replace, and the scalar reference ([`ScalarCurl`]). It sits above the passes it
//! calls (curl, CPML, tensor nodes, DFT, dispersive) and below the chunk.

use yee_core::{Box3, Scalar, Stencil};

use crate::cpml::CpmlUpdate;
use crate::curl::CurlUpdate;
use crate::dft::accumulate;
use crate::dispersive::{self, Pass};
use crate::part_executor::PartExecutor;
use crate::state::YeeState;
use crate::tensor_update::apply_tensor_nodes;
use crate::time_tile::TimeTile;

/// Executes the curl update of a [`YeeState`]: the one part of a step other backends
/// replace (CPML corrections, sources and halos stay shared). Implementations must give the
/// same bits as [`ScalarCurl`]. An executor runs the set-up's parts too ([`PartExecutor`]).
pub trait CurlExecutor<T: Scalar>: PartExecutor + Clone + core::fmt::Debug + Send + Sync {
    /// Updates the electric (`true`) or magnetic components over `region`.
    fn curl(&self, state: &mut YeeState<T>, electric: bool, region: Box3);

    /// Applies the CPML corrections of the electric or magnetic components over `region`
    /// (after [`CurlExecutor::curl`]). Default: the scalar [`CpmlUpdate`].
    fn cpml(&self, state: &mut YeeState<T>, electric: bool, region: Box3) {
        CpmlUpdate { electric }.apply(state, region, 0);
    }

    /// Adds the off-diagonal part of the update at the tensor nodes of the electric or
    /// magnetic components over `region` (after [`CurlExecutor::cpml`]). Default: one
    /// component after another ([`apply_tensor_nodes`]); any order of its runs of rows gives
    /// the same bits, so an executor may apply each run right after its rows' curl and CPML
    /// update instead ([`crate::tensor_update::for_each_run`]).
    fn tensor(&self, state: &mut YeeState<T>, electric: bool, region: Box3) {
        apply_tensor_nodes(state, electric, region);
    }

    /// Adds the phase's values after step `step` over `region` to the DFT monitors' sums.
    /// Default: row after row ([`accumulate`]); any order of the rows gives the same bits.
    fn dft(&self, state: &mut YeeState<T>, electric: bool, region: Box3, step: u64) {
        accumulate(state, electric, region, step);
    }

    /// Applies `pass` of a dispersive E phase of step `step` over `region`. Default: run after
    /// run ([`dispersive::apply`]); any order of the runs gives the same bits.
    fn dispersive(&self, state: &mut YeeState<T>, pass: Pass, region: Box3, step: u64) {
        dispersive::apply(state, pass, region, step);
    }

    /// The cells of the slabs [`crate::YeeChunk::apply_step`] sweeps a whole step in (H then E, slab
    /// after slab), or `None` to update each phase over the whole region. Default: `None`.
    fn step_slab_cells(&self, _state: &YeeState<T>) -> Option<usize> {
        None
    }

    /// The wavefront tile [`crate::YeeChunk::apply_steps`] sweeps several steps in (see
    /// [`crate::time_tile`]), or `None` to step one step at a time. Default: `None`.
    fn time_tile(&self, _state: &YeeState<T>) -> Option<TimeTile> {
        None
    }

    /// Whether the run asks this executor to block time steps (`--time-block` other than
    /// `off`): the same on every rank of a run whose ranks share one executor, so a decomposed
    /// run's ranks then agree on ghost zones ([`yee_core::Chunk::ghost_zones_asked`]).
    /// Default: no.
    fn blocks_time(&self) -> bool {
        false
    }

    /// Runs `work` — a phase or a whole step of a chunk, which calls the methods above many
    /// times — where those calls are cheapest: on the executor's own threads, so that each
    /// parallel loop inside does not hand its work over from the caller's thread and wait
    /// (two context switches a call). Default: on the caller's thread.
    fn within(&self, work: impl FnOnce() + Send) {
        work();
    }
}

/// The reference executor: [`CurlUpdate`]'s plain loops.
#[derive(Clone, Copy, Debug, Default)]
pub struct ScalarCurl;

impl<T: Scalar> CurlExecutor<T> for ScalarCurl {
    fn curl(&self, state: &mut YeeState<T>, electric: bool, region: Box3) {
        CurlUpdate { electric }.apply(state, region, 0);
    }
}

impl PartExecutor for ScalarCurl {}
