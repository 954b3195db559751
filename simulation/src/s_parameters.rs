//! S-parameters of a run driven by one mode source: each `[[modes]]` amplitude over the
//! amplitude the source launches into its mode at the same frequency, on its own plane
//! ([`yee_modes::launch`]), both in units whose square is power — so `|S|²` is the share of
//! the launched power a mode carries through a monitor's plane (docs/modes.md).

use num_complex::Complex64;
use yee_em::{Component, DftMonitor};
use yee_modes::{CrossSection, IncidentSheets, ModeOptions, Parity, guided, launched_amplitude};
use yee_scene::{ModeSource, Scene};

use crate::error::AppError;
use crate::mode_sources::{advanced, launched_mode};

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

/// The transforms at `frequencies` of the incident E and H `source` gives its sheets over the
/// run's `steps`, per unit of its mode's fields: its amplitude times the waveform's transform
/// at E's times, and at H's times of the waveform advanced by the half-cell delay `n_eff/2`
/// (the sums the monitors take, [`DftMonitor::weights`]).
fn sheet_transforms(
    source: &ModeSource,
    n_eff: f64,
    frequencies: &[f64],
    steps: u64,
    dt: f64,
) -> Vec<[Complex64; 2]> {
    let h_wave = advanced(source.waveform, n_eff / 2.0);
    let mut sums = vec![[Complex64::default(); 2]; frequencies.len()];
    let mut weights = vec![[0.0f64; 2]; frequencies.len()];
    for step in 0..steps {
        for (k, c) in [Component::Ex, Component::Hx].into_iter().enumerate() {
            let t = DftMonitor::time(c, step, dt);
            let v = if k == 0 {
                source.waveform.value(t)
            } else {
                h_wave.value(t)
            };
            DftMonitor::weights(frequencies, t, dt, &mut weights);
            for (s, w) in sums.iter_mut().zip(&weights) {
                s[k] += Complex64::new(v * w[0], v * w[1]);
            }
        }
    }
    for s in &mut sums {
        s[0] *= source.amplitude;
        s[1] *= source.amplitude;
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
    let (_, launched) = launched_mode(scene, source)?;
    let dt = scene.dt();
    let setup = scene.setup();
    let transforms = sheet_transforms(source, launched.n_eff, frequencies, steps, dt);
    let mut out = Vec::with_capacity(frequencies.len());
    for (&frequency, &[e, h]) in frequencies.iter().zip(&transforms) {
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
        let incident = IncidentSheets {
            launched: &launched,
            e,
            h,
        };
        out.push(launched_amplitude(&incident, mode, &cs, frequency, dt));
    }
    Ok(Some(out))
}
