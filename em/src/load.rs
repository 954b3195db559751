//! The Yee load model: the work of a region (Franek 2016's load density: CPML cells cost
//! [`Costs::cpml`] times a plain cell, dispersive cells [`Costs::dispersive`] more, sources and
//! probes their extra) and per-axis densities of work and memory for static balancing.

use alloc::vec::Vec;
// Float gives f64 its math in a pure no_std build.
#[allow(unused_imports)]
use num_traits::Float;

use yee_core::{Box3, Index3, Side};

use crate::{Costs, Setup, Shape};

/// The work of updating `region` for one step (Franek's load): one per cell, `costs.cpml − 1`
/// more per cell for each CPML layer it lies in, `dispersive` for its dispersive cells (in cell
/// units: [`Costs::dispersive`] per cell), and the extra cost of each source and probe
/// cell inside it; the cells of a plane wave's TF/SF surface (`surfaces`, see
/// [`crate::PlaneWave::surface_slabs`]) are source cells. A backend's `Chunk::work` and the
/// static balancer's densities both use it.
pub fn work_of(
    region: Box3,
    cpml_layers: impl Iterator<Item = Box3>,
    surfaces: impl Iterator<Item = Box3>,
    sources: impl Iterator<Item = Index3>,
    probes: impl Iterator<Item = Index3>,
    dispersive: f64,
    costs: &Costs,
) -> f64 {
    let mut work = region.cells() as f64 + dispersive;
    for layer in cpml_layers {
        work += (costs.cpml - 1.0) * layer.intersect(&region).cells() as f64;
    }
    for slab in surfaces {
        work += costs.source * slab.intersect(&region).cells() as f64;
    }
    work += costs.source * sources.filter(|&c| region.contains(c)).count() as f64;
    work += costs.probe * probes.filter(|&c| region.contains(c)).count() as f64;
    work
}

/// Per-axis load densities of a whole grid (the work of each one-cell slice), for Franek's
/// static balancing; computed from the layer boxes, never from a mesh. This is the *summed*
/// model: a slice along x counts every CPML cell it holds, those of the y and z layers too,
/// so a cell where layers overlap counts `costs.cpml − 1` once per layer (as
/// [`work_of`], and the backends' ψ updates, do).
pub fn slice_densities(setup: &Setup, costs: &Costs) -> [Vec<f64>; 3] {
    densities(setup, costs, false)
}

/// Franek's per-axis load densities (Franek 2016, §2.1 and §2.2, the wind-turbine example of
/// §3): along each axis a slice weighs 1 per cell, `costs.cpml` per cell in that axis' own
/// CPML layers ("applying the 1D procedure independently on each mesh dimension" with
/// `l_m = 1.86` in the PML); the CPML layers of the other axes, which run across every slice,
/// are left out. Dispersive cells, sources, probes and plane-wave surfaces count as in
/// [`slice_densities`]. With CPML only, this is the paper's piecewise-constant `l(i)` times
/// the slice's cell count, which reproduces its 389×291×164 last segment.
pub fn slice_densities_per_axis(setup: &Setup, costs: &Costs) -> [Vec<f64>; 3] {
    densities(setup, costs, true)
}

fn densities(setup: &Setup, costs: &Costs, own_axis_only: bool) -> [Vec<f64>; 3] {
    let whole = Box3::from_extent(setup.grid);
    core::array::from_fn(|a| {
        let mut out = alloc::vec![0.0; setup.grid[a]];
        region_slice_densities(setup, costs, whole, a, own_axis_only, &mut out);
        out
    })
}

/// The work of each one-cell slice of `region` across axis `axis` into `out` (one value per
/// slice, from `region.lo[axis]`): [`slice_densities`] (`own_axis_only` false) or
/// [`slice_densities_per_axis`] (true) restricted to a box, the density the cuts of a jagged or
/// k-d layout invert (`yee_core::box_layout::CostDensity`).
pub fn region_slice_densities(
    setup: &Setup,
    costs: &Costs,
    region: Box3,
    axis: usize,
    own_axis_only: bool,
    out: &mut [f64],
) {
    let axis = yee_core::Axis::from_index(axis);
    let layers: Vec<(yee_core::Axis, Box3)> = setup.cpml_layers_with_axes().collect();
    let surfaces: Vec<Box3> = setup
        .plane_waves
        .iter()
        .flat_map(|w| w.surface_slabs(setup.mode))
        .collect();
    slices_of(region, axis, out, |slice| {
        work_of(
            slice,
            layers
                .iter()
                .filter(|(a, _)| !own_axis_only || *a == axis)
                .map(|&(_, b)| b),
            surfaces.iter().copied(),
            setup.sources.iter().map(|s| s.cell),
            setup.probes.iter().map(|p| p.cell),
            dispersive_work(setup, slice, costs),
            costs,
        )
    });
}

/// The work of `region` for one step under the load model of [`work_of`] (every CPML layer,
/// plane-wave surface, source, probe and dispersive cell of `setup` inside it): what a rank
/// holding `region` computes, for judging a layout.
pub fn box_work(setup: &Setup, region: Box3, costs: &Costs) -> f64 {
    let surfaces: Vec<Box3> = setup
        .plane_waves
        .iter()
        .flat_map(|w| w.surface_slabs(setup.mode))
        .collect();
    work_of(
        region,
        setup.cpml_layers(),
        surfaces.into_iter(),
        setup.sources.iter().map(|s| s.cell),
        setup.probes.iter().map(|p| p.cell),
        dispersive_work(setup, region, costs),
        costs,
    )
}

/// The extra work of the dispersive cells of `b` (an estimate from the shapes, never a mesh):
/// each region of a dispersive material adds [`Costs::dispersive`] of its pole count for each
/// cell of `b` whose centre it holds, and a dispersive background for the cells no region
/// holds. Overlaps count once per region, so a later region over a dispersive one counts both.
pub fn dispersive_work(setup: &Setup, b: Box3, costs: &Costs) -> f64 {
    let active = setup.mode.active_axes();
    let mut covered = 0.0;
    let mut work = 0.0;
    for r in setup.regions {
        let cells = cells_in(&r.shape, b, active);
        covered += cells;
        work += costs.dispersive(r.material.poles.count) * cells;
    }
    let background = (b.cells() as f64 - covered).max(0.0);
    work + costs.dispersive(setup.background.poles.count) * background
}

/// The cells of `b` whose centre (0 on the axes the mode does not use) `shape` holds.
pub fn cells_in(shape: &Shape, b: Box3, active: [bool; 3]) -> f64 {
    let centre = |a: usize, i: i64| if active[a] { i as f64 + 0.5 } else { 0.0 };
    let (lo, hi) = shape.bounds();
    // The index range of cells whose centre lies in [lo, hi] along each axis.
    let mut clip = b;
    for a in 0..3 {
        if active[a] {
            let first = (lo[a] - 0.5).ceil().clamp(b.lo[a] as f64, b.hi[a] as f64);
            let last = ((hi[a] - 0.5).floor() + 1.0).clamp(b.lo[a] as f64, b.hi[a] as f64);
            clip.lo[a] = first as i64;
            clip.hi[a] = (last as i64).max(clip.lo[a]);
        } else if !(lo[a] <= 0.0 && 0.0 <= hi[a]) {
            return 0.0;
        }
    }
    match shape {
        Shape::Everywhere | Shape::Block { .. } => clip.cells() as f64,
        _ => (0..clip.cells())
            .filter(|&n| {
                let p = clip.index_at(n);
                shape.contains(core::array::from_fn(|a| centre(a, p[a])))
            })
            .count() as f64,
    }
}

/// Per-axis memory densities (bytes of each one-cell slice on the host backends): per cell,
/// each component's value and its 2-byte material id; per cell of a CPML layer, the ψ value
/// of each component that differentiates along the layer's axis; per dispersive cell and
/// electric component, two polarisations per pole, a scratch value and 40 bytes of node index
/// (cell, offset, first pole). For balancing memory instead of time (Franek 2016, §4).
pub fn slice_memory_densities(setup: &Setup, value_bytes: usize) -> [Vec<f64>; 3] {
    let components = setup.mode.components();
    let per_cell = (components.len() * (value_bytes + 2)) as f64;
    let layers: Vec<(yee_core::Axis, Box3)> = setup.cpml_layers_with_axes().collect();
    per_slice(setup, |_, slice| {
        let psi: f64 = layers
            .iter()
            .map(|&(axis, layer)| {
                let differentiating = components
                    .iter()
                    .filter(|c| c.curl_terms().iter().any(|t| t.axis == axis))
                    .count();
                (differentiating * value_bytes * layer.intersect(&slice).cells()) as f64
            })
            .sum();
        let electric = components.iter().filter(|c| c.is_electric()).count() as f64;
        let node = Costs {
            dispersive_cell: value_bytes as f64 + 40.0,
            dispersive_pole: 2.0 * value_bytes as f64,
            ..Costs::default()
        };
        per_cell * slice.cells() as f64 + psi + electric * dispersive_work(setup, slice, &node)
    })
}

/// `load(slice)` for every one-cell slice of every axis.
fn per_slice(setup: &Setup, load: impl Fn(yee_core::Axis, Box3) -> f64) -> [Vec<f64>; 3] {
    let whole = Box3::from_extent(setup.grid);
    core::array::from_fn(|a| {
        let axis = yee_core::Axis::from_index(a);
        let mut out = alloc::vec![0.0; setup.grid[a]];
        slices_of(whole, axis, &mut out, |slice| load(axis, slice));
        out
    })
}

/// `load(slice)` for each one-cell slice of `region` across `axis`, into `out`.
fn slices_of(region: Box3, axis: yee_core::Axis, out: &mut [f64], load: impl Fn(Box3) -> f64) {
    let lo = region.lo[axis.index()];
    for (i, o) in out.iter_mut().enumerate() {
        let at = lo + i as i64;
        *o = load(
            region
                .with_bound(axis, Side::Low, at)
                .with_bound(axis, Side::High, at + 1),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use yee_core::Axis;

    #[test]
    fn cells_in_counts_the_centres_a_shape_holds() {
        let all = [true; 3];
        let b = Box3::from_extent([20, 20, 20]);
        let block = Shape::Block {
            lo: [2.0, 3.0, 4.5],
            hi: [6.0, 30.0, 5.5],
        };
        // x: centres 2.5..5.5 (4), y: 3.5..19.5 (17), z: 4.5 and 5.5 (2).
        assert_eq!(cells_in(&block, b, all), (4 * 17 * 2) as f64);
        let sphere = Shape::Sphere {
            center: [10.0; 3],
            radius: 6.0,
        };
        let counted = cells_in(&sphere, b, all);
        let volume = 4.0 / 3.0 * core::f64::consts::PI * 216.0;
        assert!(
            (counted / volume - 1.0).abs() < 0.05,
            "{counted} vs {volume}"
        );
        // One slice of it, and nothing outside.
        let slice = b
            .with_bound(Axis::X, Side::Low, 10)
            .with_bound(Axis::X, Side::High, 11);
        assert!(cells_in(&sphere, slice, all) > 100.0);
        let far = b.with_bound(Axis::X, Side::Low, 17);
        assert_eq!(cells_in(&sphere, far, all), 0.0);
        // A 1D box must hold the unused axes' 0.
        let line = [true, false, false];
        let above = Shape::Block {
            lo: [0.0, 1.0, -1.0],
            hi: [5.0, 2.0, 1.0],
        };
        assert_eq!(cells_in(&above, Box3::from_extent([10, 1, 1]), line), 0.0);
    }
}
