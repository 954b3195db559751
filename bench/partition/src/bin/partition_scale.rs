//! Times RCDC on a 3D spherical shell (`yee_scene::shapes::spherical_shell`) at scale: the
//! tile graph's build and the partition on a rayon pool of THREADS threads (the graph and the
//! partition are the same for any count), the partition's quality. Peak memory is what `/usr/bin/time -v` reports.
//!
//! `cargo run --release -p yee-partition-compare --bin partition_scale SIDE TILE PARTS [THREADS]`
//!
//! `TRIES=1` times each try of RCDC alone on one thread first; `TRY=i` with it, try `i` alone
//! and nothing else (to profile it).

use std::time::Instant;

use yee_core::graph::{Method, TileGraph, quality};
use yee_runtime::parallel_rcdc::{PARALLEL_TRY_NODES, Rayon, TRY_LANES, partition_with_try_limit};

fn main() {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("numbers: SIDE TILE PARTS [THREADS]"))
        .collect();
    let [side, tile, parts] = args[..3.min(args.len())] else {
        eprintln!("usage: partition_scale SIDE TILE PARTS [THREADS]");
        std::process::exit(2);
    };
    let threads = args.get(3).copied().unwrap_or(0);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("a thread pool");
    let start = Instant::now();
    let mask = yee_scene::shapes::spherical_shell(side);
    let cells = mask.iter().filter(|&&a| a).count();
    let mask_seconds = start.elapsed().as_secs_f64();
    // The graph alone: the tile of each node and its cells (16 bytes a node), which a
    // tile map needs but the partition does not, are dropped with the mask.
    let TileGraph { graph: g, .. } = pool
        .install(|| TileGraph::from_mask_on(&Rayon, [side; 3], &mask, [tile; 3], 1.0))
        .expect("cells");
    drop(mask);
    if std::env::var_os("TRIES").is_some() {
        // Each try alone, in order: which start wins, and what each costs.
        let speeds = vec![1.0; parts];
        let params = yee_core::graph::RcdcParams::default();
        let tries = yee_core::graph::rcdc_tries(&g, &speeds, params).expect("parts");
        // TRY=i: that try alone (to profile it), and nothing after.
        let only: Option<usize> = std::env::var("TRY").ok().map(|t| t.parse().expect("TRY"));
        for (i, t) in tries.iter().enumerate() {
            if only.is_some_and(|o| o != i) {
                continue;
            }
            let start = Instant::now();
            let o = yee_core::graph::run_try(&yee_core::graph::Sequential, &g, &speeds, t, i)
                .expect("parts");
            let s = start.elapsed().as_secs_f64();
            let (imb, cut) = o.map_or((f64::NAN, f64::NAN), |o| (o.imbalance, o.cut));
            println!(
                "try {i}: {:?} per part {} seed {} tol {}: imbalance {imb:.4} cut {cut} ({s:.2} s)",
                t.start, t.per_part, t.seed, t.params.refine_tolerance
            );
        }
        if only.is_some() {
            return;
        }
    }
    let build = start.elapsed().as_secs_f64();
    let g = &g;
    let weights = vec![1.0; parts];
    let mut part = vec![0; g.len()];
    let start = Instant::now();
    // TRY_LANES=N: the tries of a graph above PARALLEL_TRY_NODES in N lanes rather than
    // TRY_LANES (to time the lanes against one another in one build).
    let lanes = std::env::var("TRY_LANES").map_or(TRY_LANES, |l| l.parse().expect("TRY_LANES"));
    pool.install(|| {
        partition_with_try_limit(
            g,
            &weights,
            Method::Rcdc,
            &mut part,
            PARALLEL_TRY_NODES,
            lanes,
        )
    })
    .expect("enough tiles");
    let seconds = start.elapsed().as_secs_f64();
    // Each thread's CPU seconds so far (the pool's threads: the partition's work): on a
    // shared machine the wall time says little, the split of the work says how it scales.
    let cpu = thread_cpu_seconds();
    let q = quality(g, &part, &weights);
    println!(
        "shell {side}^3 tile {tile} parts {parts} threads {}: cells {cells} nodes {} edges {} | cut {} imbalance {:.4} disconnected {} empty {} | mask {mask_seconds:.2} s, graph {:.2} s, partition {seconds:.2} s",
        pool.current_num_threads(),
        g.len(),
        g.neighbours.len() / 2,
        q.edge_cut,
        q.imbalance,
        q.disconnected,
        q.empty_parts,
        build - mask_seconds,
    );
    println!("CPU s by thread (main first): {cpu:.2?}");
}

/// User + system CPU seconds of each thread of this process, from `/proc/self/task/*/stat`
/// (fields 14 and 15, in clock ticks of 1/100 s; Linux), the main thread first; empty where
/// it cannot be read.
fn thread_cpu_seconds() -> Vec<f64> {
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return Vec::new();
    };
    let mut times: Vec<(u64, f64)> = tasks
        .filter_map(|t| {
            let t = t.ok()?;
            let tid: u64 = t.file_name().to_str()?.parse().ok()?;
            let stat = std::fs::read_to_string(t.path().join("stat")).ok()?;
            let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
            let ticks: u64 =
                fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
            Some((tid, ticks as f64 / 100.0))
        })
        .collect();
    times.sort_by_key(|&(tid, _)| tid);
    times.into_iter().map(|(_, s)| s).collect()
}
