//! Balancing experiments on the simulated cluster with the no-op backend's cost-only chunks: Balykov 2019's
//! table 1 (8 nodes, 100³, four nodes slowed by a fixed delay per step) and a slow link that
//! makes disabling ranks worthwhile until it speeds up again.

use yee_comm_sim::{LinkChange, MachineModel};
use yee_core::balance::{BalanceParams, Balancer};
use yee_core::box_balance::{BoxBalancer, BoxCut, BoxDecision, rebalance};
use yee_core::box_layout::BoxLayout;
use yee_core::session::{HistoryEntry, Plan, run_steps};
use yee_core::tile_driver::{Ownership, TileDriver};
use yee_core::{Box3, Comm, Topology};
use yee_em::Mode;
use yee_noop::NoopChunk;

/// Cells per second of a normal node: with a 0.02 s delay a slow node runs at 80 % of a
/// normal one on its 125 000 cells (0.08 / (0.08 + 0.02)), as Balykov 2019, §3 states.
pub const TABLE1_SPEED: f64 = 125_000.0 / 0.08;

/// The outcome of one simulated run.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// Virtual seconds until the slowest rank finished.
    pub seconds: f64,
    /// The balancing history.
    pub history: Vec<HistoryEntry>,
}

fn run(
    grid: [usize; 3],
    topology: Topology,
    model: MachineModel,
    steps: u64,
    balancer: Option<Balancer>,
    overlap: bool,
) -> Outcome {
    let plan = Plan {
        topology,
        borders: yee_core::decomposition::uniform_layout_borders(grid, topology),
        periodic: [false; 3],
        active: [true; 3],
        balancer,
        overlap,
    };
    let results = yee_comm_sim::launch(topology, model, |mut comm| {
        let chunk = NoopChunk::new(plan.initial_box(comm.rank()), Mode::ThreeD);
        let (_, log) = run_steps(&plan, &mut comm, steps, chunk, |_, _| false).expect("sim");
        (comm.now_seconds(), log.history)
    });
    let seconds = results.iter().map(|r| r.0).fold(0.0, f64::max);
    Outcome {
        seconds,
        history: results.into_iter().next().map(|r| r.1).unwrap_or_default(),
    }
}

/// One case of table 1: 8 nodes (2×2×2) over 100³ cells, the four nodes of the x = 1 plane
/// slowed by `delay` seconds per step; balanced every `every` steps or not at all.
pub fn table1_case(delay: f64, steps: u64, every: Option<u64>) -> Outcome {
    let (grid, topology) = TABLE1_GRID;
    let model = table1_machine(delay);
    let balancer = every.map(|every| {
        let density = std::array::from_fn(|a| vec![1.0; grid[a]]);
        Balancer::new(
            topology,
            3,
            density,
            BalanceParams {
                every,
                ..BalanceParams::default()
            },
        )
    });
    run(grid, topology, model, steps, balancer, true)
}

/// Table 1's grid and nodes: 100³ cells on 2×2×2.
const TABLE1_GRID: ([usize; 3], Topology) = ([100, 100, 100], Topology([2, 2, 2]));

/// Table 1's machine: 8 nodes of [`TABLE1_SPEED`], Blue Gene/P links (425 MB/s, a few
/// microseconds of latency), the four nodes of the x = 1 plane (of the 2×2×2 numbering, x
/// fastest: ranks 1, 3, 5, 7) slowed by `delay` seconds per step.
fn table1_machine(delay: f64) -> MachineModel {
    let mut model = MachineModel::uniform(8, TABLE1_SPEED, 3e-6, 425e6);
    for r in 0..8 {
        if yee_core::decomposition::rank_coords(r, TABLE1_GRID.1)[0] == 1 {
            model.delays[r] = delay;
        }
    }
    model
}

/// The outcome of one simulated run of a jagged or k-d layout.
#[derive(Clone, Debug)]
pub struct BoxOutcome {
    /// Virtual seconds until the slowest rank finished.
    pub seconds: f64,
    /// Each rebalance: the steps done and what was decided (rank 0's; all ranks decide alike).
    pub decisions: Vec<(u64, BoxDecision)>,
}

/// One slice of a box across `axis` costs its cells (a cost-only chunk's work: one unit per
/// cell).
fn cells_per_slice(region: Box3, axis: usize, out: &mut [f64]) {
    let e = region.extent();
    out.fill((0..3).filter(|&a| a != axis).map(|a| e[a] as f64).product());
}

/// Table 1's case on a jagged or k-d layout (`cut`; issue 22): the same machine and delays,
/// the boxes cut at equal speeds to start, each rank's cost-only chunk stepped by the tile
/// driver and, every `every` steps (never with `None`), rebalanced by the [`BoxBalancer`]
/// (disabling and re-enabling whole ranks instead of lines). Its halos cost latency only (a
/// cost-only chunk packs no values), as its migrations cost nothing — in the tensor case the
/// halos' bytes add about 0.1 % to a 0.08 s step.
pub fn table1_box_case(delay: f64, steps: u64, every: Option<u64>, cut: BoxCut) -> BoxOutcome {
    let (grid, topology) = TABLE1_GRID;
    let active = [true; 3];
    let boxes = cut
        .layout(grid, active, &[1.0; 8], &cells_per_slice, 1)
        .expect("8 boxes fit 100³");
    let params = BalanceParams {
        every: every.unwrap_or(u64::MAX),
        ..BalanceParams::default()
    };
    let results = yee_comm_sim::launch(topology, table1_machine(delay), |mut comm| {
        let rank = comm.rank();
        let layout = BoxLayout {
            grid,
            boxes: boxes.clone(),
        };
        let mut balancer =
            every.map(|_| BoxBalancer::new(cut, grid, active, params, boxes.clone()));
        let mut chunk = NoopChunk::new(layout.chunk_box(rank, [1; 3]), Mode::ThreeD);
        let mut driver =
            TileDriver::new(&layout, rank, &chunk).expect("a cost-only chunk packs boxes");
        let (mut records, mut decisions) = (Vec::new(), Vec::new());
        for step in 0..steps {
            records.push(driver.step(&mut chunk, &mut comm, step).expect("sim"));
            let Some(b) = balancer.as_mut() else { continue };
            if (step + 1) % params.every == 0 && step + 1 < steps {
                let remaining = steps - step - 1;
                let d = rebalance(
                    b,
                    &records,
                    &cells_per_slice,
                    remaining,
                    &mut chunk,
                    &mut comm,
                    &mut driver,
                )
                .expect("sim");
                records.clear();
                decisions.extend(d.map(|d| (step + 1, d)));
            }
        }
        (comm.now_seconds(), decisions)
    });
    BoxOutcome {
        seconds: results.iter().map(|r| r.0).fold(0.0, f64::max),
        decisions: results.into_iter().next().map(|r| r.1).unwrap_or_default(),
    }
}

/// Four ranks in a row over 40×8×8 cells; the link between ranks 2 and 3 takes 50 ms until
/// step `recovers`, then 2 µs. Dropping rank 3 wins while the link is slow; taking it back
/// wins once it is fast.
pub fn slow_link_case(steps: u64, recovers: u64, every: u64) -> Outcome {
    let grid = [40, 8, 8];
    let topology = Topology([4, 1, 1]);
    let mut model = MachineModel::uniform(4, 1e6, 2e-6, 1e9);
    for (from, to) in [(2, 3), (3, 2)] {
        model.links.insert((from, to), (0.05, 1e9));
        model.link_changes.push(LinkChange {
            after_step: recovers,
            from,
            to,
            latency: 2e-6,
            bandwidth: 1e9,
        });
    }
    run(
        grid,
        topology,
        model,
        steps,
        Some(uniform_balancer(grid, topology, every)),
        true,
    )
}

/// A balancer over uniform density (3D), rebalancing every `every` steps.
fn uniform_balancer(grid: [usize; 3], topology: Topology, every: u64) -> Balancer {
    let density = std::array::from_fn(|a| vec![1.0; grid[a]]);
    Balancer::new(
        topology,
        3,
        density,
        BalanceParams {
            every,
            ..BalanceParams::default()
        },
    )
}

/// Four ranks in a row over 40×8×8 cells at 0.1 Mcells/s; the link between ranks 0 and 1 takes
/// 5 ms per message, the one between ranks 2 and 3 3 ms, the one between 1 and 2 2 µs, and
/// the exchange does not overlap the interior update (the step-time model of eqs. (1)–(2)).
/// Eqs. (9)–(18) disable rank 0 at the costliest border, and the next-highest share time
/// (Balykov 2019, §2.1 after eq. (18)) then makes disabling rank 3 pay too.
pub fn two_slow_links_case(steps: u64, every: u64) -> Outcome {
    let grid = [40, 8, 8];
    let topology = Topology([4, 1, 1]);
    let mut model = MachineModel::uniform(4, 1e5, 2e-6, 1e9);
    for (from, to, latency) in [(0, 1, 5e-3), (1, 0, 5e-3), (2, 3, 3e-3), (3, 2, 3e-3)] {
        model.links.insert((from, to), (latency, 1e9));
    }
    run(
        grid,
        topology,
        model,
        steps,
        Some(uniform_balancer(grid, topology, every)),
        false,
    )
}
