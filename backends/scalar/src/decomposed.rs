//! One rank of a decomposed Yee run on any [`YeeBackend`] (the generic session of
//! `yee_core::session` over its chunk): its probes, its divergence check, and the pieces the
//! caller assembles into whole fields.

use alloc::vec;
use alloc::vec::Vec;
use yee_core::balance_reduce::gather_measurements;
use yee_core::driver::{StepError, StepErrorOf};
use yee_core::session::{HistoryEntry, Plan, Start, run_steps_observed};
use yee_core::step_log::StepLog;
use yee_core::{Box3, Comm, HostChunkError, Real, Scalar, Topology};
use yee_em::decay::{DecayRule, DecayWatch, largest_over_ranks};
use yee_em::{Component, Costs, Setup, YeeBackend, YeeFields};

use crate::checkpoints::{CheckpointRecord, Checkpoints, Cut, CutLayout, NoCheckpoints, SavedPart};
use crate::chunk::{ScalarCurl, YeeChunk};
use crate::error::RunError;

/// What one rank returns.
#[derive(Clone, Debug)]
pub struct RankOutput<T> {
    /// The rank.
    pub rank: usize,
    /// The box it owned at the end.
    pub owned: Box3,
    /// Its part of each component (x fastest over `owned`); `None` for absent components.
    pub fields: [Option<Vec<T>>; 6],
    /// `(probe index, [(step, value)])` for the steps at which it owned the probe.
    pub probes: Vec<(usize, Vec<(u64, T)>)>,
    /// Its steps' records: totals over every step and the most recent records.
    pub records: StepLog,
    /// Its part of each DFT monitor at the end of the run.
    pub dft: Vec<DftPiece<T>>,
    /// The first divergence seen on this rank, if any.
    pub diverged: Option<RunError>,
    /// The balancing history (identical on every rank).
    pub history: Vec<HistoryEntry>,
    /// The balancer as it ended, if the run balanced: its decisions are every rank's, its
    /// measurements every rank's on rank 0 and this rank's own elsewhere.
    pub balancer: Option<yee_core::balance::Balancer>,
    /// The balancer of a jagged or k-d layout as it ended, if the run balanced one.
    pub box_balancer: Option<yee_core::box_balance::BoxBalancer>,
    /// Steps done when this run started (0 unless resumed from a checkpoint).
    pub first_step: u64,
    /// Steps done when it ended.
    pub last_step: u64,
    /// A signal stopped the run at `last_step` (identical on every rank).
    pub interrupted: bool,
    /// The decay rule ([`Checkpoints::until_decayed`]) ended the run at `last_step`
    /// (identical on every rank).
    pub decayed: bool,
    /// The checkpoints taken, in order (as the writing rank completed them).
    pub checkpoints: Vec<CheckpointRecord>,
    /// The most steps its chunk would advance at once: in a decomposed run, between halo
    /// exchanges ([`yee_core::Chunk::steps_per_exchange`], its ghost zone's depth), alone, in
    /// a tile ([`yee_core::Chunk::steps_per_submit`]); 1: one step at a time.
    pub tile_steps: u64,
    /// The most steps it did advance at once (temporal blocking; 1 when it never did).
    pub longest_tile: u64,
}

impl<T> RankOutput<T> {
    /// Rank `rank` owning `owned` with nothing recorded: no fields, probes, steps or history.
    pub fn empty(rank: usize, owned: Box3) -> Self {
        RankOutput {
            rank,
            owned,
            fields: Default::default(),
            probes: Vec::new(),
            records: StepLog::default(),
            dft: Vec::new(),
            diverged: None,
            history: Vec::new(),
            balancer: None,
            box_balancer: None,
            first_step: 0,
            last_step: 0,
            interrupted: false,
            decayed: false,
            checkpoints: Vec::new(),
            tile_steps: 1,
            longest_tile: 1,
        }
    }
}

/// A plan with uniform borders and no balancing.
pub fn uniform_plan(setup: &Setup, topology: Topology) -> Plan {
    Plan {
        topology,
        borders: yee_core::decomposition::uniform_layout_borders(setup.grid, topology),
        periodic: yee_core::Axis::ALL.map(|a| setup.is_periodic(a)),
        active: setup.mode.active_axes(),
        balancer: None,
        overlap: true,
    }
}

/// Runs `steps` steps of rank `comm.rank()` of `setup` laid out (and balanced) by `plan` on
/// the scalar backend, with cell `costs` as the work the balancer sees, calling
/// `after_step(step, chunk)` after each (1-based step count). See [`run_rank_on`].
pub fn run_rank<'s, T: Scalar, M: Comm>(
    setup: &Setup<'s>,
    plan: &Plan,
    costs: Costs,
    comm: &mut M,
    steps: u64,
    after_step: impl FnMut(u64, &mut YeeChunk<'s, T>),
) -> Result<RankOutput<T>, StepError<HostChunkError, M::Error>> {
    run_rank_on(setup, plan, costs, &ScalarCurl, comm, steps, after_step)
}

/// [`run_rank`] on any backend. A rank whose fields go non-finite asks every rank to stop;
/// the output names the first non-finite step and cell.
pub fn run_rank_on<'s, T: Scalar, B: YeeBackend<T>, M: Comm>(
    setup: &Setup<'s>,
    plan: &Plan,
    costs: Costs,
    backend: &B,
    comm: &mut M,
    steps: u64,
    after_step: impl FnMut(u64, &mut B::Chunk<'s>),
) -> Result<RankOutput<T>, StepErrorOf<B::Chunk<'s>, M>> {
    let chunk = backend
        .build(setup, plan.initial_box(comm.rank()), costs)
        .map_err(StepError::Chunk)?;
    let prior = vec![Vec::new(); setup.probes.len()];
    let mut none = NoCheckpoints::default();
    run_rank_with(
        setup,
        plan,
        Start::of(plan),
        chunk,
        prior,
        comm,
        steps,
        &mut none,
        &|_| true,
        after_step,
    )
}

/// [`run_rank_on`] from `start`, with `chunk` already holding this rank's box of it (a
/// checkpoint restored into it) and `prior` the probe samples before it (per probe index),
/// cut at the checkpoints `hooks` asks for. After a cut every rank saves its part, the ranks
/// gather what each saved, and the checkpoint is committed; the run then goes on from where
/// it was cut, or ends there when a signal interrupted it. Only the steps `observed` selects
/// (outputs) — and every step where the setup has probes, unless the chunk samples them inside
/// its tiles ([`YeeFields::samples_probes`]) — must be seen by `after_step`: a rank
/// alone in the run may advance several steps between them at once
/// ([`yee_core::session::run_steps_observed`]; `after_step` then runs at the end of each such
/// tile, and a divergence is reported at that step).
#[allow(clippy::too_many_arguments)]
pub fn run_rank_with<
    's,
    T: Scalar,
    C: YeeFields<Value = T>,
    M: Comm,
    H: Checkpoints<C> + ?Sized,
>(
    setup: &Setup<'s>,
    plan: &Plan,
    start: Start,
    mut chunk: C,
    prior: Vec<Vec<(u64, T)>>,
    comm: &mut M,
    steps: u64,
    hooks: &mut H,
    observed: &dyn Fn(u64) -> bool,
    mut after_step: impl FnMut(u64, &mut C),
) -> Result<RankOutput<T>, StepErrorOf<C, M>> {
    let rank = comm.rank();
    let first_step = start.step;
    let mut series = prior;
    series.resize(setup.probes.len(), Vec::new());
    let mut diverged = None;
    let mut failure = None;
    let mut records = StepLog::default();
    let mut history = Vec::new();
    let mut checkpoints = Vec::new();
    let mut interrupted = false;
    let mut decayed = false;
    let mut watch =
        start_watch(hooks.until_decayed(), &series, first_step, comm).map_err(StepError::Comm)?;
    let mut at = start;
    let (mut seen_at, mut longest_tile) = (first_step, 1);
    while at.step < steps {
        let due = hooks.next_due(at.step);
        let check = watch.map(|w| w.rule.next_check(at.step));
        let until = [due, check].into_iter().flatten().fold(steps, u64::min);
        // Probes sample every step: then every step is seen, unless the chunk samples them
        // itself inside its tiles (`record_step` drains those samples).
        let sampled = setup.probes.is_empty() || chunk.samples_probes();
        let seen = |step: u64| !sampled || observed(step);
        let (c, log) =
            run_steps_observed(plan, at, until, steps, comm, chunk, seen, |step, chunk| {
                longest_tile = longest_tile.max(step - seen_at);
                seen_at = step;
                if let Err(e) = record_step(setup, chunk, step, &mut diverged, &mut series) {
                    failure.get_or_insert(e);
                }
                after_step(step, chunk);
                let wants = hooks.wants_stop();
                diverged.is_some() || failure.is_some() || wants
            })?;
        chunk = c;
        at = log.end();
        records.append(log.records);
        history.extend(log.history);
        if let Some(e) = failure.take() {
            return Err(StepError::Chunk(e));
        }
        if at.step == steps {
            break;
        }
        // Cut before the end: every rank learns why, and a run that went wrong ends here;
        // at a decay check every rank hands in its part of the interval's peak, and all end
        // here when the fields have decayed. A cut for a check alone takes no checkpoint.
        let checks = check == Some(at.step);
        let peak = match watch.filter(|_| checks) {
            Some(w) => w.rule.local_peak(held(&series, w.rule.probe), at.step),
            None => 0.0,
        };
        let wants = at.step < until || due == Some(at.step) || hooks.wants_stop();
        let mine = [
            f64::from(u8::from(diverged.is_some())),
            f64::from(u8::from(hooks.interrupted())),
            f64::from(u8::from(wants)),
            peak,
        ];
        let mut why = vec![0.0; WHY * comm.size()];
        comm.all_gather(&mine, &mut why).map_err(StepError::Comm)?;
        let any = |k: usize| why.chunks(WHY).any(|w| w[k] > 0.0);
        if any(0) {
            break;
        }
        if let Some(w) = watch.as_mut().filter(|_| checks) {
            if w.decayed(largest_over_ranks(&why, WHY, 3)) {
                decayed = true;
                break;
            }
        }
        if !any(2) {
            continue;
        }
        if let Some(b) = at.balancer.as_mut() {
            // Rank 0 writes the index, with every rank's measurements.
            gather_measurements(b, comm, 0).map_err(StepError::Comm)?;
        }
        let cut = Cut {
            step: at.step,
            layout: CutLayout::Tensor { plan, start: &at },
        };
        checkpoints.push(checkpoint(&mut chunk, comm, hooks, &series, &cut)?);
        if any(1) {
            interrupted = true;
            break;
        }
    }
    if let Some(b) = at.balancer.as_mut() {
        // Rank 0's balancer, with every rank's measurements, is the run's profile.
        gather_measurements(b, comm, 0).map_err(StepError::Comm)?;
    }
    let (owned, fields) = if hooks.keeps_fields() {
        owned_fields(&mut chunk).map_err(StepError::Chunk)?
    } else {
        (chunk.owned(), Default::default())
    };
    let dft = dft_pieces(setup, &mut chunk, &[owned]).map_err(StepError::Chunk)?;
    let probes = series
        .into_iter()
        .enumerate()
        .filter(|(_, s)| !s.is_empty())
        .collect();
    Ok(RankOutput {
        rank,
        owned,
        fields,
        probes,
        records,
        dft,
        diverged,
        history,
        balancer: at.balancer,
        box_balancer: None,
        first_step,
        last_step: at.step,
        interrupted,
        decayed,
        checkpoints,
        tile_steps: match comm.size() {
            1 => chunk.steps_per_submit(),
            _ => chunk.steps_per_exchange(),
        },
        longest_tile,
    })
}

/// What a rank records at a step it sees: the first non-finite node of its box (until one is
/// found) and its probes' samples — those the chunk took inside a tile that ended here
/// ([`YeeFields::drain_probe_samples`]), then this step's.
fn record_step<T: Scalar, C: YeeFields<Value = T>>(
    setup: &Setup,
    chunk: &mut C,
    step: u64,
    diverged: &mut Option<RunError>,
    series: &mut [Vec<(u64, T)>],
) -> Result<(), C::Error> {
    let owned = chunk.owned();
    if diverged.is_none() {
        *diverged = chunk
            .first_non_finite(&[owned])?
            .map(|(component, cell)| RunError::Diverged {
                step,
                component,
                cell,
            });
    }
    let mut inside = Vec::new();
    chunk.drain_probe_samples(&mut inside)?;
    for (i, at, value) in inside {
        series[i].push((at, value));
    }
    for (i, p) in setup.probes.iter().enumerate() {
        if owned.contains(p.cell) {
            series[i].push((step, chunk.value(p.component, p.cell)?));
        }
    }
    Ok(())
}

/// The samples of probe `probe` this rank holds (none for an index past the probes).
pub(crate) fn held<T>(series: &[Vec<(u64, T)>], probe: usize) -> &[(u64, T)] {
    series.get(probe).map_or(&[], Vec::as_slice)
}

/// What each rank hands in at a cut: diverged, interrupted, wants a checkpoint, its part of
/// the decay check's peak.
const WHY: usize = 4;

/// The decay watch of a run that starts after `first_step` (`None` without a rule): the
/// checks before it (a resumed run's) replayed from the probe samples the ranks hold, each
/// check's peak agreed over the ranks, so every rank's watch is the one the run had.
pub(crate) fn start_watch<T: Scalar, M: Comm>(
    rule: Option<DecayRule>,
    series: &[Vec<(u64, T)>],
    first_step: u64,
    comm: &mut M,
) -> Result<Option<DecayWatch>, M::Error> {
    let Some(rule) = rule else {
        return Ok(None);
    };
    let mut watch = DecayWatch::new(rule);
    let checks: Vec<u64> = rule.checks_through(first_step).collect();
    if !checks.is_empty() {
        let mine: Vec<f64> = checks
            .iter()
            .map(|&c| rule.local_peak(held(series, rule.probe), c))
            .collect();
        let mut all = vec![0.0; mine.len() * comm.size()];
        comm.all_gather(&mine, &mut all)?;
        for k in 0..checks.len() {
            watch.decayed(largest_over_ranks(&all, checks.len(), k));
        }
    }
    Ok(Some(watch))
}

/// Every rank saves its part of the checkpoint at `at`; what each saved is gathered, and the
/// checkpoint committed. A rank that could not save (a full disk) does not stop the run: the
/// checkpoint is recorded as failed on every rank.
pub(crate) fn checkpoint<T: Scalar, C: YeeFields<Value = T>, M: Comm, H>(
    chunk: &mut C,
    comm: &mut M,
    hooks: &mut H,
    series: &[Vec<(u64, T)>],
    at: &Cut,
) -> Result<CheckpointRecord, StepErrorOf<C, M>>
where
    H: Checkpoints<C> + ?Sized,
{
    let saved = hooks.save(chunk, series, at);
    let mine = match &saved {
        Ok(p) => [1.0, p.bytes as f64, f64::from(p.checksum)],
        Err(_) => [0.0; 3],
    };
    let mut all = vec![0.0; 3 * comm.size()];
    comm.all_gather(&mine, &mut all).map_err(StepError::Comm)?;
    let parts: Vec<Option<SavedPart>> = all
        .chunks(3)
        .map(|p| {
            (p[0] > 0.0).then(|| SavedPart {
                bytes: p[1] as u64,
                checksum: p[2] as u32,
            })
        })
        .collect();
    let missing = parts
        .iter()
        .position(Option::is_none)
        .map(|r| alloc::format!("rank {r} could not write its part of the checkpoint"));
    // Why it is not whole (this rank's own failure, else the first rank that failed), then
    // what the commit did about it (the partial folder removed, or the index not written).
    let error = match (saved.err().or(missing), hooks.commit(at, &parts)) {
        (None, Ok(())) => None,
        (Some(e), Ok(())) | (None, Err(e)) => Some(e),
        (Some(e), Err(c)) => Some(alloc::format!("{e}; {c}")),
    };
    Ok(CheckpointRecord {
        step: at.step,
        error,
    })
}

/// A chunk's owned box and each component over it (x fastest); `None` for absent ones.
pub fn owned_fields<C: YeeFields>(chunk: &mut C) -> Result<Piece<C::Value>, C::Error> {
    let owned = chunk.owned();
    let mut fields: [Option<Vec<C::Value>>; 6] = Default::default();
    for c in Component::ALL {
        let mut out = vec![<C::Value as bytemuck::Zeroable>::zeroed(); owned.cells()];
        if chunk.read_component(c, owned, &mut out)? {
            fields[c.index()] = Some(out);
        }
    }
    Ok((owned, fields))
}

/// One rank's part of one DFT monitor: the running sums over the monitor's nodes it owns.
#[derive(Clone, Debug, PartialEq)]
pub struct DftPiece<T> {
    /// The monitor's index in the setup.
    pub monitor: usize,
    /// Values per node and component (two per frequency).
    pub per_node: usize,
    /// The nodes.
    pub part: Box3,
    /// Per component, `per_node` values per node of `part` (x fastest).
    pub sums: ComponentValues<T>,
}

/// The chunk's part of every DFT monitor of `setup` inside each of `regions` (the owned box,
/// or the tiles of a tile-set rank).
pub fn dft_pieces<C: YeeFields>(
    setup: &Setup,
    chunk: &mut C,
    regions: &[Box3],
) -> Result<Vec<DftPiece<C::Value>>, C::Error> {
    let mut pieces = Vec::new();
    for (index, m) in setup.monitors.iter().enumerate() {
        for part in regions.iter().map(|r| m.region.intersect(r)) {
            if part.is_empty() {
                continue;
            }
            let per_node = m.values_per_node();
            let mut sums: ComponentValues<C::Value> = Default::default();
            for c in m.component_list() {
                let mut out =
                    vec![<C::Value as bytemuck::Zeroable>::zeroed(); part.cells() * per_node];
                if chunk.read_dft(index, c, part, &mut out)? {
                    sums[c.index()] = Some(out);
                }
            }
            pieces.push(DftPiece {
                monitor: index,
                per_node,
                part,
                sums,
            });
        }
    }
    Ok(pieces)
}

/// The whole transforms of monitor `index` of `setup` from every rank's pieces, as complex
/// values per node and frequency ([`yee_em::DftFields`]).
pub fn assemble_dft<'a, T: Scalar>(
    setup: &Setup,
    index: usize,
    pieces: impl Iterator<Item = &'a DftPiece<T>>,
) -> yee_em::DftFields {
    let m = &setup.monitors[index];
    let frequencies = setup.frequencies_of(m).to_vec();
    let f = frequencies.len();
    let mut values: [Option<Vec<num_complex::Complex64>>; 6] = core::array::from_fn(|c| {
        m.components[c].then(|| vec![num_complex::Complex64::new(0.0, 0.0); m.region.cells() * f])
    });
    for piece in pieces.filter(|p| p.monitor == index) {
        for (c, sums) in piece.sums.iter().enumerate() {
            let (Some(sums), Some(out)) = (sums, &mut values[c]) else {
                continue;
            };
            for n in 0..piece.part.cells() {
                let o = m.region.linear_index(piece.part.index_at(n)) * f;
                for k in 0..f {
                    // F = A + iB with A = Σ F cos, B = Σ F sin (A and B complex for complex fields).
                    let (a, b) = (sums[(n * f + k) * 2], sums[(n * f + k) * 2 + 1]);
                    let (a, b) = (
                        num_complex::Complex64::new(a.re().to_f64(), a.im().to_f64()),
                        num_complex::Complex64::new(b.re().to_f64(), b.im().to_f64()),
                    );
                    out[o + k] = a + num_complex::Complex64::i() * b;
                }
            }
        }
    }
    yee_em::DftFields {
        region: m.region,
        frequencies,
        values,
    }
}

/// Values of each component (x fastest over some cells), `None` for those the mode lacks.
pub type ComponentValues<T> = [Option<Vec<T>>; 6];

/// One rank's owned box and its part of each component.
pub type Piece<T> = (Box3, ComponentValues<T>);

/// Assembles component `c` over the whole grid from the ranks' pieces (x fastest).
pub fn assemble<T: Scalar>(
    outputs: &[RankOutput<T>],
    grid: [usize; 3],
    c: Component,
) -> Option<Vec<T>> {
    let mut out = vec![T::zero(); grid.iter().product()];
    for o in outputs {
        let piece = o.fields[c.index()].as_ref()?;
        crate::scatter::scatter_tiles(grid, core::slice::from_ref(&o.owned), piece, &mut out);
    }
    Some(out)
}

/// The mean over steps of Balykov 2019's eq. (2) step time, from every rank's records
/// (virtual seconds on the simulated communicator): over the last
/// [`yee_core::step_log::RECENT_STEPS`] steps at most, the records the ranks keep.
pub fn mean_step_time<T>(results: &[RankOutput<T>]) -> f64 {
    let steps = results
        .iter()
        .map(|r| r.records.recent.len())
        .min()
        .unwrap_or(0);
    if steps == 0 {
        return 0.0;
    }
    // Every rank ran the same steps: align their logs at the last one.
    fn at<T>(r: &RankOutput<T>, steps: usize, s: usize) -> &yee_core::driver::StepRecord {
        &r.records.recent[r.records.recent.len() - steps + s]
    }
    let dirs = at(&results[0], steps, 0).share_seconds.len();
    let total: f64 = (0..steps)
        .map(|s| {
            let compute: Vec<f64> = results
                .iter()
                .map(|r| at(r, steps, s).compute_seconds)
                .collect();
            let share: Vec<f64> = results
                .iter()
                .flat_map(|r| at(r, steps, s).share_seconds.iter().copied())
                .collect();
            yee_core::model::step_time(&compute, &share, dirs)
        })
        .sum();
    total / steps as f64
}

/// The whole record of probe `i`, stitched in step order from the ranks that held it.
pub fn probe_series<T: Scalar>(outputs: &[RankOutput<T>], i: usize) -> Option<Vec<T>> {
    series_of(outputs.iter().flat_map(|o| &o.probes), i)
}

/// The record of probe `i` in step order from every rank's `(probe index, [(step, value)])`
/// lists (a probe moves between ranks when borders do); `None` where no rank recorded it.
pub fn series_of<'a, T: Scalar>(
    probes: impl Iterator<Item = &'a (usize, Vec<(u64, T)>)>,
    i: usize,
) -> Option<Vec<T>> {
    let mut samples: Vec<(u64, T)> = probes
        .filter(|(k, _)| *k == i)
        .flat_map(|(_, s)| s.iter().copied())
        .collect();
    if samples.is_empty() {
        return None;
    }
    samples.sort_by_key(|(step, _)| *step);
    Some(samples.into_iter().map(|(_, v)| v).collect())
}

/// The earliest divergence over all ranks.
pub fn first_divergence<T>(outputs: &[RankOutput<T>]) -> Option<RunError> {
    outputs
        .iter()
        .filter_map(|o| o.diverged)
        .min_by_key(RunError::step)
}
