//! A run as one rank of an MPI job (`mpirun -np N yee run scene.toml`): start-up checks
//! that every process read the same scene with the same build, the run over [`MpiComm`], and
//! rank 0 gathering output pieces and the ranks' outcomes to write the same files as a
//! one-process run.

use std::cell::RefCell;
use std::path::Path;

use mpi::topology::{Communicator, SimpleCommunicator};
use mpi::traits::CommunicatorCollectives;
use yee_comm_mpi::{MpiComm, RootGather};
use yee_comm_shm::Slowdown;
use yee_core::session::Plan;
use yee_core::tile_driver::Ownership;
use yee_core::{Box3, Chunk, Scalar, Topology};
use yee_em::{Costs, Setup, YeeBackend};
use yee_scalar::decomposed::RankOutput;
use yee_scalar::tiled::{Rebalancing, tile_values};

use crate::error::{RuntimeError, RuntimeErrorKind};
use crate::parallel::{Continuity, run_rank_continued};
use crate::piece::{Assembled, assemble_pieces, piece_of};
use crate::tiled::assemble_tile_pieces;
use crate::wire;

/// Whether this process was started by an MPI launcher (Open MPI, MPICH, PMIx).
pub fn under_mpirun() -> bool {
    ["OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"]
        .iter()
        .any(|v| std::env::var_os(v).is_some())
}

/// This process's rank in the world communicator.
pub fn world_rank() -> usize {
    SimpleCommunicator::world().rank() as usize
}

/// Initialises MPI for this process; the returned universe finalises it when dropped. A
/// panic on any rank from here on aborts the whole job. Under a launcher the process also ends
/// with it ([`yee_comm_mpi::end_with_launcher`]), so that no rank outlives a job that ended.
pub fn initialize() -> Result<mpi::environment::Universe, RuntimeError> {
    if under_mpirun() {
        yee_comm_mpi::end_with_launcher(yee_comm_mpi::watchdog::SILENT_EXIT_CODE).map_err(|e| {
            RuntimeError::new(
                RuntimeErrorKind::Mpi,
                format!("could not tie this rank to its launcher (PR_SET_PDEATHSIG): {e}"),
            )
        })?;
    }
    let universe = mpi::initialize().ok_or_else(|| {
        RuntimeError::new(
            RuntimeErrorKind::Mpi,
            "MPI was already initialised in this process",
        )
    })?;
    yee_comm_mpi::abort_on_panic(universe.world().rank() as usize);
    Ok(universe)
}

/// Bytes of the error message each rank may contribute to the start-up check.
const MESSAGE_BYTES: usize = 2048;

/// SHA-256 of a file's bytes (of nothing when it cannot be read: the rank reports that).
pub fn file_sha256(path: &Path) -> [u8; 32] {
    use sha2::Digest;
    sha2::Sha256::digest(std::fs::read(path).unwrap_or_default()).into()
}

/// The first 8 bytes of a hash in hex: enough to tell two apart in a message.
fn hex(bytes: &[u8]) -> String {
    bytes[..8].iter().map(|b| format!("{b:02x}")).collect()
}

/// The start-up check: every rank contributes whether it could prepare its run (`local`), the
/// SHA-256 of the scene file it read and of its own executable; every rank learns the same
/// verdict. A different build, a different scene, or an error on any rank ends every rank:
/// rank 0 prints the one message, then all ranks meet at a barrier (so that no rank's exit lets
/// mpirun kill rank 0 before it has printed) and return an error of kind
/// [`RuntimeErrorKind::Reported`].
pub fn agree<R, E: std::fmt::Display>(
    scene_file: &Path,
    local: Result<R, E>,
) -> Result<R, RuntimeError> {
    let world = SimpleCommunicator::world();
    let gather = RootGather::new(&world);
    let rank = world.rank() as usize;
    let build = std::env::current_exe()
        .map(|p| file_sha256(&p))
        .unwrap_or_default();
    let scene = file_sha256(scene_file);
    // A bad YEE_MPI_TIMEOUT is the same on every rank: rank 0 says so once, before the run.
    let local = local.map_err(|e| e.to_string()).and_then(|prepared| {
        yee_comm_mpi::Watchdog::from_env()
            .map(|_| prepared)
            .map_err(|e| e.to_string())
    });
    let mut record = vec![0u8; 1 + 32 + 32 + 2 + MESSAGE_BYTES];
    if let Err(e) = &local {
        let text = e.to_string();
        let mut n = text.len().min(MESSAGE_BYTES);
        while !text.is_char_boundary(n) {
            n -= 1;
        }
        record[0] = 1;
        record[65..67].copy_from_slice(&(n as u16).to_le_bytes());
        record[67..67 + n].copy_from_slice(&text.as_bytes()[..n]);
    }
    record[1..33].copy_from_slice(&scene);
    record[33..65].copy_from_slice(&build);
    let all = gather.all_gather_fixed(&record);
    let records: Vec<&[u8]> = all.chunks_exact(record.len()).collect();
    let message = match (verdict(scene_file, &records), local) {
        (None, Ok(prepared)) => return Ok(prepared),
        (Some(message), _) => message,
        // Not reached: this rank's failure is in its record, so there is a verdict.
        (None, Err(e)) => e.to_string(),
    };
    if rank == 0 {
        eprintln!("error: {message}");
    }
    world.barrier();
    Err(RuntimeError::new(
        RuntimeErrorKind::Reported,
        "the error was reported by rank 0",
    ))
}

/// The one message of a failed start-up check, from every rank's record (see [`agree`]).
fn verdict(scene_file: &Path, records: &[&[u8]]) -> Option<String> {
    let first = records[0];
    for (r, rec) in records.iter().enumerate().skip(1) {
        if rec[33..65] != first[33..65] {
            return Some(format!(
                "rank {r} runs a different yee build than rank 0 (executable sha256 {}… vs {}…): \
                 install the same build on every node",
                hex(&rec[33..65]),
                hex(&first[33..65])
            ));
        }
    }
    for (r, rec) in records.iter().enumerate().skip(1) {
        if rec[1..33] != first[1..33] {
            return Some(format!(
                "rank {r} read a different scene than rank 0 ({}: sha256 {}… vs {}…): every \
                 process must read the same scene file",
                scene_file.display(),
                hex(&rec[1..33]),
                hex(&first[1..33])
            ));
        }
    }
    let (r, rec) = records.iter().enumerate().find(|(_, rec)| rec[0] == 1)?;
    let n = u16::from_le_bytes([rec[65], rec[66]]) as usize;
    let text = String::from_utf8_lossy(&rec[67..67 + n]);
    Some(if r == 0 {
        text.into_owned()
    } else {
        format!("rank {r}: {text}")
    })
}

/// This process's rank of `setup` over MPI (see [`crate::parallel::run_decomposed`]): the
/// fields at output steps and every rank's outcome are gathered on rank 0, which alone calls
/// `on_output` and `progress` and gets `Some` outputs.
#[allow(clippy::too_many_arguments)]
pub fn run_rank<T: Scalar, B: YeeBackend<T>>(
    setup: &Setup,
    plan: &Plan,
    costs: Costs,
    backend: B,
    slowdown: &[Slowdown],
    steps: u64,
    continuity: &Continuity<'_>,
    wants_output: &(dyn Fn(u64) -> bool + Sync),
    on_output: &(dyn Fn(u64, &Assembled<T>) + Sync),
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Option<Vec<RankOutput<T>>>, RuntimeError> {
    let world = SimpleCommunicator::world();
    let rank = world.rank() as usize;
    let comm = MpiComm::new(&world, plan.topology, plan.periodic)
        .map_err(|e| RuntimeError::new(RuntimeErrorKind::Mpi, e.to_string()))?;
    let mut comm = comm.with_slowdown(slowdown.get(rank).copied().unwrap_or_default());
    let gather = RootGather::new(&world);
    let mut bad_piece = None;
    let out = run_rank_continued(
        setup,
        plan,
        costs,
        &backend,
        &mut comm,
        steps,
        continuity,
        |step, chunk| {
            if rank == 0 {
                progress(step);
            }
            if !wants_output(step) {
                return;
            }
            let (owned, fields) = match piece_of(chunk) {
                Ok(piece) => piece,
                Err(e) => {
                    // Every rank still takes part in the gather: an empty piece.
                    bad_piece.get_or_insert(format!("output at step {step}: {e}"));
                    (chunk.owned(), Default::default())
                }
            };
            let Some(all) = gather.gather(&wire::encode_piece(owned, &fields)) else {
                return;
            };
            match all.iter().map(|b| wire::decode_piece(b)).collect() {
                Ok(pieces) => on_output(step, &assemble_pieces(setup, pieces)),
                Err(e) => {
                    bad_piece.get_or_insert(format!("output at step {step}: {e}"));
                }
            }
        },
    )
    .map_err(|e| RuntimeError::new(e.kind(), format!("rank {rank}: {}", e.message())))?;
    gather_outcomes(&gather, out, bad_piece)
}

/// [`crate::tiled::run_tiled`] as one rank of an MPI job: the rank's tile set or box (`map`;
/// `dynamic` rebalances a box layout) over [`MpiComm`], each rank's tiles and their values
/// gathered to rank 0 at output steps, which writes the same files as a one-process run.
#[allow(clippy::too_many_arguments)]
pub fn run_tiled_rank<T: Scalar, B: YeeBackend<T>>(
    setup: &Setup,
    map: &(dyn Ownership + Sync),
    dynamic: Option<&Rebalancing>,
    costs: Costs,
    backend: B,
    slowdown: &[Slowdown],
    steps: u64,
    overlap: bool,
    continuity: &Continuity<'_>,
    wants_output: &(dyn Fn(u64) -> bool + Sync),
    on_output: &(dyn Fn(u64, &Assembled<T>) + Sync),
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Option<Vec<RankOutput<T>>>, RuntimeError> {
    let world = SimpleCommunicator::world();
    let rank = world.rank() as usize;
    let comm = MpiComm::new(&world, Topology([map.ranks(), 1, 1]), [false; 3])
        .map_err(|e| RuntimeError::new(RuntimeErrorKind::Mpi, e.to_string()))?;
    let mut comm = comm.with_slowdown(slowdown.get(rank).copied().unwrap_or_default());
    let gather = RootGather::new(&world);
    let bad_piece = RefCell::new(None);
    let body = |_: usize, step: u64, chunk: &mut B::Chunk<'_>, tiles: &[Box3]| {
        if rank == 0 {
            progress(step);
        }
        if !wants_output(step) {
            return;
        }
        let fail = |e: String| {
            bad_piece
                .borrow_mut()
                .get_or_insert(format!("output at step {step}: {e}"));
        };
        // Every rank takes part in the gather, with no values when it could not read them.
        let values = tile_values(chunk, tiles).unwrap_or_else(|e| {
            fail(format!("reading the fields back: {e:?}"));
            Default::default()
        });
        let Some(all) = gather.gather(&wire::encode_tile_piece(tiles, &values)) else {
            return;
        };
        match all
            .iter()
            .map(|b| wire::decode_tile_piece(b))
            .collect::<Result<Vec<_>, _>>()
        {
            Ok(pieces) => on_output(step, &assemble_tile_pieces(setup, &pieces)),
            Err(e) => fail(e.to_string()),
        }
    };
    let out = crate::tiled::one(
        setup, map, dynamic, costs, &backend, &mut comm, steps, overlap, continuity, &body,
    )
    .map_err(|e| RuntimeError::new(e.kind(), format!("rank {rank}: {}", e.message())))?;
    gather_outcomes(&gather, out, bad_piece.into_inner())
}

/// Rank 0 collects every rank's outcome (`Some`, rank order; `None` on the others), or the
/// first output piece that could not be read or decoded.
fn gather_outcomes<T: Scalar>(
    gather: &RootGather,
    out: RankOutput<T>,
    bad_piece: Option<String>,
) -> Result<Option<Vec<RankOutput<T>>>, RuntimeError> {
    let Some(all) = gather.gather(&wire::encode_outcome(&out)) else {
        return Ok(None);
    };
    if let Some(e) = bad_piece {
        return Err(RuntimeError::new(RuntimeErrorKind::Wire, e));
    }
    let mut results = vec![out];
    for (r, bytes) in all.iter().enumerate().skip(1) {
        results
            .push(wire::decode_outcome(bytes).map_err(|e| {
                RuntimeError::new(RuntimeErrorKind::Wire, format!("rank {r}: {e}"))
            })?);
    }
    Ok(Some(results))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(failed: Option<&str>, scene: u8, build: u8) -> Vec<u8> {
        let mut r = vec![0u8; 67 + MESSAGE_BYTES];
        r[1..33].fill(scene);
        r[33..65].fill(build);
        if let Some(m) = failed {
            r[0] = 1;
            r[65..67].copy_from_slice(&(m.len() as u16).to_le_bytes());
            r[67..67 + m.len()].copy_from_slice(m.as_bytes());
        }
        r
    }

    #[test]
    fn the_verdict_names_the_rank_and_what_differs() {
        let file = Path::new("a.toml");
        let ok = record(None, 1, 1);
        assert_eq!(verdict(file, &[&ok, &ok]), None);
        let other_scene = record(None, 2, 1);
        let v = verdict(file, &[&ok, &other_scene]).unwrap();
        assert!(
            v.starts_with("rank 1 read a different scene than rank 0 (a.toml: sha256 0202"),
            "{v}"
        );
        let other_build = record(Some("boom"), 2, 3);
        let v = verdict(file, &[&ok, &ok, &other_build]).unwrap();
        assert!(v.starts_with("rank 2 runs a different yee build"), "{v}");
        let failed = record(Some("grid too small"), 1, 1);
        assert_eq!(
            verdict(file, &[&ok, &failed]).unwrap(),
            "rank 1: grid too small"
        );
        assert_eq!(
            verdict(file, &[&failed, &failed]).unwrap(),
            "grid too small"
        );
    }
}
