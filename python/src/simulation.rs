//! `yee.Simulation`: a scene run from Python — to its end or step by step, with callbacks,
//! its fields and spectra as numpy arrays, the GIL released while it steps, and Ctrl-C
//! stopping it with `KeyboardInterrupt` at a step every rank agrees on.

use std::io::Write;
use std::path::PathBuf;
use std::sync::{Mutex, MutexGuard};
use std::time::Instant;

use pyo3::exceptions::{PyKeyError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use yee_core::Box3;
use yee_em::Component;
use yee_runtime::parallel::CommKind;
use yee_simulation::CacheRequest;
use yee_simulation::options::auto_topology;
use yee_simulation::{AppError, Backend, RunOptions, Simulation, Status};

use crate::arrays::{array, vector};
use crate::errors::to_py;
use crate::scene::PyScene;

/// A scene's simulation: `run()` to the end, `run(steps=n)` or `run(until=t)` to pause,
/// `field("ez")` to read a component as a numpy array `a[x, y, z]`, `probe(name)`,
/// `fluxes()` and `report` after the end. It writes what the scene asks for (slices,
/// snapshots, probe CSVs, spectra, `run.json`) into `out`, as `yee run` does.
///
/// Ctrl-C while it runs stops it at a step every rank agrees on, writes a checkpoint and
/// raises `KeyboardInterrupt`; the fields can still be read, and `run()` goes on from there.
#[pyclass(name = "Simulation", module = "yee")]
pub struct PySimulation {
    inner: Mutex<Simulation>,
}

#[pymethods]
impl PySimulation {
    /// A simulation of `scene` writing into `out` (default `out/<scene name>`) on `backend`
    /// ("rayon", the default, or "scalar": the same bits), over `ranks` ranks on the `comm`
    /// communicator ("shm": threads; "sim": threads with virtual clocks), keeping a
    /// checkpoint every `checkpoint_every` steps if given. `fresh` starts over in a folder
    /// holding an interrupted run's checkpoint (deleting it). `time_block` is `yee run
    /// --time-block`: "off" (the default), "auto" or a number of steps per wavefront tile on
    /// the rayon backend, the same bits; `cache_bytes` (bytes, a string such as "16M", or
    /// "measure") the last-level cache "auto" sizes its tiles for, as `--cache-bytes`.
    #[new]
    #[pyo3(signature = (scene, out = None, backend = None, ranks = 1, comm = "shm", checkpoint_every = None, fresh = false, time_block = None, cache_bytes = None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        scene: &PyScene,
        out: Option<PathBuf>,
        backend: Option<&str>,
        ranks: usize,
        comm: &str,
        checkpoint_every: Option<u64>,
        fresh: bool,
        time_block: Option<&Bound<'_, PyAny>>,
        cache_bytes: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let scene = scene.scene.clone();
        let out = out.unwrap_or_else(|| PathBuf::from("out").join(&scene.name));
        let mut options = RunOptions::new(out);
        options.backend = match backend {
            None => Backend::default(),
            Some("scalar") => Backend::Scalar,
            Some("rayon") => Backend::Rayon,
            Some(other) => {
                return Err(PyValueError::new_err(format!(
                    "backend {other:?}: this package has \"rayon\" and \"scalar\""
                )));
            }
        };
        options.comm = match comm {
            "shm" => CommKind::Shm,
            "sim" => CommKind::Sim,
            other => {
                return Err(PyValueError::new_err(format!(
                    "comm {other:?}: this package has \"shm\" (threads) and \"sim\" (threads \
                     with virtual clocks)"
                )));
            }
        };
        options.topology = auto_topology(scene.grid, scene.mode.dims(), ranks).map_err(to_py)?;
        options.checkpoint.every_steps = checkpoint_every;
        options.fresh = fresh;
        if let Some(block) = time_block {
            options.time_block = time_block_of(block)?;
        }
        if let Some(request) = cache_bytes.map(cache_bytes_of).transpose()? {
            options.request_cache(request);
        }
        let inner = Simulation::new(scene, options).map_err(to_py)?;
        Ok(PySimulation {
            inner: Mutex::new(inner),
        })
    }

    /// Runs to the end, or `steps` more steps, or until the scene time `until`, then pauses
    /// (fields can be read) or ends (probes, spectra and the report are there). With
    /// `callback` and `every`, calls `callback(sim)` after every `every` steps. `progress`
    /// (default: when the run lasts over a second) shows the step and the rate on stderr.
    /// Returns True when the run has ended.
    #[pyo3(signature = (steps = None, until = None, every = None, callback = None, progress = None))]
    fn run(
        slf: &Bound<'_, Self>,
        steps: Option<u64>,
        until: Option<f64>,
        every: Option<u64>,
        callback: Option<PyObject>,
        progress: Option<bool>,
    ) -> PyResult<bool> {
        let py = slf.py();
        let this = slf.borrow();
        let (now, total, dt) = {
            let sim = this.lock();
            let scene = sim.scene();
            (
                sim.step(),
                scene.steps,
                scene.units.to_scene_time(scene.dt()),
            )
        };
        let end = match (steps, until) {
            (Some(_), Some(_)) => {
                return Err(PyValueError::new_err("give steps or until, not both"));
            }
            (Some(n), None) => now.saturating_add(n).min(total),
            (None, Some(t)) if t.is_finite() && t >= 0.0 => {
                (((t / dt) - 1e-9).ceil().max(0.0) as u64).min(total)
            }
            (None, Some(t)) => {
                return Err(PyValueError::new_err(format!(
                    "until = {t}: a time ≥ 0 in scene units"
                )));
            }
            (None, None) => total,
        };
        if every == Some(0) {
            return Err(PyValueError::new_err(
                "every = 0: give a number of steps ≥ 1",
            ));
        }
        if every.is_some() != callback.is_some() {
            return Err(PyValueError::new_err("give every and callback together"));
        }
        let mut shown = Progress::new(progress, now, end, this.lock().scene().cells());
        let mut at = now;
        while at < end {
            let next = every.map_or(end, |n| ((at / n + 1) * n).min(end));
            let mut stopped = None;
            let mut sim = this.lock();
            let sim_ref: &mut Simulation = &mut sim;
            let status = py.allow_threads(|| {
                sim_ref.run_until(Some(next), &mut |step| {
                    Python::with_gil(|py| {
                        shown.show(py, step);
                        match py.check_signals() {
                            Ok(()) => false,
                            Err(e) => {
                                stopped = Some(e);
                                true
                            }
                        }
                    })
                })
            });
            at = sim.step();
            drop(sim);
            shown.done(py, at);
            let ended = match status {
                Err(AppError::Interrupted(_)) => {
                    let e = stopped.unwrap_or_else(|| {
                        pyo3::exceptions::PyKeyboardInterrupt::new_err("the run was stopped")
                    });
                    return Err(interrupted(py, e, at, &this.lock().checkpoint_dir()));
                }
                Err(e) => return Err(to_py(e)),
                Ok(Status::Ended(_)) => true,
                Ok(Status::Paused(_)) => false,
            };
            if let (Some(f), Some(n)) = (&callback, every) {
                if at % n == 0 {
                    f.call1(py, (slf,))?;
                }
            }
            if ended {
                break;
            }
        }
        Ok(this.lock().finished())
    }

    /// The component `component` ("ex" … "hz") where the run is paused or ended, as a numpy
    /// array `a[x, y, z]` over the grid's used axes; `lo` and `hi` (cells, `hi` exclusive)
    /// cut a box out of it.
    #[pyo3(signature = (component, lo = None, hi = None))]
    fn field(
        &self,
        py: Python<'_>,
        component: &str,
        lo: Option<Vec<i64>>,
        hi: Option<Vec<i64>>,
    ) -> PyResult<PyObject> {
        let c = Component::from_name(component).ok_or_else(|| {
            PyValueError::new_err(format!(
                "component {component:?}: one of ex, ey, ez, hx, hy, hz"
            ))
        })?;
        let sim = self.lock();
        let grid = sim.scene().grid;
        let dims = sim.scene().mode.dims();
        let corner = |v: Option<Vec<i64>>, default: [i64; 3], name: &str| -> PyResult<[i64; 3]> {
            let Some(v) = v else { return Ok(default) };
            if v.len() != dims {
                return Err(PyValueError::new_err(format!(
                    "{name} = {v:?}: {dims} numbers (one per axis of this {dims}D scene)"
                )));
            }
            Ok(std::array::from_fn(|a| {
                v.get(a).copied().unwrap_or(default[a])
            }))
        };
        let all = grid.map(|n| n as i64);
        let region = Box3::new(corner(lo, [0; 3], "lo")?, corner(hi, all, "hi")?);
        let values = sim.field(c, Some(region)).map_err(to_py)?;
        let extent = region.extent();
        array(py, values, &extent[..dims])
    }

    /// The series of the probe `name`: `(times, values)`, times in scene units. After the
    /// end (or a stop) of the run.
    fn probe(&self, py: Python<'_>, name: &str) -> PyResult<(PyObject, PyObject)> {
        let sim = self.lock();
        let names = sim.scene().probe_names.clone();
        let series = sim
            .probes()
            .iter()
            .find(|p| p.name == name)
            .ok_or_else(|| match names.iter().any(|n| n == name) {
                true => PyValueError::new_err(format!(
                    "probe {name:?}: its series is there once the run has ended (or stopped)"
                )),
                false => {
                    PyKeyError::new_err(format!("probe {name:?}: the scene's probes are {names:?}"))
                }
            })?;
        let n = series.values.len();
        Ok((
            vector(py, series.times.clone()),
            array(py, series.values.clone(), &[n])?,
        ))
    }

    /// Each flux region's spectrum, after the end: `{name: {"frequencies", "flux",
    /// "cross_section"}}` of numpy arrays (`cross_section` None without a plane wave), with
    /// `"radiated_power"` for a closed box asking for its far field.
    fn fluxes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let sim = self.lock();
        let report = sim
            .report()
            .ok_or_else(|| PyValueError::new_err("the spectra are there once the run has ended"))?;
        let all = PyDict::new(py);
        for f in &report.fluxes {
            let d = PyDict::new(py);
            d.set_item("frequencies", vector(py, f.frequencies.clone()))?;
            d.set_item("flux", vector(py, f.flux.clone()))?;
            d.set_item(
                "cross_section",
                f.cross_section.clone().map(|c| vector(py, c)),
            )?;
            if let Some(far) = &f.far_field {
                d.set_item("radiated_power", vector(py, far.radiated_power.clone()))?;
            }
            all.set_item(&f.name, d)?;
        }
        Ok(all)
    }

    /// The `[[dft]]` output `name` after the end: the `.npy` the run wrote (complex128,
    /// components × frequencies × the box's cells, as docs/scene.md describes) read by numpy.
    fn dft(&self, py: Python<'_>, name: &str) -> PyResult<PyObject> {
        let sim = self.lock();
        let report = sim.report().ok_or_else(|| {
            PyValueError::new_err("the DFT outputs are there once the run has ended")
        })?;
        let dft = report.dfts.iter().find(|d| d.name == name).ok_or_else(|| {
            let names: Vec<&str> = report.dfts.iter().map(|d| d.name.as_str()).collect();
            PyKeyError::new_err(format!("dft {name:?}: the run's DFT outputs are {names:?}"))
        })?;
        let path = sim.options().out.join(&dft.file);
        Ok(py.import("numpy")?.call_method1("load", (path,))?.unbind())
    }

    /// The run's report (its `run.json`) as a dict, once it has ended; None before.
    #[getter]
    fn report(&self, py: Python<'_>) -> PyResult<PyObject> {
        let sim = self.lock();
        let Some(report) = sim.report() else {
            return Ok(py.None());
        };
        let text = serde_json::to_string(report).expect("the report serialises");
        Ok(py.import("json")?.call_method1("loads", (text,))?.unbind())
    }

    /// Steps done.
    #[getter]
    fn step(&self) -> u64 {
        self.lock().step()
    }

    /// The scene time after the steps done (scene units).
    #[getter]
    fn time(&self) -> f64 {
        let sim = self.lock();
        let scene = sim.scene();
        scene.units.to_scene_time(sim.step() as f64 * scene.dt())
    }

    /// Whether the run has reached the scene's last step.
    #[getter]
    fn finished(&self) -> bool {
        self.lock().finished()
    }

    /// The output folder.
    #[getter]
    fn out(&self) -> PathBuf {
        self.lock().options().out.clone()
    }

    /// Where the checkpoints are.
    #[getter]
    fn checkpoint_dir(&self) -> PathBuf {
        self.lock().checkpoint_dir()
    }

    fn __repr__(&self) -> String {
        let sim = self.lock();
        format!(
            "Simulation({:?}, step {} of {}, into {})",
            sim.scene().name,
            sim.step(),
            sim.scene().steps,
            sim.options().out.display()
        )
    }
}

impl PySimulation {
    fn lock(&self) -> MutexGuard<'_, Simulation> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// `e` (a KeyboardInterrupt) saying where the run stopped and how it goes on.
fn interrupted(py: Python<'_>, e: PyErr, step: u64, checkpoints: &std::path::Path) -> PyErr {
    let message = format!(
        "the run stopped after step {step} with a checkpoint in {}: its fields can be read, \
         and run() goes on from there",
        checkpoints.display()
    );
    let _ = e.value(py).setattr("args", (message,));
    e
}

/// The progress line on stderr: step, share and rate, shown when the run lasts over a second
/// (or always, or never).
struct Progress {
    shown: Option<bool>,
    started: Instant,
    last: Instant,
    first: u64,
    end: u64,
    cells: f64,
    drawn: bool,
}

impl Progress {
    fn new(shown: Option<bool>, first: u64, end: u64, cells: usize) -> Self {
        let now = Instant::now();
        Progress {
            shown,
            started: now,
            last: now,
            first,
            end,
            cells: cells as f64,
            drawn: false,
        }
    }

    /// After `step`: a line at most twice a second.
    fn show(&mut self, py: Python<'_>, step: u64) {
        let elapsed = self.started.elapsed().as_secs_f64();
        let due = match self.shown {
            Some(s) => s,
            None => elapsed > 1.0,
        };
        // The steps are done: what follows (spectra, files) is not stepping.
        if !due || step >= self.end || self.last.elapsed().as_secs_f64() < 0.5 {
            return;
        }
        self.last = Instant::now();
        self.drawn = true;
        let rate = self.cells * (step - self.first) as f64 / elapsed.max(1e-9) / 1e6;
        let share = 100.0 * step as f64 / self.end.max(1) as f64;
        let line = format!(
            "\ryee: step {step}/{} ({share:.0} %), {rate:.1} Mcells/s",
            self.end
        );
        write_stderr(py, &line);
    }

    /// The run paused or ended after `step`.
    fn done(&mut self, py: Python<'_>, step: u64) {
        if self.drawn && step >= self.end {
            let rate = self.cells * (step - self.first) as f64
                / self.started.elapsed().as_secs_f64().max(1e-9)
                / 1e6;
            write_stderr(
                py,
                &format!("\ryee: step {step}/{}, {rate:.1} Mcells/s\n", self.end),
            );
            self.drawn = false;
        }
    }
}

/// Writes `text` to Python's `sys.stderr` (a notebook shows it), else to the process's.
fn write_stderr(py: Python<'_>, text: &str) {
    let written = py
        .import("sys")
        .and_then(|sys| sys.getattr("stderr"))
        .and_then(|err| {
            err.call_method1("write", (text,))?;
            err.call_method0("flush")
        });
    if written.is_err() {
        let _ = std::io::stderr().write_all(text.as_bytes());
    }
}

/// `time_block`: "off", "auto" or a number of steps (at least 1; 1 is "off"), as a string or
/// an int.
fn time_block_of(value: &Bound<'_, PyAny>) -> PyResult<yee_simulation::TimeBlock> {
    let text = match value.extract::<u64>() {
        Ok(k) => k.to_string(),
        Err(_) => value.extract::<String>().map_err(|_| {
            PyValueError::new_err(format!(
                "time_block {value}: give \"off\", \"auto\" or a number of steps"
            ))
        })?,
    };
    yee_simulation::TimeBlock::parse(&text).map_err(|_| {
        PyValueError::new_err(format!(
            "time_block {text:?}: give \"off\", \"auto\" or a number of steps (at least 1)"
        ))
    })
}

/// `cache_bytes`: a number of bytes above 0, a string such as "16M" (K, M or G), or "measure".
fn cache_bytes_of(value: &Bound<'_, PyAny>) -> PyResult<CacheRequest> {
    let parsed = match value.extract::<u64>() {
        Ok(n) => usize::try_from(n)
            .ok()
            .filter(|&n| n > 0)
            .map(CacheRequest::Bytes),
        Err(_) => (value.extract::<String>().ok()).and_then(|t| CacheRequest::parse(&t)),
    };
    parsed.ok_or_else(|| {
        PyValueError::new_err(format!(
            "cache_bytes {value}: give a size above 0, in bytes or as a string with K, M or G (\"16M\"), or \"measure\""
        ))
    })
}
