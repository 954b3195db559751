//! `yee mpi-calibrate`: measures what Kim & Park's overlap model (2012, eqs. (1)–(10)) needs on
//! this machine (MPI latency and bandwidth by ping-pong, memory-copy latency and bandwidth of
//! halo-sized buffers) and predicts the throughput of a grid split over two processes, with the
//! exchange overlapped and after the whole update, for comparison with measured runs.

use std::time::Instant;

use serde::Serialize;
use yee_core::balance::LinkSums;
use yee_core::model::{OverlapMethod, OverlapModel};
use yee_core::topology::choose_topology;

use crate::error::AppError;

/// Halo-sized messages: 1 KiB to 4 MiB.
const SIZES: [usize; 7] = [
    1 << 10,
    1 << 12,
    1 << 14,
    1 << 16,
    1 << 18,
    1 << 20,
    1 << 22,
];

/// What the calibration measured and what the model predicts from it.
#[derive(Clone, Debug, Serialize)]
pub struct Calibration {
    /// The grid.
    pub grid: [usize; 3],
    /// The topology the chooser takes for two ranks.
    pub topology: [usize; 3],
    /// Bytes per value.
    pub nbyte: usize,
    /// LT_mpi (s), from the ping-pong fit.
    pub lt_mpi: f64,
    /// BW_mpi (bytes/s).
    pub bw_mpi: f64,
    /// LT_memcpy (s): copying a halo between a field and a message buffer.
    pub lt_memcpy: f64,
    /// BW_memcpy (bytes/s).
    pub bw_memcpy: f64,
    /// THP of one process (cells/s), as given.
    pub thp: f64,
    /// GS_comm: cells of the shared face.
    pub gs_comm: f64,
    /// GS_comp: cells per process.
    pub gs_comp: f64,
    /// R = GS_comp / GS_comm.
    pub r: f64,
    /// R₀ of the kernel-split method, eq. (6).
    pub r0: f64,
    /// Predicted throughput of two processes, overlapped (eqs. (9)/(10)), Mcells/s.
    pub predicted_overlap_mcells_per_s: f64,
    /// Predicted throughput with the exchange after the whole update, Mcells/s.
    pub predicted_sequential_mcells_per_s: f64,
    /// The upper limit 2 × THP, Mcells/s.
    pub upper_limit_mcells_per_s: f64,
}

/// Least-squares sums of copying each size `repeats` times (one-way time per copy).
fn memcpy_sums(repeats: usize) -> LinkSums {
    let mut sums = LinkSums::default();
    for size in SIZES {
        let from = vec![1u8; size];
        let mut to = vec![0u8; size];
        to.copy_from_slice(&from);
        let start = Instant::now();
        for _ in 0..repeats {
            to.copy_from_slice(std::hint::black_box(&from));
            std::hint::black_box(&mut to);
        }
        sums.add(
            size as f64,
            start.elapsed().as_secs_f64() / repeats as f64,
            1.0,
        );
    }
    sums
}

/// Runs the calibration as one rank of `mpirun -np 2`; rank 0 returns the result.
pub fn calibrate(
    grid: [usize; 3],
    dims: usize,
    nbyte: usize,
    thp: f64,
    repeats: usize,
) -> Result<Option<Calibration>, AppError> {
    use mpi::topology::{Communicator, SimpleCommunicator};
    let world = SimpleCommunicator::world();
    let problem = if world.size() != 2 {
        Some(format!(
            "yee mpi-calibrate measures the link between two processes: run it under \
             `mpirun -np 2`, not {}",
            world.size()
        ))
    } else if !(thp.is_finite() && thp > 0.0) {
        Some(format!(
            "--mcells-per-s {}: expected a positive throughput",
            thp / 1e6
        ))
    } else {
        None
    };
    if let Some(message) = problem {
        // Every rank sees the same problem: rank 0 alone says so, and the barrier keeps mpirun
        // from killing it before it has when another rank exits first.
        if world.rank() == 0 {
            eprintln!("error: {message}");
        }
        mpi::traits::CommunicatorCollectives::barrier(&world);
        return Err(AppError::Reported);
    }
    let chosen = choose_topology(grid, dims, 2, 1).map_err(|e| AppError::Usage(e.to_string()))?;
    let link = yee_comm_mpi::calibrate::ping_pong(&world, &SIZES, repeats);
    if world.rank() != 0 {
        return Ok(None);
    }
    let copy = memcpy_sums(repeats);
    let fit = |sums: &LinkSums, what: &str| {
        sums.hockney().ok_or_else(|| {
            AppError::Run(format!(
                "the {what} times did not grow with the message size: no latency/bandwidth fit"
            ))
        })
    };
    let (lt_mpi, bw_mpi) = fit(&link, "MPI ping-pong")?;
    let (lt_memcpy, bw_memcpy) = fit(&copy, "memory copy")?;
    let split = (0..3).find(|&a| chosen.topology.0[a] == 2).unwrap_or(0);
    let gs_comm: f64 = (0..dims)
        .filter(|&a| a != split)
        .map(|a| grid[a] as f64)
        .product();
    let cells: f64 = grid[..dims].iter().map(|&n| n as f64).product();
    let gs_comp = cells / 2.0;
    let model = OverlapModel {
        nbyte: nbyte as f64,
        // One neighbour: one send and one receive (and their two copies) per step.
        transfers: 2.0,
        gs_comm,
        bw_memcpy,
        lt_memcpy: lt_memcpy.max(0.0),
        bw_mpi,
        lt_mpi: lt_mpi.max(0.0),
        thp_compute: thp,
        thp_buffer: thp,
    };
    let r = gs_comp / gs_comm;
    Ok(Some(Calibration {
        grid,
        topology: chosen.topology.0,
        nbyte,
        lt_mpi,
        bw_mpi,
        lt_memcpy,
        bw_memcpy,
        thp,
        gs_comm,
        gs_comp,
        r,
        r0: model.threshold(OverlapMethod::KernelSplit),
        predicted_overlap_mcells_per_s: model.total_throughput(OverlapMethod::KernelSplit, r, 2.0)
            / 1e6,
        predicted_sequential_mcells_per_s: model.throughput_without_overlap(r, 2.0) / 1e6,
        upper_limit_mcells_per_s: 2.0 * thp / 1e6,
    }))
}

/// The calibration as a short table.
pub fn report(c: &Calibration) -> String {
    let pct = |x: f64| 100.0 * x / c.upper_limit_mcells_per_s;
    format!(
        "grid {:?} on topology {:?}, {} B per value\n\
         MPI link (ping-pong fit): LT_mpi {:.2} us, BW_mpi {:.2} GB/s\n\
         memory copy (fit):        LT_memcpy {:.2} us, BW_memcpy {:.2} GB/s\n\
         THP (one process):        {:.1} Mcells/s\n\
         GS_comm {} cells, GS_comp {} cells: R = {:.1}, threshold R0 = {:.2} (kernel split, eq. (6))\n\
         predicted, 2 processes:   overlapped {:.1} Mcells/s ({:.1} % of 2 x THP), \
         exchange after the update {:.1} Mcells/s ({:.1} %)\n",
        c.grid,
        c.topology,
        c.nbyte,
        c.lt_mpi * 1e6,
        c.bw_mpi / 1e9,
        c.lt_memcpy * 1e6,
        c.bw_memcpy / 1e9,
        c.thp / 1e6,
        c.gs_comm,
        c.gs_comp,
        c.r,
        c.r0,
        c.predicted_overlap_mcells_per_s,
        pct(c.predicted_overlap_mcells_per_s),
        c.predicted_sequential_mcells_per_s,
        pct(c.predicted_sequential_mcells_per_s),
    )
}
