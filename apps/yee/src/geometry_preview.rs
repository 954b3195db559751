//! What `yee geometry` draws before anything runs (Meep's `plot2D`, gprMax's
//! `#geometry_view`): a plane of the scene's ε with its material outlines and masked cells,
//! and where the CPML, sources, plane waves, probes, flux planes and DFT boxes lie in it.

use std::fmt::Write as _;

use yee_core::{Axis, Box3};
use yee_scene::{GeometryOutput, Scene};

use yee_io::slice_plot::{ColourMap, PlotMark, SlicePlot, write_slice_plot};

use crate::error::AppError;
use crate::plane_plot::{length_unit, plane_cells, plane_position};

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

/// The preview of the plane of `scene` normal to `axis` at cell `index` (any plane in 1D and
/// 2D: the grid has one).
pub fn preview_plane(scene: &Scene, axis: Axis, index: usize) -> PreviewPlane {
    let (axis, index) = match scene.mode.dims() {
        3 => (axis, index),
        _ => (Axis::Z, 0),
    };
    let (axes, cells) = plane_cells(scene, axis, index);
    PreviewPlane {
        axis,
        index,
        axes,
        size: axes.map(|a| scene.grid[a.index()]),
        eps: scene.geometry_at(GeometryOutput::Eps, cells.iter().copied()),
        material: scene.geometry_at(GeometryOutput::Material, cells.iter().copied()),
        mask: scene.geometry_at(GeometryOutput::Mask, cells.iter().copied()),
        marks: marks(scene, axis, index, axes),
    }
}

/// The colour and legend name of each kind of mark.
fn style_of(kind: MarkKind) -> ([u8; 3], &'static str, bool) {
    match kind {
        MarkKind::Cpml => ([120, 120, 120], "CPML", true),
        MarkKind::Source => ([214, 39, 40], "source", false),
        MarkKind::PlaneWave => ([255, 127, 14], "plane wave (TF/SF)", false),
        MarkKind::Probe => ([44, 160, 44], "probe", false),
        MarkKind::Flux => ([148, 103, 189], "flux plane", false),
        MarkKind::Dft => ([23, 190, 207], "DFT box", false),
    }
}

/// Draws `plane` of `scene` into `out`; returns the file's path.
pub fn write_preview(
    scene: &Scene,
    plane: &PreviewPlane,
    out: &std::path::Path,
) -> Result<std::path::PathBuf, AppError> {
    let mut seen = Vec::new();
    let marks: Vec<PlotMark> = plane
        .marks
        .iter()
        .map(|m| {
            let (colour, name, filled) = style_of(m.kind);
            let legend = (!seen.contains(&m.kind)).then(|| name.to_string());
            seen.push(m.kind);
            // A flux plane lies on its cells' low faces: a line there. A probe or another
            // one-cell-thin box is widened to be seen.
            let grow = |lo: usize, hi: usize| match (hi - lo, m.kind) {
                (1, MarkKind::Flux) => (lo as f64, lo as f64),
                (1, _) => (lo as f64 - 0.5, hi as f64 + 0.5),
                _ => (lo as f64, hi as f64),
            };
            let (u, v) = (grow(m.lo[0], m.hi[0]), grow(m.lo[1], m.hi[1]));
            PlotMark {
                lo: [u.0, v.0],
                hi: [u.1, v.1],
                colour,
                filled,
                legend,
            }
        })
        .collect();
    let title = match scene.mode.dims() {
        3 => format!(
            "{}: ε at {}",
            scene.name,
            plane_position(scene, plane.axis, plane.index)
        ),
        _ => format!("{}: ε", scene.name),
    };
    let active = scene.active.is_some().then_some(plane.mask.as_slice());
    let plot = SlicePlot {
        size: plane.size,
        values: &plane.eps,
        title: &title,
        axis_names: plane.axes.map(Axis::name),
        unit: length_unit(scene),
        map: ColourMap::Sequential,
        limits: None,
        bar_label: "relative permittivity ε",
        outlines: Some(&plane.material),
        active,
        marks: &marks,
    };
    let path = out.join(file_name(scene, plane));
    write_slice_plot(&path, &plot).map_err(|e| crate::error::io_error(&path, e))?;
    Ok(path)
}

/// The planes `yee geometry` draws: the grid's one plane in 1D and 2D; in 3D the plane normal
/// to `axis` at `position` (scene units; default the middle), or without an axis the middle
/// plane normal to each axis.
pub fn planes_of(
    scene: &Scene,
    axis: Option<Axis>,
    position: Option<f64>,
) -> Result<Vec<PreviewPlane>, AppError> {
    if scene.mode.dims() < 3 {
        if axis.is_some() || position.is_some() {
            return Err(AppError::Usage(format!(
                "{}: mode {} has a single plane; --axis and --position are for 3D scenes",
                scene.file.display(),
                scene.mode.name()
            )));
        }
        return Ok(vec![preview_plane(scene, Axis::Z, 0)]);
    }
    let axes = match (axis, position) {
        (Some(a), _) => vec![a],
        (None, Some(_)) => {
            return Err(AppError::Usage(
                "--position needs --axis (the plane's normal)".into(),
            ));
        }
        (None, None) => Axis::ALL.to_vec(),
    };
    axes.into_iter()
        .map(|a| {
            let n = scene.grid[a.index()];
            let index = match position {
                None => n / 2,
                Some(x) => {
                    let i = scene.units.length(x).floor();
                    if !(i >= 0.0 && i < n as f64) {
                        return Err(AppError::Usage(format!(
                            "--position {x} lies outside the grid along {} (extent {n} cells)",
                            a.name()
                        )));
                    }
                    i as usize
                }
            };
            Ok(preview_plane(scene, a, index))
        })
        .collect()
}

/// The file a plane is drawn into: `geometry.png` in 1D and 2D, `geometry_<axis><index>.png`.
pub fn file_name(scene: &Scene, plane: &PreviewPlane) -> String {
    match scene.mode.dims() {
        3 => format!("geometry_{}{}.png", plane.axis.name(), plane.index),
        _ => "geometry.png".into(),
    }
}

/// The materials by number, with their parameters, as text.
pub fn legend(scene: &Scene) -> String {
    let mut text = String::from("materials (the numbers of the `material` output):\n");
    for (n, name) in scene.material_names().iter().enumerate() {
        let m = match n {
            0 => Some(scene.background.1),
            _ => (scene.region_materials.iter().zip(&scene.regions))
                .find(|(r, _)| r.as_str() == *name)
                .map(|(_, region)| region.material),
        };
        let _ = match m {
            Some(m) => writeln!(
                text,
                "  {n:>3} {name}: eps {}, mu {}, sigma {}, sigma_m {}{}",
                m.eps,
                m.mu,
                scene.units.to_scene_sigma(m.sigma),
                scene.units.to_scene_sigma_m(m.sigma_m),
                if m.is_dispersive() {
                    ", dispersive"
                } else {
                    ""
                }
            ),
            None => writeln!(text, "  {n:>3} {name}"),
        };
    }
    text
}

/// Every box of the scene that crosses the plane, clipped to the grid.
fn marks(scene: &Scene, axis: Axis, index: usize, axes: [Axis; 2]) -> Vec<Mark> {
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
        let sources = (scene.sources.iter().zip(&scene.source_origin))
            .filter(|&(_, &origin)| origin == o)
            .map(|(s, _)| s);
        let stagger = sources.clone().next().map(|s| s.component.stagger());
        if let (Some(b), Some(stagger)) = (bounding_box(sources.map(|s| s.cell)), stagger) {
            boxes.push((
                MarkKind::Source,
                format!("source {o}"),
                node_span(b, stagger),
            ));
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
/// The cells `b` of a source's nodes drawn as the span of the nodes themselves: along an axis
/// where it holds several nodes at whole coordinates, the last lies on the box's high face
/// (docs/scene.md, "The same rule for sources and monitors"), so the span ends there, not a
/// cell beyond; a single node keeps its cell.
fn node_span(b: Box3, stagger: [f64; 3]) -> Box3 {
    let hi = core::array::from_fn(|a| match b.hi[a] - b.lo[a] > 1 && stagger[a] == 0.0 {
        true => b.hi[a] - 1,
        false => b.hi[a],
    });
    Box3::new(b.lo, hi)
}

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
        // Its Ez nodes at y = 3 … 26: drawn from 3 to 26, as the box it was given.
        assert_eq!((source[0].lo, source[0].hi), ([8, 3], [9, 26]));
        let cpml = p.marks.iter().filter(|m| m.kind == MarkKind::Cpml).count();
        assert_eq!(cpml, 4);
    }
}
