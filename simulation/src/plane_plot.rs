//! How the app draws a plane of a scene (field slices and geometry previews alike): lengths
//! in cells or in a readable SI unit, the plane's position, material outlines and masked cells.

use yee_core::Axis;
use yee_io::slice_plot::LengthUnit;
use yee_scene::{GeometryOutput, Scene, Units};

/// The unit of a scene's plot axes: cells in normalised scenes, `a` in scenes of lengths in
/// `a`, m/mm/µm/nm in SI ones.
pub fn length_unit(scene: &Scene) -> LengthUnit {
    match scene.units {
        Units::Normalised => LengthUnit::CELLS,
        Units::Lengths { resolution } => LengthUnit {
            name: "a",
            per_cell: 1.0 / resolution,
        },
        Units::Si { cell_size } => {
            LengthUnit::si(cell_size, scene.grid.iter().copied().max().unwrap_or(1))
        }
    }
}

/// "z = 40" (cells) or "z = 20 mm": where a 3D plane lies, at its cells' low faces.
pub fn plane_position(scene: &Scene, axis: Axis, index: usize) -> String {
    let unit = length_unit(scene);
    let at = yee_io::style::tick(index as f64 * unit.per_cell);
    match unit.name {
        "cells" => format!("{} = {index}", axis.name()),
        name => format!("{} = {at} {name}", axis.name()),
    }
}

/// The cells of the plane normal to `axis` at `index` (the grid's one plane in 1D and 2D),
/// across fastest, with the axes across and up.
pub fn plane_cells(scene: &Scene, axis: Axis, index: usize) -> ([Axis; 2], Vec<[usize; 3]>) {
    let (axis, index) = match scene.mode.dims() {
        3 => (axis, index),
        _ => (Axis::Z, 0),
    };
    let axes = match axis {
        Axis::X => [Axis::Y, Axis::Z],
        Axis::Y => [Axis::X, Axis::Z],
        Axis::Z => [Axis::X, Axis::Y],
    };
    let [nu, nv] = axes.map(|a| scene.grid[a.index()]);
    let cells = (0..nv)
        .flat_map(|v| {
            (0..nu).map(move |u| {
                let mut cell = [0; 3];
                cell[axes[0].index()] = u;
                cell[axes[1].index()] = v;
                cell[axis.index()] = index;
                cell
            })
        })
        .collect();
    (axes, cells)
}

/// The material numbers and the mask over a plane's cells, for outlines: `None` when the scene
/// has neither geometry nor a mask (nothing to outline).
pub fn outlines(scene: &Scene, cells: &[[usize; 3]]) -> Option<(Vec<f64>, Option<Vec<f64>>)> {
    if scene.regions.is_empty() && scene.active.is_none() {
        return None;
    }
    let material = scene.geometry_at(GeometryOutput::Material, cells.iter().copied());
    let mask = scene
        .active
        .is_some()
        .then(|| scene.geometry_at(GeometryOutput::Mask, cells.iter().copied()));
    Some((material, mask))
}
