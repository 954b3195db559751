//! Temporal blocking in decomposed runs (issue 45, item 2): ranks with ghost zones `k` cells
//! deep ([`yee_core::ghost_zone`], `yee_scalar::ghost_zone`) exchange their halos once every
//! `k` steps and update the zone redundantly; every field is bit for bit the one-rank run's
//! stepped one step at a time (the scalar `Simulation`), on 2×1×1, 2×2×1 and uneven layouts,
//! on the shm and simulated communicators, for `--time-block 2`, `4` and `auto`, with static
//! uneven borders and with borders a balancer moves during the run. Probes and DFT monitors
//! keep the ghost zones: each probe's record, sampled inside the blocks by the rank owning it,
//! and each monitor's sums, taken over the owned cells alone, are the one-rank run's too; so
//! are the fields of dispersive media, whose polarisations travel in the deep halos.

use yee_comm_sim::MachineModel;
use yee_core::balance::{BalanceParams, Balancer};
use yee_core::session::{Plan, Start};
use yee_core::{Box3, Topology};
use yee_em::{Component, Costs, DftMonitor, Mode, Probe, Setup, YeeBackend, YeeFields};
use yee_rayon::{RayonCurl, TimeBlock};
use yee_scalar::checkpoints::NoCheckpoints;
use yee_scalar::decomposed::{
    RankOutput, assemble, assemble_dft, probe_series, run_rank_with, uniform_plan,
};
use yee_tests::{CommKind, Outcome, single_chunk};

/// A CPML box with a lossy dielectric sphere (diagonal smoothing) and a source off-centre.
fn scene<'a>(
    mode: Mode,
    grid: [usize; 3],
    regions: &'a [yee_em::Region],
    sources: &'a [yee_em::PointSource],
) -> Setup<'a> {
    let setup = unchecked(mode, grid, regions, sources);
    setup.validate().unwrap();
    setup
}

/// [`scene`], not validated (for regions of materials it does not name).
fn unchecked<'a>(
    mode: Mode,
    grid: [usize; 3],
    regions: &'a [yee_em::Region],
    sources: &'a [yee_em::PointSource],
) -> Setup<'a> {
    let active = mode.active_axes();
    let walls = std::array::from_fn(|a| match active[a] {
        true => [yee_em::Boundary::Cpml(yee_em::CpmlParams::with_thickness(3)); 2],
        false => [yee_em::Boundary::Pec; 2],
    });
    Setup {
        sources,
        regions,
        smoothing_tensor: false,
        ..yee_tests::vacuum(mode, grid, 0.5, walls)
    }
}

/// Rank `comm.rank()` of `plan`, the rayon `kernel`, with no step observed before the end.
fn rank<M: yee_core::Comm>(
    setup: &Setup,
    plan: &Plan,
    kernel: &RayonCurl,
    comm: &mut M,
    steps: u64,
) -> RankOutput<f64> {
    let chunk = YeeBackend::<f64>::build(
        kernel,
        setup,
        plan.initial_box(comm.rank()),
        Costs::default(),
    )
    .unwrap();
    let mut none = NoCheckpoints::default();
    let never = |_: u64| false;
    let after = |_, _: &mut yee_scalar::YeeChunk<f64, RayonCurl>| {};
    run_rank_with(
        setup,
        plan,
        Start::of(plan),
        chunk,
        Vec::new(),
        comm,
        steps,
        &mut none,
        &never,
        after,
    )
    .unwrap()
}

/// Every rank of `plan` on `comm`, the rayon kernel blocking time as `block`.
fn ranks(
    setup: &Setup,
    plan: &Plan,
    comm: CommKind,
    model: Option<MachineModel>,
    block: TimeBlock,
    steps: u64,
) -> Vec<RankOutput<f64>> {
    let kernel = RayonCurl::with_threads(1)
        .unwrap()
        .with_time_block(block)
        .with_cache_bytes(256 << 10);
    let topology = plan.topology;
    match comm {
        CommKind::Sim => {
            let model = model.unwrap_or_else(|| MachineModel::default_for(topology.ranks()));
            yee_comm_sim::launch(topology, model, |mut c| {
                rank(setup, plan, &kernel, &mut c, steps)
            })
        }
        _ => yee_comm_shm::launch(topology, |mut c| rank(setup, plan, &kernel, &mut c, steps)),
    }
}

/// Whether every component, probe record and DFT monitor of `outputs` is the oracle's.
fn same_bits(setup: &Setup, outputs: &[RankOutput<f64>], oracle: &Outcome<f64>) -> bool {
    let fields = Component::ALL
        .into_iter()
        .all(|c| assemble(outputs, setup.grid, c) == oracle.fields[c.index()]);
    let probes = (0..setup.probes.len())
        .all(|i| probe_series(outputs, i).as_ref() == Some(&oracle.probes[i]));
    let dft = (0..setup.monitors.len())
        .all(|i| assemble_dft(setup, i, outputs.iter().flat_map(|o| &o.dft)) == oracle.dft[i]);
    fields && probes && dft
}

/// Probes, E and H, on and next to the borders of 2×2×1, 1×2×2 and 3×1×1 layouts of a
/// [14, 12, 11] or [30, 14, 12] grid (inside a neighbour's ghost zone), and one well inside.
const PROBES: [Probe; 5] = [
    Probe {
        component: Component::Ez,
        cell: [6, 5, 5],
    },
    Probe {
        component: Component::Hy,
        cell: [7, 6, 4],
    },
    Probe {
        component: Component::Ex,
        cell: [3, 9, 6],
    },
    Probe {
        component: Component::Hz,
        cell: [10, 2, 8],
    },
    Probe {
        component: Component::Ey,
        cell: [20, 7, 6],
    },
];

/// The monitors' frequencies.
const FREQUENCIES: [f64; 2] = [0.05, 0.09];

/// A DFT monitor of E and H from [2, 2, 2] to `hi`, across every rank border of those layouts
/// (a flux box's sums).
const fn monitor(hi: [i64; 3]) -> DftMonitor {
    DftMonitor {
        region: Box3 { lo: [2, 2, 2], hi },
        components: [true, true, true, true, false, true],
        first: 0,
        count: 2,
    }
}

/// `plan`'s runs with `--time-block 2`, `4` and `auto` on shm and sim against the oracle,
/// each taking blocks of the depth `expected` gives for the block asked (`None`: auto, any
/// depth above 1).
fn check(setup: &Setup, plan: &Plan, steps: u64, expected: impl Fn(u64) -> u64, name: &str) {
    let oracle = single_chunk::<f64>(setup, steps);
    for block in [TimeBlock::Steps(2), TimeBlock::Steps(4), TimeBlock::Auto] {
        for comm in [CommKind::Shm, CommKind::Sim] {
            let outputs = ranks(setup, plan, comm, None, block, steps);
            let k = outputs[0].tile_steps;
            if let TimeBlock::Steps(asked) = block {
                assert_eq!(k, expected(asked), "{name}: {block:?} zone");
            }
            assert!(k > 1, "{name}: {block:?} took no zone");
            for o in &outputs {
                assert_eq!((o.tile_steps, o.longest_tile), (k, k), "{name}: {block:?}");
            }
            assert!(
                same_bits(setup, &outputs, &oracle),
                "{name}: {block:?} on {comm:?} differs from the one-rank run"
            );
        }
    }
}

#[test]
fn ghost_zones_on_uniform_layouts_keep_every_bit() {
    let regions = [yee_tests::lossy_sphere([7.0, 6.0, 5.0], 3.0, 0.03)];
    let sources = [yee_tests::ricker_source(Component::Ez, [4, 5, 6])];
    let setup = scene(Mode::ThreeD, [14, 12, 11], &regions, &sources);
    for topology in [
        Topology([2, 1, 1]),
        Topology([2, 2, 1]),
        Topology([1, 2, 2]),
    ] {
        let plan = uniform_plan(&setup, topology);
        check(&setup, &plan, 23, |k| k, &format!("{:?}", topology.0));
    }
    let sources = [yee_tests::ricker_source(Component::Ez, [9, 7, 0])];
    let setup = scene(Mode::Tmz, [20, 17, 1], &regions[..0], &sources);
    let plan = uniform_plan(&setup, Topology([2, 2, 1]));
    check(&setup, &plan, 23, |k| k, "TMz [2, 2, 1]");
}

/// A dispersive block (Drude, Lorentz and Debye poles) across every rank border of 2×2×1,
/// 1×2×2 and 3×1×1 layouts, 3D and TMz: the deep halos carry the polarisations of the
/// neighbours' layers with the fields and ψ, so the zone's nodes start each block exact and
/// the fields stay the one-rank run's bit for bit.
#[test]
fn ghost_zones_carry_the_polarisations_of_dispersive_nodes() {
    let regions = [yee_em::Region {
        shape: yee_em::Shape::Block {
            lo: [3.0, 2.0, 2.0],
            hi: [11.0, 10.0, 9.0],
        },
        material: yee_tests::dispersive(1.5, 0, 3),
    }];
    let sources = [yee_tests::ricker_source(Component::Ez, [4, 5, 6])];
    let setup = Setup {
        poles: &yee_tests::TEST_POLES,
        ..unchecked(Mode::ThreeD, [14, 12, 11], &regions, &sources)
    };
    setup.validate().unwrap();
    for topology in [
        Topology([2, 2, 1]),
        Topology([1, 2, 2]),
        Topology([3, 1, 1]),
    ] {
        let plan = uniform_plan(&setup, topology);
        check(&setup, &plan, 23, |k| k, &format!("poles {:?}", topology.0));
    }
    let sources = [yee_tests::ricker_source(Component::Ez, [9, 7, 0])];
    let setup = Setup {
        poles: &yee_tests::TEST_POLES,
        ..unchecked(Mode::Tmz, [20, 17, 1], &regions, &sources)
    };
    setup.validate().unwrap();
    let plan = uniform_plan(&setup, Topology([2, 2, 1]));
    check(&setup, &plan, 23, |k| k, "poles TMz [2, 2, 1]");
}

/// Probes on and next to the rank borders and a DFT monitor across them (2×2×1 and 1×2×2, shm
/// and sim, k = 2, 4 and auto): the ranks keep their ghost zones, each probe is sampled inside
/// the blocks by the rank owning its cell, at its own step, and the monitor's sums are taken
/// over the owned cells: records, sums and fields are the one-rank run's bit for bit.
#[test]
fn ghost_zones_keep_probes_and_dft_sums_bit_for_bit() {
    let regions = [yee_tests::lossy_sphere([7.0, 6.0, 5.0], 3.0, 0.03)];
    let sources = [yee_tests::ricker_source(Component::Ez, [4, 5, 6])];
    let setup = Setup {
        probes: &PROBES[..4],
        monitors: &[monitor([12, 10, 9])],
        frequencies: &FREQUENCIES,
        ..scene(Mode::ThreeD, [14, 12, 11], &regions, &sources)
    };
    setup.validate().unwrap();
    for topology in [Topology([2, 2, 1]), Topology([1, 2, 2])] {
        let plan = uniform_plan(&setup, topology);
        check(
            &setup,
            &plan,
            23,
            |k| k,
            &format!("probes {:?}", topology.0),
        );
    }
}

/// Inside a block a chunk samples the probes it owns, at each step but the block's last (the
/// run samples that one), and leaves a probe in its ghost zone to the zone's owner; the zone's
/// cells are updated redundantly, but their DFT sums would never be read (the owner's are), so
/// they take none. Two blocks of 3 steps, with no exchange between them, in wavefront tiles
/// and one step at a time: the same samples, those of the first block the one-rank run's; the
/// zone's sums zero and the owned cells' not.
#[test]
fn a_ghost_zone_samples_only_owned_probes_and_takes_no_dft_sums() {
    use yee_core::Chunk;
    let sources = [yee_tests::ricker_source(Component::Ez, [5, 4, 5])];
    let monitors = [monitor([12, 10, 9])];
    let setup = Setup {
        // [6, 5, 5] is owned; [7, 6, 4] lies in the zone.
        probes: &PROBES[..2],
        monitors: &monitors,
        frequencies: &FREQUENCIES,
        ..scene(Mode::ThreeD, [14, 12, 11], &[], &sources)
    };
    setup.validate().unwrap();
    let oracle = single_chunk::<f64>(&setup, 2).probes;
    let owned = Box3::new([0, 0, 0], [7, 6, 11]);
    let mut taken = Vec::new();
    for block in [TimeBlock::Steps(3), TimeBlock::Off] {
        let kernel = RayonCurl::with_threads(1).unwrap().with_time_block(block);
        let mut chunk = YeeBackend::<f64>::build(&kernel, &setup, owned, Costs::default()).unwrap();
        chunk.set_ghost_zone(3).unwrap();
        for first in [0, 3] {
            chunk.submit_steps(first, 3, owned).unwrap();
        }
        let mut samples = Vec::new();
        chunk.drain_probe_samples(&mut samples).unwrap();
        samples.sort_by_key(|&(i, step, _)| (i, step));
        let steps: Vec<(usize, u64)> = samples.iter().map(|&(i, s, _)| (i, s)).collect();
        assert_eq!(steps, [(0, 1), (0, 2), (0, 4), (0, 5)], "{block:?}");
        let first: Vec<f64> = samples[..2].iter().map(|s| s.2).collect();
        assert!(first == oracle[0], "{block:?}: the first block's samples");
        taken.push(samples);
        let sums = |chunk: &mut yee_scalar::YeeChunk<f64, RayonCurl>, region: Box3| {
            let mut out = vec![0.0; region.cells() * 2 * FREQUENCIES.len()];
            assert!(chunk.read_dft(0, Component::Ez, region, &mut out).unwrap());
            out.iter().map(|v| v.abs()).sum::<f64>()
        };
        let mine = sums(&mut chunk, Box3::new([2, 2, 2], [7, 6, 9]));
        assert!(mine > 0.0, "{block:?}: the owned cells took no sums");
        for zone in [
            Box3::new([7, 2, 2], [10, 6, 9]),
            Box3::new([2, 6, 2], [7, 9, 9]),
        ] {
            let stale = sums(&mut chunk, zone);
            assert_eq!(stale, 0.0, "{block:?}: the zone's cells {zone:?} took sums");
        }
    }
    assert!(
        taken[0] == taken[1],
        "tiles and single steps sample differently"
    );
}

/// Uneven borders (a static balance's): a box 3 cells thick holds a zone of 3 steps at most.
#[test]
fn ghost_zones_on_uneven_borders_keep_every_bit() {
    let regions = [yee_tests::lossy_sphere([7.0, 6.0, 5.0], 3.0, 0.0)];
    let sources = [yee_tests::ricker_source(Component::Ez, [4, 5, 6])];
    let setup = scene(Mode::ThreeD, [14, 12, 11], &regions, &sources);
    let topology = Topology([3, 2, 1]);
    let plan = Plan {
        borders: [vec![0, 3, 9, 14], vec![0, 7, 12], vec![0, 11]],
        ..uniform_plan(&setup, topology)
    };
    check(&setup, &plan, 23, |k| k.min(3), "uneven");
}

/// A balancer moves the borders every 8 steps (a slow rank): blocks end at each rebalance,
/// the zone follows the new boxes, the probes (some on the moving borders) are sampled by
/// whichever rank owns them at each step, the DFT sums move with their cells, and the
/// fields, probe records and sums stay the one-rank run's, bit for bit.
#[test]
fn ghost_zones_keep_every_bit_while_borders_move() {
    let regions = [yee_tests::lossy_sphere([15.0, 7.0, 6.0], 4.0, 0.02)];
    let sources = [yee_tests::ricker_source(Component::Ez, [9, 7, 6])];
    let setup = Setup {
        probes: &PROBES,
        monitors: &[monitor([26, 12, 10])],
        frequencies: &FREQUENCIES,
        ..scene(Mode::ThreeD, [30, 14, 12], &regions, &sources)
    };
    setup.validate().unwrap();
    let topology = Topology([3, 1, 1]);
    let density = std::array::from_fn(|a| vec![1.0; setup.grid[a]]);
    let params = BalanceParams {
        every: 8,
        disabling: false,
        ..BalanceParams::default()
    };
    let plan = Plan {
        balancer: Some(Balancer::new(topology, 3, density, params)),
        ..uniform_plan(&setup, topology)
    };
    let mut model = MachineModel::default_for(3);
    model.speeds = vec![2e7, 1e8, 6e7];
    model.delays = vec![5e-5, 0.0, 0.0];
    let steps = 60;
    let oracle = single_chunk::<f64>(&setup, steps);
    for block in [
        TimeBlock::Steps(2),
        TimeBlock::Steps(3),
        TimeBlock::Steps(4),
        TimeBlock::Auto,
    ] {
        let outputs = ranks(
            &setup,
            &plan,
            CommKind::Sim,
            Some(model.clone()),
            block,
            steps,
        );
        let moves = (outputs[0].history.iter())
            .filter(|h| h.action != "keep")
            .count();
        assert!(moves >= 2, "{block:?}: the borders moved {moves} times");
        assert!(
            outputs.iter().all(|o| o.longest_tile > 1),
            "{block:?}: no block"
        );
        assert!(
            same_bits(&setup, &outputs, &oracle),
            "{block:?}: a balanced run differs from the one-rank run"
        );
    }
}
