//! Dispersive media on a chunk: the polarisation of every pole at every node of a dispersive
//! material, and the three passes of the E phase that advance it ([`yee_em::pole`],
//! [`yee_em::medium`] for the equations).
//!
//! Like CPML's ψ, the arrays exist only where they are needed: per electric component, the
//! owned nodes that evolve (the free box) and hold poles, in x-fastest order, each with its
//! poles' P in two slots. Slot `step % 2` holds Pⁿ and the other Pⁿ⁻¹; the first pass of step
//! n overwrites Pⁿ⁻¹ with Pⁿ⁺¹ (a Debye pole's with `αPⁿ + βEⁿ`, completed by the last pass
//! once Eⁿ⁺¹ is known), so the next step finds its Pⁿ⁺¹ in the slot its parity names. Every
//! pass touches only its own node, so any split of the owned box into regions, any
//! decomposition and any executor give the same bits.

use alloc::vec;
use alloc::vec::Vec;
use yee_core::{Box3, Index3, Real, Scalar};
use yee_em::Component;
use yee_em::pole::Ade;

use crate::material_ids::NodeIds;
use crate::ordered_split::OrderedSplit;
use crate::state::YeeState;

/// One pole's update in the field's real type: explicit (Lorentz, Drude) `[c₁, c₂, c₃]`, or
/// trapezoidal (Debye) `[α, α − 1, β]`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AdeStep<R> {
    /// True for Lorentz and Drude.
    pub explicit: bool,
    /// The coefficients.
    pub c: [R; 3],
}

impl<R: Real> AdeStep<R> {
    /// The step of `ade` in the real type `R`.
    pub fn new(ade: Ade) -> Self {
        let r = R::from_f64;
        match ade {
            Ade::Explicit { c1, c2, c3 } => AdeStep {
                explicit: true,
                c: [r(c1), r(c2), r(c3)],
            },
            Ade::Trapezoidal { alpha, beta } => AdeStep {
                explicit: false,
                c: [r(alpha), r(alpha - 1.0), r(beta)],
            },
        }
    }
}

/// The polarisations of one electric component's dispersive nodes in a chunk.
#[derive(Clone, Debug, PartialEq)]
pub struct DispersiveNodes<T> {
    /// The nodes' cells, x fastest.
    pub cells: Vec<Index3>,
    /// Each node's offset in the field's storage.
    pub offsets: Vec<usize>,
    /// Node `n`'s poles are entries `first[n]..first[n + 1]` of the slots.
    pub first: Vec<usize>,
    /// P of every pole of every node, in two slots (module docs).
    pub slots: [Vec<T>; 2],
    /// Each node's `Σ kₚ` between the first and the second pass of a phase.
    pub scratch: Vec<T>,
    /// The smallest box holding every node: a region holding it needs no test per node.
    pub bounds: Box3,
    /// The runs of nodes (`start..end` node indices): consecutive cells along x in one row,
    /// of one material.
    pub runs: Vec<(usize, usize)>,
}

impl<T: Scalar> DispersiveNodes<T> {
    /// The nodes of component `c` of `state` (materials built) with poles, P at zero; `None`
    /// when the chunk has none.
    pub fn of(state: &YeeState<T>, c: Component) -> Option<Self> {
        let field = state.field(c)?;
        let id_at = |offset: usize| state.material_id(c, offset);
        let region = state.owned.intersect(&state.free[c.index()]);
        if state.ade.iter().all(Vec::is_empty) || region.is_empty() {
            return None;
        }
        let mut nodes = DispersiveNodes {
            cells: Vec::new(),
            offsets: Vec::new(),
            first: vec![0],
            slots: [Vec::new(), Vec::new()],
            scratch: Vec::new(),
            bounds: Box3::new([0; 3], [0; 3]),
            runs: Vec::new(),
        };
        let mut poles = 0;
        for n in 0..region.cells() {
            let cell = region.index_at(n);
            let offset = field.storage_offset(cell);
            let count = state.ade[usize::from(id_at(offset))].len();
            if count > 0 {
                nodes.cells.push(cell);
                nodes.offsets.push(offset);
                poles += count;
                nodes.first.push(poles);
            }
        }
        if nodes.cells.is_empty() {
            return None;
        }
        let (first, last) = (nodes.cells[0], nodes.cells[nodes.cells.len() - 1]);
        nodes.bounds = Box3::new(
            [region.lo[0], region.lo[1], first[2]],
            [region.hi[0], region.hi[1], last[2] + 1],
        );
        let mut n = 0;
        while n < nodes.cells.len() {
            let (cells, offsets) = (&nodes.cells, &nodes.offsets);
            let id = id_at(offsets[n]);
            let mut end = n + 1;
            while end < cells.len()
                && offsets[end] == offsets[end - 1] + 1
                && cells[end][1] == cells[n][1]
                && cells[end][2] == cells[n][2]
                && id_at(offsets[end]) == id
            {
                end += 1;
            }
            nodes.runs.push((n, end));
            n = end;
        }
        nodes.slots = [vec![T::zero(); poles], vec![T::zero(); poles]];
        nodes.scratch = vec![T::zero(); nodes.cells.len()];
        Some(nodes)
    }

    /// The poles of node `n`.
    fn poles(&self, n: usize) -> core::ops::Range<usize> {
        self.first[n]..self.first[n + 1]
    }

    /// Copies the P of nodes in both `self` and `to` into `to` (both lists are x-fastest).
    pub fn keep_into(&self, to: &mut DispersiveNodes<T>) {
        let key = |p: &Index3| [p[2], p[1], p[0]];
        let (mut i, mut j) = (0, 0);
        while i < self.cells.len() && j < to.cells.len() {
            match key(&self.cells[i]).cmp(&key(&to.cells[j])) {
                core::cmp::Ordering::Less => i += 1,
                core::cmp::Ordering::Greater => j += 1,
                core::cmp::Ordering::Equal => {
                    let (from, into) = (self.poles(i), to.poles(j));
                    for s in 0..2 {
                        to.slots[s][into.clone()].copy_from_slice(&self.slots[s][from.clone()]);
                    }
                    i += 1;
                    j += 1;
                }
            }
        }
    }

    /// The nodes inside `region`.
    fn within(&self, region: Box3) -> impl Iterator<Item = usize> + '_ {
        (0..self.cells.len()).filter(move |&n| region.contains(self.cells[n]))
    }

    /// `costs.dispersive(poles)` summed over the nodes in `region`.
    pub fn work(&self, region: Box3, costs: &yee_em::Costs) -> f64 {
        let all = region.contains_box(&self.bounds);
        self.runs
            .iter()
            .map(|&run| {
                let (a, b) = clip_run(&self.cells, run, region, all);
                (b - a) as f64 * costs.dispersive(self.poles(run.0).len())
            })
            .sum()
    }

    /// Values [`DispersiveNodes::pack`] writes for `region`: two per pole of each node in it.
    pub fn slab_len(&self, region: Box3) -> usize {
        self.within(region).map(|n| 2 * self.poles(n).len()).sum()
    }

    /// Writes the P of the nodes of `region` (node, slot, pole order) to `out`.
    pub fn pack(&self, region: Box3, out: &mut [T]) -> usize {
        let mut at = 0;
        for n in self.within(region) {
            for slot in &self.slots {
                let p = &slot[self.poles(n)];
                out[at..at + p.len()].copy_from_slice(p);
                at += p.len();
            }
        }
        at
    }

    /// Reads what [`DispersiveNodes::pack`] wrote for `region`.
    pub fn unpack(&mut self, region: Box3, data: &[T]) -> usize {
        let mut at = 0;
        for n in 0..self.cells.len() {
            if !region.contains(self.cells[n]) {
                continue;
            }
            let poles = self.poles(n);
            for slot in &mut self.slots {
                let len = poles.len();
                slot[poles.clone()].copy_from_slice(&data[at..at + len]);
                at += len;
            }
        }
        at
    }
}

/// Which of the three passes of a dispersive E phase (module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pass {
    /// Before the curl update: Pⁿ⁺¹ (or its Debye part) from Eⁿ, and each node's `Σ kₚ`.
    Polarise,
    /// After the curl update and CPML: `E −= (Cb/Δt) Σ kₚ`.
    Correct,
    /// Once Eⁿ⁺¹ is final (sources included): a Debye pole's `Pⁿ⁺¹ += βEⁿ⁺¹`.
    Complete,
}

impl Pass {
    /// Whether the pass changes anything in `state` (only Debye poles are completed).
    pub fn has_work<T: Scalar>(self, state: &YeeState<T>) -> bool {
        self != Pass::Complete || state.ade.iter().flatten().any(|s| !s.explicit)
    }
}

/// A run of dispersive nodes of one material next to each other along x: their field values,
/// their poles' P (node after node, pole fastest) in the slot of Pⁿ and the slot being
/// overwritten with Pⁿ⁺¹, their `Σ kₚ`, the material's pole steps and its `Cb/Δt`. Runs are
/// disjoint, so a caller may take them in any order or in parallel: every pass touches only
/// its own node, so the bits are the same.
pub struct NodeRun<'a, T: Scalar> {
    /// E at the run's nodes (consecutive in storage).
    pub field: &'a mut [T],
    /// Pⁿ of every pole of every node.
    pub now: &'a mut [T],
    /// Pⁿ⁻¹, overwritten with Pⁿ⁺¹.
    pub next: &'a mut [T],
    /// Each node's `Σ kₚ`.
    pub scratch: &'a mut [T],
    /// The material's poles.
    pub steps: &'a [AdeStep<T::Real>],
    /// The material's `Cb/Δt`.
    pub drive: T::Real,
}

impl<T: Scalar> NodeRun<'_, T> {
    /// Applies `pass` to the run's nodes; whether every E it wrote is finite.
    #[inline]
    pub fn apply(self, pass: Pass) -> bool {
        match pass {
            Pass::Polarise => self.polarise(),
            Pass::Correct => return self.correct(),
            Pass::Complete => self.complete(),
        }
        true
    }

    /// `Pⁿ⁺¹ = c₁Pⁿ + c₂Pⁿ⁻¹ + c₃Eⁿ` (Lorentz, Drude) or `αPⁿ + βEⁿ` (Debye) per pole, and
    /// `Σ kₚ` per node (`Pⁿ⁺¹ − Pⁿ`, or `(α − 1)Pⁿ`). One pole: a loop over the nodes that
    /// vectorises.
    fn polarise(self) {
        let NodeRun {
            field,
            now,
            next,
            scratch,
            steps,
            ..
        } = self;
        if let [s] = steps {
            let [c0, c1, c2] = s.c;
            let nodes = field.iter().zip(now.iter()).zip(next.iter_mut());
            if s.explicit {
                for (((&e, &a), p), k) in nodes.zip(scratch.iter_mut()) {
                    let q = a.scale(c0) + p.scale(c1) + e.scale(c2);
                    *p = q;
                    *k = T::zero() + (q - a);
                }
            } else {
                for (((&e, &a), p), k) in nodes.zip(scratch.iter_mut()) {
                    *p = a.scale(c0) + e.scale(c2);
                    *k = T::zero() + a.scale(c1);
                }
            }
            return;
        }
        let poles = steps.len();
        let per_node = now.chunks_exact(poles).zip(next.chunks_exact_mut(poles));
        for ((&e, (now, next)), k) in field.iter().zip(per_node).zip(scratch.iter_mut()) {
            let mut sum = T::zero();
            for ((s, &a), p) in steps.iter().zip(now).zip(next) {
                let [c0, c1, c2] = s.c;
                if s.explicit {
                    let q = a.scale(c0) + p.scale(c1) + e.scale(c2);
                    *p = q;
                    sum += q - a;
                } else {
                    *p = a.scale(c0) + e.scale(c2);
                    sum += a.scale(c1);
                }
            }
            *k = sum;
        }
    }

    /// `E −= (Cb/Δt) Σ kₚ`; whether every new E is finite.
    fn correct(self) -> bool {
        let drive = self.drive;
        self.field
            .iter_mut()
            .zip(self.scratch.iter())
            .fold(true, |ok, (e, &k)| {
                *e -= k.scale(drive);
                ok & e.is_finite()
            })
    }

    /// `Pⁿ⁺¹ += βEⁿ⁺¹` for the Debye poles.
    fn complete(self) {
        let poles = self.steps.len();
        for (&e, next) in self.field.iter().zip(self.next.chunks_exact_mut(poles)) {
            for (s, p) in self.steps.iter().zip(next) {
                if !s.explicit {
                    *p += e.scale(s.c[2]);
                }
            }
        }
    }
}

/// The slots of step `step`: (Pⁿ, Pⁿ⁻¹ to be overwritten with Pⁿ⁺¹).
fn slots<T>(slots: &mut [Vec<T>; 2], step: u64) -> (&mut [T], &mut [T]) {
    let [even, odd] = slots;
    match step % 2 {
        0 => (even, odd),
        _ => (odd, even),
    }
}

/// Hands `each` every run ([`NodeRun`]) of the dispersive nodes of `region`, component by
/// electric component, for the slots of step `step`: nodes next to each other along x in one
/// row, of one material, inside `region`.
pub fn for_each_run<'s, T: Scalar>(
    state: &'s mut YeeState<T>,
    region: Box3,
    step: u64,
    mut each: impl FnMut(NodeRun<'s, T>),
) {
    let YeeState {
        fields,
        dispersive,
        material_ids,
        one_id,
        ade,
        drive,
        ..
    } = state;
    let ade: &'s [Vec<AdeStep<T::Real>>] = ade;
    let drive: &'s [T::Real] = drive;
    for ((field, nodes), (ids, &one)) in fields
        .iter_mut()
        .zip(dispersive.iter_mut())
        .zip(material_ids.iter().zip(one_id.iter()))
    {
        let (Some(field), Some(nodes)) = (field, nodes) else {
            continue;
        };
        let ids = NodeIds { ids, one };
        let DispersiveNodes {
            cells,
            offsets,
            first,
            slots: pair,
            scratch,
            bounds,
            runs,
        } = nodes;
        let all = region.contains_box(bounds);
        let (now, next) = slots(pair, step);
        // Runs in increasing node, pole and storage order: split each array as they come.
        let mut field = OrderedSplit::new(field.as_mut_slice());
        let (mut now, mut next) = (OrderedSplit::new(now), OrderedSplit::new(next));
        let mut scratch = OrderedSplit::new(&mut scratch[..]);
        for &run in runs.iter() {
            let (a, b) = clip_run(cells, run, region, all);
            if a >= b {
                continue;
            }
            let id = ids.at(offsets[a]);
            let (o, poles) = (offsets[a], (first[a], first[b]));
            each(NodeRun {
                field: field.take(o, o + (b - a)),
                now: now.take(poles.0, poles.1),
                next: next.take(poles.0, poles.1),
                scratch: scratch.take(a, b),
                steps: &ade[usize::from(id)],
                drive: drive[usize::from(id)],
            });
        }
    }
}

/// The nodes of `run` (node indices `start..end`, one row) inside `region`, all of them when
/// `all` (the region holds every node).
fn clip_run(
    cells: &[Index3],
    (start, end): (usize, usize),
    region: Box3,
    all: bool,
) -> (usize, usize) {
    let c = cells[start];
    if all {
        (start, end)
    } else if (1..3).all(|k| c[k] >= region.lo[k] && c[k] < region.hi[k]) {
        let x = |v: i64| start + (v - c[0]).clamp(0, (end - start) as i64) as usize;
        (x(region.lo[0]), x(region.hi[0]))
    } else {
        (start, start)
    }
}

/// Applies `pass` of step `step` to the dispersive nodes of `region`, run by run
/// ([`for_each_run`]).
pub fn apply<T: Scalar>(state: &mut YeeState<T>, pass: Pass, region: Box3, step: u64) {
    if !pass.has_work(state) {
        return;
    }
    let mut finite = true;
    for_each_run(state, region, step, |run| finite &= run.apply(pass));
    state.non_finite |= !finite;
}
