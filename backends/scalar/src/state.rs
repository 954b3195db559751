//! The arrays one Yee chunk holds, built from a [`Setup`] for a given owned box.

use alloc::vec;
use alloc::vec::Vec;
use yee_core::Field;
use yee_core::{Axis, Box3, Real, Scalar, Side};
use yee_em::cpml::cpml_coefficients;
use yee_em::material::magnetic_coefficients;
use yee_em::{Boundary, Component, CpmlCoefficients, Mode, PointSource, Setup};

use crate::dft_part::DftPart;
use crate::dispersive_nodes::{AdeStep, DispersiveNodes};
use crate::field::HostField;
pub use crate::material_ids::MAX_MATERIAL_IDS;
use crate::material_ids::{MaterialTable, NodeIds, component_ids, one_of};
use crate::part_executor::{PartExecutor, Sequential};
use crate::row_runs::RowRuns;
use crate::tensor_nodes::TensorNodes;
use yee_em::IncidentLine;
use yee_em::halo::HaloShape;

/// Rows per part of [`YeeState::with_fast_path_facts`]' check of each row's material.
const FACT_ROWS: usize = 1 << 10;

/// Field ids of the six components, E first ([`Component::index`] order).
pub const ALL_IDS: [yee_core::FieldId; 6] = [
    yee_core::FieldId(0),
    yee_core::FieldId(1),
    yee_core::FieldId(2),
    yee_core::FieldId(3),
    yee_core::FieldId(4),
    yee_core::FieldId(5),
];

/// The ids a stencil of the electric (`true`) or magnetic components writes.
pub fn written_ids(electric: bool) -> &'static [yee_core::FieldId] {
    if electric {
        &ALL_IDS[..3]
    } else {
        &ALL_IDS[3..]
    }
}

/// CPML coefficients along one axis at every integer and half-integer node position.
#[derive(Clone, Debug)]
pub struct AxisStretch<R> {
    /// `[b, c, 1/κ]` at position `i` (nodes not staggered along the axis).
    pub integer: Vec<[R; 3]>,
    /// `[b, c, 1/κ]` at position `i + ½` (nodes staggered along the axis).
    pub half: Vec<[R; 3]>,
    /// `b` and `c` of [`AxisStretch::integer`], each an array of its own (for vector loops).
    pub integer_bc: [Vec<R>; 2],
    /// `b` and `c` of [`AxisStretch::half`], each an array of its own.
    pub half_bc: [Vec<R>; 2],
    /// [`AxisStretch::unstretched`] of `integer` and of `half`.
    unstretched: [(usize, usize); 2],
}

impl<R: Real> AxisStretch<R> {
    /// The coefficients for component `c` at global coordinate `i` along `axis`.
    pub fn at(&self, c: Component, axis: Axis, i: i64) -> [R; 3] {
        self.table(c, axis)[i as usize]
    }

    /// The coefficient table of component `c` along `axis`, indexed by global coordinate.
    pub fn table(&self, c: Component, axis: Axis) -> &[[R; 3]] {
        if Self::staggered(c, axis) {
            &self.half
        } else {
            &self.integer
        }
    }

    /// Whether component `c`'s nodes sit at half-integer positions along `axis`.
    fn staggered(c: Component, axis: Axis) -> bool {
        c.stagger()[axis.index()] != 0.0
    }

    /// The ψ recursion's `b` and `c` of component `c` along `axis` (Roden & Gedney 2000,
    /// eqs. (8)–(10)), each an array indexed by global coordinate: [`AxisStretch::table`]'s
    /// first two columns.
    pub fn bc(&self, c: Component, axis: Axis) -> [&[R]; 2] {
        let [b, c] = if Self::staggered(c, axis) {
            &self.half_bc
        } else {
            &self.integer_bc
        };
        [b, c]
    }

    /// The first run of positions where component `c`'s 1/κ along `axis` is exactly 1, as
    /// `lo..hi` (empty at the end of the table if there is none): between the layers of the
    /// two faces, where a row needs no stretch factor. Found once, when the table is built.
    pub fn unstretched(&self, c: Component, axis: Axis) -> (usize, usize) {
        self.unstretched[usize::from(Self::staggered(c, axis))]
    }

    /// The stretch of `integer` and `half`, with their `b` and `c` columns split out.
    fn new(integer: Vec<[R; 3]>, half: Vec<[R; 3]>) -> Self {
        let columns = |table: &[[R; 3]]| -> [Vec<R>; 2] {
            [0, 1].map(|k| table.iter().map(|f| f[k]).collect())
        };
        let unstretched = |table: &[[R; 3]]| {
            let (n, one) = (table.len(), R::from_f64(1.0));
            let lo = (0..n).find(|&i| table[i][2] == one).unwrap_or(n);
            let hi = (lo..n).find(|&i| table[i][2] != one).unwrap_or(n);
            (lo, hi)
        };
        AxisStretch {
            integer_bc: columns(&integer),
            half_bc: columns(&half),
            unstretched: [unstretched(&integer), unstretched(&half)],
            integer,
            half,
        }
    }
}

/// [`YeeState::row_material`] of a row holding several materials (ids are `u16`).
pub const MIXED_ROW: u32 = u32::MAX;

/// The ψ arrays of one CPML slab (one face's layer) clipped to a chunk.
#[derive(Clone, Debug)]
pub struct CpmlSlab<T> {
    /// The axis the layer absorbs along.
    pub axis: Axis,
    /// The whole layer (global coordinates).
    pub layer: Box3,
    /// Cells of the layer inside the chunk (global coordinates).
    pub region: Box3,
    /// ψ per component whose curl differentiates along `axis`, x fastest over `region`.
    pub psi: [Option<Vec<T>>; 6],
}

/// Everything one chunk of a Yee grid holds.
#[derive(Clone, Debug)]
pub struct YeeState<T: Scalar> {
    /// Dimensionality and polarisation.
    pub mode: Mode,
    /// Global grid extent.
    pub grid: [usize; 3],
    /// The owned box.
    pub owned: Box3,
    /// Time step.
    pub dt: f64,
    /// The fields of the mode, indexed by [`Component::index`]; `None` for absent components.
    pub fields: [Option<HostField<T>>; 6],
    /// Per component, a material id per storage cell (same layout as the field): the node's
    /// material as [`Setup::node_material`] places it, or the inactive id in inactive cells.
    /// Ids are the chunk's own, given in the order materials are met (0 is the background).
    /// Empty where every storage node of the component has the same id, [`YeeState::one_id`]
    /// (no array of one value: a vacuum grid's ids would be a third of its memory).
    pub material_ids: [Vec<u16>; 6],
    /// Per component, the id of every node of its storage box when they all share one (its
    /// `material_ids` are then empty); read ids through [`YeeState::material_id`].
    pub one_id: [Option<u16>; 6],
    /// `[Ca, Cb]` per material id; all zero for the inactive id.
    pub electric: Vec<[T::Real; 2]>,
    /// `[Da, Db]` per material id; all zero for the inactive id.
    pub magnetic: Vec<[T::Real; 2]>,
    /// The update of each pole per material id (empty for plain media), in the node's pole
    /// order ([`NodeMedium::poles`]).
    pub ade: Vec<Vec<AdeStep<T::Real>>>,
    /// `Cb/Δt` per material id: the weight of the polarisation change in the E update.
    pub drive: Vec<T::Real>,
    /// Per component ([`Component::index`]; electric only), the polarisations of its
    /// dispersive nodes, if the chunk has any.
    pub dispersive: [Option<DispersiveNodes<T>>; 3],
    /// Per component, the global box of nodes it updates: walls (PEC, PMC) hold the rest at 0.
    pub free: [Box3; 6],
    /// CPML coefficients per axis.
    pub stretch: [AxisStretch<T::Real>; 3],
    /// CPML layers overlapping the owned box.
    pub slabs: Vec<CpmlSlab<T>>,
    /// Sources whose node lies in the owned box.
    pub sources: Vec<PointSource>,
    /// The auxiliary grid of each plane wave (every chunk steps its own copy, identically).
    pub lines: Vec<IncidentLine>,
    /// The DFT accumulators of each monitor over the owned box.
    pub dft: Vec<DftPart<T>>,
    /// Set when an update wrote a NaN or infinity; cleared by whoever reports it.
    pub non_finite: bool,
    /// Set when the nodes of the chunk need more than [`MAX_MATERIAL_IDS`] distinct materials
    /// (the means on shape surfaces count), more than a `u16` id can name. Such a chunk cannot
    /// run: building it for a decomposed run fails ([`crate::YeeChunk::checked`]) and a
    /// [`crate::Simulation`] refuses to step ([`crate::RunError::TooManyMaterials`]).
    pub too_many_materials: bool,
    /// Per component, the material id shared by every node it updates, if they all share one
    /// (fast kernels then skip the per-cell lookup).
    pub uniform_material: [Option<u16>; 6],
    /// Per component, per storage row (rows run y, then z), the material id shared by every
    /// node of the row it updates, or [`MIXED_ROW`] (several materials, or nothing to update):
    /// fast kernels read no per-cell id on the others.
    pub row_material: [Vec<u32>; 6],
    /// Per component, the runs of one material along each storage row of several
    /// ([`RowRuns`]): fast kernels take them rather than scanning the row's ids every step.
    pub row_runs: [RowRuns; 6],
    /// Per component, its owned nodes with off-diagonal ε⁻¹ or μ⁻¹ ([`TensorNodes`]), if any.
    pub tensor: [Option<TensorNodes<T>>; 6],
    /// The ghosts each phase fills ([`HaloShape::of`] the setup).
    pub halo_shape: HaloShape,
}

impl<T: Scalar> YeeState<T> {
    /// The ψ values of every CPML slab (each stretched derivative's array, summed).
    pub fn psi_len(&self) -> usize {
        (self.slabs.iter())
            .flat_map(|s| s.psi.iter().flatten())
            .map(Vec::len)
            .sum()
    }

    /// The values the dispersive nodes keep between steps: both slots of P of every pole of
    /// every node, and each node's `Σ kₚ` ([`crate::dispersive_nodes::DispersiveNodes`]).
    pub fn polarisation_len(&self) -> usize {
        (self.dispersive.iter().flatten())
            .map(|d| d.slots.iter().map(Vec::len).sum::<usize>() + d.scratch.len())
            .sum()
    }

    /// Builds the state of the chunk owning `owned` of a validated `setup`, fields at zero.
    pub fn new(setup: &Setup, owned: Box3) -> Self {
        Self::new_with(setup, owned, &Sequential)
    }

    /// [`YeeState::new`], the material ids placed by `kernel` ([`PartExecutor::each_part`]:
    /// at once on its threads, where it has some); the same state.
    pub fn new_with(setup: &Setup, owned: Box3, kernel: &impl PartExecutor) -> Self {
        let ghost = setup.mode.active_axes().map(usize::from);
        let fields = core::array::from_fn(|c| {
            setup
                .mode
                .has(Component::ALL[c])
                .then(|| HostField::zeros(owned, ghost))
        });
        Self::assemble(setup, owned, fields, cpml_slabs(setup, owned), kernel)
    }

    /// Moves the state to own `owned` in place: fields, ψ, polarisations and the tensor nodes'
    /// running sums keep the values
    /// of cells in both boxes and start at zero elsewhere; materials, walls, CPML tables and sources are
    /// rebuilt for the new box (the ids placed by `kernel`). No second set of fields is allocated (one array at a time).
    pub fn resize(&mut self, setup: &Setup, owned: Box3, kernel: &impl PartExecutor) {
        let mut fields = core::mem::take(&mut self.fields);
        for f in fields.iter_mut().flatten() {
            f.resize(owned);
        }
        let mut slabs = cpml_slabs::<T>(setup, owned);
        for (old, new) in self.slabs.iter().zip(&mut slabs) {
            let kept = old.region.intersect(&new.region);
            for (from, to) in old.psi.iter().zip(&mut new.psi) {
                if let (Some(from), Some(to)) = (from, to) {
                    for n in 0..kept.cells() {
                        let p = kept.index_at(n);
                        to[new.region.linear_index(p)] = from[old.region.linear_index(p)];
                    }
                }
            }
        }
        // Release the old medium before building the new one.
        self.slabs.clear();
        self.material_ids = Default::default();
        let non_finite = self.non_finite;
        let lines = core::mem::take(&mut self.lines);
        let dft = core::mem::take(&mut self.dft);
        let dispersive = core::mem::take(&mut self.dispersive);
        let tensor = core::mem::take(&mut self.tensor);
        *self = Self::assemble(setup, owned, fields, slabs, kernel);
        for (old, new) in dispersive.iter().zip(&mut self.dispersive) {
            if let (Some(old), Some(new)) = (old, new) {
                old.keep_into(new);
            }
        }
        for (old, new) in tensor.iter().zip(&mut self.tensor) {
            if let (Some(old), Some(new)) = (old, new) {
                old.keep_into(new);
            }
        }
        self.non_finite = non_finite;
        self.lines = lines;
        for (old, new) in dft.iter().zip(&mut self.dft) {
            old.keep_into(new);
        }
    }

    /// The state over `owned` with these fields and CPML slabs: everything else is derived
    /// from `setup`.
    fn assemble(
        setup: &Setup,
        owned: Box3,
        fields: [Option<HostField<T>>; 6],
        slabs: Vec<CpmlSlab<T>>,
        kernel: &impl PartExecutor,
    ) -> Self {
        let mode = setup.mode;
        let active = mode.active_axes();
        let ghost = active.map(usize::from);
        let dt = setup.dt();
        let storage = owned.grow(ghost.map(|g| g as i64));
        let mut table = MaterialTable::new(setup.background);
        let mut one_id = [None; 6];
        let material_ids = core::array::from_fn(|c| {
            let component = Component::ALL[c];
            if !mode.has(component) {
                return Vec::new();
            }
            let (ids, one) = component_ids(setup, component, storage, &mut table, kernel);
            one_id[c] = one;
            ids
        });
        let real = |x: f64| T::Real::from_f64(x);
        let zero = [real(0.0), real(0.0)];
        let (mut electric, mut magnetic, mut ade, mut drive) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for medium in &table.materials {
            let Some(m) = medium else {
                electric.push(zero);
                magnetic.push(zero);
                ade.push(Vec::new());
                drive.push(real(0.0));
                continue;
            };
            let e = m.electric_coefficients(setup.poles, dt);
            let h = magnetic_coefficients(&m.material, dt);
            electric.push([real(e.decay), real(e.curl)]);
            magnetic.push([real(h.decay), real(h.curl)]);
            ade.push(
                m.poles(setup.poles)
                    .map(|p| AdeStep::new(p.ade(dt)))
                    .collect(),
            );
            drive.push(real(e.curl / dt));
        }
        let free = Component::ALL.map(|c| free_box(setup, c));
        let stretch = Axis::ALL.map(|axis| axis_stretch(setup, axis));
        let sources = setup
            .sources
            .iter()
            .filter(|s| owned.contains(s.cell))
            .copied()
            .collect();
        YeeState {
            mode,
            grid: setup.grid,
            owned,
            dt,
            fields,
            material_ids,
            one_id,
            electric,
            magnetic,
            ade,
            drive,
            dispersive: [None, None, None],
            free,
            stretch,
            slabs,
            sources,
            lines: setup
                .plane_waves
                .iter()
                .map(|w| IncidentLine::new(w, setup.mode, &setup.background, dt))
                .collect(),
            dft: DftPart::all(setup, owned),
            non_finite: false,
            too_many_materials: table.overflow,
            uniform_material: [None; 6],
            row_material: Default::default(),
            row_runs: Default::default(),
            tensor: Default::default(),
            halo_shape: HaloShape::of(setup),
        }
        .with_fast_path_facts(kernel)
        .with_dispersive_nodes()
        .with_tensor_nodes(setup, &table.materials)
    }

    /// The tensor nodes of each component ([`TensorNodes`]), when the setup may have some.
    fn with_tensor_nodes(mut self, setup: &Setup, media: &[Option<yee_em::NodeMedium>]) -> Self {
        if !setup.has_tensor_nodes() {
            return self;
        }
        let materials: Vec<Option<yee_em::Material>> =
            media.iter().map(|m| m.map(|m| m.material)).collect();
        let storage = self.owned.grow(self.mode.active_axes().map(i64::from));
        for &c in self.mode.components() {
            let gains: Vec<T::Real> = match c.is_electric() {
                true => self.electric.iter().map(|g| g[1]).collect(),
                false => self.magnetic.iter().map(|g| g[1]).collect(),
            };
            let region = self.owned.intersect(&self.free[c.index()]);
            let ids = self.node_ids(c);
            // A neighbour evolves where its node, wrapped across periodic faces, is free.
            let evolves = |b: Component, q: yee_core::Index3| {
                let mut q = q;
                for axis in yee_core::Axis::ALL {
                    let (a, n) = (axis.index(), setup.grid[axis.index()] as i64);
                    if setup.is_periodic(axis) {
                        q[a] = q[a].rem_euclid(n);
                    }
                }
                self.free[b.index()].contains(q)
            };
            let smoothed = setup.smoothed_off_diagonals(c, region);
            self.tensor[c.index()] = TensorNodes::of(
                c,
                region,
                storage,
                |o| ids.at(o),
                &materials,
                &gains,
                self.mode.active_axes(),
                evolves,
                &smoothed,
                self.dt,
            );
        }
        self
    }

    fn with_dispersive_nodes(mut self) -> Self {
        self.dispersive = core::array::from_fn(|c| {
            let component = Component::ALL[c];
            let region = self.owned.intersect(&self.free[component.index()]);
            DispersiveNodes::of(
                self.field(component)?,
                self.node_ids(component),
                region,
                &self.ade,
            )
        });
        self
    }

    /// Per component: the material of each row of one ([`YeeState::row_material`], by
    /// `kernel`'s parts), the chunk's if one material fills it, and the runs of the rows of
    /// several.
    fn with_fast_path_facts(mut self, kernel: &impl PartExecutor) -> Self {
        let storage = self.owned.grow(self.mode.active_axes().map(i64::from));
        let [ex, ey, ez] = storage.extent();
        for &c in self.mode.components() {
            let (ids, one) = (&self.material_ids[c.index()][..], self.one_id[c.index()]);
            let region = self.owned.intersect(&self.free[c.index()]);
            let mut rows: Vec<u32> = vec![MIXED_ROW; ey * ez];
            let (a, b) = (
                (region.lo[0] - storage.lo[0]).max(0) as usize,
                (region.hi[0] - storage.lo[0]).max(0) as usize,
            );
            // Whether storage row `n` holds cells to update.
            let updated = |n: usize| {
                let (y, z) = (
                    storage.lo[1] + (n % ey) as i64,
                    storage.lo[2] + (n / ey) as i64,
                );
                !region.is_empty()
                    && (region.lo[1]..region.hi[1]).contains(&y)
                    && (region.lo[2]..region.hi[2]).contains(&z)
            };
            kernel.each_part(&mut rows, FACT_ROWS, |p, rows| {
                for (i, row) in rows.iter_mut().enumerate() {
                    let n = p * FACT_ROWS + i;
                    if !updated(n) {
                        continue;
                    }
                    if let Some(id) = one {
                        *row = u32::from(id);
                        continue;
                    }
                    if let Some(id) = one_of(&ids[n * ex + a..n * ex + b]) {
                        *row = u32::from(id);
                    }
                }
            });
            // One material throughout when every updated row shares the same one.
            let mut shared = rows.iter().filter(|&&id| id != MIXED_ROW);
            let first = shared.next().copied();
            let all_rows = region.extent()[1] * region.extent()[2];
            let uniform = rows.iter().filter(|&&id| id != MIXED_ROW).count() == all_rows
                && shared.all(|&id| Some(id) == first);
            self.uniform_material[c.index()] = first
                .filter(|_| uniform)
                .and_then(|id| u16::try_from(id).ok());
            // The updated rows of several materials have their runs recorded.
            let mixed = |n: usize| rows[n] == MIXED_ROW && updated(n);
            self.row_runs[c.index()] = RowRuns::build(ids, ex, ey * ez, (a, b), mixed);
            self.row_material[c.index()] = rows;
        }
        self
    }

    /// The field of `c`, if the mode carries it.
    pub fn field(&self, c: Component) -> Option<&HostField<T>> {
        self.fields[c.index()].as_ref()
    }

    /// Component `c`'s material ids, per node or one for all.
    #[inline]
    pub fn node_ids(&self, c: Component) -> NodeIds<'_> {
        NodeIds {
            ids: &self.material_ids[c.index()],
            one: self.one_id[c.index()],
        }
    }

    /// The material id of component `c`'s node at storage offset `offset`.
    #[inline]
    pub fn material_id(&self, c: Component, offset: usize) -> u16 {
        self.node_ids(c).at(offset)
    }

    /// Component `c`'s material ids, one per storage node (spelled out where they are all
    /// [`YeeState::one_id`]).
    pub fn material_ids_of(&self, c: Component) -> alloc::borrow::Cow<'_, [u16]> {
        match self.one_id[c.index()] {
            Some(id) => {
                let storage = self.owned.grow(self.mode.active_axes().map(i64::from));
                alloc::borrow::Cow::Owned(vec![id; storage.cells()])
            }
            None => alloc::borrow::Cow::Borrowed(&self.material_ids[c.index()]),
        }
    }

    /// `[decay, curl]` coefficients of component `c` at storage offset `offset`.
    pub fn coefficients(&self, c: Component, offset: usize) -> [T::Real; 2] {
        let id = self.material_id(c, offset) as usize;
        if c.is_electric() {
            self.electric[id]
        } else {
            self.magnetic[id]
        }
    }
}

/// Nodes of `c` that evolve: a PEC (or CPML, which is PEC-backed) low face pins tangential E
/// at index 0; a PMC high face pins tangential H at index n − 1 (the wall sits half a cell
/// inside the face). The pinned nodes and the zero ghosts beyond the grid are the walls.
fn free_box(setup: &Setup, c: Component) -> Box3 {
    let mut b = Box3::from_extent(setup.grid);
    let active = setup.mode.active_axes();
    for axis in Axis::ALL {
        let a = axis.index();
        if !active[a] || axis == c.axis() {
            continue;
        }
        let [low, high] = setup.boundaries[a];
        if c.is_electric() && matches!(low, Boundary::Pec | Boundary::Cpml(_)) {
            b.lo[a] = 1;
        }
        if !c.is_electric() && high == Boundary::Pmc {
            b.hi[a] = setup.grid[a] as i64 - 1;
        }
    }
    b
}

fn axis_stretch<R: Real>(setup: &Setup, axis: Axis) -> AxisStretch<R> {
    let n = setup.grid[axis.index()];
    let at = |x: f64| {
        let mut k = CpmlCoefficients::OUTSIDE;
        for side in Side::BOTH {
            if let Some(p) = setup.cpml(axis, side) {
                let t = p.thickness as f64;
                let depth = match side {
                    Side::Low => t - x,
                    Side::High => x - (n as f64 - t),
                };
                if depth > 0.0 {
                    k = cpml_coefficients(p, depth, setup.dt());
                }
            }
        }
        [k.b, k.c, k.inv_kappa].map(R::from_f64)
    };
    AxisStretch::new(
        (0..n).map(|i| at(i as f64)).collect(),
        (0..n).map(|i| at(i as f64 + 0.5)).collect(),
    )
}

fn cpml_slabs<T: Scalar>(setup: &Setup, owned: Box3) -> Vec<CpmlSlab<T>> {
    let mut slabs = Vec::new();
    for (axis, layer) in setup.cpml_layers_with_axes() {
        let region = layer.intersect(&owned);
        let psi = Component::ALL.map(|c| {
            let differentiates = c.curl_terms().iter().any(|t| t.axis == axis);
            (setup.mode.has(c) && differentiates).then(|| vec![T::zero(); region.cells()])
        });
        slabs.push(CpmlSlab {
            axis,
            layer,
            region,
            psi,
        });
    }
    slabs
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::material_ids::{component_ids_in_parts, inside_grid};
    use yee_em::{Material, NodeMedium};

    /// One part after another, but the last part first, as a pool may finish them.
    #[derive(Clone, Debug)]
    struct LastFirst;

    impl PartExecutor for LastFirst {
        fn each_part<E: Send, R: Send>(
            &self,
            items: &mut [E],
            part: usize,
            work: impl Fn(usize, &mut [E]) -> R + Sync + Send,
        ) -> Vec<R> {
            let mut done: Vec<R> = items
                .chunks_mut(part)
                .enumerate()
                .rev()
                .map(|(i, p)| work(i, p))
                .collect();
            done.reverse();
            done
        }
    }

    /// The ids as the placement search gives them node by node, with no shortcut: one table
    /// for the components in order, as `assemble` shares it.
    fn ids_node_by_node(setup: &Setup, owned: Box3) -> Vec<Vec<u16>> {
        let storage = owned.grow(setup.mode.active_axes().map(i64::from));
        let mut table = MaterialTable::new(setup.background);
        let mut all = Vec::new();
        for c in Component::ALL.into_iter().filter(|&c| setup.mode.has(c)) {
            let ids = (0..storage.cells())
                .map(|n| {
                    let cell = storage.index_at(n);
                    if inside_grid(setup.grid, cell) && !setup.is_active(cell) {
                        table.id(None)
                    } else if c.is_electric() {
                        table.id(Some(setup.node_medium(c, cell)))
                    } else {
                        let material = setup.node_material(c, cell);
                        table.id(Some(NodeMedium::of_h_node(material)))
                    }
                })
                .collect();
            all.push(ids);
        }
        all
    }

    /// The ids of every component of `setup`'s chunks over the whole grid and over `part`
    /// equal those the search gives node by node; returns how many ids are not the
    /// background's.
    fn ids_match_the_search(setup: &Setup, part: Box3) -> usize {
        let mut placed = 0;
        for owned in [Box3::from_extent(setup.grid), part] {
            let state = YeeState::<f64>::new(setup, owned);
            let fast: Vec<Vec<u16>> = Component::ALL
                .into_iter()
                .filter(|&c| setup.mode.has(c))
                .map(|c| state.material_ids_of(c).into_owned())
                .collect();
            assert_eq!(fast, ids_node_by_node(setup, owned), "{owned:?}");
            placed += fast.iter().flatten().filter(|&&id| id > 0).count();
        }
        placed
    }

    #[test]
    fn material_ids_skip_the_search_only_where_it_finds_the_background() {
        use yee_em::{Boundary, Region, Shape};
        let regions = [
            Region {
                shape: Shape::Sphere {
                    center: [5.5, 5.0, 4.0],
                    radius: 3.0,
                },
                material: Material::dielectric(2.0),
            },
            Region {
                shape: Shape::Block {
                    lo: [0.0, 0.0, 0.0],
                    hi: [3.0, 10.0, 2.5],
                },
                material: Material::dielectric(3.0),
            },
            Region {
                shape: Shape::Cylinder {
                    center: [9.0, 3.0, 4.0],
                    radius: 1.5,
                    axis: Axis::Z,
                    length: 4.0,
                },
                material: Material::dielectric(5.0),
            },
        ];
        for periodic in [false, true] {
            let x = if periodic {
                Boundary::Periodic
            } else {
                Boundary::Pec
            };
            let walls = [[x; 2], [Boundary::Pec; 2], [Boundary::Pec; 2]];
            let setup = Setup {
                regions: &regions,
                ..Setup::vacuum(yee_em::Mode::ThreeD, [12, 10, 8], 0.5, walls)
            };
            let part = Box3::new([2, 1, 0], [9, 8, 8]);
            assert!(
                ids_match_the_search(&setup, part) > 0,
                "periodic {periodic}"
            );
        }
    }

    /// Shapes large enough that most of their nodes are placed a stretch at a time
    /// (`yee_em::row_placement`), overlapping, on periodic and walled axes and under a mask of
    /// inactive cells: the ids are the search's, node by node.
    #[test]
    fn material_ids_placed_a_stretch_at_a_time_match_the_search() {
        use yee_em::{Boundary, Region, Shape};
        let cylinder = |center, radius, axis, length| Shape::Cylinder {
            center,
            radius,
            axis,
            length,
        };
        let regions = [
            Region {
                shape: Shape::Sphere {
                    center: [12.3, 10.8, 9.5],
                    radius: 7.2,
                },
                material: Material::dielectric(2.25),
            },
            Region {
                shape: cylinder([8.0, 6.0, 10.0], 4.5, Axis::X, 14.0),
                material: Material::dielectric(4.0),
            },
            Region {
                shape: cylinder([16.0, 11.0, 6.0], 3.2, Axis::Y, f64::INFINITY),
                material: Material {
                    sigma: 0.02,
                    ..Material::dielectric(3.0)
                },
            },
        ];
        let grid = [24, 22, 20];
        let mask: Vec<bool> = (0..grid.iter().product::<usize>())
            .map(|n| n % 7 != 3)
            .collect();
        for (periodic, masked) in [(false, false), (true, false), (false, true)] {
            let wall = if periodic {
                Boundary::Periodic
            } else {
                Boundary::Pec
            };
            let setup = Setup {
                regions: &regions,
                active: masked.then_some(&mask[..]),
                ..Setup::vacuum(yee_em::Mode::ThreeD, grid, 0.5, [[wall; 2]; 3])
            };
            let part = Box3::new([3, 2, 1], [17, 15, 20]);
            let placed = ids_match_the_search(&setup, part);
            assert!(
                placed > 10_000,
                "periodic {periodic}, masked {masked}: {placed}"
            );
        }
    }

    /// Ids placed in parts of 1, 3 and 7 rows (several waves of parts), the last part first,
    /// are those of one pass in storage order, node by node; and so is what the fast paths
    /// read off them, each row's material checked part by part.
    #[test]
    fn material_ids_placed_in_parts_in_any_order_match_the_search() {
        use yee_em::{Boundary, Region, Shape};
        let regions = [
            Region {
                shape: Shape::Sphere {
                    center: [4.2, 20.3, 21.6],
                    radius: 15.5,
                },
                material: Material::dielectric(2.25),
            },
            Region {
                shape: Shape::Cylinder {
                    center: [3.0, 12.0, 30.0],
                    radius: 6.5,
                    axis: Axis::X,
                    length: f64::INFINITY,
                },
                material: Material {
                    sigma: 0.02,
                    ..Material::dielectric(3.0)
                },
            },
        ];
        let setup = Setup {
            regions: &regions,
            ..Setup::vacuum(Mode::ThreeD, [16, 48, 48], 0.5, [[Boundary::Pec; 2]; 3])
        };
        let owned = Box3::from_extent(setup.grid);
        let storage = owned.grow([1, 1, 1]);
        let search = ids_node_by_node(&setup, owned);
        for rows in [1, 3, 7] {
            let mut table = MaterialTable::new(setup.background);
            let ids: Vec<Vec<u16>> = Component::ALL
                .into_iter()
                .map(|c| component_ids_in_parts(&setup, c, storage, &mut table, &LastFirst, rows))
                .collect();
            assert_eq!(ids, search, "parts of {rows} rows");
        }
        let state = YeeState::<f32>::new_with(&setup, owned, &LastFirst);
        let [ex, ey, ez] = storage.extent();
        assert!(ey * ez > 2 * FACT_ROWS, "rows checked in several parts");
        let mut mixed = 0;
        for c in Component::ALL {
            let ids = &state.material_ids_of(c)[..];
            assert_eq!(ids, &search[c.index()][..], "{c:?}");
            let free = owned.intersect(&state.free[c.index()]);
            for n in 0..ey * ez {
                let (y, z) = (n % ey, n / ey);
                let inside = (free.lo[1]..free.hi[1]).contains(&(y as i64 - 1))
                    && (free.lo[2]..free.hi[2]).contains(&(z as i64 - 1));
                let row = &ids[n * ex + free.lo[0] as usize + 1..n * ex + free.hi[0] as usize + 1];
                let expected = match inside && row.iter().all(|&id| id == row[0]) {
                    true => u32::from(row[0]),
                    false => MIXED_ROW,
                };
                assert_eq!(state.row_material[c.index()][n], expected, "{c:?} row {n}");
                // The runs recorded (none where the row is cut too finely) tile the
                // updated cells, each of one material.
                let runs = state.row_runs[c.index()].of(n);
                if !(inside && expected == MIXED_ROW) {
                    assert!(runs.is_empty(), "{c:?} row {n}");
                    continue;
                }
                mixed += usize::from(!runs.is_empty());
                let mut at = free.lo[0] as u32 + 1;
                for run in runs {
                    assert_eq!(run.start, at, "{c:?} row {n}");
                    let cells = &ids[n * ex + run.start as usize..n * ex + run.end as usize];
                    assert!(cells.iter().all(|&id| id == run.id), "{c:?} row {n}");
                    at = run.end;
                }
                if !runs.is_empty() {
                    assert_eq!(at, free.hi[0] as u32 + 1, "{c:?} row {n}");
                }
            }
        }
        assert!(
            mixed > 200,
            "{mixed} rows of several materials, their runs recorded"
        );
    }

    /// A component whose nodes are all of one material keeps that id alone, the search's id
    /// for them: every component of a grid without regions (an anisotropic background, so each
    /// component's medium is its own), and the H components around a dielectric sphere.
    #[test]
    fn a_component_of_one_material_keeps_one_id_and_no_array() {
        use yee_em::{Boundary, Region, Shape};
        let walls = [[Boundary::Pec; 2]; 3];
        let bare = Setup {
            background: Material::anisotropic([2.0, 3.0, 4.0], [1.5, 1.0, 2.5]),
            ..Setup::vacuum(Mode::ThreeD, [9, 8, 7], 0.5, walls)
        };
        let regions = [Region {
            shape: Shape::Sphere {
                center: [5.0, 4.0, 4.0],
                radius: 3.0,
            },
            material: Material::dielectric(2.25),
        }];
        let sphere = Setup {
            regions: &regions,
            ..Setup::vacuum(Mode::ThreeD, [10, 9, 8], 0.5, walls)
        };
        for (setup, one) in [
            (&bare, [true; 6]),
            (&sphere, [false, false, false, true, true, true]),
        ] {
            let owned = Box3::from_extent(setup.grid);
            let state = YeeState::<f32>::new(setup, owned);
            let search = ids_node_by_node(setup, owned);
            let ids: Vec<Vec<u16>> = Component::ALL
                .into_iter()
                .map(|c| state.material_ids_of(c).into_owned())
                .collect();
            assert_eq!(ids, search);
            for c in Component::ALL {
                let kept = &state.material_ids[c.index()];
                assert_eq!(state.one_id[c.index()].is_some(), one[c.index()], "{c:?}");
                assert_eq!(kept.is_empty(), one[c.index()], "{c:?}");
                assert_eq!(state.material_id(c, 17), search[c.index()][17], "{c:?}");
            }
        }
        // Each E component of the anisotropic grid sees its own ε: three ids.
        let state = YeeState::<f32>::new(&bare, Box3::from_extent(bare.grid));
        let [ex, ey, ez] =
            [Component::Ex, Component::Ey, Component::Ez].map(|c| state.one_id[c.index()]);
        assert!(ex != ey && ey != ez && ex != ez, "{ex:?} {ey:?} {ez:?}");
    }

    #[test]
    fn mixed_nodes_get_their_mean_and_the_inactive_id_zero_coefficients() {
        let regions = [yee_em::Region {
            shape: yee_em::Shape::Block {
                lo: [2.0, f64::NEG_INFINITY, f64::NEG_INFINITY],
                hi: [5.0, f64::INFINITY, f64::INFINITY],
            },
            material: Material::dielectric(4.0),
        }];
        let mut active = [true; 8];
        active[7] = false;
        let setup = Setup {
            mode: Mode::OneD,
            grid: [8, 1, 1],
            courant: 0.5,
            background: Material::VACUUM,
            poles: &[],
            regions: &regions,
            boundaries: [[Boundary::Pec; 2]; 3],
            sources: &[],
            probes: &[],
            plane_waves: &[],
            monitors: &[],
            frequencies: &[],
            active: Some(&active),
            smoothing: true,
            smoothing_tensor: true,
            bloch: [0.0; 3],
        };
        let state = YeeState::<f64>::new(&setup, Box3::from_extent(setup.grid));
        let storage = state.owned.grow([1, 0, 0]);
        let curl = |x: i64| {
            let offset = storage.linear_index([x, 0, 0]);
            state.coefficients(Component::Ez, offset)[1]
        };
        // Cb = Δt/ε: vacuum, the face's mean ε = 2.5, glass inside, the inactive cell.
        assert_eq!(curl(1), 0.5);
        assert_eq!(curl(2), 0.5 / 2.5);
        assert_eq!(curl(3), 0.5 / 4.0);
        assert_eq!(curl(5), 0.5 / 2.5);
        assert_eq!(curl(7), 0.0);
        assert!(!state.too_many_materials);
    }

    #[test]
    fn h_rows_through_a_dielectric_are_rows_of_one_material() {
        let regions = [yee_em::Region {
            shape: yee_em::Shape::Sphere {
                center: [6.0, 6.0, 6.0],
                radius: 4.0,
            },
            material: Material {
                sigma: 0.1,
                ..Material::dielectric(2.25)
            },
        }];
        let setup = Setup {
            regions: &regions,
            ..Setup::vacuum(Mode::ThreeD, [12, 12, 12], 0.5, [[Boundary::Pec; 2]; 3])
        };
        let state = YeeState::<f32>::new(&setup, Box3::from_extent(setup.grid));
        let storage = state.owned.grow([1, 1, 1]);
        let [_, ey, _] = storage.extent();
        // The row through the centre, y = z = 6: E crosses the sphere, H sees μ = 1 all along.
        let row = (6 + 1) * ey + (6 + 1);
        for c in [Component::Hx, Component::Hy, Component::Hz] {
            assert_eq!(state.uniform_material[c.index()], Some(0), "{c:?}");
            assert_eq!(state.row_material[c.index()][row], 0, "{c:?}");
        }
        for c in [Component::Ex, Component::Ey, Component::Ez] {
            assert_eq!(state.row_material[c.index()][row], MIXED_ROW, "{c:?}");
        }
    }
}
