//! Splitting one axis into integer segments: Franek's cumulative-load inversion and Balykov's
//! border rounding.
//!
//! - [`ideal_borders`]: Franek 2016, §2.1 — with a load density `l(i)` per slice and the
//!   cumulative load `c(x)` (piecewise linear inside slices), segment `s` should end where
//!   `c` reaches `d_s = c(A) · Σ_{j≤s} w_j / Σ_j w_j` (`w`: the segments' speeds; equal speeds
//!   give Franek's `d_s = s·c_M/S`); the real border is `f⁻¹(d_s)`.
//! - [`round_nearest`]: Franek's rounding of each border to the nearest mesh coordinate.
//! - [`round_borders`]: Balykov 2019, §2.1 — the δ algorithm: with `δ_i = I_{R_i} − ⌊I_{R_i}⌋`
//!   the right border of segment `i` is `⌊I_{R_i}⌋` (δ_R = δ_i) when
//!   `|δ_L − δ_i| ≤ |δ_L + 1 − δ_i|`, else `⌊I_{R_i}⌋ + 1` (δ_R = δ_i − 1), δ_L of the next
//!   segment being this δ_R and `δ_{R_{n−1}} = 0`; run from both ends, the better kept.
//!   A segment of width 0 is a disabled rank.
//!
//! Everything works on caller-provided slices.

use core::fmt;

/// Why an axis cannot be split.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum PartitionError {
    /// No segments.
    NoSegments,
    /// An output slice has the wrong length.
    WrongLength,
    /// The axis is shorter than one segment of the minimum width.
    AxisTooShort {
        /// Cells along the axis.
        extent: usize,
        /// The minimum width.
        min_width: usize,
    },
}

impl fmt::Display for PartitionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            PartitionError::NoSegments => write!(f, "an axis needs at least one segment"),
            PartitionError::WrongLength => write!(f, "border slice has the wrong length"),
            PartitionError::AxisTooShort { extent, min_width } => {
                write!(
                    f,
                    "an axis of {extent} cells cannot hold a segment {min_width} cells wide"
                )
            }
        }
    }
}

impl core::error::Error for PartitionError {}

fn usable(w: f64) -> f64 {
    if w.is_finite() && w > 0.0 { w } else { 0.0 }
}

/// Franek's inversion of the cumulative load. `density[i]` is the load of slice `i` (one
/// cell thick; non-finite or negative counts as 0), `weights[s]` the speed of segment `s`
/// (0 disables it). Writes `weights.len() + 1` real borders from 0 to `density.len()` into
/// `out`. All-zero densities or weights fall back to uniform ones.
pub fn ideal_borders(
    density: &[f64],
    weights: &[f64],
    out: &mut [f64],
) -> Result<(), PartitionError> {
    let n = weights.len();
    if n == 0 {
        return Err(PartitionError::NoSegments);
    }
    if out.len() != n + 1 {
        return Err(PartitionError::WrongLength);
    }
    let extent = density.len() as f64;
    let total_load: f64 = density.iter().map(|&l| usable(l)).sum();
    let total_weight: f64 = weights.iter().map(|&w| usable(w)).sum();
    let load = |i: usize| {
        if total_load > 0.0 {
            usable(density[i])
        } else {
            1.0
        }
    };
    let weight = |s: usize| {
        if total_weight > 0.0 {
            usable(weights[s])
        } else {
            1.0
        }
    };
    let c_total = if total_load > 0.0 { total_load } else { extent };
    let w_total: f64 = (0..n).map(weight).sum();
    out[0] = 0.0;
    let (mut slice, mut c_before) = (0usize, 0.0f64);
    let mut w_cum = 0.0;
    for s in 0..n {
        w_cum += weight(s);
        if s + 1 == n {
            out[n] = extent;
            break;
        }
        if w_cum >= w_total {
            // Every weighted segment lies below this border (the rest are disabled): it is the
            // end of the axis, exactly — the walk below would land a rounding error short of
            // it, by as much as the order of the weights' sums moves `c_total · w_cum / w_total`.
            out[s + 1] = extent;
            continue;
        }
        let target = c_total * w_cum / w_total;
        // Walk slices until the cumulative load reaches the target, then interpolate.
        while slice < density.len() && c_before + load(slice) < target {
            c_before += load(slice);
            slice += 1;
        }
        let x = if slice >= density.len() {
            extent
        } else if load(slice) > 0.0 {
            slice as f64 + ((target - c_before) / load(slice)).clamp(0.0, 1.0)
        } else {
            slice as f64
        };
        out[s + 1] = x.max(out[s]).min(extent);
    }
    Ok(())
}

/// Rounds each real border to the nearest integer (Franek), keeping 0 and the extent.
pub fn round_nearest(ideal: &[f64], out: &mut [i64]) -> Result<(), PartitionError> {
    if out.len() != ideal.len() || ideal.is_empty() {
        return Err(PartitionError::WrongLength);
    }
    for (o, &x) in out.iter_mut().zip(ideal) {
        *o = num_traits::Float::round(x) as i64;
    }
    let last = ideal.len() - 1;
    out[0] = 0;
    out[last] = num_traits::Float::round(ideal[last]) as i64;
    for i in 1..=last {
        out[i] = out[i].max(out[i - 1]).min(out[last]);
    }
    Ok(())
}

/// The largest |width − ideal width| over the segments.
pub fn max_deviation(ideal: &[f64], borders: &[i64]) -> f64 {
    ideal
        .windows(2)
        .zip(borders.windows(2))
        .map(|(i, b)| ((b[1] - b[0]) as f64 - (i[1] - i[0])).abs())
        .fold(0.0, f64::max)
}

/// One pass of the δ algorithm from the low end.
fn delta_pass(ideal: &[f64], out: &mut [i64]) {
    let n = ideal.len() - 1;
    out[0] = num_traits::Float::round(ideal[0]) as i64;
    let mut delta_left = ideal[0] - out[0] as f64;
    for i in 0..n {
        let right = ideal[i + 1];
        let floor = num_traits::Float::floor(right);
        let delta_i = right - floor;
        let delta_right = if i + 1 == n {
            // The last border is the extent itself.
            right - num_traits::Float::round(right)
        } else if (delta_left - delta_i).abs() <= (delta_left + 1.0 - delta_i).abs() {
            delta_i
        } else {
            delta_i - 1.0
        };
        out[i + 1] = num_traits::Float::round(right - delta_right) as i64;
        delta_left = delta_right;
    }
}

/// Integer borders closest to the real `ideal` borders (non-decreasing, from 0 to the
/// extent): the δ algorithm from both ends, the better kept (and never worse than rounding
/// each border alone). Segments narrower than `min_width` are then disabled (width 0) and
/// their cells given to the neighbour on their left (or right for the first).
pub fn round_borders(
    ideal: &[f64],
    min_width: usize,
    out: &mut [i64],
) -> Result<(), PartitionError> {
    let n = ideal
        .len()
        .checked_sub(1)
        .ok_or(PartitionError::NoSegments)?;
    if n == 0 {
        return Err(PartitionError::NoSegments);
    }
    if out.len() != n + 1 {
        return Err(PartitionError::WrongLength);
    }
    let extent = num_traits::Float::round(ideal[n]) as i64;
    if extent < min_width.max(1) as i64 {
        return Err(PartitionError::AxisTooShort {
            extent: extent.max(0) as usize,
            min_width: min_width.max(1),
        });
    }
    // Candidates: forward δ, backward δ (on the mirrored axis), and nearest rounding.
    const CAP: usize = 512;
    let mut best_dev = f64::INFINITY;
    let mut chosen = 2;
    let mut scratch = [[0i64; CAP]; 3];
    let fits = n < CAP;
    if fits {
        delta_pass(ideal, &mut scratch[0][..=n]);
        let mut mirrored = [0.0f64; CAP];
        for i in 0..=n {
            mirrored[i] = ideal[n] - ideal[n - i];
        }
        let mut back = [0i64; CAP];
        delta_pass(&mirrored[..=n], &mut back[..=n]);
        for i in 0..=n {
            scratch[1][i] = extent - back[n - i];
        }
        round_nearest(ideal, &mut scratch[2][..=n])?;
        // Franek's nearest rounding first: a δ pass replaces it only when its largest
        // deviation is smaller (beyond rounding noise), so ties keep Franek 2016's §2.1
        // borders (his wind-turbine example's 164 cells on z, where forward δ gives 165 with
        // the same largest deviation).
        for k in [2, 0, 1] {
            let candidate = &scratch[k][..=n];
            let monotone = candidate.windows(2).all(|w| w[1] >= w[0]);
            let dev = max_deviation(ideal, candidate);
            if monotone && dev < best_dev - 1e-9 {
                best_dev = dev;
                chosen = k;
            }
        }
        out.copy_from_slice(&scratch[chosen][..=n]);
    } else {
        round_nearest(ideal, out)?;
    }
    out[0] = 0;
    out[n] = extent;
    enforce_min_width(out, min_width.max(1) as i64);
    Ok(())
}

/// Folds segments narrower than `min_width` (but not empty) into the nearest enabled
/// segment on their left, or on their right when there is none.
fn enforce_min_width(borders: &mut [i64], min_width: i64) {
    let n = borders.len() - 1;
    let width = |b: &[i64], i: usize| b[i + 1] - b[i];
    while let Some(i) = (0..n).find(|&i| (1..min_width).contains(&width(borders, i))) {
        match (0..i).rev().find(|&j| width(borders, j) > 0) {
            // Segment j grows over the (empty) segments after it and over segment i.
            Some(j) => {
                let end = borders[i + 1];
                for b in &mut borders[j + 1..=i] {
                    *b = end;
                }
            }
            // Segment i's cells start the next segment instead.
            None => borders[i + 1] = borders[i],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn franek_axis(regular: usize, pml: usize, segments: usize) -> [i64; 2] {
        // Density 1 in the regular part, 1.86 in the PML at the upper end (Franek 2016, §3).
        let mut density = [0.0f64; 12000];
        let len = regular + pml;
        for (i, d) in density[..len].iter_mut().enumerate() {
            *d = if i < regular { 1.0 } else { 1.86 };
        }
        let weights = [1.0; 64];
        let mut ideal = [0.0; 65];
        ideal_borders(
            &density[..len],
            &weights[..segments],
            &mut ideal[..=segments],
        )
        .unwrap();
        let mut borders = [0i64; 65];
        round_nearest(&ideal[..=segments], &mut borders[..=segments]).unwrap();
        let uniform_last =
            len as i64 - (((segments - 1) * len) as f64 / segments as f64).round() as i64;
        [uniform_last, borders[segments] - borders[segments - 1]]
    }

    #[test]
    fn franek_wind_turbine_last_segment() {
        // 864×1045×11924 with 100 PML cells at the upper end of each axis on 2×3×48 segments:
        // last segment 432×348×248 uniform, 389×291×164 balanced.
        assert_eq!(franek_axis(764, 100, 2), [432, 389]);
        assert_eq!(franek_axis(945, 100, 3), [348, 291]);
        assert_eq!(franek_axis(11824, 100, 48), [248, 164]);
    }

    #[test]
    fn delta_rounding_by_hand() {
        // Ideal widths 2.6, 2.6, 2.8 on an axis of 8: borders 0, 2.6, 5.2, 8.
        // Forward the δ rule picks 3 (δ_R = −0.4), then 6 (δ_R = −0.8): widths 3, 3, 2,
        // deviation 0.8. Backward (on the mirrored axis) gives widths 2, 3, 3: deviation 0.6,
        // as does nearest rounding (widths 3, 2, 3), which wins the tie.
        let ideal = [0.0, 2.6, 5.2, 8.0];
        let mut forward = [0i64; 4];
        delta_pass(&ideal, &mut forward);
        assert_eq!(forward, [0, 3, 6, 8]);
        assert!((max_deviation(&ideal, &forward) - 0.8).abs() < 1e-12);
        let mut out = [0i64; 4];
        round_borders(&ideal, 1, &mut out).unwrap();
        assert_eq!(out, [0, 3, 5, 8]);
        assert!((max_deviation(&ideal, &out) - 0.6).abs() < 1e-12);
        // Ideal widths 0.6, 0.8, 0.6: nearest rounding gives 1, 0, 1 (deviation 0.8); forward δ
        // gives 1 (δ_R = −0.4), then 1 (δ_R = −0.6), then 0: deviation 0.6, strictly better.
        let ideal = [0.0, 0.6, 1.4, 2.0];
        round_borders(&ideal, 1, &mut out).unwrap();
        assert_eq!(out, [0, 1, 2, 2]);
    }

    #[test]
    fn franek_wind_turbine_z_keeps_nearest_rounding_on_a_tie() {
        // Franek 2016, §3, z: 11824 regular cells and 100 PML cells (1.86) on 48 segments. The
        // paper rounds to the nearest cell (§2.1): last segment 164. Forward δ reaches the same
        // largest deviation with 165; the tie keeps the paper's.
        let mut density = [1.0f64; 11924];
        density[11824..].fill(1.86);
        let mut ideal = [0.0; 49];
        ideal_borders(&density, &[1.0; 48], &mut ideal).unwrap();
        let mut forward = [0i64; 49];
        delta_pass(&ideal, &mut forward);
        assert_eq!(forward[48] - forward[47], 165);
        let mut out = [0i64; 49];
        round_borders(&ideal, 1, &mut out).unwrap();
        assert_eq!(out[48] - out[47], 164);
    }

    #[test]
    fn narrow_segments_are_disabled() {
        let ideal = [0.0, 4.9, 5.3, 10.0];
        let mut out = [0i64; 4];
        round_borders(&ideal, 2, &mut out).unwrap();
        assert!(
            out.windows(2).all(|w| w[1] - w[0] == 0 || w[1] - w[0] >= 2),
            "{out:?}"
        );
        assert_eq!((out[0], out[3]), (0, 10));
    }

    #[test]
    fn zero_weights_fall_back_to_uniform() {
        let density = [1.0; 10];
        let mut ideal = [0.0; 3];
        ideal_borders(&density, &[0.0, 0.0], &mut ideal).unwrap();
        assert_eq!(ideal, [0.0, 5.0, 10.0]);
        ideal_borders(&density, &[3.0, 1.0], &mut ideal).unwrap();
        assert_eq!(ideal, [0.0, 7.5, 10.0]);
    }
}
