//! Slices: one plane of one component drawn at the steps a `[[slice]]` asks for.

use std::path::Path;

use yee_core::{Axis, Real, Scalar};
use yee_runtime::piece::Assembled;
use yee_scene::{Scene, Units};

use crate::error::{AppError, io_error};

/// Material numbers and the mask (if any) over a slice's plane, for its outlines.
pub type Outlines = (Vec<f64>, Option<Vec<f64>>);

/// The cell index of `slice`'s plane along its axis (0 in 1D and 2D).
pub fn slice_index(scene: &Scene, slice: &yee_scene::Slice) -> usize {
    if scene.mode.dims() == 3 {
        slice.index as usize
    } else {
        0
    }
}

/// Draws the plane of `slice` at `step`: a coloured image with axes, the material outlines
/// and masked cells over it; in 1D a line plot of the component along x. Returns the file name.
pub fn write_slice<T: Scalar>(
    fields: &Assembled<T>,
    scene: &Scene,
    slice: &yee_scene::Slice,
    outlines: &Option<Outlines>,
    step: u64,
    out: &Path,
) -> Result<String, AppError> {
    let index = slice_index(scene, slice);
    let (axes, cells) = crate::plane_plot::plane_cells(scene, slice.axis, index);
    let values: Vec<f64> = cells
        .iter()
        .map(|c| {
            fields
                .value(slice.component, c.map(|x| x as i64))
                .re()
                .to_f64()
        })
        .collect();
    let part = if T::NAME.starts_with('c') { "re " } else { "" };
    let name = slice.component.name();
    let time = scene.units.to_scene_time(step as f64 * scene.dt());
    let when = match scene.units {
        Units::Si { .. } => {
            let (prefix, factor) = yee_io::style::si_prefix(time);
            format!(
                "step {step}, t = {} {prefix}s",
                yee_io::style::tick(time / factor)
            )
        }
        Units::Normalised => format!("step {step}, t = {}", yee_io::style::tick(time)),
        Units::Lengths { .. } => format!("step {step}, t = {} a/c", yee_io::style::tick(time)),
    };
    let (file, title) = if scene.mode.dims() == 3 {
        let at = crate::plane_plot::plane_position(scene, slice.axis, index);
        (
            format!(
                "slice_{name}_{}{}_{step:06}.png",
                slice.axis.name(),
                slice.index
            ),
            format!("{}: {part}{name} at {at}, {when}", scene.name),
        )
    } else {
        (
            format!("slice_{name}_{step:06}.png"),
            format!("{}: {part}{name}, {when}", scene.name),
        )
    };
    let path = out.join(&file);
    let unit = crate::plane_plot::length_unit(scene);
    if scene.mode.dims() == 1 {
        let xs: Vec<f64> = (0..values.len())
            .map(|i| (i as f64 + 0.5) * unit.per_cell)
            .collect();
        let x_label = format!("x ({})", unit.name);
        let plot = yee_io::plot::LinePlot {
            title: &title,
            x_label: &x_label,
            y_label: name,
            xs: &xs,
            curves: &[(name, &values)],
            log_y: false,
        };
        yee_io::plot::write_line_plot(&path, &plot).map_err(|e| io_error(&path, e))?;
        return Ok(file);
    }
    let plot = yee_io::slice_plot::SlicePlot {
        size: axes.map(|a| scene.grid[a.index()]),
        values: &values,
        title: &title,
        axis_names: axes.map(Axis::name),
        unit,
        map: yee_io::slice_plot::ColourMap::Diverging,
        limits: slice.limits,
        bar_label: name,
        outlines: outlines.as_ref().map(|(m, _)| m.as_slice()),
        active: outlines.as_ref().and_then(|(_, a)| a.as_deref()),
        marks: &[],
    };
    yee_io::slice_plot::write_slice_plot(&path, &plot).map_err(|e| io_error(&path, e))?;
    Ok(file)
}
