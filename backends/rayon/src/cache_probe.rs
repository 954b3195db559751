//! `--cache-bytes measure`: the last-level cache a run keeps, measured rather than read from
//! the OS. On a host whose cache other jobs or tenants share, the OS reports the whole cache
//! and a run keeps less; tiles sized for the whole then spill to memory.
//!
//! One thread reads buffers of growing size (√2 apart, from 256 KiB to twice the cache the OS
//! reports, at most 1 GiB), each several times over, and keeps each size's best rate; the
//! knee of those rates ([`yee_core::model::cache_knee`]: where the rate falls halfway from
//! the cache's plateau to memory's) is the cache measured. It takes about 0.2 s here (32 MiB)
//! and under a second on a 260 MiB cache, once a process ([`measured`]).

use std::sync::OnceLock;
use std::time::Instant;

use crate::time_block::{DEFAULT_LLC_BYTES, cache_sizes};

/// The smallest size read.
const FIRST_BYTES: usize = 256 << 10;

/// The largest size read, whatever the OS reports.
const MOST_BYTES: usize = 1 << 30;

/// Each size is read at least this many times, and for at least [`SIZE_SECONDS`].
const PASSES: usize = 3;

/// See [`PASSES`].
const SIZE_SECONDS: f64 = 0.003;

/// What [`probe`] measured.
#[derive(Clone, Debug, PartialEq)]
pub struct CacheProbe {
    /// Each size read, in bytes, and its best read rate in GB/s, in increasing size.
    pub rates: Vec<(usize, f64)>,
    /// The cache measured, in bytes; `None` where the rates show no knee (see
    /// [`CacheProbe::error`]).
    pub knee: Option<usize>,
    /// Seconds the probe took, allocation included.
    pub seconds: f64,
    /// Why there is no knee.
    pub error: Option<String>,
}

impl CacheProbe {
    /// The last-level cache the tiles are to be sized for ([`crate::time_block`]'s model,
    /// which keeps a tile's working set in half the cache it is given): twice the knee, so
    /// that the working set is the cache measured. On this machine (an OS-reported 32 MiB)
    /// the knee reads 18–21 MiB, and half of it sized tiles too small: `auto` took k = 3–5
    /// instead of 8 in vacuum 256³ and stepped one step at a time in the sphere 256³, 4–30 %
    /// slower (docs/performance.md, "A measured cache").
    pub fn tile_cache_bytes(&self) -> Option<usize> {
        self.knee.map(|k| k.saturating_mul(2))
    }
}

/// The probe of this process, run the first time it is asked for.
pub fn measured() -> &'static CacheProbe {
    static PROBE: OnceLock<CacheProbe> = OnceLock::new();
    PROBE.get_or_init(|| {
        let p = probe();
        match (p.knee, &p.error) {
            (Some(knee), _) => log::info!(
                "cache measured: {:.1} MiB keep their read rate (probe {:.2} s)",
                knee as f64 / (1u64 << 20) as f64,
                p.seconds
            ),
            (None, why) => log::warn!(
                "cache not measured ({}); the tiles are sized for the OS's",
                why.as_deref().unwrap_or("no knee")
            ),
        }
        p
    })
}

/// Reads buffers from [`FIRST_BYTES`] to twice the cache the OS reports (at most
/// [`MOST_BYTES`]) and finds the knee of their rates ([module docs](self)), counting the
/// plateau from twice the next cache down (the private one) on.
pub fn probe() -> CacheProbe {
    let started = Instant::now();
    let sizes = cache_sizes();
    let llc = sizes.last().copied().unwrap_or(DEFAULT_LLC_BYTES);
    let private = match sizes.iter().rev().find(|&&s| s < llc) {
        Some(&s) => 2 * s,
        None => llc / 8,
    };
    let upper = (2 * llc).clamp(DEFAULT_LLC_BYTES, MOST_BYTES);
    let done = |rates, knee, error: Option<&str>| CacheProbe {
        rates,
        knee,
        seconds: started.elapsed().as_secs_f64(),
        error: error.map(Into::into),
    };
    let words = upper / 8;
    let mut buffer: Vec<u64> = Vec::new();
    if buffer.try_reserve_exact(words).is_err() {
        return done(Vec::new(), None, Some("no memory for the probe's buffer"));
    }
    // Written, so every page is really there before it is timed.
    buffer.resize(words, 1);
    let rates = read_rates(&buffer);
    let samples: Vec<(f64, f64)> = rates.iter().map(|&(b, r)| (b as f64, r)).collect();
    match yee_core::model::cache_knee::cache_knee(&samples, private as f64) {
        Some(knee) => done(rates, Some(knee as usize), None),
        None => done(
            rates,
            None,
            Some("the read rates show no fall from a cache"),
        ),
    }
}

/// The best read rate, in GB/s, of each size from [`FIRST_BYTES`] up to the whole of
/// `buffer`, √2 apart (whole pages).
fn read_rates(buffer: &[u64]) -> Vec<(usize, f64)> {
    let whole = buffer.len() * 8;
    let mut rates = Vec::new();
    let mut bytes = FIRST_BYTES.min(whole);
    loop {
        let words = &buffer[..bytes / 8];
        let (mut best, mut spent, mut passes) = (f64::INFINITY, 0.0, 0);
        while passes < PASSES || spent < SIZE_SECONDS {
            let t = Instant::now();
            std::hint::black_box(sum(std::hint::black_box(words)));
            let seconds = t.elapsed().as_secs_f64();
            best = best.min(seconds);
            spent += seconds;
            passes += 1;
        }
        rates.push((bytes, bytes as f64 / best.max(1e-9) / 1e9));
        if bytes == whole {
            return rates;
        }
        bytes = ((bytes as f64 * core::f64::consts::SQRT_2) as usize / 4096 * 4096).min(whole);
    }
}

/// The wrapping sum of `words`: a loop the compiler vectorises, bound by the reads.
fn sum(words: &[u64]) -> u64 {
    words.iter().fold(0u64, |a, &w| a.wrapping_add(w))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sizes_read_grow_to_the_whole_buffer() {
        let buffer = vec![1u64; (3 << 20) / 8];
        let rates = read_rates(&buffer);
        assert_eq!(rates[0].0, FIRST_BYTES);
        assert_eq!(rates.last().unwrap().0, 3 << 20);
        assert!(rates.windows(2).all(|w| w[0].0 < w[1].0), "{rates:?}");
        assert!(
            rates.iter().all(|&(_, r)| r > 0.0 && r.is_finite()),
            "{rates:?}"
        );
        assert_eq!(sum(&buffer), buffer.len() as u64);
    }
}
