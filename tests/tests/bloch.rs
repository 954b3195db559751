//! Bloch-periodic boundaries (`Setup::bloch`, `yee_em::bloch`): the phase e^{i2πkN} where a
//! periodic halo wraps.
//!
//! - In vacuum and in a homogeneous dielectric the modes harmonic inversion finds at a probe
//!   lie on the discrete (Yee) dispersion relation of the Bloch wavevectors k + G, to 1e-6
//!   relative, at several k (Taflove & Hagness, 3rd ed., ch. 4 and §13).
//! - Decomposed (every topology of 2, 3 and 4 ranks, sim and shm, rayon too) and rebalanced
//!   Bloch runs equal one chunk bit for bit.
//! - Real fields refuse a Bloch phase.

use core::f64::consts::PI;

use num_complex::Complex;
use yee_core::Topology;
use yee_core::balance::{BalanceParams, Balancer};
use yee_core::session::Plan;
use yee_core::topology::for_each_candidate;
use yee_em::harminv::{HarminvOptions, harminv};
use yee_em::{
    Boundary, Component, Material, Mode, PointSource, Probe, Region, Setup, SetupError, Shape,
    SourceKind, Waveform,
};
use yee_scalar::decomposed::uniform_plan;
use yee_tests::{CommKind, decomposed, planned_on, single_chunk};

type C64 = Complex<f64>;

const PERIODIC: [[Boundary; 2]; 3] = [[Boundary::Periodic; 2]; 3];

fn ricker(component: Component, cell: [i64; 3], frequency: f64, delay: f64) -> PointSource {
    PointSource {
        component,
        cell,
        waveform: Waveform::Ricker { frequency, delay },
        amplitude: 1.0,
        kind: SourceKind::Soft,
    }
}

/// The discrete frequency (f = ω/2π) of Bloch wavevector `k` (radians per cell) in a medium of
/// permittivity `eps`: `sin²(ωΔt/2)/Δt² = (1/ε) Σ sin²(k_a/2)` (c = μ = 1).
fn discrete_frequency(k: [f64; 3], dt: f64, eps: f64) -> f64 {
    let s: f64 = k
        .iter()
        .map(|&x| (x / 2.0).sin().powi(2))
        .sum::<f64>()
        .sqrt();
    2.0 * (s * dt / eps.sqrt()).asin() / dt / (2.0 * PI)
}

/// The lowest distinct discrete frequencies of the plane waves e^{i(k+G)·x} of a `grid` with
/// Bloch `k` (cycles per cell), G = 2π(m/Nx, n/Ny): ascending, those in (0, `f_max`).
fn plane_wave_frequencies(
    grid: [usize; 3],
    k: [f64; 3],
    dt: f64,
    eps: f64,
    f_max: f64,
) -> Vec<f64> {
    let mut out: Vec<f64> = Vec::new();
    for m in -4i32..=4 {
        for n in -4i32..=4 {
            let q = [
                2.0 * PI * (k[0] + f64::from(m) / grid[0] as f64),
                2.0 * PI * (k[1] + f64::from(n) / grid[1] as f64),
                0.0,
            ];
            let f = discrete_frequency(q, dt, eps);
            if f > 0.0 && f < f_max && !out.iter().any(|&g| (g - f).abs() < 1e-9 * f) {
                out.push(f);
            }
        }
    }
    out.sort_by(f64::total_cmp);
    out
}

/// A 2D TMz periodic box of 16 × 12 cells filled with `eps`, Bloch `k`, rung by a Ricker
/// pulse of peak 0.03: every plane-wave frequency below 0.085 (at least two; the pulse
/// excites them well above the noise) found at a probe within 1e-6 relative. The inversion
/// band reaches 0.15 on both signs so that no excited mode leaks in from outside it.
fn modes_on_the_dispersion_relation(eps: f64, k: [f64; 3]) {
    const GRID: [usize; 3] = [16, 12, 1];
    let sources = [ricker(Component::Ez, [3, 2, 0], 0.03, 60.0)];
    let probes = [Probe {
        component: Component::Ez,
        cell: [11, 7, 0],
    }];
    let setup = Setup {
        background: Material {
            eps,
            ..Material::VACUUM
        },
        sources: &sources,
        probes: &probes,
        bloch: k,
        ..Setup::vacuum(Mode::Tmz, GRID, 0.5, PERIODIC)
    };
    let mut sim = yee_scalar::Simulation::<C64>::new(&setup).unwrap();
    sim.run(4000).unwrap();
    let dt = sim.dt();
    let signal = &sim.probe_series(0)[300..];
    let found = harminv(signal, dt, -0.15, 0.15, &HarminvOptions::default()).unwrap();
    let expected = plane_wave_frequencies(GRID, k, dt, eps, 0.085);
    assert!(expected.len() >= 2, "{expected:?}");
    for &f in &expected {
        let m = found
            .iter()
            .filter(|m| m.frequency > 0.0)
            .min_by(|a, b| (a.frequency - f).abs().total_cmp(&(b.frequency - f).abs()))
            .expect("modes");
        let rel = (m.frequency / f - 1.0).abs();
        eprintln!(
            "ε {eps}, k {k:?}: f {:.9} against {f:.9} ({rel:.1e}), Q {:.1e}, amplitude {:.1e}",
            m.frequency, m.q, m.amplitude
        );
        assert!(rel <= 1e-6, "ε {eps}, k {k:?}: {m:?} against {f}");
    }
}

#[test]
fn vacuum_modes_on_the_discrete_dispersion_relation_at_every_k() {
    for k in [
        [0.0, 0.0, 0.0],
        [0.01, 0.0, 0.0],
        [0.0213, 0.0137, 0.0],
        [0.0281, 0.0397, 0.0],
    ] {
        modes_on_the_dispersion_relation(1.0, k);
    }
}

#[test]
fn dielectric_modes_on_the_discrete_dispersion_relation_at_every_k() {
    for k in [[0.017, 0.0, 0.0], [0.0213, -0.0301, 0.0]] {
        modes_on_the_dispersion_relation(2.25, k);
    }
}

/// A 2D TMz Bloch setup with a dielectric rod, sources and probes across chunk borders.
fn rods_setup<'a>(
    regions: &'a [Region],
    sources: &'a [PointSource],
    probes: &'a [Probe],
) -> Setup<'a> {
    Setup {
        regions,
        sources,
        probes,
        bloch: [0.0173, -0.0291, 0.0],
        ..Setup::vacuum(Mode::Tmz, [24, 18, 1], 0.6, PERIODIC)
    }
}

#[test]
fn decomposed_bloch_runs_are_one_chunk_bit_for_bit() {
    let regions = [Region {
        shape: Shape::Cylinder {
            center: [12.0, 9.0, 0.0],
            radius: 4.5,
            axis: yee_core::Axis::Z,
            length: 10.0,
        },
        material: Material {
            eps: 8.0,
            ..Material::VACUUM
        },
    }];
    let sources = [
        ricker(Component::Ez, [2, 3, 0], 0.08, 15.0),
        ricker(Component::Hx, [20, 15, 0], 0.06, 20.0),
    ];
    let probes = [
        Probe {
            component: Component::Ez,
            cell: [0, 17, 0],
        },
        Probe {
            component: Component::Hy,
            cell: [23, 0, 0],
        },
    ];
    let setup = rods_setup(&regions, &sources, &probes);
    let steps = 120;
    let reference = single_chunk::<C64>(&setup, steps);
    // The phase reached the fields: their imaginary parts are not zero.
    let imaginary: f64 = reference
        .fields
        .iter()
        .flatten()
        .flatten()
        .map(|v| v.im.abs())
        .sum();
    assert!(imaginary > 1e-6, "{imaginary}");
    let mut runs = 0;
    for ranks in [2, 3, 4] {
        for_each_candidate(setup.grid, 2, ranks, 1, |c| {
            for comm in [CommKind::Sim, CommKind::Shm] {
                let got = decomposed::<C64>(&setup, c.topology, comm, steps);
                assert!(
                    got.fields == reference.fields,
                    "{comm:?} {:?}: fields differ",
                    c.topology.0
                );
                assert!(
                    got.probes == reference.probes,
                    "{comm:?} {:?}: probes differ",
                    c.topology.0
                );
                runs += 1;
            }
        });
    }
    assert!(runs >= 6, "{runs}");
}

/// The Bloch phase itself is what makes this test able to fail: without it (plain periodic)
/// the same run gives other fields.
#[test]
fn the_phase_changes_the_fields() {
    let sources = [ricker(Component::Ez, [2, 3, 0], 0.08, 15.0)];
    let setup = rods_setup(&[], &sources, &[]);
    let plain = Setup {
        bloch: [0.0; 3],
        ..setup
    };
    let a = single_chunk::<C64>(&setup, 60);
    let b = single_chunk::<C64>(&plain, 60);
    assert!(a.fields != b.fields);
}

/// A 3D Bloch run (k on x and y) whose x borders move several times (a slow rank on the
/// simulated communicator) ends with one chunk's fields and probe records, bit for bit.
#[test]
fn rebalanced_bloch_runs_are_one_chunk_bit_for_bit() {
    let regions = [Region {
        shape: Shape::Sphere {
            center: [10.0, 5.0, 5.0],
            radius: 3.0,
        },
        material: Material {
            eps: 4.0,
            ..Material::VACUUM
        },
    }];
    let sources = [ricker(Component::Ez, [4, 2, 5], 0.08, 15.0)];
    let probes = [
        Probe {
            component: Component::Ez,
            cell: [0, 5, 5],
        },
        Probe {
            component: Component::Hy,
            cell: [19, 9, 3],
        },
    ];
    let setup = Setup {
        regions: &regions,
        sources: &sources,
        probes: &probes,
        bloch: [0.021, 0.037, 0.0],
        ..Setup::vacuum(
            Mode::ThreeD,
            [20, 10, 10],
            0.55,
            [
                [Boundary::Periodic; 2],
                [Boundary::Periodic; 2],
                [Boundary::Pec; 2],
            ],
        )
    };
    let steps = 80;
    let reference = single_chunk::<C64>(&setup, steps);
    let topology = Topology([3, 1, 1]);
    let density = std::array::from_fn(|a| vec![1.0; setup.grid[a]]);
    let params = BalanceParams {
        every: 8,
        disabling: false,
        ..BalanceParams::default()
    };
    let plan = Plan {
        balancer: Some(Balancer::new(topology, 3, density, params)),
        overlap: true,
        ..uniform_plan(&setup, topology)
    };
    let mut model = yee_comm_sim::MachineModel::default_for(3);
    model.speeds = vec![2e7, 1e8, 6e7];
    model.delays = vec![5e-5, 0.0, 0.0];
    let (got, outputs) = planned_on::<C64>(&setup, &plan, CommKind::Sim, Some(model), steps);
    let moves = outputs[0]
        .history
        .iter()
        .filter(|h| h.borders != plan.borders)
        .count();
    eprintln!(
        "{} rebalances, {moves} away from the start",
        outputs[0].history.len()
    );
    assert!(moves >= 1, "the borders should move");
    assert!(
        got.fields == reference.fields,
        "fields differ after balancing"
    );
    assert!(
        got.probes == reference.probes,
        "probes differ after balancing"
    );
}

/// The rayon backend runs the same Bloch exchange: the oracle's bits on one and two ranks.
#[test]
fn rayon_bloch_runs_are_the_oracle() {
    use yee_scalar::decomposed::{assemble, run_rank_on};
    let sources = [ricker(Component::Ez, [2, 3, 0], 0.08, 15.0)];
    let setup = rods_setup(&[], &sources, &[]);
    let steps = 60;
    let reference = single_chunk::<C64>(&setup, steps);
    let backend = yee_rayon::RayonCurl::with_threads(2).unwrap();
    for topology in [
        Topology([1, 1, 1]),
        Topology([2, 1, 1]),
        Topology([1, 2, 1]),
    ] {
        let plan = uniform_plan(&setup, topology);
        let outputs = yee_comm_shm::launch(topology, |mut c| {
            run_rank_on(
                &setup,
                &plan,
                yee_em::Costs::default(),
                &backend,
                &mut c,
                steps,
                |_, _| {},
            )
            .unwrap()
        });
        let fields = Component::ALL.map(|c| assemble(&outputs, setup.grid, c));
        assert!(fields == reference.fields, "rayon {:?} differs", topology.0);
    }
}

#[test]
fn real_fields_refuse_a_bloch_phase() {
    let setup = rods_setup(&[], &[], &[]);
    let refused = yee_scalar::Simulation::<f64>::new(&setup)
        .map(|_| ())
        .unwrap_err();
    assert!(
        matches!(refused, SetupError::BlochNeedsComplex { .. }),
        "{refused:?}"
    );
    assert!(refused.to_string().contains("complex"), "{refused}");
    // A Bloch k on an axis that is not periodic.
    let walls = Setup {
        boundaries: [
            [Boundary::Periodic; 2],
            [Boundary::Pec; 2],
            [Boundary::Pec; 2],
        ],
        ..setup
    };
    assert!(matches!(
        walls.validate(),
        Err(SetupError::InvalidBloch { .. })
    ));
}
