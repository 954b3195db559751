//! The 2D wave app (apps/examples/src/wave.rs), kick first and drift first: the same bits on
//! one rank, on simulated and shared-memory ranks, in tensor, jagged and k-d layouts, and
//! under dynamic balancing against a slow rank, whose borders move; and one field's halo per
//! step. Kick first is the case a run without the exchange before step 0 gets wrong: the
//! kick reads U across the border before anything was sent.

use yee_comm_sim::MachineModel;
use yee_core::Topology;
use yee_examples::wave::simulate;
use yee_runtime::app::{CommKind, Gathered, LayoutKind, Ranks, RunPlan};

const GRID: [usize; 3] = [120, 100, 1];
const STEPS: u64 = 60;

fn run(comm: CommKind, count: usize, plan: &RunPlan, kick_first: bool) -> Gathered<f64> {
    let ranks = Ranks::new(comm, count).unwrap();
    simulate(&ranks, plan, STEPS, kick_first).unwrap().unwrap()
}

/// Rank 0 three times slower than the others.
fn slow_rank(ranks: usize) -> MachineModel {
    let mut model = MachineModel::default_for(ranks);
    model.speeds[0] /= 3.0;
    model
}

#[test]
fn every_communicator_and_layout_gives_the_one_rank_bits() {
    for kick_first in [true, false] {
        let reference = run(CommKind::Sim, 1, &RunPlan::new(GRID), kick_first).values;
        assert!(reference.iter().any(|&u| u.abs() > 1e-3), "the wave moves");
        let tensor = RunPlan::new(GRID);
        let cases = [
            (CommKind::Shm, 4, tensor.clone()),
            (CommKind::Sim, 4, tensor.clone()),
            (CommKind::Sim, 4, tensor.topology(Topology([1, 4, 1]))),
            (
                CommKind::Sim,
                4,
                RunPlan::new(GRID).layout(LayoutKind::Jagged),
            ),
            (CommKind::Shm, 3, RunPlan::new(GRID).layout(LayoutKind::Kd)),
            (CommKind::Sim, 5, RunPlan::new(GRID).layout(LayoutKind::Kd)),
        ];
        for (comm, count, plan) in cases {
            let out = run(comm, count, &plan, kick_first);
            assert!(
                out.values == reference,
                "{comm:?} {count} ranks {:?} {:?}, kick first {kick_first}",
                plan.layout,
                plan.topology
            );
        }
    }
}

#[test]
fn balancing_against_a_slow_rank_moves_borders_and_keeps_the_bits() {
    for kick_first in [true, false] {
        let reference = run(CommKind::Sim, 1, &RunPlan::new(GRID), kick_first).values;
        for layout in [LayoutKind::Tensor, LayoutKind::Jagged, LayoutKind::Kd] {
            let plan = RunPlan::new(GRID)
                .topology(Topology([4, 1, 1]))
                .layout(layout)
                .balanced(10)
                .model(slow_rank(4));
            let out = run(CommKind::Sim, 4, &plan, kick_first);
            let [first, last] = out.boxes[0];
            assert!(
                last.cells() < first.cells(),
                "{layout:?}: the slow rank gave cells away: {first:?} → {last:?}"
            );
            assert!(
                out.values == reference,
                "{layout:?}, kick first {kick_first}"
            );
        }
    }
}

#[test]
fn a_step_sends_one_field_halo() {
    // Two ranks side by side along x: each sends the other one column of U (100 cells of
    // 8 bytes) per step; V is read in place by the kick and never sent.
    let plan = RunPlan::new(GRID).topology(Topology([2, 1, 1]));
    for kick_first in [true, false] {
        let out = run(CommKind::Sim, 2, &plan, kick_first);
        assert_eq!(out.halo_bytes, vec![STEPS * 100 * 8; 2]);
    }
}

#[test]
fn box_layouts_balance_one_slow_rank_in_two_by_two_to_the_ideal() {
    // Rank 0 of 2×2 three times slower: a tensor split cannot give it a third of a share
    // without starving a line (the balancer's per-axis line model, eq. (21), settles at
    // 102×102: max load 31 212 cell-units, the best tensor split 24 576), a jagged or k-d
    // layout can: the ideal is total work / total speed = 3·256²/10 = 19 661.
    let grid = [256, 256, 1];
    for layout in [LayoutKind::Jagged, LayoutKind::Kd] {
        let plan = RunPlan::new(grid)
            .topology(Topology([2, 2, 1]))
            .layout(layout)
            .balanced(20)
            .model(slow_rank(4));
        let ranks = Ranks::new(CommKind::Sim, 4).unwrap();
        let out = simulate(&ranks, &plan, 100, false).unwrap().unwrap();
        let load = |r: usize| out.boxes[r][1].cells() as f64 * if r == 0 { 3.0 } else { 1.0 };
        let worst = (0..4).map(load).fold(0.0, f64::max);
        let ideal = 3.0 * (256.0 * 256.0) / 10.0;
        assert!(
            worst < 1.01 * ideal,
            "{layout:?}: max load {worst} against {ideal}"
        );
    }
}

#[test]
fn a_checkpoint_resumes_on_any_layout_with_the_same_bits() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("wave_checkpoints");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let reference = run(CommKind::Sim, 1, &RunPlan::new(GRID), true).values;
    // Four balanced ranks with a slow one write checkpoints at steps 20 and 40.
    let writing = RunPlan::new(GRID)
        .balanced(10)
        .model(slow_rank(4))
        .checkpoint_every(&dir, 20);
    assert!(run(CommKind::Sim, 4, &writing, true).values == reference);
    for step in [20, 40] {
        assert!(dir.join(format!("step-{step:010}/index.json")).is_file());
    }
    assert!(
        !dir.join(format!("step-{:010}", 60)).exists(),
        "none at the end"
    );
    let resumes = [
        (
            CommKind::Sim,
            4,
            RunPlan::new(GRID).balanced(10).model(slow_rank(4)),
        ),
        (CommKind::Shm, 3, RunPlan::new(GRID).layout(LayoutKind::Kd)),
        (CommKind::Sim, 1, RunPlan::new(GRID)),
    ];
    for (comm, count, plan) in resumes {
        let out = run(comm, count, &plan.resume_from(&dir), true);
        assert!(out.values == reference, "{comm:?} {count}");
    }
    let index = dir.join(format!("step-{:010}/index.json", 40));
    let mut json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&index).unwrap()).unwrap();
    // A rank file whose length and CRC-32 agree with its index but which holds more than this
    // run's chunks pack (chunks with other state) is refused, not read askew.
    let rank_file = dir
        .join(format!("step-{:010}", 40))
        .join(json["ranks"][0]["file"].as_str().unwrap());
    let original = std::fs::read(&rank_file).unwrap();
    let longer = [original.as_slice(), &[0; 8]].concat();
    std::fs::write(&rank_file, &longer).unwrap();
    let mut lengthened = json.clone();
    lengthened["ranks"][0]["bytes"] = longer.len().into();
    lengthened["ranks"][0]["crc32"] = crc32fast::hash(&longer).into();
    std::fs::write(&index, lengthened.to_string()).unwrap();
    let ranks = Ranks::new(CommKind::Sim, 1).unwrap();
    let Err(e) = simulate(&ranks, &RunPlan::new(GRID).resume_from(&dir), STEPS, true) else {
        panic!("a lengthened rank file was read");
    };
    assert!(e.message().contains("mismatched"), "{e}");
    std::fs::write(&rank_file, &original).unwrap();
    // An index whose boxes leave cells out is refused, naming the shortfall.
    json["ranks"].as_array_mut().unwrap().remove(2);
    std::fs::write(&index, json.to_string()).unwrap();
    let ranks = Ranks::new(CommKind::Sim, 2).unwrap();
    let plan = RunPlan::new(GRID).resume_from(&dir);
    let e = simulate(&ranks, &plan, STEPS, true).unwrap_err();
    assert!(e.message().contains("cells are in no rank file"), "{e}");
}
