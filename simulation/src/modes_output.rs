//! The outputs of a run's `[[modes]]` monitors: per monitor, mode and frequency the forward and
//! backward amplitudes of the plane's waveguide modes in the transforms of the run's fields
//! ([`yee_modes::overlap`]), the modes found by `yee-modes` on the plane's own cross-section
//! with the grid's dispersion at each frequency; written as `modes_<name>.csv` and plotted as
//! `modes_<name>.png` (docs/modes.md). The decomposition runs on the gathered transforms, so
//! it is the same bits for every decomposition of the run.

use std::fmt::Write as _;
use std::path::Path;

use num_complex::Complex64;
use serde::Serialize;
use yee_em::DftFields;
use yee_modes::{CrossSection, GridOf, ModeOptions, Parity, PlaneFields, WaveguideMode, guided};
use yee_scalar::decomposed::{RankOutput, assemble_dft};
use yee_scene::{ModeMonitor, Scene};

use crate::error::{AppError, io_error};
use crate::failures::Failures;

/// One `[[modes]]` monitor's entry in `run.json`.
#[derive(Debug, Serialize)]
pub struct ModesReport {
    /// Monitor name.
    pub name: String,
    /// `modes_<name>.csv`: per frequency and mode, the effective index, the amplitudes, their
    /// powers, and the net power through the plane.
    pub csv: String,
    /// `modes_<name>.png`: the forward and backward powers against frequency.
    pub png: String,
    /// Frequencies (scene units).
    pub frequencies: Vec<f64>,
    /// The mode numbers (from 0 by decreasing effective index; among the modes of `parity`).
    pub modes: Vec<usize>,
    /// The monitor's `parity` (`odd_y`, …), absent without one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parity: Option<String>,
    /// Per mode (in `modes`' order), per frequency: the power carried forward, `|A⁺|²`
    /// (normalised units, as the flux).
    pub forward_power: Vec<Vec<f64>>,
    /// Per mode, per frequency: the power carried backward, `|A⁻|²`.
    pub backward_power: Vec<Vec<f64>>,
    /// The net power through the plane (forward positive) by the amplitudes' sum over the
    /// plane's nodes, per frequency.
    pub power: Vec<f64>,
    /// The `[[sources]]` entry the S-parameters are taken against (absent without them:
    /// [`crate::s_parameters::normalising_source`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<usize>,
    /// Per mode, per frequency: `|S|²` of the forward wave, `|A⁺|²` over the power the source
    /// launches into its mode (absent without S-parameters).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub s_forward_power: Option<Vec<Vec<f64>>>,
    /// Per mode, per frequency: `|S|²` of the backward wave.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub s_backward_power: Option<Vec<Vec<f64>>>,
}

/// One mode's decomposition at one frequency, and its S-parameters (the amplitudes over the
/// launched one) when the run has them.
struct Row {
    n_eff: f64,
    forward: Complex64,
    backward: Complex64,
    s: Option<[Complex64; 2]>,
}

/// The scene key of monitor `index`'s mode numbers.
fn modes_key(index: usize) -> String {
    format!("modes[{index}].modes")
}

/// The guided modes of `monitor`'s plane at `frequency` (normalised), its highest mode number
/// and below, found with the grid's own dispersion (guided: an effective index above the
/// largest index on the plane's edges, [`CrossSection::edge_index_squared`]); an error naming
/// the monitor's keys when the plane guides fewer than its highest number asks for.
fn modes_of(
    scene: &Scene,
    index: usize,
    monitor: &ModeMonitor,
    frequency: f64,
) -> Result<(CrossSection, Vec<WaveguideMode>), AppError> {
    let setup = scene.setup();
    let dt = scene.dt();
    let plane = &monitor.plane;
    let k = plane.cells.lo[plane.axis.index()] as usize;
    let f_scene = scene.units.to_scene_frequency(frequency);
    let fail = |why: String| {
        AppError::Run(format!(
            "{}: modes[{index}] (`{}`): at frequency {f_scene}: {why}",
            scene.file.display(),
            monitor.name
        ))
    };
    let cs = CrossSection::of_setup(&setup, plane.axis, k, frequency, Some(dt))
        .map_err(|e| fail(e.to_string()))?;
    let highest = monitor.modes.iter().copied().max().unwrap_or(0);
    let parity = Parity {
        even: monitor.parity,
    };
    let options = ModeOptions {
        frequency,
        count: highest + 1,
        time_step: Some(dt),
        parity,
    };
    let modes = guided(&cs, &options).map_err(|e| {
        if Parity::caused(&e) {
            AppError::Run(format!(
                "{}: modes[{index}].parity: the plane {}={} at frequency {f_scene}: {e}",
                scene.file.display(),
                plane.axis.name(),
                scene.units.to_scene_length(k as f64),
            ))
        } else {
            fail(e.to_string())
        }
    })?;
    if modes.len() <= highest {
        return Err(AppError::Run(format!(
            "{}: {}: mode {highest}: the plane {}={} carries {} guided mode{}{} at frequency \
             {f_scene} (numbered from 0; a guided mode's index exceeds the plane's edges', \
             {:.6})",
            scene.file.display(),
            modes_key(index),
            plane.axis.name(),
            scene.units.to_scene_length(k as f64),
            modes.len(),
            if modes.len() == 1 { "" } else { "s" },
            parity.phrase(),
            cs.edge_index_squared().sqrt()
        )));
    }
    Ok((cs, modes))
}

/// Before a run: every monitor's plane carries its modes at its lowest frequency (where the
/// fewest are guided), so a long run does not end in an error.
pub fn check_mode_monitors(scene: &Scene) -> Result<(), AppError> {
    for (index, monitor) in scene.mode_monitors.iter().enumerate() {
        let m = &scene.monitors[monitor.monitor];
        let lowest = scene.frequencies[m.first..m.first + m.count]
            .iter()
            .copied()
            .fold(f64::INFINITY, f64::min);
        modes_of(scene, index, monitor, lowest)?;
    }
    Ok(())
}

/// The decomposition of `data` (monitor `index`'s transforms): per frequency, per mode, and
/// the net power through the plane per frequency; with `incident` (the launched amplitude
/// per frequency) the S-parameters.
fn decompose(
    scene: &Scene,
    index: usize,
    monitor: &ModeMonitor,
    data: &DftFields,
    grid: GridOf,
    incident: Option<&[Complex64]>,
) -> Result<(Vec<Vec<Row>>, Vec<f64>), AppError> {
    let mut rows = Vec::with_capacity(data.frequencies.len());
    let mut power = Vec::with_capacity(data.frequencies.len());
    for (f, &frequency) in data.frequencies.iter().enumerate() {
        let launched = incident.map(|a| a[f]);
        let (cs, modes) = modes_of(scene, index, monitor, frequency)?;
        let fields = PlaneFields::of(&cs, data, f, grid);
        power.push(fields.power());
        rows.push(
            monitor
                .modes
                .iter()
                .map(|&n| {
                    let a = fields.amplitudes(&modes[n], &cs);
                    Row {
                        n_eff: modes[n].n_eff,
                        forward: a.forward,
                        backward: a.backward,
                        s: launched.map(|l| [a.forward / l, a.backward / l]),
                    }
                })
                .collect(),
        );
    }
    Ok((rows, power))
}

/// `modes_<name>.csv`.
fn csv_text(frequencies: &[f64], modes: &[usize], rows: &[Vec<Row>], power: &[f64]) -> String {
    let with_s = rows.iter().flatten().any(|r| r.s.is_some());
    let mut text = String::from(
        "frequency,mode,n_eff,forward_re,forward_im,backward_re,backward_im,forward_power,\
         backward_power,power",
    );
    text.push_str(if with_s {
        ",s_forward_re,s_forward_im,s_backward_re,s_backward_im\n"
    } else {
        "\n"
    });
    for ((f, per_mode), phi) in frequencies.iter().zip(rows).zip(power) {
        for (n, r) in modes.iter().zip(per_mode) {
            let _ = write!(
                text,
                "{f:e},{n},{:.12},{:e},{:e},{:e},{:e},{:e},{:e},{phi:e}",
                r.n_eff,
                r.forward.re,
                r.forward.im,
                r.backward.re,
                r.backward.im,
                r.forward.norm_sqr(),
                r.backward.norm_sqr()
            );
            if let Some([fw, bw]) = r.s {
                let _ = write!(text, ",{:e},{:e},{:e},{:e}", fw.re, fw.im, bw.re, bw.im);
            }
            text.push('\n');
        }
    }
    text
}

/// The launched amplitudes at `frequencies` (normalised) of a run of `steps` when its
/// S-parameters are written ([`crate::s_parameters`]), kept in `known` per set of frequencies
/// so that monitors sharing a band solve the source's plane once.
fn incident_for(
    scene: &Scene,
    frequencies: &[f64],
    steps: u64,
    known: &mut Vec<(Vec<f64>, Option<Vec<Complex64>>)>,
) -> Result<Option<Vec<Complex64>>, AppError> {
    let Some(source) = crate::s_parameters::normalising_source(scene) else {
        return Ok(None);
    };
    if let Some((_, a)) = known.iter().find(|(f, _)| f == frequencies) {
        return Ok(a.clone());
    }
    let a = crate::s_parameters::incident_amplitudes(scene, source, frequencies, steps)?;
    known.push((frequencies.to_vec(), a.clone()));
    Ok(a)
}

/// Writes the outputs of every `[[modes]]` monitor of `scene` (a run of `steps`) into `out`,
/// returning their reports and the files written. A monitor that cannot be decomposed or
/// written is kept in `failures`, and the others are still written.
pub fn write_mode_monitors<T: yee_core::Scalar>(
    scene: &Scene,
    results: &[RankOutput<T>],
    steps: u64,
    out: &Path,
    failures: &mut Failures,
) -> (Vec<ModesReport>, Vec<String>) {
    let setup = scene.setup();
    let grid = GridOf {
        grid: setup.grid,
        periodic: yee_core::Axis::ALL.map(|a| setup.is_periodic(a)),
        dt: setup.dt(),
    };
    let mut reports = Vec::new();
    let mut files = Vec::new();
    let mut known = Vec::new();
    for (index, monitor) in scene.mode_monitors.iter().enumerate() {
        let data = assemble_dft(&setup, monitor.monitor, results.iter().flat_map(|o| &o.dft));
        let Some(incident) =
            failures.keep(incident_for(scene, &data.frequencies, steps, &mut known))
        else {
            continue;
        };
        let decomposed = decompose(scene, index, monitor, &data, grid, incident.as_deref());
        let Some((rows, power)) = failures.keep(decomposed) else {
            continue;
        };
        let frequencies: Vec<f64> = (data.frequencies.iter())
            .map(|&f| scene.units.to_scene_frequency(f))
            .collect();
        let name = &monitor.name;
        let csv = format!("modes_{name}.csv");
        let path = out.join(&csv);
        let text = csv_text(&frequencies, &monitor.modes, &rows, &power);
        if failures
            .keep(yee_io::atomic::write(&path, text).map_err(|e| io_error(&path, e)))
            .is_some()
        {
            files.push(csv.clone());
        }
        let powers = |pick: fn(&Row) -> Option<Complex64>| -> Option<Vec<Vec<f64>>> {
            (0..monitor.modes.len())
                .map(|m| {
                    rows.iter()
                        .map(|r| pick(&r[m]).map(|a| a.norm_sqr()))
                        .collect()
                })
                .collect()
        };
        let forward_power = powers(|r| Some(r.forward)).unwrap_or_default();
        let backward_power = powers(|r| Some(r.backward)).unwrap_or_default();
        let s_forward_power = powers(|r| r.s.map(|s| s[0]));
        let s_backward_power = powers(|r| r.s.map(|s| s[1]));
        let png = format!("modes_{name}.png");
        let path = out.join(&png);
        let labels: Vec<(String, String)> = (monitor.modes.iter())
            .map(|n| (format!("mode {n} forward"), format!("mode {n} backward")))
            .collect();
        let mut curves: Vec<(&str, &[f64])> = vec![("net power", &power)];
        for (m, (fw, bw)) in labels.iter().enumerate() {
            curves.push((fw, &forward_power[m]));
            curves.push((bw, &backward_power[m]));
        }
        let title = format!("{}: mode powers through {name}", scene.name);
        let (x_label, xs) = crate::plot_axes::frequency_axis(&scene.units, &frequencies);
        let plot = yee_io::plot::LinePlot {
            title: &title,
            x_label: &x_label,
            y_label: "power",
            xs: &xs,
            curves: &curves,
            log_y: false,
        };
        if failures
            .keep(yee_io::plot::write_line_plot(&path, &plot).map_err(|e| io_error(&path, e)))
            .is_some()
        {
            files.push(png.clone());
        }
        reports.push(ModesReport {
            name: name.clone(),
            csv,
            png,
            frequencies,
            modes: monitor.modes.clone(),
            parity: {
                let parity = Parity {
                    even: monitor.parity,
                };
                parity.is_some().then(|| parity.to_string())
            },
            forward_power,
            backward_power,
            power,
            source: incident
                .and(crate::s_parameters::normalising_source(scene))
                .map(|s| s.index),
            s_forward_power,
            s_backward_power,
        });
    }
    (reports, files)
}
