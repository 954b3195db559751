//! `yee bench`: throughput of the Yee update against the memory-bandwidth roofline.
//!
//! The roofline comes from a STREAM-like triad `a = b + s·c` measured in this binary on arrays
//! far larger than the caches, timed right before each kernel run so that a drifting machine
//! moves both alike, and counted as the 32 bytes per element memory really moves (the write
//! allocates its line; STREAM's convention says 24). The byte model of a Yee step, in place
//! with uniform coefficients and neighbours served from cache: each phase reads and writes its
//! own components and reads the other phase's, `3 · n · size` bytes per cell for n components —
//! 72 B per cell in 3D f32 (144 B f64), 36 B in 2D, 24 B in 1D. CPML cells add their ψ arrays
//! (read and written: 2 · size per stretched derivative), and rows of several materials their
//! runs of one material as recorded when the chunk was built (12 B a run), or a 2-byte id per
//! node where the row was cut too finely to record; rows of one material take their
//! coefficients whole. Tensor nodes (the off-diagonal ε⁻¹ of a smoothed surface) add their
//! lists: each node, its neighbours' positions and the offsets of the curls they share. Grids whose arrays fit the last-level cache in part (1D 10⁷, 3D 100³)
//! can run above this DRAM roofline.
//!
//! `--scenes` runs the realistic problems instead of vacuum: CPML on every face, a dielectric
//! sphere in CPML and a lossy half-space in CPML, each against its own byte model, counted
//! from the chunk as built ([`byte_model`]), and vacuum at 256³ beside them for reference.
//! `--rounds` measures the whole list again and again and pools each row's runs.

use std::time::Instant;

use serde::Serialize;
use yee_core::Scalar;
use yee_em::{Boundary, CpmlParams, Material, Mode, Region, Setup, Shape};
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
    /// Threads (0 for a device: `--backend cuda`).
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
    /// The lowest and the highest of those runs' fractions.
    pub fraction_range: [f64; 2],
    /// Timed runs behind the medians ([`RUNS`] a round).
    pub runs: usize,
    /// The temporal blocking that ran: `off` (one step at a time), or the steps of a
    /// wavefront tile and its slabs' planes (`4 (2 planes)`).
    pub time_block: String,
    /// The rate over the one-step `rayon` row of the same problem, type and threads (measured
    /// alternately in the same run); `None` on the rows without one.
    pub one_step_ratio: Option<f64>,
    /// The rate over that one-step row's roofline.
    pub one_step_roofline_ratio: Option<f64>,
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

/// One kernel's timed runs: each run's rate, the triad's bandwidth before it, and its fraction
/// of that roofline.
#[derive(Clone, Debug, Default)]
pub(crate) struct Samples {
    pub(crate) rates: Vec<f64>,
    pub(crate) bandwidths: Vec<f64>,
    pub(crate) fractions: Vec<f64>,
    /// The byte model of the chunk measured ([`byte_model`]).
    pub(crate) bytes: f64,
    /// The temporal blocking of the chunk measured ([`BenchRow::time_block`]).
    pub(crate) time_block: String,
}

impl Samples {
    /// Adds another round's runs of the same kernel and problem.
    pub(crate) fn extend(&mut self, more: Samples) {
        self.rates.extend(more.rates);
        self.bandwidths.extend(more.bandwidths);
        self.fractions.extend(more.fractions);
    }
}

fn median(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    sorted[sorted.len() / 2]
}

/// Timed runs per kernel and problem; the median is reported (this machine's rate wanders by
/// ±25 % between runs).
pub(crate) const RUNS: usize = 5;

/// What fills a bench grid.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scene {
    /// Vacuum inside PEC walls.
    Vacuum,
    /// Vacuum inside CPML 10 cells thick on every face.
    Cpml,
    /// A sphere of ε = 2.25 (radius 0.3 of the grid) in vacuum, CPML on every face.
    Sphere,
    /// The lower half (z) ε = 4, σ = 0.01, the upper vacuum, CPML on every face.
    LossyHalfSpace,
}

/// One bench problem.
#[derive(Clone, Copy, Debug)]
pub struct Problem {
    /// Its name in the table and for `--only`.
    pub name: &'static str,
    /// What fills the grid.
    pub scene: Scene,
    /// Dimensionality.
    pub mode: Mode,
    /// Cells per axis.
    pub grid: [usize; 3],
    /// Steps per timed run.
    pub steps: u64,
}

/// The material regions of `scene` on `grid`.
pub(crate) fn regions(scene: Scene, grid: [usize; 3]) -> Vec<Region> {
    let g = grid.map(|n| n as f64);
    match scene {
        Scene::Vacuum | Scene::Cpml => Vec::new(),
        Scene::Sphere => vec![Region {
            shape: Shape::Sphere {
                center: g.map(|n| n / 2.0),
                radius: 0.3 * g[0],
            },
            material: Material::dielectric(2.25),
        }],
        Scene::LossyHalfSpace => vec![Region {
            shape: Shape::Block {
                lo: [0.0; 3],
                hi: [g[0], g[1], g[2] / 2.0],
            },
            material: Material {
                sigma: 0.01,
                ..Material::dielectric(4.0)
            },
        }],
    }
}

pub(crate) fn setup<'a>(problem: &Problem, regions: &'a [Region]) -> Setup<'a> {
    let walls = match problem.scene {
        Scene::Vacuum => Boundary::Pec,
        _ => Boundary::Cpml(CpmlParams::with_thickness(10)),
    };
    let active = problem.mode.active_axes();
    let boundaries = core::array::from_fn(|a| {
        if active[a] {
            [walls; 2]
        } else {
            [Boundary::Pec; 2]
        }
    });
    Setup {
        regions,
        ..Setup::vacuum(problem.mode, problem.grid, 0.5, boundaries)
    }
}

/// Bytes a step moves per cell by the byte model, counted over the chunk as built: `3 · n ·
/// size` for the n components, plus 2 · size per ψ value (read and written), and on a row of
/// several materials its recorded runs ([`yee_scalar::row_runs::RowRuns`]) or, where none were
/// recorded, 2 B per node (its id); rows of one material take their coefficients whole; and
/// the lists of the tensor nodes (a smoothed surface's), each node, its neighbours' positions
/// and shared offsets and its running sums ([`yee_scalar::tensor_nodes::TensorNodes::pass_bytes`]).
pub fn byte_model<T: Scalar>(state: &yee_scalar::state::YeeState<T>) -> f64 {
    let size = std::mem::size_of::<T>() as f64;
    let cells = state.owned.cells() as f64;
    let components = state.mode.components();
    let psi = state.psi_len();
    let storage = state.owned.grow(state.mode.active_axes().map(i64::from));
    let ey = storage.extent()[1];
    let mut id_bytes = 0;
    for c in components {
        let region = state.owned.intersect(&state.free[c.index()]);
        for z in region.lo[2]..region.hi[2] {
            for y in region.lo[1]..region.hi[1] {
                let n = (z - storage.lo[2]) as usize * ey + (y - storage.lo[1]) as usize;
                if state.row_material[c.index()][n] == yee_scalar::state::MIXED_ROW {
                    // A recorded row's runs are read instead of its ids.
                    id_bytes += match state.row_runs[c.index()].of(n) {
                        [] => 2 * region.extent()[0],
                        runs => core::mem::size_of_val(runs),
                    };
                }
            }
        }
    }
    let tensor_bytes: usize = state.tensor.iter().flatten().map(|t| t.pass_bytes()).sum();
    3.0 * components.len() as f64 * size
        + (2.0 * size * psi as f64 + (id_bytes + tensor_bytes) as f64) / cells
}

/// Whether a measured chunk keeps the runs of one material along its rows of several, as built,
/// or forgets them, so its kernel scans the ids every step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Runs {
    Recorded,
    Scanned,
}

/// Medians over [`RUNS`] runs of `steps` steps of `problem`, for each kernel and its chunk's
/// [`Runs`] (all on `threads` threads), after one untimed step that faults the arrays in, with
/// each chunk's bytes per cell (a chunk that scans its ids reads them). Each run is preceded by a triad on as many threads, and its fraction of the roofline
/// is taken against that triad; the kernels' runs alternate, so a drifting machine weighs on
/// all of them alike.
fn measure<T: Scalar, K: CurlExecutor<T>>(
    problem: &Problem,
    kernels: Vec<(K, Runs)>,
    threads: usize,
    triad: &mut Triad,
) -> Vec<Samples> {
    let regions = regions(problem.scene, problem.grid);
    let s = setup(problem, &regions);
    let (grid, steps) = (problem.grid, problem.steps);
    let owned = yee_core::Box3::from_extent(grid);
    let mut chunks: Vec<YeeChunk<T, K>> = kernels
        .into_iter()
        .map(|(k, runs)| {
            let mut chunk = YeeChunk::<T, K>::with_kernel(&s, owned, k);
            if runs == Runs::Scanned {
                chunk.state.row_runs = Default::default();
            }
            chunk
        })
        .collect();
    let bytes: Vec<f64> = chunks.iter().map(|c| byte_model(&c.state)).collect();
    for chunk in &mut chunks {
        chunk.apply_step(0, owned);
    }
    let mut runs: Vec<Samples> = bytes
        .iter()
        .zip(&chunks)
        .map(|(&bytes, chunk)| Samples {
            bytes,
            time_block: tile_name(chunk, owned),
            ..Samples::default()
        })
        .collect();
    for _ in 0..RUNS {
        for (chunk, run) in chunks.iter_mut().zip(&mut runs) {
            let bandwidth = triad.bandwidth(threads);
            let t = Instant::now();
            // One step at a time, or in wavefront tiles where the kernel asks for them.
            chunk.apply_steps(0, steps, owned);
            let rate = owned.cells() as f64 * steps as f64 / t.elapsed().as_secs_f64() / 1e6;
            run.rates.push(rate);
            run.bandwidths.push(bandwidth);
            run.fractions.push(rate / (bandwidth / run.bytes / 1e6));
        }
    }
    runs
}

/// How `chunk` steps `owned`: `off`, or its tile's steps and slab planes.
fn tile_name<T: Scalar, K: CurlExecutor<T>>(
    chunk: &YeeChunk<T, K>,
    owned: yee_core::Box3,
) -> String {
    let Some(tile) = chunk.time_tile() else {
        return "off".into();
    };
    let axis = yee_scalar::time_tile::slab_axis(owned.extent()).unwrap_or(0);
    let plane = (owned.cells() / owned.extent()[axis]).max(1);
    format!(
        "{} ({} planes)",
        tile.steps,
        (tile.slab_cells / plane).max(1)
    )
}

/// The problems: vacuum grids, or with `scenes` the realistic ones.
pub fn problems(quick: bool, scenes: bool) -> Vec<Problem> {
    let s = if quick { 4 } else { 1 };
    let p = |name, scene, mode, grid, steps: u64| Problem {
        name,
        scene,
        mode,
        grid,
        steps: steps / s,
    };
    let (d3, d2, d1) = (Mode::ThreeD, Mode::Tmz, Mode::OneD);
    if scenes {
        return vec![
            p("CPML 100^3", Scene::Cpml, d3, [100; 3], 60),
            p("CPML 256^3", Scene::Cpml, d3, [256; 3], 12),
            p("sphere 100^3", Scene::Sphere, d3, [100; 3], 60),
            p("sphere 256^3", Scene::Sphere, d3, [256; 3], 12),
            p("lossy half 256^3", Scene::LossyHalfSpace, d3, [256; 3], 12),
            p("vacuum 256^3", Scene::Vacuum, d3, [256; 3], 12),
        ];
    }
    vec![
        p("3D 100^3", Scene::Vacuum, d3, [100; 3], 60),
        p("3D 256^3", Scene::Vacuum, d3, [256; 3], 12),
        p("2D 4096^2", Scene::Vacuum, d2, [4096, 4096, 1], 12),
        p("1D 10^7", Scene::Vacuum, d1, [10_000_000, 1, 1], 40),
    ]
}

/// What `yee bench` measures.
pub struct Plan<'a> {
    /// Fewer steps (a smoke run).
    pub quick: bool,
    /// The realistic problems (CPML, materials) instead of vacuum.
    pub scenes: bool,
    /// Only the problems whose name contains this text.
    pub only: Option<&'a str>,
    /// Also run the rayon kernel with a phase's components forced together and apart.
    pub separate: bool,
    /// Also run the rayon kernel with each phase over the whole grid (no slab sweep).
    pub whole_phases: bool,
    /// Also run the rayon kernel on chunks without their rows' recorded runs of one material.
    pub scanned_runs: bool,
    /// Thread counts of the rayon runs (each at least 1).
    pub threads: &'a [usize],
    /// Also run the scalar backend on one thread at 100³ for reference.
    pub scalar: bool,
    /// How many times the whole list is measured, one round after the other; each row's
    /// medians are over all its rounds' runs (at least 1).
    pub rounds: usize,
    /// Also run the rayon kernel with this temporal blocking (`rayon-tb`), unless off.
    pub time_block: yee_rayon::TimeBlock,
    /// The cache the blocked rows' tiles are sized for (`--cache-bytes`); `None`: the OS's.
    pub cache_bytes: Option<usize>,
}

/// Runs every problem (or those whose name contains `only`) in f32 and f64 on the rayon
/// backend with each thread count (and the scalar backend with 1 thread for reference). With
/// `separate`, the rayon kernel also runs with a phase's components forced together
/// (`rayon-tog`) and apart (`rayon-apt`), alternating run by run with the default, so the three
/// are compared side by side; with `whole_phases`, also with each phase over the whole grid
/// (`rayon-2p`) instead of the step swept in slabs; with `scanned_runs`, also on chunks that
/// scan their rows' ids every step (`rayon-scan`) instead of keeping the runs. With `rounds`
/// above 1 the whole list is measured again round after round, so a slow spell of the machine
/// falls on every problem rather than on one, and each row's medians are over all its runs.
pub fn run(plan: &Plan) -> Vec<BenchRow> {
    let mut counts = plan.threads.to_vec();
    if plan.scalar {
        counts.push(1);
    }
    counts.sort_unstable();
    counts.dedup();
    let mut triad = Triad::new(&counts);
    let mut rows = round(plan, &mut triad);
    for _ in 1..plan.rounds {
        for ((_, samples), (_, more)) in rows.iter_mut().zip(round(plan, &mut triad)) {
            samples.extend(more);
        }
    }
    let mut rows: Vec<BenchRow> = rows
        .into_iter()
        .map(|(row, samples)| row.with(&samples))
        .collect();
    let one_step: Vec<Option<(f64, f64)>> = rows
        .iter()
        .map(|r| {
            rows.iter()
                .find(|o| {
                    o.backend == "rayon"
                        && (&o.problem, &o.value_type, o.threads)
                            == (&r.problem, &r.value_type, r.threads)
                })
                .map(|o| (o.mcells_per_s, o.roofline_mcells_per_s))
        })
        .collect();
    for (row, one) in rows.iter_mut().zip(one_step) {
        if let Some((rate, roofline)) = one {
            row.one_step_ratio = Some(row.mcells_per_s / rate);
            row.one_step_roofline_ratio = Some(row.mcells_per_s / roofline);
        }
    }
    rows
}

/// What names a bench row: the problem, value type, backend and threads.
pub(crate) struct RowHead {
    pub(crate) problem: &'static str,
    pub(crate) value_type: &'static str,
    pub(crate) backend: &'static str,
    pub(crate) threads: usize,
}

impl RowHead {
    /// The row of these `samples`' medians.
    pub(crate) fn with(self, samples: &Samples) -> BenchRow {
        let bandwidth = median(&samples.bandwidths);
        let fractions = &samples.fractions;
        let low = fractions.iter().copied().fold(f64::INFINITY, f64::min);
        let high = fractions.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        BenchRow {
            problem: self.problem.into(),
            value_type: self.value_type.into(),
            backend: self.backend.into(),
            threads: self.threads,
            mcells_per_s: median(&samples.rates),
            bytes_per_cell: samples.bytes,
            triad_gb_per_s: bandwidth / 1e9,
            roofline_mcells_per_s: bandwidth / samples.bytes / 1e6,
            fraction_of_roofline: median(fractions),
            fraction_range: [low, high],
            runs: fractions.len(),
            time_block: samples.time_block.clone(),
            one_step_ratio: None,
            one_step_roofline_ratio: None,
        }
    }
}

/// One round: every problem of `plan` measured once, each row's runs in the order [`run`]
/// reports them.
fn round(plan: &Plan, triad: &mut Triad) -> Vec<(RowHead, Samples)> {
    let mut rows = Vec::new();
    for problem in problems(plan.quick, plan.scenes)
        .into_iter()
        .filter(|p| plan.only.is_none_or(|o| p.name.contains(o)))
    {
        for value_type in ["f32", "f64"] {
            let row = |backend: &'static str, threads: usize| RowHead {
                problem: problem.name,
                value_type,
                backend,
                threads,
            };
            for &threads in plan.threads {
                let kernel = yee_rayon::RayonCurl::with_threads(threads).expect("a thread pool");
                let mut kernels = vec![(kernel.clone(), Runs::Recorded)];
                let mut names = vec!["rayon"];
                if plan.separate {
                    use yee_rayon::ComponentPasses::{Apart, Together};
                    kernels.push((kernel.clone().with_passes(Together), Runs::Recorded));
                    kernels.push((kernel.clone().with_passes(Apart), Runs::Recorded));
                    names.extend(["rayon-tog", "rayon-apt"]);
                }
                if plan.whole_phases {
                    kernels.push((kernel.clone().with_step_slabs(false), Runs::Recorded));
                    names.push("rayon-2p");
                }
                if plan.time_block != yee_rayon::TimeBlock::Off {
                    let mut blocked = kernel.clone().with_time_block(plan.time_block);
                    if let Some(bytes) = plan.cache_bytes {
                        blocked = blocked.with_cache_bytes(bytes);
                    }
                    kernels.push((blocked, Runs::Recorded));
                    names.push("rayon-tb");
                }
                if plan.scanned_runs {
                    kernels.push((kernel, Runs::Scanned));
                    names.push("rayon-scan");
                }
                let measured = if value_type == "f32" {
                    measure::<f32, _>(&problem, kernels, threads, triad)
                } else {
                    measure::<f64, _>(&problem, kernels, threads, triad)
                };
                for (samples, backend) in measured.into_iter().zip(names) {
                    rows.push((row(backend, threads), samples));
                }
            }
            if plan.scalar && problem.grid == [100; 3] {
                let scalar = vec![(yee_scalar::chunk::ScalarCurl, Runs::Recorded)];
                let shorter = Problem {
                    steps: problem.steps / 3,
                    ..problem
                };
                let m = if value_type == "f32" {
                    measure::<f32, _>(&shorter, scalar, 1, triad)
                } else {
                    measure::<f64, _>(&shorter, scalar, 1, triad)
                };
                rows.extend(m.into_iter().map(|samples| (row("scalar", 1), samples)));
            }
        }
    }
    rows
}

/// The table `yee bench` prints.
pub fn table(rows: &[BenchRow]) -> String {
    let mut s = format!(
        "{:<16} {:<4} {:<10} {:>7} {:>12} {:>9} {:>10} {:>14} {:>9} {:>9} {:>5} {:>14} {:>8}\n",
        "problem",
        "type",
        "backend",
        "threads",
        "Mcells/s",
        "B/cell",
        "triad GB/s",
        "roofline Mc/s",
        "fraction",
        "range",
        "runs",
        "time block",
        "vs 1-step"
    );
    for r in rows {
        s.push_str(&format!(
            "{:<16} {:<4} {:<10} {:>7} {:>12.1} {:>9.0} {:>10.1} {:>14.1} {:>8.0}% {:>9} {:>5} {:>14} {:>8}\n",
            r.problem,
            r.value_type,
            r.backend,
            r.threads,
            r.mcells_per_s,
            r.bytes_per_cell,
            r.triad_gb_per_s,
            r.roofline_mcells_per_s,
            100.0 * r.fraction_of_roofline,
            format!(
                "{:.0}–{:.0}%",
                100.0 * r.fraction_range[0],
                100.0 * r.fraction_range[1]
            ),
            r.runs,
            r.time_block,
            r.one_step_ratio
                .map_or_else(String::new, |x| format!("{x:.2}x"))
        ));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn samples(fractions: &[f64]) -> Samples {
        Samples {
            rates: fractions.iter().map(|f| 100.0 * f).collect(),
            bandwidths: vec![40e9; fractions.len()],
            fractions: fractions.to_vec(),
            bytes: 80.0,
            time_block: "off".into(),
        }
    }

    #[test]
    fn rounds_pool_their_runs_before_the_median() {
        // Each round's own median is 0.70 and 0.79; all ten runs' median is 0.78, and the
        // range spans both rounds.
        let mut pooled = samples(&[0.70, 0.60, 0.95, 0.64, 0.72]);
        pooled.extend(samples(&[0.79, 0.80, 0.78, 0.81, 0.77]));
        let head = RowHead {
            problem: "CPML 256^3",
            value_type: "f32",
            backend: "rayon",
            threads: 1,
        };
        let row = head.with(&pooled);
        assert_eq!(row.runs, 10);
        assert_eq!(row.fraction_of_roofline, 0.78);
        assert_eq!(row.fraction_range, [0.60, 0.95]);
        assert_eq!(row.mcells_per_s, 78.0);
        assert_eq!(row.roofline_mcells_per_s, 500.0);
        assert_eq!(row.triad_gb_per_s, 40.0);
    }

    /// The sphere's smoothed surface has tensor nodes (at 64³ it clears the reach of the
    /// 10-cell CPML), and its byte model counts their lists beside the fields, ψ and runs: at
    /// least each node's own bytes, over the cells.
    #[test]
    fn the_byte_model_counts_the_tensor_nodes_lists() {
        let problem = Problem {
            name: "sphere 64^3",
            scene: Scene::Sphere,
            mode: Mode::ThreeD,
            grid: [64; 3],
            steps: 1,
        };
        let regions = regions(problem.scene, problem.grid);
        let owned = yee_core::Box3::from_extent(problem.grid);
        let mut state = yee_scalar::state::YeeState::<f32>::new(&setup(&problem, &regions), owned);
        let with_lists = byte_model(&state);
        let nodes: usize = state.tensor.iter().flatten().map(|t| t.nodes.len()).sum();
        assert!(nodes > 0);
        state.tensor = Default::default();
        let extra = (with_lists - byte_model(&state)) * owned.cells() as f64;
        let node_bytes = core::mem::size_of::<yee_scalar::tensor_nodes::TensorNode<f32>>();
        assert!(
            extra >= (nodes * node_bytes) as f64,
            "{extra} B for {nodes} nodes"
        );
    }
}
