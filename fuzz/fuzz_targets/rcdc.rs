//! For any mask, tile size and part count: RCDC assigns every active tile exactly once to a
//! part below the count, refuses exactly the counts the graph cannot take, leaves no part empty
//! or in pieces where the area is connected, and never panics.
#![no_main]

use libfuzzer_sys::fuzz_target;
use yee_core::verify::verify_rcdc;

fuzz_target!(|data: &[u8]| {
    if data.len() < 4 {
        return;
    }
    let w = 1 + data[0] as usize % 32;
    let h = 1 + data[1] as usize % 32;
    let tile = 1 + data[2] as usize % 4;
    let parts = data[3] as usize % 17;
    let bits = &data[4..];
    let mask: Vec<bool> = (0..w * h)
        .map(|i| bits.get(i / 8).is_some_and(|b| b >> (i % 8) & 1 == 1))
        .collect();
    if let Err(claim) = verify_rcdc([w, h, 1], &mask, [tile, tile, 1], parts) {
        panic!("{claim}: {w}x{h}, tile {tile}, {parts} parts, mask {mask:?}");
    }
});
