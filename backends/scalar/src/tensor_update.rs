//! The off-diagonal pass of a phase at a chunk's tensor nodes ([`crate::tensor_nodes`] for
//! the scheme): each node adds its weighed averages of the other components' curls.
//!
//! A pass is handed out as runs of whole rows of each component's nodes ([`TensorPiece`]),
//! each with its own slices of the field and the running sums and its own scratch for the
//! curls it reads: each node writes only itself and reads only the other field, so the runs
//! may go to threads in any order and give the same bits ([`for_each_piece`]).

use alloc::vec::Vec;
use yee_core::{Box3, Real, Scalar};
use yee_em::Component;

use crate::curl::difference;
use crate::field::HostField;
use crate::ordered_split::OrderedSplit;
use crate::state::YeeState;
use crate::tensor_nodes::{TensorNode, TensorNodes, others, storage_span, whole_row_runs};

/// The curl of component `b` at any of its nodes, set up once per phase: the differences of
/// the curl kernel outside CPML, in its order.
#[derive(Clone, Copy)]
struct CurlOf<'a, T> {
    /// Each curl term the mode carries, in [`Component::curl_terms`]' order: the source's
    /// values, the stride of its axis, and whether the term is added (else subtracted).
    terms: [Option<(&'a [T], usize, bool)>; 2],
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
    /// order, so the loop tests no term per node.
    fn extend_at(&self, offsets: &[usize], out: &mut Vec<T>) {
        let electric = self.electric;
        #[inline(always)]
        fn term<T: Scalar>(
            curl: T,
            (s, stride, plus): (&[T], usize, bool),
            o: usize,
            e: bool,
        ) -> T {
            let d = difference(s, o, stride, e);
            if plus { curl + d } else { curl - d }
        }
        match self.terms {
            [Some(t1), Some(t2)] if electric => out.extend(
                offsets
                    .iter()
                    .map(|&o| term(term(T::zero(), t1, o, true), t2, o, true)),
            ),
            [Some(t1), Some(t2)] => out.extend(
                offsets
                    .iter()
                    .map(|&o| term(term(T::zero(), t1, o, false), t2, o, false)),
            ),
            _ => out.extend(offsets.iter().map(|&o| self.at(o))),
        }
    }
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

/// One run of whole rows of a component's tensor nodes in a pass ([`for_each_piece`]), with
/// its own stretch of the field, its nodes' running sums and its own scratch for the curls.
pub struct TensorPiece<'s, T: Scalar> {
    /// The curls of the two other components ([`coupled`]).
    curl: [Option<CurlOf<'s, T>>; 2],
    /// The run's nodes.
    nodes: &'s [TensorNode<T::Real>],
    /// Per other axis, the run's nodes' four positions among the shared curls.
    refs: [&'s [[u32; 4]]; 2],
    /// Per other axis, the offsets of the shared curls the run reads and the position of the
    /// first ([`crate::tensor_curls::SharedCurls::needed`]).
    shared: [(&'s [usize], usize); 2],
    /// Where the run takes those curls.
    curls: &'s mut [Vec<T>; 2],
    /// The run's nodes' running sums; empty where the list keeps none.
    sums: &'s mut [[T; 2]],
    /// The field's values at storage offsets `base..`, holding every node of the run.
    values: &'s mut [T],
    /// The storage offset of `values[0]`.
    base: usize,
    /// The region the pass is over, where the run's rows hold nodes outside it.
    within: Option<Box3>,
}

impl<T: Scalar> TensorPiece<'_, T> {
    /// Adds the off-diagonal part of the update at the run's nodes; false if a value it wrote
    /// is not finite. Each node's arithmetic is the scheme's in its order: per other axis, the
    /// four curls summed from zero (each `0 ± d₁ ± d₂`), a quarter of it, weighed; the curl of
    /// each neighbour is taken once for all the run's nodes around it
    /// ([`crate::tensor_curls`]), not per node.
    pub fn apply(self) -> bool {
        let TensorPiece {
            curl,
            nodes,
            refs,
            shared,
            curls,
            sums,
            values,
            base,
            within,
        } = self;
        let quarter = T::Real::from_f64(0.25);
        let half = T::Real::from_f64(0.5);
        let zero = T::Real::from_f64(0.0);
        for (k, out) in curls.iter_mut().enumerate() {
            out.clear();
            if let Some(curl) = &curl[k] {
                curl.extend_at(shared[k].0, out);
            }
        }
        let summed = !sums.is_empty();
        let mut finite = true;
        for (i, node) in nodes.iter().enumerate() {
            if within.is_some_and(|region| !region.contains(node.cell)) {
                continue;
            }
            let mut sum = T::zero();
            for (k, curls) in curls.iter().enumerate() {
                if curl[k].is_none() {
                    continue;
                }
                let first = shared[k].1;
                let mut mean = T::zero();
                for (n, &r) in refs[k][i].iter().enumerate() {
                    if node.present & (1 << (4 * k + n)) != 0 {
                        mean += curls[r as usize - first];
                    }
                }
                let mean = mean.scale(quarter);
                sum += mean.scale(node.weights[k]);
                if summed && node.loss_weights[k] != zero {
                    // The running sum of the averaged curl, taken at the half step.
                    let before = sums[i][k];
                    let after = before + mean;
                    sums[i][k] = after;
                    sum += (before + after).scale(half).scale(node.loss_weights[k]);
                }
            }
            let value = &mut values[node.offset - base];
            let updated = *value + sum;
            finite &= updated.is_finite();
            *value = updated;
        }
        finite
    }
}

/// The tensor nodes of the `electric` (or magnetic) components in `region`'s rows: what a
/// pass over `region` visits, and an executor may share out.
pub fn tensor_nodes_in<T: Scalar>(state: &YeeState<T>, electric: bool, region: Box3) -> usize {
    state
        .tensor
        .iter()
        .zip(Component::ALL)
        .filter(|(_, c)| c.is_electric() == electric)
        .filter_map(|(list, _)| Some(list.as_ref()?.rows_of(region).len()))
        .sum()
}

/// Hands `each` the pass over `region` of the tensor nodes of the electric (`true`) or
/// magnetic components: per component, its nodes in `region`'s rows cut into at most `pieces`
/// runs of whole rows ([`whole_row_runs`]). Run after the curl kernel of the phase;
/// the runs may be applied in any order, at once, with the same bits ([`TensorPiece::apply`]).
pub fn for_each_piece<'s, T: Scalar>(
    state: &'s mut YeeState<T>,
    electric: bool,
    region: Box3,
    pieces: usize,
    mut each: impl FnMut(TensorPiece<'s, T>),
) {
    let YeeState {
        mode,
        fields,
        tensor,
        ..
    } = state;
    let mode = *mode;
    // The updated field's arrays by component, and the other field's to read.
    let mut targets: [Option<&'s mut HostField<T>>; 6] = Default::default();
    let mut sources: [Option<&'s HostField<T>>; 6] = Default::default();
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
    for (list, (c, target)) in tensor
        .iter_mut()
        .zip(Component::ALL.into_iter().zip(targets))
    {
        let (Some(list), Some(target)) = (list, target) else {
            continue;
        };
        let span = list.rows_of(region);
        if span.is_empty() {
            continue;
        }
        // The rows of the span hold nodes outside `region` only where it leaves out some of
        // their x or y extent.
        let bounds = list.bounds();
        let whole = (0..2).all(|a| region.lo[a] <= bounds.lo[a] && bounds.hi[a] <= region.hi[a]);
        let within = (!whole).then_some(region);
        let curl = coupled(&sources, mode, electric, c.axis().index());
        let TensorNodes {
            nodes,
            integrals,
            shared,
            curls,
            ..
        } = list;
        let nodes: &'s [TensorNode<T::Real>] = nodes;
        let pieces = pieces.max(1);
        if curls.0.len() < pieces {
            curls.0.resize_with(pieces, Default::default);
        }
        let mut scratch = curls.0.iter_mut();
        let summed = !integrals.is_empty();
        let mut sums = OrderedSplit::new(&mut integrals[..]);
        let mut values = OrderedSplit::new(target.as_mut_slice());
        for run in whole_row_runs(nodes, span, pieces) {
            let Some(curls) = scratch.next() else {
                break;
            };
            let stretch = storage_span(nodes, run.clone());
            let needed = shared.each_ref().map(|s| s.needed(run.clone()));
            each(TensorPiece {
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
                values: values.take(stretch.start, stretch.end),
                base: stretch.start,
                within,
            });
        }
    }
}

/// Adds the off-diagonal part of the update to the tensor nodes of the electric (`true`) or
/// magnetic components in `region` (module docs), one component after another, on the
/// caller's thread: [`for_each_piece`] with one run per component.
pub fn apply_tensor_nodes<T: Scalar>(state: &mut YeeState<T>, electric: bool, region: Box3) {
    let mut finite = true;
    for_each_piece(state, electric, region, 1, |piece| finite &= piece.apply());
    state.non_finite |= !finite;
}
