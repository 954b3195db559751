//! NumPy `.npy` files (format version 1.0): a header dict, then little-endian data in C order.

use std::io::Write;

use yee_core::Scalar;

/// The NumPy type string of `T`: `<f4`, `<f8`, `<c8` or `<c16`.
pub fn descr<T: Scalar>() -> &'static str {
    match T::NAME {
        "f32" => "<f4",
        "f64" => "<f8",
        "c32" => "<c8",
        _ => "<c16",
    }
}

/// The array shape of a grid in C order: `(nz, ny, nx)` in 3D, `(ny, nx)` in 2D, `(nx,)` in 1D
/// (yee stores x fastest).
pub fn shape(grid: [usize; 3], dims: usize) -> Vec<usize> {
    grid[..dims].iter().rev().copied().collect()
}

/// Writes `values` (x fastest over `grid`) as a `.npy` file.
pub fn write<T: Scalar>(
    out: &mut impl Write,
    grid: [usize; 3],
    dims: usize,
    values: &[T],
) -> std::io::Result<()> {
    write_array(out, &shape(grid, dims), values)
}

/// Writes `values` as a `.npy` array of `shape` (C order: the last index fastest).
pub fn write_array<T: Scalar>(
    out: &mut impl Write,
    shape: &[usize],
    values: &[T],
) -> std::io::Result<()> {
    let dims_text = match shape {
        [n] => format!("({n},)"),
        s => format!(
            "({})",
            s.iter()
                .map(|n| n.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    let mut header = format!(
        "{{'descr': '{}', 'fortran_order': False, 'shape': {dims_text}, }}",
        descr::<T>()
    );
    // Magic (6) + version (2) + length (2) + header + '\n' is a multiple of 64.
    let unpadded = 10 + header.len() + 1;
    header.push_str(&" ".repeat(unpadded.next_multiple_of(64) - unpadded));
    header.push('\n');
    out.write_all(b"\x93NUMPY\x01\x00")?;
    out.write_all(&(header.len() as u16).to_le_bytes())?;
    out.write_all(header.as_bytes())?;
    let mut buffer = vec![0u8; values.len() * T::BYTES];
    for (v, chunk) in values.iter().zip(buffer.chunks_exact_mut(T::BYTES)) {
        v.write_le(chunk);
    }
    out.write_all(&buffer)
}

/// Reads a `.npy` file of element type `T` (little-endian, C order, as [`write_array`] writes):
/// its shape and values, or a message saying what does not fit.
pub fn read_array<T: Scalar>(bytes: &[u8]) -> Result<(Vec<usize>, Vec<T>), String> {
    if bytes.len() < 10 || &bytes[..8] != b"\x93NUMPY\x01\x00" {
        return Err("not a version 1.0 .npy file".into());
    }
    let len = u16::from_le_bytes([bytes[8], bytes[9]]) as usize;
    let header = bytes
        .get(10..10 + len)
        .and_then(|h| std::str::from_utf8(h).ok())
        .ok_or("the header is cut short or not text")?;
    if !header.contains(&format!("'descr': '{}'", descr::<T>())) {
        return Err(format!("the values are not {} ({header})", descr::<T>()));
    }
    if header.contains("'fortran_order': True") {
        return Err("Fortran order is not read".into());
    }
    let shape_text = header
        .split("'shape': (")
        .nth(1)
        .and_then(|rest| rest.split(')').next())
        .ok_or("the header has no shape")?;
    let shape = shape_text
        .split(',')
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .map(|t| t.parse::<usize>().map_err(|e| format!("shape `{t}`: {e}")))
        .collect::<Result<Vec<_>, _>>()?;
    let count: usize = shape.iter().product();
    let data = &bytes[10 + len..];
    if data.len() != count * T::BYTES {
        return Err(format!(
            "{} bytes of values for a shape {shape:?} of {} bytes",
            data.len(),
            count * T::BYTES
        ));
    }
    Ok((shape, data.chunks_exact(T::BYTES).map(T::read_le).collect()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_is_aligned_and_names_the_shape() {
        let mut bytes = Vec::new();
        write(&mut bytes, [3, 2, 1], 2, &[1.0f32; 6]).unwrap();
        let len = u16::from_le_bytes([bytes[8], bytes[9]]) as usize;
        assert_eq!((10 + len) % 64, 0);
        let header = std::str::from_utf8(&bytes[10..10 + len]).unwrap();
        assert!(
            header.contains("'shape': (2, 3)") && header.contains("'<f4'"),
            "{header}"
        );
        assert_eq!(bytes.len(), 10 + len + 24);
    }

    #[test]
    fn arrays_read_back() {
        let values: Vec<f64> = (0..24).map(|i| i as f64 * 0.5).collect();
        let mut bytes = Vec::new();
        write_array(&mut bytes, &[2, 3, 4], &values).unwrap();
        assert_eq!(read_array::<f64>(&bytes), Ok((vec![2, 3, 4], values)));
        assert!(read_array::<f32>(&bytes).unwrap_err().contains("<f4"));
        assert!(read_array::<f64>(&bytes[..bytes.len() - 8]).is_err());
    }
}
