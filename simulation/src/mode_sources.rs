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
//!
//! **Across the band** (`num_freqs` = N > 1). The mode is also found at N Chebyshev points
//! of the Gaussian's [`band`], each mode's sign aligned with the centre frequency's, and
//! every node drives `Σ_k c_k g(t + τ₀ + kδ)` (k = −N … N; `τ₀` the centre frequency's
//! `n_eff/2` on the E sheet, 0 on the H sheet), the real taps interpolating that node's E,
//! and its H times `e^{i(β/2 − ωτ₀)}`, over the band ([`yee_modes::broadband`]): exact at
//! the N frequencies. The taps are found here once, identically on every rank.

use num_complex::Complex64;
use yee_core::geometry::Index3;
use yee_em::yee::Component;
use yee_em::{PointSource, SourceKind, Waveform};
use yee_modes::broadband::MAX_FREQUENCIES;
use yee_modes::{BandInterpolation, CrossSection, ModeOptions, Parity, WaveguideMode, guided};
use yee_scene::{ModeSource, Scene};

use crate::error::AppError;

/// The mode `source` launches, at its waveform's centre frequency; an error naming the
/// source's key when the plane guides fewer modes there.
pub(crate) fn launched_mode(
    scene: &Scene,
    source: &ModeSource,
) -> Result<(CrossSection, WaveguideMode), AppError> {
    mode_at(scene, source, source.waveform.centre_frequency(), "mode")
}

/// The mode `source` launches at `frequency` (normalised); an error naming the source's key
/// when the plane guides fewer modes there, `key` when the mode number is the reason (`mode`
/// at the centre frequency, `num_freqs` at the frequencies of a broadband source's band).
fn mode_at(
    scene: &Scene,
    source: &ModeSource,
    frequency: f64,
    key: &str,
) -> Result<(CrossSection, WaveguideMode), AppError> {
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
        let key = if Parity::caused(&e) { "parity" } else { key };
        fail(key, format!("{at}: {e}"))
    })?;
    if modes.len() <= source.mode {
        return Err(fail(
            key,
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

/// One term of a sheet's incident field: transverse fields on the plane's nodes (the normal
/// component zero) driven by the source's waveform advanced by `advance`.
pub(crate) struct Tap {
    /// The advance of the waveform (normalised time).
    pub advance: f64,
    /// The fields along x, y, z per node, real.
    pub fields: [Vec<Complex64>; 3],
}

/// What a mode source drives: its plane, its mode's effective index at the centre frequency
/// and the terms of its two incident fields — the mode at the centre frequency, E on the plane
/// and H on its layer advanced by `n_eff/2`, or for a broadband source (`num_freqs` > 1) the
/// taps that carry each frequency's mode (module docs).
pub(crate) struct Injection {
    /// The source's plane.
    pub cs: CrossSection,
    /// The launched mode's effective index at the centre frequency.
    pub n_eff: f64,
    /// The incident E on the plane, which the H sheet carries.
    pub e: Vec<Tap>,
    /// The incident H on its layer, which the E sheet carries.
    pub h: Vec<Tap>,
}

/// The injection of `source` (module docs); an error naming the source's key when its plane
/// does not guide its mode at the centre frequency or, for a broadband source, at one of its
/// band's frequencies.
pub(crate) fn injection(scene: &Scene, source: &ModeSource) -> Result<Injection, AppError> {
    let (cs, mode) = launched_mode(scene, source)?;
    if source.num_freqs == 1 {
        return Ok(Injection {
            cs,
            n_eff: mode.n_eff,
            e: vec![Tap {
                advance: 0.0,
                fields: mode.fields.e,
            }],
            h: vec![Tap {
                advance: mode.n_eff / 2.0,
                fields: mode.fields.h,
            }],
        });
    }
    let band = source_band(scene, source)?;
    let mut modes = Vec::with_capacity(band.frequencies.len());
    for &f in &band.frequencies {
        let (_, m) = mode_at(scene, source, f, "num_freqs")?;
        modes.push(m);
    }
    let [u, v] = cs.axes;
    let n_eff = mode.n_eff;
    // The modes' signs are the solver's: align each with the centre frequency's.
    let signs: Vec<f64> = modes
        .iter()
        .map(|m| {
            let dot: f64 = [u, v]
                .iter()
                .flat_map(|a| m.fields.e[a.index()].iter().zip(&mode.fields.e[a.index()]))
                .map(|(x, y)| x.re * y.re)
                .sum();
            if dot < 0.0 { -1.0 } else { 1.0 }
        })
        .collect();
    // The H layer's phase beyond the delay n_eff/2 of the centre frequency: β/2 − ωτ₀.
    let phases: Vec<f64> = modes
        .iter()
        .zip(&band.frequencies)
        .map(|(m, &f)| m.beta / 2.0 - std::f64::consts::PI * f * n_eff)
        .collect();
    let count = 2 * modes.len() + 1;
    let zero = || -> Vec<Tap> {
        (0..count)
            .map(|i| Tap {
                advance: (i as f64 - modes.len() as f64) * band.delay,
                fields: std::array::from_fn(|_| vec![Complex64::default(); cs.nodes()]),
            })
            .collect()
    };
    let (mut e, mut h) = (zero(), zero());
    let none = vec![0.0; modes.len()];
    for a in [u.index(), v.index()] {
        for n in 0..cs.nodes() {
            let along = |field: &dyn Fn(&WaveguideMode) -> f64| -> Vec<f64> {
                modes
                    .iter()
                    .zip(&signs)
                    .map(|(m, s)| s * field(m))
                    .collect()
            };
            let e_values = along(&|m| m.fields.e[a][n].re);
            let h_values = along(&|m| m.fields.h[a][n].re);
            let h_re: Vec<f64> = h_values
                .iter()
                .zip(&phases)
                .map(|(x, p)| x * p.cos())
                .collect();
            let h_im: Vec<f64> = h_values
                .iter()
                .zip(&phases)
                .map(|(x, p)| x * p.sin())
                .collect();
            for (tap, c) in e.iter_mut().zip(band.taps(&e_values, &none)) {
                tap.fields[a][n] = Complex64::new(c, 0.0);
            }
            for (tap, c) in h.iter_mut().zip(band.taps(&h_re, &h_im)) {
                tap.fields[a][n] = Complex64::new(c, 0.0);
            }
        }
    }
    let used = |taps: Vec<Tap>| -> Vec<Tap> {
        taps.into_iter()
            .filter(|t| t.fields.iter().flatten().any(|c| c.re != 0.0))
            .collect()
    };
    for tap in &mut h {
        tap.advance += n_eff / 2.0;
    }
    Ok(Injection {
        cs,
        n_eff,
        e: used(e),
        h: used(h),
    })
}

/// The band (normalised) across which a broadband mode source finds its mode: its Gaussian
/// waveform's, where the spectrum is above 1 % of its peak (`f₀ ± √(2 ln 100)/(2πw)`,
/// [`Waveform::max_frequency`]); `None` for another waveform, which has no such band.
pub fn band(source: &ModeSource) -> Option<(f64, f64)> {
    let Waveform::Gaussian { frequency, .. } = source.waveform else {
        return None;
    };
    let half = source.waveform.max_frequency() - frequency;
    Some((frequency - half, frequency + half))
}

/// The interpolation over a broadband source's [`band`]; an error naming `num_freqs` for
/// another waveform, too many frequencies or a band the count cannot interpolate.
fn source_band(scene: &Scene, source: &ModeSource) -> Result<BandInterpolation, AppError> {
    let fail = |why: String| {
        AppError::Run(format!(
            "{}: sources[{}].num_freqs: {}: {why}",
            scene.file.display(),
            source.index,
            source.num_freqs
        ))
    };
    if source.num_freqs > MAX_FREQUENCIES {
        return Err(fail(format!(
            "give 1 (the centre frequency alone) to {MAX_FREQUENCIES}"
        )));
    }
    let Some((low, high)) = band(source) else {
        return Err(fail(
            "a mode source recomputes its mode across the band of a gaussian waveform; \
             give num_freqs = 1 for a ricker or a sinusoid"
                .into(),
        ));
    };
    BandInterpolation::new(low, high, source.num_freqs).map_err(|e| {
        let f = |x: f64| scene.units.to_scene_frequency(x);
        fail(format!(
            "over the waveform's band {} … {} (its spectrum above 1 % of its peak): {e}",
            f(low),
            f(high)
        ))
    })
}

/// The soft point sources of `source`'s two sheets (module docs) for its `injection`: per
/// node, each tap of each sheet.
fn sheets(scene: &Scene, source: &ModeSource, injection: &Injection) -> Vec<PointSource> {
    let cs = &injection.cs;
    let [u, v] = cs.axes;
    let p = cs.normal;
    let a = source.amplitude;
    let sign = if source.forward { 1.0 } else { -1.0 };
    let h_plane = if source.forward {
        source.plane as i64 - 1
    } else {
        source.plane as i64
    };
    let wave = |tap: &Tap| {
        if tap.advance == 0.0 {
            source.waveform
        } else {
            advanced(source.waveform, tap.advance)
        }
    };
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
        // (axis, electric, the taps and the field they carry with its sign, plane)
        let (e, h) = (injection.e.as_slice(), injection.h.as_slice());
        let nodes = [
            (u, true, h, v, 1.0, source.plane as i64),
            (v, true, h, u, -1.0, source.plane as i64),
            (u, false, e, v, -sign, h_plane),
            (v, false, e, u, sign, h_plane),
        ];
        for (axis, electric, taps, carried, factor, along_p) in nodes {
            let component = Component::along(axis, electric);
            if !scene.mode.has(component) {
                continue;
            }
            for tap in taps {
                let value = factor * tap.fields[carried.index()][n].re;
                if value == 0.0 {
                    continue;
                }
                out.push(PointSource {
                    component,
                    cell: cell(along_p),
                    waveform: wave(tap),
                    amplitude: a * value,
                    kind: SourceKind::Soft,
                });
            }
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
        let injection = injection(scene, &source)?;
        let added = sheets(scene, &source, &injection);
        scene
            .source_origin
            .extend(std::iter::repeat_n(source.index, added.len()));
        scene.sources.extend(added);
        scene.mode_sources[s].n_eff = Some(injection.n_eff);
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
