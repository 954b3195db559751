//! A Yee chunk on the scalar backend: the two phases (H, then E) and the halos between them.

use yee_core::{
    Box3, Capabilities, Chunk, ChunkErrorKind, Direction, Field, HostBuffer, HostChunkError,
    Index3, Scalar, Stencil,
};
use yee_em::halo;
use yee_em::load::work_of;
use yee_em::{Component, Costs, Setup, YeeBackend, YeeFields};

// The executors a chunk runs on, where the chunk is (`yee_scalar::chunk::ScalarCurl`).
pub use crate::curl_executor::{CurlExecutor, ScalarCurl};
use crate::dispersive::Pass;
use crate::source::SourceUpdate;
use crate::state::YeeState;
use crate::tfsf::apply_plane_waves;
use crate::time_tile::{
    AHEAD_MIN_PLANES, TileProbes, TimeTile, h_ahead, slab_axis, slab_planes, state_fallback,
    wavefront,
};

/// The error of a chunk whose materials overflow the ids ([`YeeChunk::checked`]).
const TOO_MANY_MATERIALS: HostChunkError = HostChunkError {
    kind: ChunkErrorKind::InvalidArgument,
    what: "the chunk's nodes need more than 65536 distinct materials (the means on shape \
           surfaces count): fewer or simpler shapes, or more ranks",
};

/// The error of a chunk of real fields on a Bloch-periodic setup ([`YeeChunk::checked`]).
const BLOCH_NEEDS_COMPLEX: HostChunkError = HostChunkError {
    kind: ChunkErrorKind::InvalidArgument,
    what: "a Bloch wavevector needs complex fields (c32 or c64): a real field cannot carry \
           the phase e^(i 2π k·L)",
};

/// The cells of `setup`'s probes inside `owned`.
fn probe_cells(setup: &Setup, owned: Box3) -> alloc::vec::Vec<yee_core::Index3> {
    setup
        .probes
        .iter()
        .map(|p| p.cell)
        .filter(|&c| owned.contains(c))
        .collect()
}

pub use yee_em::halo::{ELECTRIC_PHASE, MAGNETIC_PHASE};

/// The planes `range` of `region` along `axis`, counted from its first.
fn planes_of(region: Box3, axis: usize, range: core::ops::Range<usize>) -> Box3 {
    let mut slab = region;
    slab.lo[axis] = region.lo[axis] + range.start as i64;
    slab.hi[axis] = region.lo[axis] + range.end as i64;
    slab
}

/// Phase `phase` of step `step` over `region` of `state`, the curl update by `kernel`: the
/// dispersive passes, the curl, CPML, plane waves, sources and DFT sums in the oracle's order.
/// The DFT sums are taken over the part of `region` inside `owned` alone: a ghost zone's
/// cells ([`crate::ghost_zone`]) are updated redundantly, and their sums would never be read.
fn apply_phase<T: Scalar, K: CurlExecutor<T>>(
    kernel: &K,
    state: &mut YeeState<T>,
    (step, phase): (u64, usize),
    region: Box3,
    owned: Box3,
) {
    let electric = phase == ELECTRIC_PHASE;
    if electric {
        kernel.dispersive(state, Pass::Polarise, region, step);
    }
    kernel.curl(state, electric, region);
    kernel.cpml(state, electric, region);
    kernel.tensor(state, electric, region);
    if electric {
        kernel.dispersive(state, Pass::Correct, region, step);
    }
    apply_plane_waves(state, electric, region, step);
    SourceUpdate { electric }.apply(state, region, step);
    if electric {
        kernel.dispersive(state, Pass::Complete, region, step);
    }
    kernel.dft(state, electric, region.intersect(&owned), step);
}

/// Phase `phase` of step `step` over `slab` ([`apply_phase`]), the chunk's own periodic
/// wrap (`wrap`: its axes, and the slab axis) first refreshed over the slab's planes for the
/// field the phase reads ([`crate::own_wrap`]).
fn slab_phase<T: Scalar, K: CurlExecutor<T>>(
    kernel: &K,
    state: &mut YeeState<T>,
    (setup, wrap): (&Setup, Option<([bool; 3], usize)>),
    (step, phase): (u64, usize),
    slab: Box3,
    owned: Box3,
) {
    if let Some((axes, axis)) = wrap {
        let read = match phase {
            MAGNETIC_PHASE => ELECTRIC_PHASE,
            _ => MAGNETIC_PHASE,
        };
        let planes = slab.lo[axis]..slab.hi[axis];
        crate::own_wrap::refresh(state, setup, (read, axes), axis, planes);
    }
    apply_phase(kernel, state, (step, phase), slab, owned);
}

/// One rank's block of a Yee grid; `K` executes the curl update (scalar by default). It keeps
/// the setup it was built from, to rebuild its materials when its borders move.
#[derive(Clone, Debug)]
pub struct YeeChunk<'s, T: Scalar, K: CurlExecutor<T> = ScalarCurl> {
    /// The setup the chunk is a block of.
    pub setup: Setup<'s>,
    /// The arrays.
    pub state: YeeState<T>,
    /// Relative cost of cell kinds, for [`Chunk::work`].
    pub costs: Costs,
    /// Cells of probes inside the owned box (they add to the work).
    pub probe_cells: alloc::vec::Vec<yee_core::Index3>,
    /// The curl executor.
    pub kernel: K,
    /// The ghost zone of a decomposed run that exchanges halos every few steps
    /// ([`crate::ghost_zone`]; [`Chunk::set_ghost_zone`]), if any: the state then covers
    /// more than the owned box.
    pub zone: Option<crate::ghost_zone::GhostZone>,
    /// The probe samples taken inside multi-step submits, not yet drained
    /// ([`YeeFields::drain_probe_samples`]).
    pub(crate) probe_samples: alloc::vec::Vec<(usize, u64, T)>,
}

impl<'s, T: Scalar> YeeChunk<'s, T> {
    /// The chunk owning `owned` of a validated `setup`, on the scalar executor.
    pub fn new(setup: &Setup<'s>, owned: Box3) -> Self {
        YeeChunk::with_kernel(setup, owned, ScalarCurl)
    }
}

impl<'s, T: Scalar, K: CurlExecutor<T>> YeeChunk<'s, T, K> {
    /// The chunk owning `owned` of a validated `setup`, with curl executor `kernel`.
    pub fn with_kernel(setup: &Setup<'s>, owned: Box3, kernel: K) -> Self {
        YeeChunk {
            setup: *setup,
            state: YeeState::new_with(setup, owned, &kernel),
            costs: Costs::default(),
            probe_cells: probe_cells(setup, owned),
            kernel,
            zone: None,
            probe_samples: alloc::vec::Vec::new(),
        }
    }

    /// The chunk, or the error of a chunk whose nodes need more distinct materials than its
    /// `u16` ids can name ([`crate::state::MAX_MATERIAL_IDS`]): it cannot run.
    pub fn checked(self) -> Result<Self, HostChunkError> {
        if self.state.too_many_materials {
            return Err(TOO_MANY_MATERIALS);
        }

        if self.setup.validate_value_type(T::COMPLEX).is_err() {
            return Err(BLOCH_NEEDS_COMPLEX);
        }
        Ok(self)
    }

    /// Applies phase `phase` of step `step` to `region` (host work: done on return).
    pub fn apply(&mut self, step: u64, phase: usize, region: Box3) {
        let owned = self.owned_box();
        let (kernel, state) = (&self.kernel, &mut self.state);
        kernel.within(|| apply_phase(kernel, state, (step, phase), region, owned));
    }

    /// Advances `region` by the whole of step `step` (H, then E), with nothing exchanged in
    /// between: for a chunk whose ghosts no neighbour writes (one rank; a periodic wrap onto
    /// itself it refreshes slab by slab, [`crate::own_wrap`]).
    ///
    /// Where the executor asks for it ([`CurlExecutor::step_slab_cells`]), the step is swept
    /// in slabs of whole rows along the outermost axis the region spans beyond x (z, else y),
    /// in increasing order, H and then E of each slab before the next: H reads E at its own
    /// index and the one above (forward differences), E reads H at its own index and the one
    /// below (backward differences, Yee 1966), so each slab's H reads E not yet updated and
    /// its E reads H already updated, exactly as in the two whole phases, and every other part
    /// of a phase (CPML ψ, TF/SF corrections, sources, dispersive passes, DFT sums) reads and
    /// writes only the nodes of its region. The bits are the two phases'; the slab's arrays
    /// are still in the cache when its E update reads them, so memory is crossed once per step
    /// instead of twice. A chunk with tensor nodes, which read the other field a plane above
    /// and below, has each slab's H one plane ahead of its E ([`slab_planes`]): H over planes
    /// `lo + 1..hi + 1` (from the region's first plane for the first slab), then E over
    /// `lo..hi`, so E's nodes
    /// read H up to plane `hi`, updated, and H's read E from plane `lo`, not yet updated. (The
    /// order this replaced lagged E by a whole slab, H of `j` then E of `j − 1`, which kept
    /// each slab's arrays across two slabs: its sweep took 15 % more time at 256³ on one
    /// thread; docs/performance.md.) A region of one row (a 1D grid) is not cut: the kernels set up each call per row, and pieces of a
    /// row would repeat that work.
    pub fn apply_step(&mut self, step: u64, region: Box3) {
        let axis = slab_axis(region.extent());
        let owned = self.owned_box();
        let wrap = axis.and_then(|a| self.own_wrap(a).map(|axes| (axes, a)));
        let (kernel, state, setup) = (&self.kernel, &mut self.state, &self.setup);
        let slab_cells = kernel.step_slab_cells(state);
        let ahead = h_ahead(state);
        kernel.within(|| {
            let (Some(axis), Some(cells)) = (axis, slab_cells) else {
                for phase in [MAGNETIC_PHASE, ELECTRIC_PHASE] {
                    slab_phase(kernel, state, (setup, wrap), (step, phase), region, owned);
                }
                return;
            };
            let planes = region.extent()[axis];
            let thickness = (cells / (region.cells() / planes).max(1)).max(1);
            for j in 0..planes.div_ceil(thickness) {
                let ranges = slab_planes(j, thickness, planes, ahead);
                for (phase, range) in [MAGNETIC_PHASE, ELECTRIC_PHASE].into_iter().zip(ranges) {
                    if !range.is_empty() {
                        let slab = planes_of(region, axis, range);
                        slab_phase(kernel, state, (setup, wrap), (step, phase), slab, owned);
                    }
                }
            }
        });
    }

    /// The periodic axes along which this chunk wraps onto itself and refreshes the wrap's
    /// ghosts as it sweeps slabs across `axis` ([`crate::own_wrap::tile_wrap`]), or `None`:
    /// no such wrap, one it cannot refresh, or a ghost zone.
    fn own_wrap(&self, axis: usize) -> Option<[bool; 3]> {
        let owned = self.state.owned;
        (crate::own_wrap::tile_wrap(&self.setup, owned, self.state.halo_shape, axis).ok())
            .filter(|axes| self.zone.is_none() && axes.contains(&true))
    }

    /// The wavefront tile this chunk's steps would be swept in ([`crate::time_tile`]), or
    /// `None` when it steps one step at a time: its executor asks for none, or its parts do
    /// not fit a tile ([`crate::time_tile::state_fallback`]).
    pub fn time_tile(&self) -> Option<TimeTile> {
        if state_fallback(&self.state).is_some() {
            return None;
        }
        self.kernel.time_tile(&self.state).filter(|t| t.steps > 1)
    }

    /// Advances `region` by `count` steps from `first`, with nothing exchanged in between (a
    /// chunk whose ghosts no neighbour writes, as [`YeeChunk::apply_step`]): in wavefront
    /// tiles of at most [`YeeChunk::time_tile`] steps over slabs of whole planes along the
    /// outermost axis the region spans beyond x, step `s` of slab `j` in wave `j + s`
    /// ([`crate::time_tile::wavefront`]); with tensor nodes H one plane ahead of E and slabs of
    /// at least [`AHEAD_MIN_PLANES`] ([`slab_planes`]); each plane wave's incident line keeps the tile's steps
    /// ([`yee_em::IncidentLine::keep_steps`]). Each node is updated from the values, and by
    /// the arithmetic, of the steps one after the other, so the bits are theirs. Without a
    /// tile, the steps one after the other. The probes in `region` the chunk owns (not those
    /// of a ghost zone, [`crate::ghost_zone`]: their owner samples them) are sampled at every step
    /// but the last, each right after the slab holding it advanced through that step
    /// ([`TileProbes`]; [`YeeFields::drain_probe_samples`] hands them out).
    pub fn apply_steps(&mut self, first: u64, count: u64, region: Box3) {
        let axis = slab_axis(region.extent());
        let tile = self.time_tile().filter(|_| !region.is_empty());
        let owned = self.owned_box();
        let probes = TileProbes::of(&self.setup, region.intersect(&owned));
        let last = first + count;
        let (Some(tile), Some(axis)) = (tile, axis) else {
            for step in first..last {
                self.apply_step(step, region);
                if step + 1 < last {
                    probes.sample(&self.state, region, step + 1, &mut self.probe_samples);
                }
            }
            return;
        };
        let planes = region.extent()[axis];
        let ahead = h_ahead(&self.state);
        let fewest = if ahead { AHEAD_MIN_PLANES } else { 1 };
        let thickness = (tile.slab_cells / (region.cells() / planes).max(1))
            .max(fewest)
            .clamp(1, planes);
        let slabs = planes.div_ceil(thickness);
        // The chunk's own periodic wrap, refreshed before each slab's phase reads it.
        let wrap = self.own_wrap(axis).map(|axes| (axes, axis));
        let (kernel, state, setup) = (&self.kernel, &mut self.state, &self.setup);
        let samples = &mut self.probe_samples;
        let mut done = 0;
        while done < count {
            let steps = (count - done).min(tile.steps);
            let start = first + done;
            for line in &mut state.lines {
                line.keep_steps(start, steps);
            }
            kernel.within(|| {
                for (s, j) in wavefront(slabs, steps as usize) {
                    let step = start + s as u64;
                    let ranges = slab_planes(j, thickness, planes, ahead);
                    let own = ranges[1].clone();
                    for (phase, range) in [MAGNETIC_PHASE, ELECTRIC_PHASE].into_iter().zip(ranges) {
                        if !range.is_empty() {
                            let slab = planes_of(region, axis, range);
                            slab_phase(kernel, state, (setup, wrap), (step, phase), slab, owned);
                        }
                    }
                    // The slab's own (E's) planes: their H nodes are at this step too (the
                    // module doc of `crate::time_tile`).
                    if step + 1 < last {
                        probes.sample(state, planes_of(region, axis, own), step + 1, samples);
                    }
                }
            });
            for line in &mut state.lines {
                line.release_kept();
            }
            done += steps;
        }
    }

    /// The same chunk with other cell costs.
    pub fn with_costs(mut self, costs: Costs) -> Self {
        self.costs = costs;
        self
    }

    /// The extra work of the dispersive nodes in `region` ([`Costs::dispersive`] per cell,
    /// shared among the cell's electric components).
    fn dispersive_work(&self, region: Box3) -> f64 {
        let electric = self
            .state
            .mode
            .components()
            .iter()
            .filter(|c| c.is_electric())
            .count()
            .max(1) as f64;
        let per_node: f64 = self
            .state
            .dispersive
            .iter()
            .flatten()
            .map(|d| d.work(region, &self.costs))
            .sum();
        per_node / electric
    }
}

impl<T: Scalar, K: CurlExecutor<T>> Chunk for YeeChunk<'_, T, K> {
    type Value = T;
    type Buffer = HostBuffer<T>;
    type Error = HostChunkError;
    const CAPABILITIES: Capabilities = Capabilities {
        asynchronous: false,
        migration: true,
    };

    fn owned(&self) -> Box3 {
        self.owned_box()
    }

    fn ghost(&self) -> [usize; 3] {
        self.state.mode.active_axes().map(usize::from)
    }

    fn phases(&self) -> usize {
        2
    }

    fn submit(&mut self, step: u64, phase: usize, region: Box3) -> Result<(), HostChunkError> {
        self.apply(step, phase, region);
        Ok(())
    }

    fn submit_step(&mut self, step: u64, region: Box3) -> Result<(), HostChunkError> {
        self.apply_step(step, region);
        Ok(())
    }

    /// The steps of a wavefront tile ([`YeeChunk::time_tile`]), else 1.
    fn steps_per_submit(&self) -> u64 {
        self.time_tile().map_or(1, |t| t.steps)
    }

    /// Whether its steps and tiles refresh its own periodic wrap ([`crate::own_wrap`]): it
    /// keeps no ghost zone and wraps onto itself along axes other than its slab axis.
    fn wraps_itself(&self) -> bool {
        let owned = self.state.owned;
        let axis = slab_axis(owned.extent());
        axis.is_some_and(|a| self.own_wrap(a).is_some())
    }

    fn submit_steps(&mut self, first: u64, count: u64, region: Box3) -> Result<(), HostChunkError> {
        match self.zone {
            Some(_) => self.apply_zone_steps(first, count),
            None => self.apply_steps(first, count, region),
        }
        Ok(())
    }

    /// When its executor is asked to block time ([`CurlExecutor::blocks_time`]).
    fn ghost_zones_asked(&self) -> bool {
        self.kernel.blocks_time()
    }

    /// The steps of its wavefront tile ([`YeeChunk::zone_wish`]).
    fn ghost_zone_steps(&self) -> u64 {
        self.zone_wish()
    }

    fn set_ghost_zone(&mut self, steps: u64) -> Result<(), HostChunkError> {
        self.set_zone(steps);
        Ok(())
    }

    fn steps_per_exchange(&self) -> u64 {
        self.zone.map_or(1, |z| z.steps)
    }

    fn block_work(&self, count: u64) -> f64 {
        self.zone_work(count)
    }

    fn buffer(&self, bytes: usize) -> Result<HostBuffer<T>, HostChunkError> {
        Ok(HostBuffer::with_bytes(bytes))
    }

    fn halo_len(&self, phase: usize, toward: Direction) -> usize {
        if self.zone.is_some() {
            // The deep halos go once, after the last phase.
            return match phase == ELECTRIC_PHASE {
                true => self.zone_halo_len(toward, true),
                false => 0,
            };
        }
        let s = &self.state;
        halo::halo_values(s.mode, s.owned, phase, toward, s.halo_shape)
    }

    fn ghost_len(&self, phase: usize, from: Direction) -> usize {
        if self.zone.is_some() {
            return match phase == ELECTRIC_PHASE {
                true => self.zone_halo_len(from, false),
                false => 0,
            };
        }
        let s = &self.state;
        halo::ghost_values(s.mode, s.owned, phase, from, s.halo_shape)
    }

    fn pack_halos(
        &mut self,
        phase: usize,
        towards: &[Direction],
        out: &mut [HostBuffer<T>],
    ) -> Result<(), HostChunkError> {
        for (&toward, buffer) in towards.iter().zip(out) {
            let len = self.halo_len(phase, toward);
            match self.zone {
                Some(_) => self.pack_zone_halo(toward, buffer.values_mut(len)),
                None => self.pack_halo(phase, toward, buffer.values_mut(len)),
            }
        }
        Ok(())
    }

    fn unpack_halos(
        &mut self,
        phase: usize,
        froms: &[Direction],
        data: &[HostBuffer<T>],
    ) -> Result<(), HostChunkError> {
        for (&from, buffer) in froms.iter().zip(data) {
            let len = self.ghost_len(phase, from);
            match self.zone {
                Some(_) => self.unpack_zone_halo(from, buffer.values(len)),
                None => self.unpack_halo(phase, from, buffer.values(len)),
            }
        }
        Ok(())
    }

    fn work(&self, region: Box3) -> f64 {
        work_of(
            region,
            self.state.slabs.iter().map(|s| s.layer),
            self.setup
                .plane_waves
                .iter()
                .flat_map(|w| w.surface_slabs(self.state.mode)),
            self.state.sources.iter().map(|s| s.cell),
            self.probe_cells.iter().copied(),
            self.dispersive_work(region),
            &self.costs,
        )
    }

    fn slab_len(&self, region: Box3) -> usize {
        let cells = self.cells_len(region);
        let dft: usize = self.state.dft.iter().map(|d| d.slab_len(region)).sum();
        let polarisation: usize = self
            .state
            .dispersive
            .iter()
            .flatten()
            .map(|d| d.slab_len(region))
            .sum();
        let sums: usize = self
            .state
            .tensor
            .iter()
            .flatten()
            .map(|t| t.slab_len(region))
            .sum();
        cells + dft + polarisation + sums
    }

    fn pack_slabs(
        &mut self,
        regions: &[Box3],
        out: &mut HostBuffer<T>,
    ) -> Result<(), HostChunkError> {
        let mut at = 0;
        for &region in regions {
            let n = self.slab_len(region);
            self.pack_slab(region, &mut out.0[at..at + n]);
            at += n;
        }
        Ok(())
    }

    fn unpack_slabs(
        &mut self,
        regions: &[Box3],
        data: &HostBuffer<T>,
    ) -> Result<(), HostChunkError> {
        let mut at = 0;
        for &region in regions {
            let n = self.slab_len(region);
            self.unpack_slab(region, &data.0[at..at + n]);
            at += n;
        }
        Ok(())
    }

    fn resize(&mut self, owned: Box3) -> Result<(), HostChunkError> {
        if let Some(zone) = self.zone.as_mut() {
            zone.owned = owned;
        }
        let covered = self.covered(owned);
        self.state.resize(&self.setup, covered, &self.kernel);
        self.probe_cells = probe_cells(&self.setup, owned);
        match self.state.too_many_materials {
            true => Err(TOO_MANY_MATERIALS),
            false => Ok(()),
        }
    }
}

impl<T: Scalar, K: CurlExecutor<T>> YeeFields for YeeChunk<'_, T, K> {
    fn read_component(
        &mut self,
        c: Component,
        region: Box3,
        out: &mut [T],
    ) -> Result<bool, HostChunkError> {
        let Some(field) = self.state.field(c) else {
            return Ok(false);
        };
        field.read_box(region, &mut out[..region.cells()]);
        Ok(true)
    }

    /// It does: [`YeeChunk::apply_steps`] samples them.
    fn samples_probes(&self) -> bool {
        true
    }

    fn drain_probe_samples(
        &mut self,
        out: &mut alloc::vec::Vec<(usize, u64, T)>,
    ) -> Result<(), HostChunkError> {
        out.append(&mut self.probe_samples);
        Ok(())
    }

    fn value(&mut self, c: Component, cell: Index3) -> Result<T, HostChunkError> {
        let field = self.state.field(c).ok_or(HostChunkError {
            kind: ChunkErrorKind::InvalidArgument,
            what: "the mode does not carry the component read",
        })?;
        Ok(field.get(cell))
    }

    fn read_dft(
        &mut self,
        monitor: usize,
        c: Component,
        region: Box3,
        out: &mut [T],
    ) -> Result<bool, HostChunkError> {
        let part = self.state.dft.get(monitor).ok_or(HostChunkError {
            kind: ChunkErrorKind::InvalidArgument,
            what: "no DFT monitor with that index",
        })?;
        Ok(part.read(c, region, out))
    }

    fn first_non_finite(
        &mut self,
        regions: &[Box3],
    ) -> Result<Option<(Component, Index3)>, HostChunkError> {
        if !core::mem::take(&mut self.state.non_finite) {
            return Ok(None);
        }
        // A hard source may have overwritten the flagged value: only a stored one counts.
        for &c in self.state.mode.components() {
            let f = self.state.field(c).expect("the mode carries it");
            let first = regions
                .iter()
                .filter_map(|r| {
                    (0..r.cells())
                        .map(|n| r.index_at(n))
                        .find(|&p| !f.get(p).is_finite())
                })
                // The first cell in x-fastest order over the whole grid.
                .min_by_key(|p| [p[2], p[1], p[0]]);
            if let Some(cell) = first {
                return Ok(Some((c, cell)));
            }
        }
        Ok(None)
    }
}

impl<T: Scalar> YeeBackend<T> for ScalarCurl {
    type Chunk<'s> = YeeChunk<'s, T, ScalarCurl>;

    fn name(&self) -> &'static str {
        "scalar"
    }

    fn build<'s>(
        &self,
        setup: &Setup<'s>,
        owned: Box3,
        costs: Costs,
    ) -> Result<YeeChunk<'s, T>, HostChunkError> {
        YeeChunk::with_kernel(setup, owned, *self)
            .with_costs(costs)
            .checked()
    }
}

impl<T: Scalar, K: CurlExecutor<T>> YeeChunk<'_, T, K> {
    /// Packs everything the cells of `region` hold: each component, each CPML ψ, the DFT sums,
    /// then the polarisations of dispersive nodes and the running sums of lossy tensor nodes
    /// ([`crate::tensor_nodes`]).
    fn pack_slab(&self, region: Box3, out: &mut [T]) {
        let mut at = self.pack_cells(region, out);
        for d in &self.state.dft {
            at += d.pack(region, &mut out[at..]);
        }
        for d in self.state.dispersive.iter().flatten() {
            at += d.pack(region, &mut out[at..]);
        }
        for t in self.state.tensor.iter().flatten() {
            at += t.pack(region, &mut out[at..]);
        }
    }

    /// Unpacks what [`YeeChunk::pack_slab`] wrote for `region`.
    fn unpack_slab(&mut self, region: Box3, data: &[T]) {
        let mut at = self.unpack_cells(region, data);
        for d in &mut self.state.dft {
            at += d.unpack(region, &data[at..]);
        }
        for d in self.state.dispersive.iter_mut().flatten() {
            at += d.unpack(region, &data[at..]);
        }
        for t in self.state.tensor.iter_mut().flatten() {
            at += t.unpack(region, &data[at..]);
        }
    }

    /// Packs the halo of `phase` toward `toward` into `out`.
    pub fn pack_halo(&self, phase: usize, toward: Direction, out: &mut [T]) {
        let s = &self.state;
        let Some((layer, _)) = halo::halo(s.mode, s.owned, phase, toward, s.halo_shape) else {
            return;
        };
        let n = layer.cells();
        for (k, c) in halo::phase_components(self.state.mode, phase).enumerate() {
            let field = self.state.field(c).expect("phase components are carried");
            field.read_box(layer, &mut out[k * n..(k + 1) * n]);
        }
    }

    /// Unpacks the halo of `phase` that arrived from the `from` side.
    pub fn unpack_halo(&mut self, phase: usize, from: Direction, data: &[T]) {
        let s = &self.state;
        let Some((layer, _)) = halo::ghosts(s.mode, s.owned, phase, from, s.halo_shape) else {
            return;
        };
        let n = layer.cells();
        let bloch = crate::own_wrap::bloch_rotation::<T>(&self.setup, self.state.owned, from);
        for (k, c) in halo::phase_components(self.state.mode, phase).enumerate() {
            let field = self.state.fields[c.index()]
                .as_mut()
                .expect("phase components are carried");
            let values = &data[k * n..(k + 1) * n];
            match bloch {
                // Across a Bloch-periodic wrap the ghosts take the phase e^{±i2πkN}.
                Some((re, im)) => {
                    for (i, &v) in values.iter().enumerate() {
                        field.set(layer.index_at(i), v.rotate(re, im));
                    }
                }
                None => field.write_box(layer, values),
            }
        }
    }
}
