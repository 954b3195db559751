//! Files that appear whole or not at all: each is written under a temporary name beside its
//! target (`.<name>.part`) and renamed when complete — a rename within one directory replaces
//! the target atomically (POSIX `rename(2)`). A write that fails (a full disk, an encoder
//! error) removes its temporary file and leaves no file of the final name behind. The outputs
//! are not synced to the disk: this guards against the run failing, not the machine; what must
//! survive the machine (a checkpoint's index) goes through [`write_synced`].

use std::fs::{self, File};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// The temporary name `path` is written under.
pub fn temporary_name(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map_or_else(|| "output".into(), |n| n.to_string_lossy().into_owned());
    path.with_file_name(format!(".{name}.part"))
}

/// Creates `path` through a buffered writer handed to `write`, atomically.
pub fn write_with<E: std::fmt::Display>(
    path: &Path,
    write: impl FnOnce(&mut BufWriter<File>) -> Result<(), E>,
) -> std::io::Result<()> {
    write_through(path, false, write)
}

/// [`write`], with the file synced to the disk before it takes its name: after a crash of the
/// machine the name holds the whole file or the one before.
pub fn write_synced(path: &Path, bytes: impl AsRef<[u8]>) -> std::io::Result<()> {
    write_through(path, true, |w| w.write_all(bytes.as_ref()))
}

fn write_through<E: std::fmt::Display>(
    path: &Path,
    sync: bool,
    write: impl FnOnce(&mut BufWriter<File>) -> Result<(), E>,
) -> std::io::Result<()> {
    let temporary = temporary_name(path);
    let result = (|| {
        let mut w = BufWriter::new(File::create(&temporary)?);
        write(&mut w).map_err(|e| std::io::Error::other(e.to_string()))?;
        let file = w.into_inner().map_err(|e| e.into_error())?;
        if sync {
            file.sync_all()?;
        }
        drop(file);
        fs::rename(&temporary, path)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&temporary);
    }
    result
}

/// Writes `bytes` to `path`, atomically.
pub fn write(path: &Path, bytes: impl AsRef<[u8]>) -> std::io::Result<()> {
    write_with(path, |w| w.write_all(bytes.as_ref()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_write_leaves_nothing_and_a_good_one_replaces_the_file() {
        let dir = std::env::temp_dir().join(format!("yee-atomic-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let path = dir.join("data.csv");
        write(&path, "old\n").unwrap();
        // A writer that fails half way: the old file stays, no temporary is left.
        let failed = write_with(&path, |w| {
            w.write_all(b"half")?;
            Err(std::io::Error::other("disk full"))
        });
        assert!(failed.unwrap_err().to_string().contains("disk full"));
        assert_eq!(fs::read_to_string(&path).unwrap(), "old\n");
        assert!(!temporary_name(&path).exists());
        write(&path, "new\n").unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "new\n");
        assert_eq!(fs::read_dir(&dir).unwrap().count(), 1);
        fs::remove_dir_all(&dir).unwrap();
    }
}
