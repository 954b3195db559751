//! The off-diagonal part of the update at a chunk's tensor nodes: the nodes whose ε⁻¹ (E) or
//! μ⁻¹ (H) has off-diagonal entries ([`yee_em::Coupling`]).
//!
//! With `E = ε⁻¹D` and `∂D/∂t = ∇×H`, the update of `Eₐ` is
//! `Eₐ ← Ca Eₐ + Cb (∇×H)ₐ + Σ_b Cb (κₐb/κₐₐ) ⟨(∇×H)_b⟩`, `κ = ε⁻¹`: the diagonal part is the
//! curl kernel's (its `Cb` is `Δt κₐₐ`, with loss `Δt κₐₐ/(1 + σΔt κₐₐ/2)`), and `⟨(∇×H)_b⟩` is
//! the curl of component `b`, taken at the four nodes of `b` around the node of `a` (the
//! nodes of `b` nearest to it in the plane of the two axes) and averaged, as Meep averages the
//! other components of D onto a node (Kottke, Farjadpour & Johnson 2008, *Phys. Rev. E* 77,
//! 036611, sec. III; Meep's `step_update_EDHB`). The curls are the increments of D, so the
//! update is Meep's `E = ε⁻¹D` without storing D. In a uniform medium the average from the
//! nodes of `b` onto `a` is the transpose of the one from `a` onto `b`, so the update is
//! symmetric and as stable as the tensor's largest eigenvalue allows (Werner & Cary 2007,
//! *J. Comput. Phys.* 226, 1085). H is the dual with `μ⁻¹`, `Db` and `−∇×E`.
//!
//! E's node of `a` in cell `p` sits half a cell above `p` along `a`; the nodes of `b` around it
//! are in cells `p + {0, 1}·a + {−1, 0}·b`. H's node of `a` sits half a cell above along the
//! other two axes, so its neighbours of `b` are in cells `p + {−1, 0}·a + {0, 1}·b`. Their
//! curls read the other field one cell further, so a tensor node reads the whole one-cell
//! shell around it ([`yee_em::halo::HaloShape::Shell`]). A node of `b` that does not evolve (a
//! wall) contributes no curl. The curl is the plain one: a material with off-diagonal entries
//! within reach of a CPML layer is refused by the setup's validation
//! ([`yee_em::SetupError::TensorInCpml`]).
//!
//! Like the dispersive nodes, only the nodes that need it are listed (a vacuum or diagonal
//! grid lists none and pays nothing), each with its two weights `Cb κₐb/κₐₐ`.
//!
//! A smoothed node by a conducting side also carries the loss its off-diagonal entries lack
//! ([`yee_em::smoothing::OffDiagonal::loss`], `μₐb`): Kottke's complex mean puts
//! `−μₐb ∫D_b dt` into `Eₐ` beside `κₐb D_b`, which the update gives as the term
//! `−Cb ε̃ₐ μₐb ⟨D_b⟩` (first order in the loss tangent, as the diagonal's `σ̃`), with
//! `⟨D_b⟩ = Δt Σ ⟨(∇×H)_b⟩` the running sum of the same averaged curls, kept per node
//! ([`TensorNodes::integrals`]) and taken at the half step, `(Sⁿ + Sⁿ⁺¹)/2`. It is the
//! chunk's state like the polarisations: packed with the slabs (checkpoints, rebalancing) and
//! kept across a resize. A lossless scene has no such node and the update's bits are the
//! real tensor's.

use alloc::collections::BTreeMap;
use alloc::vec;
use alloc::vec::Vec;
use core::ops::Range;
use yee_core::{Box3, Index3, Real, Scalar};
use yee_em::smoothing::OffDiagonal;
use yee_em::{Component, Material};

use crate::tensor_curls::{CurlScratch, SharedCurls};

/// One node of a component with off-diagonal entries.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TensorNode<R> {
    /// The cell.
    pub cell: Index3,
    /// The offset in the field's storage.
    pub offset: usize,
    /// `Cb κₐb/κₐₐ` (E) or `Db νₐb/νₐₐ` (H) for each of the two other axes, in increasing
    /// axis order.
    pub weights: [R; 2],
    /// `−Cb ε̃ₐ μₐb Δt` (E) or `−Db μ̃ₐ μₐb Δt` (H) for each of the two other axes: the weight
    /// of the half-step running sum of the averaged curls (module docs); zero where neither
    /// side conducts, and then the node carries no sum.
    pub loss_weights: [R; 2],
    /// Bit `4k + n` set when neighbour `n` ([`neighbours`]) of the other axis `k` is a node
    /// that evolves: inside the grid (or wrapped across a periodic face) and not a wall.
    pub present: u8,
}

/// The tensor nodes of one component in a chunk, row after row (z, then y): within a row the
/// smoothed ones (in [`yee_em::Setup::smoothed_off_diagonals`]' order), then those of tensor
/// materials, x fastest. The nodes of a slab of whole planes are then a run of the list
/// ([`TensorNodes::rows_of`]), and so are the nodes of a batch of whole rows, whose values lie
/// in the batch's own stretch of storage: a pass may apply them with the batch
/// ([`crate::tensor_update::for_each_run`]).
#[derive(Clone, Debug, PartialEq)]
pub struct TensorNodes<T: Scalar> {
    /// The nodes.
    pub nodes: Vec<TensorNode<T::Real>>,
    /// Per node, the running sums `Σ ⟨(∇×H)_b⟩` of its two averaged curls (module docs);
    /// empty where no node carries a loss weight.
    pub integrals: Vec<[T; 2]>,
    /// Per other axis, in increasing axis order, the nodes of that component whose curls
    /// the nodes read, each once, and each node's four among them, in list order
    /// ([`SharedCurls`]).
    pub shared: [SharedCurls; 2],
    /// Where a pass takes the shared curls (kept, so a step allocates nothing).
    pub curls: CurlScratch<T>,
    /// The smallest box holding every node's cell.
    bounds: Box3,
}

impl<T: Scalar> TensorNodes<T> {
    /// The nodes of component `c` in `region` (its owned nodes that evolve) whose material
    /// (`materials[id]`, `None` for the inactive id) couples it to the other components;
    /// `gains` holds each id's curl coefficient (`Cb` or `Db`), `active` the axes the mode
    /// uses and `evolves` whether a node of a component in a cell is updated (wrapped across
    /// periodic faces). `smoothed` lists the nodes in `region` whose smoothed medium has
    /// off-diagonal entries ([`yee_em::Setup::smoothed_off_diagonal`]: `κₐb` for the two other
    /// axes, and the loss they lack), weighed by their material's curl coefficient and
    /// diagonal entry as a tensor material's are (the loss also by the step `dt`). `None`
    /// when there are none.
    #[allow(clippy::too_many_arguments)]
    pub fn of(
        c: Component,
        region: Box3,
        storage: Box3,
        id_at: impl Fn(usize) -> u16,
        materials: &[Option<Material>],
        gains: &[T::Real],
        active: [bool; 3],
        evolves: impl Fn(Component, Index3) -> bool,
        smoothed: &[(Index3, OffDiagonal)],
        dt: f64,
    ) -> Option<Self> {
        type R<T> = <T as Scalar>::Real;
        let a = c.axis().index();
        let weights: Vec<Option<[R<T>; 2]>> = materials
            .iter()
            .zip(gains)
            .map(|(m, &gain)| {
                let m = (*m)?;
                let row = m.coupling?.row(c.is_electric(), a);
                let own = if c.is_electric() { m.eps } else { m.mu };
                // κₐₐ = 1/ε along the axis: κₐb/κₐₐ = κₐb·ε.
                let w = row.map(|(_, k)| gain * R::<T>::from_f64(k * own));
                (row.iter().any(|&(_, k)| k != 0.0)).then_some(w)
            })
            .collect();
        let mut nodes = Vec::new();
        for &(cell, row) in smoothed.iter().filter(|(q, _)| region.contains(*q)) {
            let offset = storage.linear_index(cell);
            let id = usize::from(id_at(offset));
            let (Some(m), Some(&gain)) = (materials[id], gains.get(id)) else {
                continue;
            };
            let own = if c.is_electric() { m.eps } else { m.mu };
            nodes.push(TensorNode {
                cell,
                offset,
                weights: row.entries.map(|k| gain * R::<T>::from_f64(k * own)),
                loss_weights: row.loss.map(|l| gain * R::<T>::from_f64(-own * l * dt)),
                present: present(c, cell, active, &evolves),
            });
        }
        let zero = R::<T>::from_f64(0.0);
        if weights.iter().all(Option::is_none) || region.is_empty() {
            return Self::with_integrals(nodes, c, active, storage.strides());
        }
        for n in 0..region.cells() {
            let cell = region.index_at(n);
            let offset = storage.linear_index(cell);
            if let Some(weights) = weights[usize::from(id_at(offset))] {
                nodes.push(TensorNode {
                    cell,
                    offset,
                    weights,
                    loss_weights: [zero; 2],
                    present: present(c, cell, active, &evolves),
                });
            }
        }
        Self::with_integrals(nodes, c, active, storage.strides())
    }

    /// The list of `nodes` of `c` with their running sums at zero, if any node carries a loss
    /// weight, and the curls they share ([`SharedCurls`], from the mode's `active` axes and
    /// the storage `strides`); `None` when there are no nodes.
    fn with_integrals(
        mut nodes: Vec<TensorNode<T::Real>>,
        c: Component,
        active: [bool; 3],
        strides: [usize; 3],
    ) -> Option<Self> {
        let lossy = nodes.iter().any(carries_sum);
        let integrals = match lossy {
            true => vec![[T::zero(); 2]; nodes.len()],
            false => Vec::new(),
        };
        // Stable: two nodes of one row (or one cell) keep the order they were listed in.
        nodes.sort_by_key(|n| row_key(n.cell));
        let a = c.axis().index();
        let shared = others(a).map(|b| {
            let k = usize::from(b == others(a)[1]);
            SharedCurls::of(
                neighbour_offsets(c.is_electric(), a, b, active, strides),
                nodes.iter().map(|node| node.offset),
                |p, n| nodes[p].present & (1 << (4 * k + n)) != 0,
            )
        });
        let mut bounds = Box3::new([i64::MAX; 3], [i64::MIN; 3]);
        for node in &nodes {
            for a in 0..3 {
                bounds.lo[a] = bounds.lo[a].min(node.cell[a]);
                bounds.hi[a] = bounds.hi[a].max(node.cell[a] + 1);
            }
        }
        (!nodes.is_empty()).then_some(TensorNodes {
            nodes,
            integrals,
            shared,
            curls: CurlScratch::default(),
            bounds,
        })
    }

    /// The same nodes without their running sums: what a list kept elsewhere (the device's)
    /// needs to find each node's place in slabs and resizes.
    pub fn without_sums(&self) -> Self {
        TensorNodes {
            nodes: self.nodes.clone(),
            integrals: Vec::new(),
            shared: self.shared.clone(),
            curls: CurlScratch::default(),
            bounds: self.bounds,
        }
    }

    /// The run of the list that holds the nodes of `region`'s rows (z, then y, from `region`'s
    /// lowest row to its highest): a wavefront tile's slab of a few planes visits its own
    /// nodes, not the whole list. Filter by `region.contains`. The order among nodes does not
    /// change a node's value (each reads only the other field).
    pub fn rows_of(&self, region: Box3) -> Range<usize> {
        if region.is_empty() {
            return 0..0;
        }
        let before =
            |key: (i64, i64)| (self.nodes).partition_point(|node| row_key(node.cell) < key);
        let lo = before(row_key(region.lo));
        lo..before((region.hi[2] - 1, region.hi[1])).max(lo)
    }

    /// The bytes of the list a pass over every node reads and writes, beside the fields' own:
    /// each node, its four neighbours' positions per other axis, the offsets of the shared
    /// curls it takes ([`SharedCurls`]), and the running sums read and written. A benchmark's
    /// byte model counts them as it counts the CPML ψ (`yee bench`, docs/performance.md).
    pub fn pass_bytes(&self) -> usize {
        let shared: usize = self
            .shared
            .iter()
            .map(|s| core::mem::size_of_val(&s.refs[..]) + core::mem::size_of_val(&s.offsets[..]))
            .sum();
        core::mem::size_of_val(&self.nodes[..])
            + shared
            + 2 * core::mem::size_of_val(&self.integrals[..])
    }

    /// The smallest box holding every node's cell.
    pub fn bounds(&self) -> Box3 {
        self.bounds
    }

    /// The indices of the nodes in `region` that carry running sums.
    fn summed_within(&self, region: Box3) -> impl Iterator<Item = usize> + '_ {
        (0..self.nodes.len())
            .filter(move |&n| carries_sum(&self.nodes[n]) && region.contains(self.nodes[n].cell))
    }

    /// Values [`TensorNodes::pack`] writes for `region`: two per node in it with a sum.
    pub fn slab_len(&self, region: Box3) -> usize {
        2 * self.summed_within(region).count()
    }

    /// Writes the running sums of the nodes of `region` that carry them (list order) to
    /// `out`; returns how many values.
    pub fn pack(&self, region: Box3, out: &mut [T]) -> usize {
        let mut at = 0;
        for n in self.summed_within(region) {
            out[at..at + 2].copy_from_slice(&self.integrals[n]);
            at += 2;
        }
        at
    }

    /// Reads what [`TensorNodes::pack`] wrote for `region`; returns how many values.
    pub fn unpack(&mut self, region: Box3, data: &[T]) -> usize {
        let mut at = 0;
        let summed: Vec<usize> = self.summed_within(region).collect();
        for n in summed {
            self.integrals[n].copy_from_slice(&data[at..at + 2]);
            at += 2;
        }
        at
    }

    /// Copies the running sums of nodes in both `self` and `to` into `to`.
    pub fn keep_into(&self, to: &mut TensorNodes<T>) {
        if self.integrals.is_empty() || to.integrals.is_empty() {
            return;
        }
        let kept: BTreeMap<[i64; 3], [T; 2]> = self
            .nodes
            .iter()
            .zip(&self.integrals)
            .map(|(node, &sum)| (node.cell, sum))
            .collect();
        for (node, sum) in to.nodes.iter().zip(&mut to.integrals) {
            if let Some(&old) = kept.get(&node.cell) {
                *sum = old;
            }
        }
    }
}

/// The row of `cell`, `(z, y)`: what [`TensorNodes`] are ordered by.
fn row_key(cell: Index3) -> (i64, i64) {
    (cell[2], cell[1])
}

/// Whether `node` carries running sums: a loss weight is not zero.
fn carries_sum<R: Real>(node: &TensorNode<R>) -> bool {
    node.loss_weights.iter().any(|&w| w != R::from_f64(0.0))
}

/// [`TensorNode::present`] of the node of `c` in `cell`.
fn present(
    c: Component,
    cell: Index3,
    active: [bool; 3],
    evolves: &impl Fn(Component, Index3) -> bool,
) -> u8 {
    let a = c.axis().index();
    let mut bits = 0;
    for (k, b) in others(a).into_iter().enumerate() {
        let component = Component::along(yee_core::Axis::ALL[b], c.is_electric());
        for (n, q) in neighbours(c.is_electric(), a, b, cell, active)
            .into_iter()
            .enumerate()
        {
            if evolves(component, q) {
                bits |= 1 << (4 * k + n);
            }
        }
    }
    bits
}

/// The two axes other than `a`, in increasing order.
pub fn others(a: usize) -> [usize; 2] {
    let (b, c) = ((a + 1) % 3, (a + 2) % 3);
    [b.min(c), b.max(c)]
}

/// The storage offsets of the four nodes of `b` around a node of `a` (in neighbour order,
/// [`neighbours`]), relative to the node's, for storage `strides`.
pub fn neighbour_offsets(
    electric: bool,
    a: usize,
    b: usize,
    active: [bool; 3],
    strides: [usize; 3],
) -> [isize; 4] {
    neighbours(electric, a, b, [0; 3], active).map(|q| {
        (0..3)
            .map(|i| q[i] as isize * strides[i] as isize)
            .sum::<isize>()
    })
}

/// The cells of the four nodes of `b` around the node of `a` in `cell` (module docs), along
/// the axes the mode uses (an unused axis keeps the node's own coordinate).
pub fn neighbours(
    electric: bool,
    a: usize,
    b: usize,
    cell: Index3,
    active: [bool; 3],
) -> [Index3; 4] {
    let (along_a, along_b) = if electric {
        ([0, 1], [-1, 0])
    } else {
        ([-1, 0], [0, 1])
    };
    let mut out = [cell; 4];
    for (k, q) in out.iter_mut().enumerate() {
        if active[a] {
            q[a] += along_a[k % 2];
        }
        if active[b] {
            q[b] += along_b[k / 2];
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tensor_curls::SharedCurls;

    #[test]
    fn a_run_of_nodes_finds_its_curls_in_the_needed_stretch() {
        // Nodes of Ex along a row and a plane above, in a 6 × 5 × 4 storage box; every
        // neighbour present but those of the last node.
        let strides = [1, 6, 30];
        let cells: Vec<(Index3, usize)> = [[1, 1, 1], [2, 1, 1], [3, 2, 1], [1, 1, 2], [2, 2, 2]]
            .iter()
            .map(|&c| (c, (c[0] + 6 * c[1] + 30 * c[2]) as usize))
            .collect();
        for b in [1, 2] {
            let shared = SharedCurls::of(
                neighbour_offsets(true, 0, b, [true; 3], strides),
                cells.iter().map(|&(_, offset)| offset),
                |p, _| p < 4,
            );
            // Each node's neighbours are the cells the scheme names, each listed once.
            for (p, &(cell, _)) in cells.iter().enumerate() {
                for (n, q) in neighbours(true, 0, b, cell, [true; 3]).iter().enumerate() {
                    let r = shared.refs[p][n];
                    if p == 4 {
                        assert_eq!(r, u32::MAX);
                        continue;
                    }
                    let offset = (q[0] + 6 * q[1] + 30 * q[2]) as usize;
                    assert_eq!(shared.offsets[r as usize], offset);
                }
            }
            let mut unique = shared.offsets.clone();
            unique.sort_unstable();
            unique.dedup();
            assert_eq!(unique.len(), shared.offsets.len());
            // Neighbours along x share nodes of b: fewer than four a node.
            assert!(shared.offsets.len() < 4 * 4);
            for lo in 0..=cells.len() {
                for hi in lo..=cells.len() {
                    let needed = shared.needed(lo..hi);
                    for p in lo..hi {
                        for &r in shared.refs[p].iter().filter(|&&r| r != u32::MAX) {
                            assert!(needed.contains(&(r as usize)), "{lo}..{hi}: {r}");
                        }
                    }
                }
            }
        }
    }
}
