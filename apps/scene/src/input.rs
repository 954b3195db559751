//! Files a scene names (mask images, `minus` spectra), checked before they are read: a regular
//! file — not a directory, FIFO, device or socket, which are never opened (a FIFO would block
//! the open, `/dev/zero` never ends) — of a size the caller bounds, read no further than that.

use std::fs::File;
use std::io::Read;
use std::path::Path;

/// The size of `path` (links followed) when it is a regular file, else what it is.
pub fn regular_file(path: &Path) -> Result<u64, String> {
    let meta = std::fs::metadata(path).map_err(|e| e.to_string())?;
    let kind = meta.file_type();
    if kind.is_file() {
        return Ok(meta.len());
    }
    Err(format!("is {}, not a regular file", kind_name(&kind)))
}

/// What a file that is not a regular one is, in words.
fn kind_name(kind: &std::fs::FileType) -> &'static str {
    if kind.is_dir() {
        return "a directory";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_fifo() {
            return "a FIFO (named pipe)";
        }
        if kind.is_char_device() {
            return "a character device";
        }
        if kind.is_block_device() {
            return "a block device";
        }
        if kind.is_socket() {
            return "a socket";
        }
    }
    "a special file"
}

/// The bytes of the regular file `path`, which must hold at most `limit` bytes (`what` says
/// what bounds it, for the error). Reads no more than `limit` bytes even if the file grows
/// meanwhile.
pub fn read_bounded(path: &Path, limit: u64, what: &str) -> Result<Vec<u8>, String> {
    let size = regular_file(path)?;
    if size > limit {
        return Err(too_large(size, limit, what));
    }
    let file = File::open(path).map_err(|e| e.to_string())?;
    let mut bytes = Vec::with_capacity(size as usize);
    file.take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| e.to_string())?;
    if bytes.len() as u64 > limit {
        return Err(too_large(bytes.len() as u64, limit, what));
    }
    Ok(bytes)
}

/// At most the first `n` bytes of the regular file `path` (a header).
pub fn read_head(path: &Path, n: u64) -> Result<Vec<u8>, String> {
    regular_file(path)?;
    let file = File::open(path).map_err(|e| e.to_string())?;
    let mut bytes = Vec::new();
    file.take(n)
        .read_to_end(&mut bytes)
        .map_err(|e| e.to_string())?;
    Ok(bytes)
}

fn too_large(size: u64, limit: u64, what: &str) -> String {
    format!("is {size} bytes, more than the {limit} bytes {what}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_regular_files_within_the_bound_are_read() {
        let dir = std::env::temp_dir().join(format!("yee_input_{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("f.bin");
        std::fs::write(&file, [7u8; 10]).unwrap();
        assert_eq!(read_bounded(&file, 10, "x").unwrap(), [7u8; 10]);
        assert_eq!(read_head(&file, 4).unwrap(), [7u8; 4]);
        assert_eq!(
            read_bounded(&file, 9, "a test allows").unwrap_err(),
            "is 10 bytes, more than the 9 bytes a test allows"
        );
        assert_eq!(
            regular_file(&dir).unwrap_err(),
            "is a directory, not a regular file"
        );
        #[cfg(unix)]
        assert_eq!(
            read_bounded(Path::new("/dev/zero"), 1 << 20, "x").unwrap_err(),
            "is a character device, not a regular file"
        );
        assert!(
            regular_file(&dir.join("none"))
                .unwrap_err()
                .starts_with("No such file or directory")
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
