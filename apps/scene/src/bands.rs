//! `[bands]`: the k-points `yee bands` runs the scene at, and the band it searches
//! (docs/bands.md). The path's corners are in cycles per lattice constant `a` (Meep's and MPB's
//! reciprocal units: X of a square lattice is `[0.5, 0]`); `points` k-points are inserted
//! evenly between consecutive corners, as Meep's `interpolate` does.

use std::path::Path;

use yee_em::{Boundaries, Boundary, Mode};

use crate::error::SceneError;
use crate::spec::{BandsSpec, ValueType};

/// The most k-points a path may hold, corners and inserted points together: each is a whole
/// run, so a path past this is a typo (a `points` of 10⁹), not a band diagram.
pub const MOST_K_POINTS: usize = 100_000;

/// A resolved `[bands]` block.
#[derive(Clone, Debug, PartialEq)]
pub struct Bands {
    /// Every k-point in cycles per lattice constant, corners and the points between, in path
    /// order.
    pub k_points: Vec<[f64; 3]>,
    /// The same in cycles per cell (what [`crate::Scene::bloch`] takes).
    pub k_cells: Vec<[f64; 3]>,
    /// The index in [`Bands::k_points`] of each corner, with its label.
    pub corners: Vec<(usize, Option<String>)>,
    /// `[fmin, fmax]` in scene frequency units.
    pub band: [f64; 2],
    /// Samples before this scene time are left out.
    pub after: f64,
    /// The lattice constant in scene length units.
    pub lattice_constant: f64,
    /// The lattice constant in cells.
    pub lattice_cells: f64,
}

/// What [`resolve_bands`] checks the block against.
pub struct BandsContext<'a> {
    /// The scene file, for errors.
    pub file: &'a Path,
    /// A scene length in cells (the scene's units).
    pub length: &'a dyn Fn(f64) -> f64,
    /// Its mode.
    pub mode: Mode,
    /// Its value type (complex needed).
    pub value_type: ValueType,
    /// Its faces (non-zero k only on periodic axes).
    pub boundaries: &'a Boundaries,
    /// Its run length in scene time.
    pub duration: f64,
    /// How many probes it has (at least one needed).
    pub probes: usize,
}

/// Resolves `[bands]` (see the module docs); every error names its key.
pub fn resolve_bands(c: &BandsContext, spec: &BandsSpec) -> Result<Bands, SceneError> {
    let err = |key: &str, message: String| SceneError::Invalid {
        file: c.file.to_path_buf(),
        key: format!("bands.{key}"),
        message,
    };
    if !matches!(c.value_type, ValueType::C32 | ValueType::C64) {
        return Err(err(
            "path",
            format!(
                "a band structure runs with Bloch phases, which need complex fields, but \
                 grid.value_type is \"{}\": set value_type = \"c64\" (or \"c32\") in [grid]",
                c.value_type.name()
            ),
        ));
    }
    if c.probes == 0 {
        return Err(err(
            "path",
            "the modes are found at the scene's probes: add [[probes]] (a few, away from \
             symmetry points)"
                .into(),
        ));
    }
    let a = spec.lattice_constant.unwrap_or(1.0);
    if !(a.is_finite() && a > 0.0) {
        return Err(err(
            "lattice_constant",
            format!("{a} must be a positive length"),
        ));
    }
    let a_cells = (c.length)(a);
    let dims = c.mode.dims();
    let mut corners = Vec::new();
    for (i, k) in spec.path.iter().enumerate() {
        if k.len() != dims {
            return Err(err(
                &format!("path[{i}]"),
                format!(
                    "has {} numbers, but mode {} needs {dims}",
                    k.len(),
                    c.mode.name()
                ),
            ));
        }
        let mut p = [0.0; 3];
        for (axis, &v) in k.iter().enumerate() {
            if !v.is_finite() {
                return Err(err(
                    &format!("path[{i}]"),
                    format!("{v} is not a finite number"),
                ));
            }
            if v != 0.0 && c.boundaries[axis][0] != Boundary::Periodic {
                return Err(err(
                    &format!("path[{i}]"),
                    format!(
                        "{k:?} has a non-zero k on axis {}, whose faces are {}: a Bloch phase \
                         needs a periodic axis",
                        yee_core::Axis::from_index(axis).name(),
                        c.boundaries[axis][0].name()
                    ),
                ));
            }
            p[axis] = v;
        }
        corners.push(p);
    }
    if corners.is_empty() {
        return Err(err("path", "is empty: name at least one k-point".into()));
    }
    let labels = match &spec.labels {
        Some(l) if l.len() != corners.len() => {
            return Err(err(
                "labels",
                format!(
                    "has {} names for {} corners of the path",
                    l.len(),
                    corners.len()
                ),
            ));
        }
        Some(l) => l.iter().cloned().map(Some).collect(),
        None => vec![None; corners.len()],
    };
    let [f_min, f_max] = match spec.band[..] {
        [lo, hi] if lo.is_finite() && hi.is_finite() && lo < hi && hi > 0.0 => [lo.max(0.0), hi],
        _ => {
            return Err(err(
                "band",
                format!(
                    "{:?} must be [fmin, fmax] with fmin < fmax and fmax > 0",
                    spec.band
                ),
            ));
        }
    };
    if !(spec.after.is_finite() && spec.after >= 0.0 && spec.after < c.duration) {
        return Err(err(
            "after",
            format!(
                "{} must lie within the run (0 to {} in scene time): the modes are fitted \
                 to the samples after it",
                spec.after, c.duration
            ),
        ));
    }
    let total = (corners.len() - 1)
        .checked_mul(spec.points)
        .and_then(|n| n.checked_add(corners.len()))
        .filter(|&n| n <= MOST_K_POINTS);
    if total.is_none() {
        return Err(err(
            "points",
            format!(
                "{} between each of {} corners makes more than {MOST_K_POINTS} k-points, \
                 each a run of its own: name fewer",
                spec.points,
                corners.len()
            ),
        ));
    }
    let (k_points, corner_at) = interpolate(&corners, spec.points);
    let k_cells = k_points.iter().map(|k| k.map(|v| v / a_cells)).collect();
    Ok(Bands {
        k_points,
        k_cells,
        corners: corner_at.into_iter().zip(labels).collect(),
        band: [f_min, f_max],
        after: spec.after,
        lattice_constant: a,
        lattice_cells: a_cells,
    })
}

/// The corners with `points` evenly spaced k-points between each consecutive pair (Meep's
/// `interpolate`), and the index of each corner in the result.
pub fn interpolate(corners: &[[f64; 3]], points: usize) -> (Vec<[f64; 3]>, Vec<usize>) {
    let mut out = Vec::new();
    let mut at = Vec::new();
    for (i, &c) in corners.iter().enumerate() {
        if i > 0 {
            let p = corners[i - 1];
            for j in 1..=points {
                let t = j as f64 / (points + 1) as f64;
                out.push(std::array::from_fn(|a| p[a] + t * (c[a] - p[a])));
            }
        }
        at.push(out.len());
        out.push(c);
    }
    (out, at)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn points_go_between_the_corners() {
        let (k, at) = interpolate(&[[0.0; 3], [0.5, 0.0, 0.0], [0.5, 0.5, 0.0]], 1);
        assert_eq!(at, vec![0, 2, 4]);
        assert_eq!(k[1], [0.25, 0.0, 0.0]);
        assert_eq!(k[3], [0.5, 0.25, 0.0]);
    }
}
