//! Second-order accuracy: halving the cell size divides the phase error of a propagated pulse
//! by about four (Yee's scheme is second order in space and time).

use std::f64::consts::{PI, TAU};
use yee_em::{Component, Material, Mode, PointSource, Probe, Setup, SourceKind, Waveform};
use yee_scalar::Simulation;
use yee_tests::{PEC, dtft};

/// Phase error at the carrier frequency over the distance between two probes, for a grid
/// `refinement` times finer than the coarse one (all lengths and times in cells scale with it).
fn phase_error(refinement: usize) -> f64 {
    let r = refinement as f64;
    let frequency = 0.1 / r;
    let sources = [PointSource {
        component: Component::Ez,
        cell: [100 * refinement as i64, 0, 0],
        waveform: Waveform::Gaussian {
            delay: 50.0 * r,
            width: 10.0 * r,
            frequency,
        },
        amplitude: 1.0,
        kind: SourceKind::Soft,
    }];
    let (x1, x2) = (200 * refinement as i64, 300 * refinement as i64);
    let probes = [x1, x2].map(|x| Probe {
        component: Component::Ez,
        cell: [x, 0, 0],
    });
    let setup = Setup {
        mode: Mode::OneD,
        grid: [1000 * refinement, 1, 1],
        courant: 0.5,
        background: Material::VACUUM,
        poles: &[],
        regions: &[],
        boundaries: PEC,
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
    // 600 time units: both pulses (direct and PEC-echoed) pass both probes, nothing returns
    // from the far wall.
    sim.run(1200 * refinement as u64).unwrap();
    let omega = TAU * frequency;
    let dt = sim.dt();
    let ratio = dtft(sim.probe_series(1), dt, omega) / dtft(sim.probe_series(0), dt, omega);
    let exact = -omega * (x2 - x1) as f64;
    let error = (ratio.arg() - exact).rem_euclid(TAU);
    if error > PI { TAU - error } else { error }
}

#[test]
fn halving_the_cell_divides_phase_error_by_about_four() {
    let coarse = phase_error(1);
    let fine = phase_error(2);
    eprintln!(
        "phase error: coarse {coarse:.4e} rad, fine {fine:.4e} rad, ratio {:.3}",
        coarse / fine
    );
    assert!(coarse > 1e-3, "the coarse grid should show dispersion");
    assert!(coarse / fine > 3.5, "ratio {}", coarse / fine);
}
