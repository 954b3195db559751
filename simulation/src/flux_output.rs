//! The flux outputs of a run: for each `[[flux]]` region the spectrum as CSV and PNG, and its
//! DFT fields as `.npy` so a later run can subtract them (`minus`, Meep's
//! `load_minus_flux_data`).

use std::path::Path;

use num_complex::Complex64;
use serde::Serialize;
use yee_em::DftFields;
use yee_em::flux::flux_spectrum;
use yee_scalar::decomposed::{RankOutput, assemble_dft};
use yee_scene::{Flux, Scene};

use crate::error::{AppError, io_error};
use crate::failures::Failures;

/// One flux region's entry in `run.json`.
#[derive(Debug, Serialize)]
pub struct FluxReport {
    /// Region name.
    pub name: String,
    /// `flux_<name>.csv`: frequency, flux.
    pub csv: String,
    /// `flux_<name>.png`: the spectrum.
    pub png: String,
    /// `flux_<name>_dft.npy`: the DFT fields, complex128 of shape (nodes, frequencies, 6).
    pub dft: String,
    /// The file subtracted, if any.
    pub minus: Option<String>,
    /// Frequencies (scene units).
    pub frequencies: Vec<f64>,
    /// Flux ½ Re ∮ E × H* · n̂ dA of the transforms (normalised units).
    pub flux: Vec<f64>,
    /// With a plane wave in the scene: the flux over the incident intensity, an area (cells²
    /// in normalised scenes, m² in SI ones): around an object in the scattered-field region,
    /// its scattering cross-section; around it inside the total-field box, minus its
    /// absorption cross-section.
    pub cross_section: Option<Vec<f64>>,
    /// The far field of a closed box, when asked for.
    pub far_field: Option<crate::far_field_output::FarFieldReport>,
}

/// The values of one face's transforms in the `.npy` layout: per node, per frequency, the six
/// components (zero where not transformed), without a copy of them.
fn node_values(d: &DftFields) -> impl Iterator<Item = Complex64> + '_ {
    let count = d.region.cells() * d.frequencies.len();
    (0..count).flat_map(move |k| {
        d.values
            .iter()
            .map(move |v| v.as_ref().map_or(Complex64::new(0.0, 0.0), |v| v[k]))
    })
}

/// The values of the `minus` file `path` (the scene's key `key`) of a flux region whose
/// faces have `nodes` nodes in all and `frequencies` frequencies, or an error naming the scene,
/// the key, the file and what does not fit. The file is checked before its values are read: a
/// regular file (a FIFO or device is never opened) whose `.npy` header names this region's
/// shape, and exactly as large as that header says.
fn minus_values(
    scene: &Scene,
    key: &str,
    path: &Path,
    nodes: usize,
    frequencies: usize,
) -> Result<Vec<Complex64>, AppError> {
    let bad = |why: String| {
        AppError::Run(format!(
            "{}: {key}: {}: {why}",
            scene.file.display(),
            path.display()
        ))
    };
    let head = yee_scene::input::read_head(path, yee_io::npy::MAX_HEADER_BYTES as u64)
        .map_err(|e| bad(format!("{e} (run the normalisation scene first)")))?;
    let header = yee_io::npy::read_header(&head).map_err(bad)?;
    let expected = [nodes, frequencies, 6];
    if header.shape != expected {
        return Err(bad(format!(
            "holds shape {:?}, but this flux region needs ({nodes}, {frequencies}, 6): the \
             minus run must have the same region, grid and frequencies",
            header.shape
        )));
    }
    let item = std::mem::size_of::<Complex64>();
    let size = header
        .file_bytes(item)
        .ok_or_else(|| bad(format!("the shape {expected:?} is too large for any file")))?;
    let actual = yee_scene::input::regular_file(path).map_err(bad)?;
    if actual != size {
        let why = match actual < size {
            true => "it is cut short",
            false => "it holds more than its values",
        };
        return Err(bad(format!(
            "is {actual} bytes, but its header (shape {expected:?} of complex128) makes it \
             {size}: {why}"
        )));
    }
    let bytes = yee_scene::input::read_bounded(path, size, "its header makes it").map_err(bad)?;
    let (_, values) = yee_io::npy::read_array::<Complex64>(&bytes).map_err(bad)?;
    if let Some(n) = values
        .iter()
        .position(|v| !(v.re.is_finite() && v.im.is_finite()))
    {
        let (node, k, c) = (n / (6 * frequencies), (n / 6) % frequencies, n % 6);
        return Err(bad(format!(
            "holds {} at node {node}, frequency {k}, component {c}: the run that wrote it did \
             not end well (rerun the normalisation scene)",
            values[n]
        )));
    }
    Ok(values)
}

/// The scene key of flux region `index`'s `minus` file.
fn minus_key(index: usize) -> String {
    format!("flux[{index}].minus")
}

/// Before a run: every flux region's `minus` file exists and fits, so a long run does not end
/// in an error.
pub fn check_minus_files(scene: &Scene) -> Result<(), AppError> {
    for (i, f) in scene.fluxes.iter().enumerate() {
        if let Some(path) = &f.minus {
            let monitors = &scene.monitors[f.first_monitor..f.first_monitor + f.planes.len()];
            let nodes = monitors.iter().map(|m| m.region.cells()).sum();
            minus_values(scene, &minus_key(i), path, nodes, monitors[0].count)?;
        }
    }
    Ok(())
}

/// Reads the transforms an earlier run wrote for `flux`'s faces (same nodes and frequencies).
fn read_minus(
    scene: &Scene,
    key: &str,
    path: &Path,
    faces: &[DftFields],
) -> Result<Vec<DftFields>, AppError> {
    let f = faces[0].frequencies.len();
    let nodes: usize = faces.iter().map(|d| d.region.cells()).sum();
    let values = minus_values(scene, key, path, nodes, f)?;
    let mut at = 0;
    Ok(faces
        .iter()
        .map(|d| {
            let n = d.region.cells() * f;
            let values = std::array::from_fn(|c| {
                d.values[c]
                    .as_ref()
                    .map(|_| (0..n).map(|k| values[(at + k) * 6 + c]).collect())
            });
            at += n;
            DftFields {
                region: d.region,
                frequencies: d.frequencies.clone(),
                values,
            }
        })
        .collect())
}

/// Writes the outputs of every flux region of `scene` into `out`, returning their reports and
/// the files written. A file that cannot be written (or a `minus` file that cannot be read) is
/// kept in `failures`, and the others are still written.
pub fn write_fluxes<T: yee_core::Scalar>(
    scene: &Scene,
    results: &[RankOutput<T>],
    steps: u64,
    out: &Path,
    failures: &mut Failures,
) -> (Vec<FluxReport>, Vec<String>) {
    let setup = scene.setup();
    let periodic = yee_core::Axis::ALL.map(|a| setup.is_periodic(a));
    let mut reports = Vec::new();
    let mut files = Vec::new();
    for (index, flux) in scene.fluxes.iter().enumerate() {
        let Flux {
            name,
            planes,
            first_monitor,
            minus,
            far_field,
            plot_frequencies,
        } = flux;
        let faces: Vec<DftFields> = (0..planes.len())
            .map(|k| {
                assemble_dft(
                    &setup,
                    first_monitor + k,
                    results.iter().flat_map(|o| &o.dft),
                )
            })
            .collect();
        let key = minus_key(index);
        let subtracted = minus.as_deref().map(|m| read_minus(scene, &key, m, &faces));
        let Some(subtracted) = failures.keep(subtracted.transpose()) else {
            continue;
        };
        let frequencies = faces[0].frequencies.clone();
        let mut total = vec![0.0; frequencies.len()];
        for (k, (plane, face)) in planes.iter().zip(&faces).enumerate() {
            let minus = subtracted.as_ref().map(|s| &s[k]);
            let spectrum = flux_spectrum(
                plane,
                face,
                minus,
                setup.mode,
                setup.grid,
                periodic,
                setup.dt(),
            );
            total.iter_mut().zip(&spectrum).for_each(|(t, s)| *t += s);
        }
        let scene_frequencies: Vec<f64> = frequencies
            .iter()
            .map(|&f| scene.units.to_scene_frequency(f))
            .collect();
        // The flux over the incident intensity is in cells^(dims − 1): an area in 3D, a
        // width in 2D, a plain ratio (T or R) in 1D.
        let area = scene.units.cell().powi(scene.mode.dims() as i32 - 1);
        let cross_section: Option<Vec<f64>> =
            crate::far_field_output::incident_intensity(scene, &frequencies, steps)
                .map(|s| total.iter().zip(&s).map(|(p, i)| p / i * area).collect());
        let csv = format!("flux_{name}.csv");
        let path = out.join(&csv);
        let mut text = String::from(match cross_section {
            Some(_) => "frequency,flux,cross_section\n",
            None => "frequency,flux\n",
        });
        for (k, (f, v)) in scene_frequencies.iter().zip(&total).enumerate() {
            match &cross_section {
                Some(c) => text.push_str(&format!("{f:e},{v:e},{:e}\n", c[k])),
                None => text.push_str(&format!("{f:e},{v:e}\n")),
            }
        }
        if failures
            .keep(yee_io::atomic::write(&path, text).map_err(|e| io_error(&path, e)))
            .is_some()
        {
            files.push(csv.clone());
        }
        let dft = format!("flux_{name}_dft.npy");
        let path = out.join(&dft);
        let nodes: usize = faces.iter().map(|d| d.region.cells()).sum();
        let written = yee_io::atomic::write_with(&path, |w| {
            yee_io::npy::write_header::<Complex64>(w, &[nodes, frequencies.len(), 6])?;
            yee_io::npy::write_values(w, faces.iter().flat_map(node_values))
        })
        .map_err(|e| io_error(&path, e));
        let dft_written = failures.keep(written).is_some();
        let png = format!("flux_{name}.png");
        let path = out.join(&png);
        let title = format!("{}: flux through {name}", scene.name);
        let (x_label, xs) = crate::plot_axes::frequency_axis(&scene.units, &scene_frequencies);
        let plot = yee_io::plot::LinePlot {
            title: &title,
            x_label: &x_label,
            y_label: "flux",
            xs: &xs,
            curves: &[("flux", &total)],
            log_y: false,
        };
        if failures
            .keep(yee_io::plot::write_line_plot(&path, &plot).map_err(|e| io_error(&path, e)))
            .is_some()
        {
            files.push(png.clone());
        }
        if dft_written {
            files.push(dft.clone());
        }
        let far_field = far_field.map(|n| {
            let (report, written) = crate::far_field_output::write_far_field(
                scene,
                name,
                planes,
                &faces,
                n,
                plot_frequencies,
                steps,
                out,
                failures,
            );
            files.extend(written);
            report
        });
        reports.push(FluxReport {
            name: name.clone(),
            csv,
            png,
            dft,
            minus: minus.as_ref().map(|m| m.display().to_string()),
            frequencies: scene_frequencies,
            flux: total,
            cross_section,
            far_field,
        });
    }
    (reports, files)
}

/// A spectrum with infinite or NaN values (DFT sums that overflowed, a `minus` file holding
/// NaN) is an error naming the flux, how many frequencies and the first: the run's status
/// says `failed` instead of `complete`.
pub fn check_finite(report: &FluxReport) -> Result<(), AppError> {
    let columns = [
        ("flux", Some(&report.flux)),
        ("cross_section", report.cross_section.as_ref()),
        (
            "radiated power",
            report.far_field.as_ref().map(|f| &f.radiated_power),
        ),
    ];
    for (what, values) in columns {
        let Some(values) = values else { continue };
        let bad: Vec<usize> = (0..values.len())
            .filter(|&k| !values[k].is_finite())
            .collect();
        if let Some(&first) = bad.first() {
            return Err(AppError::Run(format!(
                "flux `{}`: its {what} is not finite at {} of its {} frequencies (first: {} at \
                 f = {:e}): the DFT sums overflowed (fields beyond the range of the values) or \
                 the subtracted `minus` file holds NaN or inf",
                report.name,
                bad.len(),
                values.len(),
                values[first],
                report.frequencies.get(first).copied().unwrap_or(f64::NAN)
            )));
        }
    }
    let far = report.far_field.as_ref();
    if let Some(where_) = far.and_then(|f| f.not_finite.as_ref()) {
        return Err(AppError::Run(format!(
            "flux `{}`: its far field is not finite {where_}: the DFT sums overflowed (fields \
             beyond the range of the values)",
            report.name
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(flux: f64, far_field: Option<&str>) -> FluxReport {
        FluxReport {
            name: "box".into(),
            csv: String::new(),
            png: String::new(),
            dft: String::new(),
            minus: None,
            frequencies: vec![0.1],
            flux: vec![flux],
            cross_section: None,
            far_field: far_field.map(|w| crate::far_field_output::FarFieldReport {
                csv: String::new(),
                png: String::new(),
                plot_frequencies: vec![1.0],
                radiated_power: vec![1.0],
                not_finite: Some(w.into()),
            }),
        }
    }

    #[test]
    fn a_far_field_that_is_not_finite_fails_naming_the_flux_and_where() {
        assert!(check_finite(&report(1.0, None)).is_ok());
        let e = check_finite(&report(1.0, Some("at 2 of its 8 directions"))).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("flux `box`: its far field is not finite at 2 of its 8 directions"),
            "{e}"
        );
        // The spectrum's own error comes first.
        let e = check_finite(&report(f64::NAN, Some("at 2"))).unwrap_err();
        assert!(e.to_string().contains("its flux is not finite"), "{e}");
    }
}
