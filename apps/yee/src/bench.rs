//! `yee bench`: throughput of the Yee update against the memory-bandwidth roofline.
//!
//! The roofline comes from a STREAM-like triad `a = b + s·c` measured in this binary (24 bytes
//! per element, the STREAM convention) on arrays far larger than the caches. The byte model of
//! a Yee step, in place with uniform coefficients and neighbours served from cache: each phase
//! reads and writes its own components and reads the other phase's, `3 · n · size` bytes per
//! cell for n components — 72 B per cell in 3D f32 (144 B f64), 36 B in 2D, 24 B in 1D. CPML
//! cells add their ψ arrays (read and written: 2 · size per stretched derivative), and
//! non-uniform materials add a 2-byte id read per component.

use std::time::Instant;

use serde::Serialize;
use yee_core::{Boundary, Chunk, Material, Mode, Scalar, Setup};
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
    /// The roofline for those bytes at the triad bandwidth of the same thread count.
    pub roofline_mcells_per_s: f64,
    /// mcells_per_s / roofline_mcells_per_s.
    pub fraction_of_roofline: f64,
}

/// The triad bandwidth in bytes per second on `threads` threads (median of 5).
pub fn triad_bandwidth(threads: usize) -> f64 {
    use rayon::prelude::*;
    let n = 1usize << 27; // 128 Mi doubles per array: 3 GiB in all, far beyond any cache here.
    let b = vec![1.0f64; n];
    let c = vec![2.0f64; n];
    let mut a = vec![0.0f64; n];
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("a thread pool");
    let mut times = Vec::new();
    for _ in 0..5 {
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
        times.push(t.elapsed().as_secs_f64());
    }
    std::hint::black_box(&a);
    times.sort_by(f64::total_cmp);
    24.0 * n as f64 / times[2]
}

fn setup(mode: Mode, grid: [usize; 3]) -> Setup<'static> {
    Setup {
        mode,
        grid,
        courant: 0.5,
        background: Material::VACUUM,
        regions: &[],
        boundaries: [[Boundary::Pec; 2]; 3],
        sources: &[],
        probes: &[],
        active: None,
    }
}

/// Median Mcells/s of `steps` steps of a vacuum `grid` over 3 runs, for each kernel; the
/// kernels' runs alternate, so a drifting machine weighs on all of them alike.
fn measure<T: Scalar, K: CurlExecutor<T>>(
    mode: Mode,
    grid: [usize; 3],
    steps: u64,
    kernels: Vec<K>,
) -> Vec<f64> {
    let s = setup(mode, grid);
    let owned = yee_core::Box3::from_extent(grid);
    let mut chunks: Vec<YeeChunk<T, K>> = kernels
        .into_iter()
        .map(|k| YeeChunk::<T, K>::with_kernel(&s, owned, k))
        .collect();
    let mut rates = vec![Vec::new(); chunks.len()];
    for _ in 0..3 {
        for (chunk, rates) in chunks.iter_mut().zip(&mut rates) {
            let t = Instant::now();
            for step in 0..steps {
                for phase in 0..2 {
                    chunk.apply(step, phase, owned);
                }
            }
            rates.push(owned.cells() as f64 * steps as f64 / t.elapsed().as_secs_f64() / 1e6);
        }
    }
    rates
        .into_iter()
        .map(|mut r| {
            r.sort_by(f64::total_cmp);
            r[1]
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

/// Runs every problem (or those whose name contains `only`) in f32 and f64 on the rayon
/// backend with 1 and all threads (and the scalar backend with 1 thread for reference). With
/// `separate`, the rayon kernel also runs with a phase's components forced together
/// (`rayon-tog`) and apart (`rayon-apt`), alternating run by run with the default, so the three
/// are compared side by side.
pub fn run(quick: bool, only: Option<&str>, separate: bool) -> Vec<BenchRow> {
    let all = std::thread::available_parallelism().map_or(1, |n| n.get());
    let bandwidth: Vec<(usize, f64)> = [1, all].iter().map(|&t| (t, triad_bandwidth(t))).collect();
    let mut rows = Vec::new();
    for (name, mode, grid, steps) in problems(quick)
        .into_iter()
        .filter(|p| only.is_none_or(|o| p.0.contains(o)))
    {
        for (value_type, size) in [("f32", 4.0), ("f64", 8.0)] {
            let bytes = 3.0 * mode.components().len() as f64 * size;
            let row = |backend: &str, threads: usize, bw: f64, rate: f64| {
                let roofline = bw / bytes / 1e6;
                BenchRow {
                    problem: name.into(),
                    value_type: value_type.into(),
                    backend: backend.into(),
                    threads,
                    mcells_per_s: rate,
                    bytes_per_cell: bytes,
                    roofline_mcells_per_s: roofline,
                    fraction_of_roofline: rate / roofline,
                }
            };
            for &(threads, bw) in &bandwidth {
                let kernel = yee_rayon::RayonCurl::with_threads(threads).expect("a thread pool");
                let mut kernels = vec![kernel.clone()];
                if separate {
                    use yee_rayon::ComponentPasses::{Apart, Together};
                    kernels.push(kernel.clone().with_passes(Together));
                    kernels.push(kernel.with_passes(Apart));
                }
                let rates = if value_type == "f32" {
                    measure::<f32, _>(mode, grid, steps, kernels)
                } else {
                    measure::<f64, _>(mode, grid, steps, kernels)
                };
                for (rate, backend) in rates.into_iter().zip(["rayon", "rayon-tog", "rayon-apt"]) {
                    rows.push(row(backend, threads, bw, rate));
                }
            }
            if name == "3D 100^3" {
                let scalar = vec![yee_scalar::chunk::ScalarCurl];
                let rate = if value_type == "f32" {
                    measure::<f32, _>(mode, grid, steps / 3, scalar)[0]
                } else {
                    measure::<f64, _>(mode, grid, steps / 3, scalar)[0]
                };
                rows.push(row("scalar", 1, bandwidth[0].1, rate));
            }
        }
    }
    rows
}

/// The table `yee bench` prints.
pub fn table(rows: &[BenchRow]) -> String {
    let mut s = format!(
        "{:<11} {:<4} {:<9} {:>7} {:>12} {:>9} {:>14} {:>9}\n",
        "problem", "type", "backend", "threads", "Mcells/s", "B/cell", "roofline Mc/s", "fraction"
    );
    for r in rows {
        s.push_str(&format!(
            "{:<11} {:<4} {:<9} {:>7} {:>12.1} {:>9.0} {:>14.1} {:>8.0}%\n",
            r.problem,
            r.value_type,
            r.backend,
            r.threads,
            r.mcells_per_s,
            r.bytes_per_cell,
            r.roofline_mcells_per_s,
            100.0 * r.fraction_of_roofline
        ));
    }
    s
}
