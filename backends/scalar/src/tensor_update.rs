//! The off-diagonal pass of a phase at a chunk's tensor nodes ([`crate::tensor_nodes`] for
//! the scheme): each node adds its weighed averages of the other components' curls.
//!
//! A pass is handed out as runs of whole rows of each component's nodes ([`TensorRun`]), cut
//! where an executor cuts the phase's rows into batches ([`RowBatches`]), each with its own
//! slice of the running sums and its own scratch for the curls it reads, applied to the
//! values of its batch: each node writes only itself and reads only the other field, so the
//! runs may go to threads in any order, or right after their batch's rows, and give the same
//! bits ([`for_each_run`]).

use alloc::vec::Vec;
use yee_core::{Box3, Real, Scalar};
use yee_em::Component;

use crate::curl::difference;
use crate::field::HostField;
use crate::ordered_split::OrderedSplit;
use crate::state::YeeState;
use crate::tensor_nodes::{TensorNode, TensorNodes, others};

/// The curl of component `b` at any of its nodes, set up once per phase: the differences of
/// the curl kernel outside CPML, in its order.
#[derive(Clone, Copy)]
struct CurlOf<'a, T> {
    /// Each curl term the mode carries, in [`Component::curl_terms`]' order: the source's
    /// values, the stride of its axis, and whether the term is added (else subtracted).
    terms: [Option<Term<'a, T>>; 2],
    /// Backward differences (a curl of H, for E), else forward (a curl of E, for H).
    electric: bool,
}

impl<T: Scalar> CurlOf<'_, T> {
    /// The curl update of `b` at its node at storage `offset`: `0 ± d₁ ± d₂`.
    #[inline(always)]
    fn at(&self, offset: usize) -> T {
        let mut curl = T::zero();
        for &(s, stride, plus) in self.terms.iter().flatten() {
            let d = difference(s, offset, stride, self.electric);
            curl = if plus { curl + d } else { curl - d };
        }
        curl
    }

    /// Appends to `out` the curls at the nodes at storage `offsets`, each as [`CurlOf::at`]
    /// takes it. With both terms present (3D) the two differences are spelled out in that
    /// order, in a loop compiled for the terms' signs and the difference's direction, so it
    /// tests neither per node.
    fn extend_at(&self, offsets: &[usize], out: &mut Vec<T>) {
        match self.terms {
            [Some(t1), Some(t2)] if self.electric => extend_signed::<T, true>(t1, t2, offsets, out),
            [Some(t1), Some(t2)] => extend_signed::<T, false>(t1, t2, offsets, out),
            _ => out.extend(offsets.iter().map(|&o| self.at(o))),
        }
    }
}

/// A curl term: the source's values, the stride of its axis, and whether it is added.
type Term<'a, T> = (&'a [T], usize, bool);

/// [`CurlOf::extend_at`] with both terms, dispatched on their signs.
fn extend_signed<T: Scalar, const E: bool>(
    t1: Term<T>,
    t2: Term<T>,
    offsets: &[usize],
    out: &mut Vec<T>,
) {
    match (t1.2, t2.2) {
        (true, true) => extend_with::<T, E, true, true>(t1, t2, offsets, out),
        (true, false) => extend_with::<T, E, true, false>(t1, t2, offsets, out),
        (false, true) => extend_with::<T, E, false, true>(t1, t2, offsets, out),
        (false, false) => extend_with::<T, E, false, false>(t1, t2, offsets, out),
    }
}

/// `0 ± d₁ ± d₂` at each of `offsets`, the signs `P1` and `P2`, backward differences if `E`.
fn extend_with<T: Scalar, const E: bool, const P1: bool, const P2: bool>(
    (s1, stride1, _): Term<T>,
    (s2, stride2, _): Term<T>,
    offsets: &[usize],
    out: &mut Vec<T>,
) {
    #[inline(always)]
    fn signed<T: Scalar, const P: bool>(curl: T, d: T) -> T {
        if P { curl + d } else { curl - d }
    }
    out.extend(offsets.iter().map(|&o| {
        let curl = signed::<T, P1>(T::zero(), difference(s1, o, stride1, E));
        signed::<T, P2>(curl, difference(s2, o, stride2, E))
    }));
}

/// The curls of the two other components of the `electric` field for a component along `a`
/// (`None` where the mode lacks one), in increasing axis order, from the other field's
/// arrays `sources` (by [`Component::index`]).
fn coupled<'s, T: Scalar>(
    sources: &[Option<&'s HostField<T>>; 6],
    mode: yee_em::Mode,
    electric: bool,
    a: usize,
) -> [Option<CurlOf<'s, T>>; 2] {
    let active = mode.active_axes();
    others(a).map(|b| {
        let component = Component::along(yee_core::Axis::ALL[b], electric);
        if !mode.has(component) {
            return None;
        }
        let terms = component.curl_terms().map(|t| {
            let source = sources[t.source.index()].filter(|_| active[t.axis.index()])?;
            let stride = yee_core::Field::storage(source).strides()[t.axis.index()];
            Some((source.as_slice(), stride, t.sign > 0))
        });
        Some(CurlOf { terms, electric })
    })
}

/// One run of whole rows of a component's tensor nodes in a pass ([`for_each_run`]), with its
/// nodes' running sums and its own scratch for the curls, applied to the field's values that
/// hold its nodes ([`TensorRun::apply`]).
pub struct TensorRun<'s, T: Scalar> {
    /// The curls of the two other components ([`coupled`]).
    curl: [Option<CurlOf<'s, T>>; 2],
    /// The run's nodes.
    nodes: &'s [TensorNode<T::Real>],
    /// Per other axis, the run's nodes' four positions among the shared curls.
    refs: [&'s [[u32; 4]]; 2],
    /// Per other axis, the offsets of the shared curls the run reads and the position of the
    /// first ([`crate::tensor_curls::SharedCurls::needed`]).
    shared: [(&'s [usize], usize); 2],
    /// Where the run takes those curls, and its nodes' off-diagonal terms.
    curls: &'s mut [Vec<T>; 3],
    /// The run's nodes' running sums; empty where the list keeps none.
    sums: &'s mut [[T; 2]],
    /// The region the pass is over, where the run's rows hold nodes outside it.
    within: Option<Box3>,
}

impl<T: Scalar> TensorRun<'_, T> {
    /// Adds the off-diagonal part of the update at the run's nodes, whose field values are
    /// `values` from storage offset `base` on; false if a value it wrote is not finite. Each
    /// node's arithmetic is the scheme's in its order: per other axis, the four curls summed
    /// from zero (each `0 ± d₁ ± d₂`), a quarter of it, weighed; the curl of each neighbour is
    /// taken once for all the run's nodes around it ([`crate::tensor_curls`]), not per node.
    pub fn apply(self, values: &mut [T], base: usize) -> bool {
        let TensorRun {
            curl,
            nodes,
            refs,
            shared,
            curls,
            sums,
            within,
        } = self;
        let quarter = T::Real::from_f64(0.25);
        let half = T::Real::from_f64(0.5);
        let zero = T::Real::from_f64(0.0);
        let [curls @ .., terms] = curls;
        for (k, out) in curls.iter_mut().enumerate() {
            out.clear();
            if let Some(curl) = &curl[k] {
                curl.extend_at(shared[k].0, out);
            }
        }
        let summed = !sums.is_empty();
        let outside = |node: &TensorNode<T::Real>| within.is_some_and(|r| !r.contains(node.cell));
        // Each node's term first, then the terms added to the values in a loop of their own:
        // short enough that many of the values' loads are in flight at once (in the loop
        // that also works out the term, the load of a node's value, a cache miss, took 55 % of
        // the pass's time; docs/performance.md). The terms are summed one other axis after
        // the other, each node's in the scheme's order: `0 + w₀⟨c₀⟩ (+ loss₀) + w₁⟨c₁⟩ (+ loss₁)`.
        terms.clear();
        terms.resize(nodes.len(), T::zero());
        for (k, curls) in curls.iter().enumerate() {
            if curl[k].is_none() {
                continue;
            }
            let first = shared[k].1;
            for (i, ((node, around), term)) in
                nodes.iter().zip(refs[k]).zip(terms.iter_mut()).enumerate()
            {
                if outside(node) {
                    continue;
                }
                let mut mean = T::zero();
                for &r in around {
                    debug_assert!(
                        r == u32::MAX || (r as usize).wrapping_sub(first) < curls.len(),
                        "a curl outside the run's stretch"
                    );
                    // A neighbour that does not evolve refers to `u32::MAX`, past any run's
                    // curls (`SharedCurls::refs`): the one test finds it and bounds the index.
                    if let Some(&c) = curls.get((r as usize).wrapping_sub(first)) {
                        mean += c;
                    }
                }
                let mean = mean.scale(quarter);
                *term += mean.scale(node.weights[k]);
                if summed && node.loss_weights[k] != zero {
                    // The running sum of the averaged curl, taken at the half step.
                    let before = sums[i][k];
                    let after = before + mean;
                    sums[i][k] = after;
                    *term += (before + after).scale(half).scale(node.loss_weights[k]);
                }
            }
        }
        let mut finite = true;
        for (node, &term) in nodes.iter().zip(terms.iter()) {
            if outside(node) {
                continue;
            }
            let value = &mut values[node.offset - base];
            let updated = *value + term;
            finite &= updated.is_finite();
            *value = updated;
        }
        finite
    }
}

/// Storage rows cut into batches, as an executor sweeps a phase: batch `b` holds the rows
/// `first + b·rows` to `first + (b + 1)·rows` of `storage` (rows run y, then z).
#[derive(Clone, Copy, Debug)]
pub struct RowBatches {
    /// The box the field's storage covers.
    pub storage: Box3,
    /// The first row of batch 0.
    pub first: usize,
    /// Rows per batch.
    pub rows: usize,
    /// Batches.
    pub count: usize,
}

impl RowBatches {
    /// The row key `(z, y)` of storage row `n` (rows past the storage's last give keys past its
    /// last row's, in order).
    fn key(&self, n: usize) -> (i64, i64) {
        let ey = self.storage.extent()[1].max(1);
        (
            self.storage.lo[2] + (n / ey) as i64,
            self.storage.lo[1] + (n % ey) as i64,
        )
    }
}

/// The other field's arrays a pass over the `electric` (or magnetic) components reads, by
/// [`Component::index`] (`None` for the updated field's and the mode's absent ones).
pub type Sources<'s, T> = [Option<&'s HostField<T>>; 6];

/// Hands `each` the pass over `region` of component `c`'s tensor nodes `list` (mode `mode`,
/// the other field's arrays `sources`), cut at `batches`: `each(b, run)` gets the nodes of
/// batch `b`'s rows, none empty, in increasing order, to apply ([`TensorRun::apply`]) once the
/// batch's rows have had the curl and CPML update of the phase. Each node writes only itself
/// and reads only the other field, so the runs may be applied in any order, at once, with the
/// same bits.
pub fn for_each_run<'s, T: Scalar>(
    list: &'s mut TensorNodes<T>,
    (c, mode, sources): (Component, yee_em::Mode, &Sources<'s, T>),
    region: Box3,
    batches: RowBatches,
    mut each: impl FnMut(usize, TensorRun<'s, T>),
) {
    let span = list.rows_of(region);
    if span.is_empty() || batches.count == 0 {
        return;
    }
    // The rows of the span hold nodes outside `region` only where it leaves out some of their
    // x or y extent.
    let bounds = list.bounds();
    let whole = (0..2).all(|a| region.lo[a] <= bounds.lo[a] && bounds.hi[a] <= region.hi[a]);
    let within = (!whole).then_some(region);
    let curl = coupled(sources, mode, c.is_electric(), c.axis().index());
    let TensorNodes {
        nodes,
        integrals,
        shared,
        curls,
        ..
    } = list;
    let nodes: &'s [TensorNode<T::Real>] = nodes;
    if curls.0.len() < batches.count {
        curls.0.resize_with(batches.count, Default::default);
    }
    let mut scratch = curls.0.iter_mut();
    let summed = !integrals.is_empty();
    let mut sums = OrderedSplit::new(&mut integrals[..]);
    let before = |n: usize| {
        let key = batches.key(n);
        nodes.partition_point(|node| (node.cell[2], node.cell[1]) < key)
    };
    let mut from = span.start;
    for b in 0..batches.count {
        let end = batches
            .first
            .saturating_add((b + 1).saturating_mul(batches.rows));
        let to = before(end).clamp(from, span.end);
        let run = from..to;
        from = to;
        if run.is_empty() {
            continue;
        }
        let Some(curls) = scratch.next() else {
            break;
        };
        let needed = shared.each_ref().map(|s| s.needed(run.clone()));
        each(
            b,
            TensorRun {
                curl,
                nodes: &nodes[run.clone()],
                refs: core::array::from_fn(|k| &shared[k].refs[run.clone()]),
                shared: core::array::from_fn(|k| {
                    (&shared[k].offsets[needed[k].clone()], needed[k].start)
                }),
                curls,
                sums: match summed {
                    true => sums.take(run.start, run.end),
                    false => &mut [],
                },
                within,
            },
        );
    }
}

/// Adds the off-diagonal part of the update to the tensor nodes of the electric (`true`) or
/// magnetic components in `region` (module docs), one component after another, on the
/// caller's thread: [`for_each_run`] with one batch of every row.
pub fn apply_tensor_nodes<T: Scalar>(state: &mut YeeState<T>, electric: bool, region: Box3) {
    let YeeState {
        mode,
        fields,
        tensor,
        ..
    } = state;
    let mode = *mode;
    // The updated field's arrays by component, and the other field's to read.
    let mut targets: [Option<&mut HostField<T>>; 6] = Default::default();
    let mut sources: Sources<T> = Default::default();
    for ((field, c), (target, source)) in fields
        .iter_mut()
        .zip(Component::ALL)
        .zip(targets.iter_mut().zip(sources.iter_mut()))
    {
        if c.is_electric() == electric {
            *target = field.as_mut();
        } else {
            *source = field.as_ref();
        }
    }
    let mut finite = true;
    for (list, (c, target)) in tensor
        .iter_mut()
        .zip(Component::ALL.into_iter().zip(targets))
    {
        let (Some(list), Some(target)) = (list, target) else {
            continue;
        };
        let storage = yee_core::Field::storage(&*target);
        let rows = storage.extent()[1] * storage.extent()[2];
        let batches = RowBatches {
            storage,
            first: 0,
            rows,
            count: 1,
        };
        let values = target.as_mut_slice();
        for_each_run(list, (c, mode, &sources), region, batches, |_, run| {
            finite &= run.apply(values, 0);
        });
    }
    state.non_finite |= !finite;
}

#[cfg(test)]
mod tests {
    use super::*;
    use yee_em::{Boundary, Material, Mode, Region, Setup, Shape};

    /// A lossy sphere smoothed with the full tensor, each component's nodes cut at batches of
    /// 1–13 rows, from the first row or from the first row holding a node: every batch gets
    /// the nodes of its rows, as the next stretch of the list, in batch order, and each
    /// node's value lies in the batch's rows; every node goes to one batch.
    #[test]
    fn batches_of_rows_take_the_nodes_of_their_rows_each_once() {
        let regions = [Region {
            shape: Shape::Sphere {
                center: [6.3, 5.8, 6.1],
                radius: 3.6,
            },
            material: Material {
                sigma: 0.1,
                ..Material::dielectric(2.25)
            },
        }];
        let setup = Setup {
            regions: &regions,
            smoothing: true,
            smoothing_tensor: true,
            ..Setup::vacuum(Mode::ThreeD, [13, 12, 12], 0.5, [[Boundary::Pec; 2]; 3])
        };
        let owned = Box3::from_extent(setup.grid);
        let mut state = YeeState::<f32>::new(&setup, owned);
        let mode = state.mode;
        let storages = state
            .fields
            .each_ref()
            .map(|f| f.as_ref().map(yee_core::Field::storage));
        let sources: Sources<f32> = Default::default();
        let mut lists = 0;
        for ((list, c), storage) in state.tensor.iter_mut().zip(Component::ALL).zip(storages) {
            let (Some(list), Some(storage)) = (list, storage) else {
                continue;
            };
            lists += 1;
            let nodes = list.nodes.clone();
            let span = list.rows_of(owned);
            assert_eq!(span, 0..nodes.len());
            let [width, ey, ez] = storage.extent();
            let row = |cell: yee_core::Index3| {
                (cell[2] - storage.lo[2]) as usize * ey + (cell[1] - storage.lo[1]) as usize
            };
            for rows in 1..=13 {
                for first in [0, row(nodes[0].cell)] {
                    let count = (ey * ez - first).div_ceil(rows);
                    let batches = RowBatches {
                        storage,
                        first,
                        rows,
                        count,
                    };
                    let (mut next, mut last) = (0, None);
                    for_each_run(list, (c, mode, &sources), owned, batches, |b, run| {
                        assert!(last < Some(b), "batch {b} after {last:?}");
                        last = Some(b);
                        let len = run.nodes.len();
                        assert!(run.nodes == &nodes[next..next + len], "{c:?}, batch {b}");
                        next += len;
                        let (lo, hi) = (first + b * rows, first + (b + 1) * rows);
                        for node in run.nodes {
                            assert!((lo..hi).contains(&row(node.cell)), "{c:?}, batch {b}");
                            assert!((lo * width..hi * width).contains(&node.offset));
                        }
                    });
                    assert_eq!(next, nodes.len(), "{c:?}: {rows} rows a batch from {first}");
                }
            }
        }
        // E's three components (μ is 1 everywhere: H has no tensor nodes).
        assert_eq!(lists, 3);
    }
}
