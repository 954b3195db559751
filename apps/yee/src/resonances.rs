//! `yee resonances PROBE.csv --band FMIN FMAX`: the modes of a probe record a finished run
//! wrote — frequencies, decay rates, Q, amplitudes, phases and error estimates by harmonic
//! inversion ([`yee_em::harminv`], filter diagonalization as the harminv program does it) —
//! printed as a table and written to `resonances_<probe name>.csv` (docs/resonances.md).
//!
//! The record is the CSV `yee run` writes (`yee_io::csv::write_probe`): a header, then
//! `step,time,value` rows, or `step,time,re,im` for a complex scene. Any CSV whose header names
//! a `time` column and a `value` column (or `re` and `im`) is read the same way; the samples
//! must be uniformly spaced in time. Frequencies are in cycles per unit of that time (the
//! scene's units); amplitudes and phases are those at time 0 of that axis, not at the first
//! sample kept ([`Mode::with_first_sample_at`]), so `--after` does not change them.

use std::io::Write;
use std::path::{Path, PathBuf};

use num_complex::Complex;
use yee_em::harminv::{HarminvOptions, Mode, ModeFilter, harminv, harminv_real};

use crate::error::{AppError, io_error};

/// `yee resonances`.
#[derive(Debug, clap::Args)]
pub struct ResonancesArgs {
    /// A probe record: `probe_<name>.csv` of a `yee run` output folder (`step,time,value`, or
    /// `step,time,re,im` for complex fields).
    pub probe: PathBuf,
    /// The band searched, in cycles per unit of the CSV's time (the scene's units). The basis
    /// should span every mode the source excites: modes just outside leak in and bias those
    /// inside.
    #[arg(
        long,
        num_args = 2,
        value_names = ["FMIN", "FMAX"],
        required = true,
        allow_negative_numbers = true
    )]
    pub band: Vec<f64>,
    /// Leave out the samples before this time (while the source is on, the signal is not a
    /// sum of free modes).
    #[arg(long, value_name = "TIME")]
    pub after: Option<f64>,
    /// Output directory for `resonances_<name>.csv` (default: the CSV's own folder).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// At least this many basis functions (harminv's `-f`).
    #[arg(long, default_value_t = 100)]
    pub basis: usize,
    /// Spectral density of the basis, 1 being the Fourier resolution, capped at 300 basis
    /// functions (harminv's `-d`; 0: --basis decides).
    #[arg(long, default_value_t = 0.0)]
    pub density: f64,
    /// Drop modes whose error estimate exceeds this (harminv's `-E`).
    #[arg(long, default_value_t = 0.1)]
    pub max_error: f64,
    /// Drop modes whose error exceeds this times the smallest error found (harminv's `-e`).
    #[arg(long)]
    pub max_relative_error: Option<f64>,
    /// Drop modes with |Q| below this (harminv's `-Q`).
    #[arg(long, default_value_t = 10.0)]
    pub min_q: f64,
    /// Drop modes whose amplitude is below this (harminv's `-A`).
    #[arg(long, default_value_t = 0.0)]
    pub min_amplitude: f64,
    /// Drop modes weaker than this fraction of the strongest found (harminv's `-a`).
    #[arg(long)]
    pub min_relative_amplitude: Option<f64>,
    /// Drop modes whose |frequency| lies outside the band (harminv's `-F`).
    #[arg(long)]
    pub only_in_band: bool,
}

impl ResonancesArgs {
    /// The basis size and filter these arguments ask for.
    pub fn options(&self) -> HarminvOptions {
        HarminvOptions {
            density: self.density,
            min_basis: self.basis,
            filter: ModeFilter {
                max_error: self.max_error,
                max_relative_error: self.max_relative_error.unwrap_or(f64::INFINITY),
                min_amplitude: self.min_amplitude,
                min_relative_amplitude: self.min_relative_amplitude.unwrap_or(-1.0),
                min_q: self.min_q,
                only_in_band: self.only_in_band,
            },
        }
    }
}

/// The samples of a probe record.
#[derive(Clone, Debug, PartialEq)]
pub enum Samples {
    /// A `value` column.
    Real(Vec<f64>),
    /// `re` and `im` columns.
    Complex(Vec<Complex<f64>>),
}

impl Samples {
    /// How many.
    pub fn len(&self) -> usize {
        match self {
            Samples::Real(v) => v.len(),
            Samples::Complex(v) => v.len(),
        }
    }

    /// True when there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn skip(&mut self, n: usize) {
        match self {
            Samples::Real(v) => drop(v.drain(..n)),
            Samples::Complex(v) => drop(v.drain(..n)),
        }
    }
}

/// A probe record read from its CSV: the sample times and values.
#[derive(Clone, Debug, PartialEq)]
pub struct ProbeRecord {
    /// The time of each sample.
    pub times: Vec<f64>,
    /// The values.
    pub samples: Samples,
}

impl ProbeRecord {
    /// The sampling interval: the span over the number of intervals.
    pub fn dt(&self) -> f64 {
        let n = self.times.len();
        if n < 2 {
            return f64::NAN;
        }
        (self.times[n - 1] - self.times[0]) / (n - 1) as f64
    }
}

/// Reads a probe CSV (see the module docs). Errors name the file and line: a missing header,
/// a row with the wrong number of fields, a field that is not a finite number, times that are
/// not uniformly spaced.
pub fn read_probe_csv(path: &Path) -> Result<ProbeRecord, AppError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| AppError::Usage(format!("cannot read {}: {e}", path.display())))?;
    parse_probe_csv(path, &text)
}

/// [`read_probe_csv`] of text already read (`path` names it in errors).
pub fn parse_probe_csv(path: &Path, text: &str) -> Result<ProbeRecord, AppError> {
    let at =
        |line: usize, why: String| AppError::Usage(format!("{}:{line}: {why}", path.display()));
    let mut lines = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim()))
        .filter(|(_, l)| !l.is_empty() && !l.starts_with('#'));
    let (header_line, header) = lines
        .next()
        .ok_or_else(|| AppError::Usage(format!("{}: the file is empty", path.display())))?;
    let columns: Vec<&str> = header.split(',').map(str::trim).collect();
    let column = |name: &str| columns.iter().position(|c| c.eq_ignore_ascii_case(name));
    let layout = match (column("time"), column("value"), column("re"), column("im")) {
        (Some(t), Some(v), _, _) => (t, v, None),
        (Some(t), None, Some(re), Some(im)) => (t, re, Some(im)),
        _ => {
            return Err(at(
                header_line,
                format!(
                    "expected a header naming a `time` column and a `value` column (or `re` \
                     and `im`), as `yee run` writes; found `{header}`"
                ),
            ));
        }
    };
    let (time_col, value_col, im_col) = layout;
    let mut times = Vec::new();
    let mut real = Vec::new();
    let mut complex = Vec::new();
    let mut line_of = Vec::new();
    for (number, line) in lines {
        let fields: Vec<&str> = line.split(',').map(str::trim).collect();
        if fields.len() != columns.len() {
            return Err(at(
                number,
                format!(
                    "{} fields where the header has {} ({})",
                    fields.len(),
                    columns.len(),
                    columns.join(",")
                ),
            ));
        }
        let number_at = |col: usize| -> Result<f64, AppError> {
            let text = fields[col];
            let value: f64 = text.parse().map_err(|_| {
                at(
                    number,
                    format!("`{text}` in column `{}` is not a number", columns[col]),
                )
            })?;
            if !value.is_finite() {
                return Err(at(
                    number,
                    format!("`{text}` in column `{}` is not finite", columns[col]),
                ));
            }
            Ok(value)
        };
        times.push(number_at(time_col)?);
        let value = number_at(value_col)?;
        match im_col {
            None => real.push(value),
            Some(im) => complex.push(Complex::new(value, number_at(im)?)),
        }
        line_of.push(number);
    }
    let samples = match im_col {
        None => Samples::Real(real),
        Some(_) => Samples::Complex(complex),
    };
    let record = ProbeRecord { times, samples };
    check_uniform(&record, &line_of, &at)?;
    Ok(record)
}

/// Every time within 10⁻³ of a step of where uniform sampling from the first to the last
/// puts it.
fn check_uniform(
    record: &ProbeRecord,
    line_of: &[usize],
    at: &impl Fn(usize, String) -> AppError,
) -> Result<(), AppError> {
    let t = &record.times;
    if t.len() < 2 {
        return Ok(());
    }
    let dt = record.dt();
    if dt <= 0.0 {
        return Err(at(
            line_of[t.len() - 1],
            format!(
                "the last time {} is not after the first {}: the samples must be in \
                 increasing time",
                t[t.len() - 1],
                t[0]
            ),
        ));
    }
    for (i, &ti) in t.iter().enumerate() {
        let expected = t[0] + i as f64 * dt;
        if (ti - expected).abs() > 1e-3 * dt {
            return Err(at(
                line_of[i],
                format!(
                    "time {ti} breaks the uniform sampling (expected {expected}: samples every \
                     {dt} from {})",
                    t[0]
                ),
            ));
        }
    }
    Ok(())
}

/// `resonances_<name>.csv` for `probe_<name>.csv` (any other file: its stem).
pub fn output_name(probe: &Path) -> String {
    let stem = probe
        .file_stem()
        .map_or_else(|| "probe".into(), |s| s.to_string_lossy().into_owned());
    let name = stem.strip_prefix("probe_").unwrap_or(&stem);
    format!("resonances_{name}.csv")
}

/// The modes as CSV, as a run's `[[resonances]]` blocks write them.
pub use yee_simulation::resonances_output::write_modes_csv;

/// The table `yee resonances` prints.
pub fn table(modes: &[Mode]) -> String {
    let mut s = format!(
        "{:>16} {:>12} {:>12} {:>12} {:>9} {:>9}\n",
        "frequency", "decay", "Q", "amplitude", "phase", "error"
    );
    for m in modes {
        s += &format!(
            "{:>16.10} {:>12.4e} {:>12.5e} {:>12.5e} {:>9.5} {:>9.1e}\n",
            m.frequency, m.decay, m.q, m.amplitude, m.phase, m.error
        );
    }
    s
}

/// Runs `yee resonances`: reads the record, inverts it, prints the table and writes the CSV.
/// Returns the path written.
pub fn command(args: &ResonancesArgs) -> Result<PathBuf, AppError> {
    let path = &args.probe;
    let (f_min, f_max) = (args.band[0], args.band[1]);
    let mut record = read_probe_csv(path)?;
    let total = record.samples.len();
    if let Some(after) = args.after {
        let skip = record.times.partition_point(|&t| t < after);
        record.times.drain(..skip);
        record.samples.skip(skip);
    }
    let dt = record.dt();
    let options = args.options();
    let inverted = match &record.samples {
        Samples::Real(v) => harminv_real(v, dt, f_min, f_max, &options),
        Samples::Complex(v) => harminv(v, dt, f_min, f_max, &options),
    };
    let t0 = record.times.first().copied().unwrap_or(0.0);
    let modes: Vec<Mode> = inverted
        .map_err(|e| {
            let kept = match args.after {
                Some(after) => format!(
                    " ({} of {total} samples at or after time {after})",
                    record.samples.len()
                ),
                None => String::new(),
            };
            AppError::Usage(format!("{}{kept}: {e}", path.display()))
        })?
        .into_iter()
        .map(|m| m.with_first_sample_at(t0))
        .collect();
    let dir = match &args.out {
        Some(dir) => {
            std::fs::create_dir_all(dir).map_err(|e| io_error(dir, e))?;
            dir.clone()
        }
        None => path
            .parent()
            .map_or_else(|| PathBuf::from("."), Path::to_path_buf),
    };
    let out = dir.join(output_name(path));
    yee_io::atomic::write_with(&out, |w| write_modes_csv(w, &modes))
        .map_err(|e| io_error(&out, e))?;
    let kind = match record.samples {
        Samples::Real(_) => "real",
        Samples::Complex(_) => "complex",
    };
    let mut report = format!(
        "{}: {} {kind} samples every {dt} from time {t0}; band [{f_min}, {f_max}], {} basis \
         functions; amplitudes and phases at time 0\n",
        path.display(),
        record.samples.len(),
        options.basis_size(record.samples.len(), dt, f_min, f_max)
    );
    if modes.is_empty() {
        report += "no mode passed the filters\n";
    } else {
        report += &table(&modes);
    }
    report += &format!("wrote {}\n", out.display());
    // The file is the result; a closed stdout (`| head`) is not an error.
    let _ = std::io::stdout().lock().write_all(report.as_bytes());
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<ProbeRecord, String> {
        parse_probe_csv(Path::new("p.csv"), text).map_err(|e| e.to_string())
    }

    #[test]
    fn reads_what_yee_run_writes() {
        let mut csv = Vec::new();
        yee_io::csv::write_probe(&mut csv, &[1.0f64, -2.5, 3.0], |s| s as f64 * 0.5).unwrap();
        let r = parse(std::str::from_utf8(&csv).unwrap()).unwrap();
        assert_eq!(r.times, [0.5, 1.0, 1.5]);
        assert_eq!(r.samples, Samples::Real(vec![1.0, -2.5, 3.0]));
        assert_eq!(r.dt(), 0.5);
        let mut csv = Vec::new();
        let values = [Complex::new(1.0f64, 2.0), Complex::new(-3.0, 0.25)];
        yee_io::csv::write_probe(&mut csv, &values, |s| s as f64).unwrap();
        let r = parse(std::str::from_utf8(&csv).unwrap()).unwrap();
        assert_eq!(r.samples, Samples::Complex(values.to_vec()));
    }

    #[test]
    fn bad_records_name_the_line() {
        assert_eq!(parse("").unwrap_err(), "p.csv: the file is empty");
        assert!(
            parse("a,b\n1,2\n")
                .unwrap_err()
                .starts_with("p.csv:1: expected a header")
        );
        assert!(
            parse("step,time,value\n1,0.5,1\n2,1.0\n")
                .unwrap_err()
                .starts_with("p.csv:3: 2 fields where the header has 3")
        );
        assert_eq!(
            parse("step,time,value\n1,0.5,1\n\n2,1.0,x\n").unwrap_err(),
            "p.csv:4: `x` in column `value` is not a number"
        );
        assert_eq!(
            parse("step,time,value\n1,0.5,NaN\n").unwrap_err(),
            "p.csv:2: `NaN` in column `value` is not finite"
        );
        assert!(
            parse("step,time,value\n1,0.5,1\n2,1.0,1\n3,1.6,1\n4,2.0,1\n")
                .unwrap_err()
                .starts_with("p.csv:4: time 1.6 breaks the uniform sampling")
        );
        assert!(
            parse("step,time,value\n1,2.0,1\n2,1.0,1\n")
                .unwrap_err()
                .starts_with("p.csv:3: the last time 1 is not after the first 2")
        );
    }

    #[test]
    fn output_names() {
        assert_eq!(
            output_name(Path::new("out/x/probe_east.csv")),
            "resonances_east.csv"
        );
        assert_eq!(output_name(Path::new("ring.csv")), "resonances_ring.csv");
    }
}
