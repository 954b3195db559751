//! The polarisations of a chunk's dispersive nodes ([`yee_em::pole`], [`yee_em::medium`] for
//! the equations), which the dispersive passes advance (`crate::dispersive`).
//!
//! Like CPML's ψ, the arrays exist only where they are needed: per electric component, the
//! owned nodes that evolve (the free box) and hold poles, in x-fastest order, each with its
//! poles' P in two slots. Slot `step % 2` holds Pⁿ and the other Pⁿ⁻¹; the first pass of step
//! n overwrites Pⁿ⁻¹ with Pⁿ⁺¹ (a Debye pole's with `αPⁿ + βEⁿ`, completed by the last pass
//! once Eⁿ⁺¹ is known), so the next step finds its Pⁿ⁺¹ in the slot its parity names.

use alloc::vec;
use alloc::vec::Vec;
use yee_core::{Box3, Index3, Real, Scalar};
use yee_em::pole::Ade;

use crate::field::HostField;
use crate::material_ids::NodeIds;

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
    /// The runs of nodes: consecutive cells along x in one row, of one material, in row
    /// order.
    pub runs: Vec<PoleRun>,
}

/// A run of dispersive nodes (consecutive cells along x in one row, of one material), with
/// what a pass needs of its first node, so that taking a slab's runs reads the runs alone,
/// one stream, not the nodes' arrays at every run's start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PoleRun {
    /// Node indices `start..end`.
    pub nodes: (usize, usize),
    /// The first node's cell.
    pub cell: Index3,
    /// The first node's offset in the field's storage.
    pub offset: usize,
    /// The first node's first pole in the slots (each node of the run has the material's
    /// poles, one after the other).
    pub pole: usize,
    /// The material's id.
    pub id: u16,
}

impl PoleRun {
    /// Node `n`'s (a node of the run) storage offset and first pole, with `poles` poles a
    /// node.
    pub fn at(&self, n: usize, poles: usize) -> (usize, usize) {
        let k = n - self.nodes.0;
        (self.offset + k, self.pole + k * poles)
    }
}

impl<T: Scalar> DispersiveNodes<T> {
    /// The nodes of `region` (a component's owned nodes that evolve) with poles, P at zero:
    /// the component's values are in `field`, its material ids are `ids`, and `ade` holds the
    /// poles of each material id. `None` when the region has none.
    pub fn of(
        field: &HostField<T>,
        ids: NodeIds<'_>,
        region: Box3,
        ade: &[Vec<AdeStep<T::Real>>],
    ) -> Option<Self> {
        let id_at = |offset: usize| ids.at(offset);
        if ade.iter().all(Vec::is_empty) || region.is_empty() {
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
            let count = ade[usize::from(id_at(offset))].len();
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
            nodes.runs.push(PoleRun {
                nodes: (n, end),
                cell: cells[n],
                offset: offsets[n],
                pole: nodes.first[n],
                id,
            });
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

    /// The nodes of [`runs_near`] `region`, in order: every node inside it among them.
    fn near(&self, region: Box3) -> core::ops::Range<usize> {
        match runs_near(&self.runs, region) {
            [] => 0..0,
            [first, .., last] => first.nodes.0..last.nodes.1,
            [only] => only.nodes.0..only.nodes.1,
        }
    }

    /// The nodes inside `region`, in order.
    fn within(&self, region: Box3) -> impl Iterator<Item = usize> + '_ {
        self.near(region)
            .filter(move |&n| region.contains(self.cells[n]))
    }

    /// `costs.dispersive(poles)` summed over the nodes in `region`.
    pub fn work(&self, region: Box3, costs: &yee_em::Costs) -> f64 {
        let all = region.contains_box(&self.bounds);
        runs_near(&self.runs, region)
            .iter()
            .map(|run| {
                let (a, b) = clip_run(run, region, all);
                (b - a) as f64 * costs.dispersive(self.poles(run.nodes.0).len())
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
        for n in self.near(region) {
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

/// The runs (node indices `start..end`, one row each, in row order: z, then y) whose rows may
/// hold cells of `region`: from the first row at or past its first `(z, y)` to its last,
/// found by bisection, so a slab's pass does not walk the whole chunk's runs; [`clip_run`]
/// takes each one's part inside `region`.
pub(crate) fn runs_near(runs: &[PoleRun], region: Box3) -> &[PoleRun] {
    if region.is_empty() {
        return &[];
    }
    let row = |run: &PoleRun| (run.cell[2], run.cell[1]);
    let from = runs.partition_point(|r| row(r) < (region.lo[2], region.lo[1]));
    let to = runs.partition_point(|r| row(r) < (region.hi[2] - 1, region.hi[1]));
    &runs[from..to.max(from)]
}

/// The nodes of `run` (node indices, one row) inside `region`, all of them when `all` (the
/// region holds every node).
pub(crate) fn clip_run(run: &PoleRun, region: Box3, all: bool) -> (usize, usize) {
    let ((start, end), c) = (run.nodes, run.cell);
    if all {
        (start, end)
    } else if (1..3).all(|k| c[k] >= region.lo[k] && c[k] < region.hi[k]) {
        let x = |v: i64| start + (v - c[0]).clamp(0, (end - start) as i64) as usize;
        (x(region.lo[0]), x(region.hi[0]))
    } else {
        (start, start)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs in row order over a 5×4×3 box, holes and several runs a row among them: for
    /// every box inside it and around it, the runs [`runs_near`] gives hold every node inside
    /// the box, and the bisection saves the walk (a one-row box gets its row alone).
    #[test]
    fn runs_near_a_region_hold_every_node_in_it() {
        let mut cells: Vec<Index3> = Vec::new();
        let mut runs = Vec::new();
        for z in 0..3i64 {
            for y in 0..4i64 {
                // Rows of x 0..2 and 3..5 (a hole at x = 2), but none at y = 2.
                for xs in [0..2i64, 3..5] {
                    if y == 2 {
                        continue;
                    }
                    let start = cells.len();
                    cells.extend(xs.map(|x| [x, y, z]));
                    runs.push(PoleRun {
                        nodes: (start, cells.len()),
                        cell: cells[start],
                        offset: 0,
                        pole: 0,
                        id: 0,
                    });
                }
            }
        }
        let mut boxes = 0;
        for lo in (0..64).map(|n| [n % 4 - 1, (n / 4) % 4 - 1, n / 16 - 1]) {
            for extent in [
                [1, 1, 1],
                [2, 1, 1],
                [1, 2, 1],
                [6, 5, 1],
                [6, 2, 2],
                [6, 5, 4],
            ] {
                let region = Box3::new(lo, core::array::from_fn(|a| lo[a] + extent[a]));
                let near = runs_near(&runs, region);
                let held = |n: usize| near.iter().any(|r| (r.nodes.0..r.nodes.1).contains(&n));
                for (n, &c) in cells.iter().enumerate() {
                    assert!(
                        !region.contains(c) || held(n),
                        "{region:?}: node {c:?} left out"
                    );
                }
                if extent[1] == 1 && extent[2] == 1 {
                    assert!(
                        near.len() <= 2,
                        "{region:?}: {} runs for one row",
                        near.len()
                    );
                }
                boxes += 1;
            }
        }
        assert_eq!(boxes, 64 * 6);
        assert!(runs_near(&runs, Box3::new([0; 3], [0; 3])).is_empty());
    }
}
