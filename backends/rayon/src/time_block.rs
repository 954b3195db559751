//! The wavefront tile of the rayon backend ([`yee_scalar::time_tile`]): how many steps, and
//! slabs how thick, from the last-level cache, the bytes a cell of the chunk holds and the
//! threads.
//!
//! The model. A wave of a `k`-step tile updates `k` consecutive slabs, one per step, and reads
//! one plane beyond them: about `(k + 1)` slabs of every field, ψ and polarisation array (the
//! last two averaged over the chunk's cells) are in use at once,
//! and they must stay in the cache (half the last-level cache: the other half for whatever
//! else runs) until the wave after reads them again. Then each array crosses memory once per
//! tile, so the DRAM traffic per cell update is the one-step run's over `k`, and every slab
//! step is a parallel loop of its own, shared among the threads, whose start and end cost the
//! same however thin the slab. So the slabs are the thinnest that still give every thread a
//! share of at least [`MIN_SHARE_UPDATES`] component updates in each phase (16 Ki cells in 3D:
//! one plane of 256² on up to four threads; [`min_share_cells`]), and
//! `auto` takes the most steps that let `k + 1` such slabs fit, at most [`AUTO_MAX_STEPS`]:
//! thin slabs leave room for more steps, and it is the steps that cut the traffic. On this
//! machine (32 MiB, 2 threads) at 256³ that is slabs of one plane and k = 8 in vacuum f32
//! (1.5 MiB a plane), k = 4 in f64 (docs/performance.md, "Temporal blocking"). A chunk with
//! tensor nodes runs H a plane ahead of E ([`yee_scalar::time_tile::h_ahead`]), which the
//! `k + 1` slabs cover, in slabs of at least
//! [`AHEAD_MIN_PLANES`](yee_scalar::time_tile::AHEAD_MIN_PLANES).

use yee_core::Scalar;
use yee_scalar::state::YeeState;
use yee_scalar::time_tile::{AHEAD_MIN_PLANES, TimeBlock, TimeTile, h_ahead, parse_cache_bytes};

/// The last-level cache assumed where the OS does not say (this machine's: 32 MiB).
pub const DEFAULT_LLC_BYTES: usize = 32 << 20;

/// The most steps of an `auto` tile: past 8 the traffic left (an eighth of the one-step
/// run's) no longer bounds a step on this machine, and a longer tile only holds outputs back
/// further behind it (measured in docs/performance.md).
pub const AUTO_MAX_STEPS: u64 = 8;

/// The fewest component updates a thread's share of a phase of a slab step holds: below this
/// a share costs more to hand out than it saves, and the executor shares a smaller region
/// among fewer threads. 16 Ki cells of a 3D phase's three components.
pub const MIN_SHARE_UPDATES: usize = 48 * 1024;

/// The fewest cells a thread's share holds in a phase that updates `components` components
/// ([`MIN_SHARE_UPDATES`] over them): 16 Ki in 3D, 48 Ki in a 2D phase of one component (TMz's
/// Ez), a third of a 3D phase's work a cell. Counted in cells, the 2D slabs were a third as
/// thick and their tiles ran slower than one step at a time (docs/performance.md, "Slab
/// shares counted in updates").
pub fn min_share_cells(components: usize) -> usize {
    MIN_SHARE_UPDATES / components.max(1)
}

/// The components the `electric` (else magnetic) phase of `state` updates.
pub fn phase_components<T: Scalar>(state: &YeeState<T>, electric: bool) -> usize {
    let range = if electric { 0..3 } else { 3..6 };
    state.fields[range].iter().flatten().count()
}

/// The sizes of the caches `cpu0` reports under `/sys/devices/system/cpu/cpu0/cache`
/// (`index*/size`, e.g. `32768K`), in increasing order; empty where there are none to read.
pub fn cache_sizes() -> Vec<usize> {
    let Ok(dir) = std::fs::read_dir("/sys/devices/system/cpu/cpu0/cache") else {
        return Vec::new();
    };
    let mut sizes: Vec<usize> = dir
        .filter_map(|e| {
            let text = std::fs::read_to_string(e.ok()?.path().join("size")).ok()?;
            parse_cache_bytes(text.trim())
        })
        .collect();
    sizes.sort_unstable();
    sizes
}

/// The size of the largest cache `cpu0` reports ([`cache_sizes`]), or `None` where there is
/// none to read.
pub fn last_level_cache_bytes() -> Option<usize> {
    cache_sizes().last().copied()
}

/// The last-level cache tiles are sized for where no size is given: the OS's
/// ([`last_level_cache_bytes`]), else [`DEFAULT_LLC_BYTES`]; and whether the OS said.
pub fn os_or_default_cache_bytes() -> (usize, bool) {
    match last_level_cache_bytes() {
        Some(bytes) => (bytes, true),
        None => (DEFAULT_LLC_BYTES, false),
    }
}

/// The tile `block` asks for on `state`, with a last-level cache of `llc` bytes and
/// `threads` threads ([the model](self)): `None` when off. Slabs are the fewest whole planes
/// that give every thread [`min_share_cells`] cells in each phase, and no thicker than lets
/// `k + 1` of them fit half the cache (at least one plane; with tensor nodes at least
/// [`AHEAD_MIN_PLANES`]).
/// For `auto`, `k` is the most steps that let `k + 1` of those slabs fit, at most
/// [`AUTO_MAX_STEPS`]; at least 2, with thinner slabs if they must be; `None` if not even
/// three of the thinnest slabs fit.
pub fn tile_for<T: Scalar>(
    block: TimeBlock,
    state: &YeeState<T>,
    llc: usize,
    threads: usize,
) -> Option<TimeTile> {
    let budget = llc / 2;
    let owned = state.owned;
    let axis = yee_scalar::time_tile::slab_axis(owned.extent())?;
    let planes_total = owned.extent()[axis];
    let plane_cells = (owned.cells() / planes_total).max(1);
    let extra = state.psi_len() + state.polarisation_len();
    let arrays = state.fields.iter().flatten().count();
    let bytes_per_cell =
        (arrays * owned.cells() + extra) * std::mem::size_of::<T>() / owned.cells().max(1);
    let plane_bytes = (plane_cells * bytes_per_cell).max(1);
    // The thinnest slab a tile may have.
    let fewest = if h_ahead(state) { AHEAD_MIN_PLANES } else { 1 }.min(planes_total);
    // The thinnest slab that feeds every thread in both phases.
    let components = phase_components(state, true).min(phase_components(state, false));
    let fed = (threads.max(1) * min_share_cells(components))
        .div_ceil(plane_cells)
        .clamp(fewest, planes_total);
    // How many slabs of `planes` planes fit the budget.
    let fit = |planes: usize| budget / (planes * plane_bytes);
    let steps = match block {
        TimeBlock::Off => return None,
        TimeBlock::Steps(k) => k,
        TimeBlock::Auto => match fit(fed).saturating_sub(1) as u64 {
            k if k >= 2 => k.min(AUTO_MAX_STEPS),
            _ if fit(fewest) > 2 => 2,
            _ => return None,
        },
    };
    let planes = fed.min(fit(1) / (steps as usize + 1)).max(fewest);
    Some(TimeTile {
        steps,
        slab_cells: planes * plane_cells,
    })
}
