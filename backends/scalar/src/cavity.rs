//! The reference PEC cavity: a 25×10×30 box rung by a Ricker pulse, and its lowest resonances
//! measured from a probe beside the discrete and continuum theory. Used by the foundation test
//! and `examples/cavity.rs`.

use core::f64::consts::PI;

use yee_em::dispersion::{cavity_wavevector, discrete_omega, lowest_cavity_modes};
use yee_em::spectrum::resonances;
use yee_em::{
    Boundary, Component, Material, Mode, PointSource, Probe, Setup, SourceKind, Waveform,
};

/// Cells along x, y, z.
pub const SIZE: [usize; 3] = [25, 10, 30];

/// A soft Ricker source on Ey, off every symmetry plane.
pub const SOURCES: [PointSource; 1] = [PointSource {
    component: Component::Ey,
    cell: [7, 3, 11],
    waveform: Waveform::Ricker {
        frequency: 0.035,
        delay: 60.0,
    },
    amplitude: 1.0,
    kind: SourceKind::Soft,
}];

/// A probe on Ey, off every symmetry plane.
pub const PROBES: [Probe; 1] = [Probe {
    component: Component::Ey,
    cell: [17, 6, 19],
}];

/// Steps of the source's active time, skipped before the spectral analysis.
pub const SETTLE_STEPS: usize = 300;

/// The cavity's setup at Courant number 0.5.
pub fn setup() -> Setup<'static> {
    Setup {
        mode: Mode::ThreeD,
        grid: SIZE,
        courant: 0.5,
        background: Material::VACUUM,
        poles: &[],
        regions: &[],
        boundaries: [[Boundary::Pec; 2]; 3],
        sources: &SOURCES,
        probes: &PROBES,
        plane_waves: &[],
        monitors: &[],
        frequencies: &[],
        active: None,
        smoothing: true,
        smoothing_tensor: true,
        bloch: [0.0; 3],
    }
}

/// One measured resonance beside theory (frequencies in cycles per unit time).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Resonance {
    /// Mode indices (m, n, p).
    pub mode: [u32; 3],
    /// From the probe signal.
    pub measured: f64,
    /// From the discrete Yee dispersion relation.
    pub discrete: f64,
    /// From the continuum formula.
    pub continuum: f64,
}

/// The three lowest resonances of the probe record `signal` (sampled every `dt`), paired in
/// order with the three lowest cavity modes. Returns how many peaks were found.
pub fn lowest_resonances(signal: &[f64], dt: f64, out: &mut [Resonance; 3]) -> usize {
    let mut found = [0.0; 3];
    let n = resonances(
        &signal[SETTLE_STEPS.min(signal.len())..],
        dt,
        0.02,
        0.047,
        1e-3,
        &mut found,
    );
    let mut modes = [([0; 3], 0.0); 3];
    lowest_cavity_modes(SIZE, &mut modes);
    for ((r, f), (mode, continuum)) in out.iter_mut().zip(found).zip(modes) {
        let discrete =
            discrete_omega(cavity_wavevector(mode, SIZE), dt).unwrap_or(f64::NAN) / (2.0 * PI);
        *r = Resonance {
            mode,
            measured: f,
            discrete,
            continuum,
        };
    }
    n
}
