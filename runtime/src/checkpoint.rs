//! Checkpoints on disk: written by every rank at the steps a run is cut at, completed
//! atomically by the writing rank, and read back into any decomposition.
//!
//! A checkpoint is a folder `step-NNNNNNNNNN` under the checkpoint directory:
//! - `rank-RRRRR.bin`, one per rank: the magic `YEECKPT1`, a little-endian `u64` header length,
//!   a JSON header (`rank`, `lo`, `hi`: the bounding box, `boxes`: the boxes the rank owns — one
//!   for a tensor, jagged or k-d layout, its tiles for a tile set —, `step`, `axis`, `planes`:
//!   bytes per plane, `probes`: `[{"index", "count"}]`), then [`yee_core::Chunk::pack_slabs`] of
//!   each plane normal to `axis` of each box in turn (every field, CPML ψ and DFT sum of its
//!   cells), then per probe its steps (`u64`) and values (the run's element type, native byte
//!   order);
//! - `checkpoint.json` ([`Index`]), written last: the scene's SHA-256, the step, the borders, the
//!   balancer's state (a tensor layout's, or a box layout's or tile set's), each rank file's
//!   boxes, size and CRC-32, and what the application adds. Version 1 (before tile sets) had
//!   one box per rank and no `boxes`; it is read as such.
//!
//! It is written under the name `step-NNNNNNNNNN.part` and renamed once every rank's part and
//! the index are whole, after which the checkpoint it replaces is removed: at any time the
//! folder holds one complete checkpoint, or none.
//!
//! Fields after T steps do not depend on the decomposition, so a checkpoint resumes on any
//! number of ranks and layout: a rank whose box is not one of the saved boxes builds, one plane
//! at a time, a chunk of the saved plane, unpacks it there and copies the part it owns
//! ([`Loaded::restore`]). The plane waves' incident lines are a function of the step, and a
//! chunk that starts later replays them.

use std::fs::{self, File};
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use yee_core::balance::{BalancerState, LinkSums, PerfSums};
use yee_core::session::{Plan, Start};
use yee_core::tiling::check_tiling;
use yee_core::{Axis, Box3, Chunk, Scalar, StagingBuffer};
use yee_em::{Costs, Setup, YeeBackend, YeeFields};
use yee_scalar::checkpoints::{Checkpoints, Cut, CutLayout, ProbeSamples, SavedPart};

use crate::checkpoint_owned::OwnedBalancerJson;
use crate::error::{RuntimeError, RuntimeErrorKind};
use crate::profile::{LinkJson, PerfJson};

/// The format name in every index.
pub const FORMAT: &str = "yee-checkpoint";
/// The version this build writes (version 1, one box per rank, is read too).
pub const VERSION: u32 = 2;
/// The first bytes of every rank file.
const MAGIC: &[u8; 8] = b"YEECKPT1";
/// The index's name in a checkpoint folder.
pub const INDEX: &str = "checkpoint.json";

/// When to checkpoint and where.
#[derive(Clone, Debug)]
pub struct CheckpointConfig {
    /// The folder holding the checkpoint (`step-…` folders are made inside).
    pub dir: PathBuf,
    /// Every this many steps, if set.
    pub every_steps: Option<u64>,
    /// Every this much wall-clock time, if set (at the next collective stop check).
    pub every_seconds: Option<f64>,
    /// The scene's SHA-256: a checkpoint resumes only the scene it was taken of.
    pub scene_sha256: String,
    /// The name of the element type ("f32", "c64", …).
    pub value_type: String,
    /// Steps of the whole run.
    pub steps: u64,
}

/// One rank's file in an index.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RankEntry {
    /// The rank.
    pub rank: usize,
    /// The file name inside the checkpoint folder.
    pub file: String,
    /// The bounding box of what it holds (global cells, `hi` exclusive).
    pub lo: [i64; 3],
    /// See `lo`.
    pub hi: [i64; 3],
    /// The boxes it holds, in file order (absent in version 1: the box `lo`..`hi`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub boxes: Option<Vec<SavedBox>>,
    /// The file's size.
    pub bytes: u64,
    /// CRC-32 of the whole file.
    pub crc32: u32,
}

/// One box of a rank file (global cells, `hi` exclusive).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SavedBox {
    /// Lower corner.
    pub lo: [i64; 3],
    /// Upper corner.
    pub hi: [i64; 3],
}

/// The boxes a rank file holds: `boxes`, or in version 1 the one box `lo`..`hi`.
fn saved_boxes(lo: [i64; 3], hi: [i64; 3], boxes: Option<&[SavedBox]>) -> Vec<Box3> {
    match boxes {
        Some(b) => b.iter().map(|b| Box3::new(b.lo, b.hi)).collect(),
        None => vec![Box3::new(lo, hi)],
    }
}

/// `boxes` as saved, and their bounding box (empty at the origin when there are none).
fn boxes_json(boxes: &[Box3]) -> (Vec<SavedBox>, Box3) {
    let bound = Box3::bounding(boxes.iter().copied());
    let saved = boxes
        .iter()
        .map(|b| SavedBox { lo: b.lo, hi: b.hi })
        .collect();
    (saved, bound)
}

impl RankEntry {
    /// The boxes its file holds.
    pub fn boxes(&self) -> Vec<Box3> {
        saved_boxes(self.lo, self.hi, self.boxes.as_deref())
    }
}

/// The balancer's learnt state ([`BalancerState`]) as JSON.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BalancerJson {
    /// Q/P sums per rank.
    pub perf: Vec<PerfJson>,
    /// Link sums per rank and face.
    pub links: Vec<[LinkJson; 6]>,
    /// Per axis, whether each line of ranks is enabled.
    pub enabled: [Vec<bool>; 3],
    /// Per axis, the sets of lines disabled together.
    pub disabled_sets: [Vec<Vec<usize>>; 3],
    /// Bytes of the last message per rank and face.
    pub last_bytes: Vec<[f64; 6]>,
    /// Messages per step per rank and face.
    pub messages_per_step: Vec<[f64; 6]>,
}

impl From<&BalancerState> for BalancerJson {
    fn from(s: &BalancerState) -> Self {
        BalancerJson {
            perf: s.perf.iter().map(PerfJson::from).collect(),
            links: s
                .links
                .iter()
                .map(|f| f.map(|l| LinkJson::from(&l)))
                .collect(),
            enabled: s.enabled.clone(),
            disabled_sets: s.disabled_sets.clone(),
            last_bytes: s.last_bytes.clone(),
            messages_per_step: s.messages_per_step.clone(),
        }
    }
}

impl From<&BalancerJson> for BalancerState {
    fn from(j: &BalancerJson) -> Self {
        BalancerState {
            perf: j.perf.iter().map(PerfSums::from).collect(),
            links: j
                .links
                .iter()
                .map(|f| f.map(|l| LinkSums::from(&l)))
                .collect(),
            enabled: j.enabled.clone(),
            disabled_sets: j.disabled_sets.clone(),
            last_bytes: j.last_bytes.clone(),
            messages_per_step: j.messages_per_step.clone(),
        }
    }
}

/// A checkpoint's `checkpoint.json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Index {
    /// Always "yee-checkpoint".
    pub format: String,
    /// The format version.
    pub version: u32,
    /// SHA-256 of the scene file it was taken of.
    pub scene_sha256: String,
    /// The element type.
    pub value_type: String,
    /// The grid.
    pub grid: [usize; 3],
    /// Steps done.
    pub step: u64,
    /// Steps of the whole run.
    pub steps: u64,
    /// The topology of the run that wrote it.
    pub topology: [usize; 3],
    /// Its borders per axis at `step`.
    pub borders: [Vec<i64>; 3],
    /// Its balancer's state, if it balanced a tensor layout dynamically.
    pub balancer: Option<BalancerJson>,
    /// The balancer's state of a box layout or tile set it balanced dynamically.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owned_balancer: Option<OwnedBalancerJson>,
    /// The axis the rank files are cut into planes along.
    pub axis: usize,
    /// The rank files.
    pub ranks: Vec<RankEntry>,
    /// What the application keeps with it (the `yee` runner: the output files written so far).
    pub app: serde_json::Value,
}

/// A rank file's header.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct RankHeader {
    rank: usize,
    lo: [i64; 3],
    hi: [i64; 3],
    #[serde(default, skip_serializing_if = "Option::is_none")]
    boxes: Option<Vec<SavedBox>>,
    step: u64,
    axis: usize,
    planes: Vec<u64>,
    probes: Vec<ProbeEntry>,
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct ProbeEntry {
    index: usize,
    count: usize,
}

/// The axis rank files are cut along: the slowest active one, so a plane is as small as
/// it gets.
fn plane_axis(setup: &Setup) -> Axis {
    let active = setup.mode.active_axes();
    [Axis::Z, Axis::Y, Axis::X]
        .into_iter()
        .find(|a| active[a.index()])
        .unwrap_or(Axis::X)
}

/// The planes of `b` normal to `axis`, in order.
fn planes(b: Box3, axis: Axis) -> impl Iterator<Item = Box3> {
    let a = axis.index();
    (b.lo[a]..b.hi[a]).map(move |i| {
        let mut p = b;
        p.lo[a] = i;
        p.hi[a] = i + 1;
        p
    })
}

/// The folder of the checkpoint at `step`, complete or (`part`) being written.
fn step_dir(dir: &Path, step: u64, part: bool) -> PathBuf {
    dir.join(format!(
        "step-{step:010}{}",
        if part { ".part" } else { "" }
    ))
}

/// A writer that keeps the CRC-32 and the count of what went through it.
struct Counted<W> {
    inner: W,
    crc: crc32fast::Hasher,
    bytes: u64,
}

impl<W: Write> Write for Counted<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.crc.update(&buf[..n]);
        self.bytes += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// A signal flag shared by the ranks of a process: set by a handler, read by the hooks.
pub type StopFlag = Arc<AtomicBool>;

/// One rank's checkpoint hooks ([`Checkpoints`]) writing the files described above.
pub struct RankCheckpoints<'a> {
    config: &'a CheckpointConfig,
    rank: usize,
    setup: &'a Setup<'a>,
    stop: Option<StopFlag>,
    app: &'a (dyn Fn() -> serde_json::Value + Sync),
    last: Instant,
    keep_fields: bool,
}

impl<'a> RankCheckpoints<'a> {
    /// The hooks of `rank` in a run of `setup`; `stop` is set by a signal, and `app()` is what
    /// the writing rank stores in the index.
    pub fn new(
        config: &'a CheckpointConfig,
        rank: usize,
        setup: &'a Setup<'a>,
        stop: Option<StopFlag>,
        app: &'a (dyn Fn() -> serde_json::Value + Sync),
    ) -> Self {
        RankCheckpoints {
            config,
            rank,
            setup,
            stop,
            app,
            last: Instant::now(),
            keep_fields: true,
        }
    }

    /// The same hooks, keeping the final fields or not ([`Checkpoints::keeps_fields`]).
    pub fn keeping_fields(mut self, keep: bool) -> Self {
        self.keep_fields = keep;
        self
    }

    fn write_part<C: YeeFields>(
        &self,
        chunk: &mut C,
        probes: &ProbeSamples<C::Value>,
        at: &Cut,
    ) -> std::io::Result<SavedPart> {
        let folder = step_dir(&self.config.dir, at.step, true);
        fs::create_dir_all(&folder)?;
        let owned = at.owned(self.rank);
        let axis = plane_axis(self.setup);
        let size = std::mem::size_of::<C::Value>();
        let all_planes = || owned.iter().flat_map(|&b| planes(b, axis));
        let plane_bytes: Vec<u64> = all_planes()
            .map(|p| (chunk.slab_len(p) * size) as u64)
            .collect();
        let kept: Vec<ProbeEntry> = probes
            .iter()
            .enumerate()
            .filter(|(_, s)| !s.is_empty())
            .map(|(index, s)| ProbeEntry {
                index,
                count: s.len(),
            })
            .collect();
        let (boxes, bound) = boxes_json(&owned);
        let header = RankHeader {
            rank: self.rank,
            lo: bound.lo,
            hi: bound.hi,
            boxes: Some(boxes),
            step: at.step,
            axis: axis.index(),
            planes: plane_bytes.clone(),
            probes: kept.clone(),
        };
        let header = serde_json::to_vec(&header).expect("a header serialises");
        let file = File::create(folder.join(rank_file(self.rank)))?;
        let mut w = Counted {
            inner: BufWriter::with_capacity(1 << 20, file),
            crc: crc32fast::Hasher::new(),
            bytes: 0,
        };
        w.write_all(MAGIC)?;
        w.write_all(&(header.len() as u64).to_le_bytes())?;
        w.write_all(&header)?;
        let most = plane_bytes.iter().copied().max().unwrap_or(0) as usize;
        let mut buffer = chunk.buffer(most).map_err(chunk_io)?;
        for (plane, &bytes) in all_planes().zip(&plane_bytes) {
            chunk
                .pack_slabs(&[plane], &mut buffer)
                .and_then(|()| chunk.wait())
                .map_err(chunk_io)?;
            w.write_all(&buffer.bytes()[..bytes as usize])?;
        }
        for entry in &kept {
            let samples = &probes[entry.index];
            for (step, _) in samples {
                w.write_all(&step.to_le_bytes())?;
            }
            for (_, v) in samples {
                w.write_all(bytemuck::bytes_of(v))?;
            }
        }
        w.flush()?;
        let Counted { inner, crc, bytes } = w;
        inner.into_inner().map_err(|e| e.into_error())?.sync_all()?;
        Ok(SavedPart {
            bytes,
            checksum: crc.finalize(),
        })
    }

    fn write_index(&self, at: &Cut, parts: &[Option<SavedPart>]) -> std::io::Result<()> {
        let folder = step_dir(&self.config.dir, at.step, true);
        let ranks = parts
            .iter()
            .enumerate()
            .map(|(rank, p)| {
                let p = p.expect("only complete checkpoints get an index");
                let (boxes, bound) = boxes_json(&at.owned(rank));
                RankEntry {
                    rank,
                    file: rank_file(rank),
                    lo: bound.lo,
                    hi: bound.hi,
                    boxes: Some(boxes),
                    bytes: p.bytes,
                    crc32: p.checksum,
                }
            })
            .collect();
        // A box layout or tile set has no borders through the grid: its boxes are the ranks'.
        let (topology, borders, balancer, owned_balancer) = match at.layout {
            CutLayout::Tensor { plan, start } => (
                plan.topology.0,
                start.borders.clone(),
                start
                    .balancer
                    .as_ref()
                    .map(|b| BalancerJson::from(&b.state())),
                None,
            ),
            CutLayout::Owned { map, balancer } => (
                [map.ranks(), 1, 1],
                Default::default(),
                None,
                OwnedBalancerJson::of(balancer),
            ),
        };
        let index = Index {
            format: FORMAT.into(),
            version: VERSION,
            scene_sha256: self.config.scene_sha256.clone(),
            value_type: self.config.value_type.clone(),
            grid: self.setup.grid,
            step: at.step,
            steps: self.config.steps,
            topology,
            borders,
            balancer,
            owned_balancer,
            axis: plane_axis(self.setup).index(),
            ranks,
            app: (self.app)(),
        };
        let text = serde_json::to_string_pretty(&index).expect("an index serialises");
        yee_io::atomic::write_synced(&folder.join(INDEX), text)?;
        let done = step_dir(&self.config.dir, at.step, false);
        if done.exists() {
            fs::remove_dir_all(&done)?;
        }
        fs::rename(&folder, &done)?;
        // The checkpoint it replaces, and what a run killed while writing left behind.
        for entry in fs::read_dir(&self.config.dir)? {
            let path = entry?.path();
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if name.starts_with("step-") && path != done && path.is_dir() {
                fs::remove_dir_all(&path)?;
            }
        }
        Ok(())
    }
}

fn rank_file(rank: usize) -> String {
    format!("rank-{rank:05}.bin")
}

fn chunk_io<E: std::fmt::Debug>(e: E) -> std::io::Error {
    std::io::Error::other(format!("the backend failed: {e:?}"))
}

impl<C: YeeFields> Checkpoints<C> for RankCheckpoints<'_> {
    fn next_due(&self, step: u64) -> Option<u64> {
        let every = self.config.every_steps.filter(|&n| n > 0)?;
        Some((step / every + 1) * every)
    }

    fn wants_stop(&mut self) -> bool {
        let timed = self
            .config
            .every_seconds
            .is_some_and(|s| self.last.elapsed() >= Duration::from_secs_f64(s.max(0.0)));
        timed || self.stop.as_ref().is_some_and(|f| f.load(Ordering::SeqCst))
    }

    fn interrupted(&self) -> bool {
        self.stop.as_ref().is_some_and(|f| f.load(Ordering::SeqCst))
    }

    fn keeps_fields(&self) -> bool {
        self.keep_fields
    }

    fn save(
        &mut self,
        chunk: &mut C,
        probes: &ProbeSamples<C::Value>,
        at: &Cut,
    ) -> Result<SavedPart, String> {
        let t = Instant::now();
        let saved = self.write_part(chunk, probes, at).map_err(|e| {
            // What it wrote of its file goes at once (the writing rank removes the folder once
            // every rank is done with it, in `commit`).
            let partial = step_dir(&self.config.dir, at.step, true).join(rank_file(self.rank));
            let _ = fs::remove_file(&partial);
            let message = format!(
                "rank {} cannot write its part of the checkpoint at step {} in {}: {e}",
                self.rank,
                at.step,
                self.config.dir.display()
            );
            log::warn!("{message}; the run goes on, and the earlier checkpoint is kept");
            message
        })?;
        log::info!(
            "rank {}: checkpoint part at step {}: {} bytes in {:.3} s",
            self.rank,
            at.step,
            saved.bytes,
            t.elapsed().as_secs_f64()
        );
        Ok(saved)
    }

    fn commit(&mut self, at: &Cut, parts: &[Option<SavedPart>]) -> Result<(), String> {
        self.last = Instant::now();
        if self.rank != 0 {
            return Ok(());
        }
        // The ranks that failed to save said why (`save`): here is only what became of the
        // folder. Where every part is there, the index makes it whole.
        let why = match parts.iter().any(Option::is_none) {
            true => None,
            false => match self.write_index(at, parts) {
                Ok(()) => return Ok(()),
                Err(e) => Some(format!(
                    "cannot complete the checkpoint at step {} in {}: {e}",
                    at.step,
                    self.config.dir.display()
                )),
            },
        };
        // Every rank is done with the folder (the parts were gathered before this call): what
        // the others wrote of an incomplete checkpoint would only fill the disk.
        let folder = step_dir(&self.config.dir, at.step, true);
        let left = folder.exists() || folder.is_symlink();
        let removed = match left.then(|| fs::remove_dir_all(&folder)) {
            None => "no partial checkpoint was left".to_string(),
            Some(Ok(())) => format!("the partial checkpoint {} was removed", folder.display()),
            Some(Err(e)) => format!(
                "the partial checkpoint {} could not be removed: {e}",
                folder.display()
            ),
        };
        log::warn!("{removed}");
        Err(match why {
            None => removed,
            Some(why) => format!("{why}; {removed}"),
        })
    }
}

/// A complete checkpoint found on disk.
#[derive(Clone, Debug)]
pub struct Loaded {
    /// Its folder.
    pub dir: PathBuf,
    /// Its index.
    pub index: Index,
}

/// The complete checkpoint in `dir`: `dir` itself, or the newest complete `step-…` folder in
/// it or in its `checkpoint` folder (an output folder). `Ok(None)` where there is none.
pub fn find(dir: &Path) -> Result<Option<Loaded>, RuntimeError> {
    let error = |what: String| RuntimeError::new(RuntimeErrorKind::Checkpoint, what);
    let read_index = |folder: &Path| -> Result<Loaded, RuntimeError> {
        let path = folder.join(INDEX);
        let text = fs::read_to_string(&path)
            .map_err(|e| error(format!("cannot read {}: {e}", path.display())))?;
        let index: Index = serde_json::from_str(&text).map_err(|e| {
            error(format!(
                "{} is not a yee checkpoint index: {e}",
                path.display()
            ))
        })?;
        if index.format != FORMAT || !(1..=VERSION).contains(&index.version) {
            return Err(error(format!(
                "{} is format {:?} version {}; this build reads {FORMAT:?} versions 1 to \
                 {VERSION}",
                path.display(),
                index.format,
                index.version
            )));
        }
        Ok(Loaded {
            dir: folder.to_path_buf(),
            index,
        })
    };
    if dir.join(INDEX).is_file() {
        return read_index(dir).map(Some);
    }
    for folder in [dir.to_path_buf(), dir.join("checkpoint")] {
        let Ok(entries) = fs::read_dir(&folder) else {
            continue;
        };
        let newest = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| {
                let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
                name.starts_with("step-") && !name.ends_with(".part") && p.join(INDEX).is_file()
            })
            .max();
        if let Some(newest) = newest {
            return read_index(&newest).map(Some);
        }
    }
    Ok(None)
}

/// The boxes of an index's rank files must tile its grid exactly ([`check_tiling`]; with
/// `active`, the scene's mask, its active cells): a checkpoint whose index lost or doubled a
/// rank file would restore some cells from nowhere, or twice. The error names the entries of
/// `ranks` and the cells.
fn check_rank_tiling(index: &Index, active: Option<&[bool]>) -> Result<(), String> {
    let held: Vec<(usize, Box3)> = index
        .ranks
        .iter()
        .enumerate()
        .flat_map(|(k, e)| e.boxes().into_iter().map(move |b| (k, b)))
        .collect();
    let boxes: Vec<Box3> = held.iter().map(|&(_, b)| b).collect();
    let entry = |i: usize| {
        let k = held[i].0;
        format!("ranks[{k}] ({})", index.ranks[k].file)
    };
    let missing = match active {
        Some(_) => "active cells are in no rank file",
        None => "cells are in no rank file",
    };
    check_tiling(index.grid, &boxes, active).map_err(|e| e.describe(entry, missing))
}

impl Loaded {
    /// Checks that this checkpoint is of the scene with SHA-256 `sha256`, element type
    /// `value_type` and grid `grid`, and that its rank files hold every cell of that grid
    /// once (every cell `active` marks, for a masked scene: a tile set leaves tiles with no
    /// active cell to no rank); the error says which differs, or names the cells missing or
    /// held twice.
    pub fn check_scene(
        &self,
        sha256: &str,
        value_type: &str,
        grid: [usize; 3],
        active: Option<&[bool]>,
    ) -> Result<(), RuntimeError> {
        let i = &self.index;
        let differs = if i.scene_sha256 != sha256 {
            Some(format!(
                "it was taken of a scene with SHA-256 {}, and this scene's is {sha256} (a \
                 checkpoint resumes only the scene file it was taken of, unchanged)",
                i.scene_sha256
            ))
        } else if i.value_type != value_type || i.grid != grid {
            Some(format!(
                "it holds {} values on a {:?} grid, and the scene asks for {value_type} on {grid:?}",
                i.value_type, i.grid
            ))
        } else {
            check_rank_tiling(i, active)
                .err()
                .map(|why| format!("its rank files do not tile the {:?} grid: {why}", i.grid))
        };
        match differs {
            Some(why) => Err(RuntimeError::new(
                RuntimeErrorKind::Checkpoint,
                format!("cannot resume from {}: {why}", self.dir.display()),
            )),
            None => Ok(()),
        }
    }

    /// Where the resumed run starts: the saved step; the saved borders and balancer where
    /// `plan` has the topology of the run that wrote the checkpoint, else `plan`'s own.
    pub fn start(&self, plan: &Plan) -> Start {
        let i = &self.index;
        let mut start = Start::of(plan);
        start.step = i.step;
        // A box layout's or tile set's checkpoint has no borders, so it never matches here.
        let same_layout = plan.topology.0 == i.topology
            && (0..3).all(|a| i.borders[a].len() == plan.borders[a].len());
        if same_layout {
            start.borders = i.borders.clone();
            if let (Some(b), Some(saved)) = (&plan.balancer, &i.balancer) {
                start.balancer = b.clone().with_state(BalancerState::from(saved));
                if start.balancer.is_none() {
                    start.balancer = plan.balancer.clone();
                }
            }
        }
        start
    }

    /// Loads the checkpoint's cells inside `owned` (boxes of `chunk`: its owned box, or a
    /// tile set's tiles) into `chunk`: a saved plane inside one of them straight, else through
    /// a chunk of the saved plane built with `backend`. Checks every file read against its
    /// size and CRC-32.
    pub fn restore<'s, T: Scalar, B: YeeBackend<T>>(
        &self,
        backend: &B,
        setup: &Setup<'s>,
        costs: Costs,
        chunk: &mut B::Chunk<'s>,
        owned: &[Box3],
    ) -> Result<(), RuntimeError> {
        for entry in &self.index.ranks {
            let saved = entry.boxes();
            let overlaps = saved
                .iter()
                .any(|s| owned.iter().any(|o| s.intersect(o).cells() > 0));
            if !overlaps {
                continue;
            }
            self.restore_from(entry, &saved, owned, backend, setup, costs, chunk)
                .map_err(|e| {
                    RuntimeError::new(
                        RuntimeErrorKind::Checkpoint,
                        format!("{}: {e}", self.dir.join(&entry.file).display()),
                    )
                })?;
        }
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn restore_from<'s, T: Scalar, B: YeeBackend<T>>(
        &self,
        entry: &RankEntry,
        saved: &[Box3],
        owned: &[Box3],
        backend: &B,
        setup: &Setup<'s>,
        costs: Costs,
        chunk: &mut B::Chunk<'s>,
    ) -> Result<(), String> {
        let (mut r, header) = open_rank(&self.dir.join(&entry.file), entry)?;
        let header_boxes = saved_boxes(header.lo, header.hi, header.boxes.as_deref());
        if header_boxes != saved || header.step != self.index.step {
            return Err("its header disagrees with checkpoint.json".into());
        }
        let axis = Axis::ALL[header.axis.min(2)];
        let all_planes = || saved.iter().flat_map(|&b| planes(b, axis));
        let count = all_planes().count();
        if header.planes.len() != count {
            return Err(format!(
                "it lists {} planes where its box has {count}",
                header.planes.len()
            ));
        }
        let most = header.planes.iter().copied().max().unwrap_or(0) as usize;
        let backend_error = |e: &dyn std::fmt::Debug| format!("the backend failed: {e:?}");
        let mut buffer = chunk.buffer(most).map_err(|e| backend_error(&e))?;
        let mut part = chunk.buffer(most).map_err(|e| backend_error(&e))?;
        for (plane, &bytes) in all_planes().zip(&header.planes) {
            let bytes = bytes as usize;
            let data = &mut buffer.bytes_mut()[..bytes];
            r.read_exact(data)
                .map_err(|e| format!("cannot read: {e}"))?;
            // A plane of one owned box goes straight in.
            if owned.iter().any(|o| o.contains_box(&plane)) {
                check_len(chunk, plane, bytes)?;
                chunk
                    .unpack_slabs(&[plane], &buffer)
                    .and_then(|()| chunk.wait())
                    .map_err(|e| backend_error(&e))?;
                continue;
            }
            // A plane this rank owns part of, or none: unpack it whole into a chunk of the
            // plane, then copy each owned part across.
            let mut whole = None;
            for inside in owned.iter().map(|o| plane.intersect(o)) {
                if inside.cells() == 0 {
                    continue;
                }
                let whole = match &mut whole {
                    Some(w) => w,
                    None => {
                        let mut w = backend
                            .build(setup, plane, costs)
                            .map_err(|e| backend_error(&e))?;
                        check_len(&w, plane, bytes)?;
                        w.unpack_slabs(&[plane], &buffer)
                            .and_then(|()| w.wait())
                            .map_err(|e| backend_error(&e))?;
                        whole.insert(w)
                    }
                };
                let n = whole.slab_len(inside) * std::mem::size_of::<T>();
                if part.bytes().len() < n {
                    part = chunk.buffer(n).map_err(|e| backend_error(&e))?;
                }
                whole
                    .pack_slabs(&[inside], &mut part)
                    .and_then(|()| whole.wait())
                    .and_then(|()| chunk.unpack_slabs(&[inside], &part))
                    .and_then(|()| chunk.wait())
                    .map_err(|e| backend_error(&e))?;
            }
        }
        finish_read(r, entry)
    }

    /// Every probe sample the checkpoint holds, per probe index (`probes` of them), read from
    /// every rank file: what the writing rank of the resumed run starts its series with.
    pub fn probe_samples<T: Scalar>(
        &self,
        probes: usize,
    ) -> Result<Vec<Vec<(u64, T)>>, RuntimeError> {
        let mut out = vec![Vec::new(); probes];
        for entry in &self.index.ranks {
            let path = self.dir.join(&entry.file);
            let mut read =
                || -> Result<(), String> {
                    let (mut r, header) = open_rank(&path, entry)?;
                    let skip: u64 = header.planes.iter().sum();
                    std::io::copy(&mut (&mut r).take(skip), &mut std::io::sink())
                        .map_err(|e| format!("cannot read: {e}"))?;
                    for p in &header.probes {
                        let samples = out.get_mut(p.index).ok_or_else(|| {
                            format!("probe {} is not in the scene ({probes} probes)", p.index)
                        })?;
                        let mut steps = vec![0u8; 8 * p.count];
                        r.read_exact(&mut steps)
                            .map_err(|e| format!("cannot read: {e}"))?;
                        let mut values = vec![T::zero(); p.count];
                        r.read_exact(bytemuck::cast_slice_mut(&mut values))
                            .map_err(|e| format!("cannot read: {e}"))?;
                        samples.extend(steps.chunks(8).zip(values).map(|(s, v)| {
                            (u64::from_le_bytes(s.try_into().expect("eight bytes")), v)
                        }));
                    }
                    finish_read(r, entry)
                };
            read().map_err(|e| {
                RuntimeError::new(
                    RuntimeErrorKind::Checkpoint,
                    format!("{}: {e}", path.display()),
                )
            })?;
        }
        Ok(out)
    }
}

/// A chunk must expect exactly the bytes saved for `region`: else the file was written by a
/// build that packs differently.
fn check_len<C: Chunk>(chunk: &C, region: Box3, bytes: usize) -> Result<(), String> {
    let expected = chunk.slab_len(region) * std::mem::size_of::<C::Value>();
    if expected == bytes {
        Ok(())
    } else {
        Err(format!(
            "a plane holds {bytes} bytes where this build packs {expected} (a checkpoint of \
             another build or backend layout)"
        ))
    }
}

/// A rank file read through a CRC-32.
struct Checked {
    inner: BufReader<File>,
    crc: crc32fast::Hasher,
    bytes: u64,
}

impl Read for Checked {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.crc.update(&buf[..n]);
        self.bytes += n as u64;
        Ok(n)
    }
}

fn open_rank(path: &Path, entry: &RankEntry) -> Result<(Checked, RankHeader), String> {
    let file = File::open(path).map_err(|e| format!("cannot open: {e}"))?;
    let size = file.metadata().map(|m| m.len()).unwrap_or(0);
    if size != entry.bytes {
        return Err(format!(
            "it is {size} bytes; checkpoint.json says {} (a damaged or partial file)",
            entry.bytes
        ));
    }
    let mut r = Checked {
        inner: BufReader::with_capacity(1 << 20, file),
        crc: crc32fast::Hasher::new(),
        bytes: 0,
    };
    let mut magic = [0u8; 8];
    let mut len = [0u8; 8];
    r.read_exact(&mut magic)
        .and_then(|()| r.read_exact(&mut len))
        .map_err(|e| format!("cannot read its header: {e}"))?;
    if &magic != MAGIC {
        return Err("it is not a yee checkpoint rank file".into());
    }
    let len = u64::from_le_bytes(len);
    if len > 1 << 30 {
        return Err(format!("its header claims {len} bytes"));
    }
    let mut header = vec![0u8; len as usize];
    r.read_exact(&mut header)
        .map_err(|e| format!("cannot read its header: {e}"))?;
    let header: RankHeader =
        serde_json::from_slice(&header).map_err(|e| format!("its header is malformed: {e}"))?;
    Ok((r, header))
}

/// Reads what is left of a rank file and checks its CRC-32.
fn finish_read(mut r: Checked, entry: &RankEntry) -> Result<(), String> {
    std::io::copy(&mut r, &mut std::io::sink()).map_err(|e| format!("cannot read: {e}"))?;
    let crc = r.crc.finalize();
    if crc != entry.crc32 {
        return Err(format!(
            "its CRC-32 is {crc:08x}; checkpoint.json says {:08x} (the file is damaged)",
            entry.crc32
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_version_1_rank_entry_and_header_hold_their_one_box() {
        // Written before tile sets: no `boxes`, the box is `lo`..`hi`.
        let entry: RankEntry = serde_json::from_str(
            r#"{"rank": 1, "file": "rank-00001.bin", "lo": [0, 4, 0], "hi": [8, 8, 2],
                "bytes": 100, "crc32": 7}"#,
        )
        .unwrap();
        assert_eq!(entry.boxes(), [Box3::new([0, 4, 0], [8, 8, 2])]);
        let header: RankHeader = serde_json::from_str(
            r#"{"rank": 1, "lo": [0, 4, 0], "hi": [8, 8, 2], "step": 5, "axis": 2,
                "planes": [10, 10], "probes": []}"#,
        )
        .unwrap();
        let boxes = saved_boxes(header.lo, header.hi, header.boxes.as_deref());
        assert_eq!(boxes, entry.boxes());
        // Version 2 lists the tiles; `lo`..`hi` is only their bounding box.
        let tiles = [
            Box3::new([0, 0, 0], [2, 2, 1]),
            Box3::new([4, 2, 0], [6, 4, 1]),
        ];
        let (saved, bound) = boxes_json(&tiles);
        assert_eq!(bound, Box3::new([0, 0, 0], [6, 4, 1]));
        assert_eq!(saved_boxes(bound.lo, bound.hi, Some(&saved)), tiles);
    }
}
