//! The output folder before a run: made, checked writable, and cleared of what an earlier run
//! of yee wrote there.

use std::fs::{self, File};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::error::{AppError, io_error};
use crate::output_lock::{LOCK_FILE, OutputLock};

/// Takes the lock ([`OutputLock`]) of a checkpoint folder `dir` that lies outside the output
/// folder `out` (making it), so that two runs writing elsewhere do not checkpoint into one
/// folder; `None` when it lies inside `out`, whose lock covers it, or cannot be made (then
/// each checkpoint fails, is reported in `run.json`, and the run goes on).
pub fn lock_checkpoint_dir(out: &Path, dir: &Path) -> Result<Option<OutputLock>, AppError> {
    // Where `dir` does not exist yet, its absolute path stands in for the real one; `out`
    // exists (made before), and either of its spellings counts.
    let real = |p: &Path| fs::canonicalize(p).or_else(|_| std::path::absolute(p));
    let (Ok(dir_real), Ok(out_real)) = (real(dir), fs::canonicalize(out)) else {
        return Ok(None);
    };
    let out_given = std::path::absolute(out).unwrap_or_else(|_| out_real.clone());
    if dir_real.starts_with(&out_real) || dir_real.starts_with(&out_given) {
        return Ok(None);
    }
    if fs::create_dir_all(dir).is_err() {
        return Ok(None);
    }
    OutputLock::take(dir).map(Some)
}

/// Creates the output directory, makes sure files can be written in it (before any step is
/// taken), takes its lock ([`OutputLock`]: one run at a time; `held` when this process took it
/// already), and clears what an earlier run of yee wrote there: the files its `run.json` lists
/// that lie in the folder itself ([`inside`]; nothing else in the folder is touched, and
/// nothing outside it), its checkpoints in `checkpoint/` (unless that is a link elsewhere),
/// then the `run.json` itself (which would make the directory look finished). A run that
/// `resumes` keeps the files (it goes on writing beside them) and the checkpoints, and only
/// takes the `run.json` away. Returns the lock, which the run keeps to its end.
pub fn prepare_output_dir(
    out: &Path,
    resumes: bool,
    fresh: bool,
    held: Option<&Arc<OutputLock>>,
) -> Result<Arc<OutputLock>, AppError> {
    if out.exists() && !out.is_dir() {
        return Err(io_error(
            out,
            "it is not a directory (--out names the folder the outputs go to)",
        ));
    }
    fs::create_dir_all(out)
        .map_err(|e| io_error(out, format!("cannot create the output directory: {e}")))?;
    check_writable(out)?;
    let lock = match held.filter(|l| l.dir() == out) {
        Some(held) => held.clone(),
        None => Arc::new(OutputLock::take(out)?),
    };
    let report_path = out.join("run.json");
    if resumes {
        if report_path.exists() {
            fs::remove_file(&report_path).map_err(|e| io_error(&report_path, e))?;
        }
        return Ok(lock);
    }
    let checkpoints = out.join("checkpoint");
    if let (false, Some(step)) = (fresh, interrupted_checkpoint(&checkpoints, &report_path)) {
        return Err(AppError::Usage(format!(
            "{} holds the checkpoint of an interrupted run ({}): resume it with \
             `yee run SCENE --resume {}`, or start over with --fresh (which deletes it)",
            out.display(),
            step.display(),
            out.display()
        )));
    }
    let linked = fs::symlink_metadata(&checkpoints).is_ok_and(|m| m.file_type().is_symlink());
    let entries = fs::read_dir(&checkpoints).ok().filter(|_| !linked);
    for path in entries
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok().map(|e| e.path()))
    {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let linked = fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_symlink());
        if name.starts_with("step-") && path.is_dir() && !linked {
            fs::remove_dir_all(&path).map_err(|e| io_error(&path, e))?;
        }
    }
    if report_path.exists() {
        let earlier: Vec<String> = fs::read_to_string(&report_path)
            .ok()
            .and_then(|text| serde_json::from_str::<serde_json::Value>(&text).ok())
            .and_then(|doc| {
                doc["outputs"].as_array().map(|files| {
                    files
                        .iter()
                        .filter_map(|f| f.as_str().map(str::to_string))
                        .collect()
                })
            })
            .unwrap_or_default();
        for path in earlier.iter().filter_map(|file| inside(out, file)) {
            // A link is removed, never what it points to.
            if fs::symlink_metadata(&path).is_ok_and(|m| !m.is_dir()) {
                fs::remove_file(&path).map_err(|e| io_error(&path, e))?;
            }
        }
        fs::remove_file(&report_path).map_err(|e| io_error(&report_path, e))?;
    }
    Ok(lock)
}

/// The newest whole checkpoint in `checkpoints` when the run that wrote it did not end: its
/// `run.json` says "interrupted", or there is none (the process was killed). `None` when there
/// is no checkpoint, or its run ended (complete or failed: its checkpoints are stale).
fn interrupted_checkpoint(checkpoints: &Path, report: &Path) -> Option<PathBuf> {
    let newest = fs::read_dir(checkpoints)
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            name.starts_with("step-") && !name.ends_with(".part") && p.is_dir()
        })
        .max()?;
    let status = fs::read_to_string(report)
        .ok()
        .and_then(|text| serde_json::from_str::<serde_json::Value>(&text).ok())
        .and_then(|doc| doc["status"].as_str().map(str::to_string));
    match status.as_deref() {
        None | Some("interrupted") => Some(newest),
        Some(_) => None,
    }
}

/// `out/file` where `file` (as an earlier run.json lists it) names an entry of the folder
/// `out` itself: one plain file name — no separator, no `..`, not absolute, not the lock —
/// whose parent is `out` once links are resolved. `None` for anything else: the clean-up
/// leaves it alone.
fn inside(out: &Path, file: &str) -> Option<PathBuf> {
    let mut parts = Path::new(file).components();
    let (Some(std::path::Component::Normal(name)), None) = (parts.next(), parts.next()) else {
        return None;
    };
    if file.contains(['/', '\\']) || file == LOCK_FILE {
        return None;
    }
    let path = out.join(name);
    let parent = path.parent()?.canonicalize().ok()?;
    (parent == out.canonicalize().ok()?).then_some(path)
}

/// Fails, naming `out`, unless a file can be made in it: a read-only or full output folder is
/// found before the run, not after it.
fn check_writable(out: &Path) -> Result<(), AppError> {
    let probe = out.join(format!(".yee-write-check-{}", std::process::id()));
    let made = File::create(&probe).and_then(|mut f| f.write_all(b"yee"));
    let _ = fs::remove_file(&probe);
    made.map_err(|e| {
        io_error(
            out,
            format!("cannot write files in the output directory: {e}"),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_checkpoint_folder_outside_the_output_folder_is_locked() {
        let root = std::env::temp_dir().join(format!("yee-ckpt-lock-{}", std::process::id()));
        let _ = fs::remove_dir_all(&root);
        let (out, other) = (root.join("out"), root.join("other"));
        fs::create_dir_all(&out).unwrap();
        // Inside the output folder: its own lock covers it.
        assert!(
            lock_checkpoint_dir(&out, &out.join("checkpoint"))
                .unwrap()
                .is_none()
        );
        assert!(
            !out.join("checkpoint").exists(),
            "made before any checkpoint"
        );
        let elsewhere = root.join("ckpt");
        let held = lock_checkpoint_dir(&out, &elsewhere).unwrap();
        assert!(held.is_some());
        // A second run into another output folder with the same --checkpoint-dir is refused.
        fs::create_dir_all(&other).unwrap();
        let e = lock_checkpoint_dir(&other, &elsewhere)
            .unwrap_err()
            .to_string();
        assert!(e.contains("is in use by another run"), "{e}");
        drop(held);
        assert!(lock_checkpoint_dir(&other, &elsewhere).unwrap().is_some());
        // One that cannot be made is not locked: its checkpoints fail and are reported.
        let unmade = Path::new("/dev/null/checkpoints");
        assert!(lock_checkpoint_dir(&out, unmade).unwrap().is_none());
        fs::remove_dir_all(&root).unwrap();
    }
}
