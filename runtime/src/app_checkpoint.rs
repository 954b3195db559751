//! Checkpoints of any app that [`crate::app::run`] runs, for any [`Chunk`] that migrates
//! (whose cells pack with [`Chunk::pack_slabs`]): every `every` steps each rank writes the slabs
//! of the cells it owns to `step-NNNNNNNNNN.part/rank-RRRRR.bin`, rank 0 writes `index.json`
//! (the step, the grid, each rank's boxes, bytes and CRC-32) and renames the folder to
//! `step-NNNNNNNNNN` once every rank has written — or removes it when one could not. A resume
//! reads the newest whole checkpoint, refuses an index whose boxes do not tile the grid
//! exactly, and restores any layout from any other: a saved box's slabs are unpacked into a
//! chunk of that box (the app's own `make`) and the cells a rank now owns are copied from it.

use std::path::{Path, PathBuf};

use yee_core::{Box3, Chunk, Comm, StagingBuffer};

use crate::error::{RuntimeError, RuntimeErrorKind};

/// Where and how often a run writes checkpoints.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AppCheckpoints {
    /// The folder that holds the `step-*` folders.
    pub dir: PathBuf,
    /// Steps between checkpoints.
    pub every: u64,
}

/// One rank's file in a checkpoint.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct RankFile {
    /// Its name in the checkpoint's folder.
    pub file: String,
    /// The boxes whose slabs it holds, one after the other, as `[lo, hi]`.
    pub boxes: Vec<[[i64; 3]; 2]>,
    /// Its length.
    pub bytes: u64,
    /// CRC-32 of its bytes.
    pub crc32: u32,
}

/// A checkpoint's `index.json`.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct AppIndex {
    /// Steps done.
    pub step: u64,
    /// The grid's extent.
    pub grid: [usize; 3],
    /// Bytes of one value.
    pub value_bytes: usize,
    /// `tensor`, `jagged` or `kd`.
    pub layout: String,
    /// Each rank's box when it was written (x-fastest rank order).
    pub rank_boxes: Vec<[[i64; 3]; 2]>,
    /// Per rank, its file.
    pub ranks: Vec<RankFile>,
}

/// A checkpoint found on disk, its index checked.
#[derive(Clone, Debug)]
pub struct Saved {
    /// Its folder.
    pub dir: PathBuf,
    /// Its index.
    pub index: AppIndex,
}

fn io_error(what: &str, path: &Path, e: impl std::fmt::Display) -> RuntimeError {
    RuntimeError::new(
        RuntimeErrorKind::Checkpoint,
        format!("{what} {}: {e}", path.display()),
    )
}

fn to_box(b: &[[i64; 3]; 2]) -> Box3 {
    Box3::new(b[0], b[1])
}

/// The folder of the checkpoint after `step` steps in `dir`.
pub fn step_dir(dir: &Path, step: u64) -> PathBuf {
    dir.join(format!("step-{step:010}"))
}

/// Every rank writes its owned cells (`owned`, its box `held`) after `step` steps; returns on
/// every rank whether the checkpoint was committed, or the first rank's error.
pub(crate) fn write<C: Chunk, M: Comm<Error: std::fmt::Display>>(
    config: &AppCheckpoints,
    step: u64,
    layout: &str,
    grid: [usize; 3],
    chunk: &mut C,
    owned: &[Box3],
    held: Box3,
    comm: &mut M,
) -> Result<(), RuntimeError> {
    let me = comm.rank();
    let part = step_dir(&config.dir, step).with_extension("part");
    let file = format!("rank-{me:05}.bin");
    let size = size_of::<C::Value>();
    let mine = (|| -> Result<RankFile, String> {
        std::fs::create_dir_all(&part)
            .map_err(|e| format!("cannot create {}: {e}", part.display()))?;
        let bytes: usize = owned.iter().map(|&b| chunk.slab_len(b) * size).sum();
        let mut buffer = chunk.buffer(bytes).map_err(|e| format!("{e:?}"))?;
        let mut data = Vec::with_capacity(bytes);
        for &b in owned {
            let n = chunk.slab_len(b) * size;
            chunk
                .pack_slabs(&[b], &mut buffer)
                .map_err(|e| format!("{e:?}"))?;
            data.extend_from_slice(&buffer.bytes()[..n]);
        }
        let path = part.join(&file);
        std::fs::write(&path, &data)
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        Ok(RankFile {
            file: file.clone(),
            boxes: owned.iter().map(|b| [b.lo, b.hi]).collect(),
            bytes: data.len() as u64,
            crc32: crc32fast::hash(&data),
        })
    })();
    let entry = serde_json::to_vec(&(mine.as_ref().map_err(Clone::clone), [held.lo, held.hi]))
        .map_err(|e| RuntimeError::new(RuntimeErrorKind::Checkpoint, e.to_string()))?;
    let rank_error = |e: M::Error| RuntimeError::new(RuntimeErrorKind::Rank, e.to_string());
    let all = comm.gather_vecs(0, &entry).map_err(rank_error)?;
    let mut outcome = 1.0;
    if let Some(all) = all {
        let committed = commit(&part, step, layout, grid, size, &all);
        if committed.is_err() {
            // Nothing half-written stays behind.
            let _ = std::fs::remove_dir_all(&part);
            outcome = 0.0;
        }
        if let Err(e) = &committed {
            log::warn!("checkpoint at step {step} not written: {}", e.message());
        }
    }
    let mut outcomes = vec![0.0; comm.size()];
    comm.all_gather(&[outcome], &mut outcomes)
        .map_err(rank_error)?;
    match outcomes[0] > 0.0 {
        true => Ok(()),
        false => Err(RuntimeError::new(
            RuntimeErrorKind::Checkpoint,
            format!("the checkpoint at step {step} could not be written (see the log of rank 0)"),
        )),
    }
}

/// Rank 0: writes the index from every rank's entry and renames the folder.
fn commit(
    part: &Path,
    step: u64,
    layout: &str,
    grid: [usize; 3],
    value_bytes: usize,
    entries: &[Vec<u8>],
) -> Result<(), RuntimeError> {
    let mut index = AppIndex {
        step,
        grid,
        value_bytes,
        layout: layout.into(),
        rank_boxes: Vec::new(),
        ranks: Vec::new(),
    };
    for (r, entry) in entries.iter().enumerate() {
        type Entry = (Result<RankFile, String>, [[i64; 3]; 2]);
        let (file, held): Entry = serde_json::from_slice(entry).map_err(|e| {
            RuntimeError::new(RuntimeErrorKind::Checkpoint, format!("rank {r}: {e}"))
        })?;
        let file = file.map_err(|e| {
            RuntimeError::new(RuntimeErrorKind::Checkpoint, format!("rank {r}: {e}"))
        })?;
        index.ranks.push(file);
        index.rank_boxes.push(held);
    }
    check_tiling(&index)?;
    let path = part.join("index.json");
    let text = serde_json::to_string_pretty(&index)
        .map_err(|e| RuntimeError::new(RuntimeErrorKind::Checkpoint, e.to_string()))?;
    std::fs::write(&path, text).map_err(|e| io_error("cannot write", &path, e))?;
    let done = part.with_extension("");
    if done.exists() {
        std::fs::remove_dir_all(&done).map_err(|e| io_error("cannot replace", &done, e))?;
    }
    std::fs::rename(part, &done).map_err(|e| io_error("cannot commit", part, e))
}

/// The boxes of every rank file must tile the grid exactly: inside it, no two overlapping,
/// every cell in one ([`yee_core::tiling::check_tiling`]).
fn check_tiling(index: &AppIndex) -> Result<(), RuntimeError> {
    let owners: Vec<(usize, Box3)> = index
        .ranks
        .iter()
        .enumerate()
        .flat_map(|(r, f)| f.boxes.iter().map(move |b| (r, to_box(b))))
        .collect();
    let boxes: Vec<Box3> = owners.iter().map(|&(_, b)| b).collect();
    yee_core::tiling::check_tiling(index.grid, &boxes, None).map_err(|e| {
        let owner = |k: usize| format!("rank {}'s file", owners[k].0);
        let message = e.describe(owner, "cells are in no rank file");
        RuntimeError::new(RuntimeErrorKind::Checkpoint, message)
    })
}

/// The newest whole checkpoint in `dir` (`None` when there is none), its index checked
/// against the grid and the value size.
pub fn latest(
    dir: &Path,
    grid: [usize; 3],
    value_bytes: usize,
) -> Result<Option<Saved>, RuntimeError> {
    let entries = std::fs::read_dir(dir).map_err(|e| io_error("cannot read", dir, e))?;
    let newest = entries
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            let step: u64 = name.strip_prefix("step-")?.parse().ok()?;
            Some((step, e.path()))
        })
        .max_by_key(|(step, _)| *step);
    let Some((_, folder)) = newest else {
        return Ok(None);
    };
    let path = folder.join("index.json");
    let text = std::fs::read_to_string(&path).map_err(|e| io_error("cannot read", &path, e))?;
    let index: AppIndex =
        serde_json::from_str(&text).map_err(|e| io_error("cannot parse", &path, e))?;
    let bad = |m: String| {
        RuntimeError::new(
            RuntimeErrorKind::Checkpoint,
            format!("{}: {m}", path.display()),
        )
    };
    if index.grid != grid {
        return Err(bad(format!(
            "written for the grid {:?}, the run has {grid:?}",
            index.grid
        )));
    }
    if index.value_bytes != value_bytes {
        return Err(bad(format!(
            "values of {} bytes, the run's are {value_bytes}",
            index.value_bytes
        )));
    }
    check_tiling(&index).map_err(|e| bad(e.message().into()))?;
    Ok(Some(Saved { dir: folder, index }))
}

/// Fills the cells `owned` of `chunk` from `saved`: each saved box that meets them is unpacked
/// into a chunk of its own (`make`) and the common cells copied over.
pub(crate) fn restore<C: Chunk>(
    saved: &Saved,
    make: &impl Fn(Box3) -> C,
    chunk: &mut C,
    owned: &[Box3],
) -> Result<(), RuntimeError> {
    let size = size_of::<C::Value>();
    let chunk_error =
        |e: C::Error| RuntimeError::new(RuntimeErrorKind::Checkpoint, format!("{e:?}"));
    for file in &saved.index.ranks {
        let boxes: Vec<Box3> = file.boxes.iter().map(to_box).collect();
        let meets = |b: &Box3| owned.iter().any(|o| !o.intersect(b).is_empty());
        if !boxes.iter().any(meets) {
            continue;
        }
        let path = saved.dir.join(&file.file);
        let data = std::fs::read(&path).map_err(|e| io_error("cannot read", &path, e))?;
        if data.len() as u64 != file.bytes || crc32fast::hash(&data) != file.crc32 {
            return Err(io_error(
                "damaged",
                &path,
                "its length or CRC-32 differs from index.json",
            ));
        }
        let mut at = 0;
        for b in boxes {
            let mut source = make(b);
            let n = source.slab_len(b) * size;
            let end = at + n;
            if end > data.len() {
                return Err(io_error(
                    "too short",
                    &path,
                    format!("{b:?} needs bytes up to {end}"),
                ));
            }
            if meets(&b) {
                let mut buffer = source.buffer(n).map_err(chunk_error)?;
                buffer.bytes_mut()[..n].copy_from_slice(&data[at..end]);
                source.unpack_slabs(&[b], &buffer).map_err(chunk_error)?;
                for common in owned
                    .iter()
                    .map(|o| o.intersect(&b))
                    .filter(|c| !c.is_empty())
                {
                    let m = source.slab_len(common) * size;
                    let mut piece = source.buffer(m).map_err(chunk_error)?;
                    source
                        .pack_slabs(&[common], &mut piece)
                        .map_err(chunk_error)?;
                    chunk.unpack_slabs(&[common], &piece).map_err(chunk_error)?;
                }
            }
            at = end;
        }
        if at != data.len() {
            return Err(io_error(
                "mismatched",
                &path,
                format!(
                    "it holds {} bytes where this run's chunks pack {at} (a checkpoint of \
                     another build, or of chunks with other state: smoothing with the full \
                     tensor against its diagonal alone)",
                    data.len()
                ),
            ));
        }
    }
    Ok(())
}
