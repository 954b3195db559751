//! The brute-force oracle of border rounding (Balykov 2019, §2.1; Franek 2016).

use crate::partition::{
    PartitionError, ideal_borders, max_deviation, round_borders, round_nearest,
};

/// Checks the claims of [`ideal_borders`](crate::partition::ideal_borders) and [`round_borders`](crate::partition::round_borders) for one input by brute force
/// (used by the property tests and the fuzz target): no error for a valid input; borders
/// non-decreasing from 0 to the extent; widths summing to it; every enabled width at least
/// `min_width`; with `min_width = 1`, a largest deviation from the ideal no worse than rounding
/// each border alone. `scratch` needs `2 · (weights.len() + 1)` slots.
pub fn verify_rounding(
    density: &[f64],
    weights: &[f64],
    min_width: usize,
    scratch: &mut [f64],
    borders: &mut [i64],
) -> Result<(), &'static str> {
    let n = weights.len();
    if n == 0 || density.is_empty() || scratch.len() < 2 * (n + 1) || borders.len() < 2 * (n + 1) {
        return Ok(());
    }
    let (ideal, _) = scratch.split_at_mut(n + 1);
    ideal_borders(density, weights, ideal).map_err(|_| "ideal_borders failed on a valid input")?;
    if ideal.windows(2).any(|w| w[1] < w[0]) || ideal[0] != 0.0 || ideal[n] != density.len() as f64
    {
        return Err("ideal borders are not monotone from 0 to the extent");
    }
    let (out, nearest) = borders.split_at_mut(n + 1);
    match round_borders(ideal, min_width, out) {
        Err(PartitionError::AxisTooShort { .. }) if density.len() < min_width.max(1) => {
            return Ok(());
        }
        Err(_) => return Err("round_borders failed on a valid input"),
        Ok(()) => {}
    }
    if out[0] != 0 || out[n] != density.len() as i64 || out.windows(2).any(|w| w[1] < w[0]) {
        return Err("borders are not non-decreasing from 0 to the extent");
    }
    if out
        .windows(2)
        .any(|w| w[1] > w[0] && ((w[1] - w[0]) as usize) < min_width.max(1))
    {
        return Err("an enabled segment is narrower than the minimum");
    }
    if min_width <= 1 {
        round_nearest(ideal, &mut nearest[..=n]).map_err(|_| "round_nearest failed")?;
        if max_deviation(ideal, out) > max_deviation(ideal, &nearest[..=n]) + 1e-9 {
            return Err("rounding is worse than rounding each border alone");
        }
    }
    Ok(())
}
