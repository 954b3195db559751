//! One run at a time in an output folder: the lock file `.yee.lock` names the process that
//! writes there (its PID, its start time where the OS tells, and host), is made atomically when the run starts and removed when it
//! ends. A second run into the folder is refused, naming the holder; the lock of a process that
//! no longer runs (killed, or ended by a second Ctrl-C) is taken over, with a warning — also
//! when its PID has since been given to another process (the start times differ).

use std::fs::{self, OpenOptions};
use std::io::{ErrorKind, Write};
use std::path::{Path, PathBuf};

use crate::error::{AppError, io_error};

/// The lock file's name in the output folder.
pub const LOCK_FILE: &str = ".yee.lock";

/// The output folder held by this process: dropped, its lock file is removed.
#[derive(Debug)]
pub struct OutputLock {
    path: PathBuf,
    holder: Holder,
}

/// The process a lock file names.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Holder {
    pid: u32,
    /// When the process started (field 22 of `/proc/PID/stat`, clock ticks after boot), where
    /// the OS tells: a PID given to another process since does not hold the lock.
    started: Option<u64>,
    host: String,
}

impl Holder {
    fn this_process() -> Holder {
        let pid = std::process::id();
        Holder {
            pid,
            started: start_time(pid),
            host: host_name(),
        }
    }

    /// The lock file's text: `pid N`, `started T` (where known) and `host NAME`, one a line.
    fn text(&self) -> String {
        let started = self
            .started
            .map_or(String::new(), |t| format!("started {t}\n"));
        format!("pid {}\n{started}host {}\n", self.pid, self.host)
    }

    /// Whether the process it names runs on this host: its PID runs, and where both start
    /// times are known, they agree.
    fn runs(&self) -> bool {
        alive(self.pid)
            && match (self.started, start_time(self.pid)) {
                (Some(recorded), Some(now)) => recorded == now,
                _ => true,
            }
    }

    /// The holder a lock file's text names, `None` when it names none (cut short, or not
    /// written by yee).
    fn parse(text: &str) -> Option<Holder> {
        let mut pid = None;
        let mut host = None;
        let mut started = None;
        for line in text.lines() {
            match line.split_once(' ') {
                Some(("pid", v)) => pid = v.trim().parse::<u32>().ok().filter(|&p| p > 0),
                Some(("started", v)) => started = v.trim().parse::<u64>().ok(),
                Some(("host", v)) => host = Some(v.trim().to_string()),
                _ => {}
            }
        }
        Some(Holder {
            pid: pid?,
            started,
            host: host?,
        })
    }
}

impl std::fmt::Display for Holder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "process {} on {}", self.pid, self.host)
    }
}

impl OutputLock {
    /// Takes the lock of the folder `out` (which exists) for this process. Fails, naming the
    /// folder and the process holding it, while another run — of this process or another —
    /// writes there. A lock left by a process of this host that no longer runs is taken over,
    /// with a warning naming it.
    pub fn take(out: &Path) -> Result<OutputLock, AppError> {
        let path = out.join(LOCK_FILE);
        let me = Holder::this_process();
        // Each pass either takes the lock, refuses, or removes a stale one and tries again; a
        // race with other runs taking over the same stale lock ends within a few passes.
        for _ in 0..4 {
            match OpenOptions::new().write(true).create_new(true).open(&path) {
                Ok(mut file) => {
                    let written = file
                        .write_all(me.text().as_bytes())
                        .and_then(|()| file.sync_all());
                    if let Err(e) = written {
                        let _ = fs::remove_file(&path);
                        return Err(io_error(&path, format!("cannot write the lock: {e}")));
                    }
                    return Ok(OutputLock { path, holder: me });
                }
                Err(e) if e.kind() == ErrorKind::AlreadyExists => {}
                Err(e) => {
                    return Err(io_error(
                        &path,
                        format!("cannot lock the output directory: {e}"),
                    ));
                }
            }
            let text = match fs::read_to_string(&path) {
                Ok(text) => text,
                // Released between the two calls: try again.
                Err(e) if e.kind() == ErrorKind::NotFound => continue,
                Err(e) => return Err(io_error(&path, format!("cannot read the lock: {e}"))),
            };
            match Holder::parse(&text) {
                Some(h) if h.host == me.host && !h.runs() => take_over(&path, &h)?,
                holder => return Err(in_use(out, &path, holder.as_ref())),
            }
        }
        Err(in_use(out, &path, None))
    }

    /// The lock file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The output folder it holds.
    pub fn dir(&self) -> &Path {
        self.path.parent().unwrap_or(Path::new("."))
    }
}

impl Drop for OutputLock {
    /// Removes the lock file, if it still names this process (someone may have deleted it by
    /// hand and another run taken the folder since).
    fn drop(&mut self) {
        let ours = fs::read_to_string(&self.path)
            .ok()
            .and_then(|t| Holder::parse(&t))
            .is_some_and(|h| h == self.holder);
        if ours {
            let _ = fs::remove_file(&self.path);
        }
    }
}

/// Removes the stale lock of `holder` at `path`: renamed to a name of this process's first, so
/// that a lock another run made there meanwhile is put back instead of deleted.
fn take_over(path: &Path, holder: &Holder) -> Result<(), AppError> {
    let aside = path.with_file_name(format!("{LOCK_FILE}.stale-{}", std::process::id()));
    match fs::rename(path, &aside) {
        Ok(()) => {}
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(io_error(path, format!("cannot take over the lock: {e}"))),
    }
    let moved = fs::read_to_string(&aside).ok();
    if moved.as_deref().and_then(Holder::parse).as_ref() == Some(holder) {
        let _ = fs::remove_file(&aside);
        log::warn!(
            "{}: took over the lock of {holder}, which no longer runs (a run that was killed)",
            path.display()
        );
        Ok(())
    } else {
        fs::rename(&aside, path).map_err(|e| io_error(path, e))
    }
}

/// The refusal of a folder in use.
fn in_use(out: &Path, path: &Path, holder: Option<&Holder>) -> AppError {
    let by = match holder {
        Some(h) => format!("{h} holds its lock {}", path.display()),
        None => format!(
            "{} is there but names no process (cut short, or not written by yee)",
            path.display()
        ),
    };
    AppError::Usage(format!(
        "{} is in use by another run: {by}; wait for that run to end or choose another \
         --out (delete the lock file only if no run writes there)",
        out.display()
    ))
}

/// Whether process `pid` of this host runs (a process of another user counts).
#[cfg(unix)]
fn alive(pid: u32) -> bool {
    let Some(pid) = i32::try_from(pid)
        .ok()
        .and_then(rustix::process::Pid::from_raw)
    else {
        return false;
    };
    !matches!(
        rustix::process::test_kill_process(pid),
        Err(rustix::io::Errno::SRCH)
    )
}

/// Elsewhere a process cannot be looked up: every lock is held.
#[cfg(not(unix))]
fn alive(_pid: u32) -> bool {
    true
}

/// The start time in a `/proc/PID/stat` text: its 22nd field (counted after the command
/// name in parentheses, which may hold spaces and parentheses itself).
fn start_time_of_stat(stat: &str) -> Option<u64> {
    let (_, after_name) = stat.rsplit_once(')')?;
    // Field 3 (the state) is the first after the name.
    after_name.split_whitespace().nth(22 - 3)?.parse().ok()
}

/// When process `pid` started, where `/proc` tells.
fn start_time(pid: u32) -> Option<u64> {
    start_time_of_stat(&fs::read_to_string(format!("/proc/{pid}/stat")).ok()?)
}

/// This host's name.
#[cfg(unix)]
fn host_name() -> String {
    rustix::system::uname()
        .nodename()
        .to_string_lossy()
        .into_owned()
}

/// This host's name.
#[cfg(not(unix))]
fn host_name() -> String {
    std::env::var("COMPUTERNAME").unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn folder(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("yee-lock-{}-{name}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn a_held_folder_is_refused_naming_the_holder_and_free_once_dropped() {
        let dir = folder("held");
        let lock = OutputLock::take(&dir).unwrap();
        let text = fs::read_to_string(dir.join(LOCK_FILE)).unwrap();
        assert_eq!(text, Holder::this_process().text());
        let e = OutputLock::take(&dir).unwrap_err().to_string();
        assert!(
            e.starts_with(&format!(
                "{} is in use by another run: process {} on ",
                dir.display(),
                std::process::id()
            )),
            "{e}"
        );
        drop(lock);
        assert!(!dir.join(LOCK_FILE).exists());
        drop(OutputLock::take(&dir).unwrap());
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_lock_of_a_process_that_no_longer_runs_is_taken_over() {
        let dir = folder("stale");
        // Beyond any pid_max (at most 2^22 on Linux): no such process.
        let gone = Holder {
            pid: i32::MAX as u32,
            started: None,
            host: host_name(),
        };
        fs::write(dir.join(LOCK_FILE), gone.text()).unwrap();
        let lock = OutputLock::take(&dir).unwrap();
        assert_eq!(
            Holder::parse(&fs::read_to_string(lock.path()).unwrap()),
            Some(Holder::this_process())
        );
        drop(lock);
        // Another host's lock cannot be looked up: it holds; so does one naming no process.
        for text in ["pid 1\nhost elsewhere.invalid\n", "", "pid\n"] {
            fs::write(dir.join(LOCK_FILE), text).unwrap();
            let e = OutputLock::take(&dir).unwrap_err().to_string();
            assert!(e.contains("is in use by another run"), "{text:?}: {e}");
        }
        assert_eq!(fs::read_dir(&dir).unwrap().count(), 1, "nothing set aside");
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_pid_given_to_another_process_since_does_not_hold_the_lock() {
        let stat = "4242 (a (b) c) S 1 4242 4242 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 \
                    987654 1000 10 18446744073709551615";
        assert_eq!(start_time_of_stat(stat), Some(987654));
        assert_eq!(start_time_of_stat("garbage"), None);
        let me = Holder::this_process();
        if me.started.is_none() {
            eprintln!("skipped: no /proc/PID/stat");
            return;
        }
        let dir = folder("reused");
        // This process's PID, but a process that started at another time: the PID was reused.
        let earlier = Holder {
            started: me.started.map(|t| t + 1),
            ..me.clone()
        };
        fs::write(dir.join(LOCK_FILE), earlier.text()).unwrap();
        let lock = OutputLock::take(&dir).unwrap();
        assert_eq!(
            Holder::parse(&fs::read_to_string(lock.path()).unwrap()),
            Some(me.clone())
        );
        drop(lock);
        // The same PID and start time: held. A lock without a start time (an older yee's)
        // goes by the PID alone: held.
        for holder in [
            me.clone(),
            Holder {
                started: None,
                ..me
            },
        ] {
            fs::write(dir.join(LOCK_FILE), holder.text()).unwrap();
            let e = OutputLock::take(&dir).unwrap_err().to_string();
            assert!(e.contains("is in use by another run"), "{e}");
        }
        fs::remove_dir_all(&dir).unwrap();
    }
}
