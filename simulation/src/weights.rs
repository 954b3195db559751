//! Relative weights of a run's parts (`--speeds`, `--weights`), checked.

use crate::error::AppError;

/// `w` as the weights of `ranks` parts given by `flag`: one positive number per part.
pub fn check_weights(flag: &str, w: Vec<f64>, ranks: usize) -> Result<Vec<f64>, AppError> {
    let text = w.iter().map(f64::to_string).collect::<Vec<_>>().join(",");
    if w.len() != ranks {
        return Err(AppError::Usage(format!(
            "{flag} {text}: {} weights for --ranks {ranks}",
            w.len()
        )));
    }
    if let Some(v) = w.iter().find(|v| !(v.is_finite() && **v > 0.0)) {
        return Err(AppError::Usage(format!(
            "{flag} {text}: {v} is not a positive number"
        )));
    }
    Ok(w)
}
