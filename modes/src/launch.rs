//! The amplitude a mode source launches: the forward part, in a mode of the grid at one
//! frequency, of the incident field a one-plane total-field/scattered-field source is given
//! (the normalisation of S-parameters; `yee_simulation::mode_sources` has the source).
//!
//! **The incident field.** The source gives its E sheet `H_inc` on the H nodes half a cell
//! behind the plane (for a launch along `+p`; ahead of it, with the opposite sign, along
//! `−p`) and its H sheet `E_inc` on the plane: `E_inc = a E₀ W_E(f)` and
//! `H_inc = ±a H₀ W_H(f)` (the sign of the direction) at frequency f, with `E₀`, `H₀` the transverse fields of the launched
//! mode at the centre frequency and `W_E`, `W_H` the transforms of the waveform at the times
//! the two sheets stand for (E's, and H's advanced by the half-cell delay).
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

/// The incident field of a mode source at one frequency: the launched mode's transverse
/// fields at the centre frequency, scaled by the transforms of what the two sheets carry.
#[derive(Clone, Copy, Debug)]
pub struct IncidentSheets<'a> {
    /// The mode the source launches, found at its centre frequency on the plane.
    pub launched: &'a WaveguideMode,
    /// The transform of the incident E on the plane per unit of the launched mode's E
    /// (the source's amplitude times the waveform's transform at E's times).
    pub e: Complex64,
    /// The transform of the incident H on its layer per unit of the launched mode's H as it
    /// travels the launch's way (along `−p` the backward mode's, the opposite of the forward
    /// one's: the same number for both directions).
    pub h: Complex64,
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
    let (s, m) = (&incident.launched.fields, &mode.fields);
    let (mut x, mut y, mut p) = (Complex64::default(), Complex64::default(), 0.0);
    for n in 0..cs.nodes() {
        let (e0u, e0v) = (s.e[u.index()][n], s.e[v.index()][n]);
        let (h0u, h0v) = (s.h[u.index()][n], s.h[v.index()][n]);
        let (emu, emv) = (m.e[u.index()][n], m.e[v.index()][n]);
        let (hmu, hmv) = (m.h[u.index()][n], m.h[v.index()][n]);
        x += e0u * hmv.conj() - e0v * hmu.conj();
        y += emu.conj() * h0v - emv.conj() * h0u;
        p += (emu * hmv.conj() - emv * hmu.conj()).re;
    }
    let half = mode.beta / 2.0;
    let alpha = (x * incident.e * Complex64::from_polar(1.0, half) + y * incident.h)
        / (2.0 * half.cos() * p);
    let time_factor = (std::f64::consts::PI * frequency * dt).cos();
    alpha * (half.cos() * time_factor * p / 2.0).sqrt()
}
