//! The cache a run can keep, found from read rates: the size where a sweep's rate falls
//! halfway from the cache's to memory's.
//!
//! The tiles of temporal blocking (Malas et al., SIAM J. Sci. Comput. 37(4), 2015, §3.3: the
//! tile's working set must stay in the shared last-level cache) are sized for a cache. The OS
//! reports the whole last-level cache, but on a host whose cache other jobs or tenants share, a
//! run keeps less of it. Reading buffers of growing size over and over, the rate stays at the
//! cache's while the buffer fits the part the run keeps, then falls to memory's. This module
//! finds that fall in rates the caller measured; it reads no clock.

/// The size, in the samples' units, where the read rate falls halfway from the cache's plateau
/// to memory's: `samples` are `(size, rate)` in increasing size, the last taken well past
/// the cache (memory's rate); the plateau is the highest rate at sizes of at least `from`
/// (past the private caches, whose rates are higher still). Between the last size at or above
/// the halfway rate and the first below it, the size is interpolated in log-size. `None` where
/// there are fewer than three samples, where the plateau is not 1.25× memory's rate (no cache
/// shows), or where the rate never falls below halfway (the sweep did not pass the cache).
pub fn cache_knee(samples: &[(f64, f64)], from: f64) -> Option<f64> {
    if samples.len() < 3 {
        return None;
    }
    let memory = samples[samples.len() - 1].1;
    let (top, plateau) = samples
        .iter()
        .enumerate()
        .filter(|&(_, &(size, _))| size >= from)
        .fold(
            None,
            |best: Option<(usize, f64)>, (i, &(_, rate))| match best {
                Some((_, r)) if r >= rate => best,
                _ => Some((i, rate)),
            },
        )?;
    // Written so that a rate that is not a number shows no cache either.
    let shows = memory > 0.0 && plateau >= 1.25 * memory;
    if !shows {
        return None;
    }
    let half = 0.5 * (plateau + memory);
    let below = top + samples[top..].iter().position(|&(_, rate)| rate < half)?;
    let ((s0, r0), (s1, r1)) = (samples[below - 1], samples[below]);
    let t = (r0 - half) / (r0 - r1);
    Some(s0 * num_traits::Float::powf(s1 / s0, t))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// This machine's read rates of 2026-11-30 (GB/s; sizes in KiB, √2 apart): 1 MiB L2,
    /// a 32 MiB L3 shared with other guests.
    const EPYC: [(f64, f64); 19] = [
        (256.0, 115.8),
        (360.0, 116.1),
        (508.0, 116.2),
        (716.0, 108.8),
        (1012.0, 89.1),
        (1428.0, 95.1),
        (2016.0, 101.8),
        (2848.0, 102.7),
        (4024.0, 103.1),
        (5688.0, 103.0),
        (8040.0, 102.8),
        (11368.0, 96.1),
        (16076.0, 84.7),
        (22732.0, 60.6),
        (32144.0, 38.5),
        (45456.0, 37.6),
        (64280.0, 31.7),
        (90904.0, 31.0),
        (128556.0, 25.7),
    ];

    #[test]
    fn the_knee_lies_where_the_rate_falls_halfway_to_memory() {
        // Plateau 103.1 (past 2 MiB), memory 25.7: halfway 64.4, between 16 076 KiB (84.7)
        // and 22 732 KiB (60.6), 84 % of the way in log-size.
        let knee = cache_knee(&EPYC, 2048.0).unwrap();
        let expected =
            16076.0 * num_traits::Float::powf(22732.0 / 16076.0, (84.7 - 64.4) / (84.7 - 60.6));
        assert!((knee - expected).abs() < 1.0, "{knee} against {expected}");
        assert!(knee > 20_000.0 && knee < 22_000.0, "{knee}");
        // Counted from the L2 (116.2), the halfway rate is 71.0 and the knee a little lower.
        let from_l2 = cache_knee(&EPYC, 0.0).unwrap();
        assert!(from_l2 < knee && from_l2 > 16076.0, "{from_l2}");
    }

    #[test]
    fn a_plateau_at_the_samples_start_is_found_too() {
        let samples = [(1.0, 100.0), (2.0, 100.0), (4.0, 20.0), (8.0, 20.0)];
        // Halfway 60: from size 2 (100) to 4 (20), halfway in log-size.
        let knee = cache_knee(&samples, 0.0).unwrap();
        assert!(
            (knee - num_traits::Float::powf(2.0, 1.5)).abs() < 1e-9,
            "{knee}"
        );
    }

    #[test]
    fn no_knee_without_a_cache_or_a_fall() {
        // Too few samples.
        assert_eq!(cache_knee(&EPYC[..2], 0.0), None);
        // Flat: every size reads at memory's rate.
        let flat = EPYC.map(|(s, _)| (s, 30.0));
        assert_eq!(cache_knee(&flat, 0.0), None);
        // The sweep stopped inside the cache: the last size is no slower than the first.
        assert_eq!(cache_knee(&EPYC[..11], 2048.0), None);
        // Nothing at or past `from`.
        assert_eq!(cache_knee(&EPYC, 1e9), None);
        // Rates that are not numbers give no knee rather than a wrong one.
        let mut nan = EPYC;
        nan[18].1 = f64::NAN;
        assert_eq!(cache_knee(&nan, 2048.0), None);
    }
}
