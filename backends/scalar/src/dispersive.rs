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
}

impl<T: Scalar> DispersiveNodes<T> {
    /// The nodes of component `c` of `state` (materials built) with poles, P at zero; `None`
    /// when the chunk has none.
    pub fn of(state: &YeeState<T>, c: Component) -> Option<Self> {
        let field = state.field(c)?;
        let ids = &state.material_ids[c.index()];
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
        };
        let mut poles = 0;
        for n in 0..region.cells() {
            let cell = region.index_at(n);
            let offset = field.storage_offset(cell);
            let count = state.ade[usize::from(ids[offset])].len();
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
        self.within(region)
            .map(|n| costs.dispersive(self.poles(n).len()))
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

/// The slots of step `step`: (Pⁿ, Pⁿ⁻¹ to be overwritten with Pⁿ⁺¹).
fn slots<T>(slots: &mut [Vec<T>; 2], step: u64) -> (&mut [T], &mut [T]) {
    let [even, odd] = slots;
    match step % 2 {
        0 => (even, odd),
        _ => (odd, even),
    }
}

/// First pass of step `step` over `region`, before the curl update: from Eⁿ, every pole's
/// `Pⁿ⁺¹ = c₁Pⁿ + c₂Pⁿ⁻¹ + c₃Eⁿ` (Lorentz, Drude) or its part `αPⁿ + βEⁿ` (Debye), and each
/// node's `Σ kₚ`.
pub fn polarise<T: Scalar>(state: &mut YeeState<T>, region: Box3, step: u64) {
    for c in Component::ALL.into_iter().filter(|c| c.is_electric()) {
        let Some(mut nodes) = state.dispersive[c.index()].take() else {
            continue;
        };
        let (field, ids) = (
            state
                .field(c)
                .expect("nodes exist for carried components")
                .as_slice(),
            &state.material_ids[c.index()],
        );
        let DispersiveNodes {
            cells,
            offsets,
            first,
            slots: pair,
            scratch,
            bounds,
        } = &mut nodes;
        let all = region.contains_box(bounds);
        let inside = |n: usize| all || region.contains(cells[n]);
        let (now, next) = slots(pair, step);
        for n in 0..cells.len() {
            if !inside(n) {
                continue;
            }
            let o = offsets[n];
            let e = field[o];
            let mut k = T::zero();
            let steps = &state.ade[usize::from(ids[o])];
            for (j, s) in (first[n]..first[n + 1]).zip(steps) {
                let [c0, c1, c2] = s.c;
                let a = now[j];
                if s.explicit {
                    let p = a.scale(c0) + next[j].scale(c1) + e.scale(c2);
                    next[j] = p;
                    k += p - a;
                } else {
                    next[j] = a.scale(c0) + e.scale(c2);
                    k += a.scale(c1);
                }
            }
            scratch[n] = k;
        }
        state.dispersive[c.index()] = Some(nodes);
    }
}

/// Second pass, after the curl update (and CPML): `E −= (Cb/Δt) Σ kₚ` at every dispersive
/// node of `region`.
pub fn correct<T: Scalar>(state: &mut YeeState<T>, region: Box3) {
    let mut finite = true;
    for c in Component::ALL.into_iter().filter(|c| c.is_electric()) {
        let Some(nodes) = state.dispersive[c.index()].take() else {
            continue;
        };
        let mut field = state.fields[c.index()].take().expect("carried");
        let values = field.as_mut_slice();
        let ids = &state.material_ids[c.index()];
        let all = region.contains_box(&nodes.bounds);
        for n in 0..nodes.cells.len() {
            if !(all || region.contains(nodes.cells[n])) {
                continue;
            }
            let o = nodes.offsets[n];
            let updated = values[o] - nodes.scratch[n].scale(state.drive[usize::from(ids[o])]);
            finite &= updated.is_finite();
            values[o] = updated;
        }
        state.fields[c.index()] = Some(field);
        state.dispersive[c.index()] = Some(nodes);
    }
    state.non_finite |= !finite;
}

/// Last pass of step `step`, once Eⁿ⁺¹ is final (sources included): a Debye pole's
/// `Pⁿ⁺¹ += βEⁿ⁺¹`.
pub fn complete<T: Scalar>(state: &mut YeeState<T>, region: Box3, step: u64) {
    if state.ade.iter().flatten().all(|s| s.explicit) {
        return;
    }
    for c in Component::ALL.into_iter().filter(|c| c.is_electric()) {
        let Some(mut nodes) = state.dispersive[c.index()].take() else {
            continue;
        };
        let (field, ids) = (
            state.field(c).expect("carried").as_slice(),
            &state.material_ids[c.index()],
        );
        let DispersiveNodes {
            cells,
            offsets,
            first,
            slots: pair,
            bounds,
            ..
        } = &mut nodes;
        let all = region.contains_box(bounds);
        let (_, next) = slots(pair, step);
        for n in 0..cells.len() {
            if !(all || region.contains(cells[n])) {
                continue;
            }
            let o = offsets[n];
            let steps = &state.ade[usize::from(ids[o])];
            for (j, s) in (first[n]..first[n + 1]).zip(steps) {
                if !s.explicit {
                    next[j] += field[o].scale(s.c[2]);
                }
            }
        }
        state.dispersive[c.index()] = Some(nodes);
    }
}
