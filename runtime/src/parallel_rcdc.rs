//! RCDC's tries on rayon's threads (issue 53): the multilevel runs of
//! [`rcdc_tries`] are independent (each reads only the graph), so each thread runs some and
//! keeps the outcomes that can still win in an [`RcdcPool`]; the pools merge into the one the
//! sequential [`yee_core::graph::rcdc`] builds (a pool is the same whatever order its outcomes
//! came in), and [`rcdc_finish`] ends as there. Inside each try and the V-cycles, the core's
//! independent work (the halves of a recursive bisection and its starts, the chunks of a
//! contraction) runs through [`Rayon`], the core's [`Fork`] on rayon's `join`. On graphs
//! above [`PARALLEL_TRY_NODES`] nodes the tries run in [`TRY_LANES`] lanes, and the core's
//! peaks of memory one at a time ([`Rayon::one_at_a_time`]). The partition is the same for
//! any number of threads, and the same as the core's sequential one.

use std::sync::atomic::{AtomicBool, Ordering};

use rayon::prelude::*;
use yee_core::graph::{
    Fork, Graph, GraphError, Method, RcdcParams, RcdcPool, partition, rcdc_finish, rcdc_tries,
    run_try,
};

/// The core's [`Fork`] on the current rayon pool: both branches may run at once, on the
/// pool's threads (work stealing).
#[derive(Clone, Copy, Debug, Default)]
pub struct Rayon;

impl Fork for Rayon {
    fn join<A: Send, B: Send>(
        &self,
        a: impl FnOnce() -> A + Send,
        b: impl FnOnce() -> B + Send,
    ) -> (A, B) {
        rayon::join(a, b)
    }

    fn side_by_side(&self) -> bool {
        rayon::current_num_threads() > 1
    }

    /// One call at a time in the process: a caller that finds [`PEAK`] taken runs the
    /// pool's other jobs (the holder's own branches among them) until it is free.
    fn one_at_a_time<R>(&self, f: impl FnOnce() -> R) -> R {
        while PEAK
            .compare_exchange(false, true, Ordering::Acquire, Ordering::Relaxed)
            .is_err()
        {
            if rayon::yield_now() != Some(rayon::Yield::Executed) {
                std::thread::yield_now();
            }
        }
        /// Frees [`PEAK`] however `f` ends.
        struct Release;
        impl Drop for Release {
            fn drop(&mut self) {
                PEAK.store(false, Ordering::Release);
            }
        }
        let _release = Release;
        f()
    }
}

/// Taken while a [`Rayon::one_at_a_time`] call runs.
static PEAK: AtomicBool = AtomicBool::new(false);

/// Graphs of more nodes than this run RCDC's tries in at most [`TRY_LANES`] lanes, each
/// lane's tries one after the other: each try holds its own coarsening hierarchy and
/// partitions (about 65 bytes a node of a 3D cell graph besides it, docs/partitioning.md
/// "At scale"), so the tries alive at once multiply the peak memory; below it, a try's
/// hierarchy is under 70 MB and every try may run at once.
pub const PARALLEL_TRY_NODES: usize = 1 << 20;

/// Tries alive at once on graphs above [`PARALLEL_TRY_NODES`] (where the pool has as many
/// threads): two, so the 256³ shell at tile 1 (5.8 M nodes) stays within 1 GB (with the
/// finest graph's contractions one at a time, [`Fork::one_at_a_time`]) while both threads
/// run tries (issue 53; docs/partitioning.md, "Two tries at a time within 1 GB").
pub const TRY_LANES: usize = 2;

/// [`partition`] with RCDC's tries spread over the current rayon pool (the global one, or
/// the one `install`ed around the call), all at once on graphs of at most
/// [`PARALLEL_TRY_NODES`] nodes and in [`TRY_LANES`] lanes above; the other methods run as
/// in the core.
pub fn partition_on_threads(
    g: &Graph,
    speeds: &[f64],
    method: Method,
    part: &mut [usize],
) -> Result<(), GraphError> {
    partition_with_try_limit(g, speeds, method, part, PARALLEL_TRY_NODES, TRY_LANES)
}

/// [`partition_on_threads`] with every try side by side only on graphs of at most
/// `parallel_try_nodes` nodes, in at most `lanes` lanes above (the same partition either
/// way).
pub fn partition_with_try_limit(
    g: &Graph,
    speeds: &[f64],
    method: Method,
    part: &mut [usize],
    parallel_try_nodes: usize,
    lanes: usize,
) -> Result<(), GraphError> {
    if method != Method::Rcdc {
        return partition(g, speeds, method, part);
    }
    let params = RcdcParams::default();
    let tries = rcdc_tries(g, speeds, params)?;
    if g.len() > parallel_try_nodes {
        // Lane `l` runs tries l, l + lanes, ... one after the other: at most `lanes`
        // hierarchies alive (one, on one thread: the lanes then run one after the other).
        let lanes = lanes.min(rayon::current_num_threads()).max(1);
        let lane = |first: usize| -> Result<RcdcPool, GraphError> {
            let mut pool = RcdcPool::default();
            for index in (first..tries.len()).step_by(lanes) {
                if let Some(outcome) = run_try(&Rayon, g, speeds, &tries[index], index)? {
                    pool.add(outcome, params);
                }
            }
            Ok(pool)
        };
        let pool = (0..lanes)
            .into_par_iter()
            .map(lane)
            .try_reduce(RcdcPool::default, |a, b| Ok(a.merge(b, params)))?;
        rcdc_finish(&Rayon, g, speeds, params, pool, part)?;
        return Ok(());
    }
    let pool = tries
        .par_iter()
        .enumerate()
        .map(|(index, t)| run_try(&Rayon, g, speeds, t, index))
        .try_fold(RcdcPool::default, |mut pool, outcome| {
            if let Some(outcome) = outcome? {
                pool.add(outcome, params);
            }
            Ok::<_, GraphError>(pool)
        })
        .try_reduce(RcdcPool::default, |a, b| Ok(a.merge(b, params)))?;
    rcdc_finish(&Rayon, g, speeds, params, pool, part)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;
    use yee_core::graph::{Sequential, TileGraph, map_chunks};

    /// Calls of `one_at_a_time` from many jobs on four threads never overlap, and the work
    /// inside them (itself forked) still runs to the end: a waiting thread runs the
    /// holder's branches rather than blocking them.
    #[test]
    fn one_at_a_time_runs_one_call_at_a_time_and_its_branches_anywhere() {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(4)
            .build()
            .unwrap();
        let inside = AtomicUsize::new(0);
        let most = AtomicUsize::new(0);
        let sums: Vec<usize> = pool.install(|| {
            (0..16)
                .into_par_iter()
                .map(|k| {
                    Rayon.one_at_a_time(|| {
                        let now = inside.fetch_add(1, Ordering::SeqCst) + 1;
                        most.fetch_max(now, Ordering::SeqCst);
                        let parts = map_chunks(&Rayon, 0..10_000, 100, &|r| r.sum::<usize>());
                        // Long enough that calls not kept apart would overlap.
                        std::thread::sleep(std::time::Duration::from_millis(2));
                        inside.fetch_sub(1, Ordering::SeqCst);
                        parts.iter().sum::<usize>() + k
                    })
                })
                .collect()
        });
        assert_eq!(most.load(Ordering::SeqCst), 1);
        assert_eq!(sums, (0..16).map(|k| 49_995_000 + k).collect::<Vec<_>>());
    }

    /// Heavy-edge matching of a 64³ block of cells with slots (about 250 000 nodes) and of
    /// its first coarse graph (weighted nodes and edges), both above
    /// `WINDOWED_MATCHING_NODES` (their windows choose on the threads), on 2 and 4 threads:
    /// the sequential matching.
    #[test]
    fn the_windowed_matching_on_threads_is_the_sequential_one() {
        use yee_core::graph::coarsen::{WINDOWED_MATCHING_NODES, heavy_edge_matching};
        let side = 64;
        let mask: Vec<bool> = (0..side * side * side)
            .map(|i| (i % side) % 7 != 3 || i % (side * side) / side < 4)
            .collect();
        let fine = TileGraph::from_mask([side; 3], &mask, [1, 1, 1], 1.0)
            .unwrap()
            .graph;
        assert!(fine.len() >= WINDOWED_MATCHING_NODES);
        let mut group = vec![0; fine.len()];
        let count = heavy_edge_matching(&Sequential, &fine, 8.0, 3, None, &mut group);
        let coarse = yee_core::graph::contract(&Sequential, &fine, &group, count);
        assert!(coarse.len() >= WINDOWED_MATCHING_NODES);
        for (g, bound) in [(&fine, 2.0), (&coarse, 8.0)] {
            let mut one = vec![0; g.len()];
            let n = heavy_edge_matching(&Sequential, g, bound, 5, None, &mut one);
            for threads in [2, 4] {
                let pool = rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()
                    .unwrap();
                let mut on_threads = vec![0; g.len()];
                let m = pool
                    .install(|| heavy_edge_matching(&Rayon, g, bound, 5, None, &mut on_threads));
                assert_eq!(
                    (m, &on_threads),
                    (n, &one),
                    "{threads} threads, {} nodes",
                    g.len()
                );
            }
        }
    }

    /// A 3D shell of cells (radii 5 and 9 in a 20³ grid) and a porous square: RCDC on 1, 2,
    /// 3 and 4 threads gives the core's sequential partition, with the tries side by side
    /// and one at a time (the recursive bisections' halves and starts and the contractions'
    /// chunks on the threads in both), and the graph built on the threads is the
    /// sequential one.
    #[test]
    fn the_partition_is_the_same_on_any_number_of_threads() {
        let side = 20;
        let shell: Vec<bool> = (0..side * side * side)
            .map(|i| {
                let d = [i % side, i / side % side, i / (side * side)]
                    .map(|v| v as f64 + 0.5 - side as f64 / 2.0);
                (25.0..81.0).contains(&(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]))
            })
            .collect();
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let porous: Vec<bool> = (0..40 * 40)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                state % 5 != 0
            })
            .collect();
        for (grid, mask, tile, parts) in [
            ([side; 3], &shell, [1, 1, 1], 6),
            ([side; 3], &shell, [4, 4, 4], 5),
            ([side; 3], &shell, [1, 1, 1], 40),
            ([40, 40, 1], &porous, [1, 1, 1], 8),
        ] {
            let tiles = TileGraph::from_mask(grid, mask, tile, 1.0).unwrap();
            let g = tiles.graph.clone();
            let speeds: Vec<f64> = (0..parts).map(|p| 1.0 + (p % 3) as f64).collect();
            let mut sequential = vec![0; g.len()];
            partition(&g, &speeds, Method::Rcdc, &mut sequential).unwrap();
            for threads in [1, 2, 3, 4] {
                let pool = rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()
                    .unwrap();
                // The graph built slab by slab on the threads: the same.
                let built = pool
                    .install(|| TileGraph::from_mask_on(&Rayon, grid, mask, tile, 1.0))
                    .unwrap();
                assert_eq!(built, tiles, "{threads} threads, tile {tile:?}");
                let mut part = vec![0; g.len()];
                pool.install(|| partition_on_threads(&g, &speeds, Method::Rcdc, &mut part))
                    .unwrap();
                assert_eq!(part, sequential, "{threads} threads, tile {tile:?}");
                // The tries in lanes (as on graphs above PARALLEL_TRY_NODES).
                let mut in_lanes = vec![0; g.len()];
                pool.install(|| {
                    partition_with_try_limit(&g, &speeds, Method::Rcdc, &mut in_lanes, 0, 2)
                })
                .unwrap();
                assert_eq!(in_lanes, sequential, "{threads} threads, tries in lanes");
            }
        }
        let g = TileGraph::from_mask([4, 4, 1], &[true; 16], [1, 1, 1], 1.0)
            .unwrap()
            .graph;
        let mut part = vec![0; 16];
        assert!(partition_on_threads(&g, &[1.0; 17], Method::Rcdc, &mut part).is_err());
    }
}
