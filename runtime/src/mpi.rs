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

/// Bytes of the scene file's path each rank contributes.
const PATH_BYTES: usize = 1024;

/// Bytes of the run options each rank contributes.
const SETTINGS_BYTES: usize = 4096;

/// The most bytes of a scene file hashed (yee-scene reads no more of it either).
const SCENE_BYTES: u64 = 64 << 20;

/// SHA-256 of a file's first 64 MiB (of nothing when it cannot be read: the rank reports
/// that).
pub fn file_sha256(path: &Path) -> [u8; 32] {
    use sha2::Digest;
    use std::io::Read;
    let mut bytes = Vec::new();
    if let Ok(file) = std::fs::File::open(path) {
        let _ = file.take(SCENE_BYTES + 1).read_to_end(&mut bytes);
    }
    sha2::Sha256::digest(bytes).into()
}

/// The first 8 bytes of a hash in hex: enough to tell two apart in a message.
fn hex(bytes: &[u8]) -> String {
    bytes[..8].iter().map(|b| format!("{b:02x}")).collect()
}

/// What one rank contributes to the start-up check ([`agree`]).
#[derive(Clone, Debug, Default, PartialEq)]
struct Record {
    /// Why it could not prepare its run.
    failed: Option<String>,
    /// SHA-256 of the scene file it read.
    scene: [u8; 32],
    /// SHA-256 of its executable.
    build: [u8; 32],
    /// The scene file it was given.
    scene_file: String,
    /// Its run options, `(name, value)`, when it prepared its run.
    settings: Vec<(String, String)>,
}

impl Record {
    /// Bytes of an encoded record: every rank's is the same size.
    const BYTES: usize =
        1 + 32 + 32 + (2 + MESSAGE_BYTES) + (2 + PATH_BYTES) + (2 + SETTINGS_BYTES);

    /// The record as [`Record::BYTES`] bytes; texts longer than their field are cut.
    fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(Self::BYTES);
        out.push(u8::from(self.failed.is_some()));
        out.extend(self.scene);
        out.extend(self.build);
        let settings: String = (self.settings.iter())
            .map(|(name, value)| format!("{name}\0{value}\0"))
            .collect();
        let fields = [
            (self.failed.as_deref().unwrap_or(""), MESSAGE_BYTES),
            (self.scene_file.as_str(), PATH_BYTES),
            (settings.as_str(), SETTINGS_BYTES),
        ];
        for (text, room) in fields {
            let mut n = text.len().min(room);
            while !text.is_char_boundary(n) {
                n -= 1;
            }
            out.extend((n as u16).to_le_bytes());
            out.extend(&text.as_bytes()[..n]);
            out.resize(out.len() + room - n, 0);
        }
        out
    }

    /// The value of its `i`-th run option (empty when it has none).
    fn setting(&self, i: usize) -> &str {
        self.settings.get(i).map_or("", |(_, v)| v.as_str())
    }

    /// The record of [`Record::encode`]'s bytes.
    fn decode(bytes: &[u8]) -> Record {
        let mut at = 65;
        let mut text = |room: usize| {
            let n = usize::from(u16::from_le_bytes([bytes[at], bytes[at + 1]])).min(room);
            let t = String::from_utf8_lossy(&bytes[at + 2..at + 2 + n]).into_owned();
            at += 2 + room;
            t
        };
        let (message, scene_file, settings) =
            (text(MESSAGE_BYTES), text(PATH_BYTES), text(SETTINGS_BYTES));
        let mut parts = settings.split('\0');
        let mut pairs = Vec::new();
        while let (Some(name), Some(value)) = (parts.next(), parts.next()) {
            pairs.push((name.to_string(), value.to_string()));
        }
        Record {
            failed: (bytes[0] == 1).then_some(message),
            scene: bytes[1..33].try_into().expect("32 bytes"),
            build: bytes[33..65].try_into().expect("32 bytes"),
            scene_file,
            settings: pairs,
        }
    }
}

/// The start-up check: every rank contributes whether it could prepare its run (`local`), the
/// SHA-256 of the scene file it read and of its own executable, the file's name, and the run
/// options that every rank must share (`settings` of what it prepared: `(name, value)` pairs,
/// such as `("--steps", "60")`); every rank learns the same verdict. A different build, a
/// different scene, an error on any rank, or options that differ end every rank: rank 0
/// prints the one message (naming each rank's file or values), then all ranks meet at a
/// barrier (so that no rank's exit lets mpirun kill rank 0 before it has printed) and return
/// an error of kind [`RuntimeErrorKind::Reported`].
pub fn agree<R, E: std::fmt::Display>(
    scene_file: &Path,
    local: Result<R, E>,
    settings: impl FnOnce(&R) -> Vec<(&'static str, String)>,
) -> Result<R, RuntimeError> {
    let world = SimpleCommunicator::world();
    let gather = RootGather::new(&world);
    let rank = world.rank() as usize;
    // A bad YEE_MPI_TIMEOUT is the same on every rank: rank 0 says so once, before the run.
    let local = local.map_err(|e| e.to_string()).and_then(|prepared| {
        yee_comm_mpi::Watchdog::from_env()
            .map(|_| prepared)
            .map_err(|e| e.to_string())
    });
    let record = Record {
        failed: local.as_ref().err().cloned(),
        scene: file_sha256(scene_file),
        build: std::env::current_exe()
            .map(|p| file_sha256(&p))
            .unwrap_or_default(),
        scene_file: scene_file.display().to_string(),
        settings: local.as_ref().map_or_else(
            |_| Vec::new(),
            |prepared| {
                settings(prepared)
                    .into_iter()
                    .map(|(name, value)| (name.to_string(), value))
                    .collect()
            },
        ),
    };
    let all = gather.all_gather_fixed(&record.encode());
    let records: Vec<Record> = all
        .chunks_exact(Record::BYTES)
        .map(Record::decode)
        .collect();
    let message = match (verdict(&records), local) {
        (None, Ok(prepared)) => return Ok(prepared),
        (Some(message), _) => message,
        // Not reached: this rank's failure is in its record, so there is a verdict.
        (None, Err(e)) => e,
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

/// The one message of a failed start-up check, from every rank's record (see [`agree`]): a
/// different build, then a different scene, then a rank's own error, then run options that
/// differ.
fn verdict(records: &[Record]) -> Option<String> {
    let first = &records[0];
    for (r, rec) in records.iter().enumerate().skip(1) {
        if rec.build != first.build {
            return Some(format!(
                "rank {r} runs a different yee build than rank 0 (executable sha256 {}… vs {}…): \
                 install the same build on every node",
                hex(&rec.build),
                hex(&first.build)
            ));
        }
    }
    for (r, rec) in records.iter().enumerate().skip(1) {
        if rec.scene != first.scene {
            return Some(format!(
                "rank {r} read a different scene than rank 0 ({}: sha256 {}… on rank {r}, {}: \
                 sha256 {}… on rank 0): every process must read the same scene file",
                rec.scene_file,
                hex(&rec.scene),
                first.scene_file,
                hex(&first.scene)
            ));
        }
    }
    if let Some((r, rec)) = records
        .iter()
        .enumerate()
        .find(|(_, rec)| rec.failed.is_some())
    {
        let text = rec.failed.clone().unwrap_or_default();
        return Some(match r {
            0 => text,
            _ => format!("rank {r}: {text}"),
        });
    }
    let differ: Vec<String> = (first.settings.iter().enumerate())
        .filter_map(|(i, (name, _))| {
            let same = records.iter().all(|rec| rec.setting(i) == first.setting(i));
            let values = records.iter().map(|rec| rec.setting(i));
            (!same).then(|| format!("{name}: {}", by_value(values)))
        })
        .collect();
    (!differ.is_empty()).then(|| {
        format!(
            "the processes were started with different run options ({}): start every process \
             of the job with the same options",
            differ.join("; ")
        )
    })
}

/// Each value of `values` (one per rank, in rank order) with the ranks that have it: `60 on
/// ranks 0, 2, 61 on rank 1`.
fn by_value<'a>(values: impl Iterator<Item = &'a str>) -> String {
    let mut groups: Vec<(&str, Vec<usize>)> = Vec::new();
    for (r, v) in values.enumerate() {
        match groups.iter_mut().find(|(g, _)| *g == v) {
            Some((_, ranks)) => ranks.push(r),
            None => groups.push((v, vec![r])),
        }
    }
    let named = |ranks: &[usize]| {
        let shown: Vec<String> = ranks.iter().take(8).map(usize::to_string).collect();
        let more = match ranks.len() > 8 {
            true => format!(", … ({} ranks)", ranks.len()),
            false => String::new(),
        };
        let noun = if ranks.len() == 1 { "rank" } else { "ranks" };
        format!("{noun} {}{more}", shown.join(", "))
    };
    let shown: Vec<String> = groups
        .iter()
        .map(|(v, ranks)| {
            let v = if v.is_empty() { "(none)" } else { v };
            format!("{v} on {}", named(ranks))
        })
        .collect();
    shown.join(", ")
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

    fn record(failed: Option<&str>, scene: u8, build: u8) -> Record {
        Record {
            failed: failed.map(str::to_string),
            scene: [scene; 32],
            build: [build; 32],
            scene_file: "a.toml".into(),
            settings: vec![("--steps".into(), "60".into())],
        }
    }

    #[test]
    fn records_read_back_and_cut_long_texts() {
        let mut r = record(Some("boom"), 1, 2);
        r.settings
            .push(("--checkpoint-dir".into(), "/scratch/é".into()));
        let bytes = r.encode();
        assert_eq!(bytes.len(), Record::BYTES);
        assert_eq!(Record::decode(&bytes), r);
        r.scene_file = "é".repeat(PATH_BYTES);
        let back = Record::decode(&r.encode());
        assert_eq!(back.scene_file.len(), PATH_BYTES);
        assert_eq!(back.settings, r.settings);
    }

    #[test]
    fn the_verdict_names_the_rank_and_what_differs() {
        let ok = record(None, 1, 1);
        assert_eq!(verdict(&[ok.clone(), ok.clone()]), None);
        let mut other_scene = record(None, 2, 1);
        other_scene.scene_file = "b.toml".into();
        let v = verdict(&[ok.clone(), other_scene]).unwrap();
        assert!(
            v.starts_with(
                "rank 1 read a different scene than rank 0 (b.toml: sha256 0202020202020202… \
                 on rank 1, a.toml: sha256 0101"
            ),
            "{v}"
        );
        let other_build = record(Some("boom"), 2, 3);
        let v = verdict(&[ok.clone(), ok.clone(), other_build]).unwrap();
        assert!(v.starts_with("rank 2 runs a different yee build"), "{v}");
        let failed = record(Some("grid too small"), 1, 1);
        assert_eq!(
            verdict(&[ok.clone(), failed.clone()]).unwrap(),
            "rank 1: grid too small"
        );
        assert_eq!(
            verdict(&[failed.clone(), failed]).unwrap(),
            "grid too small"
        );
    }

    #[test]
    fn options_that_differ_are_named_with_each_ranks_value() {
        let with = |steps: &str, every: &str| Record {
            settings: vec![
                ("--steps".into(), steps.into()),
                ("--checkpoint-every".into(), every.into()),
                ("--overlap".into(), "kernel-split".into()),
            ],
            ..record(None, 1, 1)
        };
        let v = verdict(&[with("60", ""), with("61", "10"), with("60", "")]).unwrap();
        assert_eq!(
            v,
            "the processes were started with different run options (--steps: 60 on ranks 0, 2, \
             61 on rank 1; --checkpoint-every: (none) on ranks 0, 2, 10 on rank 1): start every \
             process of the job with the same options"
        );
        let many: Vec<Record> = (0..12)
            .map(|r| with(if r == 5 { "7" } else { "60" }, ""))
            .collect();
        let v = verdict(&many).unwrap();
        assert!(
            v.contains("--steps: 60 on ranks 0, 1, 2, 3, 4, 6, 7, 8, … (11 ranks), 7 on rank 5)"),
            "{v}"
        );
    }
}
