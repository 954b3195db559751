//! RCDC, redeployment with connectivity-based distributed node clustering (Smyk & Tudruj 2011,
//! §6, Fig. 12): merge the graph down to k × parts macro nodes by a rule of table 1, cluster
//! the macro nodes into the parts by CDC, then redeploy cells for balance. Between CDC and the
//! redeployment, pieces cut off from their part join a neighbouring part (CDC's argmax can
//! leave islands), so every part of a connected area ends connected, and a part CDC left
//! empty gets one node of the heaviest part to grow from.
//!
//! yee runs it in the multilevel frame of Karypis & Kumar (1998): the graph is first coarsened
//! by heavy-edge matching ([`coarsen`]) to about `coarse_per_part` nodes a part, RCDC
//! partitions the coarsest graph, and the partition is projected back level by level, each
//! level refined by Fiduccia–Mattheyses passes that keep every part connected ([`refine`]).
//! CDC's diffusion clusters and the redeployment's moves leave staircase borders; the passes at
//! every level straighten them (docs/partitioning.md, "Against METIS"). The best try then
//! goes through V-cycles (Walshaw 2004): coarsened again within its parts and refined level
//! by level with room up to the acceptance bound.

use alloc::vec;
use alloc::vec::Vec;

use super::bisect::recursive_bisection;
use super::cdc::{CdcParams, cdc_on};
use super::coarsen::{Level, coarsen, last_graph};
use super::contract::contract;
use super::csr::Graph;
use super::fork::{Fork, Sequential};
use super::redeploy::{MergeRule, join_pieces, merge, redeploy, seed_empty_parts};
use super::refine::refine;
use super::tiles::GraphError;

/// The parameters of RCDC.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RcdcParams {
    /// Macro nodes per part when merging stops (the paper takes 5 to 20).
    pub k: usize,
    /// The merging rule of phase 2.
    pub rule: MergeRule,
    /// CDC's parameters for phase 3.
    pub cdc: CdcParams,
    /// The redeployment stops when no part's time exceeds the ideal by more than this.
    pub tolerance: f64,
    /// The refinement keeps every part's weight within `1 + refine_tolerance` of its target.
    pub refine_tolerance: f64,
    /// Coarsening stops at this many nodes per part (0: no coarsening, the paper's RCDC on
    /// the whole graph, refined once).
    pub coarse_per_part: usize,
    /// Above `1 + accept` after the levels, the redeployment runs on the whole graph (slow on
    /// large graphs, and it lengthens borders; the levels' own balancing passes usually get
    /// within `refine_tolerance`).
    pub accept: f64,
    /// Multilevel runs from the paper's RCDC to keep the best of, each with other matchings
    /// and a coarsest graph of ×1, ×½, ×2 or ×¼ `coarse_per_part` nodes per part (at least 1).
    pub tries: usize,
    /// Runs from recursive bisection with connected halves (up to 4) beside them: on the
    /// whole graph (two tolerances for each halving) and from the coarsest graph of ×1 and ×2
    /// `coarse_per_part` nodes per part.
    pub bisections: usize,
    /// V-cycles on the best try (Walshaw's iterated multilevel refinement): the graph is
    /// coarsened again, matching only nodes of one part, and each level refined with room up
    /// to `accept`; one is kept where it lowers the cut.
    pub vcycles: usize,
    /// The bisection tries on the whole graph run only where it has at most this many nodes:
    /// on larger graphs greedy growing on the finest level cuts more than every coarsened
    /// start at several times its cost (the 128³ spherical shell, 722 056 nodes, 64 parts:
    /// cuts 120 114 and 123 687 in 12 s each against 84 407–90 339 in 2.4–5.5 s;
    /// docs/partitioning.md, "At scale").
    pub whole_bisection_nodes: usize,
}

impl Default for RcdcParams {
    fn default() -> Self {
        RcdcParams {
            k: 10,
            rule: MergeRule::Mr0,
            cdc: CdcParams::default(),
            tolerance: 0.02,
            refine_tolerance: 0.03,
            coarse_per_part: 20,
            accept: 0.05,
            tries: 4,
            bisections: 4,
            vcycles: 4,
            whole_bisection_nodes: 100_000,
        }
    }
}

/// Partitions `g` into `speeds.len()` parts, part `p` getting a share of the weight in
/// proportion to `speeds[p]`; writes each node's part into `part` and returns the imbalance
/// (the slowest part's time ÷ the ideal time).
///
/// The tries ([`rcdc_tries`]) run one after the other here; a driver with threads may run
/// them in any order ([`run_try`] reads only `g`), gather their outcomes in [`RcdcPool`]s in
/// any grouping, merge those, then call [`rcdc_finish`]: the partition is the same.
pub fn rcdc(
    g: &Graph,
    speeds: &[f64],
    params: RcdcParams,
    part: &mut [usize],
) -> Result<f64, GraphError> {
    let tries = rcdc_tries(g, speeds, params)?;
    let mut pool = RcdcPool::default();
    for (index, t) in tries.iter().enumerate() {
        if let Some(outcome) = run_try(&Sequential, g, speeds, t, index)? {
            pool.add(outcome, params);
        }
    }
    rcdc_finish(&Sequential, g, speeds, params, pool, part)
}

/// One multilevel run of RCDC: coarsen to `per_part` nodes a part (matchings from `seed`;
/// none when 0), partition the coarsest graph as `start` says, project and refine with
/// `params.refine_tolerance`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RcdcTry {
    /// The parameters of its round (their `refine_tolerance` is the round's).
    pub params: RcdcParams,
    /// Coarsest nodes per part (0: no coarsening).
    pub per_part: usize,
    /// Seed of the matchings.
    pub seed: u64,
    /// How the coarsest graph is partitioned.
    pub start: Start,
}

/// The outcome of a try: its imbalance, edge cut and partition, and its index in
/// [`rcdc_tries`]'s list (the earlier of two equal tries wins).
#[derive(Clone, Debug, PartialEq)]
pub struct RcdcOutcome {
    /// Slowest part's weight ÷ its target.
    pub imbalance: f64,
    /// Edge cut.
    pub cut: f64,
    /// The part of each node (`u32`: 4 bytes a node held while the other tries run).
    pub part: Vec<u32>,
    /// The try's index.
    pub index: usize,
}

impl RcdcOutcome {
    /// Whether `self` beats `other`: within `1 + params.accept` beats above it; within it the
    /// smaller cut wins, above it the smaller imbalance; on a tie the earlier try. A total
    /// order, so the best of a set is the same whatever order it is searched in.
    pub fn better(&self, other: &RcdcOutcome, params: RcdcParams) -> bool {
        let bound = 1.0 + params.accept + 1e-9;
        let key = |o: &RcdcOutcome| {
            if o.imbalance > bound {
                (true, o.imbalance, o.index)
            } else {
                (false, o.cut, o.index)
            }
        };
        key(self).partial_cmp(&key(other)) == Some(core::cmp::Ordering::Less)
    }
}

/// The multilevel runs of RCDC on `g` for `speeds.len()` parts, in order: per round of
/// refinement tolerance (`params.refine_tolerance`, and the acceptance's `params.accept`
/// where a node outweighs the first's room above a part's target: tiles of 64 cells, 11 a
/// part, leave few moves within it, so twice as many tries from the paper's RCDC run, other
/// matchings, since with few moves possible the start decides more; the porous square at
/// tile 8 with 32 parts: cut 312 to 292), `params.tries` from the paper's RCDC (coarsest
/// graphs of ×1, ×½, ×2, ×¼ `coarse_per_part` nodes a part) and `params.bisections` from
/// recursive bisection with connected halves (on the whole graph, with the tolerance for
/// each halving and with its share of ⌈log₂ parts⌉ halvings, where the graph has at most
/// `params.whole_bisection_nodes` nodes, and from coarsest graphs of ×1 and ×2
/// `coarse_per_part`). An error for a part count of 0 or above the nodes.
pub fn rcdc_tries(
    g: &Graph,
    speeds: &[f64],
    params: RcdcParams,
) -> Result<Vec<RcdcTry>, GraphError> {
    let parts = speeds.len();
    if parts == 0 || parts > g.len() {
        return Err(GraphError::Parts {
            parts,
            nodes: g.len(),
        });
    }
    let total_speed: f64 = speeds.iter().sum();
    let least =
        speeds.iter().copied().fold(f64::INFINITY, f64::min) * g.total_weight() / total_speed;
    let heavy = g
        .weight
        .iter()
        .any(|&w| w > params.refine_tolerance * least);
    let mut tolerances = vec![params.refine_tolerance];
    if heavy && params.accept > params.refine_tolerance {
        tolerances.push(params.accept);
    }
    let mut tries = Vec::new();
    for (round, refine_tolerance) in tolerances.into_iter().enumerate() {
        let params = RcdcParams {
            refine_tolerance,
            tries: params.tries << round.min(1),
            ..params
        };
        for t in 0..params.tries.max(1) {
            tries.push(RcdcTry {
                params,
                per_part: params.coarse_per_part * [4, 2, 8, 1][t % 4] / 4,
                seed: t as u64,
                start: Start::Cdc,
            });
        }
        let tolerance = params.refine_tolerance;
        let halvings = parts.next_power_of_two().trailing_zeros().max(1);
        for (t, (per_part, tolerance)) in [
            (0, tolerance),
            (0, tolerance / f64::from(halvings)),
            (params.coarse_per_part, tolerance),
            (2 * params.coarse_per_part, tolerance),
        ]
        .into_iter()
        .enumerate()
        .take(params.bisections)
        {
            if per_part == 0 && g.len() > params.whole_bisection_nodes {
                continue;
            }
            tries.push(RcdcTry {
                params,
                per_part,
                seed: t as u64,
                start: Start::Bisection(tolerance),
            });
        }
    }
    Ok(tries)
}

/// Runs try `t` (number `index` of [`rcdc_tries`]'s list) on `g`: `None` where its start
/// gave no partition (recursive bisection may not). Memory besides `g`, for a 3D cell graph
/// (tile 1): the coarsening hierarchy, about 62 bytes a node of `g` at its peak, the first
/// two levels while the second is built (coarse graphs have more edge ends a node than the
/// fine one, their weights a byte each while they are integers up to 255); on graphs above
/// [`super::coarsen::REBUILD_NODES`] nodes, where the first two levels are dropped and made
/// again on the way back, about 46 at the peak (one level being built) and 32 held through
/// the coarsest graph's partition, the contractions of `g` through [`Fork::one_at_a_time`].
/// Besides: its groups 8, the partition 8 (4 in the outcome) and the refinement's scratch
/// about 16; the hierarchy is dropped level by level as the partition is projected back.
/// The independent work inside it (the halves of a recursive bisection) runs through
/// `fork`; the outcome is the same however it runs.
pub fn run_try<F: Fork>(
    fork: &F,
    g: &Graph,
    speeds: &[f64],
    t: &RcdcTry,
    index: usize,
) -> Result<Option<RcdcOutcome>, GraphError> {
    let Some(part) = multilevel(fork, g, speeds, t.params, t.per_part, t.seed, t.start)? else {
        return Ok(None);
    };
    let q = super::quality_on(fork, g, &part, speeds);
    Ok(Some(RcdcOutcome {
        imbalance: q.imbalance,
        cut: q.edge_cut,
        part: narrow(&part),
        index,
    }))
}

/// The outcomes of tries that can still win: the best within `1 + accept` (by
/// [`RcdcOutcome::better`]), or, while no outcome is within it, every outcome (the
/// fallback of [`rcdc_finish`] redeploys each). Adding outcomes and merging pools in any
/// order gives the same pool, so threads may each keep one.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RcdcPool {
    /// The best outcome within the bound, if any.
    within: Option<RcdcOutcome>,
    /// Every outcome above the bound, while none is within it.
    above: Vec<RcdcOutcome>,
}

impl RcdcPool {
    /// Adds a try's outcome.
    pub fn add(&mut self, outcome: RcdcOutcome, params: RcdcParams) {
        if outcome.imbalance > 1.0 + params.accept + 1e-9 {
            if self.within.is_none() {
                self.above.push(outcome);
            }
        } else {
            self.above.clear();
            if self
                .within
                .as_ref()
                .is_none_or(|b| outcome.better(b, params))
            {
                self.within = Some(outcome);
            }
        }
    }

    /// The pool of both pools' outcomes.
    pub fn merge(mut self, other: RcdcPool, params: RcdcParams) -> RcdcPool {
        for outcome in other.within.into_iter().chain(other.above) {
            self.add(outcome, params);
        }
        self
    }
}

/// The end of RCDC once the tries have run and their outcomes are in `pool`. Where none is
/// within `1 + params.accept`, each is redeployed on the whole graph (the paper's phase 4)
/// and refined, in the order of the tries, and the best balanced kept; within the bound, the
/// V-cycles. Writes the partition into `part` and returns its imbalance. `fork` runs the
/// independent work inside (as in [`run_try`]).
pub fn rcdc_finish<F: Fork>(
    fork: &F,
    g: &Graph,
    speeds: &[f64],
    params: RcdcParams,
    pool: RcdcPool,
    part: &mut [usize],
) -> Result<f64, GraphError> {
    let best = match pool.within {
        Some(best) => best,
        None => {
            let mut above = pool.above;
            above.sort_by_key(|o| o.index);
            let mut best: Option<RcdcOutcome> = None;
            for mut outcome in above {
                let mut redeployed = widen(&outcome.part);
                redeploy(g, speeds, params.tolerance, &mut redeployed);
                refine(g, speeds, params.refine_tolerance, &mut redeployed);
                let q = super::quality_on(fork, g, &redeployed, speeds);
                if q.imbalance < outcome.imbalance {
                    (outcome.imbalance, outcome.cut, outcome.part) =
                        (q.imbalance, q.edge_cut, narrow(&redeployed));
                }
                if best.as_ref().is_none_or(|b| outcome.better(b, params)) {
                    best = Some(outcome);
                }
            }
            best.ok_or(GraphError::Parts {
                parts: speeds.len(),
                nodes: g.len(),
            })?
        }
    };
    let mut best = (best.imbalance, best.cut, best.part);
    if best.0 <= 1.0 + params.accept + 1e-9 {
        vcycles(fork, g, speeds, params, &mut best);
    }
    for (p, &b) in part.iter_mut().zip(&best.2) {
        *p = b as usize;
    }
    Ok(best.0)
}

/// Part numbers as `u32` (parts never outnumber the nodes, which fit in `u32`).
fn narrow(part: &[usize]) -> Vec<u32> {
    part.iter().map(|&p| p as u32).collect()
}

/// Part numbers as `usize`.
fn widen(part: &[u32]) -> Vec<usize> {
    part.iter().map(|&p| p as usize).collect()
}

/// `params.vcycles` V-cycles (Walshaw 2004's iterated multilevel refinement) on `best`, an
/// (imbalance, edge cut, partition) within `1 + params.accept`: the graph is coarsened
/// matching only nodes of one part (other matchings and coarsest sizes each cycle), and the
/// partition refined on every level with room up to `params.accept`; a cycle's outcome
/// replaces `best` where it cuts less within the bound.
///
/// A cycle is a function of its number and the partition it starts from, so on graphs of at
/// most [`SPECULATIVE_VCYCLE_NODES`] nodes, where `fork` runs branches side by side
/// ([`Fork::side_by_side`]), two cycles run at once through it from
/// the same `best` (speculation, as in Blelloch et al. 2012's deterministic reservations):
/// where the first lowers the cut, the second's outcome is dropped and it runs again from
/// the new `best`; where it does not, the second started from the partition it would have
/// started from anyway. The outcome is that of the cycles one after the other.
fn vcycles<F: Fork>(
    fork: &F,
    g: &Graph,
    speeds: &[f64],
    params: RcdcParams,
    best: &mut (f64, f64, Vec<u32>),
) {
    // A cycle's outcome replaces `best` where it is within the bound and cuts less.
    let take = |best: &mut (f64, f64, Vec<u32>), outcome: (f64, f64, Vec<usize>)| {
        let lower = outcome.0 <= 1.0 + params.accept + 1e-9 && outcome.1 < best.1;
        if lower {
            *best = (outcome.0, outcome.1, narrow(&outcome.2));
        }
        lower
    };
    let mut c = 0;
    while c < params.vcycles {
        if fork.side_by_side() && g.len() <= SPECULATIVE_VCYCLE_NODES && c + 1 < params.vcycles {
            let start = &best.2;
            let (first, second) = fork.join(
                || vcycle(fork, g, speeds, params, c, start),
                || vcycle(fork, g, speeds, params, c + 1, start),
            );
            let Some(first) = first else {
                return;
            };
            if take(best, first) {
                c += 1;
                continue;
            }
            let Some(second) = second else {
                return;
            };
            take(best, second);
            c += 2;
        } else {
            let Some(outcome) = vcycle(fork, g, speeds, params, c, &best.2) else {
                return;
            };
            take(best, outcome);
            c += 1;
        }
    }
}

/// Graphs of at most this many nodes run two V-cycles side by side ([`vcycles`]): each holds
/// its own coarsening hierarchy (about 62 bytes a node of the graph at tile 1 at its peak,
/// docs/partitioning.md "At scale"), so above it they run one at a time.
pub const SPECULATIVE_VCYCLE_NODES: usize = 1 << 20;

/// V-cycle `c` from the partition `start`: its (imbalance, edge cut, partition), `None` where
/// the graph does not coarsen (no cycle can run).
fn vcycle<F: Fork>(
    fork: &F,
    g: &Graph,
    speeds: &[f64],
    params: RcdcParams,
    c: usize,
    start: &[u32],
) -> Option<(f64, f64, Vec<usize>)> {
    let parts = speeds.len();
    let per_part = (params.coarse_per_part * [4, 2, 8, 1][c % 4] / 4).max(1);
    let levels = coarsen(
        fork,
        g,
        per_part * parts,
        VCYCLE_SEED + c as u64,
        Some(start),
    );
    if levels.is_empty() {
        return None;
    }
    // Each coarse node's part, level by level down to the coarsest.
    let mut coarse: Option<Vec<u32>> = None;
    for level in &levels {
        let finer = coarse.as_deref().unwrap_or(start);
        let mut next = vec![0u32; level.nodes];
        for (n, &k) in level.group.iter().enumerate() {
            next[k as usize] = finer[n];
        }
        coarse = Some(next);
    }
    let coarse = widen(&coarse.expect("at least one level"));
    let candidate = uncoarsen(fork, g, levels, speeds, params.accept, coarse);
    let q = super::quality_on(fork, g, &candidate, speeds);
    Some((q.imbalance, q.edge_cut, candidate))
}

/// The first matching seed of the V-cycles (apart from the tries').
const VCYCLE_SEED: u64 = 1 << 20;

/// Refines `current`, a partition of the coarsest of `levels` (of `g` when none), there and
/// on each finer level in turn, projected down (Karypis & Kumar 1998, §5); returns the
/// partition of `g`. Each level is dropped once its partition is projected, so the finer
/// levels' refinement runs without the coarser graphs: the peak is the hierarchy's, or the
/// finest level's scratch, not both.
fn uncoarsen<F: Fork>(
    fork: &F,
    g: &Graph,
    mut levels: Vec<Level>,
    speeds: &[f64],
    tolerance: f64,
    mut current: Vec<usize>,
) -> Vec<usize> {
    let coarsest = levels
        .last()
        .map_or(g, |l| l.graph.as_ref().expect("the coarsest level is kept"));
    refine(coarsest, speeds, tolerance, &mut current);
    while let Some(level) = levels.pop() {
        let mut finer: Vec<usize> = level.group.iter().map(|&c| current[c as usize]).collect();
        drop((level, current));
        // A level `coarsen` dropped is made again from `g`.
        let fine = last_graph(fork, g, &mut levels);
        refine(fine, speeds, tolerance, &mut finer);
        current = finer;
    }
    current
}

/// The partition of the coarsest graph a multilevel run starts from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Start {
    /// The paper's RCDC: CDC's clusters of macro nodes, redeployed.
    Cdc,
    /// Recursive bisection with connected halves ([`recursive_bisection`]), each halving
    /// within `1 +` this tolerance.
    Bisection(f64),
}

/// One multilevel run: coarsen `g` to `per_part` nodes a part (matchings from `seed`; none
/// when 0), partition the coarsest graph as `start` says, then project and refine level by
/// level. Returns the partition, `None` where the start gave none (recursive bisection may
/// not).
fn multilevel<F: Fork>(
    fork: &F,
    g: &Graph,
    speeds: &[f64],
    params: RcdcParams,
    per_part: usize,
    seed: u64,
    start: Start,
) -> Result<Option<Vec<usize>>, GraphError> {
    let parts = speeds.len();
    let levels = if per_part == 0 {
        Vec::new()
    } else {
        coarsen(fork, g, per_part * parts, seed, None)
    };
    let coarsest = levels
        .last()
        .map_or(g, |l| l.graph.as_ref().expect("the coarsest level is kept"));
    let mut current = vec![0usize; coarsest.len()];
    match start {
        Start::Cdc => paper_rcdc(fork, coarsest, speeds, params, &mut current)?,
        Start::Bisection(tolerance) => {
            if !recursive_bisection(fork, coarsest, speeds, tolerance, &mut current) {
                return Ok(None);
            }
        }
    }
    Ok(Some(uncoarsen(
        fork,
        g,
        levels,
        speeds,
        params.refine_tolerance,
        current,
    )))
}

/// Smyk & Tudruj's RCDC on `g`: merge to k × parts macro nodes by the rule, CDC on them,
/// connected pieces joined, empty parts seeded, the redeployment.
fn paper_rcdc<F: Fork>(
    fork: &F,
    g: &Graph,
    speeds: &[f64],
    params: RcdcParams,
    part: &mut [usize],
) -> Result<(), GraphError> {
    let parts = speeds.len();
    let mut group = vec![0usize; g.len()];
    let count = merge(g, (params.k * parts).max(parts), params.rule, &mut group);
    let macros = contract(fork, g, &group, count);
    let mut macro_part = vec![0usize; count];
    cdc_on(fork, &macros, parts.min(count), params.cdc, &mut macro_part)?;
    for n in 0..g.len() {
        part[n] = macro_part[group[n]];
    }
    join_pieces(g, parts, part);
    seed_empty_parts(g, parts, part);
    redeploy(g, speeds, params.tolerance, part);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::{TileGraph, quality};

    #[test]
    fn a_square_into_four_and_into_targets() {
        let g = TileGraph::from_mask([40, 40, 1], &[true; 1600], [1, 1, 1], 1.0)
            .unwrap()
            .graph;
        let mut part = vec![0usize; g.len()];
        for speeds in [&[1.0; 4][..], &[2.0, 1.0, 1.0]] {
            let imbalance = rcdc(&g, speeds, RcdcParams::default(), &mut part).unwrap();
            let q = quality(&g, &part, speeds);
            assert_eq!((q.disconnected, q.empty_parts), (0, 0), "{q:?}");
            assert!(
                imbalance <= 1.0 + RcdcParams::default().accept + 1e-12,
                "{q:?}"
            );
        }
        assert!(rcdc(&g, &[], RcdcParams::default(), &mut part).is_err());
    }

    #[test]
    fn v_cycles_keep_parts_whole_and_never_raise_the_cut() {
        // A 60 × 60 square with a quarter of its cells gone (xorshift), largest piece kept.
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mask: Vec<bool> = (0..3600)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                state % 4 != 0
            })
            .collect();
        let full = TileGraph::from_mask([60, 60, 1], &mask, [1, 1, 1], 1.0).unwrap();
        let pieces = full.graph.pieces(&vec![0; full.len()]);
        let largest = pieces.iter().max_by_key(|p| p.len()).unwrap();
        let mut kept = vec![false; 3600];
        largest.iter().for_each(|&n| kept[full.tile_of[n]] = true);
        let g = TileGraph::from_mask([60, 60, 1], &kept, [1, 1, 1], 1.0)
            .unwrap()
            .graph;
        let mut lowered = 0;
        for parts in [4, 8, 16] {
            let speeds = vec![1.0; parts];
            let cut = |vcycles| {
                let mut part = vec![0usize; g.len()];
                let params = RcdcParams {
                    vcycles,
                    ..RcdcParams::default()
                };
                rcdc(&g, &speeds, params, &mut part).unwrap();
                let q = quality(&g, &part, &speeds);
                assert_eq!((q.disconnected, q.empty_parts), (0, 0), "{q:?}");
                assert!(q.imbalance <= 1.05 + 1e-12, "{q:?}");
                q.edge_cut
            };
            let (without, with) = (cut(0), cut(4));
            assert!(with <= without, "{parts} parts: {with} > {without}");
            lowered += usize::from(with < without);
        }
        assert!(lowered >= 1, "the V-cycles lowered no cut");
    }
}
