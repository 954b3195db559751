//! For any few spheres, cylinders and boxes on a small grid, in 3D or a 2D mode, walled or
//! periodic, smoothed or not: the set-up's stretches (`yee_em::row_placement`) tile every row,
//! and every node they place whole is placed so by the search node by node, unsmoothed.
#![no_main]

use libfuzzer_sys::fuzz_target;
use yee_core::geometry::Axis;
use yee_em::{Boundary, Material, Mode, Region, Setup, Shape};

/// Bytes per region: kind, centre or corner (3), radius or sizes (3), axis, length.
const REGION_BYTES: usize = 9;

fuzz_target!(|data: &[u8]| {
    if data.len() < 3 {
        return;
    }
    let mode = [Mode::ThreeD, Mode::Tmz, Mode::Tez][data[0] as usize % 3];
    let n = 3 + data[1] as usize % 14;
    let grid = match mode {
        Mode::ThreeD => [n, n + 1, n.max(4) - 1],
        _ => [n, n + 2, 1],
    };
    let (periodic, smoothing) = (data[2] & 1 == 1, data[2] & 2 == 0);
    // Quarter cells from -2: shapes land on nodes, faces and between them.
    let at = |b: u8| f64::from(b % 88) / 4.0 - 2.0;
    let size = |b: u8| f64::from(b % 48) / 4.0;
    let regions: Vec<Region> = data[3..]
        .chunks_exact(REGION_BYTES)
        .take(4)
        .enumerate()
        .map(|(k, b)| {
            let corner = [at(b[1]), at(b[2]), at(b[3])];
            let axis = Axis::ALL[b[7] as usize % 3];
            let length = if b[8] == 255 {
                f64::INFINITY
            } else {
                size(b[8])
            };
            let shape = match b[0] % 3 {
                0 => Shape::Sphere {
                    center: corner,
                    radius: size(b[4]),
                },
                1 => Shape::Cylinder {
                    center: corner,
                    radius: size(b[4]),
                    axis,
                    length,
                },
                _ => Shape::Block {
                    lo: corner,
                    hi: [0, 1, 2].map(|a| corner[a] + size(b[4 + a])),
                },
            };
            Region {
                shape,
                material: Material::dielectric(1.5 + k as f64),
            }
        })
        .collect();
    let wall = if periodic {
        Boundary::Periodic
    } else {
        Boundary::Pec
    };
    let setup = Setup {
        regions: &regions,
        smoothing,
        ..Setup::vacuum(mode, grid, 0.5, [[wall; 2]; 3])
    };
    if let Err(e) = setup.verify_row_stretches() {
        panic!("{e:?}: {mode:?} {grid:?}, periodic {periodic}, smoothing {smoothing}, {regions:?}");
    }
});
