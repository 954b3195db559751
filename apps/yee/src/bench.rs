//! `yee bench`: throughput of the Yee update against the memory-bandwidth roofline.
//!
//! The roofline comes from a STREAM-like triad `a = b + s·c` measured in this binary on arrays
//! far larger than the caches, timed right before each kernel run so that a drifting machine
//! moves both alike, and counted as the 32 bytes per element memory really moves (the write
//! allocates its line; STREAM's convention says 24). The byte model of a Yee step, in place
//! with uniform coefficients and neighbours served from cache: each phase reads and writes its
//! own components and reads the other phase's, `3 · n · size` bytes per cell for n components —
//! 72 B per cell in 3D f32 (144 B f64), 36 B in 2D, 24 B in 1D. CPML cells add their ψ arrays
//! (read and written: 2 · size per stretched derivative), and non-uniform materials add a
//! 2-byte id read per component. Grids whose arrays fit the last-level cache in part (1D 10⁷,
//! 3D 100³) can run above this DRAM roofline.

use std::time::Instant;

use serde::Serialize;
use yee_core::Scalar;
use yee_em::{Boundary, Material, Mode, Setup};
use yee_scalar::YeeChunk;
use yee_scalar::chunk::CurlExecutor;

/// One measured row.
#[derive(Clone, Debug, Serialize)]
pub struct BenchRow {
    /// What was run.
    pub problem: String,
    /// "f32" or "f64".
    pub value_type: String,
    /// Backend.
    pub backend: String,
    /// Threads.
    pub threads: usize,
    /// Median Mcells/s (cells × steps / seconds / 1e6).
    pub mcells_per_s: f64,
    /// Bytes moved per cell per step by the byte model.
    pub bytes_per_cell: f64,
    /// Median triad bandwidth (GB/s) on the same thread count, timed before each run.
    pub triad_gb_per_s: f64,
    /// The roofline for those bytes at that bandwidth.
    pub roofline_mcells_per_s: f64,
    /// Median over the runs of each run's rate over the roofline of the triad just before it
    /// (so not exactly `mcells_per_s / roofline_mcells_per_s`).
    pub fraction_of_roofline: f64,
}

/// A STREAM-like triad `a = b + 3c` over three 1 GiB arrays (far beyond any cache here), kept
/// allocated so that it is timed right before each kernel run: the roofline of a run is the
/// bandwidth the machine gave at that moment.
pub struct Triad {
    arrays: [Vec<f64>; 3],
    pools: Vec<(usize, rayon::ThreadPool)>,
}

impl Triad {
    /// Allocates the arrays and a pool for each thread count, and runs once untimed.
    pub fn new(threads: &[usize]) -> Self {
        let n = 1usize << 27;
        let pools = threads
            .iter()
            .map(|&t| {
                let pool = rayon::ThreadPoolBuilder::new().num_threads(t).build();
                (t, pool.expect("a thread pool"))
            })
            .collect();
        let mut triad = Triad {
            arrays: [vec![0.0; n], vec![1.0; n], vec![2.0; n]],
            pools,
        };
        for &t in threads {
            triad.bandwidth(t);
        }
        triad
    }

    /// Bytes per second of one triad on `threads` threads, counting the 32 B per element that
    /// memory really moves (b and c read, a read for ownership and written back); STREAM's own
    /// convention counts 24 and would understate the bandwidth by a quarter against the Yee
    /// byte model, whose in-place updates read each written line anyway. `threads` must be one
    /// the triad was made for.
    pub fn bandwidth(&mut self, threads: usize) -> f64 {
        use rayon::prelude::*;
        let pool = &self
            .pools
            .iter()
            .find(|p| p.0 == threads)
            .expect("a pool")
            .1;
        let [a, b, c] = &mut self.arrays;
        let t = Instant::now();
        pool.install(|| {
            a.par_chunks_mut(1 << 16)
                .zip(b.par_chunks(1 << 16))
                .zip(c.par_chunks(1 << 16))
                .for_each(|((a, b), c)| {
                    for i in 0..a.len() {
                        a[i] = b[i] + 3.0 * c[i];
                    }
                })
        });
        let seconds = t.elapsed().as_secs_f64();
        std::hint::black_box(&a);
        32.0 * a.len() as f64 / seconds
    }
}

/// One kernel's medians over its runs.
struct Measured {
    mcells_per_s: f64,
    bandwidth: f64,
    fraction: f64,
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

/// Timed runs per kernel and problem; the median is reported (this machine's rate wanders by
/// ±25 % between runs).
const RUNS: usize = 5;

fn setup(mode: Mode, grid: [usize; 3]) -> Setup<'static> {
    Setup {
        mode,
        grid,
        courant: 0.5,
        background: Material::VACUUM,
        poles: &[],
        regions: &[],
        boundaries: [[Boundary::Pec; 2]; 3],
        sources: &[],
        probes: &[],
        plane_waves: &[],
        monitors: &[],
        frequencies: &[],
        active: None,
    }
}

/// Medians over [`RUNS`] runs of `steps` steps of a vacuum `grid`, for each kernel (all on
/// `threads` threads), after one untimed step that faults the arrays in. Each run is preceded by
/// a triad on as many threads, and its fraction of the roofline (`bytes` per cell) is taken
/// against that triad; the kernels' runs alternate, so a drifting machine weighs on all of them
/// alike.
fn measure<T: Scalar, K: CurlExecutor<T>>(
    (mode, grid, steps): (Mode, [usize; 3], u64),
    kernels: Vec<K>,
    (threads, bytes): (usize, f64),
    triad: &mut Triad,
) -> Vec<Measured> {
    let s = setup(mode, grid);
    let owned = yee_core::Box3::from_extent(grid);
    let mut chunks: Vec<YeeChunk<T, K>> = kernels
        .into_iter()
        .map(|k| YeeChunk::<T, K>::with_kernel(&s, owned, k))
        .collect();
    for chunk in &mut chunks {
        for phase in 0..2 {
            chunk.apply(0, phase, owned);
        }
    }
    let mut runs = vec![(Vec::new(), Vec::new(), Vec::new()); chunks.len()];
    for _ in 0..RUNS {
        for (chunk, (rates, bandwidths, fractions)) in chunks.iter_mut().zip(&mut runs) {
            let bandwidth = triad.bandwidth(threads);
            let t = Instant::now();
            for step in 0..steps {
                for phase in 0..2 {
                    chunk.apply(step, phase, owned);
                }
            }
            let rate = owned.cells() as f64 * steps as f64 / t.elapsed().as_secs_f64() / 1e6;
            rates.push(rate);
            bandwidths.push(bandwidth);
            fractions.push(rate / (bandwidth / bytes / 1e6));
        }
    }
    runs.into_iter()
        .map(|(rates, bandwidths, fractions)| Measured {
            mcells_per_s: median(rates),
            bandwidth: median(bandwidths),
            fraction: median(fractions),
        })
        .collect()
}

/// The standard problems: (name, mode, grid, steps).
pub fn problems(quick: bool) -> Vec<(&'static str, Mode, [usize; 3], u64)> {
    let s = if quick { 4 } else { 1 };
    vec![
        ("3D 100^3", Mode::ThreeD, [100, 100, 100], 60 / s),
        ("3D 256^3", Mode::ThreeD, [256, 256, 256], 12 / s),
        ("2D 4096^2", Mode::Tmz, [4096, 4096, 1], 12 / s),
        ("1D 10^7", Mode::OneD, [10_000_000, 1, 1], 40 / s),
    ]
}

/// What `yee bench` measures.
pub struct Plan<'a> {
    /// Fewer steps (a smoke run).
    pub quick: bool,
    /// Only the problems whose name contains this text.
    pub only: Option<&'a str>,
    /// Also run the rayon kernel with a phase's components forced together and apart.
    pub separate: bool,
    /// Thread counts of the rayon runs (each at least 1).
    pub threads: &'a [usize],
    /// Also run the scalar backend on one thread at 100³ for reference.
    pub scalar: bool,
}

/// Runs every problem (or those whose name contains `only`) in f32 and f64 on the rayon
/// backend with each thread count (and the scalar backend with 1 thread for reference). With
/// `separate`, the rayon kernel also runs with a phase's components forced together
/// (`rayon-tog`) and apart (`rayon-apt`), alternating run by run with the default, so the three
/// are compared side by side.
pub fn run(plan: &Plan) -> Vec<BenchRow> {
    let mut counts = plan.threads.to_vec();
    if plan.scalar {
        counts.push(1);
    }
    counts.sort_unstable();
    counts.dedup();
    let mut triad = Triad::new(&counts);
    let mut rows = Vec::new();
    for (name, mode, grid, steps) in problems(plan.quick)
        .into_iter()
        .filter(|p| plan.only.is_none_or(|o| p.0.contains(o)))
    {
        for (value_type, size) in [("f32", 4.0), ("f64", 8.0)] {
            let bytes = 3.0 * mode.components().len() as f64 * size;
            let row = |backend: &str, threads: usize, m: Measured| BenchRow {
                problem: name.into(),
                value_type: value_type.into(),
                backend: backend.into(),
                threads,
                mcells_per_s: m.mcells_per_s,
                bytes_per_cell: bytes,
                triad_gb_per_s: m.bandwidth / 1e9,
                roofline_mcells_per_s: m.bandwidth / bytes / 1e6,
                fraction_of_roofline: m.fraction,
            };
            for &threads in plan.threads {
                let kernel = yee_rayon::RayonCurl::with_threads(threads).expect("a thread pool");
                let mut kernels = vec![kernel.clone()];
                if plan.separate {
                    use yee_rayon::ComponentPasses::{Apart, Together};
                    kernels.push(kernel.clone().with_passes(Together));
                    kernels.push(kernel.with_passes(Apart));
                }
                let at = (threads, bytes);
                let measured = if value_type == "f32" {
                    measure::<f32, _>((mode, grid, steps), kernels, at, &mut triad)
                } else {
                    measure::<f64, _>((mode, grid, steps), kernels, at, &mut triad)
                };
                for (m, backend) in measured
                    .into_iter()
                    .zip(["rayon", "rayon-tog", "rayon-apt"])
                {
                    rows.push(row(backend, threads, m));
                }
            }
            if plan.scalar && name == "3D 100^3" {
                let scalar = vec![yee_scalar::chunk::ScalarCurl];
                let problem = (mode, grid, steps / 3);
                let m = if value_type == "f32" {
                    measure::<f32, _>(problem, scalar, (1, bytes), &mut triad)
                } else {
                    measure::<f64, _>(problem, scalar, (1, bytes), &mut triad)
                };
                rows.extend(m.into_iter().map(|m| row("scalar", 1, m)));
            }
        }
    }
    rows
}

/// The table `yee bench` prints.
pub fn table(rows: &[BenchRow]) -> String {
    let mut s = format!(
        "{:<11} {:<4} {:<9} {:>7} {:>12} {:>9} {:>10} {:>14} {:>9}\n",
        "problem",
        "type",
        "backend",
        "threads",
        "Mcells/s",
        "B/cell",
        "triad GB/s",
        "roofline Mc/s",
        "fraction"
    );
    for r in rows {
        s.push_str(&format!(
            "{:<11} {:<4} {:<9} {:>7} {:>12.1} {:>9.0} {:>10.1} {:>14.1} {:>8.0}%\n",
            r.problem,
            r.value_type,
            r.backend,
            r.threads,
            r.mcells_per_s,
            r.bytes_per_cell,
            r.triad_gb_per_s,
            r.roofline_mcells_per_s,
            100.0 * r.fraction_of_roofline
        ));
    }
    s
}
