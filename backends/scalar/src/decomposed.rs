//! One rank of a decomposed Yee run on any [`YeeBackend`] (the generic session of
//! `yee_core::session` over its chunk): its probes, its divergence check, and the pieces the
//! caller assembles into whole fields.

use alloc::vec;
use alloc::vec::Vec;
use yee_core::driver::{StepError, StepErrorOf, StepRecord};
use yee_core::session::{HistoryEntry, Plan, run_steps};
use yee_core::{Box3, Chunk, Comm, HostChunkError, Scalar, Topology};
use yee_em::{Component, Costs, Setup, YeeBackend, YeeFields};

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
    mut after_step: impl FnMut(u64, &mut B::Chunk<'s>),
) -> Result<RankOutput<T>, StepErrorOf<B::Chunk<'s>, M>> {
    let rank = comm.rank();
    let mut series: Vec<Vec<(u64, T)>> = vec![Vec::new(); setup.probes.len()];
    let mut diverged = None;
    let mut failure = None;
    let chunk = backend
        .build(setup, plan.initial_box(rank), costs)
        .map_err(StepError::Chunk)?;
    let (mut chunk, log) = run_steps(plan, comm, steps, chunk, |step, chunk| {
        let owned = chunk.owned();
        let read = (|| {
            if diverged.is_none() {
                diverged =
                    chunk
                        .first_non_finite(&[owned])?
                        .map(|(component, cell)| RunError::Diverged {
                            step,
                            component,
                            cell,
                        });
            }
            for (i, p) in setup.probes.iter().enumerate() {
                if owned.contains(p.cell) {
                    series[i].push((step, chunk.value(p.component, p.cell)?));
                }
            }
            Ok(())
        })();
        if let Err(e) = read {
            failure.get_or_insert(e);
        }
        after_step(step, chunk);
        diverged.is_some() || failure.is_some()
    })?;
    if let Some(e) = failure {
        return Err(StepError::Chunk(e));
    }
    let (owned, fields) = owned_fields(&mut chunk).map_err(StepError::Chunk)?;
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
        crate::tiled::scatter_tiles(grid, core::slice::from_ref(&o.owned), piece, &mut out);
    }
    Some(out)
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
