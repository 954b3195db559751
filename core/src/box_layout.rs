//! Layouts beyond the tensor grid (needs the `alloc` feature): each rank still owns one box,
//! but the borders need not run through the whole grid.
//!
//! - [`jagged_layout`]: slabs of the first axis sized by the summed speeds of the ranks in each
//!   slab, each slab split independently along the second axis by the speeds of its columns,
//!   each column along the third by its ranks' own speeds.
//! - [`kd_layout`]: weighted recursive bisection (a k-d tree of boxes): the rank set is split
//!   into two halves and the box cut across its longest axis (the highest on a tie) at the cell plane where the
//!   halves' speed sums divide the cost.
//!
//! Every cut inverts the cumulative cost along the cut axis ([`ideal_borders`], Franek 2016,
//! §2.1) with the slices' costs of the box being cut ([`CostDensity`]), then rounds it with
//! Balykov 2019's δ algorithm ([`round_borders`]), keeping every rank of positive speed at least
//! the minimum width on each active axis. A rank of speed 0 is disabled: it gets an empty box.
//! Two boxes are neighbours when they share part of a face ([`face_contact`]); a rank's halo
//! from a neighbour is the part of the neighbour's box within the stencil's reach of its own
//! ([`halo_layers`]), so a face may touch any number of neighbours.

use alloc::vec;
use alloc::vec::Vec;
use core::fmt;

use crate::driver::shell_and_interior;
use crate::geometry::Box3;
use crate::partition::{PartitionError, ideal_borders, round_borders};
use crate::tile_driver::{Ownership, PeerLayers, Regions};
use crate::topology::Topology;

/// The cost of the one-cell slices of a box across one axis: the load density a cut inverts.
pub trait CostDensity {
    /// Writes the work of each one-cell slice of `region` across `axis`, in order from
    /// `region.lo[axis]`, into `out` (`out.len()` is the region's extent along `axis`).
    fn slices(&self, region: Box3, axis: usize, out: &mut [f64]);
}

impl<F: Fn(Box3, usize, &mut [f64])> CostDensity for F {
    fn slices(&self, region: Box3, axis: usize, out: &mut [f64]) {
        self(region, axis, out);
    }
}

/// The whole grid's per-axis densities (what the tensor balancer integrates) used for every
/// box: the slices of a box across axis `a` cost `density[a][lo..hi]`. Exact when the cost is
/// a product of per-axis factors (a uniform grid; per-axis CPML weights).
#[derive(Clone, Copy, Debug)]
pub struct AxisDensities<'a>(pub [&'a [f64]; 3]);

impl CostDensity for AxisDensities<'_> {
    fn slices(&self, region: Box3, axis: usize, out: &mut [f64]) {
        let d = self.0[axis];
        for (i, o) in out.iter_mut().enumerate() {
            *o = usize::try_from(region.lo[axis] + i as i64)
                .ok()
                .and_then(|k| d.get(k))
                .copied()
                .unwrap_or(1.0);
        }
    }
}

/// Why a box layout cannot be built.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LayoutError {
    /// A speed is negative or not finite.
    BadSpeed {
        /// The rank.
        rank: usize,
    },
    /// Every speed is 0: nobody computes.
    NoEnabledRank,
    /// An output or input slice has the wrong length.
    WrongLength {
        /// Entries needed.
        expected: usize,
        /// Entries given.
        got: usize,
    },
    /// The grid is empty, or an axis the grid does not use is split.
    BadGrid,
    /// A box cannot give every enabled rank of it the minimum width on each active axis.
    TooManyRanks {
        /// Enabled ranks that had to share the box.
        ranks: usize,
        /// The box.
        region: Box3,
        /// The minimum width.
        min_width: usize,
    },
    /// Rounding a cut failed.
    Partition(PartitionError),
}

impl fmt::Display for LayoutError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            LayoutError::BadSpeed { rank } => {
                write!(f, "the speed of rank {rank} is negative or not finite")
            }
            LayoutError::NoEnabledRank => write!(f, "every rank has speed 0"),
            LayoutError::WrongLength { expected, got } => {
                write!(f, "{got} entries where {expected} are needed")
            }
            LayoutError::BadGrid => write!(
                f,
                "the grid is empty or an axis it does not use has more than one rank"
            ),
            LayoutError::TooManyRanks {
                ranks,
                region,
                min_width,
            } => write!(
                f,
                "the box {:?}..{:?} cannot hold {ranks} ranks at least {min_width} cells wide",
                region.lo, region.hi
            ),
            LayoutError::Partition(e) => write!(f, "{e}"),
        }
    }
}

impl core::error::Error for LayoutError {}

impl From<PartitionError> for LayoutError {
    fn from(e: PartitionError) -> Self {
        LayoutError::Partition(e)
    }
}

/// The speed of a rank as a weight: 0 disables it; negative or non-finite is an error.
fn checked_speeds(speeds: &[f64]) -> Result<(), LayoutError> {
    if let Some(rank) = speeds.iter().position(|s| !(s.is_finite() && *s >= 0.0)) {
        return Err(LayoutError::BadSpeed { rank });
    }
    if speeds.iter().all(|&s| s == 0.0) {
        return Err(LayoutError::NoEnabledRank);
    }
    Ok(())
}

/// Cuts `region` across `axis` into `weights.len()` segments whose costs are in proportion to
/// `weights` (eq. (8) of Balykov 2019 over the slices' costs), δ-rounded, segment `s` at least
/// `required[s]` cells wide and exactly 0 wide where its weight is 0. Writes the absolute
/// borders (`weights.len() + 1`, from `region.lo[axis]` to `region.hi[axis]`) into `out`.
fn cut(
    density: &impl CostDensity,
    region: Box3,
    axis: usize,
    weights: &[f64],
    required: &[i64],
    out: &mut [i64],
) -> Result<(), LayoutError> {
    let n = weights.len();
    let extent = region.extent()[axis];
    if required.iter().sum::<i64>() > extent as i64 {
        return Err(LayoutError::TooManyRanks {
            ranks: required.iter().filter(|&&r| r > 0).count(),
            region,
            min_width: 0,
        });
    }
    let mut slices = vec![0.0; extent];
    density.slices(region, axis, &mut slices);
    let mut ideal = vec![0.0; n + 1];
    ideal_borders(&slices, weights, &mut ideal)?;
    round_borders(&ideal, 1, out)?;
    // Each border within reach of the widths required before and after it, then no segment
    // narrower than required; a disabled segment is empty.
    let total = extent as i64;
    let mut before = 0i64;
    for s in 0..n {
        before += required[s];
        let after: i64 = required[s + 1..].iter().sum();
        out[s + 1] = out[s + 1].clamp(before, total - after);
    }
    for s in 0..n {
        out[s + 1] = if weights[s] > 0.0 {
            out[s + 1].max(out[s] + required[s])
        } else {
            out[s]
        };
    }
    out[n] = total;
    for b in out.iter_mut() {
        *b += region.lo[axis];
    }
    Ok(())
}

/// The empty box at the low corner of `region`: what a disabled rank owns.
fn empty_at(region: Box3) -> Box3 {
    Box3::new(region.lo, region.lo)
}

/// A jagged layout of `grid` (Balykov 2019's eq. (8) per slab): ranks are numbered x fastest
/// over `topology` as in a tensor layout; the first axis is cut into `topology.0[0]` slabs
/// weighted by the summed `speeds` of their ranks, each slab independently into
/// `topology.0[1]` columns along the second axis, each column into `topology.0[2]` boxes along
/// the third. Cuts follow `density` within the box being cut. Writes one box per rank into
/// `out`; a rank of speed 0 gets an empty box, every other at least `min_width` cells on each
/// axis `active` marks (1 on the others).
pub fn jagged_layout(
    grid: [usize; 3],
    active: [bool; 3],
    topology: Topology,
    speeds: &[f64],
    density: &impl CostDensity,
    min_width: usize,
    out: &mut [Box3],
) -> Result<(), LayoutError> {
    let ranks = topology.ranks();
    for len in [speeds.len(), out.len()] {
        if len != ranks {
            return Err(LayoutError::WrongLength {
                expected: ranks,
                got: len,
            });
        }
    }
    check_grid(grid, active, topology.0)?;
    checked_speeds(speeds)?;
    let [nx, ny, nz] = topology.0;
    let speed = |i: usize, j: usize, k: usize| speeds[i + nx * (j + ny * k)];
    let width = |a: usize| {
        if active[a] {
            min_width.max(1) as i64
        } else {
            1
        }
    };
    let whole = Box3::from_extent(grid);
    let too_many = |region: Box3, ranks: usize, a: usize| LayoutError::TooManyRanks {
        ranks,
        region,
        min_width: width(a) as usize,
    };
    // Slabs of x.
    let slab_w: Vec<f64> = (0..nx)
        .map(|i| (0..ny * nz).map(|jk| speed(i, jk % ny, jk / ny)).sum())
        .collect();
    let required: Vec<i64> = slab_w
        .iter()
        .map(|&w| i64::from(w > 0.0) * width(0))
        .collect();
    let mut xb = vec![0i64; nx + 1];
    cut(density, whole, 0, &slab_w, &required, &mut xb).map_err(|e| {
        widen(
            e,
            too_many(whole, slab_w.iter().filter(|&&w| w > 0.0).count(), 0),
        )
    })?;
    let mut yb = vec![0i64; ny + 1];
    let mut zb = vec![0i64; nz + 1];
    for i in 0..nx {
        let slab = Box3::new([xb[i], 0, 0], [xb[i + 1], grid[1] as i64, grid[2] as i64]);
        if slab_w[i] == 0.0 {
            for jk in 0..ny * nz {
                out[i + nx * jk] = empty_at(slab);
            }
            continue;
        }
        let col_w: Vec<f64> = (0..ny)
            .map(|j| (0..nz).map(|k| speed(i, j, k)).sum())
            .collect();
        let required: Vec<i64> = col_w
            .iter()
            .map(|&w| i64::from(w > 0.0) * width(1))
            .collect();
        let enabled = col_w.iter().filter(|&&w| w > 0.0).count();
        cut(density, slab, 1, &col_w, &required, &mut yb)
            .map_err(|e| widen(e, too_many(slab, enabled, 1)))?;
        for j in 0..ny {
            let column = Box3::new([xb[i], yb[j], 0], [xb[i + 1], yb[j + 1], grid[2] as i64]);
            if col_w[j] == 0.0 {
                for k in 0..nz {
                    out[i + nx * (j + ny * k)] = empty_at(column);
                }
                continue;
            }
            let own: Vec<f64> = (0..nz).map(|k| speed(i, j, k)).collect();
            let required: Vec<i64> = own.iter().map(|&w| i64::from(w > 0.0) * width(2)).collect();
            let enabled = own.iter().filter(|&&w| w > 0.0).count();
            cut(density, column, 2, &own, &required, &mut zb)
                .map_err(|e| widen(e, too_many(column, enabled, 2)))?;
            for k in 0..nz {
                let b = Box3::new([xb[i], yb[j], zb[k]], [xb[i + 1], yb[j + 1], zb[k + 1]]);
                out[i + nx * (j + ny * k)] = if own[k] > 0.0 { b } else { empty_at(b) };
            }
        }
    }
    Ok(())
}

/// A `TooManyRanks` from [`cut`] told in the caller's terms.
fn widen(e: LayoutError, instead: LayoutError) -> LayoutError {
    match e {
        LayoutError::TooManyRanks { .. } => instead,
        other => other,
    }
}

/// Rejects an empty grid and splits of an axis the grid does not use.
fn check_grid(grid: [usize; 3], active: [bool; 3], parts: [usize; 3]) -> Result<(), LayoutError> {
    if grid.contains(&0) || (0..3).any(|a| !active[a] && parts[a] > 1) {
        return Err(LayoutError::BadGrid);
    }
    Ok(())
}

/// A weighted recursive bisection of `grid` over `speeds.len()` ranks (a k-d tree of boxes):
/// the enabled ranks (speed > 0) of a box, in rank order, are halved (the first half gets the
/// extra rank of an odd count), and the box is cut across its longest active axis (the next
/// longest when that one cannot hold both halves at `min_width`) at the cell plane where the
/// cost on either side is in proportion to the halves' summed speeds; recursively down to one
/// rank per box. Writes one box per rank into `out`; a rank of speed 0 gets an empty box.
pub fn kd_layout(
    grid: [usize; 3],
    active: [bool; 3],
    speeds: &[f64],
    density: &impl CostDensity,
    min_width: usize,
    out: &mut [Box3],
) -> Result<(), LayoutError> {
    if out.len() != speeds.len() {
        return Err(LayoutError::WrongLength {
            expected: speeds.len(),
            got: out.len(),
        });
    }
    check_grid(grid, active, [1; 3])?;
    checked_speeds(speeds)?;
    let whole = Box3::from_extent(grid);
    for b in out.iter_mut() {
        *b = empty_at(whole);
    }
    let enabled: Vec<usize> = (0..speeds.len()).filter(|&r| speeds[r] > 0.0).collect();
    let width = |a: usize| if active[a] { min_width.max(1) } else { 1 };
    bisect(whole, &enabled, speeds, density, active, width, out)
}

/// Boxes of `region` of `width(a)` cells on each axis: how many ranks it can hold.
fn capacity(region: Box3, width: impl Fn(usize) -> usize) -> usize {
    let e = region.extent();
    (0..3).map(|a| e[a] / width(a)).product()
}

fn bisect(
    region: Box3,
    ranks: &[usize],
    speeds: &[f64],
    density: &impl CostDensity,
    active: [bool; 3],
    width: impl Fn(usize) -> usize + Copy,
    out: &mut [Box3],
) -> Result<(), LayoutError> {
    let too_many = LayoutError::TooManyRanks {
        ranks: ranks.len(),
        region,
        min_width: (0..3).map(width).max().unwrap_or(1),
    };
    if ranks.len() == 1 {
        if capacity(region, width) == 0 {
            return Err(too_many);
        }
        out[ranks[0]] = region;
        return Ok(());
    }
    let (left, right) = ranks.split_at(ranks.len().div_ceil(2));
    let sum = |g: &[usize]| g.iter().map(|&r| speeds[r]).sum::<f64>();
    let weights = [sum(left), sum(right)];
    let e = region.extent();
    // Active axes, longest first; on a tie the higher axis, as `choose_topology` cuts: x is
    // the fastest index, so a cut across z keeps every box's rows whole and its halos
    // contiguous (a 2-rank 128³ shm run cut across x ran 1.4× slower than across z).
    let mut axes: heapless::Vec<usize, 3> = (0..3).filter(|&a| active[a]).collect();
    axes.sort_by(|&a, &b| e[b].cmp(&e[a]).then(b.cmp(&a)));
    for &a in &axes {
        // The rest of the box holds `across` ranks per `width(a)`-thick layer.
        let across: usize = (0..3)
            .filter(|&b| b != a)
            .map(|b| e[b] / width(b))
            .product();
        if across == 0 {
            continue;
        }
        let need = |g: &[usize]| (g.len().div_ceil(across) * width(a)) as i64;
        let required = [need(left), need(right)];
        if required[0] + required[1] > e[a] as i64 {
            continue;
        }
        let mut b = [0i64; 3];
        cut(density, region, a, &weights, &required, &mut b)?;
        let low = region.with_bound(
            crate::geometry::Axis::from_index(a),
            crate::Side::High,
            b[1],
        );
        let high = region.with_bound(crate::geometry::Axis::from_index(a), crate::Side::Low, b[1]);
        bisect(low, left, speeds, density, active, width, out)?;
        return bisect(high, right, speeds, density, active, width, out);
    }
    Err(too_many)
}

/// Where box `a` meets box `b` across a face: `Some((axis, true))` when `b` lies on `a`'s high
/// side along `axis`, `Some((axis, false))` on its low side; `None` when they share no part of
/// a face (empty boxes share none; along an axis the grid does not use, boxes only overlap).
pub fn face_contact(a: &Box3, b: &Box3, active: [bool; 3]) -> Option<(usize, bool)> {
    if a.is_empty() || b.is_empty() {
        return None;
    }
    (0..3).filter(|&k| active[k]).find_map(|k| {
        let high = a.hi[k] == b.lo[k];
        let low = a.lo[k] == b.hi[k];
        let overlap = (0..3)
            .filter(|&o| o != k)
            .all(|o| a.lo[o].max(b.lo[o]) < a.hi[o].min(b.hi[o]));
        (overlap && (high || low)).then_some((k, high))
    })
}

/// The layers of `from` that the stencil of `to` reads: for each active axis, `from`'s cells
/// within `ghost[axis]` of `to` along that axis (the Yee stencils reach only along the axes).
/// Empty unless the two boxes share part of a face. Sent by `from` and unpacked by `to` into
/// the same global boxes, in this order (x, y, z).
pub fn halo_layers(from: &Box3, to: &Box3, ghost: [usize; 3]) -> heapless::Vec<Box3, 3> {
    let mut layers = heapless::Vec::new();
    if from.is_empty() || to.is_empty() {
        return layers;
    }
    for a in 0..3 {
        if ghost[a] == 0 {
            continue;
        }
        let mut by = [0i64; 3];
        by[a] = ghost[a] as i64;
        let layer = from.intersect(&to.grow(by));
        if !layer.is_empty() {
            // At most one per axis: the capacity of 3 holds them.
            let _ = layers.push(layer);
        }
    }
    layers
}

/// One box per rank (a tensor, jagged or k-d layout) as an [`Ownership`]: what the
/// [`crate::tile_driver::TileDriver`] steps when a rank's faces may touch several neighbours.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BoxLayout {
    /// Grid extent in cells.
    pub grid: [usize; 3],
    /// The box of each rank (empty: a disabled rank).
    pub boxes: Vec<Box3>,
}

impl Ownership for BoxLayout {
    fn ranks(&self) -> usize {
        self.boxes.len()
    }

    fn grid(&self) -> [usize; 3] {
        self.grid
    }

    fn chunk_box(&self, rank: usize, ghost: [usize; 3]) -> Box3 {
        let b = self.boxes[rank];
        if b.is_empty() {
            return b;
        }
        b.grow(ghost.map(|g| g as i64))
            .intersect(&Box3::from_extent(self.grid))
    }

    fn owned(&self, rank: usize) -> Vec<Box3> {
        let b = self.boxes[rank];
        if b.is_empty() { Vec::new() } else { vec![b] }
    }

    /// The shell of the rank's box on every side that touches a neighbour is its border
    /// (updated first), the rest its interior ([`shell_and_interior`]); each neighbour's
    /// layers are [`halo_layers`] both ways.
    fn regions(&self, rank: usize, ghost: [usize; 3]) -> Regions {
        let me = self.boxes[rank];
        let mut regions = Regions::default();
        if me.is_empty() {
            return regions;
        }
        let active = ghost.map(|g| g > 0);
        let mut sides = [[false; 2]; 3];
        for (peer, other) in self.boxes.iter().enumerate() {
            if peer == rank {
                continue;
            }
            if let Some((a, high)) = face_contact(&me, other, active) {
                sides[a][usize::from(high)] = true;
            }
            let send: Vec<Box3> = halo_layers(&me, other, ghost).into_iter().collect();
            let receive: Vec<Box3> = halo_layers(other, &me, ghost).into_iter().collect();
            if !(send.is_empty() && receive.is_empty()) {
                regions.peers.push(PeerLayers {
                    peer,
                    send,
                    receive,
                });
            }
        }
        let (shell, interior) = shell_and_interior(me, ghost, sides);
        regions.border.extend(shell);
        if !interior.is_empty() {
            regions.inner.push(interior);
        }
        regions
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verify::verify_box_layout;

    fn uniform(_: Box3, _: usize, out: &mut [f64]) {
        out.fill(1.0);
    }

    /// The slowest rank's cells ÷ speed over the ideal (all cells ÷ Σ speeds).
    fn slowest_over_ideal(boxes: &[Box3], speeds: &[f64], cells: usize) -> f64 {
        let ideal = cells as f64 / speeds.iter().sum::<f64>();
        boxes
            .iter()
            .zip(speeds)
            .filter(|(_, s)| **s > 0.0)
            .map(|(b, s)| b.cells() as f64 / s / ideal)
            .fold(0.0, f64::max)
    }

    const ONE_SLOW: [f64; 8] = [1.0, 1.0, 1.0, 0.2, 1.0, 1.0, 1.0, 1.0];

    #[test]
    fn kd_reaches_the_ideal_with_one_slow_rank_of_eight() {
        // 64³ on 8 ranks, rank 3 at a fifth of the others' speed. By hand (ties cut the
        // higher axis): z cut at 64·3.2/7.2 = 28.4 → 28; {0, 1} | {2, 3} along y (x and y tie
        // at 64) at 64·2/3.2 = 40; rank 2 | rank 3 along x (now the longest) at 64/1.2 = 53.3
        // → 53: rank 3 holds 11·24·28 = 7392 cells, ideal 7282.
        let mut boxes = [Box3::new([0; 3], [0; 3]); 8];
        kd_layout([64; 3], [true; 3], &ONE_SLOW, &uniform, 1, &mut boxes).unwrap();
        assert_eq!(boxes[3], Box3::new([53, 40, 0], [64, 64, 28]));
        verify_box_layout([64; 3], [true; 3], &ONE_SLOW, &boxes).unwrap();
        let r = slowest_over_ideal(&boxes, &ONE_SLOW, 64 * 64 * 64);
        assert!(r < 1.03, "{r}");
    }

    #[test]
    fn jagged_reaches_the_ideal_with_one_slow_rank_of_eight() {
        // Slab x = 0 holds ranks 0, 1, 2, 3 (3.2 of 7.2): 28 cells; its column j = 1 (ranks
        // 2, 3: 1.2 of 3.2) 24 cells of y; rank 3 the top 64/1.2·0.2 = 10.67 → 11 cells of z.
        let mut boxes = [Box3::new([0; 3], [0; 3]); 8];
        jagged_layout(
            [64; 3],
            [true; 3],
            Topology([2, 2, 2]),
            &ONE_SLOW,
            &uniform,
            1,
            &mut boxes,
        )
        .unwrap();
        verify_box_layout([64; 3], [true; 3], &ONE_SLOW, &boxes).unwrap();
        let r = slowest_over_ideal(&boxes, &ONE_SLOW, 64 * 64 * 64);
        assert!(r < 1.05, "{r}: {boxes:?}");
    }

    #[test]
    fn cuts_follow_the_cost_of_the_box_being_cut() {
        // 1D-like: the last 10 of 40 x slices cost 3 each, the rest 1: total 60, two equal
        // ranks cut where the cost reaches 30, at x = 30.
        let density = |r: Box3, a: usize, out: &mut [f64]| {
            for (i, o) in out.iter_mut().enumerate() {
                *o = if a == 0 && r.lo[0] + i as i64 >= 30 {
                    3.0
                } else {
                    1.0
                };
            }
        };
        let mut boxes = [Box3::new([0; 3], [0; 3]); 2];
        kd_layout([40, 4, 4], [true; 3], &[1.0, 1.0], &density, 1, &mut boxes).unwrap();
        assert_eq!(boxes[0], Box3::new([0, 0, 0], [30, 4, 4]));
    }

    #[test]
    fn a_rank_of_speed_zero_gets_an_empty_box_and_no_neighbour() {
        let speeds = [1.0, 0.0, 1.0, 1.0];
        let mut boxes = [Box3::new([0; 3], [0; 3]); 4];
        kd_layout(
            [8, 8, 1],
            [true, true, false],
            &speeds,
            &uniform,
            1,
            &mut boxes,
        )
        .unwrap();
        assert!(boxes[1].is_empty());
        verify_box_layout([8, 8, 1], [true, true, false], &speeds, &boxes).unwrap();
        jagged_layout(
            [8, 8, 1],
            [true, true, false],
            Topology([2, 2, 1]),
            &speeds,
            &uniform,
            1,
            &mut boxes,
        )
        .unwrap();
        assert!(boxes[1].is_empty());
        // Slab x = 1 holds ranks 1 (off) and 3: rank 3 takes the whole slab.
        assert_eq!(boxes[3].extent()[1], 8);
        verify_box_layout([8, 8, 1], [true, true, false], &speeds, &boxes).unwrap();
    }

    #[test]
    fn faces_touch_several_neighbours() {
        // Jagged 2×2: slab borders at x = 4 both sides, column borders at y = 3 and y = 5.
        let a = Box3::new([0, 0, 0], [4, 3, 1]);
        let b = Box3::new([4, 0, 0], [8, 5, 1]);
        let c = Box3::new([0, 3, 0], [4, 8, 1]);
        let active = [true, true, false];
        assert_eq!(face_contact(&a, &b, active), Some((0, true)));
        assert_eq!(face_contact(&c, &b, active), Some((0, true)));
        assert_eq!(face_contact(&b, &c, active), Some((0, false)));
        let d = Box3::new([4, 5, 0], [8, 8, 1]);
        // a and d meet only at a corner.
        assert_eq!(face_contact(&a, &d, active), None);
        assert_eq!(
            &halo_layers(&b, &c, [1, 1, 0])[..],
            &[Box3::new([4, 3, 0], [5, 5, 1])]
        );
        assert!(halo_layers(&a, &d, [1, 1, 0]).is_empty());
    }

    #[test]
    fn bad_input_is_an_error() {
        let mut boxes = [Box3::new([0; 3], [0; 3]); 2];
        assert_eq!(
            kd_layout([4; 3], [true; 3], &[1.0, f64::NAN], &uniform, 1, &mut boxes),
            Err(LayoutError::BadSpeed { rank: 1 })
        );
        assert_eq!(
            kd_layout([4; 3], [true; 3], &[0.0, 0.0], &uniform, 1, &mut boxes),
            Err(LayoutError::NoEnabledRank)
        );
        assert!(matches!(
            kd_layout([1, 1, 1], [true; 3], &[1.0, 1.0], &uniform, 1, &mut boxes),
            Err(LayoutError::TooManyRanks { ranks: 2, .. })
        ));
        assert!(matches!(
            jagged_layout(
                [3, 4, 4],
                [true; 3],
                Topology([2, 1, 1]),
                &[1.0, 1.0],
                &uniform,
                2,
                &mut boxes
            ),
            Err(LayoutError::TooManyRanks { .. })
        ));
    }
}
