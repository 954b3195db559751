//! The mask of active cells of a scene (Smyk & Tudruj 2011's irregular computational areas):
//! from geometry (the built-in material `inactive`, also as the background) and from images
//! (`[mask] image` in 2D, `[mask] images`, one per z plane, in 3D). A cell is active when
//! both say so. Images are read as in the slice PNGs yee writes: the top row is the highest
//! y; a pixel is inactive when it is dark (luma below one half) or transparent.

use std::path::{Path, PathBuf};

use yee_em::Shape;

use super::SceneError;

/// The name of the built-in material that marks cells as not computed.
pub const INACTIVE: &str = "inactive";

/// Default tile extent along each used axis.
pub const DEFAULT_TILE: usize = 8;

/// The active cells from geometry: the last shape containing a cell's centre decides (its
/// material `inactive` or not), else the background. `layers` are `(shape, inactive)` in
/// scene order. `None` when nothing is inactive.
pub fn from_geometry(
    grid: [usize; 3],
    background_inactive: bool,
    layers: &[(Shape, bool)],
) -> Option<Vec<bool>> {
    if !background_inactive && !layers.iter().any(|(_, inactive)| *inactive) {
        return None;
    }
    let cells = grid.iter().product();
    Some(
        (0..cells)
            .map(|i| {
                let p = [
                    (i % grid[0]) as f64 + 0.5,
                    ((i / grid[0]) % grid[1]) as f64 + 0.5,
                    (i / (grid[0] * grid[1])) as f64 + 0.5,
                ];
                let inactive = layers
                    .iter()
                    .rev()
                    .find(|(s, _)| s.contains(p))
                    .map_or(background_inactive, |(_, inactive)| *inactive);
                !inactive
            })
            .collect(),
    )
}

/// Reads the images of `[mask]` (paths relative to the scene's folder) into a mask of
/// `grid`; `key` names the scene key in errors.
pub fn from_images(
    scene: &Path,
    key: &str,
    files: &[String],
    grid: [usize; 3],
) -> Result<(Vec<bool>, Vec<PathBuf>), SceneError> {
    let invalid = |message: String| SceneError::Invalid {
        file: scene.to_path_buf(),
        key: key.into(),
        message,
    };
    if files.len() != grid[2] {
        return Err(invalid(format!(
            "has {} image(s), but the grid has {} plane(s) along z",
            files.len(),
            grid[2]
        )));
    }
    let folder = scene.parent().unwrap_or(Path::new("."));
    let mut mask = vec![false; grid.iter().product()];
    let mut paths = Vec::new();
    for (z, name) in files.iter().enumerate() {
        let path = folder.join(name);
        let light = read_plane(&path, name, [grid[0], grid[1]]).map_err(invalid)?;
        for y in 0..grid[1] {
            // Image rows run top-down; y runs up.
            let row = grid[1] - 1 - y;
            for x in 0..grid[0] {
                mask[x + grid[0] * (y + grid[1] * z)] = light[x + grid[0] * row];
            }
        }
        paths.push(path);
    }
    Ok((mask, paths))
}

/// What bounds a mask image's size, in errors.
pub const IMAGE_BOUND: &str = "a PNG image of the grid's size takes";

/// The most bytes a PNG image of `width × height` pixels takes: twice its pixels
/// uncompressed at 8 bytes each (RGBA, 16 bits) with a filter byte per row — deflate's
/// worst case adds a few bytes per 16 KiB — and 1 MiB for ancillary chunks.
pub fn image_bytes_limit(width: usize, height: usize) -> u64 {
    let raw = (height as u64).saturating_mul((width as u64).saturating_mul(8).saturating_add(1));
    raw.saturating_mul(2).saturating_add(1 << 20)
}

/// Reads the image `path` (named `name` in the scene) of `size` pixels: a regular file
/// ([`crate::input`]) of at most [`image_bytes_limit`] bytes, whose header gives that size
/// before its pixels are decoded. Returns its light (active) pixels, top row first; errors
/// start with `name`.
fn read_plane(path: &Path, name: &str, size: [usize; 2]) -> Result<Vec<bool>, String> {
    let [width, height] = size;
    let bytes = crate::input::read_bounded(path, image_bytes_limit(width, height), IMAGE_BOUND)
        .map_err(|e| format!("{name}: {e}"))?;
    let mut decoder = png::Decoder::new(std::io::Cursor::new(bytes));
    // Palettes, 16-bit and low bit depths all become 8-bit grey or RGB(A).
    decoder.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
    let mut reader = decoder
        .read_info()
        .map_err(|e| format!("{name}: not a PNG image ({e})"))?;
    let (w, h) = (reader.info().width as usize, reader.info().height as usize);
    if (w, h) != (width, height) {
        return Err(format!(
            "{name} is {w} × {h} pixels, but the grid is {width} × {height} cells"
        ));
    }
    let mut buffer = vec![0; reader.output_buffer_size()];
    let info = reader
        .next_frame(&mut buffer)
        .map_err(|e| format!("{name}: cannot decode ({e})"))?;
    let channels = info.color_type.samples();
    let light = (0..width * height)
        .map(|n| {
            let px = &buffer[n * channels..(n + 1) * channels];
            let (luma, alpha) = match px {
                [g] => (f64::from(*g), 255.0),
                [g, a] => (f64::from(*g), f64::from(*a)),
                [r, g, b] => (luma(*r, *g, *b), 255.0),
                [r, g, b, a, ..] => (luma(*r, *g, *b), f64::from(*a)),
                [] => (0.0, 0.0),
            };
            luma >= 127.5 && alpha >= 127.5
        })
        .collect();
    Ok(light)
}

/// Rec. 709 luma of an 8-bit RGB pixel.
fn luma(r: u8, g: u8, b: u8) -> f64 {
    0.2126 * f64::from(r) + 0.7152 * f64::from(g) + 0.0722 * f64::from(b)
}

/// Writes `mask` (2D, `width × height`, x fastest, y up) as a black-and-white PNG that
/// [`from_images`] reads back: for scenes made by programs.
pub fn write_png(path: &Path, width: usize, height: usize, mask: &[bool]) -> std::io::Result<()> {
    let file = std::io::BufWriter::new(std::fs::File::create(path)?);
    let mut encoder = png::Encoder::new(file, width as u32, height as u32);
    encoder.set_color(png::ColorType::Grayscale);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header().map_err(std::io::Error::other)?;
    let mut data = vec![0u8; width * height];
    for y in 0..height {
        for x in 0..width {
            data[x + width * (height - 1 - y)] = if mask[x + width * y] { 255 } else { 0 };
        }
    }
    writer
        .write_image_data(&data)
        .map_err(std::io::Error::other)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_image_written_is_read_back_with_y_up() {
        let dir = std::env::temp_dir().join(format!("yee_mask_{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (w, h) = (7, 5);
        // Active: the bottom row and the left column, so a flipped image would differ.
        let mask: Vec<bool> = (0..w * h).map(|i| i % w == 0 || i / w == 0).collect();
        write_png(&dir.join("m.png"), w, h, &mask).unwrap();
        let scene = dir.join("scene.toml");
        let (read, files) =
            from_images(&scene, "mask.image", &["m.png".into()], [w, h, 1]).unwrap();
        assert_eq!(read, mask);
        assert_eq!(files, [dir.join("m.png")]);
        let e = from_images(&scene, "mask.image", &["m.png".into()], [w, h + 1, 1]).unwrap_err();
        assert!(
            e.to_string()
                .ends_with("mask.image: m.png is 7 × 5 pixels, but the grid is 7 × 6 cells"),
            "{e}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn geometry_decides_by_the_last_shape_at_the_cell_centre() {
        let block = |lo: f64, hi: f64| Shape::Block {
            lo: [lo, f64::NEG_INFINITY, f64::NEG_INFINITY],
            hi: [hi, f64::INFINITY, f64::INFINITY],
        };
        // Inactive background; [2, 8) active; [4, 5) inactive again on top.
        let m = from_geometry(
            [10, 1, 1],
            true,
            &[(block(2.0, 8.0), false), (block(4.0, 5.0), true)],
        );
        let expected: Vec<bool> = (0..10).map(|x| (2..8).contains(&x) && x != 4).collect();
        assert_eq!(m, Some(expected));
        assert_eq!(
            from_geometry([10, 1, 1], false, &[(block(2.0, 8.0), false)]),
            None
        );
    }
}
