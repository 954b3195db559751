//! Nothing is allocated per step (issue 18, build item 3): a counting global allocator
//! around the steps of one chunk, after a few warm-up steps, over a scene with every kind of
//! cell (CPML, a lossy block, dispersive poles, a smoothed sphere) and a DFT monitor. Neither
//! the scalar backend nor the rayon backend allocates (the rayon backend keeps its lists of row
//! batches, ψ shares, DFT rows, dispersive runs and runs of tensor nodes between phases:
//! `backends/rayon/src/scratch.rs`), on one thread or several.
//!
//! The counter is `stats_alloc`'s instrumented system allocator: process-wide, so the rayon
//! pool's threads count too. So does rayon's own queue of the work handed to a pool from
//! outside it (each phase a chunk is asked for, `CurlExecutor::within`): a linked list of
//! blocks of 63 jobs (`crossbeam_deque::Injector`), one 1 520-byte block allocated each time
//! the last one fills, so about one allocation per 31 steps of two phases, whatever the grid.
//! The rayon test allows exactly those: over 100 steps, at most one block per 63 phases (and
//! one more for where the count starts), none larger than 2 KiB.
//!
//! The counter is installed for the whole test binary, whose other tests run side by side and
//! allocate as they please; so each test here runs its body again in a child process of the
//! binary, alone ([`alone`]), where only the counted steps run.

use stats_alloc::{INSTRUMENTED_SYSTEM, Region as Counted, StatsAlloc};
use std::alloc::System;

use yee_core::{Box3, Chunk, Scalar};
use yee_em::{
    Boundary, Component, Costs, CpmlParams, DftMonitor, Material, Mode, Region, Setup, Shape,
    YeeBackend,
};

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

/// Set in the child process that runs one test of this module alone.
const ALONE: &str = "YEE_TESTS_COUNT_ALLOCATIONS_ALONE";

/// True in the child process, where the test `name` (of this module) runs its body alone.
/// Otherwise starts that child — this binary, `name` only, one test thread — requires it to
/// pass, and returns false.
fn alone(name: &str) -> bool {
    if std::env::var_os(ALONE).is_some() {
        return true;
    }
    let module = module_path!()
        .split_once("::")
        .map_or(module_path!(), |(_, m)| m);
    let test = format!("{module}::{name}");
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args([test.as_str(), "--exact", "--test-threads=1"])
        .env(ALONE, "1")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("1 passed"),
        "{test} alone:\n{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    false
}

const REGIONS: [Region; 3] = [
    Region {
        shape: Shape::Block {
            lo: [3.0, 3.0, 2.0],
            hi: [8.0, 12.0, 9.0],
        },
        material: Material {
            eps: 3.0,
            mu: 1.0,
            sigma: 0.05,
            sigma_m: 0.0,
            poles: yee_em::PoleSet::NONE,
            diagonal: None,
            coupling: None,
        },
    },
    Region {
        shape: Shape::Block {
            lo: [9.0, -1.0, -1.0],
            hi: [13.0, 11.0, 10.0],
        },
        material: yee_tests::dispersive(1.5, 0, 3),
    },
    Region {
        shape: Shape::Sphere {
            center: [6.3, 8.6, 6.2],
            radius: 3.7,
        },
        material: Material {
            eps: 2.25,
            mu: 1.0,
            sigma: 0.0,
            sigma_m: 0.0,
            poles: yee_em::PoleSet::NONE,
            diagonal: None,
            coupling: None,
        },
    },
];

fn scene() -> Setup<'static> {
    let cpml = Boundary::Cpml(CpmlParams::with_thickness(4));
    let grid = [18, 16, 14];
    Setup {
        mode: Mode::ThreeD,
        grid,
        courant: 0.5,
        background: Material::VACUUM,
        poles: &yee_tests::TEST_POLES,
        regions: &REGIONS,
        boundaries: [[cpml, cpml], [cpml, Boundary::Pec], [cpml, cpml]],
        sources: Box::leak(Box::new([yee_tests::ricker_source(
            Component::Ez,
            [7, 6, 5],
        )])),
        probes: &[],
        plane_waves: &[],
        monitors: Box::leak(Box::new([DftMonitor {
            region: Box3::new([2, 3, 2], [12, 11, 9]),
            components: [true; 6],
            first: 0,
            count: 3,
        }])),
        frequencies: &[0.03, 0.05, 0.07],
        active: None,
        smoothing: true,
        smoothing_tensor: true,
        bloch: [0.0; 3],
    }
}

/// Allocations during `steps` steps of one chunk of `backend` over the whole grid, after
/// three warm-up steps.
/// Allocations (reallocations included) and bytes allocated over `steps` steps of the scene's
/// one chunk, after three warm-up steps.
fn allocations_per_steps<T: Scalar, B: YeeBackend<T>>(backend: &B, steps: u64) -> (usize, usize)
where
    for<'s> <B::Chunk<'s> as Chunk>::Error: core::fmt::Debug,
{
    let setup = scene();
    let whole = Box3::from_extent(setup.grid);
    let mut chunk = backend.build(&setup, whole, Costs::default()).unwrap();
    let run = |chunk: &mut B::Chunk<'_>, from: u64, to: u64| {
        for step in from..to {
            for phase in 0..chunk.phases() {
                chunk.submit(step, phase, whole).unwrap();
                chunk.wait().unwrap();
            }
        }
    };
    run(&mut chunk, 0, 3);
    let counted = Counted::new(GLOBAL);
    run(&mut chunk, 3, 3 + steps);
    let stats = counted.change();
    (
        stats.allocations + stats.reallocations,
        stats.bytes_allocated + stats.bytes_reallocated.unsigned_abs(),
    )
}

#[test]
fn the_scalar_backend_allocates_nothing_per_step() {
    if !alone("the_scalar_backend_allocates_nothing_per_step") {
        return;
    }
    let (n, _) = allocations_per_steps::<f64, _>(&yee_scalar::ScalarCurl, 10);
    assert_eq!(n, 0, "{n} allocations in 10 steps");
}

#[test]
fn the_rayon_backend_allocates_nothing_per_step() {
    if !alone("the_rayon_backend_allocates_nothing_per_step") {
        return;
    }
    for threads in [1, 2] {
        for batch in [None, Some(64)] {
            let mut backend = yee_rayon::RayonCurl::with_threads(threads).unwrap();
            if let Some(cells) = batch {
                // Many batches of rows and runs of tensor nodes, so the lists are long and
                // the tasks many.
                backend = backend.with_batch_cells(cells);
            }
            // Two phases a step, each handed to the pool once: rayon's queue blocks only.
            let steps = 100;
            let blocks = (2 * steps as usize).div_ceil(63) + 1;
            for (kind, (n, bytes)) in [
                ("f32", allocations_per_steps::<f32, _>(&backend, steps)),
                ("f64", allocations_per_steps::<f64, _>(&backend, steps)),
            ] {
                assert!(
                    n <= blocks && bytes <= n * 2048,
                    "{n} allocations ({bytes} B) in {steps} steps ({kind}) on {threads} \
                     threads, batches of {batch:?}: more than rayon's queue blocks ({blocks})"
                );
            }
        }
    }
}
