//! S-parameters of a run driven by one mode source: each `[[modes]]` amplitude over the
//! amplitude the source launches into its mode at the same frequency, on its own plane
//! ([`yee_modes::launch`]), both in units whose square is power — so `|S|²` is the share of
//! the launched power a mode carries through a monitor's plane (docs/modes.md).

use num_complex::Complex64;
use yee_em::{Component, DftMonitor};
use yee_modes::{
    CrossSection, IncidentSheets, ModeOptions, Parity, SheetTerm, guided, launched_amplitude,
};
use yee_scene::{ModeSource, Scene};

use crate::error::AppError;
use crate::mode_sources::{Tap, advanced, injection};

/// The mode source a run's S-parameters are taken against: the scene's only source when it
/// is of `kind = "mode"` (with any other source, or a plane wave, the amplitudes are not the
/// response to it alone, and none is written).
pub fn normalising_source(scene: &Scene) -> Option<&ModeSource> {
    let [source] = scene.mode_sources.as_slice() else {
        return None;
    };
    let alone = scene.plane_waves.is_empty()
        && scene.source_origin.iter().all(|&i| i == source.index)
        && source.n_eff.is_some();
    alone.then_some(source)
}

/// The transforms at `frequencies` of what drives each of `taps` (one sheet's) over the run's
/// `steps`: the source's amplitude times the transform of its waveform advanced by the tap's
/// advance, at the times of the field the sheet stands for (`component`'s: E's for the
/// incident E, H's for the incident H; the sums the monitors take, [`DftMonitor::weights`]).
/// Indexed `[frequency][tap]`.
fn sheet_transforms(
    source: &ModeSource,
    taps: &[Tap],
    component: Component,
    frequencies: &[f64],
    steps: u64,
    dt: f64,
) -> Vec<Vec<Complex64>> {
    let waves: Vec<_> = taps
        .iter()
        .map(|t| {
            if t.advance == 0.0 {
                source.waveform
            } else {
                advanced(source.waveform, t.advance)
            }
        })
        .collect();
    let mut sums = vec![vec![Complex64::default(); taps.len()]; frequencies.len()];
    let mut weights = vec![[0.0f64; 2]; frequencies.len()];
    for step in 0..steps {
        let t = DftMonitor::time(component, step, dt);
        DftMonitor::weights(frequencies, t, dt, &mut weights);
        for (k, wave) in waves.iter().enumerate() {
            let v = wave.value(t);
            for (s, w) in sums.iter_mut().zip(&weights) {
                s[k] += Complex64::new(v * w[0], v * w[1]);
            }
        }
    }
    for s in sums.iter_mut().flatten() {
        *s *= source.amplitude;
    }
    sums
}

/// The amplitude `source` launches into its mode at each of `frequencies` (normalised) over
/// a run of `steps`, in the mode monitors' units; `None` when its plane does not guide its
/// mode number at one of them (a warning says where).
pub fn incident_amplitudes(
    scene: &Scene,
    source: &ModeSource,
    frequencies: &[f64],
    steps: u64,
) -> Result<Option<Vec<Complex64>>, AppError> {
    let injection = injection(scene, source)?;
    let dt = scene.dt();
    let setup = scene.setup();
    let e_transforms =
        sheet_transforms(source, &injection.e, Component::Ex, frequencies, steps, dt);
    let h_transforms =
        sheet_transforms(source, &injection.h, Component::Hx, frequencies, steps, dt);
    let mut out = Vec::with_capacity(frequencies.len());
    for ((&frequency, e), h) in frequencies.iter().zip(&e_transforms).zip(&h_transforms) {
        let fail = |why: String| {
            AppError::Run(format!(
                "{}: sources[{}]: at frequency {}: {why}",
                scene.file.display(),
                source.index,
                scene.units.to_scene_frequency(frequency)
            ))
        };
        let cs = CrossSection::of_setup(&setup, source.axis, source.plane, frequency, Some(dt))
            .map_err(|e| fail(e.to_string()))?;
        let options = ModeOptions {
            frequency,
            count: source.mode + 1,
            time_step: Some(dt),
            parity: Parity {
                even: source.parity,
            },
        };
        let modes = guided(&cs, &options).map_err(|e| fail(e.to_string()))?;
        let Some(mode) = modes.get(source.mode) else {
            log::warn!(
                "{}: no S-parameters: the plane of sources[{}] does not guide its mode {} at \
                 frequency {}",
                scene.file.display(),
                source.index,
                source.mode,
                scene.units.to_scene_frequency(frequency)
            );
            return Ok(None);
        };
        fn terms<'a>(taps: &'a [Tap], transforms: &[Complex64]) -> Vec<SheetTerm<'a>> {
            taps.iter()
                .zip(transforms)
                .map(|(t, &transform)| SheetTerm {
                    fields: &t.fields,
                    transform,
                })
                .collect()
        }
        let (e_terms, h_terms) = (terms(&injection.e, e), terms(&injection.h, h));
        let incident = IncidentSheets {
            e: &e_terms,
            h: &h_terms,
        };
        out.push(launched_amplitude(&incident, mode, &cs, frequency, dt));
    }
    Ok(Some(out))
}
