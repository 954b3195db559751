//! The time and frequency axes of line plots in the scene's units: seconds and hertz with an
//! SI prefix in SI scenes, `a/c` and `c/a` in scenes of lengths in `a`, the time light takes
//! to cross a cell and its inverse in scenes in cells.

use yee_scene::Units;

/// The label of a time axis over `times` (scene units) and the values to plot.
pub fn time_axis(units: &Units, times: &[f64]) -> (String, Vec<f64>) {
    match units {
        Units::Si { .. } => {
            let (prefix, factor) = yee_io::style::si_prefix(extent(times));
            let xs = times.iter().map(|t| t / factor).collect();
            (format!("time ({prefix}s)"), xs)
        }
        Units::Normalised => ("time (Δx/c)".into(), times.to_vec()),
        Units::Lengths { .. } => ("time (a/c)".into(), times.to_vec()),
    }
}

/// The label of a frequency axis over `frequencies` (scene units) and the values to plot.
pub fn frequency_axis(units: &Units, frequencies: &[f64]) -> (String, Vec<f64>) {
    match units {
        Units::Si { .. } => {
            let (prefix, factor) = yee_io::style::si_prefix(extent(frequencies));
            let xs = frequencies.iter().map(|f| f / factor).collect();
            (format!("frequency ({prefix}Hz)"), xs)
        }
        Units::Normalised => ("frequency (c/Δx)".into(), frequencies.to_vec()),
        Units::Lengths { .. } => ("frequency (c/a)".into(), frequencies.to_vec()),
    }
}

/// The largest |value| of `values` (1 when there is none, or it is 0).
fn extent(values: &[f64]) -> f64 {
    let top = values.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    if top > 0.0 && top.is_finite() {
        top
    } else {
        1.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn si_axes_take_a_prefix_and_others_their_units() {
        let si = Units::Si { cell_size: 0.002 };
        let (label, xs) = frequency_axis(&si, &[0.0, 1e9, 2.5e9]);
        assert_eq!(
            (label.as_str(), xs),
            ("frequency (GHz)", vec![0.0, 1.0, 2.5])
        );
        let (label, xs) = time_axis(&si, &[1e-9, 4e-9]);
        assert_eq!((label.as_str(), xs), ("time (ns)", vec![1.0, 4.0]));
        assert_eq!(time_axis(&Units::Normalised, &[3.0]).0, "time (Δx/c)");
        assert_eq!(
            frequency_axis(&Units::Normalised, &[0.1]).0,
            "frequency (c/Δx)"
        );
    }
}
