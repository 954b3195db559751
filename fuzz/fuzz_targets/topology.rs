//! For any grid, dimensionality, rank count and reach: the chosen topology is feasible, no
//! factorisation has a smaller share surface, the uniform chunks tile the grid, every chunk is
//! at least the reach wide — or the error is right that none fits. Never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use yee_core::verify::verify_choice;

fuzz_target!(|data: &[u8]| {
    if data.len() < 9 {
        return;
    }
    let u16_at = |i: usize| u16::from_le_bytes([data[i], data[i + 1]]) as usize;
    let dims = 1 + data[0] as usize % 3;
    let grid = [1 + u16_at(1) % 4096, if dims >= 2 { 1 + u16_at(3) % 4096 } else { 1 }, if dims >= 3 { 1 + u16_at(5) % 4096 } else { 1 }];
    let ranks = data[7] as usize % 65;
    let reach = 1 + data[8] as usize % 4;
    if let Err(claim) = verify_choice(grid, dims, ranks, reach) {
        panic!("{claim}: grid {grid:?}, dims {dims}, ranks {ranks}, reach {reach}");
    }
});
