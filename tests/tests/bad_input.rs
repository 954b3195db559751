//! Bad input to the simulation API returns a typed error whose message names the value.

use yee_core::{Axis, Side};
use yee_em::{
    Boundary, Component, CpmlParams, Material, Mode, PointSource, Probe, Region, Setup, SetupError,
    Shape, SourceKind, Waveform,
};
use yee_scalar::{RunError, Simulation};
use yee_tests::{PEC, vacuum};

fn error_of(setup: &Setup) -> SetupError {
    Simulation::<f64>::new(setup).expect_err("setup should be rejected")
}

fn base() -> Setup<'static> {
    vacuum(Mode::Tmz, [40, 30, 1], 0.5, PEC)
}

fn source_at(cell: [i64; 3]) -> PointSource {
    PointSource {
        component: Component::Ez,
        cell,
        waveform: Waveform::Ricker {
            frequency: 0.05,
            delay: 30.0,
        },
        amplitude: 1.0,
        kind: SourceKind::Soft,
    }
}

#[test]
fn zero_extent() {
    let e = error_of(&Setup {
        grid: [40, 0, 1],
        ..base()
    });
    assert_eq!(e, SetupError::ZeroExtent { axis: Axis::Y });
    assert!(e.to_string().contains("along y is 0"), "{e}");
}

#[test]
fn overflowing_extent() {
    let e = error_of(&Setup {
        grid: [usize::MAX, 30, 1],
        ..base()
    });
    assert!(
        matches!(e, SetupError::ExtentTooLarge { axis: Axis::X, .. }),
        "{e:?}"
    );
    assert!(e.to_string().contains(&usize::MAX.to_string()), "{e}");
    let e = error_of(&Setup {
        mode: Mode::ThreeD,
        grid: [1 << 24, 1 << 24, 1 << 24],
        courant: 0.5,
        ..base()
    });
    assert!(matches!(e, SetupError::TooManyCells { .. }), "{e:?}");
}

#[test]
fn extent_on_an_unused_axis() {
    let e = error_of(&Setup {
        grid: [40, 30, 5],
        ..base()
    });
    assert!(e.to_string().contains("along z is 5"), "{e}");
}

#[test]
fn courant_above_limit() {
    let e = error_of(&Setup {
        courant: 0.75,
        ..base()
    });
    assert!(matches!(e, SetupError::CourantAboveLimit { .. }), "{e:?}");
    assert!(
        e.to_string().contains("0.75") && e.to_string().contains("0.707107"),
        "{e}"
    );
    let e = error_of(&Setup {
        courant: -1.0,
        ..base()
    });
    assert!(e.to_string().contains("-1"), "{e}");
}

#[test]
fn non_positive_permittivity_and_permeability() {
    let e = error_of(&Setup {
        background: Material {
            eps: 0.0,
            ..Material::VACUUM
        },
        ..base()
    });
    assert_eq!(
        e.to_string(),
        "background material eps = 0 must be positive and finite"
    );
    let regions = [Region {
        shape: Shape::Everywhere,
        material: Material {
            mu: -2.0,
            ..Material::VACUUM
        },
    }];
    let e = error_of(&Setup {
        regions: &regions,
        ..base()
    });
    assert_eq!(
        e.to_string(),
        "region 0: material mu = -2 must be positive and finite"
    );
}

#[test]
fn negative_conductivity() {
    let regions = [
        Region {
            shape: Shape::Everywhere,
            material: Material::VACUUM,
        },
        Region {
            shape: Shape::Everywhere,
            material: Material {
                sigma: -0.1,
                ..Material::VACUUM
            },
        },
    ];
    let e = error_of(&Setup {
        regions: &regions,
        ..base()
    });
    assert_eq!(
        e.to_string(),
        "region 1: material sigma = -0.1 must be non-negative and finite"
    );
}

#[test]
fn source_outside_grid() {
    let sources = [source_at([5, 5, 0]), source_at([40, 5, 0])];
    let e = error_of(&Setup {
        sources: &sources,
        ..base()
    });
    assert_eq!(
        e.to_string(),
        "source 1: cell [40, 5, 0] lies outside the grid [40, 30, 1]"
    );
    let sources = [source_at([-1, 5, 0])];
    assert!(matches!(
        error_of(&Setup {
            sources: &sources,
            ..base()
        }),
        SetupError::OutsideGrid { .. }
    ));
}

#[test]
fn probe_outside_grid() {
    let probes = [Probe {
        component: Component::Ez,
        cell: [3, 30, 0],
    }];
    let e = error_of(&Setup {
        probes: &probes,
        ..base()
    });
    assert_eq!(
        e.to_string(),
        "probe 0: cell [3, 30, 0] lies outside the grid [40, 30, 1]"
    );
}

#[test]
fn component_not_in_mode() {
    let probes = [Probe {
        component: Component::Hz,
        cell: [3, 3, 0],
    }];
    let e = error_of(&Setup {
        probes: &probes,
        ..base()
    });
    assert_eq!(
        e.to_string(),
        "probe 0: component hz does not exist in mode tmz"
    );
}

#[test]
fn cpml_thicker_than_half_an_axis() {
    let mut boundaries = PEC;
    boundaries[1][1] = Boundary::Cpml(CpmlParams::with_thickness(16));
    let e = error_of(&Setup {
        boundaries,
        ..base()
    });
    assert_eq!(
        e,
        SetupError::CpmlTooThick {
            axis: Axis::Y,
            side: Side::High,
            thickness: 16,
            extent: 30
        }
    );
    assert_eq!(
        e.to_string(),
        "CPML on the high y face is 16 cells thick, more than half the 30 cells of the axis"
    );
}

#[test]
fn half_periodic_axis() {
    let mut boundaries = PEC;
    boundaries[0][0] = Boundary::Periodic;
    assert_eq!(
        error_of(&Setup {
            boundaries,
            ..base()
        }),
        SetupError::HalfPeriodic { axis: Axis::X }
    );
}

#[test]
fn invalid_waveform() {
    let mut s = source_at([5, 5, 0]);
    s.waveform = Waveform::Gaussian {
        delay: 10.0,
        width: 0.0,
        frequency: 0.0,
    };
    let sources = [s];
    let e = error_of(&Setup {
        sources: &sources,
        ..base()
    });
    assert_eq!(
        e.to_string(),
        "source 0: waveform parameter width is invalid"
    );
}

#[test]
fn divergence_names_step_and_cell() {
    // A constant current of 1e308 charging a 4×4 PEC box: infinite within a few steps.
    let mut s = source_at([2, 2, 0]);
    s.amplitude = 1e308;
    s.waveform = Waveform::Gaussian {
        delay: 0.0,
        width: 1e6,
        frequency: 0.0,
    };
    let sources = [s];
    let setup = Setup {
        grid: [4, 4, 1],
        sources: &sources,
        ..base()
    };
    let mut sim = Simulation::<f64>::new(&setup).unwrap();
    let err = sim.run(100).expect_err("must diverge");
    let RunError::Diverged {
        step,
        component,
        cell,
    } = err
    else {
        panic!("expected a divergence, got: {err}");
    };
    assert!((1..100).contains(&step), "step {step}");
    assert_eq!(
        (component, cell),
        (Component::Ez, [2, 2, 0]),
        "the source cell overflows first"
    );
    assert!(
        err.to_string().contains(&format!("at step {step} in cell")),
        "{err}"
    );
    assert_eq!(sim.steps(), step, "the run stops at the diverging step");
}

#[test]
fn poles_out_of_range_unstable_or_beyond_the_table() {
    let poles = [
        yee_em::Pole::Lorentz {
            frequency: 0.7,
            gamma: 0.0,
            sigma: 1.0,
        },
        yee_em::Pole::Debye {
            delta_eps: 1.0,
            tau: -2.0,
        },
    ];
    let region = |first, count| {
        [Region {
            shape: Shape::Everywhere,
            material: Material {
                poles: yee_em::PoleSet { first, count },
                ..Material::VACUUM
            },
        }]
    };
    // ω₀Δt = 2π · 0.7 · 0.5 ≈ 2.2.
    let regions = region(0, 1);
    let e = error_of(&Setup {
        regions: &regions,
        poles: &poles,
        ..base()
    });
    assert!(
        matches!(
            e,
            SetupError::InvalidPole {
                region: Some(0),
                pole: 0,
                kind: "lorentz",
                ..
            }
        ),
        "{e:?}"
    );
    assert!(
        e.to_string().contains("ω₀Δt = 2π·frequency·Δt = 2.1991"),
        "{e}"
    );
    let regions = region(1, 1);
    let e = error_of(&Setup {
        regions: &regions,
        poles: &poles,
        ..base()
    });
    assert_eq!(
        e.to_string(),
        "region 0: material: pole 0 (debye) tau = -2 must be positive and finite"
    );
    let regions = region(1, 2);
    let e = error_of(&Setup {
        regions: &regions,
        poles: &poles,
        ..base()
    });
    assert_eq!(
        e.to_string(),
        "region 0: material names poles 1..3 of a table of 2"
    );
    // A plane wave needs a plain background.
    let waves = [yee_em::PlaneWave {
        region: yee_core::Box3::new([5, 5, 0], [30, 20, 1]),
        direction: [1.0, 0.0, 0.0],
        polarization: [0.0, 0.0, 1.0],
        waveform: Waveform::Ricker {
            frequency: 0.05,
            delay: 30.0,
        },
        amplitude: 1.0,
    }];
    let drude = [yee_em::Pole::Drude {
        frequency: 0.01,
        gamma: 0.0,
        sigma: 1.0,
    }];
    let e = error_of(&Setup {
        background: Material {
            poles: yee_em::PoleSet { first: 0, count: 1 },
            ..Material::VACUUM
        },
        poles: &drude,
        plane_waves: &waves,
        ..base()
    });
    assert!(e.to_string().contains("dispersive"), "{e}");
}
