//! VTK XML image data (`.vti`) with the values in binary: one cell-data array per component
//! (two for complex values: `_re` and `_im`), stored as raw little-endian appended data
//! (`<AppendedData encoding="raw">`, a `UInt64` byte count before each array). ParaView and
//! VTK's `vtkXMLImageDataReader` open it as a uniform grid; a file is the values' size plus
//! about a kilobyte of XML.

use std::io::Write;

use yee_core::{Real, Scalar};

/// One named array of cell values, x fastest.
pub struct CellArray<'a, T> {
    /// Array name, e.g. "ez".
    pub name: &'a str,
    /// Values over the grid.
    pub values: &'a [T],
}

/// Which part of a value an array of the file holds.
#[derive(Clone, Copy)]
enum Part {
    Re,
    Im,
}

/// Writes a `.vti` file of a grid of `grid` cells with spacing `spacing` (scene units).
pub fn write<T: Scalar>(
    out: &mut impl Write,
    grid: [usize; 3],
    spacing: f64,
    arrays: &[CellArray<'_, T>],
) -> std::io::Result<()> {
    let complex = T::NAME.starts_with('c');
    let single = matches!(T::NAME, "f32" | "c32");
    let (kind, width) = if single {
        ("Float32", 4)
    } else {
        ("Float64", 8)
    };
    let parts: Vec<(String, &[T], Part)> = arrays
        .iter()
        .flat_map(|a| {
            if complex {
                vec![
                    (format!("{}_re", a.name), a.values, Part::Re),
                    (format!("{}_im", a.name), a.values, Part::Im),
                ]
            } else {
                vec![(a.name.to_string(), a.values, Part::Re)]
            }
        })
        .collect();
    let extent = format!("0 {} 0 {} 0 {}", grid[0], grid[1], grid[2]);
    writeln!(out, r#"<?xml version="1.0"?>"#)?;
    writeln!(
        out,
        r#"<VTKFile type="ImageData" version="1.0" byte_order="LittleEndian" header_type="UInt64">"#
    )?;
    writeln!(
        out,
        r#"  <ImageData WholeExtent="{extent}" Origin="0 0 0" Spacing="{spacing} {spacing} {spacing}">"#
    )?;
    writeln!(out, r#"    <Piece Extent="{extent}">"#)?;
    let first = parts.first().map_or("", |p| p.0.as_str());
    writeln!(out, r#"      <CellData Scalars="{first}">"#)?;
    let mut offset = 0usize;
    for (name, values, _) in &parts {
        writeln!(
            out,
            r#"        <DataArray type="{kind}" Name="{name}" format="appended" offset="{offset}"/>"#
        )?;
        offset += 8 + values.len() * width;
    }
    writeln!(out, "      </CellData>")?;
    writeln!(out, "    </Piece>")?;
    writeln!(out, "  </ImageData>")?;
    write!(out, "  <AppendedData encoding=\"raw\">\n   _")?;
    let mut bytes = Vec::with_capacity(1 << 16);
    for (_, values, part) in &parts {
        out.write_all(&((values.len() * width) as u64).to_le_bytes())?;
        for chunk in values.chunks(8192) {
            bytes.clear();
            for &v in chunk {
                let x = match part {
                    Part::Re => v.re(),
                    Part::Im => v.im(),
                };
                if single {
                    bytes.extend_from_slice(&(x.to_f64() as f32).to_le_bytes());
                } else {
                    bytes.extend_from_slice(&x.to_f64().to_le_bytes());
                }
            }
            out.write_all(&bytes)?;
        }
    }
    writeln!(out, "\n  </AppendedData>")?;
    writeln!(out, "</VTKFile>")
}

/// The names and byte ranges of the arrays of a `.vti` file [`write`] wrote: what a reader
/// needs to check a file without VTK. Returns `(name, type, offset of the values from the start
/// of the file, byte count)` per array.
pub fn appended_arrays(file: &[u8]) -> Option<Vec<(String, String, usize, usize)>> {
    let start = find(file, b"<AppendedData")?;
    let underscore = start + find(&file[start..], b"_")?;
    let header = std::str::from_utf8(&file[..start]).ok()?;
    let mut out = Vec::new();
    for line in header.lines().filter(|l| l.contains("<DataArray")) {
        let attr = |key: &str| {
            let at = line.find(&format!("{key}=\""))? + key.len() + 2;
            let end = at + line[at..].find('"')?;
            Some(line[at..end].to_string())
        };
        let offset: usize = attr("offset")?.parse().ok()?;
        let at = underscore + 1 + offset;
        let count = u64::from_le_bytes(file.get(at..at + 8)?.try_into().ok()?) as usize;
        out.push((attr("Name")?, attr("type")?, at + 8, count));
    }
    Some(out)
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;
    use num_complex::Complex;

    #[test]
    fn arrays_are_raw_little_endian_after_their_byte_counts() {
        let grid = [3, 2, 1];
        let ez: Vec<f32> = (0..6).map(|i| i as f32 * 0.5 - 1.0).collect();
        let hy: Vec<f32> = (0..6).map(|i| 1.0 / (i as f32 + 1.0)).collect();
        let mut file = Vec::new();
        write(
            &mut file,
            grid,
            0.25,
            &[
                CellArray {
                    name: "ez",
                    values: &ez,
                },
                CellArray {
                    name: "hy",
                    values: &hy,
                },
            ],
        )
        .unwrap();
        let arrays = appended_arrays(&file).unwrap();
        assert_eq!(arrays.len(), 2);
        for ((name, kind, at, bytes), values) in arrays.iter().zip([&ez, &hy]) {
            assert_eq!(kind, "Float32", "{name}");
            assert_eq!(*bytes, 24);
            let back: Vec<f32> = file[*at..at + bytes]
                .chunks(4)
                .map(|b| f32::from_le_bytes(b.try_into().unwrap()))
                .collect();
            assert_eq!(&back, values, "{name}");
        }
        assert!(file.len() < 24 * 2 + 1024);
    }

    #[test]
    fn complex_values_give_a_real_and_an_imaginary_array() {
        let v = vec![Complex::new(1.0f64, -2.0), Complex::new(3.0, 4.0)];
        let mut file = Vec::new();
        write(
            &mut file,
            [2, 1, 1],
            1.0,
            &[CellArray {
                name: "ex",
                values: &v,
            }],
        )
        .unwrap();
        let arrays = appended_arrays(&file).unwrap();
        let names: Vec<&str> = arrays.iter().map(|a| a.0.as_str()).collect();
        assert_eq!(names, ["ex_re", "ex_im"]);
        let im = &arrays[1];
        assert_eq!(im.1, "Float64");
        let second = f64::from_le_bytes(file[im.2 + 8..im.2 + 16].try_into().unwrap());
        assert_eq!(second, 4.0);
    }
}
