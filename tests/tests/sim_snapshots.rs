//! Snapshots of simulated runs: per-rank boxes, neighbours and bytes per direction, virtual
//! compute and share times, and the eq. (2) step time (Balykov 2019), for a few topologies.
//! The virtual clocks depend only on the machine model, so these are exact and repeatable.

use std::fmt::Write;

use yee_comm_sim::MachineModel;
use yee_core::Topology;
use yee_core::decomposition::Layout;
use yee_core::driver::Schedule;
use yee_em::{Component, Material, Mode, PointSource, Setup, SourceKind, Waveform};
use yee_scalar::decomposed::{mean_step_time, run_rank, uniform_plan};
use yee_tests::cpml_everywhere;

/// A vacuum grid with CPML `cpml` cells thick on every face and `sources`.
fn cpml_setup<'a>(
    mode: Mode,
    grid: [usize; 3],
    cpml: usize,
    sources: &'a [PointSource],
) -> Setup<'a> {
    Setup {
        mode,
        grid,
        courant: 0.5,
        background: Material::VACUUM,
        poles: &[],
        regions: &[],
        boundaries: cpml_everywhere(cpml),
        sources,
        probes: &[],
        plane_waves: &[],
        monitors: &[],
        frequencies: &[],
        active: None,
        smoothing: true,
        smoothing_tensor: true,
        bloch: [0.0; 3],
    }
}

fn describe(mode: Mode, grid: [usize; 3], topology: Topology, steps: u64) -> String {
    let sources = [PointSource {
        component: Component::Ez,
        cell: [grid[0] as i64 / 2, grid[1] as i64 / 2, grid[2] as i64 / 2],
        waveform: Waveform::Ricker {
            frequency: 0.05,
            delay: 20.0,
        },
        amplitude: 1.0,
        kind: SourceKind::Soft,
    }];
    let setup = cpml_setup(mode, grid, 3, &sources);
    let plan = uniform_plan(&setup, topology);
    let layout = Layout {
        topology,
        borders: [&plan.borders[0], &plan.borders[1], &plan.borders[2]],
        periodic: [false; 3],
    };
    // Slow links (50 us, 100 MB/s) so that halos outlast the interior update and waits show.
    let model = MachineModel::uniform(topology.ranks(), 1e8, 5e-5, 1e8);
    let outputs = yee_comm_sim::launch(topology, model, |mut c| {
        run_rank::<f32, _>(
            &setup,
            &plan,
            yee_em::Costs::default(),
            &mut c,
            steps,
            |_, _| {},
        )
        .unwrap()
    });
    let mut s = format!(
        "{} grid {grid:?} on topology {:?}; model: 1e8 cells/s per rank, links 50 us + bytes / 100 MB/s; {steps} steps, f32\n",
        mode.name(),
        topology.0
    );
    for o in &outputs {
        let schedule = Schedule::new(&layout, o.rank, mode.active_axes());
        let _ = writeln!(s, "rank {} box {:?}..{:?}", o.rank, o.owned.lo, o.owned.hi);
        for (d, dir) in schedule.directions.iter().enumerate() {
            let Some(peer) = schedule.peers[d] else {
                continue;
            };
            let r = &o.records.recent[0];
            let _ = writeln!(
                s,
                "  {:<7} -> rank {peer}: sends {} bytes/step, share {:.4e} s/step",
                dir.name().as_str(),
                r.bytes_sent[d],
                o.records
                    .recent
                    .iter()
                    .map(|r| r.share_seconds[d])
                    .sum::<f64>()
                    / steps as f64
            );
        }
        let compute = o.records.totals.compute_seconds / steps as f64;
        let _ = writeln!(s, "  compute {compute:.4e} s/step");
    }
    let mean = mean_step_time(&outputs);
    let _ = writeln!(s, "step time, eq. (2): {mean:.4e} s");
    s
}

#[test]
fn three_d_2x2x1() {
    insta::assert_snapshot!(describe(Mode::ThreeD, [24, 20, 16], Topology([2, 2, 1]), 4));
}

#[test]
fn three_d_4x1x1() {
    insta::assert_snapshot!(describe(Mode::ThreeD, [24, 20, 16], Topology([4, 1, 1]), 4));
}

#[test]
fn two_d_3x2() {
    insta::assert_snapshot!(describe(Mode::Tmz, [40, 30, 1], Topology([3, 2, 1]), 4));
}

#[test]
fn compute_time_is_cells_over_speed() {
    // One rank, no neighbours: every step costs exactly work / speed of virtual time, the work
    // being 1200 cells + 0.86 per CPML layer a cell lies in (x layers 2·3·30 = 180 cells, y
    // layers 2·3·40 = 240; the 36 corner cells are in both and update ψ twice) + 1 for the
    // source.
    let work = 1200.0 + 0.86 * (180.0 + 240.0) + 1.0;
    let text = describe(Mode::Tmz, [40, 30, 1], Topology([1, 1, 1]), 3);
    let expected = format!("{:.4e}", work / 1e8);
    assert!(
        text.contains(&format!("compute {expected} s/step")),
        "{text}"
    );
    assert!(
        text.contains(&format!("step time, eq. (2): {expected} s")),
        "{text}"
    );
}

/// Issue 22's one slow node of eight, dynamic: 8 ranks of 1 Mcells/s on the simulated cluster,
/// rank 3 at 0.2 Mcells/s (links 1 µs, 1 GB/s), a 48³ grid with CPML on every face, boxes cut
/// at equal speeds to start and rebalanced every 10 steps from the measured speeds. The
/// decisions, and the measured step time after rebalancing over the ideal S ÷ Σ speeds.
fn one_slow_of_eight_dynamic(cut: yee_core::box_balance::BoxCut) -> (String, f64) {
    use yee_core::Box3;
    use yee_core::balance::BalanceParams;
    use yee_core::box_balance::BoxBalancer;
    use yee_scalar::tiled::DynamicBoxes;
    let grid = [48, 48, 48];
    let sources = [PointSource {
        component: Component::Ez,
        cell: [24, 24, 24],
        waveform: Waveform::Ricker {
            frequency: 0.05,
            delay: 20.0,
        },
        amplitude: 1.0,
        kind: SourceKind::Soft,
    }];
    let setup = cpml_setup(Mode::ThreeD, grid, 4, &sources);
    let costs = yee_em::Costs::default();
    let density = |r: Box3, a: usize, out: &mut [f64]| {
        yee_em::load::region_slice_densities(&setup, &costs, r, a, false, out);
    };
    let start = cut.layout(grid, [true; 3], &[1.0; 8], &density, 1).unwrap();
    let params = BalanceParams {
        every: 10,
        ..BalanceParams::default()
    };
    let dynamic = DynamicBoxes {
        balancer: BoxBalancer::new(cut, grid, [true; 3], params, start),
        per_axis: false,
    };
    let mut model = MachineModel::uniform(8, 1e6, 1e-6, 1e9);
    model.speeds[3] = 2e5;
    let outputs =
        yee_tests::balanced_run::<f32>(&setup, &dynamic, yee_tests::CommKind::Sim, Some(model), 40);
    let work = yee_em::load::box_work(&setup, Box3::from_extent(grid), &costs);
    let ideal = work / 7.2e6;
    let mut s = format!(
        "{cut:?}, 48³ CPML 4, 8 ranks of 1e6 cells/s, rank 3 at 2e5; T_perf 10, 40 steps\nideal S / Σ speeds: {ideal:.4e} s\n"
    );
    for (step, d) in &outputs[0].history {
        let _ = writeln!(
            s,
            "step {step}: {} predicted {:.4e} s, measured {:.4e} s ({:.3} × ideal), rank 3 {:?}..{:?}",
            d.action,
            d.predicted_seconds,
            d.measured_seconds,
            d.measured_seconds / ideal,
            d.boxes[3].lo,
            d.boxes[3].hi
        );
    }
    // The interval after the first rebalance ends at the second.
    let after = outputs[0].history[1].1.measured_seconds / ideal;
    let _ = writeln!(s, "after rebalancing: {after:.3} × ideal");
    (s, after)
}

#[test]
fn one_slow_of_eight_dynamic_kd() {
    let (s, after) = one_slow_of_eight_dynamic(yee_core::box_balance::BoxCut::Kd);
    assert!(after <= 1.15, "{s}");
    insta::assert_snapshot!(s);
}

#[test]
fn one_slow_of_eight_dynamic_jagged() {
    let (s, after) =
        one_slow_of_eight_dynamic(yee_core::box_balance::BoxCut::Jagged(Topology([2, 2, 2])));
    assert!(after <= 1.15, "{s}");
    insta::assert_snapshot!(s);
}

/// Ghost zones on the simulated machine (issue 45): 2×2×1 ranks exchanging their halos every
/// k = 1, 2 and 4 steps (`--time-block k` on the rayon backend, `yee_scalar::ghost_zone`). A
/// deeper zone sends fewer, larger messages (every field and ψ, k cells deep, edges and
/// corners too) and updates the zone redundantly; the virtual time per step says which pays on
/// slow links (50 us, 100 MB/s) and on fast ones (2 us, 10 GB/s).
#[test]
fn ghost_zone_trade_off_2x2x1() {
    use yee_core::Comm;
    use yee_em::YeeBackend;
    use yee_rayon::{RayonCurl, TimeBlock};
    use yee_scalar::checkpoints::NoCheckpoints;
    let grid = [24, 20, 16];
    let sources = [PointSource {
        component: Component::Ez,
        cell: [12, 10, 8],
        waveform: Waveform::Ricker {
            frequency: 0.05,
            delay: 20.0,
        },
        amplitude: 1.0,
        kind: SourceKind::Soft,
    }];
    let setup = cpml_setup(Mode::ThreeD, grid, 3, &sources);
    let topology = Topology([2, 2, 1]);
    let plan = uniform_plan(&setup, topology);
    let steps = 24;
    let mut s = format!(
        "3d grid {grid:?} (CPML 3) on topology [2, 2, 1]; 1e8 cells/s per rank; {steps} steps, f32\n"
    );
    for (latency, bandwidth) in [(5e-5, 1e8), (2e-6, 1e10)] {
        let _ = writeln!(s, "links {latency:e} s + bytes / {bandwidth:e} B/s:");
        for block in [TimeBlock::Off, TimeBlock::Steps(2), TimeBlock::Steps(4)] {
            let kernel = RayonCurl::with_threads(1).unwrap().with_time_block(block);
            let model = MachineModel::uniform(4, 1e8, latency, bandwidth);
            let ranks = yee_comm_sim::launch(topology, model, |mut c| {
                let owned = plan.initial_box(c.rank());
                let chunk = YeeBackend::<f32>::build(&kernel, &setup, owned, Default::default());
                let o = yee_scalar::decomposed::run_rank_with(
                    &setup,
                    &plan,
                    yee_core::session::Start::of(&plan),
                    chunk.unwrap(),
                    Vec::new(),
                    &mut c,
                    steps,
                    &mut NoCheckpoints::default(),
                    &|_| false,
                    |_, _: &mut yee_scalar::YeeChunk<f32, RayonCurl>| {},
                )
                .unwrap();
                let messages: usize = (o.records.recent.iter())
                    .map(|r| r.bytes_sent.iter().filter(|&&b| b > 0).count())
                    .sum();
                (o, c.now_seconds(), messages)
            });
            let k = ranks[0].0.tile_steps;
            let clock = ranks.iter().map(|r| r.1).fold(0.0, f64::max);
            let bytes: u64 = (ranks[0].0.records.recent.iter())
                .map(|r| r.bytes_sent.iter().sum::<u64>())
                .sum();
            let compute = ranks[0].0.records.totals.compute_seconds / steps as f64;
            let _ = writeln!(
                s,
                "  k = {k}: rank 0 sends {} messages, {} bytes per step; compute {compute:.4e} s/step; virtual time {:.4e} s/step",
                ranks[0].2 as f64 / steps as f64,
                bytes / steps,
                clock / steps as f64
            );
        }
    }
    insta::assert_snapshot!(s);
}
