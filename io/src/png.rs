//! Field slices as PNG: a perceptual diverging colour map (Moreland's cool–warm) with
//! symmetric limits, a colour bar with its limits, and the component and step written on top.

use std::io::Write;

use crate::font::{draw_text, text_width};

/// Moreland's cool–warm map ("Diverging Color Maps for Scientific Visualization", 2009),
/// sampled at nine points from −1 (blue) through 0 (grey) to +1 (red).
const COOL_WARM: [[u8; 3]; 9] = [
    [59, 76, 192],
    [98, 130, 234],
    [141, 176, 254],
    [184, 208, 249],
    [221, 221, 221],
    [245, 196, 173],
    [244, 154, 123],
    [222, 96, 77],
    [180, 4, 38],
];

/// The colour of `v` in `[-1, 1]` (clamped), interpolated between the map's samples.
pub fn colour(v: f64) -> [u8; 3] {
    let t = ((v.clamp(-1.0, 1.0) + 1.0) / 2.0) * (COOL_WARM.len() - 1) as f64;
    let i = (t.floor() as usize).min(COOL_WARM.len() - 2);
    let f = t - i as f64;
    let (a, b) = (COOL_WARM[i], COOL_WARM[i + 1]);
    std::array::from_fn(|k| (a[k] as f64 + f * (b[k] as f64 - a[k] as f64)).round() as u8)
}

/// A 2D slice of values: `width × height`, row 0 at the bottom (y up), x fastest.
pub struct SliceImage<'a> {
    /// Cells across.
    pub width: usize,
    /// Cells up.
    pub height: usize,
    /// The values, x fastest, bottom row first.
    pub values: &'a [f64],
    /// Title, e.g. "ez step 120".
    pub title: &'a str,
}

const MARGIN: usize = 8;
const TITLE: usize = 30;
const BAR: usize = 20;
const LABELS: usize = 110;

/// Size in pixels of the rendered image of a `width × height` slice.
pub fn image_size(width: usize, height: usize) -> (usize, usize) {
    let scale = pixel_scale(width, height);
    let (w, h) = (width * scale, height.max(1) * scale);
    (
        MARGIN + w + MARGIN + BAR + MARGIN + LABELS,
        TITLE + h.max(120) + MARGIN,
    )
}

/// Cells are drawn as squares of this many pixels: slices are roughly 300–600 px across.
fn pixel_scale(width: usize, height: usize) -> usize {
    let largest = width.max(height).max(1);
    (600 / largest).clamp(1, 16)
}

/// The symmetric colour limit: the 99.5th percentile of |v|, so a few extreme cells (a source
/// in its near field) saturate instead of washing out the waves; the maximum if that is 0.
pub fn colour_limit(values: &[f64]) -> f64 {
    let mut magnitudes: Vec<f64> = values
        .iter()
        .map(|v| v.abs())
        .filter(|v| v.is_finite())
        .collect();
    if magnitudes.is_empty() {
        return 0.0;
    }
    magnitudes.sort_by(f64::total_cmp);
    let high = magnitudes[((magnitudes.len() - 1) as f64 * 0.995) as usize];
    if high > 0.0 {
        high
    } else {
        magnitudes[magnitudes.len() - 1]
    }
}

/// Renders the slice and writes it as an 8-bit RGB PNG.
pub fn write(out: impl Write, slice: &SliceImage) -> Result<(), png::EncodingError> {
    let (w, h) = image_size(slice.width, slice.height);
    let mut image = vec![255u8; 3 * w * h];
    let limit = colour_limit(slice.values);
    let scale = pixel_scale(slice.width, slice.height);
    // A 1D slice is one row: stretch it into a band 32 pixels high.
    let cell_height = if slice.height == 1 { 32 } else { scale };
    for cy in 0..slice.height {
        for cx in 0..slice.width {
            let v = slice.values[cy * slice.width + cx];
            let c = if limit > 0.0 {
                colour(v / limit)
            } else {
                colour(0.0)
            };
            for dy in 0..cell_height {
                for dx in 0..scale {
                    let px = MARGIN + cx * scale + dx;
                    let py = TITLE + (slice.height - 1 - cy) * cell_height + dy;
                    if py < h {
                        let o = 3 * (py * w + px);
                        image[o..o + 3].copy_from_slice(&c);
                    }
                }
            }
        }
    }
    // Colour bar: +limit at the top, −limit at the bottom.
    let bar_x = MARGIN + slice.width * scale + MARGIN;
    let bar_h = h - TITLE - MARGIN;
    for py in 0..bar_h {
        let v = 1.0 - 2.0 * py as f64 / (bar_h.max(2) - 1) as f64;
        let c = colour(v);
        for px in bar_x..bar_x + BAR {
            let o = 3 * ((TITLE + py) * w + px);
            image[o..o + 3].copy_from_slice(&c);
        }
    }
    let black = [0, 0, 0];
    let label_x = bar_x + BAR + 4;
    draw_text(
        &mut image,
        w,
        label_x,
        TITLE,
        &format!("+{limit:.2e}"),
        2,
        black,
    );
    draw_text(&mut image, w, label_x, TITLE + bar_h / 2 - 7, "0", 2, black);
    draw_text(
        &mut image,
        w,
        label_x,
        TITLE + bar_h - 14,
        &format!("-{limit:.2e}"),
        2,
        black,
    );
    let title_x = MARGIN.min(w.saturating_sub(text_width(slice.title, 2)));
    draw_text(&mut image, w, title_x, 8, slice.title, 2, black);

    write_rgb(out, w, h, &image)
}

/// Writes `rgb` (3 bytes per pixel, top row first) as an 8-bit RGB PNG of `w × h`.
pub fn write_rgb(
    out: impl Write,
    w: usize,
    h: usize,
    rgb: &[u8],
) -> Result<(), png::EncodingError> {
    let mut encoder = png::Encoder::new(out, w as u32, h as u32);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header()?;
    writer.write_image_data(rgb)?;
    writer.finish()
}

/// [`write_rgb`] into a new file at `path` ([`crate::atomic`]).
pub fn save_rgb(path: &std::path::Path, w: usize, h: usize, rgb: &[u8]) -> std::io::Result<()> {
    crate::atomic::write_with(path, |out| write_rgb(out, w, h, rgb))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn map_is_symmetric_around_grey() {
        assert_eq!(colour(0.0), [221, 221, 221]);
        assert_eq!(colour(-1.0), [59, 76, 192]);
        assert_eq!(colour(1.0), [180, 4, 38]);
        assert_eq!(colour(7.0), colour(1.0));
    }

    #[test]
    fn a_single_extreme_cell_does_not_set_the_limit() {
        let mut values = vec![1.0; 1000];
        values[3] = -1e6;
        assert_eq!(colour_limit(&values), 1.0);
        assert_eq!(colour_limit(&[0.0, 0.0, 2.0]), 2.0);
    }

    #[test]
    fn writes_a_decodable_png_of_the_stated_size() {
        let values: Vec<f64> = (0..50 * 40)
            .map(|i| ((i % 50) as f64 - 25.0) / 25.0)
            .collect();
        let slice = SliceImage {
            width: 50,
            height: 40,
            values: &values,
            title: "ez step 12",
        };
        let mut bytes = Vec::new();
        write(&mut bytes, &slice).unwrap();
        let decoder = png::Decoder::new(bytes.as_slice());
        let reader = decoder.read_info().unwrap();
        let (w, h) = image_size(50, 40);
        assert_eq!(
            (reader.info().width as usize, reader.info().height as usize),
            (w, h)
        );
    }
}
