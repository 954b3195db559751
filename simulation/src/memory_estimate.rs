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
    /// whole fields assembled from them (both held while assembling).
    pub gather: u64,
    /// The geometry quantities the snapshots write, computed once and kept.
    pub geometry: u64,
    /// The probes' `(step, value)` histories (a vector grows by doubling).
    pub probes: u64,
    /// The DFT sums copied out of the chunk at the end, and the largest monitor assembled.
    pub results: u64,
}

impl MemoryEstimate {
    /// The whole peak: the state with the larger of an output step's gather and the results
    /// read back at the end (one follows the other).
    pub fn total(&self) -> u64 {
        self.process + self.state + self.geometry + self.probes + self.gather.max(self.results)
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
        ]
        .iter()
        .filter(|(_, b)| *b > 0)
        .map(|(name, b)| format!("{name} {}", human(*b)))
        .collect()
    }
}

/// The share of its executable's and libraries' mapped pages a run touches: 0.68 of the debug
/// `yee` binary's 39 MiB on a 1D scene stepped 20000 times (`RssFile` of
/// `/proc/PID/status` against the mappings of `/proc/PID/maps`).
const CODE_TOUCHED: f64 = 0.7;

/// The bytes of the file mappings in a `/proc/self/maps` text (the executable and the
/// libraries: lines whose path starts with `/`).
pub fn mapped_file_bytes(maps: &str) -> u64 {
    maps.lines()
        .filter_map(|line| {
            let mut fields = line.split_whitespace();
            let range = fields.next()?;
            let path = fields.nth(4)?;
            let (lo, hi) = range.split_once('-')?;
            let size = u64::from_str_radix(hi, 16).ok()? - u64::from_str_radix(lo, 16).ok()?;
            path.starts_with('/').then_some(size)
        })
        .sum()
}

/// The process as a run will hold it before its state: what it has allocated now
/// (`RssAnon`) and the code pages a run touches ([`CODE_TOUCHED`] of the file mappings);
/// nothing where the OS does not tell.
pub fn process_bytes() -> u64 {
    let read = |p: &str| std::fs::read_to_string(p).unwrap_or_default();
    let anon = yee_runtime::memory_limit::kib_field(&read("/proc/self/status"), "RssAnon");
    let code = mapped_file_bytes(&read("/proc/self/maps")) as f64 * CODE_TOUCHED;
    anon.unwrap_or(0) + code as u64
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
            2 * cells * components * value
        } else {
            0
        },
        geometry,
        probes: scene.probes.len() as u64 * steps * (8 + value),
        results: dft.iter().sum::<u64>() + dft.iter().copied().max().unwrap_or(0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_mappings_are_summed_and_anonymous_ones_left_out() {
        let maps = "5000-7000 r-xp 00000000 08:01 12 /usr/bin/yee\n\
                    7000-8000 rw-p 00000000 00:00 0 \n\
                    9000-a000 rw-p 00000000 00:00 0 [heap]\n\
                    b000-c000 r--p 00000000 08:01 13 /lib/libc.so.6\n";
        assert_eq!(mapped_file_bytes(maps), 0x2000 + 0x1000);
    }
}
