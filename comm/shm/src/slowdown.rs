//! Artificial slowness of one rank: real, measurable heterogeneity for testing the balancer on
//! communicators with real clocks (shared memory, MPI).

use std::time::Duration;

/// How much one rank sleeps for its work.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Slowdown {
    /// Seconds slept per cell of work.
    pub per_cell: f64,
    /// Seconds slept once per step, with its first computation.
    pub per_step: f64,
    /// Steps (counted from 0) during which the slowdown applies: `from_step..to_step`.
    pub from_step: u64,
    /// See `from_step`.
    pub to_step: u64,
}

impl Default for Slowdown {
    fn default() -> Self {
        Slowdown {
            per_cell: 0.0,
            per_step: 0.0,
            from_step: 0,
            to_step: u64::MAX,
        }
    }
}

/// A [`Slowdown`] applied as a rank works: the state behind `Comm::compute_done` and
/// `Comm::step_done` of a slowed communicator.
#[derive(Clone, Copy, Debug)]
pub struct Sleeper {
    slowdown: Slowdown,
    delay_due: bool,
    steps: u64,
}

impl Sleeper {
    /// Sleeps as `slowdown` says.
    pub fn new(slowdown: Slowdown) -> Self {
        Sleeper {
            slowdown,
            delay_due: true,
            steps: 0,
        }
    }

    /// `cells` cell updates were done: sleep for them (and for the step, the first time in it).
    pub fn compute_done(&mut self, cells: f64) {
        if !(self.slowdown.from_step..self.slowdown.to_step).contains(&self.steps) {
            return;
        }
        let mut sleep = cells * self.slowdown.per_cell;
        if self.delay_due {
            sleep += self.slowdown.per_step;
            self.delay_due = false;
        }
        if sleep > 0.0 {
            std::thread::sleep(Duration::from_secs_f64(sleep));
        }
    }

    /// A step ended.
    pub fn step_done(&mut self) {
        self.delay_due = true;
        self.steps += 1;
    }
}
