//! Probe time series as CSV: a header row, then `step,time,value` (or `re,im` for complex).

use std::io::Write;

use yee_core::{Real, Scalar};

/// Writes one probe's record; `time_of(step)` gives the sample time in scene units.
pub fn write_probe<T: Scalar>(
    out: &mut impl Write,
    series: &[T],
    time_of: impl Fn(u64) -> f64,
) -> std::io::Result<()> {
    let complex = T::NAME.starts_with('c');
    if complex {
        writeln!(out, "step,time,re,im")?;
    } else {
        writeln!(out, "step,time,value")?;
    }
    for (i, v) in series.iter().enumerate() {
        let step = i as u64 + 1;
        if complex {
            writeln!(
                out,
                "{step},{:e},{:e},{:e}",
                time_of(step),
                v.re().to_f64(),
                v.im().to_f64()
            )?;
        } else {
            writeln!(out, "{step},{:e},{:e}", time_of(step), v.re().to_f64())?;
        }
    }
    Ok(())
}
