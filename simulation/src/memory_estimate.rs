//! The memory a `yee run` of a scene holds at its peak, part by part: the process as it
//! stands, the scalar state ([`yee_runtime::memory::estimate_bytes`]), the whole fields an
//! output step gathers, the geometry the snapshots keep, the probes' histories and the DFT
//! sums read back at the end. `yee check` prints it and `yee run` compares it with the bound
//! that binds the process ([`yee_runtime::memory_limit`]) before allocating anything.

use yee_runtime::memory::{estimate_bytes, human};
use yee_scene::Scene;

/// The parts of a run's peak memory, in bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MemoryEstimate {
    /// The process before the run allocates its state ([`process_bytes`]).
    pub process: u64,
    /// Fields, ψ arrays, material ids and DFT sums of the scalar backend.
    pub state: u64,
    /// An output step's gather: each rank's piece of every component of the mode, then the
    /// whole fields assembled from them (both held while assembling), and the largest slice
    /// image drawn from them ([`slice_render_bytes`]).
    pub gather: u64,
    /// The geometry quantities the snapshots write, computed once and kept.
    pub geometry: u64,
    /// The probes' `(step, value)` histories (a vector grows by doubling).
    pub probes: u64,
    /// The DFT sums copied out of the chunk at the end, and the largest monitor assembled.
    pub results: u64,
    /// The canvas the probes' plots are drawn on at the end ([`probe_plot_bytes`]).
    pub plots: u64,
}

impl MemoryEstimate {
    /// The whole peak: the state with the largest of an output step's gather, the results
    /// read back at the end and the probes' plots (one follows the other).
    pub fn total(&self) -> u64 {
        let phases = self.gather.max(self.results).max(self.plots);
        self.process + self.state + self.geometry + self.probes + phases
    }

    /// The parts that are not zero, as `name size` texts.
    pub fn parts(&self) -> Vec<String> {
        [
            ("process", self.process),
            ("state", self.state),
            ("output gather", self.gather),
            ("geometry", self.geometry),
            ("probes", self.probes),
            ("results", self.results),
            ("probe plots", self.plots),
        ]
        .iter()
        .filter(|(_, b)| *b > 0)
        .map(|(name, b)| format!("{name} {}", human(*b)))
        .collect()
    }
}

/// The share of its executable's mapped pages a run touches: 0.68 of the debug `yee` binary's
/// 39 MiB on a 1D scene stepped 20000 times (`RssFile` of `/proc/PID/status` against the
/// mappings of `/proc/PID/maps`).
const CODE_TOUCHED: f64 = 0.7;

/// What a run allocates beyond the checking process and the parts modelled here: the stepping
/// threads' stacks and allocator arenas, the output writers' buffers. Over the example scenes
/// (`bench/memory_estimate_examples.sh`, the test build of 2026-11-29, whose code share
/// measured 0.69–0.71 of the mapping) the peaks stood 0.9–3 MiB above the estimate without
/// it, the median near 1 MiB.
const RUN_ALLOCATIONS: u64 = 1 << 20;

/// The file-backed memory of a process from its `/proc/PID/smaps` text: the bytes the
/// executable maps — the file at `exe`, or any mapping of its inode `exe_inode` (a hard link
/// of the same file can name it otherwise) — and the resident bytes of every other file
/// mapping (the libraries, and whatever the environment preloads — resident as much now as
/// during a run, where a share of their mapped size could be far off).
pub fn file_mappings(smaps: &str, exe: &str, exe_inode: u64) -> (u64, u64) {
    let (mut exe_mapped, mut others_resident) = (0, 0);
    let mut current: Option<bool> = None;
    for line in smaps.lines() {
        let mut fields = line.split_whitespace();
        let Some(first) = fields.next() else { continue };
        if let Some((lo, hi)) = first.split_once('-')
            && let (Ok(lo), Ok(hi)) = (u64::from_str_radix(lo, 16), u64::from_str_radix(hi, 16))
        {
            let inode: u64 = fields.nth(3).and_then(|i| i.parse().ok()).unwrap_or(0);
            let path = fields.next().filter(|p| p.starts_with('/'));
            current = path.map(|p| p == exe || (inode != 0 && inode == exe_inode));
            if current == Some(true) {
                exe_mapped += hi.saturating_sub(lo);
            }
        } else if first == "Rss:" && current == Some(false) {
            let kib: u64 = fields.next().and_then(|v| v.parse().ok()).unwrap_or(0);
            others_resident += kib * 1024;
        }
    }
    (exe_mapped, others_resident)
}

/// The process as a run will hold it before its state: what it has allocated now
/// (`RssAnon`) and what a run allocates besides ([`RUN_ALLOCATIONS`]), the code pages of the
/// executable a run touches ([`CODE_TOUCHED`] of its mapping) and the libraries as resident
/// now ([`file_mappings`]); nothing where the OS does not tell.
pub fn process_bytes() -> u64 {
    let read = |p: &str| std::fs::read_to_string(p).unwrap_or_default();
    let anon = yee_runtime::memory_limit::kib_field(&read("/proc/self/status"), "RssAnon");
    let exe = std::env::current_exe().unwrap_or_default();
    #[cfg(unix)]
    let inode = std::fs::metadata(&exe).map_or(0, |m| std::os::unix::fs::MetadataExt::ino(&m));
    #[cfg(not(unix))]
    let inode = 0;
    let exe = exe.to_string_lossy();
    let (exe_mapped, libraries) = file_mappings(&read("/proc/self/smaps"), &exe, inode);
    let Some(anon) = anon else { return 0 };
    anon + RUN_ALLOCATIONS + (exe_mapped as f64 * CODE_TOUCHED) as u64 + libraries
}

/// The pixels of the largest slice image of `scene`: the canvas and the image of the cells
/// drawn onto it, 3 bytes a pixel each ([`yee_io::slice_plot::image_size`]).
pub fn slice_render_bytes(scene: &Scene) -> u64 {
    scene
        .slices
        .iter()
        .map(|s| {
            let (u, v) = (s.axis.next(), s.axis.next().next());
            let [u, v] = [u, v].map(|a| scene.grid[a.index()]);
            let (w, h) = yee_io::slice_plot::image_size([u, v]);
            2 * 3 * u64::from(w) * u64::from(h)
        })
        .max()
        .unwrap_or(0)
}

/// The canvas a probe's plot is drawn on (its record beside its spectrum, 3 bytes a pixel;
/// [`yee_io::plot::panels_size`]), where the scene has probes.
pub fn probe_plot_bytes(scene: &Scene) -> u64 {
    if scene.probes.is_empty() {
        return 0;
    }
    let (w, h) = yee_io::plot::panels_size(2);
    3 * u64::from(w) * u64::from(h)
}

/// The peak memory of a one-rank `yee run` of `scene` ([`MemoryEstimate`]).
pub fn estimate(scene: &Scene) -> MemoryEstimate {
    let setup = scene.setup();
    let value = scene.value_type.bytes() as u64;
    let cells = scene.cells() as u64;
    let components = scene.mode.components().len() as u64;
    let gathers = !scene.slices.is_empty() || scene.snapshots.is_some();
    let geometry = scene
        .snapshots
        .as_ref()
        .map_or(0, |s| s.geometry.len() as u64 * cells * 8);
    let steps = scene.steps.max(1).next_power_of_two();
    let dft: Vec<u64> = setup
        .monitors
        .iter()
        .map(|m| {
            m.region.cells() as u64
                * m.component_list().count() as u64
                * m.values_per_node() as u64
                * value
        })
        .collect();
    MemoryEstimate {
        process: process_bytes(),
        state: estimate_bytes(&setup, scene.value_type.bytes()),
        gather: if gathers {
            2 * cells * components * value + slice_render_bytes(scene)
        } else {
            0
        },
        geometry,
        probes: scene.probes.len() as u64 * steps * (8 + value),
        plots: probe_plot_bytes(scene),
        results: dft.iter().sum::<u64>() + dft.iter().copied().max().unwrap_or(0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_executable_counts_by_its_mapping_and_libraries_by_their_resident_pages() {
        let smaps = "5000-7000 r-xp 00000000 08:01 12 /usr/bin/yee\n\
                     Size:                  8 kB\n\
                     Rss:                   4 kB\n\
                     7000-8000 rw-p 00000000 00:00 0 \n\
                     Rss:                   4 kB\n\
                     9000-a000 rw-p 00000000 00:00 0 [heap]\n\
                     Rss:                   4 kB\n\
                     b000-f000 r--p 00000000 08:01 13 /lib/libc.so.6\n\
                     Size:                 16 kB\n\
                     Rss:                   8 kB\n\
                     VmFlags: rd mr mw me sd\n\
                     10000-13000 r--p 00002000 08:01 12 /opt/yee-link\n\
                     Rss:                   8 kB\n";
        assert_eq!(file_mappings(smaps, "/usr/bin/yee", 12), (0x5000, 8 * 1024));
    }
}
