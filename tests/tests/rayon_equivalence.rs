//! The rayon backend against the scalar oracle on every example scene: the same bits (its
//! kernels keep the oracle's arithmetic, operation for operation), on one rank and decomposed.

use std::path::Path;

use yee_core::{Component, Costs, Scalar, Setup, Topology};
use yee_rayon::{ComponentPasses, RayonCurl};
use yee_scalar::chunk::{CurlExecutor, ScalarCurl};
use yee_scalar::decomposed::{assemble, probe_series, run_rank_with, uniform_plan};

fn run<T: Scalar, K: CurlExecutor<T>>(
    setup: &Setup,
    topology: Topology,
    kernel: K,
    steps: u64,
) -> (Vec<Option<Vec<T>>>, Vec<Vec<T>>) {
    let plan = uniform_plan(setup, topology);
    let outputs = yee_comm_shm::launch(topology, |mut c| {
        run_rank_with(
            setup,
            &plan,
            Costs::default(),
            kernel.clone(),
            &mut c,
            steps,
            |_, _| {},
        )
        .unwrap()
    });
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
    for passes in [ComponentPasses::Together, ComponentPasses::Apart] {
        let kernel = two.clone().with_passes(passes);
        assert!(
            run::<T, _>(setup, split, kernel, steps) == reference,
            "{name}: rayon with the components {passes:?} differs"
        );
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
        let scene = yee::scene::load(&path).unwrap();
        let name = scene.name.clone();
        let steps = 40;
        check::<f64>(&scene.setup(), &name, steps);
        check::<f32>(&scene.setup(), &name, steps);
    }
}
