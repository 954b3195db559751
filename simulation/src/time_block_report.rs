//! run.json's `time_block`: the temporal blocking asked for (`--time-block`), whether the run
//! swept several steps at once ([`yee_scalar::time_tile`]), in tiles of how many, and why not
//! where it did not.

use serde::Serialize;
use yee_em::Setup;
use yee_scalar::decomposed::RankOutput;
use yee_scalar::time_tile::{TimeBlock, setup_fallback};

use crate::options::RunOptions;

/// What ran of the temporal blocking asked for.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct TimeBlockReport {
    /// As asked for: `off`, `auto` or a number of steps.
    pub requested: String,
    /// `wavefront` when some tile advanced several steps at once, else `one-step`.
    pub ran: &'static str,
    /// The steps of a tile the chunk took (1: one step at a time); in a decomposed run, the
    /// steps between halo exchanges (its ghost zones' depth).
    pub k: u64,
    /// Steps between two halo exchanges of a decomposed run: `k` where every rank keeps a
    /// ghost zone `k` cells deep (`yee_scalar::ghost_zone`), else 1 (every step; 1 for a run
    /// of one rank, which has none).
    pub exchange_every: u64,
    /// The most steps one tile advanced (outputs, the run's end and checkpoints cut tiles).
    pub longest_tile: u64,
    /// Why the one-step path ran, or why tiles were shorter than `k`; `None` when neither.
    pub reason: Option<String>,
    /// The last-level cache, in bytes, the rayon backend sizes its tiles for (`None` on the
    /// other backends), and where that size came from: `--cache-bytes`, `measured`
    /// (`--cache-bytes measure`: twice the knee of [`TimeBlockReport::cache_probe`], the
    /// tiles' working set being half the cache they are sized for), `os` (what the OS
    /// reports for cpu0) or `default` (32 MiB, where the OS reports none).
    pub cache_bytes: Option<u64>,
    /// See [`TimeBlockReport::cache_bytes`].
    pub cache_from: Option<&'static str>,
    /// What `--cache-bytes measure` read; `None` where it was not asked for or not run (the
    /// one-step path needs no cache size).
    pub cache_probe: Option<CacheProbeReport>,
}

/// run.json's `time_block.cache_probe`: the read rates `--cache-bytes measure` took and the
/// knee it found in them.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct CacheProbeReport {
    /// The cache measured, in bytes; `None` where the rates showed no knee.
    pub knee_bytes: Option<u64>,
    /// Why there is no knee.
    pub error: Option<String>,
    /// Seconds the probe took.
    pub seconds: f64,
    /// `[bytes, GB/s]` of each size read, in increasing size.
    pub rates: Vec<(u64, f64)>,
}

/// The cache the rayon backend sizes a run's tiles for, where the size came from
/// ([`TimeBlockReport::cache_bytes`]) and the probe that measured it, if one did; `None` on
/// the other backends. The run's executor takes the same size ([`crate::dispatch`]).
pub(crate) fn tile_cache(
    options: &RunOptions,
) -> Option<(u64, &'static str, Option<CacheProbeReport>)> {
    if options.backend.name() != "rayon" {
        return None;
    }
    if let Some(bytes) = options.cache_bytes {
        return Some((bytes as u64, "--cache-bytes", None));
    }
    #[cfg(feature = "rayon")]
    {
        let probe = (options.measure_cache && options.time_block != TimeBlock::Off)
            .then(yee_rayon::cache_probe::measured);
        let report = probe.map(|p| CacheProbeReport {
            knee_bytes: p.knee.map(|k| k as u64),
            error: p.error.clone(),
            seconds: p.seconds,
            rates: p.rates.iter().map(|&(b, r)| (b as u64, r)).collect(),
        });
        if let Some(bytes) = probe.and_then(|p| p.tile_cache_bytes()) {
            return Some((bytes as u64, "measured", report));
        }
        let (bytes, from_os) = yee_rayon::time_block::os_or_default_cache_bytes();
        Some((bytes as u64, if from_os { "os" } else { "default" }, report))
    }
    #[cfg(not(feature = "rayon"))]
    None
}

/// The report of a run of `setup` with `options` — on the tile driver (`tiled`) or not, with a
/// balancer (`balanced`) or not — from its ranks' `results`.
pub fn time_block_report<T>(
    setup: &Setup,
    options: &RunOptions,
    (tiled, balanced): (bool, bool),
    results: &[RankOutput<T>],
) -> TimeBlockReport {
    let k = results.iter().map(|r| r.tile_steps).min().unwrap_or(1);
    let longest = results.iter().map(|r| r.longest_tile).max().unwrap_or(1);
    let decomposed = options.topology.ranks() > 1;
    let periodic = yee_scalar::own_wrap::setup_wrap_fallback(setup, decomposed);
    let reason = if options.time_block == TimeBlock::Off {
        Some("not requested (--time-block off)".into())
    } else if options.backend.name() != "rayon" || !options.rank_backends.is_empty() {
        Some(format!(
            "the {} backend steps one step at a time (temporal blocking is the rayon \
             backend's)",
            options.backend.name()
        ))
    } else if tiled {
        Some("the tile driver steps one step at a time".into())
    } else if let Some(why) = periodic {
        Some(why.into())
    } else if balanced && !decomposed {
        Some("dynamic balancing measures every step".into())
    } else if let Some(why) = setup_fallback(setup, decomposed) {
        Some(why.into())
    } else if k <= 1 && decomposed {
        Some(
            "a decomposed run's ghost zones need every box at least 2 cells thick along the \
             axes the ranks are split along, and every rank a tile"
                .into(),
        )
    } else if k <= 1 {
        Some(
            "auto: three one-plane slabs (two-plane with tensor nodes; a tile of two steps) outgrow \
             half the last-level cache"
                .into(),
        )
    } else if longest <= 1 {
        Some("an output every step".into())
    } else if longest < k {
        Some("tiles end at output, checkpoint and final steps".into())
    } else {
        None
    };
    let cache = tile_cache(options);
    TimeBlockReport {
        requested: options.time_block.name(),
        ran: if longest > 1 { "wavefront" } else { "one-step" },
        k,
        exchange_every: if decomposed { k } else { 1 },
        longest_tile: longest,
        reason,
        cache_bytes: cache.as_ref().map(|c| c.0),
        cache_from: cache.as_ref().map(|c| c.1),
        cache_probe: cache.and_then(|c| c.2),
    }
}
