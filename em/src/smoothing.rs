//! Subpixel smoothing of curved interfaces: a node whose voxel (the cell-sized box centred on
//! it) a sphere's or a cylinder's surface crosses takes an effective medium instead of the
//! staircase rule of [`crate::placement`].
//!
//! With `f` the fraction of the voxel inside the shape ([`crate::voxel`], the surface taken as
//! its tangent plane) and `n` the surface normal, the effective permittivity tensor is
//! `ε̃⁻¹ = P⟨ε⁻¹⟩ + (1 − P)⟨ε⟩⁻¹` with `P = nnᵀ`, `⟨ε⟩ = fε_in + (1 − f)ε_out` and
//! `⟨ε⁻¹⟩ = f/ε_in + (1 − f)/ε_out`: the mean of ε for fields along the interface and the mean
//! of 1/ε across it (Farjadpour, Roundy, Rodriguez, Ibanescu, Bermel, Joannopoulos, Johnson
//! & Burr 2006, *Opt. Lett.* 31, 2972–2974; Kottke, Farjadpour & Johnson 2008, *Phys. Rev. E*
//! 77, 036611, eq. (1); Meep's default). The component along axis `a` takes the diagonal
//! entry, `(ε̃⁻¹)ₐₐ = nₐ²⟨ε⁻¹⟩ + (1 − nₐ²)/⟨ε⟩`, as its own `1/ε`, and the off-diagonal
//! entries of its row, `κₐb = nₐn_b(⟨ε⁻¹⟩ − 1/⟨ε⟩)`
//! ([`Setup::smoothed_off_diagonal`]), weigh the curls of the other components averaged onto
//! its node, as a material's full tensor does (`yee_scalar::tensor_nodes`; Meep averages the
//! other components of D the same way): fields across a tilted or curved surface then converge
//! at second order, as fields along it do. A normal along an axis of the pair (`nₐn_b = 0`:
//! an axis-aligned surface, the nodes on a cylinder's axis lines) gives no entry, and such a
//! node keeps the diagonal update and its bits. H nodes smooth μ the same way.
//!
//! The off-diagonal entries are left out ([`Setup::smoothing_tensor`] off: the diagonal rule,
//! first order across the surface) where the tensor update cannot run: in what runs without
//! it (the tile-set and box layouts; `yee run` falls back there and says so in its log and
//! run.json's `smoothing_fallback`), at a node within [`TENSOR_CPML_GAP`] cells of
//! a CPML layer (whose curls the tensor update does not stretch), and where a side is
//! anisotropic (a diagonal ε or μ: Kottke's rule for it has more terms).
//!
//! A lossy side smooths its complex permittivity `ε + iσ/ω` by the same rule: the derivation
//! of Kottke et al. is a first-order perturbation of the frequency-domain equations and holds
//! for a complex ε. Expanded to first order in the loss tangent `σ/ωε`, the diagonal entry is
//! `ε̃ + iσ̃/ω` with `ε̃` the lossless entry above and
//! `σ̃ = ε̃²(nₐ²⟨σ/ε²⟩ + (1 − nₐ²)⟨σ⟩/⟨ε⟩²)`: along the surface the mean of σ (exact at any
//! loss), across it `σ/ε²` averaged as `1/ε` is, which is the high-frequency (`ωτ ≫ 1`) limit
//! of the Maxwell–Wagner relaxation of two lossy layers in series (Maxwell–Wagner: the series
//! admittance `1/Y = f/(σ₁ − iωε₁) + (1 − f)/(σ₂ − iωε₂)`). One `(ε̃, σ̃)` pair serves every
//! frequency: no design frequency is needed, and the neglected terms are second order in
//! `σ/ωε`, a per-mille correction to the surface nodes' loss at a loss tangent of 0.05. Where
//! `σ ≳ ωε` (a metal) the expansion fails and the node conducts across the surface as the
//! volume average of σ, the rule before this one, made it. σ* smooths with μ the same way.
//! Meep point-samples σ at the node (`geom_epsilon::conductivity` in its `meepgeom.cpp`) and
//! smooths lossless dielectrics only.
//!
//! Off the diagonal the complex mean is, to the same order, `κₐb − (i/ω)λₐb` with
//! `λₐb = nₐn_b(⟨σ/ε²⟩ − ⟨σ⟩/⟨ε⟩²)`. The tensor update divides its row by the node's own
//! complex diagonal, which gives the real entry the loss `κₐb σ̃ₐ/ε̃ₐ`; the rest,
//! `μₐb = λₐb − κₐb σ̃ₐ/ε̃ₐ` ([`OffDiagonal::loss`]), is a term `−μₐb ∫D_b dt` of `Eₐ`
//! (`e^{−iωt}`: `−i/ω` is `−∫dt`), which the update adds from a running sum of the averaged
//! curls of `b` kept per node (`yee_scalar::tensor_nodes`). The two parts have opposite
//! signs at a lossy sphere's surface, so the real entries alone miss the surface nodes' loss
//! by a first-order amount: absorption across the surface converged at order 1.5 that way,
//! and at order 2 with `μ` (`tests/tests/lossy_smoothing.rs`). Lossless sides give `μ = 0`,
//! no running sum and the real tensor's bits.
//!
//! What is smoothed: the last region whose shape reaches the voxel decides. A sphere or
//! cylinder crossing it smooths between its own material ([`Material::along`] the component)
//! and what lies under it at the node (the earlier regions and the background, placed by the
//! staircase rule). A box, `everywhere`, a cylinder's flat end, a voxel across a periodic face,
//! an E node by a dispersive material on either side (H nodes still smooth μ), a node by a
//! material with a full ε or μ tensor ([`Material::tensor`]), or a voxel wholly inside keeps
//! the staircase rule.
//!
//! Smoothed values are rounded to one of [`STEPS`] steps between the two materials' values (σ̃,
//! which may leave that range, to a multiple of the larger σ over [`STEPS`]), so a surface
//! gives a bounded number of distinct node media (the backends number them with 16 bits); the
//! rounding moves a value by at most 1/(2·[`STEPS`]) of the contrast (of the larger σ).
//!
//! The off-diagonal entries are not rounded: the tensor update keeps them per node, not per
//! material id.
//!
//! The result depends on the setup and the node alone, so every decomposition gets the same
//! bits.

// Float gives f64 its math in a pure no_std build.
#[allow(unused_imports)]
use num_traits::Float;
use yee_core::geometry::{Axis, Box3, Index3};

use alloc::vec::Vec;

use crate::candidates::Candidates;
use crate::material::Material;
use crate::medium::NodeMedium;
use crate::setup::Setup;
use crate::shape::Shape;
use crate::voxel::fraction_below;
use crate::yee::Component;

/// Steps between the two materials' values that smoothed values are rounded to (module docs).
pub const STEPS: f64 = 4096.0;

/// A smoothed node is no tensor node within this many cells of a CPML layer: the tensor
/// update's neighbours and their curls reach two cells, and its curl is the plain one
/// (`yee_scalar::tensor_nodes`); such a node keeps the diagonal rule.
pub const TENSOR_CPML_GAP: i64 = 2;

/// A curved surface across a node's voxel.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Crossing<'r> {
    /// The node's position.
    position: [f64; 3],
    /// The region whose surface crosses the voxel (the last one reaching it).
    region: usize,
    /// The fraction of the voxel inside the region.
    fraction: f64,
    /// The outward unit normal.
    normal: [f64; 3],
    /// The candidate regions below `region`.
    under: Candidates<'r>,
}

/// The off-diagonal part of a smoothed node's row (module docs), for the two other axes `b` in
/// increasing order.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OffDiagonal {
    /// The real entries `κₐb = nₐn_b(⟨ε⁻¹⟩ − ⟨ε⟩⁻¹)` of `ε̃⁻¹` (`μ̃⁻¹` for H).
    pub entries: [f64; 2],
    /// The loss the update must add to them, `λₐb − κₐb σ̃ₐ/ε̃ₐ` (module docs): `E_a` takes
    /// `−λ ∫D_b dt` beside `κ D_b`; zero where neither side conducts.
    pub loss: [f64; 2],
}

/// How a node's voxel meets a shape.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Cut {
    /// The shape does not reach the voxel.
    Outside,
    /// The staircase rule places the node: the voxel is inside, or the shape is not smoothed.
    Staircase,
    /// A curved surface crosses the voxel: `fraction` of it is inside; `normal` points out.
    Across { fraction: f64, normal: [f64; 3] },
}

impl Setup<'_> {
    /// The smoothed medium of the node of `c` in `cell`, or `None` where the staircase rule
    /// of [`crate::placement`] places it (module docs). An H node's medium has no poles.
    pub fn smoothed_medium(&self, c: Component, cell: Index3) -> Option<NodeMedium> {
        self.smoothed_medium_among(c, cell, Candidates::All)
    }

    /// [`Setup::smoothed_medium`] looking only at the `candidates` regions, which must include
    /// every region whose shape reaches the node's voxel or holds the node.
    pub fn smoothed_medium_among(
        &self,
        c: Component,
        cell: Index3,
        candidates: Candidates,
    ) -> Option<NodeMedium> {
        let crossing = self.crossing(c, cell, candidates)?;
        self.interface(c, &crossing)
    }

    /// The off-diagonal entries of the smoothed `ε̃⁻¹` (E) or `μ̃⁻¹` (H) in the row of the
    /// node of `c` in `cell`, `κₐb = nₐn_b(⟨ε⁻¹⟩ − ⟨ε⟩⁻¹)` for the two other axes `b` in
    /// increasing order, with the loss the update must add to them across a conducting side
    /// (module docs), or `None` where the node keeps the diagonal rule: no
    /// curved surface crosses its voxel, the normal lies along an axis of the row's pair,
    /// [`Setup::smoothing_tensor`] is off, a side is dispersive (E), anisotropic or a
    /// tensor, or the node is within [`TENSOR_CPML_GAP`] cells of a CPML layer. The diagonal
    /// entry is [`Setup::smoothed_medium`]'s.
    pub fn smoothed_off_diagonal(&self, c: Component, cell: Index3) -> Option<OffDiagonal> {
        if !self.smoothing_tensor {
            return None;
        }
        let crossing = self.crossing(c, cell, Candidates::All)?;
        self.off_diagonal(c, cell, &crossing)
    }

    /// [`Setup::smoothed_off_diagonal`] of the node of `c` in `cell` at its `crossing`.
    fn off_diagonal(&self, c: Component, cell: Index3, crossing: &Crossing) -> Option<OffDiagonal> {
        let a = c.axis().index();
        let n = crossing.normal;
        let others = [(a + 1) % 3, (a + 2) % 3];
        let others = [others[0].min(others[1]), others[0].max(others[1])];
        if others.iter().all(|&b| n[a] * n[b] == 0.0) {
            return None;
        }
        let near = Box3::new(
            cell.map(|v| v - TENSOR_CPML_GAP),
            cell.map(|v| v + TENSOR_CPML_GAP + 1),
        );
        if self.cpml_layers().any(|l| !l.intersect(&near).is_empty()) {
            return None;
        }
        let (inside, outside) = self.sides(c, crossing)?;
        let isotropic = |m: &Material| m.diagonal.is_none();
        if !(isotropic(&self.regions[crossing.region].material) && isotropic(&outside)) {
            return None;
        }
        let side = |m: &Material| match c.is_electric() {
            true => (m.eps, m.sigma),
            false => (m.mu, m.sigma_m),
        };
        let (inside, outside) = (side(&inside), side(&outside));
        if inside.0 == outside.0 {
            return None;
        }
        let f = (crossing.fraction * STEPS).round() / STEPS;
        // The node's own (rounded) diagonal medium, whose loss the update gives the row.
        let node = self.interface(c, crossing).map(|m| side(&m.material))?;
        let [entries, loss] = [0, 1].map(|part| {
            others.map(|b| {
                let (entry, loss) = off_diagonal_entry(f, n[a] * n[b], inside, outside, node);
                [entry, loss][part]
            })
        });
        Some(OffDiagonal { entries, loss })
    }

    /// Whether some node's smoothed off-diagonal entries carry a loss ([`OffDiagonal::loss`],
    /// zero where neither side of the surface conducts), over the whole grid.
    pub fn smooths_lossy_off_diagonal(&self) -> bool {
        let conducts = self.materials().any(|m| m.sigma != 0.0 || m.sigma_m != 0.0);
        let whole = Box3::from_extent(self.grid);
        conducts
            && self.mode.components().iter().any(|&c| {
                (self.smoothed_off_diagonals(c, whole).iter()).any(|(_, o)| o.loss != [0.0; 2])
            })
    }

    /// The nodes of `c` in `region` with off-diagonal smoothed entries
    /// ([`Setup::smoothed_off_diagonal`]), each with its two entries: for each sphere or
    /// cylinder in turn, the nodes within its bounds whose voxel its surface crosses and no
    /// later region reaches (so each node once). The search over all regions runs only at
    /// the nodes a surface crosses.
    pub fn smoothed_off_diagonals(&self, c: Component, region: Box3) -> Vec<(Index3, OffDiagonal)> {
        let mut out = Vec::new();
        if !self.smooths_off_diagonal() {
            return out;
        }
        let active = self.mode.active_axes();
        let half = active.map(|used| if used { 0.5 } else { 0.0 });
        for (r, placed) in self.regions.iter().enumerate() {
            if !matches!(placed.shape, Shape::Sphere { .. } | Shape::Cylinder { .. }) {
                continue;
            }
            let (lo, hi) = placed.shape.bounds();
            let bounds = Box3::new(
                lo.map(|v| (v.floor() as i64).saturating_sub(1)),
                hi.map(|v| (v.ceil() as i64).saturating_add(2)),
            )
            .intersect(&region);
            for n in 0..bounds.cells() {
                let cell = bounds.index_at(n);
                let p = c.position(cell);
                if !matches!(cut(&placed.shape, p, half, active), Cut::Across { .. }) {
                    continue;
                }
                let Some(crossing) = self.crossing(c, cell, Candidates::All) else {
                    continue;
                };
                if crossing.region != r {
                    continue;
                }
                if let Some(row) = self.off_diagonal(c, cell, &crossing) {
                    out.push((cell, row));
                }
            }
        }
        out
    }

    /// The curved surface that crosses the voxel of the node of `c` in `cell`, looking only
    /// at the `candidates` regions (module docs), or `None` where the staircase rule places
    /// the node.
    fn crossing<'r>(
        &self,
        c: Component,
        cell: Index3,
        candidates: Candidates<'r>,
    ) -> Option<Crossing<'r>> {
        if !self.smoothing {
            return None;
        }
        let p = c.position(cell);
        let active = self.mode.active_axes();
        let half = active.map(|used| if used { 0.5 } else { 0.0 });
        let wraps = (0..3).any(|a| {
            active[a]
                && self.is_periodic(Axis::ALL[a])
                && (p[a] < 0.5 || p[a] + 0.5 > self.grid[a] as f64)
        });
        if wraps {
            return None;
        }
        for r in candidates.iter(self.regions.len()).rev() {
            match cut(&self.regions[r].shape, p, half, active) {
                Cut::Outside => continue,
                Cut::Staircase => return None,
                Cut::Across { fraction, normal } => {
                    return Some(Crossing {
                        position: p,
                        region: r,
                        fraction,
                        normal,
                        under: candidates.below(r),
                    });
                }
            }
        }
        None
    }

    /// The two sides of a crossing as the node of `c` sees them: the region's material along
    /// the node's axis, and the medium under it at the node (placed by the staircase rule);
    /// `None` when an E node has a dispersive side or either side has a full tensor (the
    /// staircase then places the node).
    fn sides(&self, c: Component, crossing: &Crossing) -> Option<(Material, Material)> {
        let axis = c.axis();
        let r = crossing.region;
        let inside = self.regions[r].material.along(axis);
        let below = Setup {
            regions: &self.regions[..r],
            ..*self
        };
        let placement = below.placement_among(crossing.position, crossing.under);
        let outside = match c.is_electric() {
            true => placement.medium(&below, axis),
            false => NodeMedium::from_sets(placement.material(&below, Some(axis)), &[]),
        };
        // Poles act on E alone: an E node by a dispersive side keeps the staircase.
        if c.is_electric() && (inside.is_dispersive() || outside.is_dispersive()) {
            return None;
        }
        // A side with a full ε or μ tensor keeps the staircase.
        if inside.coupling.is_some() || outside.material.coupling.is_some() {
            return None;
        }
        Some((inside, outside.material))
    }

    /// The diagonal effective medium of the node of `c` at a `crossing` (module docs); `None`
    /// when the two sides are alike or one is dispersive.
    fn interface(&self, c: Component, crossing: &Crossing) -> Option<NodeMedium> {
        let axis = c.axis();
        let (inside, out) = self.sides(c, crossing)?;
        let (fraction, normal) = (crossing.fraction, crossing.normal);
        let ((perm_in, loss_in), (perm_out, loss_out)) = match c.is_electric() {
            true => ((inside.eps, inside.sigma), (out.eps, out.sigma)),
            false => ((inside.mu, inside.sigma_m), (out.mu, out.sigma_m)),
        };
        if perm_in == perm_out && loss_in == loss_out {
            return None;
        }
        let f = (fraction * STEPS).round() / STEPS;
        let across = normal[axis.index()] * normal[axis.index()];
        let (effective, loss) =
            effective_medium(f, across, (perm_in, loss_in), (perm_out, loss_out));
        let perm = rounded_between(perm_out, perm_in, effective);
        let loss = rounded_on(loss_in.abs().max(loss_out.abs()), loss);
        let material = match c.is_electric() {
            true => Material {
                eps: perm,
                sigma: loss,
                ..out
            },
            false => Material {
                mu: perm,
                sigma_m: loss,
                ..out
            },
        };
        Some(NodeMedium::whole(material))
    }
}

/// The effective permittivity and conductivity (μ and σ* for H) of a node whose voxel holds
/// the fraction `f` of the side `inside` and `1 − f` of `outside` (each `(permittivity,
/// conductivity)`), with `across` the square of the normal's component along the node's axis
/// (module docs): `1/ε̃ = n²⟨1/ε⟩ + (1 − n²)/⟨ε⟩` and
/// `σ̃ = ε̃²(n²⟨σ/ε²⟩ + (1 − n²)⟨σ⟩/⟨ε⟩²)`, so that `ε̃ + iσ̃/ω` is Kottke's mean of the complex
/// `ε + iσ/ω` to first order in `σ/ωε`.
fn effective_medium(f: f64, across: f64, inside: (f64, f64), outside: (f64, f64)) -> (f64, f64) {
    let ((perm_in, loss_in), (perm_out, loss_out)) = (inside, outside);
    let mean = f * perm_in + (1.0 - f) * perm_out;
    let mean_inverse = f / perm_in + (1.0 - f) / perm_out;
    let effective = 1.0 / (across * mean_inverse + (1.0 - across) / mean);
    let mean_loss = f * loss_in + (1.0 - f) * loss_out;
    let inverse_loss =
        f * loss_in / (perm_in * perm_in) + (1.0 - f) * loss_out / (perm_out * perm_out);
    let loss = effective
        * effective
        * (across * inverse_loss + (1.0 - across) * mean_loss / (mean * mean));
    (effective, loss)
}

/// The off-diagonal entry `(a, b)` of a node's smoothed row and the loss it lacks (module
/// docs), for the fraction `f` of `inside` and `1 − f` of `outside` (each `(permittivity,
/// conductivity)`), `nn = nₐn_b` and the node's own rounded diagonal medium `node = (ε̃ₐ, σ̃ₐ)`:
/// `κₐb = nn(⟨1/ε⟩ − 1/⟨ε⟩)` and `λₐb − κₐb σ̃ₐ/ε̃ₐ`, `λₐb = nn(⟨σ/ε²⟩ − ⟨σ⟩/⟨ε⟩²)`.
fn off_diagonal_entry(
    f: f64,
    nn: f64,
    inside: (f64, f64),
    outside: (f64, f64),
    node: (f64, f64),
) -> (f64, f64) {
    let ((perm_in, loss_in), (perm_out, loss_out)) = (inside, outside);
    let mean = f * perm_in + (1.0 - f) * perm_out;
    let mean_inverse = f / perm_in + (1.0 - f) / perm_out;
    let entry = nn * (mean_inverse - 1.0 / mean);
    let mean_loss = f * loss_in + (1.0 - f) * loss_out;
    let inverse_loss =
        f * loss_in / (perm_in * perm_in) + (1.0 - f) * loss_out / (perm_out * perm_out);
    let kottke_loss = nn * (inverse_loss - mean_loss / (mean * mean));
    (entry, kottke_loss - entry * node.1 / node.0)
}

/// `value` rounded to a multiple of `scale`/[`STEPS`] (unchanged when `scale` is zero).
fn rounded_on(scale: f64, value: f64) -> f64 {
    if scale == 0.0 {
        return value;
    }
    (value / scale * STEPS).round() * scale / STEPS
}

/// `value` (between `from` and `to`) rounded to one of [`STEPS`] steps from `from` to `to`.
fn rounded_between(from: f64, to: f64, value: f64) -> f64 {
    if from == to {
        return from;
    }
    let step = ((value - from) / (to - from) * STEPS).round();
    from + (to - from) * step / STEPS
}

/// How the voxel `p ± half` (zero extent on unused axes) meets `shape`.
fn cut(shape: &Shape, p: [f64; 3], half: [f64; 3], active: [bool; 3]) -> Cut {
    match *shape {
        Shape::Everywhere => Cut::Staircase,
        Shape::Block { lo, hi } => {
            let reaches = (0..3).all(|a| p[a] + half[a] >= lo[a] && p[a] - half[a] <= hi[a]);
            if reaches {
                Cut::Staircase
            } else {
                Cut::Outside
            }
        }
        Shape::Sphere { center, radius } => round_cut(
            core::array::from_fn(|a| p[a] - center[a]),
            radius,
            half,
            active,
        ),
        Shape::Cylinder {
            center,
            radius,
            axis,
            length,
        } => {
            let ax = axis.index();
            let along = (p[ax] - center[ax]).abs();
            let mut v: [f64; 3] = core::array::from_fn(|a| p[a] - center[a]);
            v[ax] = 0.0;
            let radial = round_cut(v, radius, half, active);
            if along - half[ax] > length / 2.0 {
                Cut::Outside
            } else if along + half[ax] >= length / 2.0 && radial != Cut::Outside {
                // The voxel reaches a flat end.
                Cut::Staircase
            } else {
                radial
            }
        }
    }
}

/// How the voxel at offset `v` from the centre of a ball of `radius` (a disc on the used axes,
/// cut at the unused axes' offset) meets it.
fn round_cut(v: [f64; 3], radius: f64, half: [f64; 3], active: [bool; 3]) -> Cut {
    let off: f64 = (0..3).filter(|&a| !active[a]).map(|a| v[a] * v[a]).sum();
    let section = radius * radius - off;
    if section < 0.0 {
        return Cut::Outside;
    }
    let section = section.sqrt();
    let rho_squared: f64 = (0..3).filter(|&a| active[a]).map(|a| v[a] * v[a]).sum();
    // The voxel lies within `reach` of its node whatever the normal: most nodes are decided
    // here, without the root.
    let reach: f64 = half.iter().sum();
    if section > reach && rho_squared < (section - reach) * (section - reach) {
        return Cut::Staircase;
    }
    if rho_squared > (section + reach) * (section + reach) {
        return Cut::Outside;
    }
    let rho = rho_squared.sqrt();
    if rho == 0.0 {
        // At the centre the normal is undefined: a section wider than the voxel holds it.
        return if section > reach {
            Cut::Staircase
        } else {
            Cut::Outside
        };
    }
    let normal: [f64; 3] = core::array::from_fn(|a| if active[a] { v[a] / rho } else { 0.0 });
    let signed = rho - section;
    let fraction = fraction_below(normal, -signed, half);
    if fraction <= 0.0 {
        Cut::Outside
    } else if fraction >= 1.0 {
        Cut::Staircase
    } else {
        Cut::Across { fraction, normal }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::setup::{Boundary, Region};
    use crate::yee::Mode;
    use core::f64::consts::PI;

    /// The nodes of `c` around a lossy ball (σ and σ* alone differ, so they are the filling
    /// fraction):
    /// their fractions add up to the ball's volume (or the disc's area in 2D).
    fn filled(mode: Mode, radius: f64, c: Component) -> f64 {
        let n = 2 * (radius as usize + 3);
        let grid = match mode {
            Mode::ThreeD => [n; 3],
            _ => [n, n, 1],
        };
        let centre = n as f64 / 2.0 + 0.3;
        let regions = [Region {
            shape: Shape::Sphere {
                center: [
                    centre,
                    centre - 0.2,
                    0.0 + if mode == Mode::ThreeD { centre } else { 0.0 },
                ],
                radius,
            },
            material: Material {
                sigma: 1.0,
                sigma_m: 1.0,
                ..Material::VACUUM
            },
        }];
        let setup = Setup {
            regions: &regions,
            ..Setup::vacuum(mode, grid, 0.5, [[Boundary::Pec; 2]; 3])
        };
        let mut sum = 0.0;
        for z in 0..grid[2] as i64 {
            for y in 0..grid[1] as i64 {
                for x in 0..grid[0] as i64 {
                    let m = setup.node_medium(c, [x, y, z]).material;
                    sum += if c.is_electric() { m.sigma } else { m.sigma_m };
                }
            }
        }
        sum
    }

    /// A lossy node holds Kottke's mean of the complex `ε + iσ/ω`, evaluated here in complex
    /// arithmetic, to first order in the loss: halving every σ quarters the mismatch, at every
    /// fraction and normal, where the volume average of σ only halved it.
    #[test]
    fn lossy_nodes_hold_the_complex_mean_to_second_order_in_the_loss() {
        use alloc::format;
        use num_complex::Complex64;
        let w = 2.0 * PI * 0.02;
        let pairs = [
            ((2.25, 0.02), (1.0, 0.0)),
            ((1.0, 0.01), (4.0, 0.03)),
            ((2.0, 0.02), (2.0, 0.0)),
            ((3.0, 0.02), (1.5, 0.02)),
        ];
        for (inside, outside) in pairs {
            for f in [0.1, 0.5, 0.83] {
                for across in [0.0, 0.3, 1.0] {
                    let mismatch = |scale: f64| {
                        let side = |(e, s): (f64, f64)| Complex64::new(e, scale * s / w);
                        let (a, b) = (side(inside), side(outside));
                        let mean = a * f + b * (1.0 - f);
                        let mean_inverse = f / a + (1.0 - f) / b;
                        let kottke = 1.0 / (mean_inverse * across + (1.0 - across) / mean);
                        let scaled = |(e, s): (f64, f64)| (e, scale * s);
                        let (eps, sigma) =
                            effective_medium(f, across, scaled(inside), scaled(outside));
                        (Complex64::new(eps, sigma / w) - kottke).norm() / kottke.norm()
                    };
                    let (coarse, fine) = (mismatch(1.0), mismatch(0.5));
                    let at = format!("{inside:?} | {outside:?}, f = {f}, n² = {across}");
                    assert!(coarse < 2e-3, "{at}: mismatch {coarse}");
                    assert!(
                        fine <= coarse / 3.9 + 1e-15,
                        "{at}: {coarse} → {fine} is not second order in σ"
                    );
                }
            }
        }
    }

    /// Poles act on E alone (module docs): beside a dispersive side the E nodes keep the
    /// staircase, with neither a smoothed medium nor off-diagonal entries, while the H nodes
    /// still smooth μ; the same sphere without its pole smooths both.
    #[test]
    fn e_nodes_beside_a_dispersive_side_keep_the_staircase() {
        use crate::material::PoleSet;
        use crate::pole::Pole;
        let poles = [Pole::Lorentz {
            frequency: 0.05,
            gamma: 0.01,
            sigma: 1.0,
        }];
        let smoothed = |poles_of_sphere: PoleSet| {
            let regions = [Region {
                shape: Shape::Sphere {
                    center: [8.3, 8.1, 7.7],
                    radius: 4.6,
                },
                material: Material {
                    mu: 2.0,
                    poles: poles_of_sphere,
                    ..Material::dielectric(3.0)
                },
            }];
            let setup = Setup {
                poles: &poles,
                regions: &regions,
                ..Setup::vacuum(Mode::ThreeD, [17, 17, 16], 0.5, [[Boundary::Pec; 2]; 3])
            };
            // [E media, E off-diagonal rows, H media]
            let mut counts = [0; 3];
            for c in Component::ALL {
                for n in 0..setup.cells() {
                    let cell = Box3::from_extent(setup.grid).index_at(n);
                    let medium = setup.smoothed_medium(c, cell).is_some();
                    let off = setup.smoothed_off_diagonal(c, cell).is_some();
                    match c.is_electric() {
                        true => {
                            counts[0] += usize::from(medium);
                            counts[1] += usize::from(off);
                        }
                        false => counts[2] += usize::from(medium),
                    }
                }
            }
            counts
        };
        let dispersive = smoothed(PoleSet { first: 0, count: 1 });
        let plain = smoothed(PoleSet::NONE);
        assert!(
            plain[0] > 100 && plain[1] > 100 && plain[2] > 100,
            "{plain:?}"
        );
        assert_eq!(dispersive, [0, 0, plain[2]], "plain sphere {plain:?}");
    }

    /// The tangent plane overestimates a convex voxel's share by its sagitta, about
    /// `h²/12R` over the surface: a relative volume error near `1/4R²` in 3D (`1/12R²` for a
    /// disc), second order in the cell size.
    #[test]
    fn filling_fractions_add_up_to_the_volume_at_second_order() {
        let error = |mode: Mode, r: f64, c: Component| {
            let exact = match mode {
                Mode::ThreeD => 4.0 / 3.0 * PI * r.powi(3),
                _ => PI * r * r,
            };
            filled(mode, r, c) / exact - 1.0
        };
        for (mode, c) in [
            (Mode::ThreeD, Component::Ex),
            (Mode::ThreeD, Component::Hz),
            (Mode::Tmz, Component::Ez),
            (Mode::Tez, Component::Ex),
        ] {
            let (coarse, fine) = (error(mode, 4.3, c), error(mode, 8.6, c));
            assert!(coarse.abs() < 0.5 / (4.3 * 4.3), "{mode:?} {c:?}: {coarse}");
            assert!(
                fine.abs() < coarse.abs() / 3.0,
                "{mode:?} {c:?}: {coarse} → {fine} is not second order"
            );
        }
    }

    /// Kottke's full effective tensor at every node of a sphere's surface, built here as a
    /// matrix, `ε̃ = ⟨ε⁻¹⟩⁻¹P + ⟨ε⟩(1 − P)` with `P = nnᵀ` (the normal and the signed distance
    /// of the tangent plane taken from the node's offset to the centre) and inverted: each
    /// node's diagonal entry is `1/ε` of its smoothed medium and its off-diagonal entries are
    /// [`Setup::smoothed_off_diagonal`]'s, up to the rounding of the fraction; a normal along
    /// an axis of the pair gives none, nor does the diagonal rule or a node by a CPML layer.
    #[test]
    fn off_diagonal_entries_invert_kottkes_full_tensor() {
        use crate::cpml::CpmlParams;
        use crate::tensor::{Matrix3, inverse};
        let (eps_in, radius, centre) = (3.0, 4.6, [8.3, 8.1, 7.7]);
        let regions = [Region {
            shape: Shape::Sphere {
                center: centre,
                radius,
            },
            material: Material::dielectric(eps_in),
        }];
        let mut boundaries = [[Boundary::Pec; 2]; 3];
        boundaries[2][0] = Boundary::Cpml(CpmlParams::with_thickness(2));
        let setup = Setup {
            regions: &regions,
            ..Setup::vacuum(Mode::ThreeD, [17, 17, 16], 0.5, boundaries)
        };
        assert!(setup.has_tensor_nodes());
        let (mut coupled, mut by_cpml, mut along_axes) = (0, 0, 0);
        let mut some_node = None;
        for c in [Component::Ex, Component::Ey, Component::Ez] {
            let a = c.axis().index();
            for n in 0..setup.cells() {
                let cell = Box3::from_extent(setup.grid).index_at(n);
                let off = setup.smoothed_off_diagonal(c, cell);
                let Some(medium) = setup.smoothed_medium(c, cell) else {
                    assert_eq!(off, None, "{c:?} {cell:?}: off-diagonal entries, no medium");
                    continue;
                };
                let p = c.position(cell);
                let v: [f64; 3] = core::array::from_fn(|k| p[k] - centre[k]);
                let rho = v.iter().map(|x| x * x).sum::<f64>().sqrt();
                let normal = v.map(|x| x / rho);
                let f = fraction_below(normal, radius - rho, [0.5; 3]);
                let mean = f * eps_in + (1.0 - f);
                let harmonic = 1.0 / (f / eps_in + (1.0 - f));
                let kottke: Matrix3 = core::array::from_fn(|i| {
                    core::array::from_fn(|j| {
                        let nn = normal[i] * normal[j];
                        let delta = f64::from(u8::from(i == j));
                        harmonic * nn + mean * (delta - nn)
                    })
                });
                let inv = inverse(&kottke);
                let tolerance = 1e-3;
                let diagonal = 1.0 / medium.material.eps;
                assert!(
                    (diagonal - inv[a][a]).abs() < tolerance,
                    "{c:?} {cell:?}: 1/ε {diagonal} against {}",
                    inv[a][a]
                );
                let others = [(a + 1) % 3, (a + 2) % 3];
                let others = [others[0].min(others[1]), others[0].max(others[1])];
                let near_cpml = cell[2] < 2 + 2;
                match off {
                    Some(row) => {
                        coupled += 1;
                        some_node = Some((c, cell));
                        for (k, &b) in others.iter().enumerate() {
                            assert!(
                                (row.entries[k] - inv[a][b]).abs() < tolerance,
                                "{c:?} {cell:?}: κ{a}{b} {} against {}",
                                row.entries[k],
                                inv[a][b]
                            );
                            assert_eq!(row.loss[k], 0.0, "{c:?} {cell:?}: lossless sides");
                        }
                    }
                    None if near_cpml => by_cpml += 1,
                    None => {
                        along_axes += 1;
                        assert!(
                            others.iter().all(|&b| normal[a] * normal[b] == 0.0),
                            "{c:?} {cell:?}: no entries for normal {normal:?}"
                        );
                    }
                }
            }
        }
        assert!(
            coupled > 500 && by_cpml > 10,
            "{coupled} {by_cpml} {along_axes}"
        );
        // The list the backends take holds exactly these nodes, each once.
        let whole = Box3::from_extent(setup.grid);
        for c in [Component::Ex, Component::Ey, Component::Ez] {
            let mut listed = setup.smoothed_off_diagonals(c, whole);
            listed.sort_by_key(|&(cell, _)| (cell[2], cell[1], cell[0]));
            let expected: Vec<(Index3, OffDiagonal)> = (0..setup.cells())
                .map(|n| whole.index_at(n))
                .filter_map(|cell| Some((cell, setup.smoothed_off_diagonal(c, cell)?)))
                .collect();
            assert_eq!(listed, expected, "{c:?}");
        }
        let diagonal = Setup {
            smoothing_tensor: false,
            ..setup
        };
        assert!(!diagonal.has_tensor_nodes());
        let (c, cell) = some_node.unwrap();
        assert_eq!(diagonal.smoothed_off_diagonal(c, cell), None);
        assert_eq!(
            diagonal.smoothed_medium(c, cell),
            setup.smoothed_medium(c, cell)
        );
    }

    /// The loss of a lossy sphere's surface rows against Kottke's complex tensor: with
    /// `ε_c = ε + iσ/ω` on each side (a loss tangent of 10⁻³), `ε̃_c = ⟨ε_c⁻¹⟩⁻¹P + ⟨ε_c⟩(1 − P)`
    /// inverted in complex arithmetic. The update's row is `κₐb(1 − iσ̃ₐ/ωε̃ₐ) − iμₐb/ω`
    /// (the node's own loss on the real entry, and [`OffDiagonal::loss`]), so
    /// `−ω Im (ε̃_c⁻¹)ₐb = κₐb σ̃ₐ/ε̃ₐ + μₐb` to first order in the loss tangent.
    #[test]
    fn off_diagonal_loss_inverts_kottkes_complex_tensor() {
        use num_complex::Complex64 as C;
        let (eps_in, sigma, radius, centre) = (2.25, 0.02, 5.3, [8.3, 8.1, 7.7]);
        let omega = sigma / (1e-3 * eps_in);
        let regions = [Region {
            shape: Shape::Sphere {
                center: centre,
                radius,
            },
            material: Material {
                sigma,
                ..Material::dielectric(eps_in)
            },
        }];
        let setup = Setup {
            regions: &regions,
            ..Setup::vacuum(Mode::ThreeD, [17, 17, 16], 0.5, [[Boundary::Pec; 2]; 3])
        };
        let inverse = |m: [[C; 3]; 3]| -> [[C; 3]; 3] {
            let cof = |i: usize, j: usize| {
                let (r0, r1) = ((i + 1) % 3, (i + 2) % 3);
                let (c0, c1) = ((j + 1) % 3, (j + 2) % 3);
                m[r0][c0] * m[r1][c1] - m[r0][c1] * m[r1][c0]
            };
            let det = (0..3).map(|j| m[0][j] * cof(0, j)).sum::<C>();
            core::array::from_fn(|i| core::array::from_fn(|j| cof(j, i) / det))
        };
        let (mut lossy, mut largest) = (0, 0.0f64);
        for c in [Component::Ex, Component::Ey, Component::Ez] {
            let a = c.axis().index();
            for n in 0..setup.cells() {
                let cell = Box3::from_extent(setup.grid).index_at(n);
                let Some(row) = setup.smoothed_off_diagonal(c, cell) else {
                    continue;
                };
                let node = setup.smoothed_medium(c, cell).unwrap().material;
                let p = c.position(cell);
                let v: [f64; 3] = core::array::from_fn(|k| p[k] - centre[k]);
                let rho = v.iter().map(|x| x * x).sum::<f64>().sqrt();
                let normal = v.map(|x| x / rho);
                let f = fraction_below(normal, radius - rho, [0.5; 3]);
                let inside = C::new(eps_in, sigma / omega);
                let mean = inside * f + (1.0 - f);
                let harmonic = 1.0 / (inside.inv() * f + (1.0 - f));
                let kottke: [[C; 3]; 3] = core::array::from_fn(|i| {
                    core::array::from_fn(|j| {
                        let nn = normal[i] * normal[j];
                        let delta = f64::from(u8::from(i == j));
                        harmonic * nn + mean * (delta - nn)
                    })
                });
                let inv = inverse(kottke);
                let others = [(a + 1) % 3, (a + 2) % 3];
                let others = [others[0].min(others[1]), others[0].max(others[1])];
                for (k, &b) in others.iter().enumerate() {
                    let exact = -omega * inv[a][b].im;
                    let update = row.entries[k] * node.sigma / node.eps + row.loss[k];
                    assert!(
                        (update - exact).abs() < 2e-3 * sigma,
                        "{c:?} {cell:?}: loss of κ{a}{b} {update} against {exact}"
                    );
                    largest = largest.max(row.loss[k].abs());
                }
                lossy += 1;
            }
        }
        // The loss the real entries lack is not small: 5 % of σ and more at some nodes.
        assert!(lossy > 300 && largest > 0.05 * sigma, "{lossy} {largest}");
    }
}
