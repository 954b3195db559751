//! One rank of a decomposed run: its chunk stepped by the generic driver, balanced every
//! `T_perf` steps when asked (migrating cells between ranks), its probes, and the pieces the
//! caller assembles into whole fields.

use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;
use yee_core::balance::{Balancer, GATHER_LEN};
use yee_core::decomposition::Layout;
use yee_core::driver::{Driver, Schedule, StepRecord};
use yee_core::{Box3, Comm, Component, Costs, Field, Scalar, Setup, Topology};

use crate::chunk::YeeChunk;
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
    /// One record per step.
    pub records: Vec<StepRecord>,
    /// The first divergence seen on this rank, if any.
    pub diverged: Option<RunError>,
    /// The balancing history (identical on every rank).
    pub history: Vec<HistoryEntry>,
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
    /// Measured step time of the interval before it.
    pub measured_seconds: f64,
    /// Disabled lines per axis.
    pub disabled: [Vec<usize>; 3],
    /// What changed.
    pub action: String,
}

/// How a run is laid out and balanced.
#[derive(Clone, Debug)]
pub struct Plan {
    /// Ranks per axis.
    pub topology: Topology,
    /// Initial borders per axis.
    pub borders: [Vec<i64>; 3],
    /// Cell costs (the work the balancer measures).
    pub costs: Costs,
    /// The dynamic balancer, if borders may move during the run.
    pub balancer: Option<Balancer>,
}

/// How often the ranks agree on whether any of them diverged (an all-gather of one flag).
pub const DIVERGENCE_CHECK_STEPS: u64 = 32;

fn layout<'a>(setup: &Setup, topology: Topology, borders: &'a [Vec<i64>; 3]) -> Layout<'a> {
    Layout {
        topology,
        borders: [&borders[0], &borders[1], &borders[2]],
        periodic: yee_core::Axis::ALL.map(|a| setup.is_periodic(a)),
    }
}

/// This rank's contribution to a balancing interval (see [`GATHER_LEN`]).
fn interval_summary(records: &[StepRecord], schedule: &Schedule) -> [f64; GATHER_LEN] {
    let mut g = [0.0; GATHER_LEN];
    for r in records {
        g[0] += r.work;
        g[1] += r.compute_seconds;
        g[2] += 1.0;
        for (d, dir) in schedule.directions.iter().enumerate() {
            let Some(axis) = dir.face_axis() else {
                continue;
            };
            if r.bytes_received[d] == 0 {
                continue;
            }
            let face = 2 * axis.index() + usize::from(dir.0[axis.index()] > 0);
            let h = &mut g[3 + 4 * face..3 + 4 * face + 4];
            h[0] += r.bytes_received[d] as f64;
            h[1] += r.transfer_seconds[d];
            h[2] += r.share_seconds[d];
            h[3] += 1.0;
        }
    }
    g
}

/// Runs `steps` steps of rank `comm.rank()` of `setup` laid out by `plan`, calling
/// `after_step(step, chunk)` after each (1-based step count). Every
/// [`DIVERGENCE_CHECK_STEPS`] steps and at the end the ranks share whether any diverged; if one
/// did, all stop there and the output names the first non-finite step and cell. With a
/// balancer, every `T_perf` steps the ranks gather their measurements, decide the same new
/// borders and migrate.
pub fn run_rank<T: Scalar, M: Comm>(
    setup: &Setup,
    plan: &Plan,
    comm: &mut M,
    steps: u64,
    mut after_step: impl FnMut(u64, &YeeChunk<T>),
) -> Result<RankOutput<T>, M::Error> {
    let rank = comm.rank();
    let active = setup.mode.active_axes();
    let mut borders = plan.borders.clone();
    let mut balancer = plan.balancer.clone();
    let build = |b: Box3| YeeChunk::<T>::new(setup, b).with_costs(plan.costs);
    let mut chunk = build(layout(setup, plan.topology, &borders).chunk_box(rank));
    let mut driver = Driver::new(Schedule::new(
        &layout(setup, plan.topology, &borders),
        rank,
        active,
    ));
    let mut series: Vec<Vec<(u64, T)>> = vec![Vec::new(); setup.probes.len()];
    let mut records: Vec<StepRecord> = Vec::with_capacity(steps as usize);
    let mut history = Vec::new();
    let mut diverged = None;
    let mut flags = vec![0.0; comm.size()];
    let mut gathered = vec![0.0; comm.size() * GATHER_LEN];
    let mut interval_start = 0usize;
    for step in 0..steps {
        records.push(driver.step(&mut chunk, comm, step)?);
        if chunk.state.non_finite && diverged.is_none() {
            // A hard source may have overwritten the flagged value: only a stored one counts.
            chunk.state.non_finite = false;
            diverged = first_non_finite(&chunk, step + 1);
        }
        let owned = chunk.state.owned;
        for (i, p) in setup.probes.iter().enumerate() {
            if owned.contains(p.cell) {
                series[i].push((
                    step + 1,
                    chunk
                        .state
                        .field(p.component)
                        .expect("validated")
                        .get(p.cell),
                ));
            }
        }
        after_step(step + 1, &chunk);
        if (step + 1) % DIVERGENCE_CHECK_STEPS == 0 || step + 1 == steps {
            comm.all_gather(&[f64::from(u8::from(diverged.is_some()))], &mut flags)?;
            if flags.iter().any(|&f| f > 0.0) {
                break;
            }
        }
        let Some(b) = balancer.as_mut() else { continue };
        if (step + 1) % b.params().every != 0 || step + 1 == steps {
            continue;
        }
        let mine = interval_summary(&records[interval_start..], driver.schedule());
        interval_start = records.len();
        comm.all_gather(&mine, &mut gathered)?;
        let measured = b.record(&gathered);
        let total_work: f64 = (0..comm.size())
            .map(|r| gathered[r * GATHER_LEN] / gathered[r * GATHER_LEN + 2].max(1.0))
            .sum();
        let Ok(decision) = b.decide(total_work, measured) else {
            continue;
        };
        history.push(HistoryEntry {
            step: step + 1,
            borders: decision.borders.clone(),
            predicted_seconds: decision.predicted_seconds,
            measured_seconds: measured,
            disabled: decision.disabled.clone(),
            action: decision.action.clone(),
        });
        if decision.borders != borders {
            let old = borders.clone();
            let (old_layout, new_layout) = (
                layout(setup, plan.topology, &old),
                layout(setup, plan.topology, &decision.borders),
            );
            driver.migrate(&mut chunk, comm, &old_layout, &new_layout, active, build)?;
            borders = decision.borders;
        }
    }
    let owned = chunk.state.owned;
    let fields = Component::ALL.map(|c| {
        chunk.state.field(c).map(|f| {
            let mut out = vec![T::zero(); owned.cells()];
            f.read_box(owned, &mut out);
            out
        })
    });
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
        diverged,
        history,
    })
}

fn first_non_finite<T: Scalar>(chunk: &YeeChunk<T>, step: u64) -> Option<RunError> {
    for &c in chunk.state.mode.components() {
        let f = chunk.state.field(c)?;
        let owned = f.owned();
        for n in 0..owned.cells() {
            let p = owned.index_at(n);
            if !f.get(p).is_finite() {
                return Some(RunError::Diverged {
                    step,
                    component: c,
                    cell: p,
                });
            }
        }
    }
    None
}

/// Assembles component `c` over the whole grid from the ranks' pieces (x fastest).
pub fn assemble<T: Scalar>(
    outputs: &[RankOutput<T>],
    grid: [usize; 3],
    c: Component,
) -> Option<Vec<T>> {
    let whole = Box3::from_extent(grid);
    let mut out = vec![T::zero(); whole.cells()];
    for o in outputs {
        let piece = o.fields[c.index()].as_ref()?;
        for (n, v) in piece.iter().enumerate() {
            out[whole.linear_index(o.owned.index_at(n))] = *v;
        }
    }
    Some(out)
}

/// The whole record of probe `i`, stitched in step order from the ranks that held it.
pub fn probe_series<T: Scalar>(outputs: &[RankOutput<T>], i: usize) -> Option<Vec<T>> {
    let mut samples: Vec<(u64, T)> = outputs
        .iter()
        .flat_map(|o| &o.probes)
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
        .min_by_key(|e| match *e {
            RunError::Diverged { step, .. } => step,
        })
}

/// A plan with uniform borders and no balancing.
pub fn uniform_plan(setup: &Setup, topology: Topology) -> Plan {
    Plan {
        topology,
        borders: yee_core::decomposition::uniform_layout_borders(setup.grid, topology),
        costs: Costs::default(),
        balancer: None,
    }
}
