//! The wavefront tile of the rayon backend ([`yee_scalar::time_tile`]): how many steps, and
//! slabs how thick, from the last-level cache and the chunk's arrays.
//!
//! A wave of a `k`-step tile updates `k` consecutive slabs, one per step, and reads one plane
//! beyond them: about `(k + 1)` slabs of every field and ψ array are in use at once. The
//! slabs are made as thick as lets that fit in half the last-level cache (the other half for
//! whatever else runs), whole planes, at least one.

use yee_core::Scalar;
use yee_scalar::state::YeeState;
use yee_scalar::time_tile::{TimeBlock, TimeTile};

/// The last-level cache assumed where the OS does not say (this machine's: 32 MiB).
pub const DEFAULT_LLC_BYTES: usize = 32 << 20;

/// Steps of an `auto` tile: the most that still cut the traffic much (`1/k` of the one-step
/// run's) while a plane of a 256³ grid (1.5 MiB in f32) leaves slabs two planes thick.
pub const AUTO_STEPS: u64 = 4;

/// The size of the largest cache `cpu0` reports under `/sys/devices/system/cpu/cpu0/cache`
/// (`index*/size`, e.g. `32768K`), or `None` where there is none to read.
pub fn last_level_cache_bytes() -> Option<usize> {
    let dir = std::fs::read_dir("/sys/devices/system/cpu/cpu0/cache").ok()?;
    dir.filter_map(|e| {
        let text = std::fs::read_to_string(e.ok()?.path().join("size")).ok()?;
        parse_size(text.trim())
    })
    .max()
}

/// `32768K`, `1M` or a number of bytes.
fn parse_size(text: &str) -> Option<usize> {
    let (digits, unit) = match text.as_bytes().last()? {
        b'K' => (&text[..text.len() - 1], 1 << 10),
        b'M' => (&text[..text.len() - 1], 1 << 20),
        b'G' => (&text[..text.len() - 1], 1 << 30),
        _ => (text, 1),
    };
    digits.parse::<usize>().ok().map(|n| n * unit)
}

/// The tile `block` asks for on `state` with a last-level cache of `llc` bytes: `None` when
/// off; for `auto`, [`AUTO_STEPS`] steps or fewer (down to 2) so that `k + 1` one-plane slabs
/// fit half the cache, `None` if even 2 do not; slabs as thick as fit (at least one plane).
pub fn tile_for<T: Scalar>(block: TimeBlock, state: &YeeState<T>, llc: usize) -> Option<TimeTile> {
    let budget = llc / 2;
    let owned = state.owned;
    let axis = (1..3).rev().find(|&a| owned.extent()[a] > 1)?;
    let plane_cells = (owned.cells() / owned.extent()[axis]).max(1);
    let psi = state.psi_len();
    let arrays = state.fields.iter().flatten().count();
    let bytes_per_cell =
        (arrays * owned.cells() + psi) * std::mem::size_of::<T>() / owned.cells().max(1);
    let plane_bytes = (plane_cells * bytes_per_cell).max(1);
    let steps = match block {
        TimeBlock::Off => return None,
        TimeBlock::Steps(k) => k,
        TimeBlock::Auto => (2..=AUTO_STEPS)
            .rev()
            .find(|&k| (k as usize + 1) * plane_bytes <= budget)?,
    };
    let planes = (budget / ((steps as usize + 1) * plane_bytes)).max(1);
    Some(TimeTile {
        steps,
        slab_cells: planes * plane_cells,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cache_sizes_read_as_the_os_writes_them() {
        assert_eq!(parse_size("32768K"), Some(32 << 20));
        assert_eq!(parse_size("1M"), Some(1 << 20));
        assert_eq!(parse_size("512"), Some(512));
        assert_eq!(parse_size("lots"), None);
    }
}
