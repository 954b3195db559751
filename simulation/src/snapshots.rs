//! Snapshots: whole components as `.npy`, `.vti` (with the geometry) and HDF5, the geometry
//! once, and the `.pvd` collection of the `.vti` files.

use std::path::Path;

use yee_core::Scalar;
use yee_io::{npy, vti};
use yee_runtime::piece::Assembled;
use yee_scene::{GeometryOutput, Scene};

use crate::error::AppError;
use crate::files::write_file;
use crate::hdf5_output::Hdf5Output;

/// The geometry quantities `s` asks for, computed once; written as `.npy` when `npy` (and the
/// snapshots include `.npy`).
pub fn write_geometry(
    scene: &Scene,
    s: &yee_scene::Snapshots,
    out: &Path,
    npy: bool,
) -> Result<Vec<(GeometryOutput, Vec<f64>)>, AppError> {
    let mut geometry = Vec::new();
    for &q in &s.geometry {
        let values = scene.geometry_values(q);
        if npy && s.npy {
            let path = out.join(format!("{}.npy", q.name()));
            write_file(&path, |w| {
                npy::write(w, scene.grid, scene.mode.dims(), &values)
            })?;
        }
        geometry.push((q, values));
    }
    Ok(geometry)
}

/// Writes the snapshot of `fields` at `step` that `s` asks for; returns the files written.
pub fn write_snapshot<T: Scalar>(
    fields: &Assembled<T>,
    scene: &Scene,
    s: &yee_scene::Snapshots,
    geometry: &[(GeometryOutput, Vec<f64>)],
    step: u64,
    out: &Path,
    hdf5: Option<&Hdf5Output>,
) -> Result<Vec<String>, AppError> {
    let mut files = Vec::new();
    let mut arrays = Vec::new();
    let mut components = Vec::new();
    for &c in &s.components {
        let values = fields.fields[c.index()]
            .as_deref()
            .expect("validated: the mode carries it");
        components.push((c, values));
        if s.npy {
            let file = format!("{}_{step:06}.npy", c.name());
            write_file(&out.join(&file), |w| {
                npy::write(w, scene.grid, scene.mode.dims(), values)
            })?;
            files.push(file);
        }
        arrays.push(vti::CellArray {
            name: c.name(),
            values: vti::Values::Field(values),
        });
    }
    if s.vti {
        let file = format!("fields_{step:06}.vti");
        let spacing = scene.units.cell();
        arrays.extend(geometry.iter().map(|(q, values)| vti::CellArray {
            name: q.name(),
            values: vti::Values::Real(values),
        }));
        let compression = match s.zlib {
            true => vti::Compression::Zlib,
            false => vti::Compression::None,
        };
        write_file(&out.join(&file), |w| {
            vti::write(w, scene.grid, spacing, &arrays, compression)
        })?;
        files.push(file);
    }
    if let Some(h) = hdf5 {
        h.write_snapshot(scene, step, &components)?;
    }
    Ok(files)
}

/// `fields.pvd`: the run's `.vti` snapshots (among `outputs`, those of a resumed run's first
/// part included) with their times in scene units, for ParaView to step through. `None` when
/// the run wrote no `.vti`.
pub fn write_collection(
    scene: &Scene,
    outputs: &[String],
    out: &Path,
) -> Result<Option<String>, AppError> {
    let mut series: Vec<(u64, String)> = outputs
        .iter()
        .filter_map(|f| {
            let step = f.strip_prefix("fields_")?.strip_suffix(".vti")?;
            Some((step.parse().ok()?, f.clone()))
        })
        .collect();
    if series.is_empty() {
        return Ok(None);
    }
    series.sort();
    series.dedup();
    let files: Vec<(f64, String)> = series
        .into_iter()
        .map(|(step, f)| (scene.units.to_scene_time(step as f64 * scene.dt()), f))
        .collect();
    let file = "fields.pvd".to_string();
    write_file(&out.join(&file), |w| yee_io::pvd::write(w, &files))?;
    Ok(Some(file))
}
