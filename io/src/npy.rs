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
    write_header::<T>(out, shape)?;
    write_values(out, values.iter().copied())
}

/// Writes the magic, version and header of a `.npy` array of `T` and `shape`; the values
/// follow ([`write_values`]).
pub fn write_header<T: Scalar>(out: &mut impl Write, shape: &[usize]) -> std::io::Result<()> {
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
    out.write_all(header.as_bytes())
}

/// Writes `values` little-endian through a buffer of [`CHUNK_BYTES`]: an array is written
/// without a second copy of it in memory.
pub fn write_values<T: Scalar>(
    out: &mut impl Write,
    values: impl IntoIterator<Item = T>,
) -> std::io::Result<()> {
    let mut buffer = vec![0u8; CHUNK_BYTES.next_multiple_of(T::BYTES)];
    let mut filled = 0;
    for v in values {
        if filled == buffer.len() {
            out.write_all(&buffer)?;
            filled = 0;
        }
        v.write_le(&mut buffer[filled..filled + T::BYTES]);
        filled += T::BYTES;
    }
    out.write_all(&buffer[..filled])
}

/// The bytes [`write_values`] converts at a time.
const CHUNK_BYTES: usize = 1 << 16;

/// The most bytes a version 1.0 header takes with the magic, version and length before it.
pub const MAX_HEADER_BYTES: usize = 10 + u16::MAX as usize;

/// The most axes a header may name (NumPy's own limit).
const MAX_DIMS: usize = 64;

/// What a `.npy` file's header says: the element type, the shape, and where the values begin.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    /// The NumPy type string, such as `<c16`.
    pub descr: String,
    /// The array's shape (C order).
    pub shape: Vec<usize>,
    /// The offset of the first value: the length of magic, version, length and header.
    pub data_offset: usize,
}

impl Header {
    /// The bytes of the values a file with this header holds for elements of `item_bytes`
    /// bytes, or `None` when that overflows (a shape no file can have).
    pub fn data_bytes(&self, item_bytes: usize) -> Option<u64> {
        self.shape
            .iter()
            .try_fold(item_bytes as u64, |n, &d| n.checked_mul(d as u64))
    }

    /// The size in bytes of a whole file with this header (`None` on overflow).
    pub fn file_bytes(&self, item_bytes: usize) -> Option<u64> {
        self.data_bytes(item_bytes)?
            .checked_add(self.data_offset as u64)
    }
}

/// Reads the header of a version 1.0 `.npy` file from its first bytes (at most
/// [`MAX_HEADER_BYTES`] are needed), or says what does not fit: not a `.npy` file, a header
/// cut short, Fortran order, no shape, a shape of more than 64 axes or of numbers that are not.
pub fn read_header(bytes: &[u8]) -> Result<Header, String> {
    if bytes.len() < 10 || &bytes[..8] != b"\x93NUMPY\x01\x00" {
        return Err("not a version 1.0 .npy file".into());
    }
    let len = u16::from_le_bytes([bytes[8], bytes[9]]) as usize;
    let header = bytes
        .get(10..10 + len)
        .and_then(|h| std::str::from_utf8(h).ok())
        .ok_or("the header is cut short or not text")?;
    if header.contains("'fortran_order': True") {
        return Err("Fortran order is not read".into());
    }
    let descr = header
        .split("'descr': '")
        .nth(1)
        .and_then(|rest| rest.split('\'').next())
        .ok_or("the header has no descr")?;
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
    if shape.len() > MAX_DIMS {
        return Err(format!(
            "the shape has {} axes, more than {MAX_DIMS}",
            shape.len()
        ));
    }
    Ok(Header {
        descr: descr.to_string(),
        shape,
        data_offset: 10 + len,
    })
}

/// Reads a `.npy` file of element type `T` (little-endian, C order, as [`write_array`] writes):
/// its shape and values, or a message saying what does not fit (also a shape whose size
/// overflows, and values more or fewer than the shape holds).
pub fn read_array<T: Scalar>(bytes: &[u8]) -> Result<(Vec<usize>, Vec<T>), String> {
    let header = read_header(bytes)?;
    if header.descr != descr::<T>() {
        return Err(format!(
            "the values are not {} but {}",
            descr::<T>(),
            header.descr
        ));
    }
    let data = &bytes[header.data_offset..];
    let Header { shape, .. } = &header;
    match header.data_bytes(T::BYTES) {
        Some(n) if n == data.len() as u64 => {}
        Some(n) => {
            return Err(format!(
                "{} bytes of values for a shape {shape:?} of {n} bytes",
                data.len(),
            ));
        }
        None => return Err(format!("the shape {shape:?} is too large for any file")),
    }
    Ok((
        header.shape,
        data.chunks_exact(T::BYTES).map(T::read_le).collect(),
    ))
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

    #[test]
    fn headers_of_absurd_shapes_are_refused_without_overflow() {
        let mut bytes = Vec::new();
        write_array(&mut bytes, &[2, 3], &[0.0f64; 6]).unwrap();
        let header = read_header(&bytes).unwrap();
        assert_eq!(header.shape, [2, 3]);
        assert_eq!(header.file_bytes(8), Some(bytes.len() as u64));
        let with_shape = |shape: &str| {
            let text = format!("{{'descr': '<f8', 'fortran_order': False, 'shape': {shape}, }}\n");
            let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
            bytes.extend((text.len() as u16).to_le_bytes());
            bytes.extend(text.as_bytes());
            bytes.extend([0u8; 16]);
            bytes
        };
        let huge = with_shape(&format!("({}, {})", usize::MAX, usize::MAX));
        assert_eq!(read_header(&huge).unwrap().data_bytes(8), None);
        let e = read_array::<f64>(&huge).unwrap_err();
        assert!(e.contains("is too large for any file"), "{e}");
        let many = with_shape(&format!("({})", "1, ".repeat(65)));
        assert!(read_header(&many).unwrap_err().contains("65 axes"));
        assert_eq!(read_array::<f64>(&with_shape("(2,)")).unwrap().0, [2]);
        assert!(read_header(&bytes[..20]).unwrap_err().contains("cut short"));
    }
}
