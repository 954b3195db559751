//! A rank's whole run over any [`Chunk`] and [`Comm`] (needs the `alloc` feature): the time
//! steps, a collective stop check, and — with a [`Balancer`] — a rebalance every `T_perf`
//! steps: probe every original link once (so links that disabling left unused are still
//! measured, Balykov 2019 §2.1), reduce the interval's measurements to what a decision needs
//! ([`crate::balance_reduce`]: O(lines) bytes per rank, no all-gather), decide the same new
//! borders on every rank and migrate.

use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

use crate::balance::{Balancer, FACE_LEN, GATHER_LEN, REBALANCE};
use crate::balance_reduce::reduce_inputs;
use crate::chunk::{Chunk, ChunkError};
use crate::comm::{Comm, Incoming, Outgoing, Route};
use crate::decomposition::Layout;
use crate::direction::Direction;
use crate::driver::{Driver, Schedule, StepError, StepErrorOf, StepRecord};
use crate::geometry::{Axis, Box3};
use crate::ghost_zone::{agreed_wish, zone_steps};
use crate::step_log::StepLog;
use crate::topology::Topology;

/// How a run is laid out and balanced.
#[derive(Clone, Debug)]
pub struct Plan {
    /// Ranks per axis.
    pub topology: Topology,
    /// Initial borders per axis.
    pub borders: [Vec<i64>; 3],
    /// Axes that wrap around.
    pub periodic: [bool; 3],
    /// Axes the grid uses.
    pub active: [bool; 3],
    /// The dynamic balancer, if borders may move during the run.
    pub balancer: Option<Balancer>,
    /// Overlap the halo exchange with the interior update (see [`Driver::set_overlap`]).
    pub overlap: bool,
}

impl Plan {
    /// The box rank `rank` owns before any rebalance: where its chunk starts.
    pub fn initial_box(&self, rank: usize) -> Box3 {
        self.layout(&self.borders).chunk_box(rank)
    }

    /// The layout with `borders`.
    pub fn layout<'a>(&self, borders: &'a [Vec<i64>; 3]) -> Layout<'a> {
        Layout {
            topology: self.topology,
            borders: [&borders[0], &borders[1], &borders[2]],
            periodic: self.periodic,
        }
    }
}

/// One rebalance.
#[derive(Clone, Debug, PartialEq)]
pub struct HistoryEntry {
    /// Steps completed when it happened.
    pub step: u64,
    /// Borders per axis after it.
    pub borders: [Vec<i64>; 3],
    /// Predicted step time of the new layout.
    pub predicted_seconds: f64,
    /// Measured step time of the interval before it (eq. (2) on interval means).
    pub measured_seconds: f64,
    /// Disabled lines per axis.
    pub disabled: [Vec<usize>; 3],
    /// What changed: the decision's action ([`crate::balance::Decision::action`]), or "keep"
    /// when the borders did not move.
    pub action: String,
    /// Each rank's box after it, for a jagged or k-d layout (empty for a tensor layout,
    /// whose boxes are its borders).
    pub boxes: Vec<crate::Box3>,
}

/// What a run leaves besides the chunk.
#[derive(Clone, Debug, Default)]
pub struct RunLog {
    /// The steps' records: totals over every step and the most recent records.
    pub records: StepLog,
    /// The balancing history (identical on every rank).
    pub history: Vec<HistoryEntry>,
    /// The step reached (fewer than asked when a rank asked to stop): the steps run, counted
    /// from step 0 even when the run started later ([`Start::step`]).
    pub steps: u64,
    /// The balancer as it ended. Its decisions are every rank's, but of the measurements it
    /// holds only this rank's: [`crate::balance_reduce::gather_measurements`] gives it every
    /// rank's (for saving a profile or a checkpoint).
    pub balancer: Option<Balancer>,
    /// The borders per axis as the run ended.
    pub borders: [Vec<i64>; 3],
}

/// Where a run starts: a step, the borders and the balancer at that step. A fresh run starts
/// at step 0 with the plan's own ([`Start::of`]); a run resumed from a checkpoint, or the next
/// segment of a run cut at a checkpoint, starts where the last one ended ([`RunLog::end`]).
#[derive(Clone, Debug)]
pub struct Start {
    /// Steps already done.
    pub step: u64,
    /// Borders per axis at that step.
    pub borders: [Vec<i64>; 3],
    /// The balancer's state at that step, with its measurements and disabled sets.
    pub balancer: Option<Balancer>,
}

impl Start {
    /// Step 0 of `plan`.
    pub fn of(plan: &Plan) -> Start {
        Start {
            step: 0,
            borders: plan.borders.clone(),
            balancer: plan.balancer.clone(),
        }
    }

    /// The box rank `rank` owns at this start.
    pub fn owned_box(&self, plan: &Plan, rank: usize) -> Box3 {
        plan.layout(&self.borders).chunk_box(rank)
    }
}

impl RunLog {
    /// Where a run that continues this one starts.
    pub fn end(&self) -> Start {
        Start {
            step: self.steps,
            borders: self.borders.clone(),
            balancer: self.balancer.clone(),
        }
    }
}

/// Steps between the collective checks of `after_step`'s stop requests.
pub const STOP_CHECK_STEPS: u64 = 32;

/// Sizes of the two messages that measure each original link at a rebalance (two sizes fit
/// both latency and bandwidth).
pub const PROBE_BYTES: [usize; 2] = [256, 16384];

/// Runs `steps` steps of `chunk`, which must own this rank's box of the plan's initial layout
/// ([`Plan::initial_box`]); migrations resize it in place. `after_step(step, chunk)` runs
/// after every step and returns true to ask every rank to stop (checked collectively every
/// [`STOP_CHECK_STEPS`] steps and at the end). A plan with a balancer needs a chunk that can
/// migrate: otherwise the run fails at once with the chunk's `unsupported` error, instead of
/// dropping the balancer's decisions.
pub fn run_steps<C: Chunk, M: Comm>(
    plan: &Plan,
    comm: &mut M,
    steps: u64,
    chunk: C,
    after_step: impl FnMut(u64, &mut C) -> bool,
) -> Result<(C, RunLog), StepErrorOf<C, M>> {
    run_steps_from(plan, Start::of(plan), steps, steps, comm, chunk, after_step)
}

/// [`run_steps`] from `start` up to step `until` of a run of `total` steps: `chunk` owns this
/// rank's box of `start`'s borders and holds the fields after `start.step` steps in its owned
/// cells (the halos of every phase are exchanged first, so its ghosts need not). Steps are
/// numbered as in the whole run (sources and balancing intervals see the same step numbers),
/// and the last step of a segment ends with a stop check and the rebalance due there, so a
/// run cut into segments ([`RunLog::end`] starts the next) steps exactly as the whole run
/// would (a stop asked for by `after_step` skips the rebalance of the step it stops at). Only
/// the measurements of a balancing interval that spans a cut are those taken after it.
pub fn run_steps_from<C: Chunk, M: Comm>(
    plan: &Plan,
    start: Start,
    until: u64,
    total: u64,
    comm: &mut M,
    chunk: C,
    after_step: impl FnMut(u64, &mut C) -> bool,
) -> Result<(C, RunLog), StepErrorOf<C, M>> {
    run_steps_observed(plan, start, until, total, comm, chunk, |_| true, after_step)
}

/// [`run_steps_from`] where only the steps `observed` selects need their fields seen by
/// `after_step`: a rank alone in the run (one rank, with no periodic wrap or one its chunk
/// refreshes itself, [`Chunk::wraps_itself`]: nothing arrives between steps) and without a
/// balancer advances up to [`Chunk::steps_per_submit`] steps at once
/// ([`Driver::steps`]: the chunk may tile them over space and time), stopping at every
/// observed step and at `until`, and `after_step` runs once such a tile has ended, with the
/// step count there. Stop requests are checked collectively at the end of a tile that
/// reaches or crosses a multiple of [`STOP_CHECK_STEPS`]. Ranks with neighbours whose chunks
/// all keep a ghost zone ([`crate::ghost_zone`], [`Chunk::set_ghost_zone`]) advance blocks of
/// up to its depth in steps the same way, exchanging halos once a block, a block ending also
/// at each rebalance. Any other run steps one by one, as [`run_steps_from`].
#[allow(clippy::too_many_arguments)]
pub fn run_steps_observed<C: Chunk, M: Comm>(
    plan: &Plan,
    start: Start,
    until: u64,
    total: u64,
    comm: &mut M,
    mut chunk: C,
    observed: impl Fn(u64) -> bool,
    mut after_step: impl FnMut(u64, &mut C) -> bool,
) -> Result<(C, RunLog), StepErrorOf<C, M>> {
    let rank = comm.rank();
    let Start {
        step: first,
        mut borders,
        mut balancer,
    } = start;
    if balancer.is_some() && !C::CAPABILITIES.migration {
        return Err(StepError::Chunk(C::Error::unsupported(
            "dynamic balancing (migration)",
        )));
    }
    debug_assert_eq!(chunk.owned(), plan.layout(&borders).chunk_box(rank));
    let mut driver = Driver::new(Schedule::new(&plan.layout(&borders), rank, plan.active));
    driver.set_overlap(plan.overlap);
    // Ranks with neighbours advance several steps between exchanges where every chunk can
    // (ghost-zone expansion, [`crate::ghost_zone`]), and as many as the thinnest box allows.
    let wish = agreed_wish(&chunk, comm, plan.periodic).map_err(StepError::Comm)?;
    let reach = chunk.ghost().into_iter().max().unwrap_or(1);
    let zone =
        |borders: &[Vec<i64>; 3]| zone_steps(wish, reach, &plan.layout(borders), plan.active);
    if zone(&borders) != chunk.steps_per_exchange() {
        chunk
            .set_ghost_zone(zone(&borders))
            .map_err(StepError::Chunk)?;
    }
    // The ghosts hold nothing yet — a chunk restored from a checkpoint, or a fresh one whose
    // initial values were set on its owned cells only: every phase's halos are exchanged
    // before the first step, so the first stencil to read across a border reads the
    // neighbour's values and not zeros.
    for phase in 0..chunk.phases() {
        driver.exchange(&mut chunk, comm, phase)?;
    }
    let original = plan.layout(&plan.borders);
    let mut log = RunLog {
        steps: first,
        ..RunLog::default()
    };
    let mut stop = false;
    let mut flags = vec![0.0; comm.size()];
    // The records of the balancing interval under way (kept only with a balancer).
    let mut interval: Vec<StepRecord> = Vec::new();
    let end = until.min(total);
    let alone = balancer.is_none() && comm.size() == 1 && driver.submits_alone(&chunk, rank);
    let mut next = first;
    while next < end {
        let step = next;
        let most = if alone {
            chunk.steps_per_submit().max(1)
        } else {
            chunk.steps_per_exchange().max(1)
        };
        // A block of steps between exchanges ends where the balancer measures and moves
        // borders, so balancing sees whole blocks.
        let rebalances = |s: u64| balancer.as_ref().is_some_and(|b| s % b.params().every == 0);
        let mut count = 1;
        while count < most
            && step + count < end
            && !observed(step + count)
            && !rebalances(step + count)
        {
            count += 1;
        }
        // The last step of the tile: the loop below goes on as after that one step.
        let step = step + count - 1;
        next = step + 1;
        for record in driver.steps(&mut chunk, comm, next - count, count)? {
            if balancer.is_some() {
                interval.push(record.clone());
            }
            log.records.push(record);
        }
        log.steps = step + 1;
        stop |= after_step(step + 1, &mut chunk);
        let crossed = (step + 1) % STOP_CHECK_STEPS < count.min(STOP_CHECK_STEPS);
        if crossed || step + 1 == until {
            comm.all_gather(&[f64::from(u8::from(stop))], &mut flags)
                .map_err(StepError::Comm)?;
            if flags.iter().any(|&f| f > 0.0) {
                break;
            }
        }
        let Some(b) = balancer.as_mut() else { continue };
        if (step + 1) % b.params().every != 0 || step + 1 == total {
            continue;
        }
        let mut mine = interval_summary(&interval, driver.schedule());
        interval.clear();
        // A collective first (a barrier), so the probes measure the links and not who
        // arrived late.
        let reduced = comm
            .all_reduce(&mut [], &mut [0.0])
            .and_then(|()| probe_links(comm, &original, rank, plan.active, &mut mine))
            .and_then(|()| reduce_inputs(b, comm, &mine))
            .map_err(StepError::Comm)?;
        let measured = reduced.measured;
        let decision = b.decide_from(
            &reduced.line_perf,
            &reduced.border_times,
            reduced.total_work,
            measured,
        );
        let Ok(decision) = decision else {
            continue;
        };
        log.history.push(HistoryEntry {
            step: step + 1,
            borders: decision.borders.clone(),
            predicted_seconds: decision.predicted_seconds,
            measured_seconds: measured,
            disabled: decision.disabled.clone(),
            action: match decision.borders == borders && decision.action == REBALANCE {
                true => String::from("keep"),
                false => decision.action.clone(),
            },
            boxes: Vec::new(),
        });
        if decision.borders != borders {
            let old = borders.clone();
            // The zone of the new borders, set before the cells move (its halos go out after).
            if zone(&decision.borders) != chunk.steps_per_exchange() {
                chunk
                    .set_ghost_zone(zone(&decision.borders))
                    .map_err(StepError::Chunk)?;
            }
            driver.migrate(
                &mut chunk,
                comm,
                &plan.layout(&old),
                &plan.layout(&decision.borders),
                plan.active,
            )?;
            borders = decision.borders;
        }
    }
    log.balancer = balancer;
    log.borders = borders;
    Ok((chunk, log))
}
/// The face index of a face direction: 2·axis, +1 on the high side.
fn face_of(dir: Direction) -> Option<usize> {
    let axis = dir.face_axis()?;
    Some(2 * axis.index() + usize::from(dir.0[axis.index()] > 0))
}

/// This rank's contribution to a balancing interval (see [`GATHER_LEN`]).
fn interval_summary(records: &[StepRecord], schedule: &Schedule) -> [f64; GATHER_LEN] {
    let mut g = [0.0; GATHER_LEN];
    for r in records {
        g[0] += r.work;
        g[1] += r.compute_seconds;
        g[2] += 1.0;
        for (d, &dir) in schedule.directions.iter().enumerate() {
            let Some(face) = face_of(dir) else { continue };
            if r.bytes_received[d] == 0 {
                continue;
            }
            let h = &mut g[3 + FACE_LEN * face..3 + FACE_LEN * (face + 1)];
            h[0] += r.bytes_received[d] as f64;
            h[2] += r.share_seconds[d];
            h[3] += 1.0;
            if r.transfer_seconds[d].is_finite() {
                h[1] += r.transfer_seconds[d];
                h[4] += 1.0;
            }
        }
    }
    g
}

/// Sends the [`PROBE_BYTES`] messages across every face of the original layout and times them,
/// so the balancer keeps measuring links that disabling left unused.
fn probe_links<M: Comm>(
    comm: &mut M,
    original: &Layout,
    rank: usize,
    active: [bool; 3],
    out: &mut [f64; GATHER_LEN],
) -> Result<(), M::Error> {
    let faces = Axis::ALL
        .into_iter()
        .filter(|a| active[a.index()])
        .flat_map(|a| [Direction::face(a, false), Direction::face(a, true)]);
    let peers: Vec<(Direction, Option<usize>)> = faces
        .map(|d| (d, neighbour_ignoring_widths(original, rank, d)))
        .collect();
    let faces: Vec<(Direction, usize)> = peers
        .iter()
        .filter_map(|&(dir, peer)| Some((dir, peer?)))
        .collect();
    for (k, &size) in PROBE_BYTES.iter().enumerate() {
        let payload = vec![0u8; size];
        let outgoing: Vec<Outgoing<'_>> = faces
            .iter()
            .map(|&(dir, peer)| Outgoing {
                peer,
                route: Route::Halo(dir),
                bytes: &payload,
            })
            .collect();
        let mut buffers = vec![vec![0u8; size]; faces.len()];
        let mut incoming: Vec<Incoming<'_>> = faces
            .iter()
            .zip(buffers.iter_mut())
            .map(|(&(dir, peer), b)| Incoming::new(peer, Route::arriving_from(dir), b))
            .collect();
        comm.exchange(&outgoing, &mut incoming, &mut |_| {})?;
        for (&(dir, _), received) in faces.iter().zip(&incoming) {
            let seconds = if received.transfer.is_finite() {
                received.transfer
            } else {
                received.waited
            };
            // The peer on the `dir` side sent toward this rank.
            if let Some(face) = face_of(dir) {
                out[3 + FACE_LEN * face + 5 + 2 * k] += size as f64;
                out[3 + FACE_LEN * face + 6 + 2 * k] += seconds;
            }
        }
    }
    Ok(())
}

/// The neighbour in the topology itself, disabled lines included.
fn neighbour_ignoring_widths(layout: &Layout, rank: usize, dir: Direction) -> Option<usize> {
    let c = crate::decomposition::rank_coords(rank, layout.topology);
    let mut out = [0usize; 3];
    for a in 0..3 {
        let n = layout.topology.0[a] as i64;
        let mut x = c[a] as i64 + dir.0[a] as i64;
        if x < 0 || x >= n {
            if !layout.periodic[a] {
                return None;
            }
            x = x.rem_euclid(n);
        }
        out[a] = x as usize;
    }
    Some(crate::decomposition::rank_of(out, layout.topology))
}
