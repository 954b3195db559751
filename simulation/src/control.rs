//! Between a [`crate::Simulation`] and its run on another thread: where the run pauses next,
//! what is read from the whole fields while it waits, and how it ends early.
//!
//! The run pauses inside an output step ([`Control::wants`] makes the pause step one): the
//! ranks have handed in their pieces and wait, and the whole fields are at hand, so reading
//! them needs no second gather and every rank is at the same step.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, Sender};

use yee_core::{Box3, Scalar};
use yee_em::Component;
use yee_runtime::checkpoint::StopFlag;
use yee_runtime::piece::Assembled;

use crate::values::{Erase, FieldsAt, Values, cut, region_error};

/// No pause asked for.
const NONE: u64 = u64::MAX;

/// What the controller asks of a paused run.
#[derive(Clone, Copy, Debug)]
pub enum Request {
    /// The values of a component over a box.
    Read {
        /// The component.
        component: Component,
        /// The box, inside the grid.
        region: Box3,
    },
    /// Go on, and pause after step `Some(n)` (or run to the end).
    Go(Option<u64>),
}

/// What a run tells its controller.
#[derive(Debug)]
pub enum Event {
    /// It waits after this step.
    Paused(u64),
    /// The values a [`Request::Read`] asked for, or why they could not be read.
    Values(Result<Values, String>),
}

/// The run's side of the control: shared by its ranks' threads.
pub struct Control {
    pause_at: AtomicU64,
    step: AtomicU64,
    requests: Mutex<Receiver<Request>>,
    events: Sender<Event>,
    kept: Mutex<Option<FieldsAt>>,
    /// Set to stop the run at the next step every rank agrees on (with a checkpoint).
    pub stop: StopFlag,
}

impl Control {
    /// A control pausing first after `pause_at`, taking requests from `requests` and telling
    /// `events`; `stop` ends the run early.
    pub fn new(
        pause_at: Option<u64>,
        requests: Receiver<Request>,
        events: Sender<Event>,
        stop: StopFlag,
    ) -> Self {
        Control {
            pause_at: AtomicU64::new(pause_at.unwrap_or(NONE)),
            step: AtomicU64::new(0),
            requests: Mutex::new(requests),
            events,
            kept: Mutex::new(None),
            stop,
        }
    }

    /// Whether the run pauses after `step` (every rank asks the same, between pauses).
    pub fn wants(&self, step: u64) -> bool {
        self.pause_at.load(Ordering::Acquire) == step
    }

    /// The last step reported.
    pub fn step(&self) -> u64 {
        self.step.load(Ordering::Acquire)
    }

    /// Step `step` has ended (rank 0's progress).
    pub fn update(&self, step: u64) {
        self.step.store(step, Ordering::Release);
    }

    /// Keeps `fields` (those of the last step) for reading after the run.
    pub fn keep(&self, fields: FieldsAt) {
        *self.kept.lock().unwrap_or_else(|p| p.into_inner()) = Some(fields);
    }

    /// The fields kept by [`Control::keep`], taken out.
    pub fn take_kept(&self) -> Option<FieldsAt> {
        self.kept.lock().unwrap_or_else(|p| p.into_inner()).take()
    }

    /// At the pause after `step`: tells the controller, answers its reads from `fields` until
    /// it says go on. A controller that has gone away lets the run go on to its end.
    pub fn pause<T: Scalar + Erase>(&self, step: u64, fields: &Assembled<T>) {
        if !self.wants(step) {
            return;
        }
        self.pause_at.store(NONE, Ordering::Release);
        if self.events.send(Event::Paused(step)).is_err() {
            return;
        }
        let requests = self.requests.lock().unwrap_or_else(|p| p.into_inner());
        while let Ok(request) = requests.recv() {
            match request {
                Request::Read { component, region } => {
                    let values = read(fields, component, region);
                    if self.events.send(Event::Values(values)).is_err() {
                        return;
                    }
                }
                Request::Go(next) => {
                    self.pause_at.store(next.unwrap_or(NONE), Ordering::Release);
                    return;
                }
            }
        }
    }
}

/// The values of `component` over `region` of the whole `fields`.
pub fn read<T: Scalar + Erase>(
    fields: &Assembled<T>,
    component: Component,
    region: Box3,
) -> Result<Values, String> {
    let whole = fields.fields[component.index()].as_deref().ok_or_else(|| {
        format!(
            "{} is not a component of {} runs",
            component.name(),
            fields.mode.name()
        )
    })?;
    if let Some(e) = region_error(fields.grid, region) {
        return Err(e);
    }
    Ok(T::erase(cut(whole, fields.grid, region)))
}
