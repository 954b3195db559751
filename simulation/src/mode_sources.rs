//! Mode sources (`[[sources]]` of `kind = "mode"`): a guided mode of the grid's cross-section
//! launched one way by equivalent currents on one plane, expanded into the scene's soft point
//! sources before a run (the scene cannot call the mode solver).
//!
//! **The currents.** They are the total-field/scattered-field correction of a single plane
//! (Taflove & Hagness, 3rd ed., §5.9) with the mode as the incident field: for a launch along
//! `+p` from the E plane `k` (total field from `k` on), the tangential E nodes of plane `k`
//! read H at `k − ½` in the scattered field, and the tangential H nodes at `k − ½` read E at
//! `k` in the total field; each update is corrected by the incident field it misses. With
//! `(u, v, p)` right-handed and the soft source adding `gain × value` (`gain` the node's curl
//! coefficient, `Δt/ε` or `Δt/μ`), the values are
//!
//! - `E_u(k) += +H_v,inc(k − ½)`, `E_v(k) += −H_u,inc(k − ½)` (the electric sheet `J = p̂ × H`),
//! - `H_u(k − ½) += −E_v,inc(k)`, `H_v(k − ½) += +E_u,inc(k)` (the magnetic sheet `M = −p̂ × E`).
//!
//! Along `−p` the H nodes at `k + ½` take the same values with the opposite sign, and the E
//! nodes the same values as along `+p` (the backward mode has the same E and the opposite H).
//! The two sheets cancel each other's radiation on the scattered side, so the mode leaves in
//! one direction only.
//!
//! **The incident field.** `E_inc(k, t) = a E_m g(t)` and `H_inc(k ∓ ½, t) = a H_m g(t + τ)`,
//! with `E_m`, `H_m` the transverse fields of the mode of unit power at the waveform's centre
//! frequency (found with the grid's own dispersion, so `H_m` is the grid's H of the mode
//! continued to the plane), `g` the waveform, `a` the amplitude and `τ = n_eff / 2` the time
//! the mode's phase takes across half a cell: exact at the centre frequency, and over the
//! band to the change of the mode's profile and phase velocity with frequency. E sources are
//! evaluated at `(n + ½)Δt` and H sources at `nΔt` ([`yee_scalar::source::source_time`]), the
//! times the corrected updates need their incident fields.

use yee_core::geometry::{Axis, Index3};
use yee_em::yee::Component;
use yee_em::{PointSource, SourceKind, Waveform};
use yee_modes::{CrossSection, ModeOptions, Parity, WaveguideMode, guided};
use yee_scene::{ModeSource, Scene};

use crate::error::AppError;

/// The mode `source` launches, at its waveform's centre frequency; an error naming the
/// source's key when the plane guides fewer modes there.
pub(crate) fn launched_mode(
    scene: &Scene,
    source: &ModeSource,
) -> Result<(CrossSection, WaveguideMode), AppError> {
    let frequency = source.waveform.centre_frequency();
    let f_scene = scene.units.to_scene_frequency(frequency);
    let i = source.index;
    let at = format!(
        "the plane {}={} at frequency {f_scene}",
        source.axis.name(),
        scene.units.to_scene_length(source.plane as f64)
    );
    let fail = |key: &str, why: String| {
        AppError::Run(format!(
            "{}: sources[{i}].{key}: {why}",
            scene.file.display()
        ))
    };
    let setup = scene.setup();
    let dt = scene.dt();
    let cs = CrossSection::of_setup(&setup, source.axis, source.plane, frequency, Some(dt))
        .map_err(|e| fail("position", format!("{at}: {e}")))?;
    let parity = Parity {
        even: source.parity,
    };
    let options = ModeOptions {
        frequency,
        count: source.mode + 1,
        time_step: Some(dt),
        parity,
    };
    let mut modes = guided(&cs, &options).map_err(|e| {
        let key = if Parity::caused(&e) { "parity" } else { "mode" };
        fail(key, format!("{at}: {e}"))
    })?;
    if modes.len() <= source.mode {
        return Err(fail(
            "mode",
            format!(
                "mode {}: {at} carries {} guided mode{}{} (numbered from 0; a guided mode's \
                 index exceeds the plane's edges', {:.6})",
                source.mode,
                modes.len(),
                if modes.len() == 1 { "" } else { "s" },
                parity.phrase(),
                cs.edge_index_squared().sqrt()
            ),
        ));
    }
    let mode = modes.swap_remove(source.mode);
    Ok((cs, mode))
}

/// `waveform` advanced by `tau`: the waveform whose value at `t` is `waveform`'s at `t + tau`
/// (a sinusoid's ramp is left where it is).
pub(crate) fn advanced(waveform: Waveform, tau: f64) -> Waveform {
    match waveform {
        Waveform::Gaussian {
            delay,
            width,
            frequency,
        } => Waveform::Gaussian {
            delay: delay - tau,
            width,
            frequency,
        },
        Waveform::Ricker { frequency, delay } => Waveform::Ricker {
            frequency,
            delay: delay - tau,
        },
        Waveform::Sinusoid {
            frequency,
            phase,
            ramp,
        } => Waveform::Sinusoid {
            frequency,
            phase: phase + 2.0 * core::f64::consts::PI * frequency * tau,
            ramp,
        },
    }
}

/// The soft point sources of `source`'s two sheets (module docs), for the mode `mode` of the
/// plane `cs`.
fn sheets(
    scene: &Scene,
    source: &ModeSource,
    cs: &CrossSection,
    mode: &WaveguideMode,
) -> Vec<PointSource> {
    let [u, v] = cs.axes;
    let p = cs.normal;
    let a = source.amplitude;
    let sign = if source.forward { 1.0 } else { -1.0 };
    let h_plane = if source.forward {
        source.plane as i64 - 1
    } else {
        source.plane as i64
    };
    let e_wave = advanced(source.waveform, mode.n_eff / 2.0);
    let m = &mode.fields;
    let [nu, _] = cs.size;
    let mut out = Vec::new();
    for n in 0..cs.nodes() {
        let cell = |along_p: i64| -> Index3 {
            let mut c: Index3 = [0; 3];
            c[u.index()] = (n % nu) as i64;
            c[v.index()] = (n / nu) as i64;
            c[p.index()] = along_p;
            c
        };
        let (e_u, e_v) = (m.e[u.index()][n].re, m.e[v.index()][n].re);
        let (h_u, h_v) = (m.h[u.index()][n].re, m.h[v.index()][n].re);
        let nodes: [(Axis, bool, f64, i64, Waveform); 4] = [
            (u, true, h_v, source.plane as i64, e_wave),
            (v, true, -h_u, source.plane as i64, e_wave),
            (u, false, -sign * e_v, h_plane, source.waveform),
            (v, false, sign * e_u, h_plane, source.waveform),
        ];
        for (axis, electric, value, along_p, waveform) in nodes {
            let component = Component::along(axis, electric);
            if value == 0.0 || !scene.mode.has(component) {
                continue;
            }
            out.push(PointSource {
                component,
                cell: cell(along_p),
                waveform,
                amplitude: a * value,
                kind: SourceKind::Soft,
            });
        }
    }
    out
}

/// Solves every mode source's mode and adds its currents to the scene's sources (module
/// docs); a source already expanded is left alone, so calling this twice changes nothing.
/// An error names the source's key when its plane does not guide its mode at its centre
/// frequency.
pub fn expand_mode_sources(scene: &mut Scene) -> Result<(), AppError> {
    for s in 0..scene.mode_sources.len() {
        let source = scene.mode_sources[s].clone();
        if source.n_eff.is_some() {
            continue;
        }
        let (cs, mode) = launched_mode(scene, &source)?;
        let added = sheets(scene, &source, &cs, &mode);
        scene
            .source_origin
            .extend(std::iter::repeat_n(source.index, added.len()));
        scene.sources.extend(added);
        scene.mode_sources[s].n_eff = Some(mode.n_eff);
    }
    Ok(())
}

/// Refuses a scene whose mode sources are not expanded yet: its run would leave them out.
pub fn check_mode_sources(scene: &Scene) -> Result<(), AppError> {
    match scene.mode_sources.iter().find(|s| s.n_eff.is_none()) {
        Some(s) => Err(AppError::Run(format!(
            "{}: sources[{}]: the mode source is not expanded into currents \
             (yee_simulation::mode_sources::expand_mode_sources)",
            scene.file.display(),
            s.index
        ))),
        None => Ok(()),
    }
}
