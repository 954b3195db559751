//! For any load density, segment speeds and minimum width: borders non-decreasing from 0 to
//! the extent, widths summing to it, enabled widths at least the minimum, the deviation from
//! the ideal no worse than rounding each border alone (minimum 1), and never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use yee_core::verify::verify_rounding;

fuzz_target!(|data: &[u8]| {
    if data.len() < 4 {
        return;
    }
    let segments = 1 + data[0] as usize % 64;
    let min_width = data[1] as usize % 5;
    let rest = &data[2..];
    let (w, d) = rest.split_at((segments).min(rest.len()));
    let weights: Vec<f64> = w.iter().map(|&b| if b == 255 { f64::NAN } else { b as f64 / 16.0 }).collect();
    let density: Vec<f64> = d.iter().map(|&b| b as f64 / 32.0).collect();
    if weights.is_empty() || density.is_empty() {
        return;
    }
    let mut scratch = vec![0.0; 2 * (weights.len() + 1)];
    let mut borders = vec![0i64; 2 * (weights.len() + 1)];
    if let Err(claim) = verify_rounding(&density, &weights, min_width, &mut scratch, &mut borders) {
        panic!("{claim}: density {density:?}, weights {weights:?}, min width {min_width}");
    }
});
