//! The row kernels: equal-length slices zipped so the compiler vectorises them, in the scalar
//! oracle's arithmetic (no fused multiply-add, the same order).

use yee_core::{Real, Scalar};
use yee_scalar::material_ids::NodeIds;

use crate::curl::*;
use crate::runs::Runs;

/// Cells `a..b` of each of `count` consecutive storage rows of `width` cells.
#[derive(Clone, Copy)]
pub(crate) struct RowSpan {
    pub(crate) a: usize,
    pub(crate) b: usize,
    pub(crate) width: usize,
    pub(crate) count: usize,
}

impl RowSpan {
    /// Cells `a..b` of one row, `row`.
    #[inline(always)]
    pub(crate) fn of_row<T>(row: &[T], (a, b): (usize, usize)) -> Self {
        RowSpan {
            a,
            b,
            width: row.len(),
            count: 1,
        }
    }
}

/// The cells of `rows` that `span` names, with one material and no stretching: equal-length
/// slices zipped, so the compiler drops the bounds checks and vectorises — inlined into
/// [`crate::curl::sweep_batch`], which is compiled for AVX-512 and AVX2 as well as the baseline
/// and picked at run time (no FMA: fusing would change the bits).
/// Returns whether every new value is finite.
#[inline(always)]
pub(crate) fn fast_uniform<T: Scalar>(
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
                // A `for` loop, not `fold`: the compiler may leave a `fold` out of line, and
                // then compiles it for the baseline target only.
                for ((v, &x1), &y1) in out.iter_mut().zip(h1).zip(l1) {
                    let d1 = x1 - y1;
                    let curl = if p1 { T::zero() + d1 } else { T::zero() - d1 };
                    *v = v.scale(decay) + curl.scale(gain);
                    ok &= v.is_finite();
                }
            }
        }
        _ => {
            for k in 0..count {
                let o = base + k * width + a;
                let out = &mut rows[k * width + a..k * width + b];
                for (i, v) in out.iter_mut().enumerate() {
                    *v = v.scale(decay) + plain_curl(terms, o + i, electric).scale(gain);
                    ok &= v.is_finite();
                }
            }
        }
    }
    ok
}

/// The two-term update over the rows of `span` (from storage offset `base`), the curl's
/// signs fixed in `curl`; whether every new value is finite.
#[inline(always)]
pub(crate) fn two_term_rows<T: Scalar>(
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
pub(crate) fn zip_update<T: Scalar>(
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

/// The `ids.len()` cells from cell `from` of a row of several materials (storage offset
/// `base`), `ids` their materials (at most [`NODE_BLOCK`]), no stretching, a two-term curl:
/// each node's decay and gain gathered from `table` by its id, then one vector loop — per node
/// the arithmetic of [`fast_uniform`], so the same bits, without a call per run of equal ids (a
/// smoothed sphere's surface, where every node is a material of its own, cuts its rows into
/// runs of one or two nodes). Whether every new value is finite.
#[inline(always)]
pub(crate) fn per_node_materials<T: Scalar>(
    row: &mut [T],
    [t1, t2]: [&Term<T>; 2],
    (ids, table): (&[u16], &[[T::Real; 2]]),
    (base, from): (usize, usize),
    electric: bool,
) -> bool {
    let cells = (row, [t1, t2], (ids, table), base, from, electric);
    match (t1.positive, t2.positive) {
        (true, false) => per_node_rows(cells, |d1, d2| (T::zero() + d1) - d2),
        (false, true) => per_node_rows(cells, |d1, d2| (T::zero() - d1) + d2),
        (true, true) => per_node_rows(cells, |d1, d2| (T::zero() + d1) + d2),
        (false, false) => per_node_rows(cells, |d1, d2| (T::zero() - d1) - d2),
    }
}

/// Nodes whose coefficients [`per_node_materials`] gathers at once (on the stack).
const NODE_BLOCK: usize = 64;

/// The arguments of [`per_node_materials`].
type NodeCells<'r, 'a, 't, T> = (
    &'r mut [T],
    [&'t Term<'a, T>; 2],
    (&'r [u16], &'r [[<T as Scalar>::Real; 2]]),
    usize,
    usize,
    bool,
);

/// [`per_node_materials`] with the curl's signs fixed in `curl`.
#[inline(always)]
fn per_node_rows<T: Scalar>(
    (row, [t1, t2], (ids, table), base, from, electric): NodeCells<'_, '_, '_, T>,
    curl: impl Fn(T, T) -> T + Copy,
) -> bool {
    let zero = T::Real::from_f64(0.0);
    let (mut decay, mut gain) = ([zero; NODE_BLOCK], [zero; NODE_BLOCK]);
    let n = ids.len().min(NODE_BLOCK);
    for ((d, g), &id) in decay.iter_mut().zip(gain.iter_mut()).zip(&ids[..n]) {
        [*d, *g] = table[id as usize];
    }
    let (h1, l1) = operands(t1, base + from, n, electric);
    let (h2, l2) = operands(t2, base + from, n, electric);
    row[from..from + n]
        .iter_mut()
        .zip(h1.iter().zip(l1))
        .zip(h2.iter().zip(l2))
        .zip(decay[..n].iter().zip(&gain[..n]))
        .fold(true, |ok, (((v, (&x1, &y1)), (&x2, &y2)), (&dc, &gn))| {
            *v = v.scale(dc) + curl(x1 - y1, x2 - y2).scale(gn);
            ok & v.is_finite()
        })
}

/// The uniform loop that runs of one material within a row are handed to: `row`, the run's
/// cells, its material's coefficients; whether every new value is finite. A trait rather than
/// a closure so that its body is inlined into the multiversioned sweep
/// ([`crate::curl::sweep_batch`]): a closure the compiler leaves out of line is compiled for
/// the baseline target (SSE2) whatever its caller's features.
pub(crate) trait RunSweep<T: Scalar> {
    /// Updates `cells` of `row` with coefficients `coef`.
    fn sweep(&self, row: &mut [T], cells: RowSpan, coef: [T::Real; 2]) -> bool;
}

/// Runs of one material at least this long, inside a row of several, take the uniform loop;
/// the nodes between them are gathered ([`per_node_materials`]).
const LONG_RUN: usize = 16;

/// Cells `a..b` of a row of several materials (storage offset `base`), its `runs` of one
/// material, no stretching, a two-term curl: runs of at least [`LONG_RUN`] nodes (a sphere's
/// inside and outside) take `sweep`, the uniform loop; the nodes between them (the smoothed
/// surface, where runs are one or two nodes long) are gathered by [`per_node_materials`], their
/// ids spelled out from the runs, so the row's ids are not read (a recorded row's runs are
/// compact; the ids, 2 bytes a node, would be a stream of their own read in scattered bursts).
/// Per node the arithmetic of [`fast_uniform`] either way, so the same bits. Whether every new
/// value is finite.
#[inline(always)]
pub(crate) fn long_runs_apart<T: Scalar>(
    row: &mut [T],
    [t1, t2]: [&Term<T>; 2],
    (table, base, electric): (&[[T::Real; 2]], usize, bool),
    runs: Runs,
    sweep: &impl RunSweep<T>,
) -> bool {
    let mut ok = true;
    let mut held = Held {
        ids: [0; NODE_BLOCK],
        len: 0,
        from: 0,
    };
    let cells = (table, base, electric);
    for (start, end, id) in runs {
        if end - start >= LONG_RUN {
            ok &= held.update(row, [t1, t2], cells);
            ok &= sweep.sweep(row, RowSpan::of_row(row, (start, end)), table[id as usize]);
            continue;
        }
        let mut s = start;
        while s < end {
            if held.len == NODE_BLOCK {
                ok &= held.update(row, [t1, t2], cells);
            }
            if held.len == 0 {
                held.from = s;
            }
            let k = (end - s).min(NODE_BLOCK - held.len);
            held.ids[held.len..held.len + k].fill(id);
            held.len += k;
            s += k;
        }
    }
    ok & held.update(row, [t1, t2], cells)
}

/// The nodes of a row that [`long_runs_apart`] holds back for [`per_node_materials`]: `len`
/// of them from cell `from`, their ids spelled out from their runs.
struct Held {
    ids: [u16; NODE_BLOCK],
    len: usize,
    from: usize,
}

impl Held {
    /// Updates the nodes held, if any, and lets them go; whether every new value is finite.
    #[inline(always)]
    fn update<T: Scalar>(
        &mut self,
        row: &mut [T],
        terms: [&Term<T>; 2],
        (table, base, electric): (&[[T::Real; 2]], usize, bool),
    ) -> bool {
        let ids = (&self.ids[..self.len], table);
        let ok = self.len == 0 || per_node_materials(row, terms, ids, (base, self.from), electric);
        self.len = 0;
        ok
    }
}

/// A row's `runs` of one material (cells of `row`): each is handed to `sweep` (`row`, the
/// run's cells, its material's coefficients), the uniform fast loop (a sphere or a half-space
/// crosses a row in a few long runs), so no id is read per cell. Whether every new value is
/// finite.
#[inline(always)]
pub(crate) fn in_material_runs<T: Scalar>(
    row: &mut [T],
    table: &[[T::Real; 2]],
    runs: Runs,
    sweep: &impl RunSweep<T>,
) -> bool {
    let mut ok = true;
    for (start, end, id) in runs {
        ok &= sweep.sweep(row, RowSpan::of_row(row, (start, end)), table[id as usize]);
    }
    ok
}

/// Cells `a..b` of row `row` (storage offset `base`), one material, every term's stretch
/// factor 1/κ the same along the row (a row inside a y or z layer, x outside the x layers):
/// `v ← v·decay + ((0 + d₁·s₁) + d₂·s₂)·gain` with the signed factors `s` — the oracle's
/// `(0 ± d₁k₁) ± d₂k₂` bit for bit, since `x − y·k` and `x + y·(−k)` round alike. At most two
/// terms (a Yee component has two). Whether every new value is finite.
#[inline(always)]
pub(crate) fn stretched_uniform<T: Scalar>(
    row: &mut [T],
    terms: &[Term<T>],
    base: usize,
    span: RowSpan,
    coef: [T::Real; 2],
    [s1, s2]: [T::Real; 2],
    electric: bool,
) -> bool {
    let [decay, gain] = coef;
    let RowSpan { a, b, .. } = span;
    match terms {
        [t1, t2] => two_term_rows(row, [t1, t2], (base, span), coef, electric, |d1, d2| {
            (T::zero() + d1.scale(s1)) + d2.scale(s2)
        }),
        [t1] => {
            let (h1, l1) = operands(t1, base + a, b - a, electric);
            let mut ok = true;
            for ((v, &x1), &y1) in row[a..b].iter_mut().zip(h1).zip(l1) {
                *v = v.scale(decay) + (T::zero() + (x1 - y1).scale(s1)).scale(gain);
                ok &= v.is_finite();
            }
            ok
        }
        _ => unreachable!("a Yee component's curl has one or two terms"),
    }
}

/// Cells `a..b` of a row inside an x layer (storage offset `base`, the row's cell 0 at global
/// x `x_origin`), one material: the x term's stretch factor 1/κ read per cell from its
/// table (Roden & Gedney 2000, eq. (3): ∂/∂x scaled by 1/κ_x), the other term's signed factor
/// `s` constant along the row (as in [`stretched_uniform`]). The oracle's
/// `(0 ± d₁k₁) ± d₂k₂` in the same order, so the same bits, in a vector loop rather than the
/// per-cell [`general`] path. Whether every new value is finite; `None` when the terms are
/// not one or two with the x term among them (the caller then takes [`general`]).
#[inline(always)]
pub(crate) fn x_stretched<T: Scalar>(
    row: &mut [T],
    terms: &[Term<T>],
    (base, x_origin): (usize, i64),
    (a, b): (usize, usize),
    [decay, gain]: [T::Real; 2],
    [s1, s2]: [T::Real; 2],
    electric: bool,
) -> Option<bool> {
    let n = b - a;
    let out = &mut row[a..b];
    let x = (x_origin + a as i64) as usize;
    let ok = match terms {
        [t1, t2] if t1.axis == 0 => {
            let (h1, l1) = operands(t1, base + a, n, electric);
            let (h2, l2) = operands(t2, base + a, n, electric);
            if t1.positive {
                zip_update_x(
                    out,
                    [h1, l1, h2, l2],
                    &t1.table[x..x + n],
                    [decay, gain],
                    |d1, d2, k| (T::zero() + d1.scale(k)) + d2.scale(s2),
                )
            } else {
                zip_update_x(
                    out,
                    [h1, l1, h2, l2],
                    &t1.table[x..x + n],
                    [decay, gain],
                    |d1, d2, k| (T::zero() - d1.scale(k)) + d2.scale(s2),
                )
            }
        }
        [t1, t2] if t2.axis == 0 => {
            let (h1, l1) = operands(t1, base + a, n, electric);
            let (h2, l2) = operands(t2, base + a, n, electric);
            if t2.positive {
                zip_update_x(
                    out,
                    [h1, l1, h2, l2],
                    &t2.table[x..x + n],
                    [decay, gain],
                    |d1, d2, k| (T::zero() + d1.scale(s1)) + d2.scale(k),
                )
            } else {
                zip_update_x(
                    out,
                    [h1, l1, h2, l2],
                    &t2.table[x..x + n],
                    [decay, gain],
                    |d1, d2, k| (T::zero() + d1.scale(s1)) - d2.scale(k),
                )
            }
        }
        [t1] if t1.axis == 0 => {
            let (h1, l1) = operands(t1, base + a, n, electric);
            let positive = t1.positive;
            out.iter_mut()
                .zip(h1.iter().zip(l1))
                .zip(&t1.table[x..x + n])
                .fold(true, |ok, ((v, (&x1, &y1)), &[_, _, k])| {
                    let d = (x1 - y1).scale(k);
                    let curl = if positive {
                        T::zero() + d
                    } else {
                        T::zero() - d
                    };
                    *v = v.scale(decay) + curl.scale(gain);
                    ok & v.is_finite()
                })
        }
        _ => return None,
    };
    Some(ok)
}

/// `v ← v·decay + curl(x₁ − y₁, x₂ − y₂, 1/κₓ)·gain` over equal-length slices, the x factor
/// per cell from its `[b, c, 1/κ]` table; whether every new value is finite.
#[inline(always)]
fn zip_update_x<T: Scalar>(
    out: &mut [T],
    [h1, l1, h2, l2]: [&[T]; 4],
    table: &[[T::Real; 3]],
    [decay, gain]: [T::Real; 2],
    curl: impl Fn(T, T, T::Real) -> T,
) -> bool {
    out.iter_mut()
        .zip(h1.iter().zip(l1))
        .zip(h2.iter().zip(l2))
        .zip(table)
        .fold(true, |ok, (((v, (&x1, &y1)), (&x2, &y2)), &[_, _, k])| {
            *v = v.scale(decay) + curl(x1 - y1, x2 - y2, k).scale(gain);
            ok & v.is_finite()
        })
}

/// Cells `a..b` of a row on the oracle's per-cell path: stretch factors and lookups.
#[inline(always)]
pub(crate) fn general<T: Scalar>(
    row: &mut [T],
    terms: &[Term<T>],
    ids: NodeIds,
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
        let [decay, gain] = table[ids.at(o) as usize];
        let v = row[i].scale(decay) + curl.scale(gain);
        ok &= v.is_finite();
        row[i] = v;
    }
    ok
}
