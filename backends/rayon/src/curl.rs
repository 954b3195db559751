//! The curl phase: each component's rows split into batches over the pool, the fast row
//! kernels where they apply and the general per-cell loop elsewhere, then each batch's CPML
//! corrections and its tensor nodes' off-diagonal terms.

use rayon::prelude::*;
use yee_core::{Axis, Box3, Field, Real, Scalar};
use yee_em::Component;
use yee_scalar::field::HostField;
use yee_scalar::material_ids::NodeIds;
use yee_scalar::row_runs::RowRuns;
use yee_scalar::state::{CpmlSlab, MIXED_ROW, YeeState};
use yee_scalar::tensor_nodes::TensorNodes;
use yee_scalar::tensor_update::{RowBatches, Sources, TensorRun, for_each_run};

use crate::cpml::{Layer, MAX_LAYERS, PsiRows, correct_rows};
use crate::executor::ComponentPasses;
use crate::kernels::*;
use crate::runs::Runs;
use crate::scratch::{Scratch, recycle};

/// Cells per rayon task (whole rows of at least this many cells). Larger batches switch the
/// memory streams less often: at 256³ f32 on one thread 256 Ki cells measured ≈ 1.2× the rate
/// of 16 Ki (docs/performance.md), and a 100³ grid still splits into four tasks.
pub(crate) const ROW_BATCH_CELLS: usize = 256 * 1024;

/// Field arrays at least this large (bytes) have their components updated together.
pub(crate) const TOGETHER_ABOVE_BYTES: usize = 8 << 20;

/// One curl term of a component: the source field, its stride along the derivative axis, the
/// sign, the axis and the stretch table along it.
pub(crate) struct Term<'a, T: Scalar> {
    pub(crate) source: &'a [T],
    pub(crate) stride: usize,
    pub(crate) positive: bool,
    pub(crate) axis: usize,
    pub(crate) table: &'a [[T::Real; 3]],
}

/// Everything the row kernel of one component needs, borrowed from the state (the sources are
/// the other phase's fields, so the targets can be written meanwhile).
pub(crate) struct ComponentRows<'a, T: Scalar> {
    /// The cells to update: the region within the component's free box.
    pub(crate) r: Box3,
    pub(crate) storage: Box3,
    pub(crate) extent: [usize; 3],
    pub(crate) electric: bool,
    pub(crate) terms: heapless::Vec<Term<'a, T>, 2>,
    pub(crate) ids: NodeIds<'a>,
    /// Per storage row, the material all its updated nodes share, or [`MIXED_ROW`].
    pub(crate) row_material: &'a [u32],
    /// Per storage row of several materials, its runs of one, if recorded.
    pub(crate) row_runs: &'a RowRuns,
    pub(crate) table: &'a [[T::Real; 2]],
    pub(crate) uniform: Option<[T::Real; 2]>,
    /// The id of the one material, if the chunk has one.
    pub(crate) uniform_id: Option<u16>,
    /// The x coordinates `[lo, hi)` where the x term's 1/κ is 1 (the whole grid when no
    /// term differentiates along x): fast loops there skip the stretch factor.
    pub(crate) plain: (i64, i64),
    pub(crate) x_stretches: bool,
    /// The CPML layers the rows cross, corrected once a batch of rows is updated.
    pub(crate) layers: heapless::Vec<Layer<'a, T::Real>, MAX_LAYERS>,
}

impl<'a, T: Scalar> ComponentRows<'a, T> {
    fn new(
        st: &'a YeeState<T>,
        slabs: &[CpmlSlab<T>],
        c: Component,
        storage: Box3,
        region: Box3,
    ) -> Self {
        let strides = storage.strides();
        let electric = c.is_electric();
        let active = st.mode.active_axes();
        // A component's curl has two terms (one in 2D).
        let terms: heapless::Vec<Term<T>, 2> = c
            .curl_terms()
            .into_iter()
            .filter(|t| active[t.axis.index()] && st.mode.has(t.source))
            .map(|t| Term {
                source: st
                    .field(t.source)
                    .expect("the mode carries the source")
                    .as_slice(),
                stride: strides[t.axis.index()],
                positive: t.sign > 0,
                axis: t.axis.index(),
                table: st.stretch[t.axis.index()].table(c, t.axis),
            })
            .collect();
        let table = if electric {
            &st.electric[..]
        } else {
            &st.magnetic[..]
        };
        let r = region.intersect(&st.free[c.index()]);
        let plain = match terms.iter().any(|t| t.axis == 0) {
            true => {
                let (lo, hi) = st.stretch[0].unstretched(c, Axis::X);
                (lo as i64, hi as i64)
            }
            false => (i64::MIN, i64::MAX),
        };
        ComponentRows {
            r,
            storage,
            extent: storage.extent(),
            electric,
            x_stretches: terms.iter().any(|t| t.axis == 0),
            layers: Layer::of(slabs, c.index(), r, &terms, st.stretch[0].bc(c, Axis::X)),
            terms,
            ids: st.node_ids(c),
            row_material: &st.row_material[c.index()][..],
            row_runs: &st.row_runs[c.index()],
            table,
            uniform: st.uniform_material[c.index()].map(|id| table[id as usize]),
            uniform_id: st.uniform_material[c.index()],
            plain,
        }
    }

    /// The first and last storage rows (rows run y, then z) holding cells to update.
    fn rows(&self) -> (usize, usize) {
        let row_of = |y: i64, z: i64| {
            (z - self.storage.lo[2]) as usize * self.extent[1] + (y - self.storage.lo[1]) as usize
        };
        let r = self.r;
        (row_of(r.lo[1], r.lo[2]), row_of(r.hi[1] - 1, r.hi[2] - 1))
    }

    /// Whether no y or z stretch applies on row (`y`, `z`).
    #[inline(always)]
    fn row_plain(&self, [y, z]: [i64; 2]) -> bool {
        let one = T::Real::from_f64(1.0);
        self.terms
            .iter()
            .all(|t| t.axis == 0 || t.table[[0, y, z][t.axis] as usize][2] == one)
    }

    /// The coefficients shared by every node of storage row `n`, if its nodes share a material.
    #[inline(always)]
    pub(crate) fn row_coefficients(&self, n: usize) -> Option<[T::Real; 2]> {
        self.uniform.or_else(|| match self.row_material[n] {
            MIXED_ROW => None,
            id => Some(self.table[id as usize]),
        })
    }

    /// The runs of one material in cells `a..b` of storage row `n` (of several materials).
    #[inline(always)]
    pub(crate) fn runs(&self, n: usize, cells: (usize, usize)) -> Runs<'a> {
        let width = self.extent[0];
        // A row of several materials: its component has an id per node.
        let ids = &self.ids.ids[n * width..(n + 1) * width];
        Runs::of(self.row_runs.of(n), ids, cells)
    }

    /// The coefficients shared by cells `a..b` of storage row `n`, if they share a material:
    /// the row's ([`ComponentRows::row_coefficients`]), or the one recorded run covering them.
    #[inline(always)]
    pub(crate) fn coefficients_over(
        &self,
        n: usize,
        (a, b): (usize, usize),
    ) -> Option<[T::Real; 2]> {
        self.row_coefficients(n).or_else(|| {
            let run = self.row_runs.of(n).iter().find(|r| r.end as usize > a)?;
            (run.start as usize <= a && run.end as usize >= b).then(|| self.table[run.id as usize])
        })
    }

    /// The signed stretch factors `±1/κ` of the terms on row (`y`, `z`) outside the x layers
    /// (an x term's is ±1 there), for [`stretched_uniform`].
    #[inline(always)]
    fn row_factors(&self, [y, z]: [i64; 2]) -> [T::Real; 2] {
        let one = T::Real::from_f64(1.0);
        let mut factors = [one; 2];
        for (f, t) in factors.iter_mut().zip(&self.terms) {
            let k = if t.axis == 0 {
                one
            } else {
                t.table[[0, y, z][t.axis] as usize][2]
            };
            *f = if t.positive { k } else { -k };
        }
        factors
    }

    /// The material of storage row `n` at (`y`, `z`) if the row holds cells to update and all
    /// of them take the uniform fast loop with it: a run of rows of one such material is swept
    /// by one call ([`ComponentRows::update_span`]).
    #[inline(always)]
    fn span_material(&self, n: usize, [y, z]: [i64; 2]) -> Option<u32> {
        let r = self.r;
        let id = match self.uniform_id {
            Some(id) => u32::from(id),
            None => self.row_material[n],
        };
        let spans = id != MIXED_ROW
            && y >= r.lo[1]
            && y < r.hi[1]
            && z >= r.lo[2]
            && z < r.hi[2]
            && (!self.x_stretches || (self.plain.0 <= r.lo[0] && self.plain.1 >= r.hi[0]))
            && self.row_plain([y, z]);
        spans.then_some(id)
    }

    /// Updates `count` consecutive storage rows from row `n` (`rows` holds them) of one
    /// [`ComponentRows::span_material`] `id`, in one call of the fast loop: short rows (100
    /// cells) cost no per-row setup or dispatch. Returns whether the updated cells all stayed
    /// finite.
    #[inline(always)]
    fn update_span(&self, rows: &mut [T], n: usize, count: usize, id: u32) -> bool {
        let width = self.extent[0];
        let local = |x: i64| (x - self.storage.lo[0]) as usize;
        let (a, b) = (local(self.r.lo[0]), local(self.r.hi[0]));
        let coef = self.table[id as usize];
        let cells = RowSpan { a, b, width, count };
        fast_uniform(rows, &self.terms, n * width, cells, coef, self.electric)
    }

    /// Updates the cells of storage row `n` at (`y`, `z`) (`row` is that row of the target);
    /// returns whether they all stayed finite.
    #[inline(always)]
    fn update(&self, row: &mut [T], n: usize, [y, z]: [i64; 2]) -> bool {
        let (r, storage) = (self.r, self.storage);
        if y < r.lo[1] || y >= r.hi[1] || z < r.lo[2] || z >= r.hi[2] {
            return true;
        }
        let base = n * self.extent[0];
        let local = |x: i64| (x - storage.lo[0]) as usize;
        // Outside the x layers the row takes a vector loop: plain, or with the y and z terms'
        // stretch factors of the row (constant along it).
        let plain = self.row_plain([y, z]);
        let vector = plain || self.terms.len() <= 2;
        let (fast_lo, fast_hi) = if !vector {
            (r.lo[0], r.lo[0])
        } else if self.x_stretches {
            let lo = r.lo[0].max(self.plain.0).min(r.hi[0]);
            (lo, r.hi[0].min(self.plain.1).max(lo))
        } else {
            (r.lo[0], r.hi[0])
        };
        let (terms, table, electric) = (&self.terms[..], self.table, self.electric);
        let factors = self.row_factors([y, z]);
        let mut ok = self.x_layer(row, n, [y, z], (local(r.lo[0]), local(fast_lo)), factors);
        let sweep = UniformRuns {
            terms,
            base,
            factors: (!plain).then_some(factors),
            electric,
        };
        let cells = (local(fast_lo), local(fast_hi));
        ok &= match self.row_coefficients(n) {
            Some(coef) => sweep.sweep(row, RowSpan::of_row(row, cells), coef),
            None => {
                let runs = self.runs(n, cells);
                match terms {
                    [t1, t2] if plain => {
                        long_runs_apart(row, [t1, t2], (table, base, electric), runs, &sweep)
                    }
                    _ => in_material_runs(row, table, runs, &sweep),
                }
            }
        };
        ok &= self.x_layer(row, n, [y, z], (local(fast_hi), local(r.hi[0])), factors);
        ok
    }

    /// Cells `a..b` of storage row `n` at (`y`, `z`) inside an x layer (or, with more than
    /// two terms, anywhere): the vector loop with per-cell x stretch ([`x_stretched`]) in
    /// runs of one material, the per-cell [`general`] path where that does not apply.
    #[inline(always)]
    fn x_layer(
        &self,
        row: &mut [T],
        n: usize,
        [y, z]: [i64; 2],
        (a, b): (usize, usize),
        factors: [T::Real; 2],
    ) -> bool {
        if a >= b {
            return true;
        }
        let (terms, ids, table, electric) = (&self.terms[..], self.ids, self.table, self.electric);
        let base = n * self.extent[0];
        let x_origin = self.storage.lo[0];
        let sweep = |row: &mut [T], span: (usize, usize), coef: [T::Real; 2]| {
            x_stretched(row, terms, (base, x_origin), span, coef, factors, electric)
        };
        let vector = match self.coefficients_over(n, (a, b)) {
            Some(coef) => sweep(row, (a, b), coef),
            None => {
                // Whether the vector loop applies depends on the terms alone: it fails on the
                // first run, before writing anything, or never.
                let mut all = Some(true);
                for (start, end, id) in self.runs(n, (a, b)) {
                    match sweep(row, (start, end), table[id as usize]) {
                        Some(ok) => all = all.map(|all| all & ok),
                        None => {
                            all = None;
                            break;
                        }
                    }
                }
                all
            }
        };
        vector.unwrap_or_else(|| {
            general(
                row,
                terms,
                ids,
                table,
                base,
                a,
                b,
                [y, z],
                x_origin,
                electric,
            )
        })
    }
}

/// The uniform loop over runs of one material of a row outside the x layers: plain, or with
/// the row's signed y and z stretch `factors` ([`stretched_uniform`]).
struct UniformRuns<'t, 'a, T: Scalar> {
    terms: &'t [Term<'a, T>],
    /// Storage offset of the row.
    base: usize,
    factors: Option<[T::Real; 2]>,
    electric: bool,
}

impl<T: Scalar> RunSweep<T> for UniformRuns<'_, '_, T> {
    #[inline(always)]
    fn sweep(&self, row: &mut [T], cells: RowSpan, coef: [T::Real; 2]) -> bool {
        let (terms, base, electric) = (self.terms, self.base, self.electric);
        match self.factors {
            None => fast_uniform(row, terms, base, cells, coef, electric),
            Some(factors) => stretched_uniform(row, terms, base, cells, coef, factors, electric),
        }
    }
}

/// One phase of the curl update over `region`. Unless `passes` says apart (or, by default,
/// the arrays are small enough to stay in cache), the phase's components (up to three) are
/// updated together, batch of rows by batch of rows, so a source row read for one component is
/// still in cache for the other that needs it (one pass per component reads every source twice
/// from memory: 96 B per 3D cell and step instead of 72). Every cell's arithmetic is the same
/// either way, so are the bits. The lists of batches come from `scratch`: nothing is allocated
/// once a phase of the same shape has run.
pub(crate) fn curl_phase<T: Scalar>(
    state: &mut YeeState<T>,
    electric: bool,
    region: Box3,
    (passes, batch_cells): (ComponentPasses, usize),
    scratch: &Scratch,
) {
    // At most three components of one kind.
    let mut targets: heapless::Vec<(Component, HostField<T>), 3> = heapless::Vec::new();
    for &c in state.mode.components() {
        if c.is_electric() != electric || region.intersect(&state.free[c.index()]).is_empty() {
            continue;
        }
        if let Some(field) = state.fields[c.index()].take()
            && let Err((c, field)) = targets.push((c, field))
        {
            state.fields[c.index()] = Some(field);
        }
    }
    let Some(storage) = targets.first().map(|(_, f)| f.storage()) else {
        return;
    };
    // Fields of one chunk share their storage box; anything else goes one at a time. Arrays
    // that fit in the last-level cache lose nothing by a second read, and there one pass per
    // component measured faster (docs/performance.md).
    let large = storage.cells() * std::mem::size_of::<T>() >= TOGETHER_ABOVE_BYTES;
    let together = match passes {
        ComponentPasses::Auto => large,
        ComponentPasses::Together => true,
        ComponentPasses::Apart => false,
    } && targets.iter().all(|(_, f)| f.storage() == storage);
    let groups = if together { 1 } else { targets.len() };
    let mut finite = true;
    // The ψ arrays and the tensor nodes' lists leave the state while it is borrowed for the
    // sources, as the targets do.
    let mut slabs = std::mem::take(&mut state.slabs);
    let mut tensor = std::mem::take(&mut state.tensor);
    for g in 0..groups {
        let members = if together { 0..targets.len() } else { g..g + 1 };
        let st = &*state;
        let kernels: heapless::Vec<ComponentRows<T>, 3> = members
            .clone()
            .map(|k| ComponentRows::new(st, &slabs, targets[k].0, storage, region))
            .collect();
        let components: heapless::Vec<usize, 3> =
            members.clone().map(|k| targets[k].0.index()).collect();
        let extent = storage.extent();
        let first = kernels.iter().map(|k| k.rows().0).min().unwrap_or(0);
        let last = kernels.iter().map(|k| k.rows().1).max().unwrap_or(0);
        // Tasks of several rows: rayon's per-task cost would dominate 100-cell rows.
        let rows_per_task = (batch_cells / extent[0]).max(1);
        let batch = extent[0] * rows_per_task;
        let count = ((last + 1 - first) * extent[0]).div_ceil(batch);
        // Batch-major: batch b of the group's j-th target at b·K + j.
        let per_batch = kernels.len();
        let mut batches: Vec<&mut [T]> = scratch.take::<&'static mut [T]>();
        batches.resize_with(count * per_batch, Default::default);
        let mut j = 0;
        for (k, (_, field)) in targets.iter_mut().enumerate() {
            if !members.contains(&k) {
                continue;
            }
            let span = &mut field.as_mut_slice()[first * extent[0]..(last + 1) * extent[0]];
            for (b, chunk) in span.chunks_mut(batch).enumerate() {
                batches[b * per_batch + j] = chunk;
            }
            j += 1;
        }
        // Each kernel's ψ shares at an offset of their own within a batch's.
        let mut offsets = [0; 4];
        for (j, kernel) in kernels.iter().enumerate() {
            offsets[j + 1] = offsets[j] + kernel.layers.len();
        }
        let shares = offsets[per_batch];
        let mut psi: Vec<PsiRows<T>> = scratch.take::<PsiRows<'static, T>>();
        psi_batches(
            &mut slabs,
            (&kernels, &components, &offsets),
            (first, last),
            (rows_per_task, count),
            &mut psi,
        );
        // Each batch's tensor nodes, applied right after the batch's rows by the same task.
        let mut nodes: Vec<Option<TensorRun<T>>> = scratch.take::<Option<TensorRun<'static, T>>>();
        let cuts = RowBatches {
            storage,
            first,
            rows: rows_per_task,
            count,
        };
        tensor_runs(
            &mut tensor,
            (st, electric, region),
            (cuts, &components),
            &mut nodes,
        );
        let sweep = |task: usize,
                     rows: &mut [&mut [T]],
                     psi: &mut [PsiRows<T>],
                     nodes: &mut [Option<TensorRun<T>>]| {
            let mut ok = true;
            let n0 = first + task * rows_per_task;
            // One component over the whole batch, then the next: each loop streams as few
            // arrays as a separate pass would, and the sources it shares with the previous
            // component come from cache (a batch's rows of all arrays fit in the L3).
            for (j, (kernel, target)) in kernels.iter().zip(rows.iter_mut()).enumerate() {
                let psi = &mut psi[offsets[j]..offsets[j + 1]];
                ok &= sweep_batch(kernel, target, n0, psi);
            }
            // The tensor nodes once every component's rows are done: the components' nodes lie
            // on the same surface and read the same values of the other field, still in cache
            // from the one before (a sweep between them would push them out).
            for (run, target) in nodes.iter_mut().zip(rows.iter_mut()) {
                if let Some(run) = run.take() {
                    ok &= run.apply(target, n0 * extent[0]);
                }
            }
            ok
        };
        let batched = batches
            .par_chunks_mut(per_batch)
            .zip(nodes.par_chunks_mut(per_batch))
            .enumerate();
        finite &= if shares == 0 {
            batched
                .map(|(task, (rows, nodes))| sweep(task, rows, &mut [], nodes))
                .reduce(|| true, |a, b| a & b)
        } else {
            batched
                .zip(psi.par_chunks_mut(shares))
                .map(|((task, (rows, nodes)), psi)| sweep(task, rows, psi, nodes))
                .reduce(|| true, |a, b| a & b)
        };
        scratch.give::<&'static mut [T]>(recycle(batches));
        scratch.give::<PsiRows<'static, T>>(recycle(psi));
        scratch.give::<Option<TensorRun<'static, T>>>(recycle(nodes));
    }
    state.slabs = slabs;
    state.tensor = tensor;
    state.non_finite |= !finite;
    for (c, field) in targets {
        state.fields[c.index()] = Some(field);
    }
}

/// Fills `out` with each batch's run of tensor nodes (`cuts`) of the group's components
/// (`components`, by [`Component::index`]) in `region`, batch-major as the rows (batch `b` of
/// the `j`-th component at `b·K + j`, `None` where it has none), for the task that sweeps the
/// batch to apply after its rows: with no pass of their own, the same bits
/// (`yee_scalar::tensor_update`).
fn tensor_runs<'s, T: Scalar>(
    tensor: &'s mut [Option<TensorNodes<T>>; 6],
    (st, electric, region): (&'s YeeState<T>, bool, Box3),
    (cuts, components): (RowBatches, &[usize]),
    out: &mut Vec<Option<TensorRun<'s, T>>>,
) {
    let per_batch = components.len();
    out.resize_with(cuts.count * per_batch, || None);
    let sources = other_field(st, electric);
    for (list, c) in tensor.iter_mut().zip(Component::ALL) {
        let (Some(list), Some(j)) = (list, components.iter().position(|&i| i == c.index())) else {
            continue;
        };
        for_each_run(list, (c, st.mode, &sources), region, cuts, |b, run| {
            out[b * per_batch + j] = Some(run);
        });
    }
}

/// The arrays of the field a phase reads (the magnetic one for the `electric` phase), by
/// [`Component::index`], for the tensor nodes' curls.
fn other_field<T: Scalar>(st: &YeeState<T>, electric: bool) -> Sources<'_, T> {
    core::array::from_fn(|i| {
        let c = Component::ALL[i];
        (c.is_electric() != electric)
            .then(|| st.fields[i].as_ref())
            .flatten()
    })
}

/// Fills `out` with the ψ rows of every batch (whole storage rows `rows.0..=rows.1`, `count`
/// batches of `rows_per_batch` rows) of every kernel's layers: the `l`-th layer of kernel `j` (of component
/// index `components[j]`) of batch `b` at `b·S + offsets[j] + l`, `S` the shares of a batch.
/// Each batch's share is split off the layer's ψ array, so the batches can run in parallel.
fn psi_batches<'p, T: Scalar>(
    slabs: &'p mut [CpmlSlab<T>],
    (kernels, components, offsets): (&[ComponentRows<T>], &[usize], &[usize; 4]),
    (first, last): (usize, usize),
    (rows_per_batch, count): (usize, usize),
    out: &mut Vec<PsiRows<'p, T>>,
) {
    let shares = offsets[kernels.len()];
    let Some(storage) = kernels.first().map(|k| k.storage) else {
        return;
    };
    out.resize_with(count * shares, || PsiRows {
        values: &mut [],
        first: 0,
    });
    // Every ψ array once, mutably: each belongs to at most one layer of one kernel (the one of
    // its component that crosses its slab).
    for (slab_index, slab) in slabs.iter_mut().enumerate() {
        for (c, array) in slab.psi.iter_mut().enumerate() {
            let Some(array) = array.as_mut() else {
                continue;
            };
            let owner = kernels.iter().enumerate().find_map(|(j, kernel)| {
                let l = kernel
                    .layers
                    .iter()
                    .position(|l| l.slab_index == slab_index)?;
                (components[j] == c).then_some((offsets[j] + l, &kernel.layers[l]))
            });
            let Some((slot, layer)) = owner else {
                continue;
            };
            let px = layer.slab.extent()[0];
            // Rows before the first batch are not swept this time.
            let start = layer.psi_rows_before(storage, first);
            let mut rest = &mut array[start * px..];
            let mut row = start;
            for b in 0..count {
                let end = (first + (b + 1) * rows_per_batch).min(last + 1);
                let next = layer.psi_rows_before(storage, end);
                let (share, tail) = std::mem::take(&mut rest).split_at_mut((next - row) * px);
                out[b * shares + slot] = PsiRows {
                    values: share,
                    first: row,
                };
                rest = tail;
                row = next;
            }
        }
    }
}

/// Updates one component over `target`, whole storage rows from row `n0`: runs of rows that
/// take the uniform fast loop within one z plane as one span, the others row by row, then the
/// CPML corrections of the batch's rows, layer by layer. Returns whether the updated cells all
/// stayed finite (before the correction, as the oracle checks).
///
/// Compiled for AVX-512 and AVX2 as well as the baseline, picked at run time, with the row
/// kernels inlined: one dispatch per batch, not per row.
#[multiversion::multiversion(targets(
    "x86_64+avx512f+avx512bw+avx512vl+avx2+avx",
    "x86_64+avx2+avx"
))]
pub(crate) fn sweep_batch<T: Scalar>(
    kernel: &ComponentRows<T>,
    target: &mut [T],
    n0: usize,
    psi: &mut [PsiRows<T>],
) -> bool {
    let (storage, width) = (kernel.storage, kernel.extent[0]);
    let count = target.len() / width;
    // (y, z) of the batch's first row, then stepped: no division per row.
    let mut y = storage.lo[1] + (n0 % kernel.extent[1]) as i64;
    let mut z = storage.lo[2] + (n0 / kernel.extent[1]) as i64;
    let mut ok = true;
    let mut j = 0;
    let first = [y, z];
    while j < count {
        // The row itself, then the rows after it of the same material.
        let material = kernel.span_material(n0 + j, [y, z]);
        let mut run = usize::from(material.is_some());
        while material.is_some()
            && j + run < count
            && y + (run as i64) < storage.hi[1]
            && kernel.span_material(n0 + j + run, [y + run as i64, z]) == material
        {
            run += 1;
        }
        let step = run.max(1);
        let rows = &mut target[j * width..(j + step) * width];
        if let (true, Some(id)) = (run > 1, material) {
            ok &= kernel.update_span(rows, n0 + j, run, id);
        } else {
            ok &= kernel.update(rows, n0 + j, [y, z]);
        }
        j += step;
        y += step as i64;
        if y == storage.hi[1] {
            y = storage.lo[1];
            z += 1;
        }
    }
    // The CPML corrections once the batch's rows are all updated (they are still in the last
    // level cache), layer by layer: each layer's ψ is then read as one stream through the batch,
    // not in bursts of a few rows between the curl's (docs/performance.md).
    if !kernel.layers.is_empty() {
        correct_rows(kernel, target, n0 * width, first, psi);
    }
    ok
}

/// The difference approximating the derivative at offset `o`: backward for E, forward for H.
#[inline(always)]
pub(crate) fn diff<T: Scalar>(s: &[T], o: usize, stride: usize, electric: bool) -> T {
    if electric {
        s[o] - s[o - stride]
    } else {
        s[o + stride] - s[o]
    }
}

/// The curl without stretching, in the oracle's order: `((0 ± d₁) ∓ d₂)`.
#[inline(always)]
pub(crate) fn plain_curl<T: Scalar>(terms: &[Term<T>], o: usize, electric: bool) -> T {
    let mut curl = T::zero();
    for t in terms {
        let d = diff(t.source, o, t.stride, electric);
        curl = if t.positive { curl + d } else { curl - d };
    }
    curl
}

/// The two operands of a term's difference over cells `o..o + n`: (upper, lower) for
/// `upper − lower`, backward for E, forward for H.
#[inline(always)]
pub(crate) fn operands<'a, T: Scalar>(
    t: &Term<'a, T>,
    o: usize,
    n: usize,
    electric: bool,
) -> (&'a [T], &'a [T]) {
    let (hi, lo) = if electric {
        (o, o - t.stride)
    } else {
        (o + t.stride, o)
    };
    (&t.source[hi..hi + n], &t.source[lo..lo + n])
}
