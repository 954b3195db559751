//! The CPML corrections fused into the row sweep: once a batch of rows has had its curl update,
//! while the rows are in cache, each layer covering them updates its ψ rows and corrects the
//! field, `ψ ← b·ψ + c·∂`, then `v ← v ± Cb·ψ` (Roden & Gedney 2000, eqs. (8)–(10)).
//!
//! The oracle runs the corrections as a second pass after the whole curl update
//! ([`yee_scalar::cpml::CpmlUpdate`]); each cell still sees its curl update, then the
//! corrections of its layers in the order of `state.slabs`, so the bits are the same.

use yee_core::{Box3, Scalar};
use yee_scalar::state::CpmlSlab;

use crate::curl::{ComponentRows, Term};

/// The most CPML layers one component's rows cross: a state has one slab per face of the grid.
pub(crate) const MAX_LAYERS: usize = 6;

/// One CPML layer a component's rows cross: where it corrects and how its ψ is laid out.
pub(crate) struct Layer<'a, R> {
    /// Index of the layer's slab in `state.slabs`.
    pub(crate) slab_index: usize,
    /// Index into the component's terms: the one differentiating along the layer's axis.
    pub(crate) term: usize,
    /// Cells corrected: the sweep's region within the component's free box and the layer.
    pub(crate) region: Box3,
    /// The layer's cells in the chunk: the ψ array's box, x fastest.
    pub(crate) slab: Box3,
    /// For a layer across x, the recursion's `b` and `c` over the x cells of `region`.
    pub(crate) along: Option<[&'a [R]; 2]>,
}

impl<'a, R: Copy> Layer<'a, R> {
    /// The layers of `slabs` holding ψ for component `c`, over the cells `r`, in the order the
    /// oracle applies them; `x_bc` holds the component's `b` and `c` along x (by global x).
    pub(crate) fn of<T: Scalar<Real = R>>(
        slabs: &[CpmlSlab<T>],
        c: usize,
        r: Box3,
        terms: &[Term<T>],
        x_bc: [&'a [R]; 2],
    ) -> heapless::Vec<Layer<'a, R>, MAX_LAYERS> {
        slabs
            .iter()
            .enumerate()
            .filter(|(_, s)| s.psi[c].is_some())
            .filter_map(|(slab_index, s)| {
                let region = r.intersect(&s.region);
                if region.is_empty() {
                    return None;
                }
                let term = terms
                    .iter()
                    .position(|t| t.axis == s.axis.index())
                    .expect("a slab holds ψ only for components differentiating along its axis");
                let x = region.lo[0] as usize..region.hi[0] as usize;
                let along = (s.axis.index() == 0).then(|| x_bc.map(|f| &f[x.clone()]));
                Some(Layer {
                    slab_index,
                    term,
                    region,
                    slab: s.region,
                    along,
                })
            })
            .collect()
    }

    /// The ψ row of cells (`y`, `z`), counted from the start of the ψ array.
    fn psi_row(&self, [y, z]: [i64; 2]) -> usize {
        (z - self.slab.lo[2]) as usize * self.slab.extent()[1] + (y - self.slab.lo[1]) as usize
    }

    /// How many ψ rows lie before storage row `n` of a field stored over `storage` (rows run
    /// y, then z): where a batch of storage rows starting at `n` begins in ψ.
    pub(crate) fn psi_rows_before(&self, storage: Box3, n: usize) -> usize {
        let ey = storage.extent()[1];
        let (y, z) = (
            storage.lo[1] + (n % ey) as i64,
            storage.lo[2] + (n / ey) as i64,
        );
        let [_, py, pz] = self.slab.extent().map(|e| e as i64);
        let planes = (z - self.slab.lo[2]).clamp(0, pz);
        let rows = if z >= self.slab.lo[2] && z < self.slab.hi[2] {
            (y - self.slab.lo[1]).clamp(0, py)
        } else {
            0
        };
        (planes * py + rows) as usize
    }
}

/// A batch's share of one layer's ψ: its rows from row `first` of the array on.
pub(crate) struct PsiRows<'a, T> {
    pub(crate) values: &'a mut [T],
    pub(crate) first: usize,
}

/// Corrects the whole storage rows `rows` (the first at storage offset `base`, at (`y0`, `z0`),
/// possibly over several z planes) for every layer of `kernel` that covers them, layer by
/// layer in the oracle's order: each cell still sees its curl update, then its layers'
/// corrections in order, so the bits are the oracle's. Layer by layer, so each layer's ψ is
/// read in one stream over the planes, and what a layer needs is worked out once per plane.
#[inline(always)]
pub(crate) fn correct_rows<T: Scalar>(
    kernel: &ComponentRows<T>,
    rows: &mut [T],
    base: usize,
    [y0, z0]: [i64; 2],
    psi: &mut [PsiRows<T>],
) {
    let (width, plane) = (kernel.extent[0], kernel.extent[1] as i64);
    let count = (rows.len() / width) as i64;
    let storage = kernel.storage;
    // Row i of `rows` sits at (y, z) with (y - lo₁) + plane·(z - lo₂) = start + i.
    let start = (y0 - storage.lo[1]) + plane * (z0 - storage.lo[2]);
    let z_last = storage.lo[2] + (start + count - 1) / plane;
    for (layer, psi_rows) in kernel.layers.iter().zip(psi.iter_mut()) {
        let r = layer.region;
        for z in z0.max(r.lo[2])..(z_last + 1).min(r.hi[2]) {
            // The plane's rows within `rows`, then those the layer covers.
            let first = (plane * (z - storage.lo[2]) - start).max(0);
            let end = (plane * (z - storage.lo[2] + 1) - start).min(count);
            let y_first = storage.lo[1] + (start + first) % plane;
            let (ya, yb) = (y_first.max(r.lo[1]), (y_first + end - first).min(r.hi[1]));
            if ya >= yb {
                continue;
            }
            let row_of = |y: i64| (first + y - y_first) as usize;
            correct_layer_rows(kernel, rows, base, (layer, psi_rows), (ya, yb, z), row_of);
        }
    }
}

/// Corrects rows `ya..yb` of plane `z` for one layer (row `row_of(y)` of `rows`).
#[inline(always)]
fn correct_layer_rows<T: Scalar>(
    kernel: &ComponentRows<T>,
    rows: &mut [T],
    base: usize,
    (layer, psi_rows): (&Layer<T::Real>, &mut PsiRows<T>),
    (ya, yb, z): (i64, i64, i64),
    row_of: impl Fn(i64) -> usize,
) {
    let width = kernel.extent[0];
    let r = layer.region;
    let t = &kernel.terms[layer.term];
    let n = (r.hi[0] - r.lo[0]) as usize;
    let a = (r.lo[0] - kernel.storage.lo[0]) as usize;
    let px = layer.slab.extent()[0];
    let q0 = (layer.psi_row([ya, z]) - psi_rows.first) * px + (r.lo[0] - layer.slab.lo[0]) as usize;
    // The sign folded into the gain: `v − ψ·g` and `v + ψ·(−g)` round alike (rounding
    // to nearest is symmetric in sign), so the bits are the oracle's.
    let positive = t.positive;
    let sign = move |g: T::Real| if positive { g } else { -g };
    let up = if kernel.electric { 0 } else { t.stride };
    // A layer across x one or two groups thick (the usual 10 to 16 cells): the groups' `b` and
    // `c` taken once for the plane, then each row of one material is two vector groups, with
    // nothing worked out per row but its offsets (the rows are consecutive in y).
    if let Some([b, c]) = layer.along
        && (LANES..=2 * LANES).contains(&n)
    {
        let last = n - LANES;
        let groups = [first(b), first(c), first(&b[last..]), first(&c[last..])];
        let count = (yb - ya) as usize;
        let v0 = row_of(ya) * width + a;
        let (span, psi_span) = ((count - 1) * width + n, (count - 1) * px + n);
        let h0 = base + v0 + up;
        let values = &mut rows[v0..v0 + span];
        let psi = &mut psi_rows.values[q0..q0 + psi_span];
        let upper = &t.source[h0..h0 + span];
        let lower = &t.source[h0 - t.stride..h0 - t.stride + span];
        let row0 = (base + v0) / width;
        let mut all = Cells {
            values,
            psi,
            upper,
            lower,
        };
        match kernel.uniform {
            // One material in the chunk: one gain, no lookup per row.
            Some([_, gain]) => {
                let gain = sign(gain);
                for k in 0..count {
                    two_groups(all.row(k, (width, px, n)), &groups, gain);
                }
            }
            None => {
                for k in 0..count {
                    let cells = all.row(k, (width, px, n));
                    match kernel.coefficients_over(row0 + k, (a, a + n)) {
                        Some([_, gain]) => two_groups(cells, &groups, sign(gain)),
                        None => {
                            in_runs(kernel, cells, (row0 + k, a), Factors::Along(b, c), sign);
                        }
                    }
                }
            }
        }
        return;
    }
    for (i, y) in (ya..yb).enumerate() {
        let local = row_of(y) * width;
        let g = base + local + a;
        let (hi, lo) = (g + up, g + up - t.stride);
        let q = q0 + i * px;
        let cells = Cells {
            values: &mut rows[local + a..local + a + n],
            psi: &mut psi_rows.values[q..q + n],
            upper: &t.source[hi..hi + n],
            lower: &t.source[lo..lo + n],
        };
        let factors = match layer.along {
            Some([b, c]) => Factors::Along(b, c),
            None => {
                let [b, c, _] = t.table[[0, y, z][t.axis] as usize];
                Factors::Same(b, c)
            }
        };
        let row = (base + local) / width;
        match kernel.coefficients_over(row, (a, a + n)) {
            Some([_, gain]) => correct_cells(cells, factors, sign(gain)),
            None => in_runs(kernel, cells, (row, a), factors, sign),
        }
    }
}

/// Corrects cells from `a` of storage row `n`, a row of several materials, run by run of one
/// material, each with its own gain (`sign` applied).
#[inline(always)]
fn in_runs<T: Scalar>(
    kernel: &ComponentRows<T>,
    mut cells: Cells<T>,
    (n, a): (usize, usize),
    factors: Factors<T::Real>,
    sign: impl Fn(T::Real) -> T::Real,
) {
    let len = cells.values.len();
    for (start, end, id) in kernel.runs(n, (a, a + len)) {
        let gain = sign(kernel.table[id as usize][1]);
        correct_cells(
            cells.part(start - a, end - a),
            factors.from(start - a),
            gain,
        );
    }
}

/// One row's cells in a layer: the field, ψ, and the two operands of the difference
/// (`upper − lower`).
struct Cells<'a, T> {
    values: &'a mut [T],
    psi: &'a mut [T],
    upper: &'a [T],
    lower: &'a [T],
}

impl<T: Scalar> Cells<'_, T> {
    /// The new field and ψ values of the `N` cells from cell `at` of an x layer's row
    /// ([`along_group`]), `b` and `c` theirs.
    #[inline(always)]
    fn group<const N: usize>(
        &self,
        at: usize,
        bc: ([T::Real; N], [T::Real; N]),
        gain: T::Real,
    ) -> ([T; N], [T; N]) {
        let (values, psi) = (&self.values[at..], &self.psi[at..]);
        along_group(
            (values, psi),
            (&self.upper[at..], &self.lower[at..]),
            bc,
            gain,
        )
    }

    /// Stores a [`Cells::group`]'s new values at cell `at`.
    #[inline(always)]
    fn store<const N: usize>(&mut self, at: usize, (values, psi): ([T; N], [T; N])) {
        self.values[at..at + N].copy_from_slice(&values);
        self.psi[at..at + N].copy_from_slice(&psi);
    }
}

impl<T> Cells<'_, T> {
    /// Row `k`'s `n` cells, when these are a layer's rows `width` cells apart (ψ rows `px`).
    #[inline(always)]
    fn row(&mut self, k: usize, (width, px, n): (usize, usize, usize)) -> Cells<'_, T> {
        let (o, q) = (k * width, k * px);
        Cells {
            values: &mut self.values[o..o + n],
            psi: &mut self.psi[q..q + n],
            upper: &self.upper[o..o + n],
            lower: &self.lower[o..o + n],
        }
    }

    /// Cells `a..b` of these.
    fn part(&mut self, a: usize, b: usize) -> Cells<'_, T> {
        Cells {
            values: &mut self.values[a..b],
            psi: &mut self.psi[a..b],
            upper: &self.upper[a..b],
            lower: &self.lower[a..b],
        }
    }
}

/// The ψ recursion's `b` and `c` along a row: the same for every cell (a layer across y or z)
/// or one of each per cell (a layer across x), in two arrays so the loop vectorises.
#[derive(Clone, Copy)]
enum Factors<'a, R> {
    Same(R, R),
    Along(&'a [R], &'a [R]),
}

impl<R: Copy> Factors<'_, R> {
    /// The factors from cell `a` of the row on.
    fn from(self, a: usize) -> Self {
        match self {
            Factors::Same(..) => self,
            Factors::Along(b, c) => Factors::Along(&b[a..], &c[a..]),
        }
    }
}

/// Cells an x layer's loop takes at a time: a layer is about ten cells thick, far below the
/// trip count at which the compiler's vector loop (several vectors per iteration) starts, so
/// the cells go in fixed groups that it turns into single vector operations.
const LANES: usize = 8;

/// `ψ ← b·ψ + c·(upper − lower)`, then `v ← v + ψ·gain` over a row's cells of one material
/// (the gain signed), in vector loops (inlined into the multiversioned
/// [`crate::curl::sweep_batch`]).
#[inline(always)]
fn correct_cells<T: Scalar>(mut cells: Cells<T>, factors: Factors<T::Real>, gain: T::Real) {
    match factors {
        Factors::Same(b, c) => {
            let values = cells.values.iter_mut().zip(cells.psi.iter_mut());
            for ((v, p), (&h, &l)) in values.zip(cells.upper.iter().zip(cells.lower)) {
                *p = p.scale(b) + (h - l).scale(c);
                *v += p.scale(gain);
            }
        }
        Factors::Along(b, c) => {
            let n = cells.values.len();
            if n < LANES {
                along_rest(cells, (b, c), gain);
                return;
            }
            // Groups of `LANES` from the start, and the last group ending at the last cell,
            // overlapping the one before (a layer ten cells thick is two groups, not one and
            // a scalar remainder). The last group's new values are worked out from the old
            // ones before any group is stored; each cell's new values depend on its own old
            // ones alone, so a cell of two groups gets the same bits from both.
            let last = n - LANES;
            let tail = cells.group::<LANES>(last, (first(&b[last..]), first(&c[last..])), gain);
            for k in (0..last).step_by(LANES) {
                let group = cells.group::<LANES>(k, (first(&b[k..]), first(&c[k..])), gain);
                cells.store(k, group);
            }
            cells.store(last, tail);
        }
    }
}

/// The x layer's correction of `N` cells with per-cell `b` and `c`: their new field and ψ
/// values, from the old ones (on copies in fixed-size arrays, so each line compiles to one
/// vector operation; the slices must hold `N` cells from their start).
#[inline(always)]
fn along_group<T: Scalar, const N: usize>(
    (values, psi): (&[T], &[T]),
    (upper, lower): (&[T], &[T]),
    (b, c): ([T::Real; N], [T::Real; N]),
    gain: T::Real,
) -> ([T; N], [T; N]) {
    let (mut vv, mut pp): ([T; N], [T; N]) = (first(values), first(psi));
    let (h, l): ([T; N], [T; N]) = (first(upper), first(lower));
    for i in 0..N {
        pp[i] = pp[i].scale(b[i]) + (h[i] - l[i]).scale(c[i]);
        vv[i] += pp[i].scale(gain);
    }
    (vv, pp)
}

/// The first `N` values of `s` (which holds at least `N`), as an array: a fixed-size copy the
/// compiler keeps in one vector register.
#[inline(always)]
fn first<X: Copy, const N: usize>(s: &[X]) -> [X; N] {
    let mut out = [s[0]; N];
    out.copy_from_slice(&s[..N]);
    out
}

/// An x layer's correction of one row's cells, [`LANES`] to `2·LANES` of them, in two groups:
/// the first `LANES` cells and the last `LANES` (overlapping when fewer than `2·LANES`), the
/// groups' `b` and `c` given (`[b₁, c₁, b₂, c₂]`). Both groups are worked out from the old
/// values before either is stored, so a cell of both gets the same bits from each, those of
/// [`correct_cells`].
#[inline(always)]
fn two_groups<T: Scalar>(
    mut cells: Cells<T>,
    [b1, c1, b2, c2]: &[[T::Real; LANES]; 4],
    gain: T::Real,
) {
    let last = cells.values.len() - LANES;
    let tail = cells.group(last, (*b2, *c2), gain);
    let head = cells.group(0, (*b1, *c1), gain);
    cells.store(0, head);
    cells.store(last, tail);
}

/// The x layer's correction, cell by cell: a layer thinner than a group.
#[inline(always)]
fn along_rest<T: Scalar>(cells: Cells<T>, (b, c): (&[T::Real], &[T::Real]), gain: T::Real) {
    let values = cells.values.iter_mut().zip(cells.psi.iter_mut());
    let operands = cells.upper.iter().zip(cells.lower);
    for (((v, p), (&h, &l)), (&b, &c)) in values.zip(operands).zip(b.iter().zip(c)) {
        *p = p.scale(b) + (h - l).scale(c);
        *v += p.scale(gain);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn psi_rows_before_counts_the_layer_rows_ahead_of_a_storage_row() {
        // Storage y, z in -1..5 (6 rows a plane); the layer holds y 1..3, z 2..4.
        let storage = Box3::new([-1, -1, -1], [5, 5, 5]);
        let layer = Layer::<'_, f32> {
            along: None,
            slab_index: 0,
            term: 0,
            region: Box3::new([0, 1, 2], [4, 3, 4]),
            slab: Box3::new([0, 1, 2], [4, 3, 4]),
        };
        let row = |y: i64, z: i64| ((z + 1) * 6 + y + 1) as usize;
        assert_eq!(layer.psi_rows_before(storage, 0), 0);
        assert_eq!(layer.psi_rows_before(storage, row(4, 1)), 0);
        assert_eq!(layer.psi_rows_before(storage, row(1, 2)), 0);
        assert_eq!(layer.psi_rows_before(storage, row(2, 2)), 1);
        assert_eq!(layer.psi_rows_before(storage, row(4, 2)), 2);
        assert_eq!(layer.psi_rows_before(storage, row(-1, 3)), 2);
        assert_eq!(layer.psi_rows_before(storage, row(2, 3)), 3);
        assert_eq!(layer.psi_rows_before(storage, row(0, 4)), 4);
        assert_eq!(layer.psi_rows_before(storage, 6 * 6 * 6), 4);
        assert_eq!(layer.psi_row([2, 3]), 3);
    }
}
