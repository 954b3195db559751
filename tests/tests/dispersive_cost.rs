//! The cost of a dispersive cell on both host backends (docs/balancing.md): a 3D grid whose
//! every cell holds poles against the same grid in vacuum, same steps, runs alternated, the
//! best of each kept. Prints the extra cost per pole per cell in units of a vacuum cell, in the
//! test profile (the `Costs` defaults come from the release binary on
//! `bench/scenes/dispersive_cost_*.toml`). Timing, so not run by default:
//!
//! `cargo test --release -p yee-tests --test it dispersive_cost:: -- --ignored --nocapture`

use std::time::Instant;

use yee_core::{Box3, Chunk};
use yee_em::{
    Boundary, Component, Material, Mode, PointSource, Pole, PoleSet, Region, Setup, Shape,
    SourceKind, Waveform, YeeBackend,
};
use yee_tests::{TEST_POLES, vacuum};

const GRID: [usize; 3] = [64, 64, 64];
const STEPS: u64 = 30;
const RUNS: usize = 3;

/// Seconds per step of `setup` on `backend` (best of the calls the caller alternates).
fn seconds_per_step<B: YeeBackend<f64>>(backend: &B, setup: &Setup) -> f64 {
    let whole = Box3::from_extent(setup.grid);
    let mut chunk = backend
        .build(setup, whole, yee_em::Costs::default())
        .expect("builds");
    let start = Instant::now();
    for step in 0..STEPS {
        for phase in 0..chunk.phases() {
            chunk.submit(step, phase, whole).unwrap();
            chunk.wait().unwrap();
        }
    }
    start.elapsed().as_secs_f64() / STEPS as f64
}

fn extra_per_pole<B: YeeBackend<f64>>(backend: &B, name: &str) -> Vec<(usize, f64)> {
    let sources = [PointSource {
        component: Component::Ez,
        cell: [32, 32, 32],
        waveform: Waveform::Ricker {
            frequency: 0.05,
            delay: 20.0,
        },
        amplitude: 1.0,
        kind: SourceKind::Soft,
    }];
    let base = Setup {
        sources: &sources,
        ..vacuum(Mode::ThreeD, GRID, 0.5, [[Boundary::Pec; 2]; 3])
    };
    let region = |count: usize| {
        [Region {
            shape: Shape::Everywhere,
            material: Material {
                poles: PoleSet { first: 0, count },
                ..Material::dielectric(2.0)
            },
        }]
    };
    let cases: Vec<(usize, [Region; 1])> = [1, 3].map(|n| (n, region(n))).into_iter().collect();
    let poles: [Pole; 3] = TEST_POLES;
    let mut best_vacuum = f64::INFINITY;
    let mut best = vec![f64::INFINITY; cases.len()];
    for _ in 0..RUNS {
        best_vacuum = best_vacuum.min(seconds_per_step(backend, &base));
        for (k, (_, regions)) in cases.iter().enumerate() {
            let setup = Setup {
                regions,
                poles: &poles,
                ..base
            };
            best[k] = best[k].min(seconds_per_step(backend, &setup));
        }
    }
    cases
        .iter()
        .zip(&best)
        .map(|((n, _), &t)| {
            let extra = (t / best_vacuum - 1.0) / *n as f64;
            eprintln!(
                "{name}: vacuum {:.1} ms/step, {n} pole(s) everywhere {:.1} ms/step: {:.2} × a \
                 vacuum cell, {extra:.2} extra per pole",
                best_vacuum * 1e3,
                t * 1e3,
                t / best_vacuum
            );
            (*n, extra)
        })
        .collect()
}

#[test]
#[ignore = "timing: run with --release --ignored"]
fn dispersive_cell_cost() {
    let scalar = extra_per_pole(&yee_scalar::ScalarCurl, "scalar");
    let rayon = extra_per_pole(
        &yee_rayon::RayonCurl::with_threads(1).expect("a pool"),
        "rayon, 1 thread",
    );
    for (_, extra) in scalar.iter().chain(&rayon) {
        assert!(*extra > 0.0, "a pole costs something");
    }
}
