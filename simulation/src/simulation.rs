//! [`Simulation`]: a scene to run to its end, or step by step — paused, its fields read, and
//! stopped and resumed — writing the outputs the scene asks for as `yee run` does.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};
use std::thread::JoinHandle;
use std::time::Duration;

use yee_core::Box3;
use yee_em::Component;
use yee_runtime::checkpoint::StopFlag;
use yee_runtime::parallel::CommKind;
use yee_scene::Scene;

use crate::control::{Control, Event, Request};
use crate::dispatch::run_scene;
use crate::error::AppError;
use crate::leg::Ended;
use crate::options::RunOptions;
use crate::probe_output::ProbeSeries;
use crate::report::RunReport;
use crate::values::{FieldsAt, Values, region_error};

/// How often a waiting [`Simulation`] calls its watcher.
const WATCH_EVERY: Duration = Duration::from_millis(50);

/// A scene and how to run it: on the backend, ranks and communicator of its [`RunOptions`],
/// writing into `options.out` what the scene asks for (slices, snapshots, probes, spectra,
/// `run.json`), byte for byte what `yee run` writes.
///
/// [`Simulation::run`] runs to the scene's last step on this thread (the way `yee run` does,
/// also as one rank of an MPI job). [`Simulation::run_until`] runs on a thread of its own and
/// pauses after a given step, where [`Simulation::field`] reads any component over any box;
/// its watcher is called while it waits and can stop the run, which then ends at a step every
/// rank agrees on with a checkpoint, and goes on from it at the next call.
///
/// ```
/// use yee_simulation::{RunOptions, Simulation};
/// use yee_em::Component;
///
/// let text = r#"
///     name = "doc_pulse"
///     [grid]
///     mode = "1d"
///     size = [200]
///     [boundaries]
///     all = "cpml"
///     [[sources]]
///     component = "ez"
///     position = [60]
///     waveform = "gaussian"
///     frequency = 0.05
///     width = 10
///     delay = 40
///     [[probes]]
///     name = "east"
///     component = "ez"
///     position = [140]
///     [run]
///     steps = 120
/// "#;
/// let scene = yee_scene::parse(std::path::Path::new("doc_slab.toml"), text)?;
/// let out = std::env::temp_dir().join("yee-simulation-doc");
/// let mut sim = Simulation::new(scene, RunOptions::new(out))?;
/// sim.run_until(Some(50), &mut |_step| false)?;
/// assert_eq!(sim.step(), 50);
/// let ez = sim.field(Component::Ez, None)?;
/// assert_eq!(ez.len(), 200);
/// sim.run()?;
/// assert_eq!(sim.report().unwrap().status, "complete");
/// assert_eq!(sim.probes()[0].times.len(), 120);
/// # Ok::<(), yee_simulation::AppError>(())
/// ```
pub struct Simulation {
    scene: Arc<Scene>,
    options: RunOptions,
    step: u64,
    state: State,
}

/// Where a [`Simulation`] stands.
enum State {
    /// Nothing runs: before the first step, or after a leg that ended.
    Idle(Option<Box<Ended>>),
    /// A leg on its own thread waits after `step`.
    Paused(Leg),
}

/// A leg running on its own thread.
struct Leg {
    control: Arc<Control>,
    requests: Sender<Request>,
    events: Receiver<Event>,
    thread: JoinHandle<Result<Option<Ended>, AppError>>,
}

/// Where [`Simulation::run_until`] left the run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// Paused after this step.
    Paused(u64),
    /// Ended (its last step, or where a stop left it), its report written.
    Ended(u64),
}

impl Simulation {
    /// A simulation of `scene` run as `options` say. Fails, naming what is wrong, when the
    /// scene's `minus` files cannot be read or it asks for an output this build lacks.
    pub fn new(mut scene: Scene, options: RunOptions) -> Result<Self, AppError> {
        crate::mode_sources::expand_mode_sources(&mut scene)?;
        crate::flux_output::check_minus_files(&scene)?;
        crate::modes_output::check_mode_monitors(&scene)?;
        crate::hdf5_output::check_built(&scene)?;
        let step = options.resume.as_ref().map_or(0, |l| l.index.step);
        Ok(Simulation {
            scene: Arc::new(scene),
            options,
            step,
            state: State::Idle(None),
        })
    }

    /// The scene.
    pub fn scene(&self) -> &Scene {
        &self.scene
    }

    /// The options.
    pub fn options(&self) -> &RunOptions {
        &self.options
    }

    /// Steps done.
    pub fn step(&self) -> u64 {
        self.step
    }

    /// Whether the run has ended: reached the scene's last step, or the step where its
    /// `until_decayed` rule found the fields decayed.
    pub fn finished(&self) -> bool {
        self.step >= self.scene.steps || self.decayed()
    }

    /// Whether the scene's `until_decayed` rule ended the run.
    pub fn decayed(&self) -> bool {
        self.report()
            .and_then(|r| r.until_decayed.as_ref())
            .is_some_and(|d| d.decayed)
    }

    /// Runs to the scene's last step and writes what comes after it (probes, spectra,
    /// `run.json`); returns the report. A run that has not started runs on this thread (as
    /// every rank of an MPI job does); a paused one goes on on its own.
    pub fn run(&mut self) -> Result<(), AppError> {
        if matches!(self.state, State::Idle(_)) {
            self.prepare_leg()?;
            let ended = run_scene(&self.scene, &self.options, None)?;
            self.end(ended)
        } else {
            self.run_until(None, &mut |_| false).map(|_| ())
        }
    }

    /// Runs on its own thread until after step `until` (`None`: the scene's last step), calling
    /// `watch(step)` before it goes on and about every 50 ms while it waits; `watch` returning true stops the run at
    /// a step every rank agrees on, with a checkpoint, which the next call resumes from. A
    /// stopped run returns [`AppError::Interrupted`].
    pub fn run_until(
        &mut self,
        until: Option<u64>,
        watch: &mut dyn FnMut(u64) -> bool,
    ) -> Result<Status, AppError> {
        if self.options.comm == CommKind::Mpi {
            return Err(AppError::Usage(
                "an MPI run is not paused: each process runs it to its end with run()".into(),
            ));
        }
        let steps = self.scene.steps;
        let until = until.filter(|&u| u < steps);
        if let Some(u) = until.filter(|&u| u <= self.step) {
            return Err(AppError::Usage(format!(
                "cannot run until step {u}: the run is after step {}",
                self.step
            )));
        }
        // `watch` is asked once before the run goes on, so a stop it already wants (a signal
        // that came while paused) takes effect at the first step every rank agrees on.
        let stop_now = watch(self.step);
        let leg = match std::mem::replace(&mut self.state, State::Idle(None)) {
            State::Paused(leg) => {
                if stop_now {
                    leg.control.stop.store(true, Ordering::Relaxed);
                }
                let _ = leg.requests.send(Request::Go(until));
                leg
            }
            State::Idle(ended) => {
                self.state = State::Idle(ended);
                self.prepare_leg()?;
                self.state = State::Idle(None);
                let leg = self.start_leg(until);
                if stop_now {
                    leg.control.stop.store(true, Ordering::Relaxed);
                }
                leg
            }
        };
        self.wait(leg, watch)
    }

    /// The values of `component` over `region` (the whole grid when `None`), x fastest, where
    /// the run is paused or where it ended.
    pub fn field(&self, component: Component, region: Option<Box3>) -> Result<Values, AppError> {
        let region = region.unwrap_or_else(|| Box3::from_extent(self.scene.grid));
        match &self.state {
            State::Paused(leg) => {
                let request = Request::Read { component, region };
                let sent = leg.requests.send(request).is_ok();
                match leg.events.recv() {
                    Ok(Event::Values(v)) if sent => v.map_err(AppError::Usage),
                    _ => Err(AppError::Run("the run stopped while being read".into())),
                }
            }
            State::Idle(Some(ended)) => match &ended.fields {
                Some(fields) => read_kept(fields, component, region),
                None => Err(AppError::Usage(format!(
                    "the fields after step {} were not kept: run() keeps only the outputs \
                     the scene asks for, and a stop on a tiled layout none; run_until keeps \
                     them where it pauses or ends",
                    self.step
                ))),
            },
            State::Idle(None) => Err(AppError::Usage(
                "the run has not started: run it (or run_until a step) first".into(),
            )),
        }
    }

    /// The report of the leg that ended last (`None` before the end, and on the processes
    /// of an MPI job that do not write).
    pub fn report(&self) -> Option<&RunReport> {
        match &self.state {
            State::Idle(Some(ended)) => Some(&ended.report),
            _ => None,
        }
    }

    /// The report of the leg that ended last, taken out.
    pub fn into_report(mut self) -> Option<RunReport> {
        match std::mem::replace(&mut self.state, State::Idle(None)) {
            State::Idle(Some(ended)) => Some(ended.report),
            other => {
                self.state = other;
                None
            }
        }
    }

    /// Each probe's series up to where the last leg ended (empty before the end).
    pub fn probes(&self) -> &[ProbeSeries] {
        match &self.state {
            State::Idle(Some(ended)) => &ended.probes,
            _ => &[],
        }
    }

    /// Where the run keeps its checkpoints.
    pub fn checkpoint_dir(&self) -> PathBuf {
        self.options.checkpoint_dir()
    }

    /// Before a leg starts: a run that ended at its last step does not run again, and one
    /// that was stopped goes on from its newest checkpoint.
    fn prepare_leg(&mut self) -> Result<(), AppError> {
        if self.decayed() {
            return Err(AppError::Usage(format!(
                "the run has ended: its fields decayed by step {} (until_decayed)",
                self.step
            )));
        }
        if self.finished() {
            return Err(AppError::Usage(format!(
                "the run has ended: it is after step {}, the scene's last",
                self.step
            )));
        }
        if let State::Idle(Some(_)) = self.state {
            let dir = self.checkpoint_dir();
            let loaded = yee_runtime::checkpoint::find(&dir)?.ok_or_else(|| {
                AppError::Usage(format!(
                    "the run stopped after step {} without a checkpoint in {}: it cannot go on",
                    self.step,
                    dir.display()
                ))
            })?;
            self.step = loaded.index.step;
            self.options.resume = Some(loaded);
            self.options.fresh = false;
        }
        Ok(())
    }

    /// Starts a leg on its own thread, pausing after `until`.
    fn start_leg(&self, until: Option<u64>) -> Leg {
        let (requests, take) = channel();
        let (tell, events) = channel();
        let control = Arc::new(Control::new(until, take, tell, StopFlag::default()));
        let (scene, options, c) = (self.scene.clone(), self.options.clone(), control.clone());
        let thread = std::thread::spawn(move || run_scene(&scene, &options, Some(&c)));
        Leg {
            control,
            requests,
            events,
            thread,
        }
    }

    /// Waits for `leg` to pause or end, calling `watch` meanwhile.
    fn wait(&mut self, leg: Leg, watch: &mut dyn FnMut(u64) -> bool) -> Result<Status, AppError> {
        loop {
            match leg.events.recv_timeout(WATCH_EVERY) {
                Ok(Event::Paused(step)) => {
                    self.step = step;
                    self.state = State::Paused(leg);
                    return Ok(Status::Paused(step));
                }
                Ok(Event::Values(_)) => {}
                Err(RecvTimeoutError::Timeout) if !leg.thread.is_finished() => {
                    if watch(leg.control.step()) {
                        leg.control.stop.store(true, Ordering::Relaxed);
                    }
                }
                Err(_) => {
                    let ended = leg.thread.join().map_err(|_| {
                        AppError::Run("the run's thread panicked (a bug: please report it)".into())
                    })??;
                    self.end(ended)?;
                    return Ok(Status::Ended(self.step));
                }
            }
        }
    }

    /// Keeps what a leg left, and returns the error it ended with.
    fn end(&mut self, ended: Option<Ended>) -> Result<(), AppError> {
        let Some(mut ended) = ended else {
            self.step = self.scene.steps;
            return Ok(());
        };
        self.step = ended.report.steps_completed;
        let error = ended.error.take();
        self.state = State::Idle(Some(Box::new(ended)));
        error.map_or(Ok(()), Err)
    }
}

impl Drop for Simulation {
    /// A paused run is stopped (at a step every rank agrees on, with a checkpoint and its
    /// report), not left waiting.
    fn drop(&mut self) {
        if let State::Paused(leg) = std::mem::replace(&mut self.state, State::Idle(None)) {
            leg.control.stop.store(true, Ordering::Relaxed);
            let _ = leg.requests.send(Request::Go(None));
            drop(leg.requests);
            let _ = leg.thread.join();
        }
    }
}

/// `component` over `region` of fields a run kept.
fn read_kept(fields: &FieldsAt, component: Component, region: Box3) -> Result<Values, AppError> {
    let whole = fields.components[component.index()]
        .as_ref()
        .ok_or_else(|| {
            AppError::Usage(format!(
                "{} is not a component of this run",
                component.name()
            ))
        })?;
    match region_error(fields.grid, region) {
        Some(e) => Err(AppError::Usage(e)),
        None => Ok(whole.cut(fields.grid, region)),
    }
}
