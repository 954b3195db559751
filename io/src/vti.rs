//! VTK XML image data (`.vti`), ASCII, one cell-data array per component (two for complex
//! values: `_re` and `_im`). ParaView opens it as a uniform grid.

use std::io::Write;

use yee_core::{Real, Scalar};

/// Extracts one real number (real or imaginary part) from a value.
type Part<T> = fn(T) -> f64;

/// One named array of cell values, x fastest.
pub struct CellArray<'a, T> {
    /// Array name, e.g. "ez".
    pub name: &'a str,
    /// Values over the grid.
    pub values: &'a [T],
}

/// Writes a `.vti` file of a grid of `grid` cells with spacing `spacing` (scene units).
pub fn write<T: Scalar>(
    out: &mut impl Write,
    grid: [usize; 3],
    spacing: f64,
    arrays: &[CellArray<'_, T>],
) -> std::io::Result<()> {
    let extent = format!("0 {} 0 {} 0 {}", grid[0], grid[1], grid[2]);
    writeln!(out, r#"<?xml version="1.0"?>"#)?;
    writeln!(
        out,
        r#"<VTKFile type="ImageData" version="1.0" byte_order="LittleEndian">"#
    )?;
    writeln!(
        out,
        r#"  <ImageData WholeExtent="{extent}" Origin="0 0 0" Spacing="{spacing} {spacing} {spacing}">"#
    )?;
    writeln!(out, r#"    <Piece Extent="{extent}">"#)?;
    let first = arrays.first().map_or("", |a| a.name);
    writeln!(out, r#"      <CellData Scalars="{first}">"#)?;
    let kind = if matches!(T::NAME, "f32" | "c32") {
        "Float32"
    } else {
        "Float64"
    };
    for array in arrays {
        let parts: Vec<(String, Part<T>)> = if T::NAME.starts_with('c') {
            vec![
                (format!("{}_re", array.name), |v: T| v.re().to_f64()),
                (format!("{}_im", array.name), |v: T| v.im().to_f64()),
            ]
        } else {
            vec![(array.name.to_string(), |v: T| v.re().to_f64())]
        };
        for (name, part) in parts {
            writeln!(
                out,
                r#"        <DataArray type="{kind}" Name="{name}" format="ascii">"#
            )?;
            for row in array.values.chunks(grid[0].max(1)) {
                let line: Vec<String> = row.iter().map(|&v| format!("{:e}", part(v))).collect();
                writeln!(out, "          {}", line.join(" "))?;
            }
            writeln!(out, "        </DataArray>")?;
        }
    }
    writeln!(out, "      </CellData>")?;
    writeln!(out, "    </Piece>")?;
    writeln!(out, "  </ImageData>")?;
    writeln!(out, "</VTKFile>")
}
