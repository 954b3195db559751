//! The amplitude a mode source launches: the forward part, in a mode of the grid at one
//! frequency, of the incident field a one-plane total-field/scattered-field source is given
//! (the normalisation of S-parameters; `yee_simulation::mode_sources` has the source).
//!
//! **The incident field.** The source gives its E sheet `H_inc` on the H nodes half a cell
//! behind the plane (for a launch along `+p`; ahead of it, with the opposite sign, along
//! `−p`) and its H sheet `E_inc` on the plane: `E_inc = a E₀ W_E(f)` and
//! `H_inc = ±a H₀ W_H(f)` (the sign of the direction) at frequency f, with `E₀`, `H₀` the transverse fields of the launched
//! mode at the centre frequency and `W_E`, `W_H` the transforms of the waveform at the times
//! the two sheets stand for (E's, and H's advanced by the half-cell delay). A broadband source
//! (`num_freqs`) gives each sheet a sum of such terms, one per tap of its filter
//! ([`crate::broadband`]), whose sum carries at each frequency that frequency's mode.
//!
//! **What is launched.** Any incident pair (E on the plane, H on the layer behind it) at f is
//! a sum of the grid's forward and backward modes at f, `E = Σ (α_m + γ_m) E_m`,
//! `H = Σ (α_m e^{−iβ/2} − γ_m e^{iβ/2}) H_m` (a forward mode's H half a cell behind the plane
//! lags by `e^{−iβ/2}`, a backward mode's leads and is reversed). The part of the incident
//! field that is a solution of the grid's equations coming from behind is passed into the
//! total-field side exactly (the TFSF identity), so the launched forward amplitude is α; the
//! backward part leaves through the scattered side as `−γ` (Taflove & Hagness, 3rd ed.,
//! §5.9; the continuous counterpart is the excitation of modes by current sheets, Snyder &
//! Love, *Optical Waveguide Theory*, 1983, §31). With `P = Σ (E_m × H_m*)·p̂`,
//! `X = Σ (E × H_m*)·p̂ = (α + γ) P` and `Y = Σ (E_m* × H)·p̂ = (α e^{−iβ/2} − γ e^{iβ/2}) P`,
//! so `α = (X e^{iβ/2} + Y) / (2 cos(β/2) P)`; along `−p`, the layer ahead of the plane and the
//! backward mode's H reversed, the same expression gives the backward amplitude. At the centre frequency, where `E₀`, `H₀` are the mode
//! and the H delay is `β/2ω`, `α = a W_E`; away from it α carries the change of the mode's
//! profile and phase velocity.
//!
//! **Units.** Returned as the mode monitors' amplitudes are ([`crate::overlap`]): `α √(P'/2)`
//! with `P' = cos(β/2) cos(ωΔt/2) P` the power the monitors' averages give the mode, so that
//! a monitor's amplitude over it is an S-parameter, its square a power ratio.

use num_complex::Complex64;

use crate::cross_section::CrossSection;
use crate::solver::WaveguideMode;

/// One term of a sheet's incident field at one frequency: transverse fields on the plane's
/// nodes (real transverse components) times the transform of their time dependence.
#[derive(Clone, Copy, Debug)]
pub struct SheetTerm<'a> {
    /// The fields along x, y, z per node ([`crate::ModeFields`]' storage): the launched mode's
    /// at the centre frequency, or one tap of a broadband source ([`crate::broadband`]).
    pub fields: &'a [Vec<Complex64>; 3],
    /// The transform of what these fields are driven by: the source's amplitude times the
    /// waveform's transform at the sheet's times, advanced as the term is. For the H sheet,
    /// per unit of H as it travels the launch's way (along `−p` the backward mode's, the
    /// opposite of the forward one's: the same number for both directions).
    pub transform: Complex64,
}

/// The incident field of a mode source at one frequency: E on the plane and H on its layer,
/// each a sum of terms (one each for a source of one frequency: the launched mode's E and H).
#[derive(Clone, Copy, Debug)]
pub struct IncidentSheets<'a> {
    /// The incident E on the plane.
    pub e: &'a [SheetTerm<'a>],
    /// The incident H on its layer.
    pub h: &'a [SheetTerm<'a>],
}

/// The amplitude `incident` launches into `mode` (a mode of `cs` at `frequency` with the
/// grid's own dispersion, time step `dt`) along its direction, in the mode monitors' units
/// (module docs).
pub fn launched_amplitude(
    incident: &IncidentSheets,
    mode: &WaveguideMode,
    cs: &CrossSection,
    frequency: f64,
    dt: f64,
) -> Complex64 {
    let [u, v] = cs.axes;
    let m = &mode.fields;
    let (ui, vi) = (u.index(), v.index());
    let mut p = 0.0;
    for n in 0..cs.nodes() {
        let (emu, emv) = (m.e[ui][n], m.e[vi][n]);
        let (hmu, hmv) = (m.h[ui][n], m.h[vi][n]);
        p += (emu * hmv.conj() - emv * hmu.conj()).re;
    }
    // X = Σ (E × H_m*)·p̂ and Y = Σ (E_m* × H)·p̂ over the terms.
    let sum = |terms: &[SheetTerm], node: &dyn Fn(&[Vec<Complex64>; 3], usize) -> Complex64| {
        terms
            .iter()
            .map(|t| {
                let mut x = Complex64::default();
                for n in 0..cs.nodes() {
                    x += node(t.fields, n);
                }
                x * t.transform
            })
            .reduce(|a, b| a + b)
            .unwrap_or_default()
    };
    let x = sum(incident.e, &|e, n| {
        e[ui][n] * m.h[vi][n].conj() - e[vi][n] * m.h[ui][n].conj()
    });
    let y = sum(incident.h, &|h, n| {
        m.e[ui][n].conj() * h[vi][n] - m.e[vi][n].conj() * h[ui][n]
    });
    let half = mode.beta / 2.0;
    let alpha = (x * Complex64::from_polar(1.0, half) + y) / (2.0 * half.cos() * p);
    let time_factor = (std::f64::consts::PI * frequency * dt).cos();
    alpha * (half.cos() * time_factor * p / 2.0).sqrt()
}
