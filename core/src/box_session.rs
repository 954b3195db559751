//! A rank's whole run over any [`Chunk`] and [`Comm`] when each rank owns one box of a jagged
//! or k-d layout ([`crate::box_layout`]) instead of a slab of a tensor grid: the [`TileDriver`]
//! steps it, and — with a [`BoxBalancer`] — every `T_perf` steps the interval's measurements
//! are gathered, the same new boxes decided on every rank and the cells migrated
//! ([`rebalance`]). The tensor-grid counterpart is [`crate::session::run_steps`].

use alloc::vec::Vec;

use crate::box_balance::{BoxBalancer, BoxDecision, rebalance};
use crate::box_layout::{BoxLayout, CostDensity};
use crate::chunk::Chunk;
use crate::comm::Comm;
use crate::driver::{StepError, StepErrorOf, StepRecord};
use crate::step_log::StepLog;
use crate::tile_driver::TileDriver;

/// Who owns what in a box-layout run: boxes fixed for the whole run, or a balancer that holds
/// the current boxes and moves them.
#[derive(Clone, Debug)]
pub enum BoxOwners {
    /// One box per rank for the whole run.
    Fixed(BoxLayout),
    /// Boxes rebalanced every `T_perf` steps.
    Balanced(BoxBalancer),
}

impl BoxOwners {
    /// The layout as it stands.
    pub fn layout(&self) -> BoxLayout {
        match self {
            BoxOwners::Fixed(layout) => layout.clone(),
            BoxOwners::Balanced(balancer) => balancer.layout(),
        }
    }
}

/// What a box-layout run leaves besides the chunk.
#[derive(Clone, Debug)]
pub struct BoxRunLog {
    /// The steps' records: totals over every step and the most recent records.
    pub records: StepLog,
    /// Each rebalance: the steps done and what was decided (identical on every rank).
    pub history: Vec<(u64, BoxDecision)>,
    /// Who owns what as the run ended (a balancer with everything it measured): where a run
    /// that continues this one starts.
    pub owners: BoxOwners,
}

/// Runs steps `from..until` of a run of `total` steps of `chunk`, which must hold
/// `owners.layout().chunk_box(rank, chunk.ghost())` with the values after `from` steps in its
/// cells (the halos are exchanged before the first step, so its ghosts need not hold them).
/// `density` weighs the cells when the boxes are cut again, every `T_perf` steps counted
/// from step 0 (none after the last step of the run), so a run cut into segments
/// ([`BoxRunLog::owners`] starts the next) steps as the whole run would. Migrations resize
/// the chunk in place, so it needs [`crate::Capabilities::migration`] (the [`TileDriver`]
/// fails at once without it).
pub fn run_box_steps<C: Chunk, M: Comm>(
    owners: BoxOwners,
    density: &impl CostDensity,
    [from, until, total]: [u64; 3],
    comm: &mut M,
    mut chunk: C,
) -> Result<(C, BoxRunLog), StepErrorOf<C, M>> {
    let rank = comm.rank();
    let mut driver = TileDriver::new(&owners.layout(), rank, &chunk).map_err(StepError::Chunk)?;
    driver.refresh_halos(&mut chunk, comm)?;
    let mut log = BoxRunLog {
        records: StepLog::default(),
        history: Vec::new(),
        owners,
    };
    // The records of the balancing interval under way (kept only with a balancer).
    let mut interval: Vec<StepRecord> = Vec::new();
    for step in from..until.min(total) {
        let record = driver.step(&mut chunk, comm, step)?;
        let done = step + 1;
        let BoxOwners::Balanced(balancer) = &mut log.owners else {
            log.records.push(record);
            continue;
        };
        interval.push(record.clone());
        log.records.push(record);
        if done % balancer.params().every != 0 || done == total {
            continue;
        }
        let decision = rebalance(
            balancer,
            &interval,
            density,
            total - done,
            &mut chunk,
            comm,
            &mut driver,
        )?;
        interval.clear();
        log.history.extend(decision.map(|d| (done, d)));
    }
    Ok((chunk, log))
}
