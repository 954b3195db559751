//! The seam a backend plugs into to run the Yee physics: what the Yee apps (the `yee` runner,
//! the tests, the benchmarks) need from a backend beyond the generic [`Chunk`] contract —
//! building a chunk of a [`Setup`], reading its fields, noticing divergence.
//!
//! The scalar backend implements it with plain loops (the oracle), the rayon backend with
//! vectorised kernels over the same host arrays; a device backend implements it with its own
//! chunk type, and the conformance suite in `tests/` holds every implementation to the
//! scalar oracle bit for bit.

use core::fmt::Debug;

use crate::cost::Costs;
use crate::setup::Setup;
use crate::yee::Component;
use yee_core::chunk::Chunk;
use yee_core::geometry::{Box3, Index3};
use yee_core::scalar::Scalar;

/// A chunk of a Yee grid whose fields can be read back.
pub trait YeeFields: Chunk {
    /// Copies component `c` over `region` (inside the owned box) into `out[..region.cells()]`,
    /// x fastest. Returns `Ok(false)` (and writes nothing) when the mode does not carry `c`.
    fn read_component(
        &mut self,
        c: Component,
        region: Box3,
        out: &mut [Self::Value],
    ) -> Result<bool, Self::Error>;

    /// The value of component `c` at `cell` (owned): what a probe records.
    fn value(&mut self, c: Component, cell: Index3) -> Result<Self::Value, Self::Error>;

    /// Whether the chunk samples the setup's probes itself at the steps a multi-step submit
    /// ([`Chunk::submit_steps`]) advances past unseen ([`YeeFields::drain_probe_samples`]),
    /// so that a run with probes need not stop at every step. `false` by default: the run
    /// then sees every step of a run with probes.
    fn samples_probes(&self) -> bool {
        false
    }

    /// Appends to `out` the probe samples `(probe index, step, value)` this chunk took inside
    /// its multi-step submits since the last call — each probe it owns at every step a submit
    /// advanced but its last (1-based step count, the steps of a probe in increasing order),
    /// each value what [`YeeFields::value`] read at that step — and forgets them. None by
    /// default.
    fn drain_probe_samples(
        &mut self,
        out: &mut alloc::vec::Vec<(usize, u64, Self::Value)>,
    ) -> Result<(), Self::Error> {
        let _ = out;
        Ok(())
    }

    /// Copies the running DFT sums of component `c` of monitor `monitor` (an index into
    /// [`Setup::monitors`]) over `region` (inside the monitor's box and the owned box) into
    /// `out`: per node (x fastest), per frequency, the sums `Σ F Δt cos(2πft)` and
    /// `Σ F Δt sin(2πft)` ([`crate::dft`]), `2 · frequencies · region.cells()` values. Returns
    /// `Ok(false)` when the monitor does not transform `c`.
    fn read_dft(
        &mut self,
        monitor: usize,
        c: Component,
        region: Box3,
        out: &mut [Self::Value],
    ) -> Result<bool, Self::Error>;

    /// The first node (component order E then H, then x fastest) among `regions` whose value
    /// is NaN or infinite, if an update since the last call stored one; clears the chunk's
    /// flag. A diverging run stops with the step and this node.
    fn first_non_finite(
        &mut self,
        regions: &[Box3],
    ) -> Result<Option<(Component, Index3)>, Self::Error>;
}

/// A backend of the Yee apps for element type `T`: it builds the chunk one rank owns.
pub trait YeeBackend<T: Scalar>: Clone + Debug + Send + Sync {
    /// The chunk type.
    type Chunk<'s>: YeeFields<Value = T>;

    /// A short name for reports ("scalar", "rayon", "cuda").
    fn name(&self) -> &'static str;

    /// The chunk owning `owned` (a box of the grid, or the bounding box of a rank's tiles
    /// grown by the ghost width) of a validated `setup`, with cell `costs` as its work.
    fn build<'s>(
        &self,
        setup: &Setup<'s>,
        owned: Box3,
        costs: Costs,
    ) -> Result<Self::Chunk<'s>, <Self::Chunk<'s> as Chunk>::Error>;

    /// The backend rank `rank` of `ranks` runs on, asked once by each rank before it builds
    /// its chunk: by default this one; a threaded backend may give each rank of a process its
    /// own share of the cores.
    fn for_rank(&self, rank: usize, ranks: usize) -> Self {
        let _ = (rank, ranks);
        self.clone()
    }
}
