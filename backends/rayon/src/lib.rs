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
//! elsewhere it falls back to per-cell lookups, still in parallel.
#![warn(missing_docs)]

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use rayon::prelude::*;
use yee_core::{Box3, Component, Field, Real, Scalar};
use yee_scalar::chunk::CurlExecutor;
use yee_scalar::cpml::with_cpml_planes;
use yee_scalar::state::YeeState;

pub use yee_scalar::YeeChunk;

/// The rayon curl executor: on a given pool, or on rayon's global pool.
#[derive(Clone, Debug, Default)]
pub struct RayonCurl {
    pool: Option<Arc<rayon::ThreadPool>>,
}

impl RayonCurl {
    /// On rayon's global pool.
    pub fn global() -> Self {
        RayonCurl { pool: None }
    }

    /// On a pool of `threads` threads.
    pub fn with_threads(threads: usize) -> Result<Self, rayon::ThreadPoolBuildError> {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads.max(1))
            .build()?;
        Ok(RayonCurl {
            pool: Some(Arc::new(pool)),
        })
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
        let mut run = || {
            let components: Vec<Component> = state
                .mode
                .components()
                .iter()
                .copied()
                .filter(|c| c.is_electric() == electric)
                .collect();
            for c in components {
                update_component(state, c, region);
            }
        };
        match &self.pool {
            Some(pool) => pool.install(run),
            None => run(),
        }
    }
}

/// Cells per rayon task (whole rows of at least this many cells).
const ROW_BATCH_CELLS: usize = 16 * 1024;

/// One curl term of a component: the source field, its stride along the derivative axis, the
/// sign, the axis and the stretch table along it.
struct Term<'a, T: Scalar> {
    source: &'a [T],
    stride: usize,
    positive: bool,
    axis: usize,
    table: &'a [[T::Real; 3]],
}

fn update_component<T: Scalar>(state: &mut YeeState<T>, c: Component, region: Box3) {
    let r = region.intersect(&state.free[c.index()]);
    if r.is_empty() {
        return;
    }
    let Some(mut target) = state.fields[c.index()].take() else {
        return;
    };
    let storage = target.storage();
    let extent = storage.extent();
    let strides = storage.strides();
    let electric = c.is_electric();
    let finite = AtomicBool::new(true);
    {
        let st = &*state;
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
        let ids = &st.material_ids[c.index()][..];
        let table = if electric {
            &st.electric[..]
        } else {
            &st.magnetic[..]
        };
        let uniform = st.uniform_material[c.index()].map(|id| table[id as usize]);
        let (plain_lo, plain_hi) = st.unstretched[0];
        let x_stretches = terms.iter().any(|t| t.axis == 0);
        let one = T::Real::from_f64(1.0);
        // Tasks of several rows: rayon's per-task cost would dominate 100-cell rows.
        let rows_per_task = (ROW_BATCH_CELLS / extent[0]).max(1);
        // Only the rows from the region's first to its last (storage rows run y, then z).
        let row_of = |y: i64, z: i64| {
            (z - storage.lo[2]) as usize * extent[1] + (y - storage.lo[1]) as usize
        };
        let (first, last) = (row_of(r.lo[1], r.lo[2]), row_of(r.hi[1] - 1, r.hi[2] - 1));
        target.as_mut_slice()[first * extent[0]..(last + 1) * extent[0]]
            .par_chunks_mut(extent[0] * rows_per_task)
            .enumerate()
            .for_each(|(task, rows)| {
                for (j, row) in rows.chunks_mut(extent[0]).enumerate() {
                    let n = first + task * rows_per_task + j;
                    let y = storage.lo[1] + (n % extent[1]) as i64;
                    let z = storage.lo[2] + (n / extent[1]) as i64;
                    if y < r.lo[1] || y >= r.hi[1] || z < r.lo[2] || z >= r.hi[2] {
                        continue;
                    }
                    let base = n * extent[0];
                    let local = |x: i64| (x - storage.lo[0]) as usize;
                    // Rows inside a y or z stretch take the per-cell path throughout.
                    let row_plain = terms
                        .iter()
                        .all(|t| t.axis == 0 || t.table[[0, y, z][t.axis] as usize][2] == one);
                    let (fast_lo, fast_hi) = if !row_plain {
                        (r.lo[0], r.lo[0])
                    } else if x_stretches {
                        let lo = r.lo[0].max(plain_lo).min(r.hi[0]);
                        (lo, r.hi[0].min(plain_hi).max(lo))
                    } else {
                        (r.lo[0], r.hi[0])
                    };
                    let mut ok = true;
                    ok &= general(
                        row,
                        &terms,
                        ids,
                        table,
                        base,
                        local(r.lo[0]),
                        local(fast_lo),
                        [y, z],
                        storage.lo[0],
                        electric,
                    );
                    ok &= match uniform {
                        Some(coef) => fast_uniform(
                            row,
                            &terms,
                            base,
                            local(fast_lo),
                            local(fast_hi),
                            coef,
                            electric,
                        ),
                        None => fast_materials(
                            row,
                            &terms,
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
                        &terms,
                        ids,
                        table,
                        base,
                        local(fast_hi),
                        local(r.hi[0]),
                        [y, z],
                        storage.lo[0],
                        electric,
                    );
                    if !ok {
                        finite.store(false, Ordering::Relaxed);
                    }
                }
            });
    }
    state.non_finite |= !finite.load(Ordering::Relaxed);
    state.fields[c.index()] = Some(target);
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

/// Cells `a..b` of a row with one material and no stretching: equal-length slices zipped, so
/// the compiler drops the bounds checks and vectorises — compiled for AVX-512 and AVX2 as well as
/// the baseline, picked at run time (no FMA: fusing would change the bits).
#[multiversion::multiversion(targets(
    "x86_64+avx512f+avx512bw+avx512vl+avx2+avx",
    "x86_64+avx2+avx"
))]
fn fast_uniform<T: Scalar>(
    row: &mut [T],
    terms: &[Term<T>],
    base: usize,
    a: usize,
    b: usize,
    coef: [T::Real; 2],
    electric: bool,
) -> bool {
    let [decay, gain] = coef;
    let n = b - a;
    let out = &mut row[a..b];
    match terms {
        [t1, t2] => {
            let (h1, l1) = operands(t1, base + a, n, electric);
            let (h2, l2) = operands(t2, base + a, n, electric);
            // The signs are fixed per component: one branch-free loop for each pattern.
            match (t1.positive, t2.positive) {
                (true, false) => zip_update(out, h1, l1, h2, l2, decay, gain, |d1, d2| {
                    (T::zero() + d1) - d2
                }),
                (false, true) => zip_update(out, h1, l1, h2, l2, decay, gain, |d1, d2| {
                    (T::zero() - d1) + d2
                }),
                (true, true) => zip_update(out, h1, l1, h2, l2, decay, gain, |d1, d2| {
                    (T::zero() + d1) + d2
                }),
                (false, false) => zip_update(out, h1, l1, h2, l2, decay, gain, |d1, d2| {
                    (T::zero() - d1) - d2
                }),
            }
        }
        [t1] => {
            let (h1, l1) = operands(t1, base + a, n, electric);
            let p1 = t1.positive;
            for ((v, &x1), &y1) in out.iter_mut().zip(h1).zip(l1) {
                let d1 = x1 - y1;
                let curl = if p1 { T::zero() + d1 } else { T::zero() - d1 };
                *v = v.scale(decay) + curl.scale(gain);
            }
        }
        _ => {
            for (i, v) in out.iter_mut().enumerate() {
                *v = v.scale(decay) + plain_curl(terms, base + a + i, electric).scale(gain);
            }
        }
    }
    // A non-short-circuit fold vectorises; `all` would stop at every element to branch.
    out.iter().fold(true, |ok, v| ok & v.is_finite())
}

/// `v ← v·decay + curl(x₁ − y₁, x₂ − y₂)·gain` over equal-length slices.
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
) {
    for ((((v, &x1), &y1), &x2), &y2) in out.iter_mut().zip(h1).zip(l1).zip(h2).zip(l2) {
        *v = v.scale(decay) + curl(x1 - y1, x2 - y2).scale(gain);
    }
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
