//! The Yee load model: the work of a region (Franek 2016's load density: CPML cells cost
//! [`Costs::cpml`] times a plain cell, sources and probes their extra) and per-axis densities
//! of work and memory for static balancing.

use alloc::vec::Vec;

use yee_core::{Box3, Index3, Side};

use crate::{Costs, Setup};

/// The work of updating `region` for one step (Franek's load): one per cell, `costs.cpml − 1`
/// more per cell for each CPML layer it lies in, and the extra cost of each source and probe
/// cell inside it; the cells of a plane wave's TF/SF surface (`surfaces`, see
/// [`crate::PlaneWave::surface_slabs`]) are source cells. A backend's `Chunk::work` and the
/// static balancer's densities both use it.
pub fn work_of(
    region: Box3,
    cpml_layers: impl Iterator<Item = Box3>,
    surfaces: impl Iterator<Item = Box3>,
    sources: impl Iterator<Item = Index3>,
    probes: impl Iterator<Item = Index3>,
    costs: &Costs,
) -> f64 {
    let mut work = region.cells() as f64;
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
/// static balancing; computed from the layer boxes, never from a mesh.
pub fn slice_densities(setup: &Setup, costs: &Costs) -> [Vec<f64>; 3] {
    let layers: Vec<Box3> = setup.cpml_layers().collect();
    let surfaces: Vec<Box3> = setup
        .plane_waves
        .iter()
        .flat_map(|w| w.surface_slabs(setup.mode))
        .collect();
    per_slice(setup, |slice| {
        work_of(
            slice,
            layers.iter().copied(),
            surfaces.iter().copied(),
            setup.sources.iter().map(|s| s.cell),
            setup.probes.iter().map(|p| p.cell),
            costs,
        )
    })
}

/// Per-axis memory densities (bytes of each one-cell slice on the host backends): per cell,
/// each component's value and its 2-byte material id; per cell of a CPML layer, the ψ value
/// of each component that differentiates along the layer's axis. For balancing memory instead
/// of time (Franek 2016, §4).
pub fn slice_memory_densities(setup: &Setup, value_bytes: usize) -> [Vec<f64>; 3] {
    let components = setup.mode.components();
    let per_cell = (components.len() * (value_bytes + 2)) as f64;
    let layers: Vec<(yee_core::Axis, Box3)> = setup.cpml_layers_with_axes().collect();
    per_slice(setup, |slice| {
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
        per_cell * slice.cells() as f64 + psi
    })
}

/// `load(slice)` for every one-cell slice of every axis.
fn per_slice(setup: &Setup, load: impl Fn(Box3) -> f64) -> [Vec<f64>; 3] {
    let whole = Box3::from_extent(setup.grid);
    core::array::from_fn(|a| {
        let axis = yee_core::Axis::from_index(a);
        (0..setup.grid[a] as i64)
            .map(|i| {
                load(
                    whole
                        .with_bound(axis, Side::Low, i)
                        .with_bound(axis, Side::High, i + 1),
                )
            })
            .collect()
    })
}
