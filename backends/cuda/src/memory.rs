//! The device memory a chunk of a scene needs on the CUDA backend, part by part: what
//! `yee check` prints and what the device chunk allocates (it sizes its staging buffer with
//! [`halo_staging_values`]).

use yee_core::{Box3, share_directions};
use yee_em::halo::{ELECTRIC_PHASE, HaloShape, MAGNETIC_PHASE, halo_values};
use yee_em::{Component, Mode, Setup};

use crate::kernels::Precision;

/// Bytes of device memory per part of one chunk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DeviceMemory {
    /// The field components over the owned box and its ghost layers.
    pub fields: u64,
    /// A 2-byte material id per component node.
    pub ids: u64,
    /// The `[decay, gain]` pairs of each material (E and H) and the CPML stretch tables
    /// (`[b, c, 1/κ]` at integer and half positions along each axis).
    pub tables: u64,
    /// The CPML ψ arrays of the layers inside the chunk.
    pub psi: u64,
    /// The halo staging buffer (every halo of one phase) and the divergence flag and key.
    pub staging: u64,
    /// The DFT monitors' running sums over their nodes in the chunk and each monitor's step
    /// weights.
    pub dft: u64,
    /// The polarisations of the dispersive nodes (two slots of every pole and a scratch value
    /// per node, with its cell, offset, first pole and material), at most: every electric node
    /// of the chunk within one cell of a region with poles, and for a sphere or a cylinder
    /// within its shape grown by √3 (all of them when the background has poles), each with
    /// every pole of the scene.
    pub poles: u64,
    /// The tensor nodes (cell, offset, eight neighbours and two weights each), at most: every
    /// node of the chunk within one cell of a region of a full-tensor material, and the nodes
    /// whose voxel a smoothed sphere's or cylinder's surface may cross off the axes (a shell
    /// about the surface).
    pub tensor: u64,
    /// The TF/SF corrections of one launch series (an offset and an incident value each), at
    /// most one per node of each plane wave's surface slabs in the chunk.
    pub incident: u64,
}

/// The divergence flag (an `int`) and the first non-finite key (a `u64`).
pub const DIVERGENCE_BYTES: u64 = 4 + 8;

impl DeviceMemory {
    /// The device memory of the chunk owning `owned` of `setup`, with field values of type
    /// `precision` (its coefficients real) and `materials` distinct node media (the
    /// coefficient tables' length: the chunk's own count once built, else an estimate).
    pub fn of(setup: &Setup, owned: Box3, precision: Precision, materials: usize) -> Self {
        let mode = setup.mode;
        let (value, real) = (precision.value_bytes(), precision.real_bytes());
        let storage = owned.grow(mode.active_axes().map(i64::from)).cells() as u64;
        let components = mode.components().len() as u64;
        let stretch: u64 = setup.grid.iter().map(|&n| 2 * 3 * n as u64).sum();
        let psi: u64 = setup
            .cpml_layers_with_axes()
            .map(|(axis, layer)| {
                let carried = Component::ALL
                    .iter()
                    .filter(|c| mode.has(**c) && c.curl_terms().iter().any(|t| t.axis == axis))
                    .count() as u64;
                layer.intersect(&owned).cells() as u64 * carried
            })
            .sum();
        DeviceMemory {
            fields: components * storage * value,
            ids: components * storage * 2,
            tables: (2 * 2 * materials as u64 + stretch) * real,
            psi: psi * value,
            staging: halo_staging_values(mode, owned, HaloShape::of(setup)) as u64 * value
                + DIVERGENCE_BYTES,
            dft: dft_bytes(setup, owned, value, real),
            poles: pole_bytes(setup, owned, value),
            tensor: tensor_bytes(setup, owned, real),
            incident: (setup.plane_waves.iter())
                .flat_map(|w| w.surface_slabs(mode))
                .map(|slab| slab.intersect(&owned).cells() as u64 * (8 + real))
                .sum(),
        }
    }

    /// The parts with their names, in the order `yee check` prints them.
    pub fn parts(&self) -> [(&'static str, u64); 9] {
        [
            ("fields", self.fields),
            ("ids", self.ids),
            ("coefficients and stretch", self.tables),
            ("ψ", self.psi),
            ("staging", self.staging),
            ("DFT sums", self.dft),
            ("polarisations", self.poles),
            ("tensor nodes", self.tensor),
            ("TF/SF", self.incident),
        ]
    }

    /// All of it.
    pub fn total(&self) -> u64 {
        self.parts().iter().map(|(_, b)| b).sum()
    }
}

/// The DFT sums of every monitor over its nodes in `owned` (`values_per_node` values per node
/// of each component it transforms that the mode carries) and its step weights.
fn dft_bytes(setup: &Setup, owned: Box3, value: u64, real: u64) -> u64 {
    (setup.monitors.iter())
        .map(|m| {
            let per_node = m.values_per_node() as u64;
            let carried = (m.component_list()).filter(|&c| setup.mode.has(c)).count() as u64;
            let nodes = m.region.intersect(&owned).cells() as u64;
            carried * nodes * per_node * value + per_node * real
        })
        .sum()
}

/// The cells of `owned` within one cell of `region`'s shape.
fn near(region: &yee_em::Region, owned: Box3) -> u64 {
    let (lo, hi) = region.shape.bounds();
    let clamp = |x: f64| x.clamp(-1e15, 1e15) as i64;
    let bounds = Box3::new(
        lo.map(|x| clamp(x.floor()) - 1),
        hi.map(|x| clamp(x.ceil()) + 1),
    );
    bounds.intersect(&owned).cells() as u64
}

/// At most the polarisations of the chunk's dispersive nodes (see [`DeviceMemory::poles`]).
fn pole_bytes(setup: &Setup, owned: Box3, value: u64) -> u64 {
    let electric = (setup.mode.components().iter())
        .filter(|c| c.is_electric())
        .count() as u64;
    let nodes = match setup.background.poles.is_empty() {
        false => owned.cells() as u64,
        true => (setup.regions.iter())
            .filter(|r| !r.material.poles.is_empty())
            .map(|r| near(r, owned).min(shape_nodes(&r.shape, setup.mode.active_axes())))
            .sum::<u64>()
            .min(owned.cells() as u64),
    };
    let poles = setup.poles.len() as u64;
    // Two slots of every pole and Σ kₚ; the cell, offset and first pole (8 bytes each) and
    // the material (4).
    electric * nodes * ((2 * poles + 1) * value + 3 * 8 + 8 + 8 + 4)
}

/// At most the nodes of one component whose voxel (the cell-sized box centred on the node)
/// meets a sphere or a cylinder (the `active` axes of the mode): such a node lies within √3/2
/// of the shape, and the unit cubes centred on those nodes, disjoint, within √3 of it, so the
/// count is at most the shape grown by √3, by volume in 3D and by area on a 2D grid's plane;
/// `u64::MAX` for other shapes (their box bounds them).
fn shape_nodes(shape: &yee_em::Shape, active: [bool; 3]) -> u64 {
    let h = 3f64.sqrt();
    let pi = core::f64::consts::PI;
    let flat = !active.iter().all(|&a| a);
    let count = match *shape {
        yee_em::Shape::Sphere { radius, .. } if flat => pi * (radius + h).powi(2),
        yee_em::Shape::Sphere { radius, .. } => 4.0 / 3.0 * pi * (radius + h).powi(3),
        yee_em::Shape::Cylinder { radius, axis, .. } if flat && !active[axis.index()] => {
            pi * (radius + h).powi(2)
        }
        yee_em::Shape::Cylinder { radius, length, .. } if !flat => {
            pi * (radius + h).powi(2) * (length + 2.0 * h)
        }
        _ => return u64::MAX,
    };
    count.ceil().min(u64::MAX as f64) as u64
}

/// At most the chunk's tensor nodes (see [`DeviceMemory::tensor`]), component by component.
fn tensor_bytes(setup: &Setup, owned: Box3, real: u64) -> u64 {
    if !setup.has_tensor_nodes() {
        return 0;
    }
    let active = setup.mode.active_axes();
    let nodes = (setup.mode.components().iter())
        .map(|c| {
            (setup.regions.iter())
                .map(|r| match &r.material.coupling {
                    Some(_) => near(r, owned),
                    None if setup.smooths_region_off_diagonal(r, c.is_electric()) => {
                        surface_nodes(&r.shape, active, c.axis().index()).min(near(r, owned))
                    }
                    None => 0,
                })
                .sum::<u64>()
                .min(owned.cells() as u64)
        })
        .sum::<u64>();
    // The cell (3 × 8), the offset, eight neighbours' offsets and two weights.
    nodes * (3 * 8 + 8 + 8 * 8 + 2 * real)
}

/// At most the nodes of a component along axis `along` (the `active` axes of the mode) whose
/// voxel (the cell-sized box centred on the node, `yee_em::smoothing`) a sphere's or a
/// cylinder's surface crosses with a normal off the axes; 0 for other shapes (faces along the
/// axes), for a cylinder's component along its axis and for its flat ends (staircased). Such
/// a node lies within √3/2 of the surface, and the unit cubes centred on those nodes,
/// disjoint, within √3 of it: the count is at most the shell of half-width √3 about the
/// surface, by volume in 3D and by area on a 2D grid's plane (a sphere's section there is
/// at most its radius).
fn surface_nodes(shape: &yee_em::Shape, active: [bool; 3], along: usize) -> u64 {
    let h = 3f64.sqrt();
    let pi = core::f64::consts::PI;
    let annulus = |r: f64| pi * ((r + h).powi(2) - (r - h).max(0.0).powi(2));
    let flat = !active.iter().all(|&a| a);
    let count = match *shape {
        yee_em::Shape::Sphere { radius, .. } if flat => annulus(radius),
        yee_em::Shape::Sphere { radius, .. } => {
            4.0 / 3.0 * pi * ((radius + h).powi(3) - (radius - h).max(0.0).powi(3))
        }
        yee_em::Shape::Cylinder { axis, .. } if axis.index() == along => 0.0,
        yee_em::Shape::Cylinder { radius, axis, .. } if flat => match active[axis.index()] {
            false => annulus(radius),
            true => 0.0,
        },
        yee_em::Shape::Cylinder { radius, length, .. } => annulus(radius) * (length + 1.0),
        _ => 0.0,
    };
    count.ceil().min(u64::MAX as f64) as u64
}

/// Values the device staging buffer holds: every halo the chunk sends after one phase (the
/// larger phase), toward every share direction.
pub fn halo_staging_values(mode: Mode, owned: Box3, shape: HaloShape) -> usize {
    [MAGNETIC_PHASE, ELECTRIC_PHASE]
        .into_iter()
        .map(|phase| {
            share_directions(mode.active_axes())
                .iter()
                .map(|&d| halo_values(mode, owned, phase, d, shape))
                .sum::<usize>()
        })
        .max()
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use yee_em::{Boundary, CpmlParams};

    /// A 3D vacuum grid with 4-cell CPML on both x faces, counted by hand: 6 components over
    /// (10+2)·(8+2)·(6+2) storage nodes, ψ of four components (Ey, Ez, Hy, Hz differentiate
    /// along x) per layer of 4·8·6 cells, halos
    /// of three components on one face per axis (after H toward the high sides, after E
    /// toward the low ones).
    #[test]
    fn the_parts_are_counted_by_hand_and_sum_to_the_total() {
        let cpml = Boundary::Cpml(CpmlParams::with_thickness(4));
        let setup = Setup::vacuum(
            Mode::ThreeD,
            [10, 8, 6],
            0.5,
            [[cpml; 2], [Boundary::Pec; 2], [Boundary::Pec; 2]],
        );
        let owned = Box3::from_extent(setup.grid);
        let m = DeviceMemory::of(&setup, owned, Precision::F32, 3);
        let storage = 12 * 10 * 8;
        assert_eq!(m.fields, 6 * storage * 4);
        assert_eq!(m.ids, 6 * storage * 2);
        assert_eq!(m.tables, (2 * 2 * 3 + 6 * (10 + 8 + 6)) * 4);
        assert_eq!(m.psi, 2 * 4 * (4 * 8 * 6) * 4);
        let faces = 8 * 6 + 10 * 6 + 10 * 8;
        assert_eq!(m.staging, 3 * faces * 4 + DIVERGENCE_BYTES);
        assert_eq!((m.dft, m.poles, m.tensor, m.incident), (0, 0, 0, 0));
        assert_eq!(
            m.total(),
            m.fields + m.ids + m.tables + m.psi + m.staging,
            "the total is the parts' sum"
        );
        assert_eq!(m.parts().iter().map(|p| p.1).sum::<u64>(), m.total());
        // A chunk holding half the grid holds one layer's ψ.
        let half = Box3::new([0, 0, 0], [5, 8, 6]);
        assert_eq!(
            DeviceMemory::of(&setup, half, Precision::F64, 3).psi,
            4 * (4 * 8 * 6) * 8
        );
        // Complex fields: values of two reals, coefficients of one.
        let c = DeviceMemory::of(&setup, owned, Precision::C64, 3);
        assert_eq!(c.fields, 6 * storage * 16);
        assert_eq!(c.tables, (2 * 2 * 3 + 6 * (10 + 8 + 6)) * 8);
        assert_eq!(c.psi, 2 * 4 * (4 * 8 * 6) * 16);
    }

    /// The DFT sums, the polarisations, the tensor nodes and the TF/SF buffers of a small 3D
    /// case, counted by hand from its monitors, regions and plane wave (the
    /// bounds are held against a built chunk's counts in `tests/memory.rs`).
    #[test]
    fn monitors_poles_tensor_nodes_and_plane_waves_are_counted() {
        use yee_em::{DftMonitor, Material, PlaneWave, Region, Shape, Waveform};
        let monitors = [DftMonitor {
            region: Box3::new([2, 2, 2], [6, 5, 4]),
            components: [true, true, true, false, false, false],
            first: 0,
            count: 3,
        }];
        let poles = [yee_em::Pole::Drude {
            frequency: 0.1,
            gamma: 0.01,
            sigma: 1.0,
        }];
        let regions = [Region {
            shape: Shape::Block {
                lo: [1.0, 1.0, 1.0],
                hi: [3.0, 4.0, 2.0],
            },
            material: Material {
                poles: yee_em::PoleSet { first: 0, count: 1 },
                ..Material::VACUUM
            },
        }];
        let waves = [PlaneWave {
            region: Box3::new([2, 2, 2], [7, 6, 5]),
            direction: [1.0, 0.0, 0.0],
            polarization: [0.0, 0.0, 1.0],
            waveform: Waveform::Ricker {
                frequency: 0.05,
                delay: 10.0,
            },
            amplitude: 1.0,
        }];
        let setup = Setup {
            monitors: &monitors,
            poles: &poles,
            regions: &regions,
            plane_waves: &waves,
            frequencies: &[0.1, 0.2, 0.3],
            ..Setup::vacuum(Mode::ThreeD, [10, 8, 6], 0.5, [[Boundary::Pec; 2]; 3])
        };
        let owned = Box3::from_extent(setup.grid);
        let m = DeviceMemory::of(&setup, owned, Precision::C32, 3);
        // 3 components × 4·3·2 nodes × 6 values of 8 bytes, and 6 weights of 4.
        assert_eq!(m.dft, 3 * 24 * 6 * 8 + 6 * 4);
        // Three electric components over (0..4)·(0..5)·(0..3), three values and 44 bytes of
        // index each.
        assert_eq!(m.poles, 3 * (4 * 5 * 3) * (3 * 8 + 44));
        assert_eq!(m.tensor, 0, "no tensor nodes in a block of vacuum");
        let slabs: u64 = waves[0]
            .surface_slabs(Mode::ThreeD)
            .map(|s| s.cells() as u64)
            .sum();
        assert!(slabs > 0);
        assert_eq!(m.incident, slabs * (8 + 4));
        assert_eq!(m.parts().iter().map(|p| p.1).sum::<u64>(), m.total());
    }
}
