//! At Courant number 1 the 1D Yee scheme is exact: a pulse moves one cell per step.

use yee_em::{Component, Mode};
use yee_scalar::Simulation;
use yee_tests::{PERIODIC, vacuum};

fn pulse(x: f64) -> f64 {
    (-((x - 300.0) / 20.0).powi(2) / 2.0).exp()
}

#[test]
fn gaussian_pulse_moves_exactly_one_cell_per_step() {
    let setup = vacuum(Mode::OneD, [1000, 1, 1], 1.0, PERIODIC);
    let mut sim = Simulation::<f64>::new(&setup).unwrap();
    // A right-going wave: Ez = f(x − t), Hy = −f(x − t), with H at t = −½.
    sim.fill(Component::Ez, |p| pulse(p[0]));
    sim.fill(Component::Hy, |p| -pulse(p[0] + 0.5));
    sim.run(500).unwrap();
    let worst = (0..1000)
        .map(|i| (sim.value(Component::Ez, [i, 0, 0]) - pulse(i as f64 - 500.0)).abs())
        .fold(0.0, f64::max);
    assert!(worst <= 1e-12, "max error {worst:e}");
}
