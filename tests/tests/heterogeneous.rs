//! Heterogeneous runs (issue 17, build item 4): ranks of one run on different backends — the
//! scalar oracle and the rayon kernels ([`PerRank`]) — give the one chunk's fields, probes and
//! DFT sums bit for bit, with borders fixed and moving (cells migrating between ranks of
//! different backends through one slab wire format); and the sim communicator's balancing of
//! one fast rank beside two slow ones (the GPU node beside CPU nodes of Balykov 2019, §3).

use std::fmt::Write;

use yee_comm_sim::MachineModel;
use yee_core::session::Plan;
use yee_core::{Box3, Chunk, Topology};
use yee_em::{
    Boundary, Component, CpmlParams, DftMonitor, Material, Mode, PointSource, Probe, Region, Setup,
    Shape, SourceKind, Waveform, YeeBackend, YeeFields,
};
use yee_rayon::{HostKernel, PerRank, RayonCurl};
use yee_runtime::balance::{BalanceMode, BalanceOptions, make_plan};
use yee_runtime::parallel::{CommKind, Continuity, run_decomposed};
use yee_scalar::chunk::ScalarCurl;
use yee_scalar::decomposed::{RankOutput, assemble, assemble_dft, mean_step_time, probe_series};
use yee_tests::{Outcome, single_chunk};

/// A dielectric lossy sphere and a Drude–Lorentz sphere in CPML (x ends), periodic y, PEC/PMC
/// z; a Ricker source; probes near the borders; a DFT monitor across every rank's box.
struct Scene {
    regions: [Region; 2],
    sources: [PointSource; 1],
    probes: [Probe; 2],
    monitors: [DftMonitor; 1],
    frequencies: [f64; 2],
}

impl Scene {
    fn new(x: usize) -> Self {
        let xf = x as f64;
        Scene {
            regions: [
                Region {
                    shape: Shape::Sphere {
                        center: [xf * 0.35, 7.0, 6.0],
                        radius: 3.5,
                    },
                    material: Material {
                        eps: 2.5,
                        sigma: 0.02,
                        ..Material::VACUUM
                    },
                },
                Region {
                    shape: Shape::Sphere {
                        center: [xf * 0.7, 7.0, 6.0],
                        radius: 3.0,
                    },
                    material: yee_tests::dispersive(2.0, 0, 2),
                },
            ],
            sources: [PointSource {
                component: Component::Ez,
                cell: [x as i64 / 3, 7, 6],
                waveform: Waveform::Ricker {
                    frequency: 0.08,
                    delay: 15.0,
                },
                amplitude: 1.0,
                kind: SourceKind::Soft,
            }],
            probes: [
                Probe {
                    component: Component::Ez,
                    cell: [x as i64 / 3 + 1, 7, 6],
                },
                Probe {
                    component: Component::Hy,
                    cell: [2 * x as i64 / 3, 3, 9],
                },
            ],
            monitors: [DftMonitor {
                region: Box3::new([2, 5, 4], [x as i64 - 2, 9, 8]),
                components: [true, false, true, false, true, false],
                first: 0,
                count: 2,
            }],
            frequencies: [0.05, 0.08],
        }
    }

    fn setup(&self, x: usize) -> Setup<'_> {
        Setup {
            mode: Mode::ThreeD,
            grid: [x, 14, 12],
            courant: 0.55,
            background: Material::VACUUM,
            poles: &yee_tests::TEST_POLES,
            regions: &self.regions,
            boundaries: [
                [Boundary::Cpml(CpmlParams::with_thickness(3)); 2],
                [Boundary::Periodic; 2],
                [Boundary::Pec, Boundary::Pmc],
            ],
            sources: &self.sources,
            probes: &self.probes,
            plane_waves: &[],
            monitors: &self.monitors,
            frequencies: &self.frequencies,
            active: None,
            smoothing: true,
            smoothing_tensor: true,
            bloch: [0.0; 3],
        }
    }
}

/// The backend of a run whose rank `r` is on `names[r]`.
fn per_rank(names: &[&str]) -> PerRank {
    let kernels = names
        .iter()
        .map(|&n| match n {
            "scalar" => HostKernel::Scalar(ScalarCurl),
            _ => HostKernel::Rayon(RayonCurl::global().split_among(names.len())),
        })
        .collect();
    PerRank::new(kernels).expect("one kernel per rank")
}

/// `steps` steps of `setup` laid out by `plan` on `comm`, rank `r` on `names[r]`: the whole
/// fields, probes and transforms, and the ranks' outputs.
fn heterogeneous(
    setup: &Setup,
    plan: &Plan,
    names: &[&str],
    comm: CommKind,
    model: Option<MachineModel>,
    steps: u64,
) -> (Outcome<f64>, Vec<RankOutput<f64>>) {
    let outputs = run_decomposed::<f64, _>(
        setup,
        plan,
        yee_em::Costs::default(),
        per_rank(names),
        comm,
        model,
        &[],
        steps,
        &Continuity::default(),
        &|_| false,
        &|_, _| {},
        &|_| {},
    )
    .expect("the run completes")
    .expect("in-process ranks all report");
    let outcome = Outcome {
        fields: Component::ALL.map(|c| assemble(&outputs, setup.grid, c)),
        probes: (0..setup.probes.len())
            .map(|i| probe_series(&outputs, i).expect("owned"))
            .collect(),
        dft: (0..setup.monitors.len())
            .map(|i| assemble_dft(setup, i, outputs.iter().flat_map(|o| &o.dft)))
            .collect(),
    };
    (outcome, outputs)
}

fn assert_same(got: &Outcome<f64>, reference: &Outcome<f64>, what: &str) {
    assert!(got.fields == reference.fields, "{what}: fields differ");
    assert!(
        got.probes == reference.probes,
        "{what}: probe records differ"
    );
    assert!(got.dft == reference.dft, "{what}: DFT sums differ");
}

/// A plan of `topology` balanced as `mode`, from `speeds` when given and rebalanced every
/// `every` steps (dynamic), with the runtime's static densities.
fn plan(
    setup: &Setup,
    topology: Topology,
    mode: BalanceMode,
    speeds: Option<&[f64]>,
    every: u64,
) -> Plan {
    let options = BalanceOptions {
        mode,
        every,
        speeds: speeds.map(<[f64]>::to_vec),
        ..BalanceOptions::default()
    };
    let mut plan =
        make_plan(setup, &yee_em::Costs::default(), 8, topology, &options).expect("a plan");
    plan.overlap = true;
    plan
}

#[test]
fn scalar_and_rayon_ranks_give_the_one_chunk_bits() {
    let scene = Scene::new(30);
    let setup = scene.setup(30);
    setup.validate().unwrap();
    let steps = 60;
    let reference = single_chunk::<f64>(&setup, steps);
    for (topology, names) in [
        (Topology([2, 1, 1]), &["scalar", "rayon"][..]),
        (Topology([3, 1, 1]), &["rayon", "scalar", "rayon"][..]),
        (
            Topology([2, 2, 1]),
            &["scalar", "rayon", "rayon", "scalar"][..],
        ),
    ] {
        let plan = yee_scalar::decomposed::uniform_plan(&setup, topology);
        for comm in [CommKind::Sim, CommKind::Shm] {
            let (got, _) = heterogeneous(&setup, &plan, names, comm, None, steps);
            assert_same(&got, &reference, &format!("{names:?} on {comm:?}"));
        }
    }
}

#[test]
fn cells_migrate_between_ranks_of_different_backends_and_keep_every_bit() {
    let scene = Scene::new(30);
    let setup = scene.setup(30);
    let steps = 100;
    let reference = single_chunk::<f64>(&setup, steps);
    // Rank 0 (scalar) modelled slow with a fixed delay per step, so the borders keep moving
    // toward rank 1 (rayon) and rank 2 (scalar) over several rebalances.
    let mut model = MachineModel::default_for(3);
    model.speeds = vec![2e7, 1e8, 6e7];
    model.delays = vec![5e-5, 0.0, 0.0];
    let names = ["scalar", "rayon", "scalar"];
    let plan = plan(&setup, Topology([3, 1, 1]), BalanceMode::Dynamic, None, 8);
    let (got, outputs) = heterogeneous(&setup, &plan, &names, CommKind::Sim, Some(model), steps);
    let mut borders = vec![plan.borders[0].clone()];
    borders.extend(outputs[0].history.iter().map(|h| h.borders[0].clone()));
    borders.dedup();
    // Both borders move: cells cross from scalar to rayon (border 1) and between rayon and
    // scalar (border 2).
    let moved = |b: usize| borders.windows(2).filter(|w| w[0][b] != w[1][b]).count();
    assert!(
        moved(1) >= 2 && moved(2) >= 1,
        "the borders should move several times: {borders:?}"
    );
    assert_same(&got, &reference, "dynamic on sim");
}

/// A chunk of each backend over the same box, one stepped: the slabs the stepped one packs,
/// unpacked into the other, give back the same fields, ψ, DFT sums and dispersive state —
/// packed again they are the same values — and both go on to the same bits.
#[test]
fn slabs_packed_on_one_backend_unpack_on_the_other() {
    let scene = Scene::new(30);
    let setup = scene.setup(30);
    let whole = Box3::from_extent(setup.grid);
    let costs = yee_em::Costs::default();
    let backend = per_rank(&["scalar", "rayon"]);
    let (on_scalar, on_rayon) = (
        YeeBackend::<f64>::for_rank(&backend, 0, 2),
        YeeBackend::<f64>::for_rank(&backend, 1, 2),
    );
    assert_eq!(YeeBackend::<f64>::name(&on_scalar), "scalar");
    assert_eq!(YeeBackend::<f64>::name(&on_rayon), "rayon");
    for (from, to) in [(&on_scalar, &on_rayon), (&on_rayon, &on_scalar)] {
        let mut a = from.build(&setup, whole, costs).unwrap();
        let mut b = to.build(&setup, whole, costs).unwrap();
        for step in 0..40 {
            for phase in 0..a.phases() {
                a.submit(step, phase, whole).unwrap();
            }
        }
        // Everything but a strip at each x end (the CPML ψ, the monitor and both spheres
        // inside), in two slabs.
        let regions = [
            whole.with_bound(yee_core::Axis::X, yee_core::Side::High, 15),
            Box3::new([15, 0, 0], [29, 14, 12]),
        ];
        let len = a.slab_len(regions[0]) + a.slab_len(regions[1]);
        assert_eq!(len, b.slab_len(regions[0]) + b.slab_len(regions[1]));
        let mut packed = a.buffer(len * 8).unwrap();
        a.pack_slabs(&regions, &mut packed).unwrap();
        b.unpack_slabs(&regions, &packed).unwrap();
        let mut again = b.buffer(len * 8).unwrap();
        b.pack_slabs(&regions, &mut again).unwrap();
        assert!(
            packed.values(len) == again.values(len),
            "{} → {}: the slabs differ once unpacked",
            YeeBackend::<f64>::name(from),
            YeeBackend::<f64>::name(to)
        );
        assert!(
            b.state.dispersive.iter().flatten().count() > 0 && !b.state.slabs.is_empty(),
            "the slabs carry ψ and dispersive state"
        );
        for c in Component::ALL {
            let (mut x, mut y) = (vec![0.0; regions[1].cells()], vec![0.0; regions[1].cells()]);
            a.read_component(c, regions[1], &mut x).unwrap();
            b.read_component(c, regions[1], &mut y).unwrap();
            assert!(x == y, "{c:?} differs after unpacking");
        }
        let m = scene.monitors[0].region.intersect(&regions[1]);
        let (mut x, mut y) = (vec![0.0; 4 * m.cells()], vec![0.0; 4 * m.cells()]);
        assert!(a.read_dft(0, Component::Ex, m, &mut x).unwrap());
        b.read_dft(0, Component::Ex, m, &mut y).unwrap();
        assert!(x == y && x.iter().any(|&v| v != 0.0), "DFT sums differ");
    }
}

/// One rank modelled ten times faster than the other two (a GPU node beside two CPU nodes,
/// Balykov 2019, §3), on rayon beside two scalar ranks: the static split from `--speeds`
/// follows the speeds, an even split is slower by eq. (2), and dynamic balancing from the
/// even split moves toward the speeds' split.
#[test]
fn one_fast_rank_beside_two_slow_ones_on_sim() {
    let x = 240;
    let scene = Scene::new(x);
    let setup = scene.setup(x);
    let names = ["rayon", "scalar", "scalar"];
    let topology = Topology([3, 1, 1]);
    let model = MachineModel {
        speeds: vec![1e9, 1e8, 1e8],
        ..MachineModel::default_for(3)
    };
    let steps = 48;
    let reference = single_chunk::<f64>(&setup, steps);
    let mut s = format!(
        "3d grid {:?}, ranks {names:?}, model speeds {:?} cells/s, {steps} steps\n",
        setup.grid, model.speeds
    );
    let _ = writeln!(
        s,
        "the fast rank alone: {:.4e} s/step (cells / its speed, no exchange)",
        setup.cells() as f64 / model.speeds[0]
    );
    for (name, mode, speeds) in [
        ("even split", BalanceMode::Static, Some(&[1.0; 3][..])),
        (
            "static from --speeds 10,1,1",
            BalanceMode::Static,
            Some(&[10.0, 1.0, 1.0][..]),
        ),
        ("dynamic from the even split", BalanceMode::Dynamic, None),
    ] {
        let plan = plan(&setup, topology, mode, speeds, 8);
        let (got, outputs) = heterogeneous(
            &setup,
            &plan,
            &names,
            CommKind::Sim,
            Some(model.clone()),
            steps,
        );
        assert_same(&got, &reference, name);
        let widths = |b: &[i64]| -> Vec<i64> { b.windows(2).map(|w| w[1] - w[0]).collect() };
        let _ = writeln!(
            s,
            "{name}: x widths {:?} at the start",
            widths(&plan.borders[0])
        );
        for h in &outputs[0].history {
            let _ = writeln!(
                s,
                "  after step {:>2}: x widths {:?}, predicted {:.4e} s, measured {:.4e} s ({})",
                h.step,
                widths(&h.borders[0]),
                h.predicted_seconds,
                h.measured_seconds,
                h.action
            );
        }
        let _ = writeln!(
            s,
            "  compute s/step by rank {:?}",
            outputs
                .iter()
                .map(|o| format!("{:.3e}", o.records.totals.compute_seconds / steps as f64))
                .collect::<Vec<_>>()
        );
        let _ = writeln!(
            s,
            "  mean step time, eq. (2): {:.4e} s",
            mean_step_time(&outputs)
        );
        if speeds.is_some_and(|s| s[0] > 1.0) {
            // The fast rank gets about ten twelfths of the work.
            let w = widths(&plan.borders[0]);
            assert!(w[0] > 4 * (w[1] + w[2]) / 2, "{w:?}");
        }
    }
    insta::assert_snapshot!(s);
}
