//! Every value type runs the same 1D case; a complex run started real stays real.

use num_complex::Complex;
use yee_core::{Real, Scalar};
use yee_em::{Component, Mode};
use yee_scalar::Simulation;
use yee_tests::{PEC, vacuum};

fn run_pulse<T: Scalar>() -> Simulation<'static, T> {
    let setup = vacuum(Mode::OneD, [400, 1, 1], 0.5, PEC);
    let mut sim = Simulation::<T>::new(&setup).unwrap();
    let pulse = |x: f64| (-((x - 150.0) / 10.0).powi(2) / 2.0).exp();
    sim.fill(Component::Ez, |p| {
        T::from_real(T::Real::from_f64(pulse(p[0])))
    });
    sim.run(300).unwrap();
    sim
}

fn ez_re<T: Scalar>(sim: &Simulation<T>) -> Vec<f64> {
    (0..400)
        .map(|i| sim.value(Component::Ez, [i, 0, 0]).re().to_f64())
        .collect()
}

#[test]
fn all_four_types_agree_with_f64() {
    let reference = ez_re(&run_pulse::<f64>());
    let peak = reference.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    assert!(peak > 0.3, "the pulse should still be there, peak {peak}");
    let close = |other: Vec<f64>, tol: f64| {
        let worst = reference
            .iter()
            .zip(&other)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max);
        assert!(worst <= tol, "worst {worst:e}");
    };
    close(ez_re(&run_pulse::<f32>()), 1e-5);
    close(ez_re(&run_pulse::<Complex<f32>>()), 1e-5);
    // Complex<f64> does the same real arithmetic on its real part: bit for bit.
    assert_eq!(ez_re(&run_pulse::<Complex<f64>>()), reference);
}

#[test]
fn complex_run_started_real_keeps_zero_imaginary_part() {
    let sim = run_pulse::<Complex<f64>>();
    for c in [Component::Ez, Component::Hy] {
        let f = sim.field(c).unwrap();
        assert!(
            f.as_slice().iter().all(|z| z.im == 0.0),
            "{c:?} gained an imaginary part"
        );
    }
    let sim = run_pulse::<Complex<f32>>();
    assert!(
        sim.field(Component::Ez)
            .unwrap()
            .as_slice()
            .iter()
            .all(|z| z.im == 0.0)
    );
}
