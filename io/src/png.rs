//! PNG basics: the diverging colour map of field slices (Moreland's cool–warm) with its robust
//! symmetric limit, and RGB buffers written as PNG files.

use std::io::Write;

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

/// Reads an 8-bit RGB PNG: `(width, height, 3 bytes per pixel, top row first)`, by the `png`
/// crate's decoder (what the tests read the plots back with).
pub fn read_rgb(path: &std::path::Path) -> std::io::Result<(u32, u32, Vec<u8>)> {
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(path)?));
    let mut reader = decoder.read_info().map_err(std::io::Error::other)?;
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).map_err(std::io::Error::other)?;
    if (info.color_type, info.bit_depth) != (png::ColorType::Rgb, png::BitDepth::Eight) {
        return Err(std::io::Error::other(format!(
            "{}: {:?} {:?}, not 8-bit RGB",
            path.display(),
            info.color_type,
            info.bit_depth
        )));
    }
    buf.truncate(info.buffer_size());
    Ok((info.width, info.height, buf))
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
}
