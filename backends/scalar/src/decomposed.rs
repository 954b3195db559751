//! One rank of a decomposed Yee run (the generic session of `yee_core::session` over a
//! [`YeeChunk`]): its probes, its divergence check, and the pieces the caller assembles into
//! whole fields.

use alloc::vec;
use alloc::vec::Vec;
use yee_core::driver::StepRecord;
use yee_core::session::{HistoryEntry, Plan, run_steps};
use yee_core::{Box3, Comm, Component, Costs, Field, Scalar, Setup, Topology};

use crate::chunk::{CurlExecutor, ScalarCurl, YeeChunk};
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
    /// The balancer as it ended (identical on every rank), if the run balanced.
    pub balancer: Option<yee_core::balance::Balancer>,
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

/// Runs `steps` steps of rank `comm.rank()` of `setup` laid out (and balanced) by `plan`, with
/// cell `costs` as the work the balancer sees, calling `after_step(step, chunk)` after each
/// (1-based step count). A rank whose fields go non-finite asks every rank to stop; the output
/// names the first non-finite step and cell.
pub fn run_rank<T: Scalar, M: Comm>(
    setup: &Setup,
    plan: &Plan,
    costs: Costs,
    comm: &mut M,
    steps: u64,
    after_step: impl FnMut(u64, &YeeChunk<T>),
) -> Result<RankOutput<T>, M::Error> {
    run_rank_with(setup, plan, costs, ScalarCurl, comm, steps, after_step)
}

/// [`run_rank`] with another curl executor.
pub fn run_rank_with<T: Scalar, K: CurlExecutor<T>, M: Comm>(
    setup: &Setup,
    plan: &Plan,
    costs: Costs,
    kernel: K,
    comm: &mut M,
    steps: u64,
    mut after_step: impl FnMut(u64, &YeeChunk<T, K>),
) -> Result<RankOutput<T>, M::Error> {
    let rank = comm.rank();
    let mut series: Vec<Vec<(u64, T)>> = vec![Vec::new(); setup.probes.len()];
    let mut diverged = None;
    let build = |b: Box3| YeeChunk::with_kernel(setup, b, kernel.clone()).with_costs(costs);
    let (chunk, log) = run_steps(
        plan,
        comm,
        steps,
        build,
        |step, chunk: &mut YeeChunk<T, K>| {
            if chunk.state.too_many_materials && diverged.is_none() {
                diverged = Some(RunError::TooManyMaterials {
                    limit: crate::state::MAX_MATERIAL_IDS,
                });
            }
            if chunk.state.non_finite && diverged.is_none() {
                // A hard source may have overwritten the flagged value: only a stored one counts.
                chunk.state.non_finite = false;
                diverged = first_non_finite(chunk, step);
            }
            let owned = chunk.state.owned;
            for (i, p) in setup.probes.iter().enumerate() {
                if owned.contains(p.cell) {
                    series[i].push((
                        step,
                        chunk
                            .state
                            .field(p.component)
                            .expect("validated")
                            .get(p.cell),
                    ));
                }
            }
            after_step(step, chunk);
            diverged.is_some()
        },
    )?;
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
        records: log.records,
        diverged,
        history: log.history,
        balancer: log.balancer,
    })
}

fn first_non_finite<T: Scalar, K: CurlExecutor<T>>(
    chunk: &YeeChunk<T, K>,
    step: u64,
) -> Option<RunError> {
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
        .min_by_key(RunError::step)
}
