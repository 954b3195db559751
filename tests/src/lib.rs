//! Shared helpers of the workspace tests: common boundaries, a plain DTFT, and the
//! conformance suites every backend ([`backend_conformance`]) and every communicator
//! ([`comm_conformance`]) runs.
#![warn(missing_docs)]

pub mod backend_conformance;
pub mod comm_conformance;
pub mod conformance_cases;
pub mod external;
pub mod mpirun;

use num_complex::Complex;
use yee_em::{
    Boundaries, Boundary, Component, CpmlParams, Material, Mode, PointSource, Probe, Setup,
    SourceKind, Waveform,
};

/// PEC on every face.
pub const PEC: Boundaries = [[Boundary::Pec; 2]; 3];

/// Periodic on every axis.
pub const PERIODIC: Boundaries = [[Boundary::Periodic; 2]; 3];

/// CPML of `thickness` cells (yee's default grading) on every face.
pub fn cpml_everywhere(thickness: usize) -> Boundaries {
    [[Boundary::Cpml(CpmlParams::with_thickness(thickness)); 2]; 3]
}

/// One pole of each kind, stable at Courant numbers up to the 3D limit, for the decomposition
/// and backend tests: [`dispersive`] materials name them.
pub const TEST_POLES: [yee_em::Pole; 3] = [
    yee_em::Pole::Drude {
        frequency: 0.05,
        gamma: 0.01,
        sigma: 1.0,
    },
    yee_em::Pole::Lorentz {
        frequency: 0.08,
        gamma: 0.005,
        sigma: 0.5,
    },
    yee_em::Pole::Debye {
        delta_eps: 2.0,
        tau: 3.0,
    },
];

/// A material of ε∞ `eps` with `count` of [`TEST_POLES`] from `first`.
pub const fn dispersive(eps: f64, first: usize, count: usize) -> Material {
    Material {
        poles: yee_em::PoleSet { first, count },
        ..Material::dielectric(eps)
    }
}

/// A sphere of radius 4 cells at `center`, of permittivity `epsilon` and conductivity `sigma`.
pub fn lossy_sphere(center: [f64; 3], epsilon: f64, sigma: f64) -> yee_em::Region {
    yee_em::Region {
        shape: yee_em::Shape::Sphere {
            center,
            radius: 4.0,
        },
        material: yee_em::Material {
            sigma,
            ..yee_em::Material::dielectric(epsilon)
        },
    }
}

/// A vacuum setup with no regions, sources or probes ([`Setup::vacuum`]).
pub const fn vacuum(
    mode: Mode,
    grid: [usize; 3],
    courant: f64,
    boundaries: Boundaries,
) -> Setup<'static> {
    Setup::vacuum(mode, grid, courant, boundaries)
}

/// A soft Ricker source (frequency 0.1, delay 10) of unit amplitude at `cell`.
pub const fn ricker_source(component: Component, cell: [i64; 3]) -> PointSource {
    PointSource {
        component,
        cell,
        waveform: Waveform::Ricker {
            frequency: 0.1,
            delay: 10.0,
        },
        amplitude: 1.0,
        kind: SourceKind::Soft,
    }
}

/// `Σ s[n] e^{−iω n Δt}` of a complete (zero at both ends) record.
pub fn dtft(signal: &[f64], dt: f64, omega: f64) -> Complex<f64> {
    signal
        .iter()
        .enumerate()
        .map(|(n, &s)| Complex::from_polar(s, -omega * n as f64 * dt))
        .sum()
}

/// The largest absolute value of a probe record.
pub fn peak(series: &[f64]) -> f64 {
    series.iter().fold(0.0, |m, v| m.max(v.abs()))
}

/// The probes of a setup, for building setups inline.
pub fn probes(list: &[Probe]) -> Vec<Probe> {
    list.to_vec()
}

/// The communicators a decomposed test run can use.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum CommKind {
    /// Virtual clocks.
    Sim,
    /// Threads with real clocks.
    Shm,
    /// Threads with real clocks and per-rank slowdowns.
    ShmSlowed(&'static [yee_comm_shm::Slowdown]),
}

/// Whole fields and probe records after a run.
#[derive(Clone, Debug, PartialEq)]
pub struct Outcome<T> {
    /// Each component over the grid, x fastest (`None` where the mode lacks it).
    pub fields: [Option<Vec<T>>; 6],
    /// One record per probe.
    pub probes: Vec<Vec<T>>,
    /// The transforms of each DFT monitor.
    pub dft: Vec<yee_em::DftFields>,
}

/// `steps` steps of `setup` on one chunk (the single-chunk `Simulation`, no driver).
pub fn single_chunk<T: yee_core::Scalar>(setup: &Setup, steps: u64) -> Outcome<T> {
    let mut sim = yee_scalar::Simulation::<T>::new(setup).expect("valid setup");
    sim.run(steps).expect("no divergence");
    let fields = yee_em::Component::ALL.map(|c| {
        let mut out = vec![T::zero(); setup.cells()];
        sim.read_component(c, &mut out).then_some(out)
    });
    Outcome {
        fields,
        probes: (0..setup.probes.len())
            .map(|i| sim.probe_series(i).to_vec())
            .collect(),
        dft: (0..setup.monitors.len())
            .map(|i| sim.dft(i).expect("the monitor exists"))
            .collect(),
    }
}

/// `steps` steps of `setup` decomposed uniformly over `topology` on `comm`.
pub fn decomposed<T: yee_core::Scalar>(
    setup: &Setup,
    topology: yee_core::Topology,
    comm: CommKind,
    steps: u64,
) -> Outcome<T> {
    planned(
        setup,
        &yee_scalar::decomposed::uniform_plan(setup, topology),
        comm,
        steps,
    )
    .0
}

/// `steps` steps of `setup` laid out and balanced by `plan` on `comm` (the sim uses `model`
/// when given), with the default cell costs; also returns the ranks' outputs.
pub fn planned_on<T: yee_core::Scalar>(
    setup: &Setup,
    plan: &yee_core::session::Plan,
    comm: CommKind,
    model: Option<yee_comm_sim::MachineModel>,
    steps: u64,
) -> (Outcome<T>, Vec<yee_scalar::decomposed::RankOutput<T>>) {
    planned_on_backend(
        setup,
        plan,
        comm,
        model,
        &yee_scalar::chunk::ScalarCurl,
        steps,
    )
}

/// [`planned_on`] with every rank's chunks on `backend` (bit for bit the scalar oracle's
/// fields on every backend, so a faster one only shortens a long study).
pub fn planned_on_backend<T: yee_core::Scalar, B: yee_em::YeeBackend<T> + Sync>(
    setup: &Setup,
    plan: &yee_core::session::Plan,
    comm: CommKind,
    model: Option<yee_comm_sim::MachineModel>,
    backend: &B,
    steps: u64,
) -> (Outcome<T>, Vec<yee_scalar::decomposed::RankOutput<T>>) {
    use yee_scalar::decomposed::{assemble, probe_series, run_rank_on};
    let topology = plan.topology;
    fn one<T: yee_core::Scalar, B: yee_em::YeeBackend<T>, M: yee_core::Comm>(
        setup: &Setup,
        plan: &yee_core::session::Plan,
        backend: &B,
        c: &mut M,
        steps: u64,
    ) -> yee_scalar::decomposed::RankOutput<T> {
        run_rank_on::<T, B, M>(
            setup,
            plan,
            yee_em::Costs::default(),
            backend,
            c,
            steps,
            |_, _| {},
        )
        .expect("the rank runs")
    }
    let outputs = match comm {
        CommKind::Sim => {
            let model =
                model.unwrap_or_else(|| yee_comm_sim::MachineModel::default_for(topology.ranks()));
            yee_comm_sim::launch(topology, model, |mut c| {
                one(setup, plan, backend, &mut c, steps)
            })
        }
        CommKind::Shm => {
            yee_comm_shm::launch(topology, |mut c| one(setup, plan, backend, &mut c, steps))
        }
        CommKind::ShmSlowed(s) => yee_comm_shm::launch_slowed(topology, s, |mut c| {
            one(setup, plan, backend, &mut c, steps)
        }),
    };
    let fields = yee_em::Component::ALL.map(|c| assemble(&outputs, setup.grid, c));
    let probes = (0..setup.probes.len())
        .map(|i| probe_series(&outputs, i).expect("owned"))
        .collect();
    let dft = (0..setup.monitors.len())
        .map(|i| {
            yee_scalar::decomposed::assemble_dft(setup, i, outputs.iter().flat_map(|o| &o.dft))
        })
        .collect();
    (
        Outcome {
            fields,
            probes,
            dft,
        },
        outputs,
    )
}

/// `steps` steps of `setup` decomposed uniformly over `topology` on the shared-memory
/// communicator, each rank's chunk built by `backend` (the driver exchanging halos, the Bloch
/// phase where one wraps): whole fields, probe records and DFT transforms, to compare with
/// [`single_chunk`].
pub fn decomposed_on<T, B>(
    backend: &B,
    setup: &Setup,
    topology: yee_core::Topology,
    steps: u64,
) -> Outcome<T>
where
    T: yee_core::Scalar,
    B: yee_em::YeeBackend<T> + Sync,
    for<'s> <B::Chunk<'s> as yee_core::Chunk>::Error: core::fmt::Debug,
{
    use yee_scalar::decomposed::{assemble, assemble_dft, probe_series, run_rank_on};
    let plan = yee_scalar::decomposed::uniform_plan(setup, topology);
    let outputs = yee_comm_shm::launch(topology, |mut c| {
        let costs = yee_em::Costs::default();
        run_rank_on(setup, &plan, costs, backend, &mut c, steps, |_, _| {})
            .unwrap_or_else(|e| panic!("a rank of {:?}: {e:?}", topology.0))
    });
    Outcome {
        fields: yee_em::Component::ALL.map(|c| assemble(&outputs, setup.grid, c)),
        probes: (0..setup.probes.len())
            .map(|i| probe_series(&outputs, i).expect("owned"))
            .collect(),
        dft: (0..setup.monitors.len())
            .map(|i| assemble_dft(setup, i, outputs.iter().flat_map(|o| &o.dft)))
            .collect(),
    }
}

/// [`planned_on`] with the default machine model.
pub fn planned<T: yee_core::Scalar>(
    setup: &Setup,
    plan: &yee_core::session::Plan,
    comm: CommKind,
    steps: u64,
) -> (Outcome<T>, Vec<yee_scalar::decomposed::RankOutput<T>>) {
    planned_on(setup, plan, comm, None, steps)
}

/// Waits (up to two minutes) until the run `child` writing into `out` has completed a
/// checkpoint (`out/checkpoint/step-…` without `.part`): by then it is stepping, with its
/// signal handlers in place. Panics at the deadline, or at once with the run's error output
/// when it ends before its first checkpoint (a refused start).
pub fn wait_for_checkpoint(out: &std::path::Path, child: &mut std::process::Child) {
    let start = std::time::Instant::now();
    loop {
        let done = std::fs::read_dir(out.join("checkpoint"))
            .into_iter()
            .flatten()
            .filter_map(|e| e.ok())
            .any(|e| {
                let name = e.file_name();
                let name = name.to_string_lossy();
                name.starts_with("step-") && !name.ends_with(".part")
            });
        if done {
            return;
        }
        if let Ok(Some(status)) = child.try_wait() {
            let mut error = String::new();
            if let Some(mut stderr) = child.stderr.take() {
                let _ = std::io::Read::read_to_string(&mut stderr, &mut error);
            }
            panic!(
                "the run writing into {} ended ({status}) before its first checkpoint: {error}",
                out.display()
            );
        }
        assert!(
            start.elapsed() < std::time::Duration::from_secs(120),
            "no checkpoint appeared in {} within two minutes",
            out.display()
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// `steps` steps of `setup` on the tile sets or boxes of `map` (one rank each, scalar backend,
/// default costs), on the simulated communicator (`sim`) or shm, overlapped or not: each
/// rank's output.
pub fn owned_run<T: yee_core::Scalar>(
    setup: &Setup,
    map: &(dyn yee_core::tile_driver::Ownership + Sync),
    sim: bool,
    overlap: bool,
    steps: u64,
) -> Vec<yee_scalar::tiled::TiledRankOutput<T>> {
    let comm = if sim { CommKind::Sim } else { CommKind::Shm };
    tiled_run(
        setup,
        map.ranks(),
        &|| yee_scalar::tiled::Owners::Fixed(map),
        comm,
        None,
        overlap,
        steps,
    )
}

/// `steps` steps of `setup` on the boxes `dynamic` rebalances (scalar backend, default costs,
/// overlapped) on `comm` (the sim uses `model` when given): each rank's output.
pub fn balanced_run<T: yee_core::Scalar>(
    setup: &Setup,
    dynamic: &yee_scalar::tiled::DynamicBoxes,
    comm: CommKind,
    model: Option<yee_comm_sim::MachineModel>,
    steps: u64,
) -> Vec<yee_scalar::tiled::TiledRankOutput<T>> {
    let balanced = yee_scalar::tiled::Rebalancing::Boxes(dynamic.clone());
    rebalanced_run(setup, &balanced, comm, model, steps)
}

/// `steps` steps of `setup` on the boxes or tile sets `balanced` rebalances (scalar backend,
/// default costs, overlapped) on `comm` (the sim uses `model` when given): each rank's output.
pub fn rebalanced_run<T: yee_core::Scalar>(
    setup: &Setup,
    balanced: &yee_scalar::tiled::Rebalancing,
    comm: CommKind,
    model: Option<yee_comm_sim::MachineModel>,
    steps: u64,
) -> Vec<yee_scalar::tiled::TiledRankOutput<T>> {
    let ranks = match balanced {
        yee_scalar::tiled::Rebalancing::Boxes(d) => d.balancer.layout().boxes.len(),
        yee_scalar::tiled::Rebalancing::Tiles(d) => d.balancer.map().ranks,
    };
    tiled_run(
        setup,
        ranks,
        &|| balanced.owners(),
        comm,
        model,
        true,
        steps,
    )
}

/// What each rank of a tiled run owns.
type OwnersOf<'a> = dyn Fn() -> yee_scalar::tiled::Owners<'a> + Sync + 'a;

fn tiled_run<T: yee_core::Scalar>(
    setup: &Setup,
    ranks: usize,
    owners: &OwnersOf<'_>,
    comm: CommKind,
    model: Option<yee_comm_sim::MachineModel>,
    overlap: bool,
    steps: u64,
) -> Vec<yee_scalar::tiled::TiledRankOutput<T>> {
    fn one<T: yee_core::Scalar, M: yee_core::Comm>(
        setup: &Setup,
        owners: &OwnersOf<'_>,
        c: &mut M,
        overlap: bool,
        steps: u64,
    ) -> yee_scalar::tiled::TiledRankOutput<T> {
        let backend = yee_scalar::chunk::ScalarCurl;
        let costs = yee_em::Costs::default();
        yee_scalar::tiled::run_tiled_rank::<T, _, _>(
            setup,
            owners(),
            costs,
            &backend,
            c,
            steps,
            overlap,
            |_, _, _| {},
        )
        .expect("the rank runs")
    }
    let topology = yee_core::Topology([ranks, 1, 1]);
    match comm {
        CommKind::Sim => {
            let model = model.unwrap_or_else(|| yee_comm_sim::MachineModel::default_for(ranks));
            yee_comm_sim::launch(topology, model, |mut c| {
                one(setup, owners, &mut c, overlap, steps)
            })
        }
        CommKind::Shm => {
            yee_comm_shm::launch(topology, |mut c| one(setup, owners, &mut c, overlap, steps))
        }
        CommKind::ShmSlowed(s) => yee_comm_shm::launch_slowed(topology, s, |mut c| {
            one(setup, owners, &mut c, overlap, steps)
        }),
    }
}

/// A copy of the scene file `scene` with `smoothing = "diagonal"` (the rule the tile driver
/// falls back to), written into `dir`; its path. Tests running side by side
/// may write it at once: each writes its own file and renames it over the shared one.
pub fn diagonal_smoothing_copy(
    scene: &std::path::Path,
    dir: &std::path::Path,
) -> std::path::PathBuf {
    let text = std::fs::read_to_string(scene).unwrap();
    let text = text.replacen("[grid]", "smoothing = \"diagonal\"\n\n[grid]", 1);
    std::fs::create_dir_all(dir).unwrap();
    let name = scene.file_stem().unwrap().to_string_lossy();
    let path = dir.join(format!("{name}_diagonal.toml"));
    let own = path.with_extension(format!("{:?}", std::thread::current().id()));
    std::fs::write(&own, text).unwrap();
    std::fs::rename(&own, &path).unwrap();
    path
}
