//! `Simulation` paused, read, stopped and resumed: the fields are those of a run never paused,
//! bit for bit, on any number of ranks, communicator and layout.

use std::path::{Path, PathBuf};

use yee_em::Component;
use yee_runtime::balance::LayoutKind;
use yee_runtime::parallel::CommKind;
use yee_scene::Scene;
use yee_simulation::options::auto_topology;
use yee_simulation::{AppError, RunOptions, Simulation, Status, Values};

/// The 2D dipole example (CPML, a probe, slices and snapshots), `steps` long.
fn dipole(steps: u64) -> Scene {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/scenes/dipole2d.toml");
    let mut scene = yee_scene::load(&file).unwrap();
    scene.set_steps(steps).unwrap();
    scene
}

/// A fresh folder for `name`.
fn folder(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("yee-simulation-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// Options writing into `name`'s folder over `ranks` ranks on `comm`.
fn options(scene: &Scene, name: &str, ranks: usize, comm: CommKind) -> RunOptions {
    let mut o = RunOptions::new(folder(name));
    o.topology = auto_topology(scene.grid, scene.mode.dims(), ranks).unwrap();
    o.comm = comm;
    o
}

fn ez(sim: &Simulation) -> Values {
    sim.field(Component::Ez, None).unwrap()
}

#[test]
fn a_paused_run_reads_the_same_fields_on_any_layout() {
    let scene = dipole(40);
    let mut one = Simulation::new(scene.clone(), options(&scene, "one", 1, CommKind::Shm)).unwrap();
    assert_eq!(
        one.run_until(Some(17), &mut |_| false).unwrap(),
        Status::Paused(17)
    );
    let at_17 = ez(&one);
    one.run().unwrap();
    let at_end = ez(&one);
    assert_ne!(at_17, at_end);
    let mut jagged = options(&scene, "jagged", 3, CommKind::Shm);
    jagged.balance.layout = LayoutKind::Jagged;
    for (name, o) in [
        ("four", options(&scene, "four", 4, CommKind::Sim)),
        ("jagged", jagged),
    ] {
        let mut sim = Simulation::new(scene.clone(), o).unwrap();
        sim.run_until(Some(17), &mut |_| false).unwrap();
        assert_eq!(ez(&sim), at_17, "{name} at step 17");
        assert_eq!(
            sim.run_until(None, &mut |_| false).unwrap(),
            Status::Ended(40)
        );
        assert_eq!(ez(&sim), at_end, "{name} at the end");
        assert_eq!(
            sim.probes()[0].values,
            one.probes()[0].values,
            "{name}'s probe"
        );
    }
}

#[test]
fn a_stopped_run_goes_on_from_its_checkpoint_to_the_same_bits() {
    let scene = dipole(120);
    let mut whole =
        Simulation::new(scene.clone(), options(&scene, "whole", 1, CommKind::Shm)).unwrap();
    whole.run_until(None, &mut |_| false).unwrap();
    let mut sim =
        Simulation::new(scene.clone(), options(&scene, "stopped", 2, CommKind::Shm)).unwrap();
    // Paused first, so the stop wanted before it goes on lands at a step inside the run
    // however fast the machine (a watch asked only every 50 ms can miss a short run).
    sim.run_until(Some(40), &mut |_| false).unwrap();
    let stopped = sim.run_until(None, &mut |_| true);
    assert!(
        matches!(stopped, Err(AppError::Interrupted(_))),
        "{stopped:?}"
    );
    let at = sim.step();
    assert!((40..120).contains(&at), "stopped after step {at}");
    assert_eq!(sim.report().unwrap().status, "interrupted");
    assert_eq!(sim.field(Component::Ez, None).unwrap().len(), scene.cells());
    assert_eq!(
        sim.run_until(None, &mut |_| false).unwrap(),
        Status::Ended(120)
    );
    assert_eq!(ez(&sim), ez(&whole));
    assert_eq!(sim.report().unwrap().status, "complete");
}

#[test]
fn reads_outside_the_grid_and_runs_past_the_end_are_refused() {
    let scene = dipole(10);
    let mut sim =
        Simulation::new(scene.clone(), options(&scene, "refused", 1, CommKind::Shm)).unwrap();
    assert!(matches!(
        sim.field(Component::Ez, None),
        Err(AppError::Usage(_))
    ));
    sim.run_until(Some(5), &mut |_| false).unwrap();
    let outside = yee_core::Box3::new([0, 0, 0], [1000, 1, 1]);
    let e = sim.field(Component::Ez, Some(outside)).unwrap_err();
    assert!(e.to_string().contains("inside the grid"), "{e}");
    assert!(sim.run_until(Some(3), &mut |_| false).is_err());
    sim.run().unwrap();
    let e = sim.run().unwrap_err();
    assert!(e.to_string().contains("has ended"), "{e}");
}

/// Issue 49, case 8: a paused simulation (the Python package's) holds its output folder —
/// another run into it is refused — and lets go when it ends or is dropped.
#[test]
fn a_paused_simulation_holds_its_output_folder_until_it_ends_or_is_dropped() {
    let scene = dipole(30);
    let o = options(&scene, "held", 1, CommKind::Shm);
    let lock = o.out.join(yee_simulation::output_lock::LOCK_FILE);
    let mut sim = Simulation::new(scene.clone(), o.clone()).unwrap();
    sim.run_until(Some(10), &mut |_| false).unwrap();
    assert!(lock.exists(), "held while paused");
    let mut other = Simulation::new(scene.clone(), o.clone()).unwrap();
    let e = other.run().unwrap_err();
    assert!(e.to_string().contains("is in use by another run"), "{e}");
    assert_eq!(
        sim.run_until(None, &mut |_| false).unwrap(),
        Status::Ended(30)
    );
    assert!(!lock.exists(), "released at the end");
    let mut sim = Simulation::new(scene, o).unwrap();
    sim.run_until(Some(10), &mut |_| false).unwrap();
    assert!(lock.exists());
    drop(sim);
    assert!(!lock.exists(), "released when dropped");
}
