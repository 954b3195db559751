//! The rayon backend against the scalar oracle on every example scene: the same bits (its
//! kernels keep the oracle's arithmetic, operation for operation), on one rank and decomposed.

use std::path::Path;

use yee_core::{Scalar, Topology};
use yee_em::{
    Boundary, Component, Costs, CpmlParams, Mode, PointSource, Setup, SourceKind, Waveform,
    YeeBackend,
};
use yee_rayon::{ComponentPasses, HostKernel, PerRank, RayonCurl};
use yee_scalar::chunk::ScalarCurl;
use yee_scalar::decomposed::{RankOutput, assemble, probe_series, run_rank_on, uniform_plan};

/// Every rank's output of `steps` steps of `setup` split uniformly over `topology` (shm).
fn outputs<T: Scalar, B: YeeBackend<T>>(
    setup: &Setup,
    topology: Topology,
    backend: B,
    steps: u64,
) -> Vec<RankOutput<T>> {
    let plan = uniform_plan(setup, topology);
    yee_comm_shm::launch(topology, |mut c| {
        run_rank_on(
            setup,
            &plan,
            Costs::default(),
            &backend,
            &mut c,
            steps,
            |_, _| {},
        )
        .unwrap()
    })
}

fn run<T: Scalar, K: YeeBackend<T>>(
    setup: &Setup,
    topology: Topology,
    kernel: K,
    steps: u64,
) -> (Vec<Option<Vec<T>>>, Vec<Vec<T>>) {
    let outputs = outputs(setup, topology, kernel, steps);
    let fields = Component::ALL
        .iter()
        .map(|&c| assemble(&outputs, setup.grid, c))
        .collect();
    let probes = (0..setup.probes.len())
        .map(|i| probe_series(&outputs, i).unwrap())
        .collect();
    (fields, probes)
}

fn check<T: Scalar>(setup: &Setup, name: &str, steps: u64) {
    let reference = run::<T, _>(setup, Topology([1, 1, 1]), ScalarCurl, steps);
    let energy: f64 = reference
        .0
        .iter()
        .flatten()
        .flatten()
        .map(|v| yee_core::Real::to_f64(v.norm_sqr()))
        .sum();
    assert!(energy > 0.0, "{name}: nothing happened");
    let two = RayonCurl::with_threads(2).unwrap();
    assert!(
        run::<T, _>(setup, Topology([1, 1, 1]), two.clone(), steps) == reference,
        "{name}: rayon on one rank differs"
    );
    let split = yee_core::topology::choose_topology(setup.grid, setup.mode.dims(), 2, 1)
        .unwrap()
        .topology;
    assert!(
        run::<T, _>(setup, split, two.clone(), steps) == reference,
        "{name}: rayon on two ranks differs"
    );
    // As `yee run` builds it: each rank's kernel picked from a list, every pass handed on to
    // the rayon kernel's own (a pass left to the trait's default would run twice, or apart).
    let per_rank = PerRank::every_rank(HostKernel::Rayon(two.clone()));
    assert!(
        run::<T, _>(setup, split, per_rank, steps) == reference,
        "{name}: rayon through PerRank differs"
    );
    for passes in [ComponentPasses::Together, ComponentPasses::Apart] {
        let kernel = two.clone().with_passes(passes);
        assert!(
            run::<T, _>(setup, split, kernel, steps) == reference,
            "{name}: rayon with the components {passes:?} differs"
        );
    }
    // Batches of a few rows cut the multi-row spans at odd places, across planes too. On one
    // rank they also cut each step into slabs of 1 400 cells (two threads × 700), swept H then
    // E slab after slab (`YeeChunk::apply_step`), against the oracle's two whole phases; and
    // tensor nodes go with the rows of their batches.
    let small = two.with_batch_cells(700);
    assert!(
        run::<T, _>(setup, Topology([1, 1, 1]), small, steps) == reference,
        "{name}: rayon in small batches and step slabs differs"
    );
}

/// The divergence a run reports (step, component, cell) with `kernel`.
fn divergence<K: YeeBackend<f64>>(setup: &Setup, kernel: K) -> Option<String> {
    let outputs = outputs::<f64, _>(setup, Topology([1, 1, 1]), kernel, 60);
    outputs[0].diverged.as_ref().map(|e| e.to_string())
}

#[test]
fn a_diverging_run_stops_where_the_oracle_stops() {
    // A 1e308 current in a uniform PEC box: the rows around it take the multi-row fast loop,
    // whose finiteness fold must catch the overflow at the same step and cell as the oracle.
    let sources = [PointSource {
        component: Component::Ez,
        cell: [7, 5, 6],
        waveform: Waveform::Gaussian {
            delay: 0.0,
            width: 1e6,
            frequency: 0.0,
        },
        amplitude: 1e308,
        kind: SourceKind::Soft,
    }];
    let setup = Setup {
        sources: &sources,
        ..yee_tests::vacuum(Mode::ThreeD, [12, 10, 11], 0.5, yee_tests::PEC)
    };
    let oracle = divergence(&setup, ScalarCurl).expect("the oracle diverges");
    for kernel in [
        RayonCurl::with_threads(2).unwrap(),
        RayonCurl::with_threads(1).unwrap().with_batch_cells(50),
    ] {
        assert_eq!(divergence(&setup, kernel).as_deref(), Some(oracle.as_str()));
    }
}

#[test]
fn every_example_scene_matches_the_scalar_oracle_bit_for_bit() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/scenes");
    let mut scenes: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    scenes.sort();
    assert!(scenes.len() >= 5);
    for path in scenes {
        let mut scene = yee_scene::load(&path).unwrap();
        // A mode source's currents come from the mode solver (yee-simulation), as in `yee run`.
        yee_simulation::mode_sources::expand_mode_sources(&mut scene).unwrap();
        let name = scene.name.clone();
        let steps = 40;
        check::<f64>(&scene.setup(), &name, steps);
        check::<f32>(&scene.setup(), &name, steps);
    }
}

/// A Drude–Lorentz–Debye sphere beside a Debye block (nodes of one, two and no pole sets, CPML
/// over part of them): the polarisation passes are shared, the curl rows are rayon's, and the
/// bits are the oracle's on one and two ranks, in every sweep.
#[test]
fn dispersive_media_match_the_scalar_oracle_bit_for_bit() {
    let regions = [
        yee_em::Region {
            shape: yee_em::Shape::Sphere {
                center: [9.0, 8.0, 7.0],
                radius: 5.0,
            },
            material: yee_tests::dispersive(2.0, 0, 3),
        },
        yee_em::Region {
            shape: yee_em::Shape::Block {
                lo: [13.0, 0.0, 0.0],
                hi: [18.0, 16.0, 4.0],
            },
            material: yee_tests::dispersive(1.5, 2, 1),
        },
    ];
    let sources = [yee_tests::ricker_source(Component::Ez, [9, 8, 7])];
    let setup = Setup {
        regions: &regions,
        poles: &yee_tests::TEST_POLES,
        sources: &sources,
        ..yee_tests::vacuum(
            Mode::ThreeD,
            [18, 16, 14],
            0.5,
            yee_tests::cpml_everywhere(3),
        )
    };
    setup.validate().unwrap();
    check::<f64>(&setup, "dispersive", 40);
    check::<f32>(&setup, "dispersive (f32)", 40);
}

/// CPML with a real stretch (κmax = 5) of different thickness per face, around a lossy
/// sphere, in every mode: the rows inside y and z layers take the stretched vector loop, the
/// x layers the per-cell path, every layer's ψ is updated in the row sweep, and the bits are
/// the oracle's on one and two ranks, in every sweep.
#[test]
fn stretched_cpml_layers_match_the_scalar_oracle_bit_for_bit() {
    let stretched = |thickness| {
        Boundary::Cpml(CpmlParams {
            kappa_max: 5.0,
            ..CpmlParams::with_thickness(thickness)
        })
    };
    let boundaries = [
        [stretched(3), stretched(4)],
        [stretched(4), stretched(2)],
        [stretched(2), stretched(3)],
    ];
    let regions = [yee_tests::lossy_sphere([9.0, 8.0, 7.0], 3.0, 0.02)];
    for (mode, grid, component) in [
        (Mode::ThreeD, [18usize, 16, 14], Component::Ez),
        (Mode::Tmz, [18, 16, 1], Component::Ez),
        (Mode::Tez, [18, 16, 1], Component::Hz),
        (Mode::OneD, [40, 1, 1], Component::Ez),
    ] {
        let active = mode.active_axes();
        let walls: [[Boundary; 2]; 3] = std::array::from_fn(|a| {
            if active[a] {
                boundaries[a]
            } else {
                [Boundary::Pec; 2]
            }
        });
        for with_sphere in [false, true] {
            let cell = std::array::from_fn(|a| [9, 8, 7][a].min(grid[a] as i64 - 1));
            let sources = [yee_tests::ricker_source(component, cell)];
            let setup = Setup {
                sources: &sources,
                regions: if with_sphere && mode != Mode::OneD {
                    &regions[..]
                } else {
                    &[]
                },
                ..yee_tests::vacuum(mode, grid, 0.5, walls)
            };
            setup.validate().unwrap();
            let name = format!("{mode:?}, sphere {with_sphere}");
            check::<f64>(&setup, &name, 40);
            check::<f32>(&setup, &format!("{name} (f32)"), 40);
        }
    }
}

/// x layers of exactly one group of the rayon backend's correction loop (8 cells), of one
/// group and a remainder (11: the last group overlaps the first) and of two groups and a
/// remainder (19), with a lossy sphere cutting their rows into runs of several materials:
/// the bits are the oracle's, with and without a stretch.
#[test]
fn x_layers_in_groups_with_an_overlapping_last_one_match_the_scalar_oracle() {
    let regions = [yee_tests::lossy_sphere([6.0, 6.0, 5.0], 2.5, 0.03)];
    for kappa_max in [1.0, 4.0] {
        let layer = |thickness| {
            Boundary::Cpml(CpmlParams {
                kappa_max,
                ..CpmlParams::with_thickness(thickness)
            })
        };
        for (low, high) in [(8, 11), (11, 19)] {
            let boundaries = [[layer(low), layer(high)], [layer(2); 2], [layer(2); 2]];
            let sources = [yee_tests::ricker_source(Component::Ez, [20, 6, 5])];
            let setup = Setup {
                sources: &sources,
                regions: &regions,
                ..yee_tests::vacuum(Mode::ThreeD, [44, 12, 10], 0.5, boundaries)
            };
            setup.validate().unwrap();
            let name = format!("x layers {low} and {high}, kappa {kappa_max}");
            check::<f64>(&setup, &name, 40);
            check::<f32>(&setup, &format!("{name} (f32)"), 40);
        }
    }
}
