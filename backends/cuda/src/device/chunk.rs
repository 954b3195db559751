//! The device chunk: one rank's block of a Yee grid in device memory, stepped by the kernels
//! of `kernels/*.cu` on a driver ([`Driver`]: a GPU through cudarc, or the emulated device).
//! Each phase's kernels are queued on the chunk's compute stream by [`Chunk::submit`]; the
//! packs and unpacks of its halos go through one device staging buffer, copied to and from
//! the message buffers on a second (copy) stream, ordered against the kernels by events;
//! [`Chunk::wait`] synchronises both streams (the `Chunk` trait's flush). Under the
//! overlapping driver the second stream is the border stream (Kim & Park 2012's kernel split,
//! [`Chunk::splits_border`]): the border shell ([`Chunk::submit_border`]), the halo packs, the
//! copies both ways and the unpacks run there while the interior runs on the compute stream;
//! the shell waits for the interior before it, the interior for the unpacks before it
//! (events), and [`Chunk::wait_halos`] waits for the border stream alone. The materials, CPML
//! tables and walls come from the scalar backend's [`YeeState`] built on the host and
//! uploaded, so the arrays are the oracle's own.
//!
//! Runs every physics feature of the scalar chunk, on real (f32, f64) and complex (c32, c64)
//! fields: the curl update (uniform or per-node materials, lossy media, masks), CPML, PEC/PMC
//! walls (nodes outside each component's free box are never updated), periodic faces and
//! neighbours (halos) with the Bloch phase where a halo wraps, point sources, TF/SF plane
//! waves, DFT monitors, dispersive media, smoothing's off-diagonal tensor nodes, probes, the
//! divergence report, and migration (slabs in the scalar chunk's format, resizing in place),
//! smoothing's off-diagonal loss at a lossy curved surface (issue 51: the running sums live on
//! the device, in the slabs as the scalar chunk packs them). Refused by name, as on the scalar
//! chunk: a Bloch phase on real fields.

use core::marker::PhantomData;

use yee_core::{Box3, Capabilities, Chunk, ChunkErrorKind, Direction, Index3, Real};
use yee_em::bloch;
use yee_em::halo::{self, ELECTRIC_PHASE, phase_components};
use yee_em::load::work_of;
use yee_em::{
    Component, Costs, DftMonitor, IncidentLine, Mode, PointSource, Setup, SourceKind, YeeFields,
};
use yee_scalar::dispersive::Pass;
use yee_scalar::dispersive_nodes::DispersiveNodes;
use yee_scalar::source::source_time;
use yee_scalar::state::YeeState;
use yee_scalar::tensor_nodes::TensorNodes;

use super::driver::{Arg, DeviceTerm, DeviceTerms, Driver};
use super::{CudaError, Cudarc, DeviceReal, DeviceScalar, MessageBuffer, PinnedBuffer};
use crate::kernels::{self, KernelFile};
use crate::layout::{
    FINITE_KEY, Launch, RawRegion, Storage, box_launch, cell_of_key, linear_launch,
};
use crate::memory::halo_staging_values;

/// The kernels of one value type.
#[derive(Debug)]
struct Kernels<D: Driver> {
    curl: D::Kernel,
    cpml: D::Kernel,
    source: D::Kernel,
    box_copy: D::Kernel,
    non_finite: D::Kernel,
    dft: D::Kernel,
    incident: D::Kernel,
    poles: D::Kernel,
    gather: D::Kernel,
    tensor: D::Kernel,
    bloch: D::Kernel,
}

impl<D: Driver> Kernels<D> {
    /// Every kernel file built for `T` and loaded on `driver`.
    fn load<T: DeviceScalar>(driver: &D) -> Result<Self, CudaError> {
        let function = |file: KernelFile, entry: &str| driver.kernel(file, entry, T::PRECISION);
        Ok(Kernels {
            curl: function(kernels::CURL, "yee_curl")?,
            cpml: function(kernels::CPML, "yee_cpml")?,
            source: function(kernels::SOURCE, "yee_source")?,
            box_copy: function(kernels::BOX, "yee_box_copy")?,
            non_finite: function(kernels::FINITE, "yee_non_finite")?,
            dft: function(kernels::DFT, "yee_dft")?,
            incident: function(kernels::INCIDENT, "yee_incident")?,
            poles: function(kernels::POLES, "yee_poles")?,
            gather: function(kernels::GATHER, "yee_gather")?,
            tensor: function(kernels::TENSOR, "yee_tensor")?,
            bloch: function(kernels::BLOCH, "yee_bloch")?,
        })
    }
}

/// The ψ arrays of one CPML layer inside the chunk.
#[derive(Debug)]
struct DeviceSlab<T: DeviceScalar, D: Driver> {
    /// The axis it absorbs along.
    axis: yee_core::Axis,
    /// The whole layer.
    layer: Box3,
    /// Its cells in the chunk (ψ's box).
    region: Box3,
    /// ψ per component differentiating along `axis`.
    psi: [Option<D::Memory<T>>; 6],
}

/// One DFT monitor's running sums inside the chunk (the scalar chunk's `DftPart` on the
/// device): per component, `[re, im]` per frequency per node of `part`, x fastest.
#[derive(Debug)]
struct DeviceDft<T: DeviceScalar, D: Driver> {
    monitor: DftMonitor,
    frequencies: Vec<f64>,
    /// The monitor's nodes inside the chunk's owned box.
    part: Box3,
    sums: [Option<D::Memory<T>>; 6],
    /// The step's weights, written before each pass: one array per stream (the compute
    /// stream's, the border's), so the border and the interior never share one.
    weights: [D::Memory<T::Real>; 2],
}

impl<T: DeviceScalar, D: Driver> DeviceDft<T, D> {
    /// Values per node per component.
    fn per_node(&self) -> usize {
        self.monitor.values_per_node()
    }

    /// `nodes` with x stretched by the values per node: value `j` of node `p` lies at
    /// x = p.x·k + j, so the box copy moves a node's values together, in the scalar chunk's
    /// order (node after node, x fastest, values fastest of all).
    fn values_box(&self, nodes: Box3) -> Box3 {
        let k = self.per_node() as i64;
        let mut b = nodes;
        b.lo[0] *= k;
        b.hi[0] *= k;
        b
    }

    /// The storage of the sums in the coordinates of [`DeviceDft::values_box`].
    fn storage(&self) -> Storage {
        let b = self.values_box(self.part);
        Storage {
            lo: b.lo,
            extent: b.extent(),
        }
    }
}

/// The polarisations of one electric component's dispersive nodes on the device (the scalar
/// chunk's `DispersiveNodes`): per node its cell, storage offset, first pole and material;
/// the poles' P in two slots (slot `s` from value `s × poles`) and each node's `Σ kₚ`.
#[derive(Debug)]
struct DevicePoles<T: DeviceScalar, D: Driver> {
    component: Component,
    /// The nodes on the host (cells, poles, runs: slabs, resizes and work), P not kept.
    nodes: DispersiveNodes<T>,
    cells: D::Memory<i64>,
    offsets: D::Memory<i64>,
    first: D::Memory<i64>,
    material: D::Memory<i32>,
    slots: D::Memory<T>,
    scratch: D::Memory<T>,
}

impl<T: DeviceScalar, D: Driver> DevicePoles<T, D> {
    /// Poles over all nodes (the length of a slot).
    fn poles(&self) -> usize {
        self.nodes.first.last().copied().unwrap_or(0)
    }

    /// The entries of `slots` of the nodes of `region`, in the scalar chunk's slab order
    /// (node, slot, pole).
    fn slab_entries(&self, region: Box3) -> Vec<i64> {
        let (first, poles) = (&self.nodes.first, self.poles());
        let mut entries = Vec::new();
        for (n, &cell) in self.nodes.cells.iter().enumerate() {
            if region.contains(cell) {
                for s in 0..2 {
                    entries.extend((first[n]..first[n + 1]).map(|j| (s * poles + j) as i64));
                }
            }
        }
        entries
    }

    /// The entries of the nodes both `self` and `to` hold: `(in self, in to)`, each slot.
    fn kept_entries(&self, to: &DevicePoles<T, D>) -> (Vec<i64>, Vec<i64>) {
        let (a, b) = (&self.nodes, &to.nodes);
        let key = |p: &Index3| [p[2], p[1], p[0]];
        let (mut from, mut into) = (Vec::new(), Vec::new());
        let (mut i, mut j) = (0, 0);
        while i < a.cells.len() && j < b.cells.len() {
            match key(&a.cells[i]).cmp(&key(&b.cells[j])) {
                core::cmp::Ordering::Less => i += 1,
                core::cmp::Ordering::Greater => j += 1,
                core::cmp::Ordering::Equal => {
                    for s in 0..2 {
                        let len = a.first[i + 1] - a.first[i];
                        let at = |first: usize, poles: usize| (s * poles + first) as i64;
                        from.extend((0..len).map(|p| at(a.first[i], self.poles()) + p as i64));
                        into.extend((0..len).map(|p| at(b.first[j], to.poles()) + p as i64));
                    }
                    i += 1;
                    j += 1;
                }
            }
        }
        (from, into)
    }
}

/// The tensor nodes of one component on the device (the scalar chunk's `TensorNodes`): per
/// node its cell, storage offset, the storage offsets of its eight neighbours (four of each
/// other component, −1 where that node does not evolve), its two weights and two loss
/// weights, and where a node carries a loss the list's running sums (two per node).
#[derive(Debug)]
struct DeviceTensor<T: DeviceScalar, D: Driver> {
    component: Component,
    /// The nodes on the host (cells and loss weights: slabs and resizes), sums not kept.
    nodes: TensorNodes<T>,
    count: usize,
    cells: D::Memory<i64>,
    offsets: D::Memory<i64>,
    neighbours: D::Memory<i64>,
    weights: D::Memory<T::Real>,
    loss: D::Memory<T::Real>,
    integrals: Option<D::Memory<T>>,
}

impl<T: DeviceScalar, D: Driver> DeviceTensor<T, D> {
    /// The entries of `integrals` of the nodes of `region` that carry sums, in the scalar
    /// chunk's slab order (node, then its two sums).
    fn slab_entries(&self, region: Box3) -> Vec<i64> {
        let mut entries = Vec::new();
        if self.integrals.is_some() {
            for (n, node) in self.nodes.nodes.iter().enumerate() {
                if region.contains(node.cell) && carries_sum(node) {
                    entries.extend([2 * n as i64, 2 * n as i64 + 1]);
                }
            }
        }
        entries
    }

    /// The entries of the sums both `self` and `to` hold (by cell): `(in self, in to)`.
    fn kept_entries(&self, to: &DeviceTensor<T, D>) -> (Vec<i64>, Vec<i64>) {
        let (mut from, mut into) = (Vec::new(), Vec::new());
        if self.integrals.is_none() || to.integrals.is_none() {
            return (from, into);
        }
        let kept: std::collections::BTreeMap<Index3, usize> = (self.nodes.nodes.iter().enumerate())
            .map(|(n, node)| (node.cell, n))
            .collect();
        for (j, node) in to.nodes.nodes.iter().enumerate() {
            if let Some(&i) = kept.get(&node.cell) {
                from.extend([2 * i as i64, 2 * i as i64 + 1]);
                into.extend([2 * j as i64, 2 * j as i64 + 1]);
            }
        }
        (from, into)
    }
}

/// Whether a tensor node carries running sums: a loss weight is not zero (the scalar
/// backend's rule, `tensor_nodes::carries_sum`).
fn carries_sum<R: Real>(node: &yee_scalar::tensor_nodes::TensorNode<R>) -> bool {
    node.loss_weights.iter().any(|&w| w != R::from_f64(0.0))
}

/// The pole tables of every material id (`YeeState::ade`, `drive`) on the device.
#[derive(Debug)]
struct PoleTables<T: DeviceScalar, D: Driver> {
    /// Material `m`'s poles are entries `steps_first[m]..steps_first[m + 1]`.
    steps_first: D::Memory<i64>,
    /// Three coefficients per pole.
    steps: D::Memory<T::Real>,
    explicit: D::Memory<i32>,
    drive: D::Memory<T::Real>,
    /// Whether a pole is Debye's (the third pass has work).
    debye: bool,
}

/// The arrays of one component's material: ids in device memory, and the id every node
/// shares if it has one (the kernels then read no id).
#[derive(Debug)]
struct Materials<D: Driver> {
    ids: Option<D::Memory<u16>>,
    uniform: Option<u16>,
}

/// The arrays of a chunk that depend on the box it owns (rebuilt by [`Chunk::resize`]).
#[derive(Debug)]
struct Arrays<T: DeviceScalar, D: Driver> {
    owned: Box3,
    storage: Storage,
    fields: [Option<D::Memory<T>>; 6],
    materials: [Materials<D>; 6],
    /// `[decay, gain]` per material id, E then H.
    coefficients: [D::Memory<T::Real>; 2],
    /// `[b, c, 1/κ]` per global coordinate, per axis, at integer and half positions.
    stretch: [[D::Memory<T::Real>; 2]; 3],
    free: [Box3; 6],
    slabs: Vec<DeviceSlab<T, D>>,
    sources: Vec<PointSource>,
    probe_cells: Vec<Index3>,
    /// The ghosts each phase fills (edges and corners too with tensor nodes).
    halo_shape: halo::HaloShape,
    /// The DFT monitors' sums.
    dft: Vec<DeviceDft<T, D>>,
    /// The dispersive nodes of each electric component that has some, and the pole tables.
    poles: Vec<DevicePoles<T, D>>,
    tables: Option<PoleTables<T, D>>,
    /// The tensor nodes of each component that has some.
    tensor: Vec<DeviceTensor<T, D>>,
    /// Each plane wave's incident field on its auxiliary grid (advanced on the host, kept
    /// when the chunk resizes).
    lines: Vec<IncidentLine>,
    /// The offsets and incident values of the TF/SF corrections of one launch series, one
    /// pair per stream (the compute stream's, the border's).
    incident_offsets: [D::Memory<i64>; 2],
    incident_values: [D::Memory<T::Real>; 2],
    /// Every halo of one phase, packed on the device before the copy to pinned memory.
    staging: D::Memory<T>,
}

impl<T: DeviceScalar, D: Driver> Arrays<T, D> {
    /// The arrays of the chunk owning `owned` of `setup`, built on the host as the scalar
    /// backend builds them ([`YeeState`]), then uploaded on `stream`.
    fn upload(
        driver: &D,
        stream: &D::Stream,
        setup: &Setup,
        owned: Box3,
    ) -> Result<Self, CudaError> {
        let state = YeeState::<T>::new(setup, owned);
        supported::<T>(setup)?;
        let (poles, tables) = upload_poles(driver, stream, &state)?;
        let tensor = upload_tensor(driver, stream, &state, setup.mode)?;
        let mut dft = Vec::new();
        for d in &state.dft {
            let len = (d.part.cells() * d.monitor.values_per_node()).max(1);
            let mut sums: [Option<D::Memory<T>>; 6] = Default::default();
            for (to, from) in sums.iter_mut().zip(&d.sums) {
                if from.is_some() {
                    *to = Some(driver.alloc_zeros::<T>(stream, len)?);
                }
            }
            let weights =
                || driver.alloc_zeros::<T::Real>(stream, d.monitor.values_per_node().max(1));
            dft.push(DeviceDft {
                monitor: d.monitor,
                frequencies: d.frequencies.clone(),
                part: d.part,
                sums,
                weights: [weights()?, weights()?],
            });
        }
        if state.too_many_materials {
            return Err(CudaError::new(
                ChunkErrorKind::InvalidArgument,
                "the chunk's nodes need more than 65536 distinct materials",
            ));
        }
        let upload = |values: &[T]| driver.upload(stream, values);
        let real = |values: &[T::Real]| driver.upload(stream, values);
        let flat =
            |pairs: &[[T::Real; 2]]| -> Vec<T::Real> { pairs.iter().flatten().copied().collect() };
        let table = |t: &[[T::Real; 3]]| -> Vec<T::Real> { t.iter().flatten().copied().collect() };
        let mut fields: [Option<D::Memory<T>>; 6] = Default::default();
        let mut materials: [Materials<D>; 6] = core::array::from_fn(|_| Materials {
            ids: None,
            uniform: None,
        });
        for &c in setup.mode.components() {
            let f = state.field(c).expect("the mode carries it");
            fields[c.index()] = Some(upload(f.as_slice())?);
            materials[c.index()] = Materials {
                // One id per node, spelled out where the chunk keeps one for all.
                ids: Some(driver.upload(stream, &state.material_ids_of(c)[..])?),
                uniform: state.uniform_material[c.index()],
            };
        }
        let coefficients = [real(&flat(&state.electric))?, real(&flat(&state.magnetic))?];
        let mut stretch = Vec::new();
        for s in &state.stretch {
            stretch.push([real(&table(&s.integer))?, real(&table(&s.half))?]);
        }
        let Ok(stretch) = <[[D::Memory<T::Real>; 2]; 3]>::try_from(stretch) else {
            unreachable!("three axes")
        };
        let mut slabs = Vec::new();
        for s in &state.slabs {
            let mut psi: [Option<D::Memory<T>>; 6] = Default::default();
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
        let staging_len = halo_staging_values(setup.mode, owned, state.halo_shape).max(1);
        Ok(Arrays {
            owned,
            storage: Storage {
                lo: storage_box.lo,
                extent: storage_box.extent(),
            },
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
            dft,
            poles,
            tables,
            tensor,
            halo_shape: state.halo_shape,
            lines: state.lines.clone(),
            incident_offsets: [
                driver.alloc_zeros::<i64>(stream, 1)?,
                driver.alloc_zeros::<i64>(stream, 1)?,
            ],
            incident_values: [
                driver.alloc_zeros::<T::Real>(stream, 1)?,
                driver.alloc_zeros::<T::Real>(stream, 1)?,
            ],
            staging: driver.alloc_zeros::<T>(stream, staging_len)?,
        })
    }
}

/// One rank's block of a Yee grid on a CUDA device (driver `D`: a GPU, or the emulated
/// device). Kernels run on the compute stream; the copies between device memory and pinned
/// memory (halos, slabs) on the copy stream, ordered against the packs and unpacks by events.
/// With the overlapping driver (Kim & Park 2012's kernel split, [`Chunk::splits_border`])
/// the copy stream is the border stream: a phase's border shell, its halo packs, the copies
/// both ways and the unpacks run there while the interior runs on the compute stream; the
/// shell waits for the interiors before it (event `computed`), the interior for the unpacks
/// before it (event `copied`).
#[derive(Debug)]
pub struct CudaChunk<'s, T: DeviceScalar, D: Driver = Cudarc, B = PinnedBuffer<T, D>> {
    driver: D,
    /// The kernels, in the order the scalar chunk updates.
    compute: D::Stream,
    /// The copies to and from pinned memory.
    copy: D::Stream,
    /// Recorded on `compute` before `copy` touches memory the kernels use.
    computed: D::Event,
    /// Recorded on `copy` after its copies into device memory (and a border phase's unpacks).
    copied: D::Event,
    /// Kernels are being queued on the copy stream: a phase's border shell or its halos
    /// ([`Chunk::submit_border`]).
    on_border: bool,
    /// The phase's border shell went to the copy stream: its halos are packed and unpacked
    /// there too, beside the interior.
    border_phase: bool,
    kernels: Kernels<D>,
    setup: Setup<'s>,
    mode: Mode,
    grid: [usize; 3],
    dt: f64,
    costs: Costs,
    arrays: Arrays<T, D>,
    /// The slabs of the last [`Chunk::pack_slabs`] or [`Chunk::unpack_slabs`] on the device,
    /// kept until the next (their copies may still be in flight).
    slab_values: Option<D::Memory<T>>,
    /// Raised by the curl kernel when it stores a NaN or an infinity.
    flag: D::Memory<i32>,
    /// The first non-finite node's order key (atomicMin).
    key: D::Memory<u64>,
    /// Messages go through buffers of type `B`.
    buffers: PhantomData<fn() -> B>,
}

/// The dispersive nodes of `state` and its pole tables, uploaded on `stream`.
#[allow(clippy::type_complexity)]
fn upload_poles<T: DeviceScalar, D: Driver>(
    driver: &D,
    stream: &D::Stream,
    state: &YeeState<T>,
) -> Result<(Vec<DevicePoles<T, D>>, Option<PoleTables<T, D>>), CudaError> {
    let mut poles = Vec::new();
    for (c, nodes) in state.dispersive.iter().enumerate() {
        let Some(nodes) = nodes else {
            continue;
        };
        let component = Component::ALL[c];
        let ids = state.material_ids_of(component);
        let long = |v: &[usize]| v.iter().map(|&x| x as i64).collect::<Vec<i64>>();
        let cells: Vec<i64> = nodes.cells.iter().flatten().copied().collect();
        let material: Vec<i32> = (nodes.offsets.iter()).map(|&o| i32::from(ids[o])).collect();
        let mut host = nodes.clone();
        host.slots = [Vec::new(), Vec::new()];
        host.scratch = Vec::new();
        poles.push(DevicePoles {
            component,
            cells: driver.upload(stream, &cells)?,
            offsets: driver.upload(stream, &long(&nodes.offsets))?,
            first: driver.upload(stream, &long(&nodes.first))?,
            material: driver.upload(stream, &material)?,
            slots: driver.upload(stream, &[&nodes.slots[0][..], &nodes.slots[1][..]].concat())?,
            scratch: driver.upload(stream, &nodes.scratch)?,
            nodes: host,
        });
    }
    if poles.is_empty() {
        return Ok((poles, None));
    }
    let mut steps_first = vec![0i64];
    let (mut steps, mut explicit) = (Vec::new(), Vec::new());
    for material in &state.ade {
        for s in material {
            steps.extend(s.c);
            explicit.push(i32::from(s.explicit));
        }
        steps_first.push(explicit.len() as i64);
    }
    let tables = PoleTables {
        steps_first: driver.upload(stream, &steps_first)?,
        steps: driver.upload(stream, &steps)?,
        debye: explicit.contains(&0),
        explicit: driver.upload(stream, &explicit)?,
        drive: driver.upload(stream, &state.drive)?,
    };
    Ok((poles, Some(tables)))
}

/// The tensor nodes of `state` (mode `mode`), uploaded on `stream`.
fn upload_tensor<T: DeviceScalar, D: Driver>(
    driver: &D,
    stream: &D::Stream,
    state: &YeeState<T>,
    mode: Mode,
) -> Result<Vec<DeviceTensor<T, D>>, CudaError> {
    use yee_scalar::tensor_nodes::{neighbours, others};
    let active = mode.active_axes();
    let storage_box = state.owned.grow(active.map(i64::from));
    let mut out = Vec::new();
    for (c, list) in state.tensor.iter().enumerate() {
        let Some(list) = list else {
            continue;
        };
        let component = Component::ALL[c];
        let (a, electric) = (component.axis().index(), component.is_electric());
        let (mut cells, mut offsets, mut around, mut weights) = (vec![], vec![], vec![], vec![]);
        let mut loss = vec![];
        for node in &list.nodes {
            cells.extend(node.cell);
            offsets.push(node.offset as i64);
            weights.extend(node.weights);
            loss.extend(node.loss_weights);
            for (k, b) in others(a).into_iter().enumerate() {
                for (n, q) in neighbours(electric, a, b, node.cell, active)
                    .into_iter()
                    .enumerate()
                {
                    let present = node.present & (1 << (4 * k + n)) != 0;
                    around.push(match present {
                        true => storage_box.linear_index(q) as i64,
                        false => -1,
                    });
                }
            }
        }
        if offsets.is_empty() {
            continue;
        }
        let sums: Vec<T> = list.integrals.iter().flatten().copied().collect();
        out.push(DeviceTensor {
            component,
            count: offsets.len(),
            cells: driver.upload(stream, &cells)?,
            offsets: driver.upload(stream, &offsets)?,
            neighbours: driver.upload(stream, &around)?,
            weights: driver.upload(stream, &weights)?,
            loss: driver.upload(stream, &loss)?,
            integrals: match sums.is_empty() {
                true => None,
                false => Some(driver.upload(stream, &sums)?),
            },
            nodes: list.without_sums(),
        });
    }
    Ok(out)
}

/// Refuses a setup fields of type `T` cannot run, as the scalar chunk does: a Bloch phase on
/// real fields.
fn supported<T: DeviceScalar>(setup: &Setup) -> Result<(), CudaError> {
    setup
        .validate_value_type(T::COMPLEX)
        .map_err(|e| CudaError::new(ChunkErrorKind::InvalidArgument, e.to_string()))
}

impl<'s, T: DeviceScalar, D: Driver, B: MessageBuffer<T, D>> CudaChunk<'s, T, D, B> {
    /// The chunk owning `owned` of a validated `setup` on the device of rank `rank`: its
    /// arrays built on the host as the scalar backend builds them, then uploaded.
    pub fn new(
        setup: &Setup<'s>,
        owned: Box3,
        costs: Costs,
        rank: usize,
    ) -> Result<Self, CudaError> {
        let driver = D::open(rank)?;
        let compute = driver.stream()?;
        let copy = driver.stream()?;
        let arrays = Arrays::upload(&driver, &compute, setup, owned)?;
        let kernels = Kernels::load::<T>(&driver)?;
        let flag = driver.alloc_zeros::<i32>(&compute, 1)?;
        let key = driver.alloc_zeros::<u64>(&compute, 1)?;
        driver.synchronize(&compute)?;
        Ok(CudaChunk {
            computed: driver.event()?,
            copied: driver.event()?,
            on_border: false,
            border_phase: false,
            driver,
            compute,
            copy,
            kernels,
            setup: *setup,
            mode: setup.mode,
            grid: setup.grid,
            dt: setup.dt(),
            costs,
            arrays,
            slab_values: None,
            flag,
            key,
            buffers: PhantomData,
        })
    }

    /// The stream kernels are queued on now: the copy stream for a border phase's shell and
    /// halos, the compute stream otherwise.
    fn stream(&self) -> &D::Stream {
        match self.on_border {
            true => &self.copy,
            false => &self.compute,
        }
    }

    /// Which of a pair of per-stream arrays the kernels queued now use (0: compute stream).
    fn lane(&self) -> usize {
        usize::from(self.on_border)
    }

    /// The device address of `memory`, `offset` values in (for the stream kernels are queued
    /// on now).
    fn address<X: super::DeviceValue>(&self, memory: &D::Memory<X>, offset: usize) -> u64 {
        self.driver.address(memory, self.stream()) + (offset * size_of::<X>()) as u64
    }

    /// The address of component `c`'s field (carried by the mode: checked by callers).
    fn field_address(&self, c: Component) -> Result<u64, CudaError> {
        let f = self.arrays.fields[c.index()].as_ref().ok_or_else(|| {
            CudaError::new(
                ChunkErrorKind::InvalidArgument,
                format!("the mode does not carry {c:?}"),
            )
        })?;
        Ok(self.address(f, 0))
    }

    /// The id pointer (0: uniform) and the uniform id of component `c`.
    fn ids(&self, c: Component) -> (u64, i32) {
        let m = &self.arrays.materials[c.index()];
        match (m.uniform, &m.ids) {
            (Some(id), _) => (0, i32::from(id)),
            (None, Some(ids)) => (self.address(ids, 0), 0),
            (None, None) => (0, 0),
        }
    }

    /// The coefficient table of the phase of `c`.
    fn coefficients_address(&self, c: Component) -> u64 {
        self.phase_coefficients(c.is_electric())
    }

    /// The coefficient table of the electric (`electric`) or magnetic phase.
    fn phase_coefficients(&self, electric: bool) -> u64 {
        self.address(&self.arrays.coefficients[usize::from(!electric)], 0)
    }

    /// The stretch table of component `c` along `axis` (half positions where `c` is
    /// staggered along it).
    fn stretch_address(&self, c: Component, axis: yee_core::Axis) -> u64 {
        let half = c.stagger()[axis.index()] != 0.0;
        self.address(&self.arrays.stretch[axis.index()][usize::from(half)], 0)
    }

    /// The storage strides (x fastest).
    fn strides(&self) -> [i64; 3] {
        let [ex, ey, _] = self.arrays.storage.extent.map(|e| e as i64);
        [1, ex, ex * ey]
    }

    /// Queues `kernel` over `launch` on the stream kernels are queued on now ([`Self::stream`]).
    ///
    /// # Safety
    /// As [`Driver::launch`]: `args` match the kernel and their addresses are the chunk's
    /// memory, with room for what the kernel touches.
    unsafe fn launch(
        &self,
        kernel: &D::Kernel,
        launch: Launch,
        args: &[Arg],
    ) -> Result<(), CudaError> {
        // SAFETY: the caller's contract.
        unsafe { self.driver.launch(self.stream(), kernel, launch, args) }
    }

    /// Queues the curl update of the components of `phase` over `region` (∩ each one's free
    /// box), all in one launch over the box holding them (`yee_curl`, kernels/curl.cu).
    fn curl(&self, phase: usize, region: Box3) -> Result<(), CudaError> {
        let storage = self.arrays.storage;
        let empty = RawRegion::new([[0; 3]; 2], storage);
        let mut args = Vec::with_capacity(20);
        let mut count = 0;
        let mut hull: Option<Box3> = None;
        for c in phase_components(self.mode, phase) {
            let r = region.intersect(&self.arrays.free[c.index()]);
            if r.is_empty() {
                continue;
            }
            hull = Some(hull.map_or(r, |h| h.hull(&r)));
            let (ids, uniform) = self.ids(c);
            args.extend([
                Arg::Address(self.field_address(c)?),
                Arg::Terms(self.terms(c)?),
                Arg::Address(ids),
                Arg::Int(uniform),
                Arg::Region(RawRegion::new([r.lo, r.hi], storage)),
            ]);
            count += 1;
        }
        let Some(hull) = hull else {
            return Ok(());
        };
        for _ in count..3 {
            args.extend([
                Arg::Address(0),
                Arg::Terms(DeviceTerms::default()),
                Arg::Address(0),
                Arg::Int(0),
                Arg::Region(empty),
            ]);
        }
        let Some(launch) = box_launch(hull.extent())? else {
            return Ok(());
        };
        let electric = phase == ELECTRIC_PHASE;
        args.extend([
            Arg::Int(count),
            Arg::Address(self.phase_coefficients(electric)),
            Arg::Region(RawRegion::new([hull.lo, hull.hi], storage)),
            Arg::Int(i32::from(electric)),
            Arg::Address(self.address(&self.flag, 0)),
        ]);
        // SAFETY: the arguments match `yee_curl` (kernels/curl.cu) in order and type: three
        // components (the unused ones null with empty boxes, never touched: `count` and the
        // box test skip them); every node of each component's box and its one-node reach
        // lie in the storage box all fields share (the box is inside the owned box, grown by
        // the ghosts the curl reads), the stretch tables span the grid and the ids name rows
        // of the phase's coefficient table (built so by `YeeState`).
        unsafe { self.launch(&self.kernels.curl, launch, &args) }
    }

    /// Queues the CPML correction of `c` in `slab` over `region`.
    fn cpml(&self, slab: &DeviceSlab<T, D>, c: Component, region: Box3) -> Result<(), CudaError> {
        let Some(psi) = &slab.psi[c.index()] else {
            return Ok(());
        };
        let r = region
            .intersect(&slab.region)
            .intersect(&self.arrays.free[c.index()]);
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
        let (ids, uniform) = self.ids(c);
        let layer = RawRegion::new([slab.region.lo, slab.region.hi], slab_storage(slab.region));
        let args = [
            Arg::Address(self.field_address(c)?),
            Arg::Address(self.address(psi, 0)),
            Arg::Term(term),
            Arg::Address(ids),
            Arg::Int(uniform),
            Arg::Address(self.coefficients_address(c)),
            Arg::Region(RawRegion::new([r.lo, r.hi], self.arrays.storage)),
            Arg::Region(layer),
            Arg::Int(i32::from(c.is_electric())),
        ];
        // SAFETY: the arguments match `yee_cpml` (kernels/cpml.cu); `r` lies in the layer's
        // cells in the chunk (ψ's box) and in the storage box, as for the curl update.
        unsafe { self.launch(&self.kernels.cpml, launch, &args) }
    }

    /// Queues point source `s` at step `step` (one thread).
    fn source(&self, s: &PointSource, step: u64) -> Result<(), CudaError> {
        let v = T::Real::from_f64(s.amplitude * s.waveform.value(source_time(s, step, self.dt)));
        let offset = self.arrays.storage.offset(s.cell).ok_or_else(|| {
            CudaError::new(
                ChunkErrorKind::InvalidArgument,
                "a source outside the chunk",
            )
        })? as i64;
        let (ids, uniform) = self.ids(s.component);
        let args = [
            Arg::Address(self.field_address(s.component)?),
            Arg::Long(offset),
            v.arg(),
            Arg::Int(i32::from(s.kind == SourceKind::Hard)),
            Arg::Address(ids),
            Arg::Int(uniform),
            Arg::Address(self.coefficients_address(s.component)),
        ];
        let one = linear_launch(1)?.expect("one thread");
        // SAFETY: the arguments match `yee_source` (kernels/source.cu); `offset` lies in the
        // field's storage (checked above).
        unsafe { self.launch(&self.kernels.source, one, &args) }
    }

    /// Queues the DFT pass of the phase's components (`electric`) over `region` after step
    /// `step`: the step's weights written to each monitor's weight array (on the compute
    /// stream, after the passes that read the previous ones), then one thread per node adds
    /// its value times them to its sums (`yee_dft`; the scalar backend's `dft::accumulate`).
    fn dft(&mut self, electric: bool, region: Box3, step: u64) -> Result<(), CudaError> {
        let t = DftMonitor::time(Component::along(yee_core::Axis::X, electric), step, self.dt);
        for m in 0..self.arrays.dft.len() {
            let nodes = self.arrays.dft[m].part.intersect(&region);
            let Some(launch) = box_launch(nodes.extent())? else {
                continue;
            };
            let d = &mut self.arrays.dft[m];
            let mut weights = vec![[0.0; 2]; d.monitor.count];
            DftMonitor::weights(&d.frequencies, t, self.dt, &mut weights);
            let weights: Vec<T::Real> = (weights.iter().flatten())
                .map(|&w| T::Real::from_f64(w))
                .collect();
            let lane = usize::from(self.on_border);
            let stream = if self.on_border {
                &self.copy
            } else {
                &self.compute
            };
            self.driver
                .write(stream, &weights, &mut d.weights[lane], 0)?;
            let d = &self.arrays.dft[m];
            let part = RawRegion::new(
                [d.part.lo, d.part.hi],
                Storage {
                    lo: d.part.lo,
                    extent: d.part.extent(),
                },
            );
            for (c, sums) in d.sums.iter().enumerate() {
                let c = Component::ALL[c];
                let Some(sums) = sums.as_ref().filter(|_| c.is_electric() == electric) else {
                    continue;
                };
                let args = [
                    Arg::Address(self.address(sums, 0)),
                    Arg::Address(self.field_address(c)?),
                    Arg::Address(self.address(&d.weights[self.lane()], 0)),
                    Arg::Long(d.per_node() as i64),
                    Arg::Region(RawRegion::new([nodes.lo, nodes.hi], self.arrays.storage)),
                    Arg::Region(part),
                ];
                // SAFETY: the arguments match `yee_dft` (kernels/dft.cu); `nodes` lies in the
                // owned box (inside the field's storage) and in `part` (the sums' box, with
                // `per_node` values a node), and the weights hold `per_node` values.
                unsafe { self.launch(&self.kernels.dft, launch, &args) }?;
            }
        }
        Ok(())
    }

    /// The curl terms of component `c` as the kernels take them.
    fn terms(&self, c: Component) -> Result<DeviceTerms, CudaError> {
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
        Ok(terms)
    }

    /// Queues the off-diagonal pass of the phase's components (`electric`) at their tensor
    /// nodes in `region` (`yee_tensor`; the scalar backend's `apply_tensor_nodes`).
    fn tensor(&self, electric: bool, region: Box3) -> Result<(), CudaError> {
        for t in &self.arrays.tensor {
            let c = t.component;
            if c.is_electric() != electric {
                continue;
            }
            let Some(launch) = linear_launch(t.count)? else {
                continue;
            };
            let others = yee_scalar::tensor_nodes::others(c.axis().index());
            let other = others.map(|b| Component::along(yee_core::Axis::ALL[b], electric));
            let terms = |b: Component| match self.mode.has(b) {
                true => self.terms(b),
                false => Ok(DeviceTerms::default()),
            };
            let args = [
                Arg::Address(self.field_address(c)?),
                Arg::Long(t.count as i64),
                Arg::Address(self.address(&t.cells, 0)),
                Arg::Address(self.address(&t.offsets, 0)),
                Arg::Address(self.address(&t.neighbours, 0)),
                Arg::Address(self.address(&t.weights, 0)),
                Arg::Address(self.address(&t.loss, 0)),
                Arg::Address(t.integrals.as_ref().map_or(0, |m| self.address(m, 0))),
                Arg::Terms(terms(other[0])?),
                Arg::Terms(terms(other[1])?),
                Arg::Int(i32::from(self.mode.has(other[0]))),
                Arg::Int(i32::from(self.mode.has(other[1]))),
                Arg::Region(RawRegion::new([region.lo, region.hi], self.arrays.storage)),
                Arg::Int(i32::from(electric)),
                Arg::Address(self.address(&self.flag, 0)),
            ];
            // SAFETY: the arguments match `yee_tensor` (kernels/tensor.cu); the offsets and
            // the neighbours' lie in the storage box the fields share (a tensor node reads
            // the one-cell shell around it, its ghosts: the halo shape of the chunk), and
            // their curls read one cell further only inside it (the scalar backend's rule).
            unsafe { self.launch(&self.kernels.tensor, launch, &args) }?;
        }
        Ok(())
    }

    /// Queues `pass` of the dispersive E phase of step `step` over `region` (`yee_poles`, one
    /// thread per dispersive node; the scalar backend's `dispersive::apply`).
    fn dispersive(&self, pass: Pass, region: Box3, step: u64) -> Result<(), CudaError> {
        let Some(tables) = &self.arrays.tables else {
            return Ok(());
        };
        if pass == Pass::Complete && !tables.debye {
            return Ok(());
        }
        let code = match pass {
            Pass::Polarise => 0,
            Pass::Correct => 1,
            Pass::Complete => 2,
        };
        for p in &self.arrays.poles {
            let count = p.nodes.cells.len();
            let Some(launch) = linear_launch(count)? else {
                continue;
            };
            // Slot `step % 2` holds Pⁿ, the other Pⁿ⁻¹ (overwritten with Pⁿ⁺¹).
            let now = (step % 2) as usize * p.poles();
            let next = p.poles() - now;
            let args = [
                Arg::Int(code),
                Arg::Address(self.field_address(p.component)?),
                Arg::Long(count as i64),
                Arg::Address(self.address(&p.cells, 0)),
                Arg::Address(self.address(&p.offsets, 0)),
                Arg::Address(self.address(&p.first, 0)),
                Arg::Address(self.address(&p.material, 0)),
                Arg::Address(self.address(&tables.steps_first, 0)),
                Arg::Address(self.address(&tables.steps, 0)),
                Arg::Address(self.address(&tables.explicit, 0)),
                Arg::Address(self.address(&tables.drive, 0)),
                Arg::Address(self.address(&p.slots, now)),
                Arg::Address(self.address(&p.slots, next)),
                Arg::Address(self.address(&p.scratch, 0)),
                Arg::Region(RawRegion::new([region.lo, region.hi], self.arrays.storage)),
                Arg::Address(self.address(&self.flag, 0)),
            ];
            // SAFETY: the arguments match `yee_poles` (kernels/poles.cu); the arrays were
            // built together from the scalar backend's `DispersiveNodes` (offsets in the
            // field's storage, poles in the slots, materials in the tables).
            unsafe { self.launch(&self.kernels.poles, launch, &args) }?;
        }
        Ok(())
    }

    /// Queues the copies between the entries `entries` of `values` and the values at
    /// `address` onward (a pack, `true`, or an unpack), then waits for them (the index list
    /// is released on return).
    fn gather(
        &self,
        values: u64,
        entries: &[i64],
        address: u64,
        pack: bool,
    ) -> Result<(), CudaError> {
        let Some(launch) = linear_launch(entries.len())? else {
            return Ok(());
        };
        let indices = self.driver.upload(&self.compute, entries)?;
        let args = [
            Arg::Address(values),
            Arg::Address(address),
            Arg::Address(self.address(&indices, 0)),
            Arg::Long(entries.len() as i64),
            Arg::Int(i32::from(pack)),
        ];
        // SAFETY: the arguments match `yee_gather` (kernels/gather.cu); callers give entries
        // inside `values` and room at `address` for one value each.
        unsafe { self.launch(&self.kernels.gather, launch, &args) }?;
        self.driver.synchronize(&self.compute)
    }

    /// Queues the TF/SF surface corrections of the phase's components (`electric`) over
    /// `region` at step `step`: each plane wave's auxiliary grid advanced on the host to the
    /// time the update read, then its corrections ([`IncidentLine::corrections`]) applied on
    /// the device (`yee_incident`), line after line and component after component as the
    /// scalar backend's `apply_plane_waves`.
    fn plane_waves(&mut self, electric: bool, region: Box3, step: u64) -> Result<(), CudaError> {
        let mut lines = core::mem::take(&mut self.arrays.lines);
        let result = (|| {
            for line in &mut lines {
                line.advance_for(step, !electric);
                for &c in self.mode.components() {
                    if c.is_electric() != electric {
                        continue;
                    }
                    let r = region.intersect(&self.arrays.free[c.index()]);
                    let storage = self.arrays.storage;
                    let mut corrections = Vec::new();
                    let mut outside = false;
                    line.corrections(self.mode, c, r, |cell, value| match storage.offset(cell) {
                        Some(o) => corrections.push((o as i64, T::Real::from_f64(value))),
                        None => outside = true,
                    });
                    if outside {
                        return Err(CudaError::new(
                            ChunkErrorKind::InvalidArgument,
                            "a TF/SF correction outside the chunk",
                        ));
                    }
                    self.incident(c, &corrections)?;
                }
            }
            Ok(())
        })();
        self.arrays.lines = lines;
        result
    }

    /// Queues the corrections `(storage offset, incident value)` of component `c`, in order:
    /// in launches of distinct nodes, the k-th correction of a node in the k-th launch, so
    /// each node takes its corrections in the order given (the sum's bits are the scalar
    /// backend's).
    fn incident(&mut self, c: Component, corrections: &[(i64, T::Real)]) -> Result<(), CudaError> {
        if corrections.is_empty() {
            return Ok(());
        }
        let mut seen = std::collections::HashMap::new();
        let mut rounds: Vec<(usize, i64, T::Real)> = (corrections.iter())
            .map(|&(o, v)| {
                let k = seen.entry(o).or_insert(0usize);
                *k += 1;
                (*k - 1, o, v)
            })
            .collect();
        rounds.sort_by_key(|&(k, _, _)| k);
        let offsets: Vec<i64> = rounds.iter().map(|&(_, o, _)| o).collect();
        let values: Vec<T::Real> = rounds.iter().map(|&(_, _, v)| v).collect();
        let lane = self.lane();
        let stream = if self.on_border {
            &self.copy
        } else {
            &self.compute
        };
        if D::len(&self.arrays.incident_values[lane]) < values.len() {
            // The old arrays may still be read by launches queued on this stream.
            self.driver.synchronize(stream)?;
            let n = values.len();
            self.arrays.incident_offsets[lane] = self.driver.alloc_zeros::<i64>(stream, n)?;
            self.arrays.incident_values[lane] = self.driver.alloc_zeros::<T::Real>(stream, n)?;
        }
        let a = &mut self.arrays;
        self.driver
            .write(stream, &offsets, &mut a.incident_offsets[lane], 0)?;
        self.driver
            .write(stream, &values, &mut a.incident_values[lane], 0)?;
        let (ids, uniform) = self.ids(c);
        let mut at = 0;
        while at < rounds.len() {
            let k = rounds[at].0;
            let count = rounds[at..].iter().take_while(|r| r.0 == k).count();
            let launch = linear_launch(count)?.expect("at least one correction");
            let args = [
                Arg::Address(self.field_address(c)?),
                Arg::Address(self.address(&self.arrays.incident_offsets[lane], at)),
                Arg::Address(self.address(&self.arrays.incident_values[lane], at)),
                Arg::Long(count as i64),
                Arg::Address(ids),
                Arg::Int(uniform),
                Arg::Address(self.coefficients_address(c)),
            ];
            // SAFETY: the arguments match `yee_incident` (kernels/incident.cu); the offsets
            // lie in the field's storage (checked by `Storage::offset`), the arrays hold
            // `count` values from `at`.
            unsafe { self.launch(&self.kernels.incident, launch, &args) }?;
            at += count;
        }
        Ok(())
    }

    /// Queues the Bloch phase `re + i·im` of the ghosts `layer` of component `c`, just
    /// unpacked from a halo that wrapped across a Bloch-periodic face (`yee_bloch`; the scalar
    /// chunk's `unpack_halo`).
    fn bloch(
        &self,
        c: Component,
        layer: Box3,
        (re, im): (T::Real, T::Real),
    ) -> Result<(), CudaError> {
        let Some(launch) = linear_launch(layer.cells())? else {
            return Ok(());
        };
        let storage = self.arrays.storage;
        if !storage.contains([layer.lo, layer.hi]) {
            return Err(CudaError::new(
                ChunkErrorKind::InvalidArgument,
                format!("the ghosts {layer:?} are not inside the field's storage"),
            ));
        }
        let args = [
            Arg::Address(self.field_address(c)?),
            Arg::Region(RawRegion::new([layer.lo, layer.hi], storage)),
            re.arg(),
            im.arg(),
        ];
        // SAFETY: the arguments match `yee_bloch` (kernels/bloch.cu); the box lies in the
        // field's storage (checked).
        unsafe { self.launch(&self.kernels.bloch, launch, &args) }
    }

    /// Queues a copy between `layer` of component `c` and its cells' count of values at
    /// `address` (device memory): a pack (`true`) or an unpack.
    fn copy_box(
        &self,
        c: Component,
        layer: Box3,
        address: u64,
        pack: bool,
    ) -> Result<(), CudaError> {
        let values = self.field_address(c)?;
        self.copy_values(values, self.arrays.storage, layer, address, pack)
    }

    /// Queues a copy between `layer` of the array at `values` (stored over `storage`) and
    /// its cells' count of values at `address` (device memory): a pack (`true`) or an
    /// unpack.
    fn copy_values(
        &self,
        values: u64,
        storage: Storage,
        layer: Box3,
        address: u64,
        pack: bool,
    ) -> Result<(), CudaError> {
        let Some(launch) = linear_launch(layer.cells())? else {
            return Ok(());
        };
        if !storage.contains([layer.lo, layer.hi]) {
            return Err(CudaError::new(
                ChunkErrorKind::InvalidArgument,
                format!("the box {layer:?} is not inside the array's storage"),
            ));
        }
        let args = [
            Arg::Address(values),
            Arg::Address(address),
            Arg::Region(RawRegion::new([layer.lo, layer.hi], storage)),
            Arg::Int(i32::from(pack)),
        ];
        // SAFETY: the arguments match `yee_box_copy` (kernels/box.cu); the box lies
        // in the storage (checked) and callers give `address` room for its cells.
        unsafe { self.launch(&self.kernels.box_copy, launch, &args) }
    }

    /// Queues on the compute stream the copies between the cells of `region` (every field,
    /// then the ψ of each CPML layer, then the DFT sums, then the polarisations, as the scalar chunk's slabs hold them) and the values
    /// at `address` onward: a pack (`true`) or an unpack. Returns the values copied.
    fn copy_slab(&self, region: Box3, address: u64, pack: bool) -> Result<usize, CudaError> {
        let size = size_of::<T>() as u64;
        let mut at = 0;
        for &c in self.mode.components() {
            self.copy_box(c, region, address + at as u64 * size, pack)?;
            at += region.cells();
        }
        for slab in &self.arrays.slabs {
            let part = slab.layer.intersect(&region);
            let storage = slab_storage(slab.region);
            for psi in slab.psi.iter().flatten() {
                let values = self.address(psi, 0);
                self.copy_values(values, storage, part, address + at as u64 * size, pack)?;
                at += part.cells();
            }
        }
        for d in &self.arrays.dft {
            let part = d.values_box(d.part.intersect(&region));
            for sums in d.sums.iter().flatten() {
                let values = self.address(sums, 0);
                self.copy_values(values, d.storage(), part, address + at as u64 * size, pack)?;
                at += part.cells();
            }
        }
        for p in &self.arrays.poles {
            let entries = p.slab_entries(region);
            let values = self.address(&p.slots, 0);
            self.gather(values, &entries, address + at as u64 * size, pack)?;
            at += entries.len();
        }
        for t in &self.arrays.tensor {
            let (entries, Some(sums)) = (t.slab_entries(region), &t.integrals) else {
                continue;
            };
            let values = self.address(sums, 0);
            self.gather(values, &entries, address + at as u64 * size, pack)?;
            at += entries.len();
        }
        Ok(at)
    }

    /// `Err` unless `buffer` holds `needed` values.
    fn slab_buffer_holds(&self, buffer: &B, needed: usize) -> Result<(), CudaError> {
        match buffer.values_len() >= needed {
            true => Ok(()),
            false => Err(CudaError::new(
                ChunkErrorKind::InvalidArgument,
                format!(
                    "a slab buffer of {} values for {needed}",
                    buffer.values_len()
                ),
            )),
        }
    }

    /// Copies the values of `from` over `kept` into `to` (stored over `into`) on the device,
    /// through a packed buffer: what a resize keeps.
    fn keep(
        &self,
        (from, storage): (u64, Storage),
        (to, into): (u64, Storage),
        kept: Box3,
    ) -> Result<(), CudaError> {
        if kept.is_empty() {
            return Ok(());
        }
        let packed = self.driver.alloc_zeros::<T>(&self.compute, kept.cells())?;
        let at = self.address(&packed, 0);
        self.copy_values(from, storage, kept, at, true)?;
        self.copy_values(to, into, kept, at, false)?;
        // The packed buffer is released below: let the kernels that use it finish first.
        self.driver.synchronize(&self.compute)
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
        let packed = self.driver.alloc_zeros::<T>(&self.compute, cells)?;
        self.copy_box(c, region, self.address(&packed, 0), true)?;
        self.driver
            .read(&self.compute, &packed, 0, &mut out[..cells])
    }

    /// Checks that `needed` values fit the staging buffer.
    fn staging_holds(&self, needed: usize) -> Result<(), CudaError> {
        match needed <= D::len(&self.arrays.staging) {
            true => Ok(()),
            false => Err(CudaError::new(
                ChunkErrorKind::InvalidArgument,
                "the halos of one call do not fit the staging buffer",
            )),
        }
    }

    /// Queues the phase's dispersive passes, curl update, CPML corrections, TF/SF corrections,
    /// sources and DFT pass over `region`, in the scalar chunk's order, on the stream kernels
    /// are queued on now ([`Self::stream`]).
    fn update(&mut self, step: u64, phase: usize, region: Box3) -> Result<(), CudaError> {
        let electric = phase == ELECTRIC_PHASE;
        if electric {
            self.dispersive(Pass::Polarise, region, step)?;
        }
        self.curl(phase, region)?;
        for slab in &self.arrays.slabs {
            for c in phase_components(self.mode, phase) {
                self.cpml(slab, c, region)?;
            }
        }
        self.tensor(electric, region)?;
        if electric {
            self.dispersive(Pass::Correct, region, step)?;
        }
        self.plane_waves(electric, region, step)?;
        for s in &self.arrays.sources {
            if s.component.is_electric() == electric && region.contains(s.cell) {
                self.source(s, step)?;
            }
        }
        if electric {
            self.dispersive(Pass::Complete, region, step)?;
        }
        self.dft(electric, region, step)
    }

    /// [`Chunk::pack_halos`] with the packs on the stream kernels are queued on now.
    fn pack_halos_on_stream(
        &mut self,
        phase: usize,
        towards: &[Direction],
        out: &mut [B],
    ) -> Result<(), CudaError> {
        let mut at = 0;
        let mut copies = Vec::new();
        for (k, &toward) in towards.iter().enumerate().take(out.len()) {
            let shape = self.arrays.halo_shape;
            let Some((layer, _)) = halo::halo(self.mode, self.arrays.owned, phase, toward, shape)
            else {
                continue;
            };
            let start = at;
            let len = self.halo_len(phase, toward);
            self.staging_holds(start + len)?;
            holds(&out[k], len)?;
            for c in phase_components(self.mode, phase) {
                self.copy_box(c, layer, self.address(&self.arrays.staging, at), true)?;
                at += layer.cells();
            }
            copies.push((k, start, at - start));
        }
        if !self.border_phase {
            self.copy_after_compute()?;
        }
        for (k, start, len) in copies {
            let staging = &self.arrays.staging;
            out[k].copy_from_device(&self.driver, &self.copy, staging, start, len)?;
        }
        Ok(())
    }

    /// [`Chunk::unpack_halos`], the unpacks on the compute stream after the copies, or in a
    /// border phase (`border`) on the copy stream after them, recorded in `copied`.
    fn unpack_halos_on_stream(
        &mut self,
        phase: usize,
        froms: &[Direction],
        data: &[B],
        border: bool,
    ) -> Result<(), CudaError> {
        if !border {
            self.copy_after_compute()?;
        }
        let mut at = 0;
        let mut unpacks = Vec::new();
        for (k, &from) in froms.iter().enumerate().take(data.len()) {
            let shape = self.arrays.halo_shape;
            let Some((layer, _)) = halo::ghosts(self.mode, self.arrays.owned, phase, from, shape)
            else {
                continue;
            };
            let len = self.ghost_len(phase, from);
            self.staging_holds(at + len)?;
            holds(&data[k], len)?;
            let staging = &mut self.arrays.staging;
            data[k].copy_to_device(&self.driver, &self.copy, len, staging, at)?;
            unpacks.push((from, layer, at));
            at += len;
        }
        if !border {
            self.driver.record(&self.copied, &self.copy)?;
            self.driver.wait(&self.compute, &self.copied)?;
        }
        for (from, layer, mut at) in unpacks {
            let phase_factor = bloch::wrap_phase(&self.setup, self.arrays.owned, from);
            for c in phase_components(self.mode, phase) {
                self.copy_box(c, layer, self.address(&self.arrays.staging, at), false)?;
                if let Some((re, im)) = phase_factor {
                    self.bloch(c, layer, (T::Real::from_f64(re), T::Real::from_f64(im)))?;
                }
                at += layer.cells();
            }
        }
        if border {
            self.driver.record(&self.copied, &self.copy)?;
        }
        Ok(())
    }

    /// Makes the copy stream wait for everything queued on the compute stream so far.
    fn copy_after_compute(&self) -> Result<(), CudaError> {
        self.driver.record(&self.computed, &self.compute)?;
        self.driver.wait(&self.copy, &self.computed)
    }

    /// Blocks until both streams have finished.
    fn synchronize(&self) -> Result<(), CudaError> {
        self.driver.synchronize(&self.compute)?;
        self.driver.synchronize(&self.copy)
    }
}

impl<T: DeviceScalar, D: Driver, B> Drop for CudaChunk<'_, T, D, B> {
    /// Lets queued work finish before the memory it addresses is released.
    fn drop(&mut self) {
        let synchronized = (self.driver.synchronize(&self.compute))
            .and_then(|()| self.driver.synchronize(&self.copy));
        if let Err(e) = synchronized {
            log::warn!("the device chunk's last work failed: {e}");
        }
    }
}

/// The storage of a CPML layer's ψ: its cells in the chunk.
fn slab_storage(region: Box3) -> Storage {
    Storage {
        lo: region.lo,
        extent: region.extent(),
    }
}

/// `Err` when a halo buffer holds fewer than `len` values.
fn holds<T: DeviceScalar, D: Driver>(
    buffer: &impl MessageBuffer<T, D>,
    len: usize,
) -> Result<(), CudaError> {
    match buffer.values_len() >= len {
        true => Ok(()),
        false => Err(CudaError::new(
            ChunkErrorKind::InvalidArgument,
            "a halo buffer is too short",
        )),
    }
}

impl<T: DeviceScalar, D: Driver, B: MessageBuffer<T, D>> Chunk for CudaChunk<'_, T, D, B> {
    type Value = T;
    type Buffer = B;
    type Error = CudaError;
    const CAPABILITIES: Capabilities = Capabilities {
        asynchronous: true,
        migration: true,
    };

    fn owned(&self) -> Box3 {
        self.arrays.owned
    }

    fn ghost(&self) -> [usize; 3] {
        self.mode.active_axes().map(usize::from)
    }

    fn phases(&self) -> usize {
        2
    }

    /// Queues the phase's dispersive passes, curl update, CPML corrections, TF/SF corrections,
    /// sources and DFT pass over `region`, in the scalar chunk's order, on the compute stream
    /// (after the unpacks of the border stream before it).
    fn submit(&mut self, step: u64, phase: usize, region: Box3) -> Result<(), CudaError> {
        self.driver.wait(&self.compute, &self.copied)?;
        self.update(step, phase, region)
    }

    /// The device runs the border shell beside the interior (Kim & Park 2012's kernel split).
    fn splits_border(&self) -> bool {
        true
    }

    /// Queues the update of `region` (as [`Chunk::submit`]) on the copy stream, after the
    /// work the compute stream has queued before this phase (the interior of the phase
    /// before); the phase's halos are then packed and unpacked on that stream too.
    fn submit_border(&mut self, step: u64, phase: usize, region: Box3) -> Result<(), CudaError> {
        if !self.border_phase {
            self.copy_after_compute()?;
            self.border_phase = true;
        }
        self.on_border = true;
        let done = self.update(step, phase, region);
        self.on_border = false;
        done
    }

    /// Blocks until the copy stream has finished: the packed halos are in their buffers, the
    /// arrived ghosts unpacked (the interior may still run on the compute stream, which
    /// orders every later read after it).
    fn wait_halos(&mut self) -> Result<(), CudaError> {
        self.driver.synchronize(&self.copy)
    }

    fn wait(&mut self) -> Result<(), CudaError> {
        self.synchronize()
    }

    fn buffer(&self, bytes: usize) -> Result<B, CudaError> {
        let len = bytes.div_ceil(size_of::<T>()).max(1);
        B::zeroed(&self.driver, len)
    }

    fn halo_len(&self, phase: usize, toward: Direction) -> usize {
        halo::halo_values(
            self.mode,
            self.arrays.owned,
            phase,
            toward,
            self.arrays.halo_shape,
        )
    }

    fn ghost_len(&self, phase: usize, from: Direction) -> usize {
        halo::ghost_values(
            self.mode,
            self.arrays.owned,
            phase,
            from,
            self.arrays.halo_shape,
        )
    }

    /// Packs each halo on the device into the staging buffer (one component after another)
    /// on the compute stream, then queues the copies into the pinned buffers on the copy
    /// stream once the packs are done. In a border phase ([`Chunk::submit_border`]) the
    /// packs run on the copy stream after the shell, beside the interior.
    fn pack_halos(
        &mut self,
        phase: usize,
        towards: &[Direction],
        out: &mut [B],
    ) -> Result<(), CudaError> {
        self.on_border = self.border_phase;
        let packed = self.pack_halos_on_stream(phase, towards, out);
        self.on_border = false;
        packed
    }

    /// Queues each arrived halo's copy into the staging buffer on the copy stream (after the
    /// compute stream's earlier use of it), then its unpack into the ghost cells on that side
    /// on the compute stream (after the copies). In a border phase the unpacks run on the copy
    /// stream too, beside the interior (which reads no ghost on a side with a neighbour), and
    /// the compute stream's next work waits for them (event `copied`).
    fn unpack_halos(
        &mut self,
        phase: usize,
        froms: &[Direction],
        data: &[B],
    ) -> Result<(), CudaError> {
        let border = core::mem::take(&mut self.border_phase);
        self.on_border = border;
        let unpacked = self.unpack_halos_on_stream(phase, froms, data, border);
        self.on_border = false;
        unpacked
    }

    /// Every field, then each CPML layer's ψ, the DFT sums and the polarisations (the scalar
    /// chunk's slab format).
    fn slab_len(&self, region: Box3) -> usize {
        let fields = self.mode.components().len() * region.cells();
        let psi: usize = (self.arrays.slabs.iter())
            .map(|s| s.psi.iter().flatten().count() * s.layer.intersect(&region).cells())
            .sum();
        let dft: usize = (self.arrays.dft.iter())
            .map(|d| {
                d.sums.iter().flatten().count() * d.values_box(d.part.intersect(&region)).cells()
            })
            .sum();
        let poles: usize = (self.arrays.poles.iter())
            .map(|p| p.nodes.slab_len(region))
            .sum();
        let sums: usize = (self.arrays.tensor.iter())
            .map(|t| t.slab_entries(region).len())
            .sum();
        fields + psi + dft + poles + sums
    }

    /// Packs each region on the device into one buffer (compute stream), then copies it into
    /// `out` on the copy stream once the packs are done.
    fn pack_slabs(&mut self, regions: &[Box3], out: &mut B) -> Result<(), CudaError> {
        let total: usize = regions.iter().map(|&r| self.slab_len(r)).sum();
        self.slab_buffer_holds(out, total)?;
        // The previous slabs' copies are done before their buffer goes.
        self.synchronize()?;
        let values = self.driver.alloc_zeros::<T>(&self.compute, total.max(1))?;
        let mut at = 0;
        for &region in regions {
            at += self.copy_slab(region, self.address(&values, at), true)?;
        }
        self.copy_after_compute()?;
        out.copy_from_device(&self.driver, &self.copy, &values, 0, total)?;
        self.slab_values = Some(values);
        Ok(())
    }

    /// Copies `data` to the device on the copy stream, then unpacks each region from it on
    /// the compute stream once the copy is done.
    fn unpack_slabs(&mut self, regions: &[Box3], data: &B) -> Result<(), CudaError> {
        let total: usize = regions.iter().map(|&r| self.slab_len(r)).sum();
        self.slab_buffer_holds(data, total)?;
        self.synchronize()?;
        let mut values = self.driver.alloc_zeros::<T>(&self.compute, total.max(1))?;
        // A real device zeroes the new memory on the compute stream: the copy comes after.
        self.copy_after_compute()?;
        data.copy_to_device(&self.driver, &self.copy, total, &mut values, 0)?;
        self.driver.record(&self.copied, &self.copy)?;
        self.driver.wait(&self.compute, &self.copied)?;
        let mut at = 0;
        for &region in regions {
            at += self.copy_slab(region, self.address(&values, at), false)?;
        }
        self.slab_values = Some(values);
        Ok(())
    }

    /// Uploads the arrays of `owned` (built on the host as at the start), then copies what
    /// the old and new boxes share on the device: the fields over both storage boxes (ghosts
    /// included, as the scalar chunk keeps them), each layer's ψ over both regions.
    fn resize(&mut self, owned: Box3) -> Result<(), CudaError> {
        self.synchronize()?;
        let mut arrays = Arrays::upload(&self.driver, &self.compute, &self.setup, owned)?;
        let storage_box =
            |s: Storage| Box3::new(s.lo, core::array::from_fn(|a| s.lo[a] + s.extent[a] as i64));
        let kept = storage_box(self.arrays.storage).intersect(&storage_box(arrays.storage));
        for &c in self.mode.components() {
            let (Some(from), Some(to)) =
                (&self.arrays.fields[c.index()], &arrays.fields[c.index()])
            else {
                continue;
            };
            let from = (self.address(from, 0), self.arrays.storage);
            self.keep(from, (self.address(to, 0), arrays.storage), kept)?;
        }
        for (old, new) in self.arrays.slabs.iter().zip(&arrays.slabs) {
            let kept = old.region.intersect(&new.region);
            for (from, to) in old.psi.iter().zip(&new.psi) {
                if let (Some(from), Some(to)) = (from, to) {
                    let from = (self.address(from, 0), slab_storage(old.region));
                    self.keep(from, (self.address(to, 0), slab_storage(new.region)), kept)?;
                }
            }
        }
        for (old, new) in self.arrays.dft.iter().zip(&arrays.dft) {
            let kept = old.values_box(old.part.intersect(&new.part));
            for (from, to) in old.sums.iter().zip(&new.sums) {
                if let (Some(from), Some(to)) = (from, to) {
                    let from = (self.address(from, 0), old.storage());
                    self.keep(from, (self.address(to, 0), new.storage()), kept)?;
                }
            }
        }
        // Each component's polarisations go to the same component's nodes: the lists hold
        // only the components with dispersive nodes, and which those are changes with the box.
        for old in &self.arrays.poles {
            let Some(new) = arrays.poles.iter().find(|p| p.component == old.component) else {
                continue;
            };
            let (from, into) = old.kept_entries(new);
            if from.is_empty() {
                continue;
            }
            let packed = self.driver.alloc_zeros::<T>(&self.compute, from.len())?;
            let at = self.address(&packed, 0);
            self.gather(self.address(&old.slots, 0), &from, at, true)?;
            self.gather(self.address(&new.slots, 0), &into, at, false)?;
        }
        for old in &self.arrays.tensor {
            let Some(new) = arrays.tensor.iter().find(|t| t.component == old.component) else {
                continue;
            };
            let (from, into) = old.kept_entries(new);
            let (Some(old_sums), Some(new_sums)) = (&old.integrals, &new.integrals) else {
                continue;
            };
            if from.is_empty() {
                continue;
            }
            let packed = self.driver.alloc_zeros::<T>(&self.compute, from.len())?;
            let at = self.address(&packed, 0);
            self.gather(self.address(old_sums, 0), &from, at, true)?;
            self.gather(self.address(new_sums, 0), &into, at, false)?;
        }
        arrays.lines = core::mem::take(&mut self.arrays.lines);
        self.synchronize()?;
        core::mem::swap(&mut self.arrays, &mut arrays);
        Ok(())
    }

    /// The scalar chunk's work: CPML layers, TF/SF surfaces, sources, probes and dispersive
    /// nodes (their pole updates per electric component).
    fn work(&self, region: Box3) -> f64 {
        let electric = (self.mode.components().iter())
            .filter(|c| c.is_electric())
            .count()
            .max(1) as f64;
        let dispersive: f64 = (self.arrays.poles.iter())
            .map(|p| p.nodes.work(region, &self.costs))
            .sum();
        work_of(
            region,
            self.arrays.slabs.iter().map(|s| s.layer),
            (self.setup.plane_waves.iter()).flat_map(|w| w.surface_slabs(self.mode)),
            self.arrays.sources.iter().map(|s| s.cell),
            self.arrays.probe_cells.iter().copied(),
            dispersive / electric,
            &self.costs,
        )
    }
}

impl<T: DeviceScalar, D: Driver, B: MessageBuffer<T, D>> YeeFields for CudaChunk<'_, T, D, B> {
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
        let d = self.arrays.dft.get(monitor).ok_or_else(|| {
            CudaError::new(
                ChunkErrorKind::InvalidArgument,
                format!("no DFT monitor with index {monitor}"),
            )
        })?;
        let Some(sums) = &d.sums[c.index()] else {
            return Ok(false);
        };
        if region.intersect(&d.part) != region && !region.is_empty() {
            return Err(CudaError::new(
                ChunkErrorKind::InvalidArgument,
                format!("the DFT read {region:?} is not inside the monitor's nodes here"),
            ));
        }
        let values = d.values_box(region);
        let len = values.cells();
        if out.len() < len {
            return Err(CudaError::new(
                ChunkErrorKind::InvalidArgument,
                "the output is too short",
            ));
        }
        if len == 0 {
            return Ok(true);
        }
        let packed = self.driver.alloc_zeros::<T>(&self.compute, len)?;
        let at = self.address(&packed, 0);
        self.copy_values(self.address(sums, 0), d.storage(), values, at, true)?;
        self.driver
            .read(&self.compute, &packed, 0, &mut out[..len])?;
        Ok(true)
    }

    /// Reads the divergence flag; when the curl kernel raised it, finds the first non-finite
    /// node on the device (components in order, the smallest order key over `regions`).
    fn first_non_finite(
        &mut self,
        regions: &[Box3],
    ) -> Result<Option<(Component, Index3)>, CudaError> {
        let mut flag = [0i32];
        self.driver.read(&self.compute, &self.flag, 0, &mut flag)?;
        if flag[0] == 0 {
            return Ok(None);
        }
        self.driver
            .write(&self.compute, &[0i32], &mut self.flag, 0)?;
        let grid = self.grid.map(|g| g as i64);
        for &c in self.mode.components() {
            self.driver
                .write(&self.compute, &[FINITE_KEY], &mut self.key, 0)?;
            for r in regions {
                let r = r.intersect(&self.arrays.owned);
                let Some(launch) = box_launch(r.extent())? else {
                    continue;
                };
                let args = [
                    Arg::Address(self.field_address(c)?),
                    Arg::Region(RawRegion::new([r.lo, r.hi], self.arrays.storage)),
                    Arg::Long(grid[0]),
                    Arg::Long(grid[1]),
                    Arg::Long(grid[2]),
                    Arg::Address(self.address(&self.key, 0)),
                ];
                // SAFETY: the arguments match `yee_non_finite` (kernels/finite.cu); `r` lies
                // in the owned box.
                unsafe { self.launch(&self.kernels.non_finite, launch, &args) }?;
            }
            let mut key = [FINITE_KEY];
            self.driver.read(&self.compute, &self.key, 0, &mut key)?;
            if key[0] != FINITE_KEY {
                return Ok(Some((c, cell_of_key(key[0], self.grid))));
            }
        }
        Ok(None)
    }
}
