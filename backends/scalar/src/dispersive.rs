//! Dispersive media on a chunk: the three passes of the E phase that advance the polarisation
//! of every pole at every node of a dispersive material ([`DispersiveNodes`] holds them, with
//! its slots of Pⁿ and Pⁿ⁻¹; [`yee_em::pole`], [`yee_em::medium`] for the equations). Every
//! pass touches only its own node, so any split of the owned box into regions, any
//! decomposition and any executor give the same bits.

use alloc::vec::Vec;
use yee_core::{Box3, Scalar};

use crate::dispersive_nodes::{AdeStep, DispersiveNodes, clip_run, runs_near};
use crate::ordered_split::OrderedSplit;
use crate::state::YeeState;

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
        ade,
        drive,
        ..
    } = state;
    let ade: &'s [Vec<AdeStep<T::Real>>] = ade;
    let drive: &'s [T::Real] = drive;
    for (field, nodes) in fields.iter_mut().zip(dispersive.iter_mut()) {
        let (Some(field), Some(nodes)) = (field, nodes) else {
            continue;
        };
        let DispersiveNodes {
            slots: pair,
            scratch,
            bounds,
            runs,
            ..
        } = nodes;
        let all = region.contains_box(bounds);
        let (now, next) = slots(pair, step);
        // Runs in increasing node, pole and storage order: split each array as they come.
        let mut field = OrderedSplit::new(field.as_mut_slice());
        let (mut now, mut next) = (OrderedSplit::new(now), OrderedSplit::new(next));
        let mut scratch = OrderedSplit::new(&mut scratch[..]);
        for run in runs_near(runs, region) {
            let (a, b) = clip_run(run, region, all);
            if a >= b {
                continue;
            }
            let steps = &ade[usize::from(run.id)];
            let ((o, from), (_, to)) = (run.at(a, steps.len()), run.at(b, steps.len()));
            each(NodeRun {
                field: field.take(o, o + (b - a)),
                now: now.take(from, to),
                next: next.take(from, to),
                scratch: scratch.take(a, b),
                steps,
                drive: drive[usize::from(run.id)],
            });
        }
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
