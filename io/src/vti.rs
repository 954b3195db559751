//! VTK XML image data (`.vti`) with the values in binary: one cell-data array per component
//! (two for complex values: `_re` and `_im`) and per geometry quantity, stored as appended
//! little-endian data (`<AppendedData encoding="raw">`). Uncompressed, a `UInt64` byte count
//! precedes each array and a file is the values' size plus about a kilobyte of XML; with zlib
//! each array is VTK's compressed layout (`vtkZLibDataCompressor`: a `UInt64` header of block
//! count, block size, last block's size and each block's compressed size, then the blocks).
//! ParaView and VTK's `vtkXMLImageDataReader` open both as a uniform grid.

use std::io::Write;

use flate2::Compression as Level;
use flate2::write::ZlibEncoder;
use yee_core::{Real, Scalar};

/// One named array of cell values, x fastest.
pub struct CellArray<'a, T> {
    /// Array name, e.g. "ez".
    pub name: &'a str,
    /// Values over the grid.
    pub values: Values<'a, T>,
}

/// The values of a [`CellArray`].
#[derive(Clone, Copy)]
pub enum Values<'a, T> {
    /// Field values, written in the field's precision (real and imaginary arrays if complex).
    Field(&'a [T]),
    /// Real values written as `Float64`, e.g. the geometry's ε.
    Real(&'a [f64]),
}

/// How the appended arrays are stored.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Compression {
    /// Raw bytes: the fastest to write and read.
    #[default]
    None,
    /// zlib blocks of [`ZLIB_BLOCK`] bytes.
    Zlib,
}

/// The uncompressed size of a zlib block (VTK's readers accept any).
pub const ZLIB_BLOCK: usize = 1 << 20;

/// One array of the file: a part of a [`CellArray`]'s values.
enum Part<'a, T> {
    Re(&'a [T], bool),
    Im(&'a [T], bool),
    Real(&'a [f64]),
}

impl<T: Scalar> Part<'_, T> {
    fn len(&self) -> usize {
        match self {
            Part::Re(v, _) | Part::Im(v, _) => v.len(),
            Part::Real(v) => v.len(),
        }
    }

    /// Bytes per value and the VTK type.
    fn kind(&self) -> (usize, &'static str) {
        match self {
            Part::Re(_, true) | Part::Im(_, true) => (4, "Float32"),
            _ => (8, "Float64"),
        }
    }

    /// Appends the little-endian bytes of values `range` to `bytes`.
    fn encode(&self, range: std::ops::Range<usize>, bytes: &mut Vec<u8>) {
        let mut push = |x: f64, single: bool| match single {
            true => bytes.extend_from_slice(&(x as f32).to_le_bytes()),
            false => bytes.extend_from_slice(&x.to_le_bytes()),
        };
        match self {
            Part::Re(v, single) => v[range].iter().for_each(|x| push(x.re().to_f64(), *single)),
            Part::Im(v, single) => v[range].iter().for_each(|x| push(x.im().to_f64(), *single)),
            Part::Real(v) => v[range].iter().for_each(|&x| push(x, false)),
        }
    }

    /// The array as VTK's zlib layout: header, then the compressed blocks.
    fn compressed(&self) -> std::io::Result<Vec<u8>> {
        let (width, _) = self.kind();
        let per_block = ZLIB_BLOCK / width;
        let n = self.len();
        let blocks = n.div_ceil(per_block);
        let mut bytes = Vec::with_capacity(ZLIB_BLOCK);
        let mut data = Vec::new();
        let mut sizes = Vec::with_capacity(blocks);
        for b in 0..blocks {
            bytes.clear();
            self.encode(b * per_block..n.min((b + 1) * per_block), &mut bytes);
            let mut z = ZlibEncoder::new(Vec::new(), Level::new(1));
            z.write_all(&bytes)?;
            let block = z.finish()?;
            sizes.push(block.len() as u64);
            data.extend_from_slice(&block);
        }
        let last = (n * width % ZLIB_BLOCK) as u64;
        let mut out = Vec::with_capacity(8 * (3 + blocks) + data.len());
        for word in [blocks as u64, ZLIB_BLOCK as u64, last]
            .into_iter()
            .chain(sizes)
        {
            out.extend_from_slice(&word.to_le_bytes());
        }
        out.extend_from_slice(&data);
        Ok(out)
    }
}

/// Writes a `.vti` file of a grid of `grid` cells with spacing `spacing` (scene units).
pub fn write<T: Scalar>(
    out: &mut impl Write,
    grid: [usize; 3],
    spacing: f64,
    arrays: &[CellArray<'_, T>],
    compression: Compression,
) -> std::io::Result<()> {
    let complex = T::NAME.starts_with('c');
    let single = matches!(T::NAME, "f32" | "c32");
    let parts: Vec<(String, Part<'_, T>)> = arrays
        .iter()
        .flat_map(|a| match a.values {
            Values::Field(v) if complex => vec![
                (format!("{}_re", a.name), Part::Re(v, single)),
                (format!("{}_im", a.name), Part::Im(v, single)),
            ],
            Values::Field(v) => vec![(a.name.to_string(), Part::Re(v, single))],
            Values::Real(v) => vec![(a.name.to_string(), Part::Real(v))],
        })
        .collect();
    // Compressed arrays are made first: their sizes set the offsets in the XML.
    let compressed: Vec<Vec<u8>> = match compression {
        Compression::None => Vec::new(),
        Compression::Zlib => parts
            .iter()
            .map(|(_, p)| p.compressed())
            .collect::<std::io::Result<_>>()?,
    };
    let stored = |i: usize| match compression {
        Compression::None => 8 + parts[i].1.len() * parts[i].1.kind().0,
        Compression::Zlib => compressed[i].len(),
    };
    let extent = format!("0 {} 0 {} 0 {}", grid[0], grid[1], grid[2]);
    let compressor = match compression {
        Compression::None => "",
        Compression::Zlib => r#" compressor="vtkZLibDataCompressor""#,
    };
    writeln!(out, r#"<?xml version="1.0"?>"#)?;
    writeln!(
        out,
        r#"<VTKFile type="ImageData" version="1.0" byte_order="LittleEndian" header_type="UInt64"{compressor}>"#
    )?;
    writeln!(
        out,
        r#"  <ImageData WholeExtent="{extent}" Origin="0 0 0" Spacing="{spacing} {spacing} {spacing}">"#
    )?;
    writeln!(out, r#"    <Piece Extent="{extent}">"#)?;
    let first = parts.first().map_or("", |p| p.0.as_str());
    writeln!(out, r#"      <CellData Scalars="{first}">"#)?;
    let mut offset = 0usize;
    for (i, (name, part)) in parts.iter().enumerate() {
        let kind = part.kind().1;
        writeln!(
            out,
            r#"        <DataArray type="{kind}" Name="{name}" format="appended" offset="{offset}"/>"#
        )?;
        offset += stored(i);
    }
    writeln!(out, "      </CellData>")?;
    writeln!(out, "    </Piece>")?;
    writeln!(out, "  </ImageData>")?;
    write!(out, "  <AppendedData encoding=\"raw\">\n   _")?;
    match compression {
        Compression::Zlib => compressed.iter().try_for_each(|c| out.write_all(c))?,
        Compression::None => {
            let mut bytes = Vec::with_capacity(1 << 16);
            for (_, part) in &parts {
                let (width, _) = part.kind();
                out.write_all(&((part.len() * width) as u64).to_le_bytes())?;
                for start in (0..part.len()).step_by(8192) {
                    bytes.clear();
                    part.encode(start..part.len().min(start + 8192), &mut bytes);
                    out.write_all(&bytes)?;
                }
            }
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
                    values: Values::Field(&ez),
                },
                CellArray {
                    name: "hy",
                    values: Values::Field(&hy),
                },
            ],
            Compression::None,
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
                values: Values::Field(&v),
            }],
            Compression::None,
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

    #[test]
    fn zlib_arrays_hold_vtk_block_headers_and_inflate_to_the_values() {
        // Two and a bit blocks of f64, then a geometry array.
        let n = 2 * ZLIB_BLOCK / 8 + 3;
        let ez: Vec<f64> = (0..n).map(|i| (i % 17) as f64 - 8.0).collect();
        let eps = vec![2.25; n];
        let mut file = Vec::new();
        let arrays = [
            CellArray {
                name: "ez",
                values: Values::Field(ez.as_slice()),
            },
            CellArray {
                name: "eps",
                values: Values::Real(&eps),
            },
        ];
        write(&mut file, [n, 1, 1], 1.0, &arrays, Compression::Zlib).unwrap();
        let text = String::from_utf8_lossy(&file[..512]);
        assert!(text.contains(r#"compressor="vtkZLibDataCompressor""#));
        let start = find(&file, b"<AppendedData").unwrap();
        let mut at = start + find(&file[start..], b"_").unwrap() + 1;
        let word = |at: usize| u64::from_le_bytes(file[at..at + 8].try_into().unwrap()) as usize;
        for expected in [&ez, &eps] {
            let (blocks, block, last) = (word(at), word(at + 8), word(at + 16));
            assert_eq!((blocks, block, last), (3, ZLIB_BLOCK, 24));
            let sizes: Vec<usize> = (0..blocks).map(|b| word(at + 24 + 8 * b)).collect();
            at += 24 + 8 * blocks;
            let mut raw = Vec::new();
            for size in sizes {
                let mut z = flate2::read::ZlibDecoder::new(&file[at..at + size]);
                std::io::Read::read_to_end(&mut z, &mut raw).unwrap();
                at += size;
            }
            let back: Vec<f64> = raw
                .chunks(8)
                .map(|b| f64::from_le_bytes(b.try_into().unwrap()))
                .collect();
            assert_eq!(&back, expected);
        }
        assert!(file.len() < 8 * n, "repetitive values compress");
    }
}
