//! What `yee geometry` draws before anything runs (Meep's `plot2D`, gprMax's
//! `#geometry_view`): a plane of the scene's ε with its material outlines and masked cells,
//! and where the CPML, sources, plane waves, probes, flux planes and DFT boxes lie in it.

use yee_core::{Axis, Box3};
use yee_scene::{GeometryOutput, Scene};

/// What a [`Mark`] shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MarkKind {
    /// A CPML layer.
    Cpml,
    /// The nodes a `[[sources]]` entry drives.
    Source,
    /// A plane wave's total-field region.
    PlaneWave,
    /// A probe's cell.
    Probe,
    /// A flux plane.
    Flux,
    /// A `[[dft]]` box.
    Dft,
}

/// A box of the scene where it crosses the plane: cells `lo ≤ (u, v) < hi` of the plane.
#[derive(Clone, Debug, PartialEq)]
pub struct Mark {
    /// What it is.
    pub kind: MarkKind,
    /// Its name for the legend (the scene's name for it, or its kind and number).
    pub label: String,
    /// Lower corner, in cells along the plane's two axes.
    pub lo: [usize; 2],
    /// Upper corner (exclusive).
    pub hi: [usize; 2],
}

/// A plane of the geometry: the grid in 1D and 2D, the cells at `index` along `axis` in 3D.
#[derive(Clone, Debug)]
pub struct PreviewPlane {
    /// The plane's normal (z in 1D and 2D).
    pub axis: Axis,
    /// The plane's cell index along `axis`.
    pub index: usize,
    /// The axes across and up the image.
    pub axes: [Axis; 2],
    /// Cells across and up.
    pub size: [usize; 2],
    /// ε at each cell centre, across fastest.
    pub eps: Vec<f64>,
    /// Material numbers ([`Scene::material_names`]), across fastest.
    pub material: Vec<f64>,
    /// 1 for computed cells, 0 for masked ones, across fastest.
    pub mask: Vec<f64>,
    /// What crosses the plane.
    pub marks: Vec<Mark>,
}

/// The axes across and up a plane normal to `axis`.
pub fn plane_axes(axis: Axis) -> [Axis; 2] {
    match axis {
        Axis::X => [Axis::Y, Axis::Z],
        Axis::Y => [Axis::X, Axis::Z],
        Axis::Z => [Axis::X, Axis::Y],
    }
}

/// The preview of the plane of `scene` normal to `axis` at cell `index` (any plane in 1D and
/// 2D: the grid has one).
pub fn preview_plane(scene: &Scene, axis: Axis, index: usize) -> PreviewPlane {
    let (axis, index) = match scene.mode.dims() {
        3 => (axis, index),
        _ => (Axis::Z, 0),
    };
    let axes = plane_axes(axis);
    let size = axes.map(|a| scene.grid[a.index()]);
    let cells = || {
        (0..size[1]).flat_map(move |v| {
            (0..size[0]).map(move |u| {
                let mut cell = [0; 3];
                cell[axes[0].index()] = u;
                cell[axes[1].index()] = v;
                cell[axis.index()] = index;
                cell
            })
        })
    };
    PreviewPlane {
        axis,
        index,
        axes,
        size,
        eps: scene.geometry_at(GeometryOutput::Eps, cells()),
        material: scene.geometry_at(GeometryOutput::Material, cells()),
        mask: scene.geometry_at(GeometryOutput::Mask, cells()),
        marks: marks(scene, axis, index),
    }
}

/// Every box of the scene that crosses the plane, clipped to the grid.
fn marks(scene: &Scene, axis: Axis, index: usize) -> Vec<Mark> {
    let setup = scene.setup();
    let mut boxes: Vec<(MarkKind, String, Box3)> = Vec::new();
    for (n, layer) in setup.cpml_layers().enumerate() {
        boxes.push((MarkKind::Cpml, format!("cpml {n}"), layer));
    }
    // A [[sources]] entry drives a point, line, plane or box of nodes: their bounding box.
    let mut origins = scene.source_origin.clone();
    origins.sort_unstable();
    origins.dedup();
    for o in origins {
        let nodes = (scene.sources.iter().zip(&scene.source_origin))
            .filter(|&(_, &origin)| origin == o)
            .map(|(s, _)| s.cell);
        if let Some(b) = bounding_box(nodes) {
            boxes.push((MarkKind::Source, format!("source {o}"), b));
        }
    }
    for (n, w) in scene.plane_waves.iter().enumerate() {
        boxes.push((MarkKind::PlaneWave, format!("plane wave {n}"), w.region));
    }
    for (p, name) in scene.probes.iter().zip(&scene.probe_names) {
        boxes.push((
            MarkKind::Probe,
            name.clone(),
            Box3::new(p.cell, p.cell.map(|c| c + 1)),
        ));
    }
    for f in &scene.fluxes {
        for plane in &f.planes {
            boxes.push((MarkKind::Flux, f.name.clone(), plane.cells));
        }
    }
    for d in &scene.dfts {
        boxes.push((
            MarkKind::Dft,
            d.name.clone(),
            scene.monitors[d.monitor].region,
        ));
    }
    let grid = Box3::new([0; 3], scene.grid.map(|n| n as i64));
    let axes = plane_axes(axis);
    let (a, k) = (axis.index(), index as i64);
    boxes
        .into_iter()
        .filter_map(|(kind, label, b)| {
            let b = b.intersect(&grid);
            let crosses = b.lo[a] <= k && k < b.hi[a];
            let empty = (0..3).any(|i| b.lo[i] >= b.hi[i]);
            (crosses && !empty).then(|| Mark {
                kind,
                label,
                lo: axes.map(|u| b.lo[u.index()] as usize),
                hi: axes.map(|u| b.hi[u.index()] as usize),
            })
        })
        .collect()
}

/// The smallest box holding every cell of `cells`.
fn bounding_box(cells: impl Iterator<Item = [i64; 3]>) -> Option<Box3> {
    cells.fold(None, |b: Option<Box3>, c| {
        let hi = c.map(|x| x + 1);
        Some(match b {
            None => Box3::new(c, hi),
            Some(b) => Box3::new(
                core::array::from_fn(|i| b.lo[i].min(c[i])),
                core::array::from_fn(|i| b.hi[i].max(hi[i])),
            ),
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scene(text: &str) -> Scene {
        let dir = std::env::temp_dir().join(format!("yee-preview-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(format!("{:x}.toml", text.len()));
        std::fs::write(&path, text).unwrap();
        yee_scene::load(&path).unwrap()
    }

    #[test]
    fn a_2d_plane_holds_the_geometry_and_marks_what_lies_in_it() {
        let s = scene(
            r#"name = "p"
[grid]
mode = "tmz"
size = [40, 30]
[boundaries]
all = "cpml"
[boundaries.cpml]
thickness = 5
[materials.glass]
eps = 4.0
[[geometry]]
shape = "box"
material = "glass"
lo = [10, 10]
hi = [20, 15]
[[sources]]
component = "ez"
lo = [8, 3]
hi = [8, 26]
waveform = "ricker"
frequency = 0.1
[[probes]]
name = "here"
component = "ez"
position = [30, 12]
[run]
steps = 1
"#,
        );
        let p = preview_plane(&s, Axis::Z, 0);
        assert_eq!(p.size, [40, 30]);
        assert_eq!(p.eps[12 * 40 + 15], 4.0);
        assert_eq!(p.eps[12 * 40 + 25], 1.0);
        assert_eq!(p.material[12 * 40 + 15], 1.0);
        let probe = p.marks.iter().find(|m| m.kind == MarkKind::Probe).unwrap();
        assert_eq!(
            (probe.label.as_str(), probe.lo, probe.hi),
            ("here", [30, 12], [31, 13])
        );
        let source: Vec<&Mark> = p
            .marks
            .iter()
            .filter(|m| m.kind == MarkKind::Source)
            .collect();
        assert_eq!(source.len(), 1);
        assert_eq!((source[0].lo, source[0].hi), ([8, 3], [9, 26]));
        let cpml = p.marks.iter().filter(|m| m.kind == MarkKind::Cpml).count();
        assert_eq!(cpml, 4);
    }
}
