//! Shared helpers of the workspace tests: common boundaries and a plain DTFT.
#![warn(missing_docs)]

use num_complex::Complex;
use yee_core::{Boundaries, Boundary, CpmlParams, Material, Mode, Probe, Setup};

/// PEC on every face.
pub const PEC: Boundaries = [[Boundary::Pec; 2]; 3];

/// Periodic on every axis.
pub const PERIODIC: Boundaries = [[Boundary::Periodic; 2]; 3];

/// CPML of `thickness` cells (yee's default grading) on every face.
pub fn cpml_everywhere(thickness: usize) -> Boundaries {
    [[Boundary::Cpml(CpmlParams::with_thickness(thickness)); 2]; 3]
}

/// A vacuum setup with no regions, sources or probes.
pub fn vacuum(
    mode: Mode,
    grid: [usize; 3],
    courant: f64,
    boundaries: Boundaries,
) -> Setup<'static> {
    Setup {
        mode,
        grid,
        courant,
        background: Material::VACUUM,
        regions: &[],
        boundaries,
        sources: &[],
        probes: &[],
    }
}

/// `Σ s[n] e^{−iω n Δt}` of a complete (zero at both ends) record.
pub fn dtft(signal: &[f64], dt: f64, omega: f64) -> Complex<f64> {
    signal
        .iter()
        .enumerate()
        .map(|(n, &s)| Complex::from_polar(s, -omega * n as f64 * dt))
        .sum()
}

/// The largest absolute value of a probe record.
pub fn peak(series: &[f64]) -> f64 {
    series.iter().fold(0.0, |m, v| m.max(v.abs()))
}

/// The probes of a setup, for building setups inline.
pub fn probes(list: &[Probe]) -> Vec<Probe> {
    list.to_vec()
}
