//! The outputs a scene asks for while it steps — slices, snapshots (with the geometry once and
//! HDF5) — as a plan the run drives: which steps want the whole fields, and what is written
//! from them. A file that cannot be written is kept as a failure and the run goes on.

use std::path::Path;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use yee_core::Scalar;
use yee_runtime::checkpoint::Loaded;
use yee_runtime::piece::Assembled;
use yee_scene::{GeometryOutput, Scene};

use crate::error::AppError;
use crate::failures::Failures;
use crate::hdf5_output::Hdf5Output;
use crate::slices::{Outlines, slice_index, write_slice};
use crate::snapshots::{write_geometry, write_snapshot};

/// What a run writes at its output steps, and what it has written so far.
pub struct OutputPlan<'a> {
    scene: &'a Scene,
    out: &'a Path,
    /// The geometry the snapshots carry: once as `.npy`, in every `.vti`.
    geometry: Vec<(GeometryOutput, Vec<f64>)>,
    /// `fields.h5`, when the scene asks for HDF5.
    hdf5: Option<Hdf5Output>,
    /// Each slice's material outlines and mask, drawn over every frame.
    outlines: Vec<Option<Outlines>>,
    written: Mutex<Vec<String>>,
    failure: Mutex<Failures>,
    writing: Mutex<Writing>,
}

/// Wall time spent writing: in all, and at the last step written.
#[derive(Clone, Copy, Debug, Default)]
struct Writing {
    total: Duration,
    last: (u64, Duration),
}

/// What an [`OutputPlan`] leaves when the run has ended.
pub struct Written {
    /// The files written, in order (a resumed run's earlier ones first).
    pub files: Vec<String>,
    /// The files that could not be written.
    pub failures: Failures,
    /// Wall time spent writing.
    pub seconds: f64,
    /// The step written last, and the wall time spent writing at it.
    pub last: (u64, f64),
    /// `fields.h5`, still open for the probes and spectra.
    pub hdf5: Option<Hdf5Output>,
}

impl<'a> OutputPlan<'a> {
    /// The plan of `scene` writing into `out`; `writer` is false on the processes of an MPI
    /// job that do not write (their plan writes nothing). A run resuming from `resume` goes on
    /// from the files the checkpoint's run had written (those still in `out`) and writes the
    /// geometry `.npy` files only once.
    pub fn new(
        scene: &'a Scene,
        out: &'a Path,
        resume: Option<&Loaded>,
        writer: bool,
    ) -> Result<Self, AppError> {
        let mut earlier: Vec<String> = resume
            .and_then(|l| l.index.app["outputs"].as_array().cloned())
            .unwrap_or_default()
            .iter()
            .filter_map(|f| f.as_str().map(str::to_string))
            .filter(|f| out.join(f).is_file())
            .collect();
        let geometry = match (&scene.snapshots, writer) {
            (Some(s), true) => write_geometry(scene, s, out, resume.is_none())?,
            _ => Vec::new(),
        };
        let npy = scene.snapshots.as_ref().is_some_and(|s| s.npy);
        for (q, _) in geometry.iter().filter(|_| npy && resume.is_none()) {
            earlier.push(format!("{}.npy", q.name()));
        }
        // `fields.h5` is listed once, whatever number of snapshots it holds.
        let hdf5 = match writer {
            true => Hdf5Output::start(scene, out, resume.map(|l| l.index.step))?,
            false => None,
        };
        if hdf5.is_some() && !earlier.iter().any(|f| f == crate::hdf5_output::FILE) {
            earlier.push(crate::hdf5_output::FILE.into());
        }
        // The geometry does not change: the outlines are worked out once.
        let outlines = match writer {
            true => (scene.slices.iter())
                .map(|s| {
                    let (_, cells) =
                        crate::plane_plot::plane_cells(scene, s.axis, slice_index(scene, s));
                    s.outlines
                        .then(|| crate::plane_plot::outlines(scene, &cells))
                        .flatten()
                })
                .collect(),
            false => Vec::new(),
        };
        Ok(OutputPlan {
            scene,
            out,
            geometry,
            hdf5,
            outlines,
            written: Mutex::new(earlier),
            failure: Mutex::new(Failures::default()),
            writing: Mutex::new(Writing::default()),
        })
    }

    fn slice_due(&self, slice: &yee_scene::Slice, step: u64) -> bool {
        step % slice.every == 0 || step == self.scene.steps
    }

    fn snapshot_due(&self, step: u64) -> bool {
        (self.scene.snapshots.as_ref())
            .is_some_and(|s| (s.every > 0 && step % s.every == 0) || step == self.scene.steps)
    }

    /// Whether anything is written after step `step` (the run then gathers the whole fields).
    pub fn wants(&self, step: u64) -> bool {
        self.scene.slices.iter().any(|s| self.slice_due(s, step)) || self.snapshot_due(step)
    }

    /// Writes what is due after step `step` from the whole `fields`.
    pub fn write<T: Scalar>(&self, step: u64, fields: &Assembled<T>) {
        let t = Instant::now();
        let (scene, out) = (self.scene, self.out);
        let mut files = Vec::new();
        let mut failed = Failures::default();
        for (slice, outlines) in scene.slices.iter().zip(&self.outlines) {
            if self.slice_due(slice, step) {
                let file = write_slice(fields, scene, slice, outlines, step, out);
                files.extend(failed.keep(file));
            }
        }
        if let Some(s) = scene.snapshots.as_ref().filter(|_| self.snapshot_due(step)) {
            let hdf5 = self.hdf5.as_ref();
            let snapshot = write_snapshot(fields, scene, s, &self.geometry, step, out, hdf5);
            files.extend(failed.keep(snapshot).into_iter().flatten());
        }
        lock(&self.written).extend(files);
        lock(&self.failure).extend(failed);
        let spent = t.elapsed();
        let mut writing = lock(&self.writing);
        writing.total += spent;
        writing.last = (step, spent);
    }

    /// The files written so far.
    pub fn files(&self) -> Vec<String> {
        lock(&self.written).clone()
    }

    /// The files written, the failures and the time spent: the run has ended.
    pub fn finish(self) -> Written {
        let writing = into_inner(self.writing);
        Written {
            files: into_inner(self.written),
            failures: into_inner(self.failure),
            seconds: writing.total.as_secs_f64(),
            last: (writing.last.0, writing.last.1.as_secs_f64()),
            hdf5: self.hdf5,
        }
    }
}

/// The value behind `m`, also after a writer panicked holding it.
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// The value `m` held, also after a writer panicked holding it.
fn into_inner<T>(m: Mutex<T>) -> T {
    m.into_inner().unwrap_or_else(|p| p.into_inner())
}
