//! `[[resonances]]` after a run: the modes of probe records by harmonic inversion
//! ([`yee_em::harminv`], filter diagonalization as the harminv program does it), each block
//! written as `resonances_<name>.csv` — the file `yee resonances` writes, by the same code
//! ([`write_modes_csv`]) — and listed with its modes in `run.json`.

use std::io::Write;
use std::path::Path;

use num_complex::Complex;
use yee_em::harminv::{HarminvOptions, Mode, harminv, harminv_real};
use yee_scene::{Resonances, Scene};

use crate::error::AppError;
use crate::failures::Failures;
use crate::files::write_file;
use crate::probe_output::ProbeSeries;
use crate::report::{ModeReport, ResonancesReport};
use crate::values::Values;

/// Writes the modes as CSV: `frequency,decay,Q,amplitude,phase,error`, one row per mode,
/// every number in full precision.
pub fn write_modes_csv(out: &mut impl Write, modes: &[Mode]) -> std::io::Result<()> {
    writeln!(out, "frequency,decay,Q,amplitude,phase,error")?;
    for m in modes {
        writeln!(
            out,
            "{:e},{:e},{:e},{:e},{:e},{:e}",
            m.frequency, m.decay, m.q, m.amplitude, m.phase, m.error
        )?;
    }
    Ok(())
}

/// Inverts every `[[resonances]]` block of `scene` from the run's probe `series` and writes
/// its CSV into `out`; returns the reports and the files written. A block that cannot be
/// inverted (too few samples after `after`) or written is kept in `failed`, naming it.
pub fn write_resonances(
    scene: &Scene,
    series: &[ProbeSeries],
    out: &Path,
    failed: &mut Failures,
) -> (Vec<ResonancesReport>, Vec<String>) {
    let mut reports = Vec::new();
    let mut files = Vec::new();
    for block in &scene.resonances {
        let file = format!("resonances_{}.csv", block.name);
        let report = invert(scene, block, series).and_then(|(samples, modes)| {
            write_file(&out.join(&file), |w| write_modes_csv(w, &modes))?;
            Ok(ResonancesReport {
                name: block.name.clone(),
                file: file.clone(),
                probes: block
                    .probes
                    .iter()
                    .map(|&p| scene.probe_names[p].clone())
                    .collect(),
                band: block.band,
                after: block.after,
                samples,
                modes: modes.iter().map(mode_report).collect(),
            })
        });
        if let Some(r) = failed.keep(report) {
            files.push(file);
            reports.push(r);
        }
    }
    (reports, files)
}

/// The modes of `block`'s summed records from its `after` on (amplitudes and phases referred
/// to time 0, as `yee resonances` gives them), and how many samples that was.
pub fn invert(
    scene: &Scene,
    block: &Resonances,
    series: &[ProbeSeries],
) -> Result<(usize, Vec<Mode>), AppError> {
    let fail = |why: String| {
        AppError::Run(format!(
            "{}: [[resonances]] `{}`: {why}",
            scene.file.display(),
            block.name
        ))
    };
    let first = &series[block.probes[0]];
    let skip = first.times.partition_point(|&t| t < block.after);
    let t0 = first.times.get(skip).copied().unwrap_or(block.after);
    let dt = scene.units.to_scene_time(scene.dt());
    let [f_min, f_max] = block.band;
    let options = HarminvOptions::default();
    let sum = summed(block, series, skip);
    let samples = sum.len();
    let modes = match sum {
        Summed::Real(v) => harminv_real(&v, dt, f_min, f_max, &options),
        Summed::Complex(v) => harminv(&v, dt, f_min, f_max, &options),
    }
    .map_err(|e| {
        fail(format!(
            "{e} ({samples} samples at or after time {} of {})",
            block.after,
            first.times.len()
        ))
    })?;
    let modes = modes.into_iter().map(|m| m.with_first_sample_at(t0));
    Ok((samples, modes.collect()))
}

/// A record: real or complex.
enum Summed {
    Real(Vec<f64>),
    Complex(Vec<Complex<f64>>),
}

impl Summed {
    fn len(&self) -> usize {
        match self {
            Summed::Real(v) => v.len(),
            Summed::Complex(v) => v.len(),
        }
    }
}

/// The sum of `block`'s probe records from sample `skip` on, in double precision.
fn summed(block: &Resonances, series: &[ProbeSeries], skip: usize) -> Summed {
    let len = series[block.probes[0]].values.len().saturating_sub(skip);
    let complex = matches!(
        series[block.probes[0]].values,
        Values::C32(_) | Values::C64(_)
    );
    let mut sum = vec![Complex::new(0.0, 0.0); len];
    for &p in &block.probes {
        let tail = |n: usize| skip.min(n)..;
        let values: Vec<Complex<f64>> = match &series[p].values {
            Values::F32(v) => v[tail(v.len())]
                .iter()
                .map(|&x| Complex::new(f64::from(x), 0.0))
                .collect(),
            Values::F64(v) => v[tail(v.len())]
                .iter()
                .map(|&x| Complex::new(x, 0.0))
                .collect(),
            Values::C32(v) => v[tail(v.len())]
                .iter()
                .map(|x| Complex::new(f64::from(x.re), f64::from(x.im)))
                .collect(),
            Values::C64(v) => v[tail(v.len())].to_vec(),
        };
        for (s, v) in sum.iter_mut().zip(values) {
            *s += v;
        }
    }
    match complex {
        true => Summed::Complex(sum),
        false => Summed::Real(sum.into_iter().map(|c| c.re).collect()),
    }
}

/// A mode for `run.json`.
fn mode_report(m: &Mode) -> ModeReport {
    ModeReport {
        frequency: m.frequency,
        decay: m.decay,
        q: m.q,
        amplitude: m.amplitude,
        phase: m.phase,
        error: m.error,
    }
}
