//! Dynamic balancing of a jagged or k-d layout (needs the `alloc` feature): Balykov 2019's
//! dynamic balancer with one box per rank instead of borders through the whole grid.
//!
//! Every `T_perf` steps the ranks all-gather their interval's work, compute, share and
//! transfer times ([`GATHER_LEN`]); every rank feeds the same numbers to the same
//! [`BoxBalancer`], so all decide the same:
//!
//! 1. performance as Q/P sums per rank (eqs. (4)–(5), (28), as the tensor balancer);
//! 2. the step time of a layout predicted as the slowest rank's `work(box) / perf + τ_share`,
//!    its work summed over the cost density of its box and its `τ_share` the transfer time of
//!    its halos per step as last measured (eqs. (1), (12): each rank alone, its box in place
//!    of a line's share);
//! 3. disabling, with ranks in place of lines: the most recently disabled rank is enabled again
//!    when the layout rebuilt with it predicts a step shorter by more than ε (eq. (19));
//!    otherwise ranks are disabled (speed 0, an empty box) slowest first (the costliest, as
//!    eqs. (9)–(18) start at the costliest border): the slowest, then the slowest of the layout
//!    rebuilt without it, and so on down to one rank; of these nested sets the one whose layout
//!    predicts the shortest step is disabled when that step is shorter by more than ε than with
//!    none (equally slow ranks, like the plane of four delayed nodes of Balykov's table 1, only
//!    pay together, as a line of a tensor layout goes at once);
//! 4. the new layout is the cut ([`BoxCut`]) of the measured speeds, disabled ranks at 0; it is
//!    taken when its predicted step beats the current layout's by more than ε and the time it
//!    saves over the remaining steps exceeds the predicted migration time (the most bytes a
//!    rank sends and receives, at the seconds per byte measured on the halos).
//!
//! [`rebalance`] runs one such decision on a rank and migrates the cells whose owner changes
//! ([`migrate_cells`]: for every pair of old and new owner, the intersection of their boxes).

use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

use crate::balance::{BalanceParams, rank_perf};
use crate::box_layout::{BoxLayout, CostDensity, LayoutError, jagged_layout, kd_layout};
use crate::chunk::Chunk;
use crate::comm::Comm;
use crate::driver::{StepError, StepErrorOf, StepRecord, migrate_cells};
use crate::geometry::Box3;
use crate::measurements::{GATHER_LEN, Measurements, interval_summary};
use crate::tile_driver::{Ownership, TileDriver};
use crate::topology::Topology;

/// How the boxes are cut from the ranks' speeds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BoxCut {
    /// [`jagged_layout`] over the topology.
    Jagged(Topology),
    /// [`kd_layout`].
    Kd,
}

impl BoxCut {
    /// One box per rank of `grid` for `speeds` (0: disabled, an empty box).
    pub fn layout(
        &self,
        grid: [usize; 3],
        active: [bool; 3],
        speeds: &[f64],
        density: &impl CostDensity,
        min_width: usize,
    ) -> Result<Vec<Box3>, LayoutError> {
        let mut boxes = vec![Box3::new([0; 3], [0; 3]); speeds.len()];
        match *self {
            BoxCut::Jagged(t) => {
                jagged_layout(grid, active, t, speeds, density, min_width, &mut boxes)
            }
            BoxCut::Kd => kd_layout(grid, active, speeds, density, min_width, &mut boxes),
        }?;
        Ok(boxes)
    }
}

/// What one rebalance of a box layout decided.
#[derive(Clone, Debug, PartialEq)]
pub struct BoxDecision {
    /// The boxes from now on (the current ones when nothing pays).
    pub boxes: Vec<Box3>,
    /// Whether they differ from the current ones: cells migrate.
    pub migrate: bool,
    /// Predicted step time of the layout kept (seconds).
    pub predicted_seconds: f64,
    /// Measured step time over the last interval: the slowest rank's compute and share seconds
    /// per step.
    pub measured_seconds: f64,
    /// Predicted migration time of the change (0 when nothing moves or the link speed is not
    /// known).
    pub migration_seconds: f64,
    /// Disabled ranks after the decision, in the order they were disabled.
    pub disabled: Vec<usize>,
    /// "keep", "rebalance", "enable rank R", or "disable rank R" (one per rank disabled,
    /// comma-separated, in order).
    pub action: String,
}

/// The dynamic balancer of a box layout; identical on every rank.
#[derive(Clone, Debug)]
pub struct BoxBalancer {
    cut: BoxCut,
    grid: [usize; 3],
    active: [bool; 3],
    params: BalanceParams,
    boxes: Vec<Box3>,
    /// What the ranks measured.
    pub measured: Measurements,
    /// Disabled ranks, the most recent last (eq. (19) brings back the last one first).
    disabled: Vec<usize>,
}

impl BoxBalancer {
    /// A balancer for the layout `boxes` of `grid` (one per rank, as `cut` made them; an empty
    /// box is a disabled rank), `active` axes, tuned by `params` (`every`, `epsilon`,
    /// `min_width`, `disabling`; links are not fitted).
    pub fn new(
        cut: BoxCut,
        grid: [usize; 3],
        active: [bool; 3],
        params: BalanceParams,
        boxes: Vec<Box3>,
    ) -> Self {
        let ranks = boxes.len();
        BoxBalancer {
            cut,
            grid,
            active,
            params,
            disabled: (0..ranks).filter(|&r| boxes[r].is_empty()).collect(),
            boxes,
            measured: Measurements::new(ranks),
        }
    }

    /// The parameters.
    pub fn params(&self) -> BalanceParams {
        self.params
    }

    /// The same balancer, its measurements forgotten, starting from `boxes` (a resumed run
    /// on the layout it was saved on).
    pub fn with_boxes(&self, boxes: Vec<Box3>) -> Self {
        BoxBalancer::new(self.cut, self.grid, self.active, self.params, boxes)
    }

    /// The current layout.
    pub fn layout(&self) -> BoxLayout {
        BoxLayout {
            grid: self.grid,
            boxes: self.boxes.clone(),
        }
    }

    /// The disabled ranks, the most recently disabled last.
    pub fn disabled(&self) -> &[usize] {
        &self.disabled
    }

    /// How it cuts the boxes.
    pub fn cut(&self) -> BoxCut {
        self.cut
    }

    /// This balancer carrying on from a saved state (a checkpoint): the layout `boxes`, the
    /// `disabled` ranks in the order they were disabled and what was `measured`. `None` when
    /// the state is of another number of ranks, or its boxes do not tile the grid.
    pub fn with_state(
        mut self,
        boxes: Vec<Box3>,
        disabled: Vec<usize>,
        measured: Measurements,
    ) -> Option<Self> {
        let ranks = self.boxes.len();
        let grid = Box3::from_extent(self.grid);
        let inside = boxes.iter().all(|b| b.is_empty() || grid.contains_box(b));
        let cells: usize = boxes.iter().map(Box3::cells).sum();
        let n = boxes.len();
        let apart = (0..n).all(|a| (a + 1..n).all(|b| boxes[a].intersect(&boxes[b]).cells() == 0));
        let fits = n == ranks
            && measured.perf.len() == ranks
            && measured.share.len() == ranks
            && disabled.iter().all(|&r| r < ranks)
            && inside
            && apart
            && cells == grid.cells();
        if !fits {
            return None;
        }
        self.boxes = boxes;
        self.disabled = disabled;
        self.measured = measured;
        Some(self)
    }

    /// Adds one interval's gathered data: [`GATHER_LEN`] values per rank, rank after
    /// rank. Returns the measured step time of the interval.
    pub fn record(&mut self, gathered: &[f64]) -> f64 {
        self.measured.record(gathered)
    }

    /// The predicted time of one step of `boxes` at performance `perf`: the slowest rank's
    /// work over its performance plus its share time; and that rank.
    fn predict(
        &self,
        boxes: &[Box3],
        perf: &[f64],
        density: &impl CostDensity,
    ) -> (f64, Option<usize>) {
        let mut worst = (0.0, None);
        for (r, b) in boxes.iter().enumerate() {
            if b.is_empty() {
                continue;
            }
            let t = box_work(density, *b) / perf[r] + self.measured.share[r];
            if worst.1.is_none() || t > worst.0 {
                worst = (t, Some(r));
            }
        }
        worst
    }

    /// The layout of `perf` with the ranks of `disabled` at speed 0.
    fn cut_without(
        &self,
        perf: &[f64],
        disabled: &[usize],
        density: &impl CostDensity,
    ) -> Result<Vec<Box3>, LayoutError> {
        let mut speeds = perf.to_vec();
        for &r in disabled {
            speeds[r] = 0.0;
        }
        self.cut.layout(
            self.grid,
            self.active,
            &speeds,
            density,
            self.params.min_width,
        )
    }

    /// Predicted seconds to move from `old` to `new` boxes: the most bytes one rank sends and
    /// receives, at the measured seconds per byte (0 when no transfer time was measured).
    fn migration_seconds(&self, old: &[Box3], new: &[Box3]) -> f64 {
        let most = old
            .iter()
            .zip(new)
            .map(|(o, n)| {
                let kept = o.intersect(n).cells();
                (o.cells() - kept + n.cells() - kept) as f64
            })
            .fold(0.0, f64::max);
        self.measured.migration_seconds(most)
    }

    /// Decides the next layout from everything recorded so far: `density` weighs the cells,
    /// `remaining` steps are left to run, `measured` is the last interval's step time.
    pub fn decide(
        &mut self,
        density: &impl CostDensity,
        remaining: u64,
        measured: f64,
    ) -> Result<BoxDecision, LayoutError> {
        let perf = rank_perf(&self.measured.perf);
        let eps = self.params.epsilon;
        let (current, _) = self.predict(&self.boxes, &perf, density);
        let mut disabled = self.disabled.clone();
        let mut boxes = self.cut_without(&perf, &disabled, density)?;
        let mut action = String::from("rebalance");
        if self.params.disabling {
            let (t, _) = self.predict(&boxes, &perf, density);
            // Eq. (19): the most recently disabled rank comes back when that pays.
            let back = disabled.last().copied().and_then(|r| {
                let with = self.cut_without(&perf, &disabled[..disabled.len() - 1], density);
                with.ok()
                    .filter(|b| {
                        !b[r].is_empty() && self.predict(b, &perf, density).0 < t * (1.0 - eps)
                    })
                    .map(|b| (r, b))
            });
            if let Some((r, b)) = back {
                disabled.pop();
                boxes = b;
                action = format!("enable rank {r}");
            } else {
                // Eqs. (9)–(18) with ranks for lines: the slowest rank goes, then the slowest
                // of what is left, and so on down to one rank; the prefix of that order whose
                // layout predicts the shortest step is taken when it beats keeping them all by
                // more than ε. A whole prefix, not one rank at a time while each pays: ranks
                // equally slow (Balykov's table 1 slows a plane of four) only pay together, as
                // the line of a tensor layout goes at once.
                let (mut trial, mut best) = (boxes.clone(), (t * (1.0 - eps), 0));
                let kept = disabled.len();
                loop {
                    let enabled = trial.iter().filter(|b| !b.is_empty()).count();
                    let Some(r) = self
                        .predict(&trial, &perf, density)
                        .1
                        .filter(|_| enabled > 1)
                    else {
                        break;
                    };
                    disabled.push(r);
                    let Ok(b) = self.cut_without(&perf, &disabled, density) else {
                        disabled.pop();
                        break;
                    };
                    let (t, _) = self.predict(&b, &perf, density);
                    if t < best.0 {
                        best = (t, disabled.len() - kept);
                        boxes = b.clone();
                    }
                    trial = b;
                }
                disabled.truncate(kept + best.1);
                let gone: Vec<String> = disabled[kept..]
                    .iter()
                    .map(|r| format!("disable rank {r}"))
                    .collect();
                if !gone.is_empty() {
                    action = gone.join(", ");
                }
            }
        }
        let (predicted, _) = self.predict(&boxes, &perf, density);
        let migration = self.migration_seconds(&self.boxes, &boxes);
        let gain = current - predicted;
        let pays =
            boxes != self.boxes && gain > eps * current && gain * remaining as f64 > migration;
        if !pays {
            return Ok(BoxDecision {
                boxes: self.boxes.clone(),
                migrate: false,
                predicted_seconds: current,
                measured_seconds: measured,
                migration_seconds: 0.0,
                disabled: self.disabled.clone(),
                action: String::from("keep"),
            });
        }
        self.boxes = boxes.clone();
        self.disabled = disabled.clone();
        Ok(BoxDecision {
            boxes,
            migrate: true,
            predicted_seconds: predicted,
            measured_seconds: measured,
            migration_seconds: migration,
            disabled,
            action,
        })
    }
}

/// The work of `region`: its slices' costs across its first axis summed.
fn box_work(density: &impl CostDensity, region: Box3) -> f64 {
    let mut slices = vec![0.0; region.extent()[0]];
    density.slices(region, 0, &mut slices);
    slices.iter().sum()
}

/// One rebalance on this rank, at the same step on every rank: gathers the interval's
/// `records`, decides ([`BoxBalancer::decide`], `remaining` steps left) and, when the layout
/// changes, migrates the cells whose owner changes, rebuilds `driver` for the new boxes (its
/// overlap setting kept) and refreshes the halos. Returns the decision, or `None` when no
/// layout could be cut (the run goes on with the current one).
pub fn rebalance<C: Chunk, M: Comm>(
    balancer: &mut BoxBalancer,
    records: &[StepRecord],
    density: &impl CostDensity,
    remaining: u64,
    chunk: &mut C,
    comm: &mut M,
    driver: &mut TileDriver<C>,
) -> Result<Option<BoxDecision>, StepErrorOf<C, M>> {
    let me = comm.rank();
    let mine = balancer.boxes[me];
    let cell_bytes = if mine.is_empty() {
        0.0
    } else {
        (chunk.slab_len(mine) * core::mem::size_of::<C::Value>()) as f64 / mine.cells() as f64
    };
    let summary = interval_summary(records, cell_bytes);
    let mut gathered = vec![0.0; comm.size() * GATHER_LEN];
    comm.all_gather(&summary, &mut gathered)
        .map_err(StepError::Comm)?;
    let measured = balancer.record(&gathered);
    let old = balancer.boxes.clone();
    let Ok(decision) = balancer.decide(density, remaining, measured) else {
        return Ok(None);
    };
    if decision.migrate {
        let layout = balancer.layout();
        let ghost = chunk.ghost();
        migrate_cells(
            chunk,
            comm,
            |r| old[r],
            |r| decision.boxes[r],
            layout.chunk_box(me, ghost),
        )?;
        let overlap = driver.overlap();
        *driver = TileDriver::new(&layout, me, chunk).map_err(StepError::Chunk)?;
        driver.set_overlap(overlap);
        driver.refresh_halos(chunk, comm)?;
    }
    Ok(Some(decision))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One unit of work per cell: a slice costs its cells.
    fn uniform(region: Box3, axis: usize, out: &mut [f64]) {
        let e = region.extent();
        out.fill((0..3).filter(|&a| a != axis).map(|a| e[a] as f64).product());
    }

    /// One interval of 100 steps: per rank (work, compute seconds).
    fn gathered(ranks: &[(f64, f64)]) -> Vec<f64> {
        let mut g = vec![0.0; ranks.len() * GATHER_LEN];
        for (r, &(work, seconds)) in ranks.iter().enumerate() {
            g[r * GATHER_LEN..r * GATHER_LEN + 3].copy_from_slice(&[work, seconds, 100.0]);
        }
        g
    }

    /// An 8×8 (2D) grid in kd halves for two ranks: the active axes and the boxes.
    fn kd_halves() -> ([bool; 3], Vec<Box3>) {
        let active = [true, true, false];
        let start = BoxCut::Kd
            .layout([8, 8, 1], active, &[1.0, 1.0], &uniform, 1)
            .unwrap();
        (active, start)
    }

    #[test]
    fn equally_slow_ranks_are_disabled_together_when_only_that_pays() {
        // 16×8 (2D) on four kd ranks: {0, 1} | {2, 3} across x, then each pair across y.
        // Ranks 1 and 3 are a thousand times slower than 0 and 2. Disabling one of them
        // leaves the other's minimum-width box (8 cells, 2.5 s a step) the slowest, so no
        // single disabling pays; disabling both leaves 64 cells each to 0 and 2 (0.02 s).
        let active = [true, true, false];
        let start = BoxCut::Kd
            .layout([16, 8, 1], active, &[1.0; 4], &uniform, 1)
            .unwrap();
        let mut b = BoxBalancer::new(
            BoxCut::Kd,
            [16, 8, 1],
            active,
            BalanceParams::default(),
            start,
        );
        let (fast, slow) = ((3200.0, 1.0), (3200.0, 1000.0));
        let m = b.record(&gathered(&[fast, slow, fast, slow]));
        let d = b.decide(&uniform, 1000, m).unwrap();
        assert_eq!(
            (d.action.as_str(), d.migrate),
            ("disable rank 1, disable rank 3", true)
        );
        assert!(d.boxes[1].is_empty() && d.boxes[3].is_empty());
        assert_eq!((d.boxes[0].cells(), d.boxes[2].cells()), (64, 64));
        assert!((d.predicted_seconds - 0.02).abs() < 1e-12);
        assert_eq!(b.disabled(), &[1, 3]);
    }

    #[test]
    fn a_rank_the_minimum_width_overloads_is_disabled_and_comes_back_when_it_pays() {
        // 8×8 (2D), two ranks of kd halves; rank 1 a thousand times slower than rank 0. Kept,
        // it must hold a full column of 8 cells (2.5 s per step at 3.2 cells/s); disabled,
        // rank 0 does all 64 cells in 0.02 s.
        let (active, start) = kd_halves();
        let mut b = BoxBalancer::new(
            BoxCut::Kd,
            [8, 8, 1],
            active,
            BalanceParams::default(),
            start,
        );
        let m = b.record(&gathered(&[(3200.0, 1.0), (3200.0, 1000.0)]));
        assert_eq!(m, 10.0);
        let d = b.decide(&uniform, 1000, m).unwrap();
        assert_eq!((d.action.as_str(), d.migrate), ("disable rank 1", true));
        assert!(d.boxes[1].is_empty() && d.boxes[0].cells() == 64);
        assert!((d.predicted_seconds - 0.02).abs() < 1e-12);
        assert_eq!(b.disabled(), &[1]);
        // Nothing changes while the speeds stay.
        let m = b.record(&gathered(&[(6400.0, 2.0), (0.0, 0.0)]));
        assert_eq!(b.decide(&uniform, 900, m).unwrap().action, "keep");
        // Rank 0 slows down a millionfold for a long while: rank 1's remembered speed wins
        // again (eq. (19)).
        for _ in 0..20 {
            b.record(&gathered(&[(6400.0, 1e6), (0.0, 0.0)]));
        }
        let d = b.decide(&uniform, 500, m).unwrap();
        assert_eq!((d.action.as_str(), d.migrate), ("enable rank 1", true));
        assert!(!d.boxes[1].is_empty());
        assert!(b.disabled().is_empty());
    }

    #[test]
    fn a_change_that_does_not_pay_for_its_migration_is_not_taken() {
        // Two equal ranks measured at 3.2 and 2.9 cells/s on 4 + 4 columns: the recut layout
        // saves about 5 % of a step, but only one step is left and moving 8 cells at 1 s per
        // byte, 8 bytes per cell, costs far more.
        let (active, start) = kd_halves();
        let params = BalanceParams {
            epsilon: 0.0,
            ..BalanceParams::default()
        };
        let mut b = BoxBalancer::new(BoxCut::Kd, [8, 8, 1], active, params, start);
        let mut g = gathered(&[(3200.0, 1.0), (3200.0, 1.0 / 0.6)]);
        for r in 0..2 {
            g[r * GATHER_LEN + 4..r * GATHER_LEN + 7].copy_from_slice(&[100.0, 100.0, 8.0]);
        }
        let m = b.record(&g);
        assert_eq!(b.decide(&uniform, 1, m).unwrap().action, "keep");
        let d = b.decide(&uniform, 1_000_000, m).unwrap();
        assert_eq!((d.action.as_str(), d.migrate), ("rebalance", true));
        assert!(d.migration_seconds > 0.0);
    }

    #[test]
    fn a_saved_state_is_taken_only_when_its_boxes_tile_the_grid() {
        // A balancer that disabled rank 1 and measured both, and a fresh one of the same
        // layout taking its state up.
        let (active, start) = kd_halves();
        let fresh = BoxBalancer::new(BoxCut::Kd, [8, 8, 1], active, Default::default(), start);
        let mut saved = fresh.clone();
        let m = saved.record(&gathered(&[(3200.0, 1.0), (3200.0, 1000.0)]));
        saved.decide(&uniform, 1000, m).unwrap();
        let boxes = saved.layout().boxes;
        let state = || {
            (
                boxes.clone(),
                saved.disabled().to_vec(),
                saved.measured.clone(),
            )
        };
        let (b, d, m) = state();
        let taken = fresh.clone().with_state(b, d, m).unwrap();
        assert_eq!(taken.layout(), saved.layout());
        assert_eq!(taken.disabled(), &[1]);
        assert_eq!(taken.measured.perf, saved.measured.perf);
        // Overlapping boxes, a cell left out, or another number of ranks are refused.
        let (mut b, d, m) = state();
        b[1] = b[0];
        assert!(fresh.clone().with_state(b, d, m).is_none());
        let (mut b, d, m) = state();
        b[0].hi[0] -= 1;
        assert!(fresh.clone().with_state(b, d, m).is_none());
        let (mut b, d, m) = state();
        b.pop();
        assert!(fresh.with_state(b, d, m).is_none());
    }
}
