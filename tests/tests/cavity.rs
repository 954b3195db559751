//! The three lowest resonances of a 25×10×30 PEC cavity against the discrete Yee dispersion
//! relation (≤ 1e-4) and the continuum formula (≤ 0.3 %).

use std::f64::consts::PI;
use yee_core::dispersion::{
    cavity_wavevector, continuum_omega, discrete_omega, lowest_cavity_modes,
};
use yee_core::spectrum::resonances;
use yee_core::{Component, Material, Mode, PointSource, Probe, Setup, SourceKind, Waveform};
use yee_scalar::Simulation;
use yee_tests::PEC;

const SIZE: [usize; 3] = [25, 10, 30];

#[test]
fn lowest_three_resonances_match_theory() {
    let sources = [PointSource {
        component: Component::Ey,
        cell: [7, 3, 11],
        waveform: Waveform::Ricker {
            frequency: 0.035,
            delay: 60.0,
        },
        amplitude: 1.0,
        kind: SourceKind::Soft,
    }];
    let probes = [Probe {
        component: Component::Ey,
        cell: [17, 6, 19],
    }];
    let setup = Setup {
        mode: Mode::ThreeD,
        grid: SIZE,
        courant: 0.5,
        background: Material::VACUUM,
        regions: &[],
        boundaries: PEC,
        sources: &sources,
        probes: &probes,
    };
    let mut sim = Simulation::<f64>::new(&setup).unwrap();
    sim.run(8000).unwrap();
    let dt = sim.dt();
    // Skip the source's active time: from then on the signal is a sum of pure modes.
    let signal = &sim.probe_series(0)[300..];
    let mut found = [0.0; 3];
    assert_eq!(
        resonances(signal, dt, 0.02, 0.047, 1e-3, &mut found),
        3,
        "{found:?}"
    );
    let mut modes = [([0; 3], 0.0); 3];
    lowest_cavity_modes(SIZE, &mut modes);
    for (f, (mode, f_continuum)) in found.iter().zip(modes) {
        let k = cavity_wavevector(mode, SIZE);
        let f_discrete = discrete_omega(k, dt).unwrap() / (2.0 * PI);
        assert!((continuum_omega(k) / (2.0 * PI) - f_continuum).abs() < 1e-15);
        let rel_discrete = (f / f_discrete - 1.0).abs();
        let rel_continuum = (f / f_continuum - 1.0).abs();
        eprintln!(
            "mode {mode:?}: measured {f:.8} discrete {f_discrete:.8} ({rel_discrete:.1e}) continuum {f_continuum:.8} ({rel_continuum:.1e})"
        );
        assert!(
            rel_discrete <= 1e-4,
            "mode {mode:?}: {rel_discrete:e} from the discrete relation"
        );
        assert!(
            rel_continuum <= 3e-3,
            "mode {mode:?}: {rel_continuum:e} from the continuum"
        );
    }
}
