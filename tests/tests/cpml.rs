//! CPML reflection: a probe two cells in front of a 10-cell layer, against a reference run in
//! a domain large enough that nothing returns within the measured window.

use yee_em::{Component, Material, Mode, PointSource, Probe, Setup, SourceKind, Waveform};
use yee_scalar::Simulation;
use yee_tests::cpml_everywhere;

const THICKNESS: usize = 10;

/// Runs a cube (or square) of `size` cells with the source at its centre and the probe at
/// `probe_offset` from the centre; returns the probe record.
fn run(mode: Mode, size: usize, probe_offset: [i64; 3], steps: u64) -> Vec<f64> {
    let dims = mode.dims();
    let extent = |a: usize| if a < dims { size } else { 1 };
    let grid = [extent(0), extent(1), extent(2)];
    let centre: [i64; 3] = std::array::from_fn(|a| grid[a] as i64 / 2);
    let sources = [PointSource {
        component: Component::Ez,
        cell: centre,
        waveform: Waveform::Ricker {
            frequency: 0.05,
            delay: 30.0,
        },
        amplitude: 1.0,
        kind: SourceKind::Soft,
    }];
    let probes = [Probe {
        component: Component::Ez,
        cell: std::array::from_fn(|a| centre[a] + probe_offset[a]),
    }];
    let setup = Setup {
        mode,
        grid,
        courant: 0.99 * mode.courant_limit(),
        background: Material::VACUUM,
        poles: &[],
        regions: &[],
        boundaries: cpml_everywhere(THICKNESS),
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
    let mut sim = Simulation::<f64>::new(&setup).unwrap();
    sim.run(steps).unwrap();
    sim.probe_series(0).to_vec()
}

fn reflection(mode: Mode, size: usize, reference_size: usize, steps: u64) -> f64 {
    // The probe sits two cells in front of the +x layer, which starts at size − THICKNESS.
    let offset = (size - THICKNESS - 2) as i64 - size as i64 / 2;
    let probe = [offset, 0, 0];
    let test = run(mode, size, probe, steps);
    let reference = run(mode, reference_size, probe, steps);
    let peak = yee_tests::peak(&reference);
    let worst = test
        .iter()
        .zip(&reference)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max);
    worst / peak
}

#[test]
fn cpml_reflection_2d() {
    // 400 steps of Δt ≈ 0.7: the reference boundary (150 cells from the source) cannot echo
    // back to the probe (13 cells from it) within 280 time units.
    let r = reflection(Mode::Tmz, 60, 320, 400);
    eprintln!("2D CPML reflection: {r:.2e}");
    assert!(r <= 1e-3, "2D reflection {r:e}");
}

#[test]
fn cpml_reflection_3d() {
    // 120 steps of Δt ≈ 0.57: 69 time units, less than the 42 + 29 of an echo in the reference.
    let r = reflection(Mode::ThreeD, 50, 104, 120);
    eprintln!("3D CPML reflection: {r:.2e}");
    assert!(r <= 1e-3, "3D reflection {r:e}");
}
