//! One rank of a decomposed run: its chunk stepped by the generic driver, its probes, and the
//! pieces the caller assembles into whole fields.

use alloc::vec;
use alloc::vec::Vec;
use yee_core::decomposition::Layout;
use yee_core::driver::{Driver, Schedule, StepRecord};
use yee_core::{Box3, Comm, Component, Field, Scalar, Setup};

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
    /// `(probe index, record)` for the probes inside `owned`.
    pub probes: Vec<(usize, Vec<T>)>,
    /// One record per step.
    pub records: Vec<StepRecord>,
    /// The first divergence seen on this rank, if any.
    pub diverged: Option<RunError>,
}

/// How often the ranks agree on whether any of them diverged (an all-gather of one flag).
pub const DIVERGENCE_CHECK_STEPS: u64 = 32;

/// Runs `steps` steps of rank `comm.rank()` of `setup` decomposed by `layout`, calling
/// `after_step(step, chunk)` after each (1-based step count). Every
/// [`DIVERGENCE_CHECK_STEPS`] steps and at the end the ranks share whether any diverged; if one
/// did, all stop there and the output names the first non-finite step and cell.
pub fn run_rank<T: Scalar, M: Comm>(
    setup: &Setup,
    layout: &Layout,
    comm: &mut M,
    steps: u64,
    mut after_step: impl FnMut(u64, &YeeChunk<T>),
) -> Result<RankOutput<T>, M::Error> {
    let rank = comm.rank();
    let owned = layout.chunk_box(rank);
    let mut chunk = YeeChunk::<T>::new(setup, owned);
    let mut driver = Driver::new(Schedule::new(layout, rank, setup.mode.active_axes()));
    let mine: Vec<usize> = (0..setup.probes.len())
        .filter(|&i| owned.contains(setup.probes[i].cell))
        .collect();
    let mut series: Vec<Vec<T>> = vec![Vec::with_capacity(steps as usize); mine.len()];
    let mut records = Vec::with_capacity(steps as usize);
    let mut diverged = None;
    let mut flags = vec![0.0; comm.size()];
    for step in 0..steps {
        records.push(driver.step(&mut chunk, comm, step)?);
        if chunk.state.non_finite && diverged.is_none() {
            // A hard source may have overwritten the flagged value: only a stored one counts.
            chunk.state.non_finite = false;
            diverged = first_non_finite(&chunk, step + 1);
        }
        for (k, &i) in mine.iter().enumerate() {
            let p = setup.probes[i];
            series[k].push(
                chunk
                    .state
                    .field(p.component)
                    .expect("validated")
                    .get(p.cell),
            );
        }
        after_step(step + 1, &chunk);
        if (step + 1) % DIVERGENCE_CHECK_STEPS == 0 || step + 1 == steps {
            comm.all_gather(&[f64::from(u8::from(diverged.is_some()))], &mut flags)?;
            if flags.iter().any(|&f| f > 0.0) {
                break;
            }
        }
    }
    let fields = Component::ALL.map(|c| {
        chunk.state.field(c).map(|f| {
            let mut out = vec![T::zero(); owned.cells()];
            f.read_box(owned, &mut out);
            out
        })
    });
    Ok(RankOutput {
        rank,
        owned,
        fields,
        probes: mine.into_iter().zip(series).collect(),
        records,
        diverged,
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

/// The record of probe `i`, from whichever rank holds it.
pub fn probe_series<T: Scalar>(outputs: &[RankOutput<T>], i: usize) -> Option<&[T]> {
    outputs
        .iter()
        .flat_map(|o| &o.probes)
        .find(|(k, _)| *k == i)
        .map(|(_, s)| s.as_slice())
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
