//! Decomposition never changes the answer: after T steps every component and every probe
//! record on 2, 3, 4, 6 and 8 ranks, in every topology, on the simulated and the shared-memory
//! communicator, equals bit for bit the single-chunk run — in 1D, 2D TMz, 2D TEz and 3D, with
//! CPML, PEC, PMC and periodic faces, materials (dispersive ones too), sources and probes
//! across chunk borders;
//! with the exchange overlapped with the interior update and after the whole update.

use yee_core::topology::for_each_candidate;
use yee_em::{
    Boundary, Component, CpmlParams, Material, Mode, PointSource, Probe, Region, Setup, Shape,
    SourceKind, Waveform,
};
use yee_tests::{CommKind, decomposed, single_chunk};

fn cpml(t: usize) -> Boundary {
    Boundary::Cpml(CpmlParams::with_thickness(t))
}

fn ricker(component: Component, cell: [i64; 3]) -> PointSource {
    PointSource {
        component,
        cell,
        waveform: Waveform::Ricker {
            frequency: 0.08,
            delay: 15.0,
        },
        amplitude: 1.0,
        kind: SourceKind::Soft,
    }
}

fn check(setup: &Setup, steps: u64, rank_counts: &[usize]) {
    let reference = single_chunk::<f64>(setup, steps);
    let energy: f64 = reference
        .fields
        .iter()
        .flatten()
        .flatten()
        .map(|v| v * v)
        .sum();
    assert!(
        energy > 1e-8,
        "the sources must have excited the grid ({energy:e})"
    );
    let mut runs = 0;
    for &ranks in rank_counts {
        for_each_candidate(setup.grid, setup.mode.dims(), ranks, 1, |c| {
            for comm in [CommKind::Sim, CommKind::Shm] {
                let got = decomposed::<f64>(setup, c.topology, comm, steps);
                for (k, (a, b)) in got.fields.iter().zip(&reference.fields).enumerate() {
                    assert!(
                        a == b,
                        "{:?} {comm:?} {:?}: component {k} differs",
                        setup.mode,
                        c.topology.0
                    );
                }
                assert!(
                    got.probes == reference.probes,
                    "{:?} {comm:?} {:?}: probes differ",
                    setup.mode,
                    c.topology.0
                );
                runs += 1;
            }
            // Exchanging after the whole update instead of overlapping changes nothing.
            let plan = yee_core::session::Plan {
                overlap: false,
                ..yee_scalar::decomposed::uniform_plan(setup, c.topology)
            };
            let (got, _) = yee_tests::planned::<f64>(setup, &plan, CommKind::Sim, steps);
            assert!(
                got.fields == reference.fields && got.probes == reference.probes,
                "{:?} {:?} without overlap: fields or probes differ",
                setup.mode,
                c.topology.0
            );
        });
    }
    assert!(
        runs >= 2 * rank_counts.len(),
        "every rank count has at least one topology"
    );
}

#[test]
fn one_d() {
    let regions = [
        Region {
            shape: Shape::Block {
                lo: [25.0, -1.0, -1.0],
                hi: [40.0, 1.0, 1.0],
            },
            // Drude, Lorentz and Debye poles: their polarisations cross chunk borders too.
            material: yee_tests::dispersive(3.0, 0, 3),
        },
        Region {
            shape: Shape::Block {
                lo: [45.0, -1.0, -1.0],
                hi: [55.0, 1.0, 1.0],
            },
            material: Material {
                sigma: 0.05,
                ..Material::VACUUM
            },
        },
    ];
    let sources = [
        ricker(Component::Ez, [20, 0, 0]),
        PointSource {
            kind: SourceKind::Hard,
            ..ricker(Component::Hy, [33, 0, 0])
        },
    ];
    let probes = [
        Probe {
            component: Component::Ez,
            cell: [30, 0, 0],
        },
        Probe {
            component: Component::Hy,
            cell: [7, 0, 0],
        },
    ];
    let setup = Setup {
        mode: Mode::OneD,
        grid: [61, 1, 1],
        courant: 0.9,
        background: Material::VACUUM,
        poles: &yee_tests::TEST_POLES,
        regions: &regions,
        boundaries: [
            [cpml(6), Boundary::Pmc],
            [Boundary::Pec; 2],
            [Boundary::Pec; 2],
        ],
        sources: &sources,
        probes: &probes,
        plane_waves: &[],
        monitors: &[],
        frequencies: &[],
        active: None,
        smoothing: true,
        smoothing_tensor: true,
        bloch: [0.0; 3],
    };
    check(&setup, 60, &[2, 3, 4, 6, 8]);
}

#[test]
fn two_d_tmz() {
    let regions = [
        Region {
            shape: Shape::Cylinder {
                center: [15.0, 13.0, 0.0],
                radius: 6.0,
                axis: yee_core::Axis::Z,
                length: f64::INFINITY,
            },
            material: yee_tests::dispersive(3.0, 0, 3),
        },
        Region {
            shape: Shape::Block {
                lo: [20.0, 0.0, -1.0],
                hi: [30.0, 6.0, 1.0],
            },
            material: Material {
                sigma: 0.1,
                eps: 2.0,
                ..Material::VACUUM
            },
        },
    ];
    let sources = [ricker(Component::Ez, [14, 12, 0])];
    let probes = [
        Probe {
            component: Component::Ez,
            cell: [3, 3, 0],
        },
        Probe {
            component: Component::Hx,
            cell: [28, 20, 0],
        },
    ];
    let setup = Setup {
        mode: Mode::Tmz,
        grid: [30, 26, 1],
        courant: 0.7,
        background: Material::VACUUM,
        poles: &yee_tests::TEST_POLES,
        regions: &regions,
        boundaries: [
            [Boundary::Periodic; 2],
            [cpml(5), Boundary::Pec],
            [Boundary::Pec; 2],
        ],
        sources: &sources,
        probes: &probes,
        plane_waves: &[],
        monitors: &[],
        frequencies: &[],
        active: None,
        smoothing: true,
        smoothing_tensor: true,
        bloch: [0.0; 3],
    };
    check(&setup, 40, &[2, 3, 4, 6, 8]);
}

#[test]
fn two_d_tez() {
    let regions = [Region {
        shape: Shape::Cylinder {
            center: [14.0, 16.0, 0.0],
            radius: 5.0,
            axis: yee_core::Axis::Z,
            length: f64::INFINITY,
        },
        material: Material::dielectric(4.0),
    }];
    let sources = [
        ricker(Component::Hz, [9, 15, 0]),
        ricker(Component::Ex, [14, 14, 0]),
    ];
    let probes = [
        Probe {
            component: Component::Ey,
            cell: [20, 16, 0],
        },
        Probe {
            component: Component::Hz,
            cell: [14, 15, 0],
        },
    ];
    let setup = Setup {
        mode: Mode::Tez,
        grid: [28, 30, 1],
        courant: 0.7,
        background: Material::VACUUM,
        poles: &[],
        regions: &regions,
        boundaries: [
            [cpml(4); 2],
            [Boundary::Pmc, Boundary::Pec],
            [Boundary::Pec; 2],
        ],
        sources: &sources,
        probes: &probes,
        plane_waves: &[],
        monitors: &[],
        frequencies: &[],
        active: None,
        smoothing: true,
        smoothing_tensor: true,
        bloch: [0.0; 3],
    };
    check(&setup, 40, &[2, 3, 4, 6, 8]);
}

#[test]
fn three_d() {
    let regions = [Region {
        shape: Shape::Sphere {
            center: [8.0, 7.0, 6.0],
            radius: 4.0,
        },
        material: Material {
            eps: 2.5,
            sigma: 0.02,
            ..Material::VACUUM
        },
    }];
    let sources = [
        ricker(Component::Ez, [8, 7, 6]),
        PointSource {
            kind: SourceKind::Hard,
            ..ricker(Component::Hx, [3, 10, 2])
        },
    ];
    let probes = [
        Probe {
            component: Component::Ex,
            cell: [12, 3, 9],
        },
        Probe {
            component: Component::Hz,
            cell: [8, 7, 5],
        },
    ];
    let setup = Setup {
        mode: Mode::ThreeD,
        grid: [16, 14, 12],
        courant: 0.55,
        background: Material::VACUUM,
        poles: &[],
        regions: &regions,
        boundaries: [
            [cpml(3); 2],
            [Boundary::Periodic; 2],
            [Boundary::Pec, Boundary::Pmc],
        ],
        sources: &sources,
        probes: &probes,
        plane_waves: &[],
        monitors: &[],
        frequencies: &[],
        active: None,
        smoothing: true,
        smoothing_tensor: true,
        bloch: [0.0; 3],
    };
    check(&setup, 20, &[2, 3, 4, 6, 8]);
}

#[test]
fn three_d_grid_that_no_rank_count_divides() {
    let regions = [Region {
        shape: Shape::Sphere {
            center: [18.0, 14.0, 11.0],
            radius: 7.0,
        },
        material: Material::dielectric(2.0),
    }];
    // (12, 9, 11) sits on the border between the first two x chunks of a 3-way split.
    let sources = [ricker(Component::Ey, [12, 9, 11])];
    let probes = [Probe {
        component: Component::Ey,
        cell: [24, 19, 7],
    }];
    let setup = Setup {
        mode: Mode::ThreeD,
        grid: [37, 29, 23],
        courant: 0.55,
        background: Material::VACUUM,
        poles: &[],
        regions: &regions,
        boundaries: [[cpml(4); 2]; 3],
        sources: &sources,
        probes: &probes,
        plane_waves: &[],
        monitors: &[],
        frequencies: &[],
        active: None,
        smoothing: true,
        smoothing_tensor: true,
        bloch: [0.0; 3],
    };
    check(&setup, 14, &[6]);
}
