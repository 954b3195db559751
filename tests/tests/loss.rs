//! A sinusoid entering a conductive medium decays at the analytic rate
//! α = −Im k, with k = ω √(μ(ε − iσ/ω)) (the lossy-medium plane wave, c = 1).

use num_complex::Complex;
use std::f64::consts::PI;
use yee_em::{
    Component, Material, Mode, PointSource, Probe, Region, Setup, Shape, SourceKind, Waveform,
};
use yee_scalar::Simulation;
use yee_tests::{cpml_everywhere, dtft};

#[test]
fn wave_in_conductor_decays_at_the_analytic_rate() {
    let (frequency, sigma, eps) = (0.02, 0.005, 2.0);
    let medium = Material {
        eps,
        sigma,
        ..Material::VACUUM
    };
    let regions = [Region {
        shape: Shape::Block {
            lo: [500.0, -1.0, -1.0],
            hi: [1e9, 1.0, 1.0],
        },
        material: medium,
    }];
    let sources = [PointSource {
        component: Component::Ez,
        cell: [100, 0, 0],
        // A cosine current deposits no net charge once ramped: no static field to decay.
        waveform: Waveform::Sinusoid {
            frequency,
            phase: PI / 2.0,
            ramp: 200.0,
        },
        amplitude: 1.0,
        kind: SourceKind::Soft,
    }];
    let (x1, x2) = (800, 1200);
    let probes = [x1, x2].map(|x| Probe {
        component: Component::Ez,
        cell: [x, 0, 0],
    });
    let setup = Setup {
        mode: Mode::OneD,
        grid: [3000, 1, 1],
        courant: 0.5,
        background: Material::VACUUM,
        poles: &[],
        regions: &regions,
        // Absorbing ends: no echo from the vacuum side or the far end builds a standing wave.
        boundaries: cpml_everywhere(20),
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
    // The front reaches x2 after 400 + 700·√2 ≈ 1400 time units plus the 200 of the ramp:
    // steady state well before step 5000 (t = 2500).
    let steps = 5000;
    sim.run(steps).unwrap();
    let dt = sim.dt();
    // Amplitude by a DFT over the last 8 periods (100 steps each): exact for a steady sinusoid.
    let omega = 2.0 * PI * frequency;
    let window = 800;
    let amplitude = |i: usize| {
        let s = sim.probe_series(i);
        2.0 * dtft(&s[s.len() - window..], dt, omega).norm() / window as f64
    };
    let measured = (amplitude(0) / amplitude(1)).ln() / (x2 - x1) as f64;
    let k = omega * (Complex::new(eps, -sigma / omega)).sqrt();
    let analytic = -k.im;
    let rel = (measured / analytic - 1.0).abs();
    eprintln!(
        "attenuation: measured {measured:.6e} per cell, analytic {analytic:.6e}, rel {rel:.2e}"
    );
    assert!(rel <= 0.01, "relative error {rel:e}");
}
