//! `yee check`'s device memory line ([`DeviceMemory::of`]) against the chunk the scalar backend
//! builds for the same setup ([`YeeState`], whose arrays the device chunk uploads): its bounds
//! on the polarisations and tensor nodes hold the real counts, and its DFT sums are the
//! state's, value for value, on every mode of the device's conformance case, f32 and c64.

use yee_core::{Box3, Scalar};
use yee_cuda::kernels::Precision;
use yee_cuda::memory::DeviceMemory;
use yee_em::Mode;
use yee_scalar::state::YeeState;
use yee_tests::conformance_cases::{MODES, device_physics};

fn check<T: Scalar>(mode: Mode, precision: Precision) {
    let setup = device_physics(mode);
    let owned = Box3::from_extent(setup.grid);
    let state = YeeState::<T>::new(&setup, owned);
    let m = DeviceMemory::of(&setup, owned, precision, setup.regions.len() + 2);
    let (value, real) = (precision.value_bytes(), precision.real_bytes());
    let sums: u64 = (state.dft.iter())
        .map(|d| {
            let values: usize = d.sums.iter().flatten().map(Vec::len).sum();
            values as u64 * value + d.monitor.values_per_node() as u64 * real
        })
        .sum();
    assert_eq!(m.dft, sums, "{mode:?}: the DFT sums");
    let poles: u64 = (state.dispersive.iter().flatten())
        .map(|n| {
            let nodes = n.cells.len() as u64;
            let slots = 2 * *n.first.last().unwrap_or(&0) as u64;
            (slots + nodes) * value + nodes * (3 * 8 + 8 + 8 + 4)
        })
        .sum();
    assert!(
        poles > 0 && m.poles >= poles,
        "{mode:?}: {} < {poles}",
        m.poles
    );
    let tensor: u64 = (state.tensor.iter().flatten())
        .map(|t| t.nodes.len() as u64 * (3 * 8 + 8 + 8 * 8 + 2 * real))
        .sum();
    assert!(m.tensor >= tensor, "{mode:?}: {} < {tensor}", m.tensor);
    assert_eq!(tensor > 0, mode != Mode::OneD, "{mode:?}: tensor nodes");
    assert!(m.incident > 0, "{mode:?}: the plane wave's corrections");
}

#[test]
fn the_device_memory_holds_the_chunks_dft_sums_polarisations_and_tensor_nodes() {
    for mode in MODES {
        check::<f32>(mode, Precision::F32);
        check::<num_complex::Complex<f64>>(mode, Precision::C64);
    }
}

/// A sphere and a cylinder off the axes of [`shape_setup`]'s grid.
const SHAPES: [yee_em::Shape; 2] = [
    yee_em::Shape::Sphere {
        center: [20.0, 21.0, 19.5],
        radius: 12.3,
    },
    yee_em::Shape::Cylinder {
        center: [20.0, 20.0, 20.0],
        radius: 9.6,
        axis: yee_core::Axis::Y,
        length: 22.0,
    },
];

/// A 3D grid of 40 × 42 × 40 in PEC walls holding `regions`, with the test poles.
fn shape_setup(regions: &[yee_em::Region]) -> yee_em::Setup<'_> {
    yee_em::Setup {
        regions,
        poles: &yee_tests::TEST_POLES,
        ..yee_tests::vacuum(Mode::ThreeD, [40, 42, 40], 0.5, yee_tests::PEC)
    }
}

/// The tensor nodes of a smoothed sphere and cylinder (3D, f32): the bound holds the state's
/// count and stays within six times it (it counts the shell about the surface, not the
/// shape's box, which here was 14 times the count, and at 256³ put a sphere of radius 76.8
/// at 2.2 GiB).
#[test]
fn the_tensor_node_bound_follows_the_smoothed_surface() {
    use yee_em::{Material, Region};
    for shape in SHAPES {
        let regions = [Region {
            shape,
            material: Material::dielectric(2.25),
        }];
        let setup = shape_setup(&regions);
        assert!(
            setup.smooths_off_diagonal(),
            "{shape:?}: no off-diagonal smoothing"
        );
        let owned = Box3::from_extent(setup.grid);
        let state = YeeState::<f32>::new(&setup, owned);
        let m = DeviceMemory::of(&setup, owned, Precision::F32, 3);
        let nodes: u64 = (state.tensor.iter().flatten())
            .map(|t| t.nodes.len() as u64)
            .sum();
        let real = nodes * (3 * 8 + 8 + 8 * 8 + 2 * 4);
        assert!(nodes > 0, "{shape:?}: no tensor nodes");
        assert!(m.tensor >= real, "{shape:?}: {} < {real}", m.tensor);
        assert!(m.tensor <= 6 * real, "{shape:?}: {} > 6 × {real}", m.tensor);
    }
}

/// The polarisations of a dispersive sphere and cylinder (3D, f32, staircased and smoothed):
/// the bound holds the state's count and stays within 2.2 times it (it counts the shape grown
/// by √3, not the shape's box, which gave this sphere 3.5 times its count).
#[test]
fn the_polarisation_bound_follows_the_shape() {
    use yee_em::Region;
    for shape in SHAPES {
        let regions = [Region {
            shape,
            material: yee_tests::dispersive(2.0, 0, 1),
        }];
        let setup = shape_setup(&regions);
        let owned = Box3::from_extent(setup.grid);
        let state = YeeState::<f32>::new(&setup, owned);
        let m = DeviceMemory::of(&setup, owned, Precision::F32, 3);
        let nodes: u64 = (state.dispersive.iter().flatten())
            .map(|n| n.cells.len() as u64)
            .sum();
        // One pole: two slots and Σ kₚ, then the cell, offset, first pole and material.
        let real = nodes * (3 * 4 + 3 * 8 + 8 + 8 + 4);
        assert!(nodes > 0, "{shape:?}: no dispersive nodes");
        assert!(m.poles >= real, "{shape:?}: {} < {real}", m.poles);
        assert!(
            10 * m.poles <= 22 * real,
            "{shape:?}: {} > 2.2 × {real}",
            m.poles
        );
    }
}
