//! The setups the backend conformance suite ([`crate::backend_conformance`]) is run on:
//! every example scene, and per mode a small grid with every code path of a step
//! ([`physics`]); [`device_physics`] is that grid with a plane wave, for the device chunk, and
//! [`bloch_device_physics`] the same made Bloch-periodic (complex fields).

use std::path::Path;

use yee_core::Box3;
use yee_em::{
    Boundary, Component, CpmlParams, DftMonitor, Material, Mode, PointSource, Region, Setup, Shape,
};

const SOURCES: [PointSource; 2] = [
    source(Component::Ez, [7, 6, 5]),
    source(Component::Hz, [9, 8, 6]),
];
const REGIONS: [Region; 4] = [
    Region {
        shape: Shape::Block {
            lo: [3.0, 3.0, 2.0],
            hi: [8.0, 12.0, 9.0],
        },
        material: Material {
            eps: 3.0,
            mu: 1.0,
            sigma: 0.05,
            sigma_m: 0.0,
            poles: yee_em::PoleSet::NONE,
            diagonal: None,
            coupling: None,
        },
    },
    // Drude, Lorentz and Debye poles over the first source, meeting the lossy block, then a
    // Debye-only medium: nodes of one, of two pole sets and of a pole set and none.
    Region {
        shape: Shape::Block {
            lo: [6.0, -1.0, -1.0],
            hi: [11.0, 11.0, 10.0],
        },
        material: crate::dispersive(1.5, 0, 3),
    },
    Region {
        shape: Shape::Block {
            lo: [11.0, -1.0, -1.0],
            hi: [14.0, 11.0, 10.0],
        },
        material: crate::dispersive(2.0, 2, 1),
    },
    // An anisotropic lossy ball over the lossy block and the vacuum: smoothed nodes whose ε,
    // μ and σ depend on their component's axis and on the surface normal.
    Region {
        shape: Shape::Sphere {
            center: [4.3, 8.6, 5.2],
            radius: 2.7,
        },
        material: Material {
            eps: 3.0,
            mu: 1.3,
            sigma: 0.02,
            sigma_m: 0.01,
            poles: yee_em::PoleSet::NONE,
            diagonal: Some(yee_em::Diagonal {
                eps: [2.0, 3.0, 4.0],
                mu: [1.0, 1.5, 1.4],
            }),
            coupling: None,
        },
    },
];

use crate::ricker_source as source;

/// A small grid of `mode` with CPML (κ > 1) on the low faces, PEC and PMC above, a lossy dielectric
/// block, dispersive blocks (Drude, Lorentz and Debye poles), an anisotropic smoothed ball and soft sources (those of the mode's components): every code path of a step.
pub fn physics(mode: Mode) -> Setup<'static> {
    let grid = match mode {
        Mode::OneD => [24, 1, 1],
        Mode::ThreeD => [16, 15, 14],
        _ => [20, 18, 1],
    };
    // κ > 1: the curl's stretch 1/κ differs from 1 inside the layers (the device's curl
    // launch leaves the product out only where 1/κ is 1 over its whole box).
    let cpml = Boundary::Cpml(CpmlParams {
        kappa_max: 3.0,
        ..CpmlParams::with_thickness(4)
    });
    let sources: &'static [PointSource] = match mode {
        Mode::OneD => &SOURCES[..1],
        Mode::Tmz => &SOURCES[..1],
        Mode::Tez => &SOURCES[1..],
        Mode::ThreeD => &SOURCES,
    };
    let sources = if mode.dims() < 3 {
        // The sources sit in the z = 0 plane of lower-dimensional grids.
        Box::leak(
            sources
                .iter()
                .map(|s| PointSource {
                    cell: [s.cell[0], if mode.dims() == 1 { 0 } else { s.cell[1] }, 0],
                    ..*s
                })
                .collect::<Vec<_>>()
                .into_boxed_slice(),
        )
    } else {
        sources
    };
    Setup {
        mode,
        grid,
        courant: 0.5,
        background: Material::VACUUM,
        poles: &crate::TEST_POLES,
        regions: &REGIONS,
        boundaries: [
            [cpml, Boundary::Pec],
            [cpml, Boundary::Pmc],
            [cpml, Boundary::Pec],
        ],
        sources,
        probes: &[],
        plane_waves: &[],
        monitors: monitors(mode, grid),
        frequencies: &[0.03, 0.05, 0.07],
        active: None,
        smoothing: true,
        smoothing_tensor: true,
        bloch: [0.0; 3],
    }
}

/// DFT monitors of `mode` on `grid`: a box over the materials and sources with every
/// component the mode carries, and a plane normal to x (rows of one node) with two of the
/// frequencies.
fn monitors(mode: Mode, grid: [usize; 3]) -> &'static [DftMonitor] {
    // Flat axes (one cell) are spanned whole; the others clipped to the grid.
    let clip = |lo: [i64; 3], hi: [i64; 3]| {
        let flat = |a: usize, v: i64, whole: i64| if grid[a] == 1 { whole } else { v };
        let lo = core::array::from_fn(|a| flat(a, lo[a], 0));
        let hi = core::array::from_fn(|a| flat(a, hi[a], 1));
        Box3::new(lo, hi).intersect(&Box3::from_extent(grid))
    };
    let components = Component::ALL.map(|c| mode.has(c));
    Box::leak(Box::new([
        DftMonitor {
            region: clip([2, 3, 2], [12, 11, 9]),
            components,
            first: 0,
            count: 3,
        },
        DftMonitor {
            region: clip([5, 1, 1], [6, 14, 12]),
            components,
            first: 1,
            count: 2,
        },
    ]))
}

/// Every mode.
pub const MODES: [Mode; 4] = [Mode::OneD, Mode::Tmz, Mode::Tez, Mode::ThreeD];

/// Every example scene (`examples/scenes`), by path, sorted.
pub fn example_scenes() -> Vec<(String, yee_scene::Scene)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/scenes");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    paths.sort();
    assert!(paths.len() >= 5, "the example scenes are there");
    paths
        .into_iter()
        .map(|p| (p.display().to_string(), yee_scene::load(&p).unwrap()))
        .collect()
}

/// The setup of `mode` the CUDA device chunk is checked on: [`physics`] whole (CPML, PEC and
/// PMC walls, a lossy block, dispersive blocks, an anisotropic smoothed ball, soft sources,
/// DFT monitors) with a plane wave (TF/SF) through it and an isotropic ball smoothed with
/// the full tensor (off-diagonal nodes where the mode carries two components of a field).
pub fn device_physics(mode: Mode) -> Setup<'static> {
    let full = physics(mode);
    let flat = |a: usize, lo: i64, hi: i64| if full.grid[a] == 1 { (0, 1) } else { (lo, hi) };
    let (x, y, z) = (flat(0, 6, 15), flat(1, 5, 13), flat(2, 5, 11));
    // Oblique where the mode allows (the incident field interpolated from the auxiliary
    // grid), E across k.
    let (direction, polarization) = match mode {
        Mode::OneD => ([1.0, 0.0, 0.0], [0.0, 0.0, 1.0]),
        Mode::Tmz => ([1.0, 0.4, 0.0], [0.0, 0.0, 1.0]),
        Mode::Tez => ([1.0, 0.4, 0.0], [-0.4, 1.0, 0.0]),
        Mode::ThreeD => ([1.0, 0.5, 0.3], [0.0, -0.3, 0.5]),
    };
    let wave = yee_em::PlaneWave {
        region: Box3::new([x.0, y.0, z.0], [x.1, y.1, z.1]),
        direction,
        polarization,
        waveform: yee_em::Waveform::Ricker {
            frequency: 0.08,
            delay: 12.0,
        },
        amplitude: 0.7,
    };
    // An isotropic ball whose ε and μ its surroundings lack: smoothing's full tensor gives its
    // surface nodes off-diagonal entries (tensor nodes, with edge and corner halos). Clear of
    // the lossy block and ball (the off-diagonal loss has its own case on the device).
    let mut regions = full.regions.to_vec();
    regions.push(Region {
        shape: Shape::Sphere {
            // In the plane of a 2D grid.
            center: [11.2, 9.4, if mode.dims() == 3 { 8.2 } else { 0.3 }],
            radius: 2.6,
        },
        material: Material {
            eps: 2.5,
            mu: 1.6,
            ..Material::VACUUM
        },
    });
    Setup {
        regions: Box::leak(regions.into_boxed_slice()),
        plane_waves: Box::leak(Box::new([wave])),
        ..full
    }
}

/// [`device_physics`] made Bloch-periodic, for complex fields: x periodic with a Bloch
/// wavevector (and y too in 3D, so edge and corner halos wrap across two faces and take the
/// sum of their phases), the other faces as before (CPML below, PEC or PMC above), and probes
/// at the low and high x faces.
pub fn bloch_device_physics(mode: Mode) -> Setup<'static> {
    let full = device_physics(mode);
    let periodic = [Boundary::Periodic; 2];
    let mut boundaries = full.boundaries;
    boundaries[0] = periodic;
    let mut bloch = [0.0173, 0.0, 0.0];
    if mode == Mode::ThreeD {
        boundaries[1] = periodic;
        bloch[1] = -0.0291;
    }
    let high = full.grid[0] as i64 - 1;
    let component = if mode.has(Component::Ez) {
        Component::Ez
    } else {
        Component::Hz
    };
    let probes = [[0, 3, 2], [high, 5, 4]].map(|cell: [i64; 3]| yee_em::Probe {
        component,
        cell: core::array::from_fn(|a| if full.grid[a] == 1 { 0 } else { cell[a] }),
    });
    Setup {
        boundaries,
        bloch,
        probes: Box::leak(Box::new(probes)),
        ..full
    }
}
