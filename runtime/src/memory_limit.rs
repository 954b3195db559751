//! How much memory this process may still take, and what sets that bound: the memory
//! controller of the process's own cgroup (v2 `memory.max`, v1 `memory.limit_in_bytes`, read
//! where `/proc/self/cgroup` places the process and at each parent up to the root, whose
//! limits bind too), the `RLIMIT_AS` and `RLIMIT_DATA` resource limits, and the machine's
//! `MemAvailable`. The smallest is the one that binds.
//!
//! The parsing is pure functions over the files' text; [`memory_limits_from`] reads the files
//! through a function it is given, so the tests hand it a made-up file system.

use std::path::{Path, PathBuf};

/// Where the cgroup file systems are mounted.
pub const CGROUP_ROOT: &str = "/sys/fs/cgroup";

/// A limit above this many bytes is no limit (cgroup v1 writes "unlimited" as the largest
/// multiple of the page size below 2⁶³).
const UNLIMITED: u64 = 1 << 62;

/// One bound on the memory this process may take.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemoryLimit {
    /// Bytes the process may still take under this bound.
    pub bytes: u64,
    /// What sets it, e.g. `cgroup v2 /sys/fs/cgroup/x/memory.max: 2.0 GiB`.
    pub source: String,
}

/// Where `/proc/self/cgroup` places the process, for the memory controller.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CgroupPlace {
    /// The unified hierarchy (`0::/path`).
    V2(String),
    /// The v1 hierarchy holding the `memory` controller (`N:...memory...:/path`).
    V1(String),
}

/// The places of `/proc/self/cgroup`'s text: a v1 memory controller's line, and the unified
/// hierarchy's (both where a machine mounts both).
pub fn cgroup_places(text: &str) -> Vec<CgroupPlace> {
    let mut places = Vec::new();
    for line in text.lines() {
        let mut fields = line.splitn(3, ':');
        let (Some(id), Some(controllers), Some(path)) =
            (fields.next(), fields.next(), fields.next())
        else {
            continue;
        };
        if id == "0" && controllers.is_empty() {
            places.push(CgroupPlace::V2(path.to_string()));
        } else if controllers.split(',').any(|c| c == "memory") {
            places.push(CgroupPlace::V1(path.to_string()));
        }
    }
    places
}

/// The folders of `place` from its own up to the hierarchy's root, under `root`.
pub fn cgroup_folders(place: &CgroupPlace, root: &Path) -> Vec<PathBuf> {
    let (base, path) = match place {
        CgroupPlace::V2(p) => (root.to_path_buf(), p),
        CgroupPlace::V1(p) => (root.join("memory"), p),
    };
    let parts: Vec<&str> = path
        .split('/')
        .filter(|p| !p.is_empty() && *p != "." && *p != "..")
        .collect();
    (0..=parts.len())
        .rev()
        .map(|n| parts[..n].iter().fold(base.clone(), |dir, p| dir.join(p)))
        .collect()
}

/// A cgroup limit file's value: `Some(None)` for no limit ("max", or v1's near-2⁶³),
/// `Some(Some(bytes))` for a limit, `None` for text that is neither.
pub fn parse_limit(text: &str) -> Option<Option<u64>> {
    let text = text.trim();
    if text == "max" {
        return Some(None);
    }
    let bytes: u64 = text.parse().ok()?;
    Some((bytes < UNLIMITED).then_some(bytes))
}

/// The value of `key` (in kB) in a `/proc/meminfo` or `/proc/self/status` text, in bytes.
pub fn kib_field(text: &str, key: &str) -> Option<u64> {
    let line = text.lines().find(|l| {
        l.strip_prefix(key)
            .is_some_and(|rest| rest.starts_with(':'))
    })?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// The value of `key` (`key value` lines) in a cgroup's `memory.stat`.
fn stat_field(text: &str, key: &str) -> Option<u64> {
    text.lines().find_map(|l| {
        let (k, v) = l.split_once(' ')?;
        (k == key).then(|| v.trim().parse().ok()).flatten()
    })
}

/// The bytes a cgroup folder's processes hold that the kernel cannot simply drop: its usage
/// less its inactive file cache (the working set, as container tools count it).
fn cgroup_working_set(read: &dyn Fn(&Path) -> Option<String>, dir: &Path, v2: bool) -> Option<u64> {
    let (usage, inactive) = match v2 {
        true => ("memory.current", "inactive_file"),
        false => ("memory.usage_in_bytes", "total_inactive_file"),
    };
    let used: u64 = read(&dir.join(usage))?.trim().parse().ok()?;
    let cache = read(&dir.join("memory.stat"))
        .and_then(|t| stat_field(&t, inactive))
        .unwrap_or(0);
    Some(used.saturating_sub(cache))
}

/// Every bound this process is under, read through `read` (a file's text, `None` where it
/// cannot be read): the memory limit of each cgroup folder from the process's own to the
/// root, `rlimits` (`RLIMIT_AS` and `RLIMIT_DATA` with the process's current address space
/// and data size from `/proc/self/status`), and `MemAvailable`. Each as the bytes still free
/// under it.
pub fn memory_limits_from(
    read: &dyn Fn(&Path) -> Option<String>,
    root: &Path,
    rlimits: [Option<u64>; 2],
) -> Vec<MemoryLimit> {
    let mut limits = Vec::new();
    let places = read(Path::new("/proc/self/cgroup")).map_or(Vec::new(), |t| cgroup_places(&t));
    for place in &places {
        let (v2, file, name) = match place {
            CgroupPlace::V2(_) => (true, "memory.max", "cgroup v2"),
            CgroupPlace::V1(_) => (false, "memory.limit_in_bytes", "cgroup v1"),
        };
        for dir in cgroup_folders(place, root) {
            let path = dir.join(file);
            let Some(Some(limit)) = read(&path).and_then(|t| parse_limit(&t)) else {
                continue;
            };
            let used = cgroup_working_set(read, &dir, v2).unwrap_or(0);
            limits.push(MemoryLimit {
                bytes: limit.saturating_sub(used),
                source: format!(
                    "{name} {}: {}{}",
                    path.display(),
                    crate::memory::human(limit),
                    match used {
                        0 => String::new(),
                        u => format!(", {} of it in use", crate::memory::human(u)),
                    }
                ),
            });
        }
    }
    let status = read(Path::new("/proc/self/status")).unwrap_or_default();
    let named = [("RLIMIT_AS", "VmSize"), ("RLIMIT_DATA", "VmData")];
    for ((name, field), limit) in named.into_iter().zip(rlimits) {
        let Some(limit) = limit.filter(|&l| l < UNLIMITED) else {
            continue;
        };
        let used = kib_field(&status, field).unwrap_or(0);
        limits.push(MemoryLimit {
            bytes: limit.saturating_sub(used),
            source: format!(
                "{name}: {}, {} of it in use",
                crate::memory::human(limit),
                crate::memory::human(used)
            ),
        });
    }
    if let Some(available) =
        read(Path::new("/proc/meminfo")).and_then(|t| kib_field(&t, "MemAvailable"))
    {
        limits.push(MemoryLimit {
            bytes: available,
            source: format!("MemAvailable: {}", crate::memory::human(available)),
        });
    }
    limits
}

/// The soft `RLIMIT_AS` and `RLIMIT_DATA` of this process (`None` where unlimited).
fn resource_limits() -> [Option<u64>; 2] {
    use rustix::process::{Resource, getrlimit};
    [Resource::As, Resource::Data].map(|r| getrlimit(r).current)
}

/// The bound that binds: the smallest of [`memory_limits_from`] over this machine's files
/// and this process's resource limits; `None` where the OS tells none.
pub fn memory_limit() -> Option<MemoryLimit> {
    let read = |path: &Path| std::fs::read_to_string(path).ok();
    memory_limits_from(&read, Path::new(CGROUP_ROOT), resource_limits())
        .into_iter()
        .min_by_key(|l| l.bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// A made-up file system of `(path, text)`.
    fn files(entries: &[(&str, &str)]) -> impl Fn(&Path) -> Option<String> {
        let map: HashMap<PathBuf, String> = entries
            .iter()
            .map(|(p, t)| (PathBuf::from(p), t.to_string()))
            .collect();
        move |p: &Path| map.get(p).cloned()
    }

    fn limits(entries: &[(&str, &str)], rlimits: [Option<u64>; 2]) -> Vec<MemoryLimit> {
        memory_limits_from(&files(entries), Path::new("/sys/fs/cgroup"), rlimits)
    }

    const GIB: u64 = 1 << 30;

    #[test]
    fn the_places_of_v1_and_v2_lines() {
        let text = "12:pids:/user.slice\n5:cpu,memory:/a/b\n0::/user.slice/job.scope\nbad\n";
        assert_eq!(
            cgroup_places(text),
            [
                CgroupPlace::V1("/a/b".into()),
                CgroupPlace::V2("/user.slice/job.scope".into())
            ]
        );
        assert_eq!(cgroup_places("4:memory:/\n"), [CgroupPlace::V1("/".into())]);
        let folders = cgroup_folders(&CgroupPlace::V1("/a/b".into()), Path::new("/r"));
        let expected = ["/r/memory/a/b", "/r/memory/a", "/r/memory"];
        assert_eq!(folders, expected.map(PathBuf::from));
        let folders = cgroup_folders(&CgroupPlace::V2("/".into()), Path::new("/r"));
        assert_eq!(folders, [PathBuf::from("/r")]);
    }

    #[test]
    fn limit_texts() {
        assert_eq!(parse_limit("max\n"), Some(None));
        assert_eq!(parse_limit("2147483648\n"), Some(Some(2 * GIB)));
        assert_eq!(parse_limit("9223372036854771712"), Some(None));
        assert_eq!(parse_limit("lots"), None);
        assert_eq!(
            kib_field("MemTotal: 10 kB\nMemAvailable:  4 kB\n", "MemAvailable"),
            Some(4096)
        );
        assert_eq!(kib_field("VmSizeX: 1 kB\n", "VmSize"), None);
    }

    #[test]
    fn a_v2_limit_of_the_processs_own_cgroup_binds_and_is_named() {
        let found = limits(
            &[
                ("/proc/self/cgroup", "0::/x\n"),
                ("/sys/fs/cgroup/x/memory.max", "2147483648\n"),
                ("/sys/fs/cgroup/x/memory.current", "1073741824\n"),
                (
                    "/sys/fs/cgroup/x/memory.stat",
                    "anon 1\ninactive_file 536870912\n",
                ),
                ("/sys/fs/cgroup/memory.max", "max\n"),
                ("/proc/meminfo", "MemAvailable: 67108864 kB\n"),
            ],
            [None, None],
        );
        assert_eq!(
            found,
            [
                MemoryLimit {
                    bytes: 3 * GIB / 2,
                    source: "cgroup v2 /sys/fs/cgroup/x/memory.max: 2.0 GiB, 512.0 MiB of it \
                             in use"
                        .into()
                },
                MemoryLimit {
                    bytes: 64 * GIB,
                    source: "MemAvailable: 64.0 GiB".into()
                },
            ]
        );
    }

    #[test]
    fn a_parents_limit_binds_a_nested_cgroup() {
        let found = limits(
            &[
                ("/proc/self/cgroup", "0::/outer/inner\n"),
                ("/sys/fs/cgroup/outer/inner/memory.max", "max\n"),
                ("/sys/fs/cgroup/outer/memory.max", "1073741824\n"),
            ],
            [None, None],
        );
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].bytes, GIB);
        assert!(
            found[0]
                .source
                .starts_with("cgroup v2 /sys/fs/cgroup/outer/memory.max")
        );
    }

    #[test]
    fn a_v1_memory_controller_is_read_at_its_own_place_and_up() {
        let found = limits(
            &[
                ("/proc/self/cgroup", "7:cpuacct:/y\n3:memory:/docker/abc\n"),
                (
                    "/sys/fs/cgroup/memory/docker/abc/memory.limit_in_bytes",
                    "536870912\n",
                ),
                (
                    "/sys/fs/cgroup/memory/docker/abc/memory.usage_in_bytes",
                    "1048576\n",
                ),
                (
                    "/sys/fs/cgroup/memory/memory.limit_in_bytes",
                    "9223372036854771712\n",
                ),
            ],
            [None, None],
        );
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].bytes, GIB / 2 - (1 << 20));
        assert!(
            found[0]
                .source
                .starts_with("cgroup v1 /sys/fs/cgroup/memory/docker/abc/memory.limit_in_bytes")
        );
    }

    #[test]
    fn resource_limits_count_what_the_process_already_holds() {
        let found = limits(
            &[(
                "/proc/self/status",
                "VmSize:  102400 kB\nVmData:  1024 kB\n",
            )],
            [Some(GIB), Some(2 * GIB)],
        );
        let bytes: Vec<u64> = found.iter().map(|l| l.bytes).collect();
        assert_eq!(bytes, [GIB - 100 * (1 << 20), 2 * GIB - (1 << 20)]);
        assert_eq!(
            found[0].source,
            "RLIMIT_AS: 1.0 GiB, 100.0 MiB of it in use"
        );
    }

    #[test]
    fn missing_files_give_no_limit() {
        assert_eq!(limits(&[], [None, None]), []);
        // A cgroup line whose folder cannot be read.
        assert_eq!(
            limits(&[("/proc/self/cgroup", "0::/gone\n")], [None, None]),
            []
        );
    }
}
