//! The `[[dft]]` outputs of a run: the running Fourier transforms of chosen components over a
//! box, written whole as `dft_<name>.npy` (Meep's `get_dft_array`, gprMax has none): complex128
//! of shape `(frequencies, components, nz, ny, nx)` (the box's axes in use, C order).

use std::path::Path;

use num_complex::Complex64;
use serde::Serialize;
use yee_core::Box3;
use yee_scalar::decomposed::{RankOutput, assemble_dft};
use yee_scene::Scene;

use crate::error::{AppError, io_error};
use crate::failures::Failures;

/// One `[[dft]]` output's entry in `run.json`.
#[derive(Debug, Serialize)]
pub struct DftReport {
    /// Output name.
    pub name: String,
    /// `dft_<name>.npy`.
    pub file: String,
    /// The components, in the array's order.
    pub components: Vec<String>,
    /// Frequencies (scene units), in the array's order.
    pub frequencies: Vec<f64>,
    /// The box's low and high corner in cells.
    pub lo: [i64; 3],
    /// High corner.
    pub hi: [i64; 3],
}

/// Writes every `[[dft]]` output of `scene` into `out`, returning the reports and the files
/// written; a file that cannot be written is kept in `failures` and has no report.
pub fn write_dfts<T: yee_core::Scalar>(
    scene: &Scene,
    results: &[RankOutput<T>],
    out: &Path,
    failures: &mut Failures,
) -> (Vec<DftReport>, Vec<String>) {
    let setup = scene.setup();
    let dims = setup.mode.dims();
    let mut reports = Vec::new();
    let mut files = Vec::new();
    for d in &scene.dfts {
        let fields = assemble_dft(&setup, d.monitor, results.iter().flat_map(|o| &o.dft));
        let components: Vec<yee_em::Component> =
            setup.monitors[d.monitor].component_list().collect();
        let nodes = fields.region.cells();
        let f = fields.frequencies.len();
        let sums: Vec<&[Complex64]> = components
            .iter()
            .map(|c| {
                fields.values[c.index()]
                    .as_deref()
                    .expect("the monitor transforms its components")
            })
            .collect();
        // C order (frequency, component, node): streamed, without a copy of the sums.
        let values = || {
            (0..f).flat_map(|k| {
                sums.iter()
                    .flat_map(move |s| (0..nodes).map(move |node| s[node * f + k]))
            })
        };
        let mut shape = vec![f, components.len()];
        shape.extend(yee_io::npy::shape(fields.region.extent(), dims));
        let file = format!("dft_{}.npy", d.name);
        let path = out.join(&file);
        let written = yee_io::atomic::write_with(&path, |w| {
            yee_io::npy::write_header::<Complex64>(w, &shape)?;
            yee_io::npy::write_values(w, values())
        })
        .map_err(|e| io_error(&path, e));
        let written = failures.keep(written).is_some();
        let report = DftReport {
            name: d.name.clone(),
            file,
            components: components.iter().map(|c| c.name().to_string()).collect(),
            frequencies: fields
                .frequencies
                .iter()
                .map(|&x| scene.units.to_scene_frequency(x))
                .collect(),
            lo: fields.region.lo,
            hi: fields.region.hi,
        };
        // Written all the same (as a flux's CSV is), but the run does not end `complete`.
        failures.keep(check_finite(&report, values()));
        if written {
            files.push(report.file.clone());
            reports.push(report);
        }
    }
    (reports, files)
}

/// A DFT box whose sums are infinite or NaN (they overflowed: fields beyond the range of the
/// values) is an error naming it, how many of its values and the first (component, frequency,
/// cell): the run's status says `failed` instead of `complete`. `values` are in the file's
/// order (frequency, component, then the box's cells x fastest), read twice.
pub fn check_finite(
    report: &DftReport,
    values: impl Iterator<Item = Complex64> + Clone,
) -> Result<(), AppError> {
    let finite = |v: &Complex64| v.re.is_finite() && v.im.is_finite();
    let Some(first) = values.clone().position(|v| !finite(&v)) else {
        return Ok(());
    };
    let (bad, count) = values
        .clone()
        .fold((0, 0), |(b, n), v| (b + usize::from(!finite(&v)), n + 1));
    let value = values.clone().nth(first).unwrap_or_default();
    let extent = Box3 {
        lo: report.lo,
        hi: report.hi,
    }
    .extent();
    let nodes = extent.iter().product::<usize>().max(1);
    let components = report.components.len().max(1);
    let (node, component, k) = (
        first % nodes,
        (first / nodes) % components,
        first / (nodes * components),
    );
    let cell = [
        report.lo[0] + (node % extent[0].max(1)) as i64,
        report.lo[1] + ((node / extent[0].max(1)) % extent[1].max(1)) as i64,
        report.lo[2] + (node / (extent[0].max(1) * extent[1].max(1))) as i64,
    ];
    Err(AppError::Run(format!(
        "dft `{}`: {bad} of its {} values are not finite (first: {} of {} at f = {:e}, cell \
         {cell:?}): the DFT sums overflowed (fields beyond the range of the values)",
        report.name,
        count,
        value,
        report.components.get(component).map_or("?", String::as_str),
        report.frequencies.get(k).copied().unwrap_or(f64::NAN),
    )))
}
