//! For any grid, topology, speeds (some 0: disabled) and minimum width: the jagged and k-d
//! layouts own every cell exactly once, give an empty box exactly to the disabled ranks, keep
//! the neighbour relation symmetric with halo layers covering every ghost cell, refuse only
//! with TooManyRanks, and never panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use yee_core::Topology;
use yee_core::verify::verify_layouts;

fuzz_target!(|data: &[u8]| {
    if data.len() < 8 {
        return;
    }
    let dims = 1 + data[0] as usize % 3;
    let grid: [usize; 3] = std::array::from_fn(|a| {
        if a < dims {
            1 + data[1 + a] as usize % 24
        } else {
            1
        }
    });
    let topology = Topology(std::array::from_fn(|a| {
        if a < dims {
            1 + data[4 + a] as usize % 4
        } else {
            1
        }
    }));
    let min_width = 1 + data[7] as usize % 3;
    let speeds: Vec<f64> = (0..topology.ranks())
        .map(|r| {
            data.get(8 + r)
                .map_or(1.0, |&b| if b < 32 { 0.0 } else { b as f64 / 64.0 })
        })
        .collect();
    let active = std::array::from_fn(|a| a < dims);
    if let Err(claim) = verify_layouts(grid, active, topology, &speeds, min_width) {
        panic!(
            "{claim}: grid {grid:?}, topology {topology:?}, speeds {speeds:?}, min width {min_width}"
        );
    }
});
