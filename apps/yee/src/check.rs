//! `yee check`: the resolved setup of a scene, without running it.

use std::fmt::Write;

use yee_core::{Axis, Boundary, Side};
use yee_runtime::memory::{estimate_bytes, human};
use yee_scene::Scene;

/// Below this many cells per wavelength, numerical dispersion is worth a warning.
pub const MIN_CELLS_PER_WAVELENGTH: f64 = 10.0;

/// The smallest number of cells per wavelength over the sources' highest significant
/// frequency and the densest material, with that frequency; `None` without sources.
pub fn cells_per_wavelength(scene: &Scene) -> Option<(f64, f64)> {
    let f_max = scene
        .sources
        .iter()
        .map(|s| s.waveform.max_frequency())
        .fold(0.0, f64::max);
    if f_max <= 0.0 {
        return None;
    }
    let index = std::iter::once(scene.background.1)
        .chain(scene.regions.iter().map(|r| r.material))
        .map(|m| (m.eps * m.mu).sqrt())
        .fold(1.0, f64::max);
    Some((1.0 / (f_max * index), f_max))
}

/// The report `yee check` prints, and the warnings in it.
pub fn describe(scene: &Scene) -> (String, Vec<String>) {
    let mut s = String::new();
    let mut warnings = Vec::new();
    let dims = scene.mode.dims();
    let extent: Vec<String> = scene.grid[..dims].iter().map(|n| n.to_string()).collect();
    let _ = writeln!(s, "scene       {} ({})", scene.name, scene.file.display());
    let _ = writeln!(
        s,
        "mode        {} ({}D), values {}",
        scene.mode.name(),
        dims,
        scene.value_type.name()
    );
    let _ = writeln!(
        s,
        "grid        {} cells ({} in all), about {} on the scalar backend",
        extent.join(" × "),
        scene.cells(),
        human(estimate_bytes(&scene.setup(), scene.value_type.bytes()))
    );
    let limit = scene.mode.courant_limit();
    let _ = writeln!(
        s,
        "time step   dt = {:.6} ({} units: {:.6e}), Courant {:.6} of limit {:.6}",
        scene.dt(),
        scene.units.name(),
        scene.units.to_scene_time(scene.dt()),
        scene.courant,
        limit
    );
    let _ = writeln!(
        s,
        "run         {} steps = {:.6e} {} time units",
        scene.steps,
        scene.units.to_scene_time(scene.steps as f64 * scene.dt()),
        scene.units.name()
    );
    let (bg_name, bg) = &scene.background;
    let _ = writeln!(
        s,
        "background  {bg_name} (eps {}, mu {}, sigma {})",
        bg.eps, bg.mu, bg.sigma
    );
    for (i, (r, name)) in scene
        .regions
        .iter()
        .zip(&scene.region_materials)
        .enumerate()
    {
        let _ = writeln!(s, "region {i}    {name}: {:?}", r.shape);
    }
    for (i, src) in scene.sources.iter().enumerate() {
        let _ = writeln!(
            s,
            "source {i}    {} {:?} at cell {:?}, amplitude {}, {:?}, significant up to f = {:.6e}",
            src.component.name(),
            src.kind,
            src.cell,
            src.amplitude,
            src.waveform,
            scene.units.to_scene_frequency(src.waveform.max_frequency())
        );
    }
    match cells_per_wavelength(scene) {
        Some((cells, f)) => {
            let _ = writeln!(
                s,
                "resolution  {cells:.1} cells per wavelength at f = {:.6e} in the densest material",
                scene.units.to_scene_frequency(f)
            );
            if cells < MIN_CELLS_PER_WAVELENGTH {
                warnings.push(format!(
                    "only {cells:.1} cells per wavelength at the highest source frequency (below {MIN_CELLS_PER_WAVELENGTH}): expect numerical dispersion; refine the grid or lower the frequency"
                ));
            }
        }
        None => {
            let _ = writeln!(s, "resolution  no sources");
        }
    }
    for axis in Axis::ALL.into_iter().take(dims) {
        let faces: Vec<String> = Side::BOTH
            .iter()
            .map(|&side| match scene.boundaries[axis.index()][side.index()] {
                Boundary::Cpml(p) => format!(
                    "{} cpml ({} cells, m {}, sigma_max {:.3}, kappa_max {}, alpha_max {})",
                    side.name(),
                    p.thickness,
                    p.order,
                    p.resolved_sigma_max(),
                    p.kappa_max,
                    p.alpha_max
                ),
                b => format!("{} {}", side.name(), b.name()),
            })
            .collect();
        let _ = writeln!(s, "boundary {}  {}", axis.name(), faces.join(", "));
    }
    if let Some(active) = &scene.active {
        let on = active.iter().filter(|&&a| a).count();
        let tiles = yee_core::graph::TileGraph::from_mask(scene.grid, active, scene.tile, 1.0)
            .map_or(0, |g| g.len());
        let _ = writeln!(
            s,
            "mask        {on} of {} cells active ({:.1} %); {tiles} tiles of {} hold active cells",
            active.len(),
            100.0 * on as f64 / active.len() as f64,
            scene.tile.map(|t| t.to_string()).join("x")
        );
    }
    for (p, name) in scene.probes.iter().zip(&scene.probe_names) {
        let _ = writeln!(
            s,
            "probe       {name}: {} at cell {:?}",
            p.component.name(),
            p.cell
        );
    }
    for slice in &scene.slices {
        let _ = writeln!(
            s,
            "slice       {} every {} steps",
            slice.component.name(),
            slice.every
        );
    }
    if let Some(snap) = &scene.snapshots {
        let names: Vec<&str> = snap.components.iter().map(|c| c.name()).collect();
        let when = if snap.every == 0 {
            "at the last step".to_string()
        } else {
            format!("every {} steps and at the last", snap.every)
        };
        let _ = writeln!(
            s,
            "snapshots   {} {when}{}{}",
            names.join(", "),
            if snap.npy { ", npy" } else { "" },
            if snap.vti { ", vti" } else { "" }
        );
    }
    (s, warnings)
}
