//! # yee-rayon
//!
//! The curl update of the Yee scheme as row kernels the compiler vectorises, with rows spread
//! over a rayon pool. It plugs into the scalar backend's [`YeeChunk`] as its
//! [`CurlExecutor`]; CPML corrections, sources, halos and migration stay shared. The arithmetic
//! is the scalar oracle's, operation for operation (no fused multiply-add, the same order), so
//! the fields are bit-for-bit the same — the tests hold it to that.
//!
//! Where it is fast: outside CPML stretching (1/κ = 1 exactly, so the scaling is skipped without
//! changing a bit) and with one material over the chunk (coefficients hoisted out of the loop);
//! elsewhere it falls back to per-cell lookups, still in parallel. A run of rows that all take
//! the fast loop is swept by one call of it, so short rows pay no per-row setup. On grids that
//! outgrow the cache, a phase's components are updated batch of rows by batch of rows
//! ([`ComponentPasses`]), so each source array is read from memory once per step instead of
//! twice.
#![warn(missing_docs)]

use std::sync::Arc;

use rayon::prelude::*;
use yee_core::{Box3, Field, Real, Scalar};
use yee_em::Component;
use yee_scalar::chunk::CurlExecutor;
use yee_scalar::cpml::with_cpml_planes;
use yee_scalar::field::HostField;
use yee_scalar::state::YeeState;

pub use yee_scalar::YeeChunk;

/// The rayon curl executor: on a given pool, or on rayon's global pool.
#[derive(Clone, Debug, Default)]
pub struct RayonCurl {
    pool: Option<Arc<rayon::ThreadPool>>,
    passes: ComponentPasses,
    batch_cells: Option<usize>,
}

/// How the components of one phase are swept. Every choice gives the same bits.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ComponentPasses {
    /// Together where the arrays outgrow the cache (at least 8 MiB each), else apart.
    #[default]
    Auto,
    /// All of a phase's components batch of rows by batch of rows: each source is read from
    /// memory once.
    Together,
    /// One pass over the chunk per component.
    Apart,
}

impl RayonCurl {
    /// On rayon's global pool.
    pub fn global() -> Self {
        RayonCurl {
            pool: None,
            passes: ComponentPasses::Auto,
            batch_cells: None,
        }
    }

    /// On a pool of `threads` threads.
    pub fn with_threads(threads: usize) -> Result<Self, rayon::ThreadPoolBuildError> {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads.max(1))
            .build()?;
        Ok(RayonCurl {
            pool: Some(Arc::new(pool)),
            passes: ComponentPasses::Auto,
            batch_cells: None,
        })
    }

    /// Sweeps a phase's components as `passes` says (the same bits; for measuring and testing).
    pub fn with_passes(mut self, passes: ComponentPasses) -> Self {
        self.passes = passes;
        self
    }

    /// Sweeps batches of whole rows of at least `cells` cells (the same bits; for measuring).
    pub fn with_batch_cells(mut self, cells: usize) -> Self {
        self.batch_cells = Some(cells.max(1));
        self
    }
}

impl<T: Scalar> CurlExecutor<T> for RayonCurl {
    fn cpml(&self, state: &mut YeeState<T>, electric: bool, region: Box3) {
        match &self.pool {
            Some(pool) => pool.install(|| cpml_phase(state, electric, region)),
            None => cpml_phase(state, electric, region),
        }
    }

    fn curl(&self, state: &mut YeeState<T>, electric: bool, region: Box3) {
        let (passes, batch) = (self.passes, self.batch_cells.unwrap_or(ROW_BATCH_CELLS));
        match &self.pool {
            Some(pool) => pool.install(|| curl_phase(state, electric, region, passes, batch)),
            None => curl_phase(state, electric, region, passes, batch),
        }
    }
}

/// Cells per rayon task (whole rows of at least this many cells). Larger batches switch the
/// memory streams less often: at 256³ f32 on one thread 256 Ki cells measured ≈ 1.2× the rate
/// of 16 Ki (docs/performance.md), and a 100³ grid still splits into four tasks.
const ROW_BATCH_CELLS: usize = 256 * 1024;

/// Field arrays at least this large (bytes) have their components updated together.
const TOGETHER_ABOVE_BYTES: usize = 8 << 20;

/// One curl term of a component: the source field, its stride along the derivative axis, the
/// sign, the axis and the stretch table along it.
struct Term<'a, T: Scalar> {
    source: &'a [T],
    stride: usize,
    positive: bool,
    axis: usize,
    table: &'a [[T::Real; 3]],
}

/// Everything the row kernel of one component needs, borrowed from the state (the sources are
/// the other phase's fields, so the targets can be written meanwhile).
struct ComponentRows<'a, T: Scalar> {
    /// The cells to update: the region within the component's free box.
    r: Box3,
    storage: Box3,
    extent: [usize; 3],
    electric: bool,
    terms: Vec<Term<'a, T>>,
    ids: &'a [u16],
    table: &'a [[T::Real; 2]],
    uniform: Option<[T::Real; 2]>,
    plain: (i64, i64),
    x_stretches: bool,
}

impl<'a, T: Scalar> ComponentRows<'a, T> {
    fn new(st: &'a YeeState<T>, c: Component, storage: Box3, region: Box3) -> Self {
        let strides = storage.strides();
        let electric = c.is_electric();
        let active = st.mode.active_axes();
        let terms: Vec<Term<T>> = c
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
        ComponentRows {
            r: region.intersect(&st.free[c.index()]),
            storage,
            extent: storage.extent(),
            electric,
            x_stretches: terms.iter().any(|t| t.axis == 0),
            terms,
            ids: &st.material_ids[c.index()][..],
            table,
            uniform: st.uniform_material[c.index()].map(|id| table[id as usize]),
            plain: st.unstretched[0],
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
    fn row_plain(&self, [y, z]: [i64; 2]) -> bool {
        let one = T::Real::from_f64(1.0);
        self.terms
            .iter()
            .all(|t| t.axis == 0 || t.table[[0, y, z][t.axis] as usize][2] == one)
    }

    /// Whether row (`y`, `z`) holds cells to update and all of them take the uniform fast loop,
    /// so that a run of such rows is swept by one call ([`ComponentRows::update_span`]).
    fn spans(&self, [y, z]: [i64; 2]) -> bool {
        let r = self.r;
        self.uniform.is_some()
            && y >= r.lo[1]
            && y < r.hi[1]
            && z >= r.lo[2]
            && z < r.hi[2]
            && (!self.x_stretches || (self.plain.0 <= r.lo[0] && self.plain.1 >= r.hi[0]))
            && self.row_plain([y, z])
    }

    /// Updates `count` consecutive storage rows from row `n` (`rows` holds them) that all
    /// [`ComponentRows::spans`], in one call of the fast loop: short rows (100 cells) cost no
    /// per-row setup or dispatch. Returns whether the updated cells all stayed finite.
    fn update_span(&self, rows: &mut [T], n: usize, count: usize) -> bool {
        let width = self.extent[0];
        let local = |x: i64| (x - self.storage.lo[0]) as usize;
        let (a, b) = (local(self.r.lo[0]), local(self.r.hi[0]));
        let coef = self.uniform.expect("spans need one material");
        let cells = RowSpan { a, b, width, count };
        fast_uniform(rows, &self.terms, n * width, cells, coef, self.electric)
    }

    /// Updates the cells of storage row `n` at (`y`, `z`) (`row` is that row of the target);
    /// returns whether they all stayed finite.
    fn update(&self, row: &mut [T], n: usize, [y, z]: [i64; 2]) -> bool {
        let (r, storage) = (self.r, self.storage);
        if y < r.lo[1] || y >= r.hi[1] || z < r.lo[2] || z >= r.hi[2] {
            return true;
        }
        let base = n * self.extent[0];
        let local = |x: i64| (x - storage.lo[0]) as usize;
        // Rows inside a y or z stretch take the per-cell path throughout.
        let (fast_lo, fast_hi) = if !self.row_plain([y, z]) {
            (r.lo[0], r.lo[0])
        } else if self.x_stretches {
            let lo = r.lo[0].max(self.plain.0).min(r.hi[0]);
            (lo, r.hi[0].min(self.plain.1).max(lo))
        } else {
            (r.lo[0], r.hi[0])
        };
        let (terms, ids, table, electric) = (&self.terms[..], self.ids, self.table, self.electric);
        let mut ok = general(
            row,
            terms,
            ids,
            table,
            base,
            local(r.lo[0]),
            local(fast_lo),
            [y, z],
            storage.lo[0],
            electric,
        );
        ok &= match self.uniform {
            Some(coef) => {
                let cells = RowSpan {
                    a: local(fast_lo),
                    b: local(fast_hi),
                    width: row.len(),
                    count: 1,
                };
                fast_uniform(row, terms, base, cells, coef, electric)
            }
            None => fast_materials(
                row,
                terms,
                ids,
                table,
                base,
                local(fast_lo),
                local(fast_hi),
                electric,
            ),
        };
        ok &= general(
            row,
            terms,
            ids,
            table,
            base,
            local(fast_hi),
            local(r.hi[0]),
            [y, z],
            storage.lo[0],
            electric,
        );
        ok
    }
}

/// One phase of the curl update over `region`. Unless `passes` says apart (or, by default,
/// the arrays are small enough to stay in cache), the phase's components (up to three) are
/// updated together, batch of rows by batch of rows, so a source row read for one component is
/// still in cache for the other that needs it (one pass per component reads every source twice
/// from memory: 96 B per 3D cell and step instead of 72). Every cell's arithmetic is the same
/// either way, so are the bits.
fn curl_phase<T: Scalar>(
    state: &mut YeeState<T>,
    electric: bool,
    region: Box3,
    passes: ComponentPasses,
    batch_cells: usize,
) {
    let components: Vec<Component> = state
        .mode
        .components()
        .iter()
        .copied()
        .filter(|c| {
            c.is_electric() == electric && !region.intersect(&state.free[c.index()]).is_empty()
        })
        .collect();
    let mut targets: Vec<(Component, HostField<T>)> = components
        .iter()
        .filter_map(|&c| Some((c, state.fields[c.index()].take()?)))
        .collect();
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
    let groups: Vec<Vec<usize>> = if together {
        vec![(0..targets.len()).collect()]
    } else {
        (0..targets.len()).map(|k| vec![k]).collect()
    };
    let mut finite = true;
    for group in groups {
        let st = &*state;
        let kernels: Vec<ComponentRows<T>> = group
            .iter()
            .map(|&k| ComponentRows::new(st, targets[k].0, storage, region))
            .collect();
        let extent = storage.extent();
        let first = kernels.iter().map(|k| k.rows().0).min().unwrap_or(0);
        let last = kernels.iter().map(|k| k.rows().1).max().unwrap_or(0);
        // Tasks of several rows: rayon's per-task cost would dominate 100-cell rows.
        let rows_per_task = (batch_cells / extent[0]).max(1);
        let batch = extent[0] * rows_per_task;
        // Batch-major: for each batch of rows, that batch of every target in the group.
        let mut batches: Vec<Vec<&mut [T]>> = Vec::new();
        for (k, (_, field)) in targets.iter_mut().enumerate() {
            if !group.contains(&k) {
                continue;
            }
            let span = &mut field.as_mut_slice()[first * extent[0]..(last + 1) * extent[0]];
            for (b, chunk) in span.chunks_mut(batch).enumerate() {
                if batches.len() <= b {
                    batches.push(Vec::with_capacity(kernels.len()));
                }
                batches[b].push(chunk);
            }
        }
        finite &= batches
            .into_par_iter()
            .enumerate()
            .map(|(task, mut rows)| {
                let mut ok = true;
                let n0 = first + task * rows_per_task;
                // One component over the whole batch, then the next: each loop streams as few
                // arrays as a separate pass would, and the sources it shares with the previous
                // component come from cache (a batch's rows of all arrays fit in the L3).
                for (kernel, target) in kernels.iter().zip(rows.iter_mut()) {
                    ok &= sweep_batch(kernel, target, n0);
                }
                ok
            })
            .reduce(|| true, |a, b| a & b);
    }
    state.non_finite |= !finite;
    for (c, field) in targets {
        state.fields[c.index()] = Some(field);
    }
}

/// Updates one component over `target`, whole storage rows from row `n0`: runs of rows that
/// take the uniform fast loop within one z plane as one span, the others row by row. Returns
/// whether the updated cells all stayed finite.
fn sweep_batch<T: Scalar>(kernel: &ComponentRows<T>, target: &mut [T], n0: usize) -> bool {
    let (storage, width) = (kernel.storage, kernel.extent[0]);
    let count = target.len() / width;
    // (y, z) of the batch's first row, then stepped: no division per row.
    let mut y = storage.lo[1] + (n0 % kernel.extent[1]) as i64;
    let mut z = storage.lo[2] + (n0 / kernel.extent[1]) as i64;
    let mut ok = true;
    let mut j = 0;
    while j < count {
        let mut run = 0;
        while j + run < count
            && y + (run as i64) < storage.hi[1]
            && kernel.spans([y + run as i64, z])
        {
            run += 1;
        }
        let step = run.max(1);
        let rows = &mut target[j * width..(j + step) * width];
        if run > 1 {
            ok &= kernel.update_span(rows, n0 + j, run);
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
    ok
}

/// The difference approximating the derivative at offset `o`: backward for E, forward for H.
#[inline(always)]
fn diff<T: Scalar>(s: &[T], o: usize, stride: usize, electric: bool) -> T {
    if electric {
        s[o] - s[o - stride]
    } else {
        s[o + stride] - s[o]
    }
}

/// The curl without stretching, in the oracle's order: `((0 ± d₁) ∓ d₂)`.
#[inline(always)]
fn plain_curl<T: Scalar>(terms: &[Term<T>], o: usize, electric: bool) -> T {
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
fn operands<'a, T: Scalar>(
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

/// Cells `a..b` of each of `count` consecutive storage rows of `width` cells.
#[derive(Clone, Copy)]
struct RowSpan {
    a: usize,
    b: usize,
    width: usize,
    count: usize,
}

/// The cells of `rows` that `span` names, with one material and no stretching: equal-length
/// slices zipped, so the compiler drops the bounds checks and vectorises — compiled for AVX-512
/// and AVX2 as well as the baseline, picked at run time (no FMA: fusing would change the bits).
/// Returns whether every new value is finite.
#[multiversion::multiversion(targets(
    "x86_64+avx512f+avx512bw+avx512vl+avx2+avx",
    "x86_64+avx2+avx"
))]
fn fast_uniform<T: Scalar>(
    rows: &mut [T],
    terms: &[Term<T>],
    base: usize,
    span: RowSpan,
    coef: [T::Real; 2],
    electric: bool,
) -> bool {
    let [decay, gain] = coef;
    let RowSpan { a, b, width, count } = span;
    let n = b - a;
    // The sign pattern is fixed per component: one branch-free loop for each, chosen once for
    // all rows. Each loop folds the finiteness of what it writes as it goes (a non-short-circuit
    // `&` vectorises; `all` would branch per element), so the check costs no second pass.
    let mut ok = true;
    match terms {
        [t1, t2] => {
            let (t, cells) = ([t1, t2], (base, span));
            ok = match (t1.positive, t2.positive) {
                (true, false) => two_term_rows(rows, t, cells, coef, electric, |d1, d2| {
                    (T::zero() + d1) - d2
                }),
                (false, true) => two_term_rows(rows, t, cells, coef, electric, |d1, d2| {
                    (T::zero() - d1) + d2
                }),
                (true, true) => two_term_rows(rows, t, cells, coef, electric, |d1, d2| {
                    (T::zero() + d1) + d2
                }),
                (false, false) => two_term_rows(rows, t, cells, coef, electric, |d1, d2| {
                    (T::zero() - d1) - d2
                }),
            };
        }
        [t1] => {
            let p1 = t1.positive;
            for k in 0..count {
                let (h1, l1) = operands(t1, base + k * width + a, n, electric);
                let out = &mut rows[k * width + a..k * width + b];
                ok &= out
                    .iter_mut()
                    .zip(h1)
                    .zip(l1)
                    .fold(true, |ok, ((v, &x1), &y1)| {
                        let d1 = x1 - y1;
                        let curl = if p1 { T::zero() + d1 } else { T::zero() - d1 };
                        *v = v.scale(decay) + curl.scale(gain);
                        ok & v.is_finite()
                    });
            }
        }
        _ => {
            for k in 0..count {
                let o = base + k * width + a;
                let out = &mut rows[k * width + a..k * width + b];
                ok &= out.iter_mut().enumerate().fold(true, |ok, (i, v)| {
                    *v = v.scale(decay) + plain_curl(terms, o + i, electric).scale(gain);
                    ok & v.is_finite()
                });
            }
        }
    }
    ok
}

/// The two-term update over the rows of `span` (from storage offset `base`), the curl's
/// signs fixed in `curl`; whether every new value is finite.
#[inline(always)]
fn two_term_rows<T: Scalar>(
    rows: &mut [T],
    [t1, t2]: [&Term<T>; 2],
    (base, span): (usize, RowSpan),
    [decay, gain]: [T::Real; 2],
    electric: bool,
    curl: impl Fn(T, T) -> T + Copy,
) -> bool {
    let RowSpan { a, b, width, count } = span;
    let mut ok = true;
    for k in 0..count {
        let o = base + k * width + a;
        let (h1, l1) = operands(t1, o, b - a, electric);
        let (h2, l2) = operands(t2, o, b - a, electric);
        let out = &mut rows[k * width + a..k * width + b];
        ok &= zip_update(out, h1, l1, h2, l2, decay, gain, curl);
    }
    ok
}

/// `v ← v·decay + curl(x₁ − y₁, x₂ − y₂)·gain` over equal-length slices; whether every new
/// value is finite.
#[inline(always)]
fn zip_update<T: Scalar>(
    out: &mut [T],
    h1: &[T],
    l1: &[T],
    h2: &[T],
    l2: &[T],
    decay: T::Real,
    gain: T::Real,
    curl: impl Fn(T, T) -> T,
) -> bool {
    out.iter_mut().zip(h1).zip(l1).zip(h2).zip(l2).fold(
        true,
        |ok, ((((v, &x1), &y1), &x2), &y2)| {
            *v = v.scale(decay) + curl(x1 - y1, x2 - y2).scale(gain);
            ok & v.is_finite()
        },
    )
}

/// Cells `a..b` of a row without stretching, coefficients looked up per cell.
#[inline(always)]
fn fast_materials<T: Scalar>(
    row: &mut [T],
    terms: &[Term<T>],
    ids: &[u16],
    table: &[[T::Real; 2]],
    base: usize,
    a: usize,
    b: usize,
    electric: bool,
) -> bool {
    let mut ok = true;
    for i in a..b {
        let [decay, gain] = table[ids[base + i] as usize];
        let v = row[i].scale(decay) + plain_curl(terms, base + i, electric).scale(gain);
        ok &= v.is_finite();
        row[i] = v;
    }
    ok
}

/// Cells `a..b` of a row on the oracle's per-cell path: stretch factors and lookups.
fn general<T: Scalar>(
    row: &mut [T],
    terms: &[Term<T>],
    ids: &[u16],
    table: &[[T::Real; 2]],
    base: usize,
    a: usize,
    b: usize,
    yz: [i64; 2],
    x_origin: i64,
    electric: bool,
) -> bool {
    let mut ok = true;
    for i in a..b {
        let o = base + i;
        let p = [x_origin + i as i64, yz[0], yz[1]];
        let mut curl = T::zero();
        for t in terms {
            let scaled =
                diff(t.source, o, t.stride, electric).scale(t.table[p[t.axis] as usize][2]);
            curl = if t.positive {
                curl + scaled
            } else {
                curl - scaled
            };
        }
        let [decay, gain] = table[ids[o] as usize];
        let v = row[i].scale(decay) + curl.scale(gain);
        ok &= v.is_finite();
        row[i] = v;
    }
    ok
}

/// The CPML corrections in parallel over the planes of each layer, in the oracle's arithmetic:
/// `ψ ← b·ψ + c·∂`, then the field gains `± Cb·ψ`.
fn cpml_phase<T: Scalar>(state: &mut YeeState<T>, electric: bool, region: Box3) {
    let mut slabs = std::mem::take(&mut state.slabs);
    let components: Vec<Component> = state
        .mode
        .components()
        .iter()
        .copied()
        .filter(|c| c.is_electric() == electric)
        .collect();
    for slab in &mut slabs {
        for &c in &components {
            cpml_component(state, slab, c, region);
        }
    }
    state.slabs = slabs;
}

fn cpml_component<T: Scalar>(
    state: &mut YeeState<T>,
    slab: &mut yee_scalar::state::CpmlSlab<T>,
    c: Component,
    region: Box3,
) {
    with_cpml_planes(state, slab, c, region, |ctx, fields, psi| {
        fields
            .par_chunks_mut(ctx.field_plane)
            .zip(psi.par_chunks_mut(ctx.psi_plane))
            .enumerate()
            .for_each(|(k, (f, p))| {
                ctx.correct_plane(ctx.region.lo[2] + k as i64, f, p);
            });
    });
}

impl<T: Scalar> yee_em::YeeBackend<T> for RayonCurl {
    type Chunk<'s> = yee_scalar::YeeChunk<'s, T, RayonCurl>;

    fn name(&self) -> &'static str {
        "rayon"
    }

    fn build<'s>(
        &self,
        setup: &yee_em::Setup<'s>,
        owned: Box3,
        costs: yee_em::Costs,
    ) -> Result<Self::Chunk<'s>, yee_core::HostChunkError> {
        yee_scalar::YeeChunk::with_kernel(setup, owned, self.clone())
            .with_costs(costs)
            .checked()
    }
}
