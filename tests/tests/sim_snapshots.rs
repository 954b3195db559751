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
    let setup = Setup {
        mode,
        grid,
        courant: 0.5,
        background: Material::VACUUM,
        poles: &[],
        regions: &[],
        boundaries: cpml_everywhere(3),
        sources: &sources,
        probes: &[],
        plane_waves: &[],
        monitors: &[],
        frequencies: &[],
        active: None,
        smoothing: true,
    };
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
            let r = &o.records[0];
            let _ = writeln!(
                s,
                "  {:<7} -> rank {peer}: sends {} bytes/step, share {:.4e} s/step",
                dir.name().as_str(),
                r.bytes_sent[d],
                o.records.iter().map(|r| r.share_seconds[d]).sum::<f64>() / steps as f64
            );
        }
        let compute = o.records.iter().map(|r| r.compute_seconds).sum::<f64>() / steps as f64;
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
