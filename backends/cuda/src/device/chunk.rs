//! The device chunk: one rank's block of a Yee grid in device memory, stepped by the kernels
//! of `kernels/*.cu`. Each phase's kernels are queued on the chunk's stream by
//! [`Chunk::submit`] and the packs and unpacks of its halos go through one device staging
//! buffer into pinned host buffers; [`Chunk::wait`] synchronises the stream (the `Chunk`
//! trait's flush). The materials, CPML tables and walls come from the scalar backend's
//! [`YeeState`] built on the host and uploaded, so the arrays are the oracle's own.
//!
//! Runs what the kernels cover: the curl update (uniform or per-node materials, lossy media,
//! masks), CPML, PEC/PMC walls (nodes outside each component's free box are never updated),
//! periodic faces and neighbours (halos), point sources, probes and the divergence report.
//! A setup with dispersive media, plane waves, DFT monitors or off-diagonal ε or μ is refused
//! with an error naming
//! it; migration (dynamic balancing) is not supported.

use std::sync::Arc;

use cudarc::driver::{
    CudaContext, CudaFunction, CudaSlice, CudaStream, DevicePtr, DeviceRepr, LaunchConfig,
    PushKernelArg,
};
use yee_core::{Box3, Capabilities, Chunk, ChunkErrorKind, Direction, Index3};
use yee_em::halo::{self, ELECTRIC_PHASE, phase_components};
use yee_em::load::work_of;
use yee_em::{Component, Costs, Mode, PointSource, Setup, SourceKind, YeeFields};
use yee_scalar::source::source_time;
use yee_scalar::state::YeeState;

use super::nvrtc::{compile, nvrtc_present};
use super::{CudaError, DeviceReal, PinnedBuffer, device_for_rank, driver_present};
use crate::kernels::{self, KernelFile, entry_name};
use crate::layout::{
    FINITE_KEY, Launch, RawRegion, Storage, box_launch, cell_of_key, linear_launch,
};
use crate::memory::halo_staging_values;

/// One curl term as a kernel takes it by value (`yee_term`: device pointers as integers).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
struct DeviceTerm {
    source: u64,
    stride: i64,
    axis: i32,
    sign: i32,
    stretch: u64,
}

/// The curl terms of one component (`yee_terms`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
struct DeviceTerms {
    term: [DeviceTerm; 2],
    count: i32,
}

// SAFETY: plain `repr(C)` data laid out as the C structs of `kernels/yee_cell.h` (64-bit
// pointers and `long long`, `int`), passed by value as kernel parameters.
unsafe impl DeviceRepr for DeviceTerm {}
// SAFETY: as above.
unsafe impl DeviceRepr for DeviceTerms {}
// SAFETY: `yee_region`: twelve `long long`.
unsafe impl DeviceRepr for RawRegion {}

/// The kernels of one value type.
#[derive(Debug)]
struct Kernels {
    curl: CudaFunction,
    cpml: CudaFunction,
    source: CudaFunction,
    box_copy: CudaFunction,
    non_finite: CudaFunction,
}

impl Kernels {
    /// Compiles every kernel file for `T` with NVRTC and loads it into `context`.
    fn load<T: DeviceReal>(context: &Arc<CudaContext>) -> Result<Self, CudaError> {
        let function = |file: KernelFile, entry: &str| -> Result<CudaFunction, CudaError> {
            let module = context.load_module(compile(file, T::PRECISION)?)?;
            Ok(module.load_function(&entry_name(entry, T::PRECISION))?)
        };
        Ok(Kernels {
            curl: function(kernels::CURL, "yee_curl")?,
            cpml: function(kernels::CPML, "yee_cpml")?,
            source: function(kernels::SOURCE, "yee_source")?,
            box_copy: function(kernels::BOX, "yee_box_copy")?,
            non_finite: function(kernels::FINITE, "yee_non_finite")?,
        })
    }
}

/// The ψ arrays of one CPML layer inside the chunk.
#[derive(Debug)]
struct DeviceSlab<T> {
    /// The axis it absorbs along.
    axis: yee_core::Axis,
    /// The whole layer.
    layer: Box3,
    /// Its cells in the chunk (ψ's box).
    region: Box3,
    /// ψ per component differentiating along `axis`.
    psi: [Option<CudaSlice<T>>; 6],
}

/// The arrays of one component's material: ids in device memory, and the id every node
/// shares if it has one (the kernels then read no id).
#[derive(Debug)]
struct Materials {
    ids: Option<CudaSlice<u16>>,
    uniform: Option<u16>,
}

/// One rank's block of a Yee grid on a CUDA device.
#[derive(Debug)]
pub struct CudaChunk<T: DeviceReal> {
    context: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    kernels: Kernels,
    mode: Mode,
    grid: [usize; 3],
    owned: Box3,
    storage: Storage,
    dt: f64,
    fields: [Option<CudaSlice<T>>; 6],
    materials: [Materials; 6],
    /// `[decay, gain]` per material id, E then H.
    coefficients: [CudaSlice<T>; 2],
    /// `[b, c, 1/κ]` per global coordinate, per axis, at integer and half positions.
    stretch: [[CudaSlice<T>; 2]; 3],
    free: [Box3; 6],
    slabs: Vec<DeviceSlab<T>>,
    sources: Vec<PointSource>,
    probe_cells: Vec<Index3>,
    costs: Costs,
    /// Every halo of one phase, packed on the device before the copy to pinned memory.
    staging: CudaSlice<T>,
    /// Raised by the curl kernel when it stores a NaN or an infinity.
    flag: CudaSlice<i32>,
    /// The first non-finite node's order key (atomicMin).
    key: CudaSlice<u64>,
}

/// The halo of every chunk it runs: tensor setups are refused ([`supported`]).
const FACES: halo::HaloShape = halo::HaloShape::Faces;

/// Refuses what the kernels do not cover yet, naming it.
fn supported(setup: &Setup, state_dispersive: bool) -> Result<(), CudaError> {
    let unsupported = |what: &str| {
        Err(CudaError::new(
            ChunkErrorKind::Unsupported,
            format!("the CUDA backend does not run {what} yet: use --backend rayon or scalar"),
        ))
    };
    if state_dispersive {
        return unsupported("dispersive media (poles)");
    }
    if !setup.plane_waves.is_empty() {
        return unsupported("plane waves (TF/SF)");
    }
    if !setup.monitors.is_empty() {
        return unsupported("DFT monitors (flux, far field, frequency outputs)");
    }
    if yee_em::bloch::is_bloch(setup) {
        return unsupported("Bloch-periodic boundaries (boundaries.k: complex fields)");
    }
    if setup.has_tensor_nodes() {
        return unsupported(
            "off-diagonal ε or μ (a material's full `eps`/`mu` tensor, or smoothing's at a \
             curved surface, where `Setup::smoothing_tensor = false` keeps the diagonal rule, \
             as `yee run` does: its neighbours' curls and the halo's edges and corners)",
        );
    }
    Ok(())
}

/// The launch configuration of a [`Launch`].
fn config(l: Launch) -> LaunchConfig {
    LaunchConfig {
        grid_dim: l.grid.into(),
        block_dim: l.block.into(),
        shared_mem_bytes: 0,
    }
}

impl<T: DeviceReal> CudaChunk<T> {
    /// The chunk owning `owned` of a validated `setup` on the device of rank `rank`: its
    /// arrays built on the host as the scalar backend builds them, then uploaded.
    pub fn new(setup: &Setup, owned: Box3, costs: Costs, rank: usize) -> Result<Self, CudaError> {
        if !driver_present() {
            return Err(CudaError::no_driver());
        }
        if !nvrtc_present() {
            return Err(super::nvrtc::CompileFailure::NoNvrtc.into());
        }
        let state = YeeState::<T>::new(setup, owned);
        supported(setup, state.dispersive.iter().any(Option::is_some))?;
        if state.too_many_materials {
            return Err(CudaError::new(
                ChunkErrorKind::InvalidArgument,
                "the chunk's nodes need more than 65536 distinct materials",
            ));
        }
        let devices = CudaContext::device_count()? as usize;
        let ordinal = device_for_rank(rank, devices)
            .ok_or_else(|| CudaError::new(ChunkErrorKind::Device, "no CUDA device is visible"))?;
        let context = CudaContext::new(ordinal)?;
        log::info!(
            "rank {rank}: CUDA device {ordinal} of {devices} ({})",
            context.name().unwrap_or_default()
        );
        let stream = context.new_stream()?;
        let kernels = Kernels::load::<T>(&context)?;
        let upload = |values: &[T]| stream.clone_htod(values);
        let flat = |pairs: &[[T; 2]]| -> Vec<T> { pairs.iter().flatten().copied().collect() };
        let table = |t: &[[T; 3]]| -> Vec<T> { t.iter().flatten().copied().collect() };
        let mut fields: [Option<CudaSlice<T>>; 6] = Default::default();
        let mut materials: [Materials; 6] = core::array::from_fn(|_| Materials {
            ids: None,
            uniform: None,
        });
        for &c in setup.mode.components() {
            let f = state.field(c).expect("the mode carries it");
            fields[c.index()] = Some(upload(f.as_slice())?);
            materials[c.index()] = Materials {
                // One id per node, spelled out where the chunk keeps one for all.
                ids: Some(stream.clone_htod(&state.material_ids_of(c)[..])?),
                uniform: state.uniform_material[c.index()],
            };
        }
        let coefficients = [
            upload(&flat(&state.electric))?,
            upload(&flat(&state.magnetic))?,
        ];
        let mut stretch = Vec::new();
        for s in &state.stretch {
            stretch.push([upload(&table(&s.integer))?, upload(&table(&s.half))?]);
        }
        let stretch: [[CudaSlice<T>; 2]; 3] = stretch.try_into().expect("three axes");
        let mut slabs = Vec::new();
        for s in &state.slabs {
            let mut psi: [Option<CudaSlice<T>>; 6] = Default::default();
            for (to, from) in psi.iter_mut().zip(&s.psi) {
                if let Some(values) = from {
                    *to = Some(upload(values)?);
                }
            }
            slabs.push(DeviceSlab {
                axis: s.axis,
                layer: s.layer,
                region: s.region,
                psi,
            });
        }
        let storage_box = owned.grow(setup.mode.active_axes().map(i64::from));
        let staging = stream.alloc_zeros::<T>(halo_staging_values(setup.mode, owned).max(1))?;
        let flag = stream.alloc_zeros::<i32>(1)?;
        let key = stream.alloc_zeros::<u64>(1)?;
        stream.synchronize()?;
        Ok(CudaChunk {
            context,
            stream,
            kernels,
            mode: setup.mode,
            grid: setup.grid,
            owned,
            storage: Storage {
                lo: storage_box.lo,
                extent: storage_box.extent(),
            },
            dt: state.dt,
            fields,
            materials,
            coefficients,
            stretch,
            free: state.free,
            slabs,
            sources: state.sources.clone(),
            probe_cells: setup
                .probes
                .iter()
                .map(|p| p.cell)
                .filter(|&c| owned.contains(c))
                .collect(),
            costs,
            staging,
            flag,
            key,
        })
    }

    /// The device address of `slice`, `offset` values in.
    fn address<X>(&self, slice: &CudaSlice<X>, offset: usize) -> u64 {
        let (ptr, _sync) = slice.device_ptr(&self.stream);
        ptr + (offset * size_of::<X>()) as u64
    }

    /// The address of component `c`'s field (carried by the mode: checked by callers).
    fn field_address(&self, c: Component) -> Result<u64, CudaError> {
        let f = self.fields[c.index()].as_ref().ok_or_else(|| {
            CudaError::new(
                ChunkErrorKind::InvalidArgument,
                format!("the mode does not carry {c:?}"),
            )
        })?;
        Ok(self.address(f, 0))
    }

    /// The id pointer (0: uniform) and the uniform id of component `c`.
    fn ids(&self, c: Component) -> (u64, i32) {
        let m = &self.materials[c.index()];
        match (m.uniform, &m.ids) {
            (Some(id), _) => (0, i32::from(id)),
            (None, Some(ids)) => (self.address(ids, 0), 0),
            (None, None) => (0, 0),
        }
    }

    /// The coefficient table of the phase of `c`.
    fn coefficients_address(&self, c: Component) -> u64 {
        self.address(&self.coefficients[usize::from(!c.is_electric())], 0)
    }

    /// The stretch table of component `c` along `axis` (half positions where `c` is
    /// staggered along it).
    fn stretch_address(&self, c: Component, axis: yee_core::Axis) -> u64 {
        let half = c.stagger()[axis.index()] != 0.0;
        self.address(&self.stretch[axis.index()][usize::from(half)], 0)
    }

    /// The storage strides (x fastest).
    fn strides(&self) -> [i64; 3] {
        let [ex, ey, _] = self.storage.extent.map(|e| e as i64);
        [1, ex, ex * ey]
    }

    /// Queues the curl update of `c` over `region` (∩ its free box).
    fn curl(&self, c: Component, region: Box3) -> Result<(), CudaError> {
        let r = region.intersect(&self.free[c.index()]);
        let Some(launch) = box_launch(r.extent())? else {
            return Ok(());
        };
        let active = self.mode.active_axes();
        let strides = self.strides();
        let mut terms = DeviceTerms::default();
        for t in c.curl_terms() {
            if !active[t.axis.index()] || !self.mode.has(t.source) {
                continue;
            }
            terms.term[terms.count as usize] = DeviceTerm {
                source: self.field_address(t.source)?,
                stride: strides[t.axis.index()],
                axis: t.axis.index() as i32,
                sign: i32::from(t.sign),
                stretch: self.stretch_address(c, t.axis),
            };
            terms.count += 1;
        }
        let values = self.field_address(c)?;
        let (ids, uniform) = self.ids(c);
        let coefficients = self.coefficients_address(c);
        let region = RawRegion::new([r.lo, r.hi], self.storage);
        let electric = i32::from(c.is_electric());
        let flag = self.address(&self.flag, 0);
        let mut args = self.stream.launch_builder(&self.kernels.curl);
        args.arg(&values)
            .arg(&terms)
            .arg(&ids)
            .arg(&uniform)
            .arg(&coefficients)
            .arg(&region)
            .arg(&electric)
            .arg(&flag);
        // SAFETY: the arguments match `yee_curl` (kernels/curl.cu) in order and type; every
        // node of `r` and its one-node reach lie in the storage box all fields share (the
        // box is inside the owned box, grown by the ghosts the curl reads), the stretch
        // tables span the grid and the ids name rows of the coefficient table (built so by
        // `YeeState`).
        unsafe { args.launch(config(launch)) }?;
        Ok(())
    }

    /// Queues the CPML correction of `c` in `slab` over `region`.
    fn cpml(&self, slab: &DeviceSlab<T>, c: Component, region: Box3) -> Result<(), CudaError> {
        let Some(psi) = &slab.psi[c.index()] else {
            return Ok(());
        };
        let r = region
            .intersect(&slab.region)
            .intersect(&self.free[c.index()]);
        let Some(launch) = box_launch(r.extent())? else {
            return Ok(());
        };
        let t = c
            .curl_terms()
            .into_iter()
            .find(|t| t.axis == slab.axis)
            .expect("ψ is kept only for components differentiating along the layer's axis");
        let term = DeviceTerm {
            source: self.field_address(t.source)?,
            stride: self.strides()[t.axis.index()],
            axis: t.axis.index() as i32,
            sign: i32::from(t.sign),
            stretch: self.stretch_address(c, t.axis),
        };
        let values = self.field_address(c)?;
        let psi = self.address(psi, 0);
        let (ids, uniform) = self.ids(c);
        let coefficients = self.coefficients_address(c);
        let region = RawRegion::new([r.lo, r.hi], self.storage);
        let layer = RawRegion::new(
            [slab.region.lo, slab.region.hi],
            Storage {
                lo: slab.region.lo,
                extent: slab.region.extent(),
            },
        );
        let electric = i32::from(c.is_electric());
        let mut args = self.stream.launch_builder(&self.kernels.cpml);
        args.arg(&values)
            .arg(&psi)
            .arg(&term)
            .arg(&ids)
            .arg(&uniform)
            .arg(&coefficients)
            .arg(&region)
            .arg(&layer)
            .arg(&electric);
        // SAFETY: the arguments match `yee_cpml` (kernels/cpml.cu); `r` lies in the layer's
        // cells in the chunk (ψ's box) and in the storage box, as for the curl update.
        unsafe { args.launch(config(launch)) }?;
        Ok(())
    }

    /// Queues point source `s` at step `step` (one thread).
    fn source(&self, s: &PointSource, step: u64) -> Result<(), CudaError> {
        let v = T::from_f64(s.amplitude * s.waveform.value(source_time(s, step, self.dt)));
        let values = self.field_address(s.component)?;
        let offset = self.storage.offset(s.cell).ok_or_else(|| {
            CudaError::new(
                ChunkErrorKind::InvalidArgument,
                "a source outside the chunk",
            )
        })? as i64;
        let hard = i32::from(s.kind == SourceKind::Hard);
        let (ids, uniform) = self.ids(s.component);
        let coefficients = self.coefficients_address(s.component);
        let mut args = self.stream.launch_builder(&self.kernels.source);
        args.arg(&values)
            .arg(&offset)
            .arg(&v)
            .arg(&hard)
            .arg(&ids)
            .arg(&uniform)
            .arg(&coefficients);
        let one = linear_launch(1)?.expect("one thread");
        // SAFETY: the arguments match `yee_source` (kernels/source.cu); `offset` lies in the
        // field's storage (checked above).
        unsafe { args.launch(config(one)) }?;
        Ok(())
    }

    /// Queues a copy between `layer` of component `c` and `count` values at `address`
    /// (device memory): a pack (`true`) or an unpack.
    fn copy_box(
        &self,
        c: Component,
        layer: Box3,
        address: u64,
        pack: bool,
    ) -> Result<(), CudaError> {
        let Some(launch) = linear_launch(layer.cells())? else {
            return Ok(());
        };
        if !self.storage.contains([layer.lo, layer.hi]) {
            return Err(CudaError::new(
                ChunkErrorKind::InvalidArgument,
                format!("the box {layer:?} is not inside the chunk's storage"),
            ));
        }
        let values = self.field_address(c)?;
        let region = RawRegion::new([layer.lo, layer.hi], self.storage);
        let pack = i32::from(pack);
        let mut args = self.stream.launch_builder(&self.kernels.box_copy);
        args.arg(&values).arg(&address).arg(&region).arg(&pack);
        // SAFETY: the arguments match `yee_box_copy` (kernels/box.cu); the box lies
        // in the storage (checked) and callers give `address` room for its cells.
        unsafe { args.launch(config(launch)) }?;
        Ok(())
    }

    /// Copies component `c` over `region` to the host (packed on the device, then one copy).
    fn read_box(&self, c: Component, region: Box3, out: &mut [T]) -> Result<(), CudaError> {
        let cells = region.cells();
        if out.len() < cells {
            return Err(CudaError::new(
                ChunkErrorKind::InvalidArgument,
                "the output is too short",
            ));
        }
        if cells == 0 {
            return Ok(());
        }
        let packed = self.stream.alloc_zeros::<T>(cells)?;
        self.copy_box(c, region, self.address(&packed, 0), true)?;
        self.stream.memcpy_dtoh(&packed, &mut out[..cells])?;
        self.stream.synchronize()?;
        Ok(())
    }

    /// Checks that `needed` values fit the staging buffer.
    fn staging_holds(&self, needed: usize) -> Result<(), CudaError> {
        match needed <= self.staging.len() {
            true => Ok(()),
            false => Err(CudaError::new(
                ChunkErrorKind::InvalidArgument,
                "the halos of one call do not fit the staging buffer",
            )),
        }
    }
}

impl<T: DeviceReal> Chunk for CudaChunk<T> {
    type Value = T;
    type Buffer = PinnedBuffer<T>;
    type Error = CudaError;
    const CAPABILITIES: Capabilities = Capabilities {
        asynchronous: true,
        migration: false,
    };

    fn owned(&self) -> Box3 {
        self.owned
    }

    fn ghost(&self) -> [usize; 3] {
        self.mode.active_axes().map(usize::from)
    }

    fn phases(&self) -> usize {
        2
    }

    /// Queues the phase's curl update, CPML corrections and sources over `region`, in the
    /// scalar chunk's order.
    fn submit(&mut self, step: u64, phase: usize, region: Box3) -> Result<(), CudaError> {
        let electric = phase == ELECTRIC_PHASE;
        for c in phase_components(self.mode, phase) {
            self.curl(c, region)?;
        }
        for slab in &self.slabs {
            for c in phase_components(self.mode, phase) {
                self.cpml(slab, c, region)?;
            }
        }
        for s in &self.sources {
            if s.component.is_electric() == electric && region.contains(s.cell) {
                self.source(s, step)?;
            }
        }
        Ok(())
    }

    fn wait(&mut self) -> Result<(), CudaError> {
        Ok(self.stream.synchronize()?)
    }

    fn buffer(&self, bytes: usize) -> Result<PinnedBuffer<T>, CudaError> {
        PinnedBuffer::with_bytes(&self.context, bytes)
    }

    fn halo_len(&self, phase: usize, toward: Direction) -> usize {
        halo::halo_values(self.mode, self.owned, phase, toward, FACES)
    }

    fn ghost_len(&self, phase: usize, from: Direction) -> usize {
        halo::ghost_values(self.mode, self.owned, phase, from, FACES)
    }

    /// Packs each halo on the device into the staging buffer (one component after another),
    /// then queues its copy into the pinned buffer.
    fn pack_halos(
        &mut self,
        phase: usize,
        towards: &[Direction],
        out: &mut [PinnedBuffer<T>],
    ) -> Result<(), CudaError> {
        let mut at = 0;
        for (&toward, buffer) in towards.iter().zip(out) {
            let Some((layer, _)) = halo::halo(self.mode, self.owned, phase, toward, FACES) else {
                continue;
            };
            let start = at;
            let len = self.halo_len(phase, toward);
            self.staging_holds(start + len)?;
            if buffer.len() < len {
                return Err(CudaError::new(
                    ChunkErrorKind::InvalidArgument,
                    "a halo buffer is too short",
                ));
            }
            for c in phase_components(self.mode, phase) {
                self.copy_box(c, layer, self.address(&self.staging, at), true)?;
                at += layer.cells();
            }
            self.stream.memcpy_dtoh(
                &self.staging.slice(start..at),
                &mut buffer.values_mut()[..len],
            )?;
        }
        Ok(())
    }

    /// Queues each arrived halo's copy into the staging buffer, then its unpack into the
    /// ghost cells on that side.
    fn unpack_halos(
        &mut self,
        phase: usize,
        froms: &[Direction],
        data: &[PinnedBuffer<T>],
    ) -> Result<(), CudaError> {
        let mut at = 0;
        for (&from, buffer) in froms.iter().zip(data) {
            let Some((layer, _)) = halo::ghosts(self.mode, self.owned, phase, from, FACES) else {
                continue;
            };
            let start = at;
            let len = self.ghost_len(phase, from);
            self.staging_holds(start + len)?;
            if buffer.len() < len {
                return Err(CudaError::new(
                    ChunkErrorKind::InvalidArgument,
                    "a halo buffer is too short",
                ));
            }
            let mut target = self.staging.slice_mut(start..start + len);
            self.stream
                .memcpy_htod(&buffer.values()[..len], &mut target)?;
            for c in phase_components(self.mode, phase) {
                self.copy_box(c, layer, self.address(&self.staging, at), false)?;
                at += layer.cells();
            }
        }
        Ok(())
    }

    fn work(&self, region: Box3) -> f64 {
        work_of(
            region,
            self.slabs.iter().map(|s| s.layer),
            core::iter::empty(),
            self.sources.iter().map(|s| s.cell),
            self.probe_cells.iter().copied(),
            0.0,
            &self.costs,
        )
    }
}

impl<T: DeviceReal> YeeFields for CudaChunk<T> {
    fn read_component(
        &mut self,
        c: Component,
        region: Box3,
        out: &mut [T],
    ) -> Result<bool, CudaError> {
        if !self.mode.has(c) {
            return Ok(false);
        }
        self.read_box(c, region, out)?;
        Ok(true)
    }

    /// A probe read: the one-node box packed on the device and copied back.
    fn value(&mut self, c: Component, cell: Index3) -> Result<T, CudaError> {
        let mut out = [T::zero()];
        self.read_box(c, Box3::new(cell, cell.map(|x| x + 1)), &mut out)?;
        Ok(out[0])
    }

    fn read_dft(
        &mut self,
        monitor: usize,
        c: Component,
        region: Box3,
        out: &mut [T],
    ) -> Result<bool, CudaError> {
        let _ = (c, region, out);
        Err(CudaError::new(
            ChunkErrorKind::InvalidArgument,
            format!("no DFT monitor {monitor}: the CUDA backend runs none"),
        ))
    }

    /// Reads the divergence flag; when the curl kernel raised it, finds the first non-finite
    /// node on the device (components in order, the smallest order key over `regions`).
    fn first_non_finite(
        &mut self,
        regions: &[Box3],
    ) -> Result<Option<(Component, Index3)>, CudaError> {
        let mut flag = [0i32];
        self.stream.memcpy_dtoh(&self.flag, &mut flag)?;
        self.stream.synchronize()?;
        if flag[0] == 0 {
            return Ok(None);
        }
        self.stream.memset_zeros(&mut self.flag)?;
        let grid = self.grid.map(|g| g as i64);
        for &c in self.mode.components() {
            self.stream.memcpy_htod(&[FINITE_KEY], &mut self.key)?;
            for r in regions {
                let r = r.intersect(&self.owned);
                let Some(launch) = box_launch(r.extent())? else {
                    continue;
                };
                let values = self.field_address(c)?;
                let region = RawRegion::new([r.lo, r.hi], self.storage);
                let key = self.address(&self.key, 0);
                let mut args = self.stream.launch_builder(&self.kernels.non_finite);
                args.arg(&values)
                    .arg(&region)
                    .arg(&grid[0])
                    .arg(&grid[1])
                    .arg(&grid[2])
                    .arg(&key);
                // SAFETY: the arguments match `yee_non_finite` (kernels/finite.cu); `r` lies
                // in the owned box.
                unsafe { args.launch(config(launch)) }?;
            }
            let mut key = [FINITE_KEY];
            self.stream.memcpy_dtoh(&self.key, &mut key)?;
            self.stream.synchronize()?;
            if key[0] != FINITE_KEY {
                return Ok(Some((c, cell_of_key(key[0], self.grid))));
            }
        }
        Ok(None)
    }
}
