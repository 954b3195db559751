//! Probes after a run: each series as `probe_<name>.csv`, a plot of it beside its spectrum,
//! and in `fields.h5`.

use std::path::Path;

use yee_core::{Real, Scalar};
use yee_em::Component;
use yee_io::csv;
use yee_io::plot::LinePlot;
use yee_scalar::decomposed::{RankOutput, probe_series};
use yee_scene::Scene;

use crate::error::{AppError, io_error};
use crate::failures::Failures;
use crate::files::write_file;
use crate::hdf5_output::Hdf5Output;
use crate::report::ProbeReport;
use crate::values::{Erase, Values};
use crate::{plot_axes, probe_spectrum};

/// One probe's series, as a run hands it back.
#[derive(Clone, Debug)]
pub struct ProbeSeries {
    /// The probe's name.
    pub name: String,
    /// The component it samples.
    pub component: Component,
    /// Each sample's time in scene units (E at step·Δt, H half a step earlier).
    pub times: Vec<f64>,
    /// The samples, one per step from the first.
    pub values: Values,
}

/// The time of probe sample `step` of `component` in scene units: E is sampled at step·Δt,
/// H half a step earlier.
pub fn sample_time(scene: &Scene, component: Component, step: u64) -> f64 {
    let offset = if component.is_electric() { 0.0 } else { 0.5 };
    scene
        .units
        .to_scene_time((step as f64 - offset) * scene.dt())
}

/// Writes every probe's CSV and plot (and its `fields.h5` series) into `out`, adding the files
/// written to `outputs` and what failed to `failed`; returns the reports and the series.
pub fn write_probes<T: Scalar + Erase>(
    scene: &Scene,
    results: &[RankOutput<T>],
    out: &Path,
    hdf5: Option<&Hdf5Output>,
    outputs: &mut Vec<String>,
    failed: &mut Failures,
) -> (Vec<ProbeReport>, Vec<ProbeSeries>) {
    let mut reports = Vec::new();
    let mut all = Vec::new();
    for (i, (probe, name)) in scene.probes.iter().zip(&scene.probe_names).enumerate() {
        let file = format!("probe_{name}.csv");
        let path = out.join(&file);
        let time_of = |step: u64| sample_time(scene, probe.component, step);
        let series = probe_series(results, i).expect("every probe lies in some rank's box");
        let csv = write_file(&path, |w| csv::write_probe(w, &series, time_of));
        if failed.keep(csv).is_some() {
            outputs.push(file.clone());
        }
        if let Some(h) = hdf5 {
            failed.keep(h.write_probe(scene, name, probe.component, &series));
        }
        let plot_file = format!("probe_{name}.png");
        let plot = write_probe_plot(
            scene,
            name,
            probe.component,
            &series,
            time_of,
            &out.join(&plot_file),
        );
        if failed.keep(plot).is_some() {
            outputs.push(plot_file);
        }
        reports.push(ProbeReport {
            name: name.clone(),
            component: probe.component.name().into(),
            cell: probe.cell,
            file,
        });
        all.push(ProbeSeries {
            name: name.clone(),
            component: probe.component,
            times: (1..=series.len() as u64).map(time_of).collect(),
            values: T::erase(series),
        });
    }
    (reports, all)
}

/// `probe_<name>.png`: two panels, the probe's series against time (real and imaginary parts
/// if complex) and beside it its spectrum ([`crate::probe_spectrum`]) on a logarithmic axis,
/// both in the scene's units ([`crate::plot_axes`]).
fn write_probe_plot<T: Scalar>(
    scene: &Scene,
    name: &str,
    component: Component,
    series: &[T],
    time_of: impl Fn(u64) -> f64,
    path: &Path,
) -> Result<(), AppError> {
    let times: Vec<f64> = (1..=series.len() as u64).map(time_of).collect();
    let (x_label, xs) = plot_axes::time_axis(&scene.units, &times);
    let re: Vec<f64> = series.iter().map(|v| v.re().to_f64()).collect();
    let im: Vec<f64> = series.iter().map(|v| v.im().to_f64()).collect();
    let c = component.name();
    let complex = T::NAME.starts_with('c');
    let curves: Vec<(&str, &[f64])> = match complex {
        true => vec![("re", &re), ("im", &im)],
        false => vec![(c, &re)],
    };
    let frequencies: Vec<f64> = probe_spectrum::frequencies(probe_spectrum::top_frequency(scene))
        .into_iter()
        .map(|f| scene.units.to_scene_frequency(f))
        .collect();
    let dt = scene.units.to_scene_time(scene.dt());
    let magnitude = probe_spectrum::magnitudes(&re, &im, dt, &frequencies);
    let (f_label, fs) = plot_axes::frequency_axis(&scene.units, &frequencies);
    let title = format!("{}: probe {name} ({c})", scene.name);
    let y_spectrum = format!("|{c}(f)|");
    let spectrum_title = match complex {
        true => format!("spectrum of {c} (re + i im)"),
        false => format!("spectrum of {c}"),
    };
    let panels = [
        LinePlot {
            title: &title,
            x_label: &x_label,
            y_label: c,
            xs: &xs,
            curves: &curves,
            log_y: false,
        },
        LinePlot {
            title: &spectrum_title,
            x_label: &f_label,
            y_label: &y_spectrum,
            xs: &fs,
            curves: &[(c, &magnitude)],
            log_y: true,
        },
    ];
    yee_io::plot::write_line_plots(path, &panels).map_err(|e| io_error(path, e))
}
