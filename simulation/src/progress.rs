//! Progress of a run: an indicatif bar on a terminal, periodic log lines otherwise.

use std::io::IsTerminal;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Whether a run of this process has ended a step: until then it is setting up (reading its
/// inputs, allocating), and `yee run` exits at once on SIGINT or SIGTERM instead of waiting
/// for the first collective stop check.
pub static STEPPING: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

use yee_scene::Scene;

/// Progress: an indicatif bar on a terminal, periodic log lines otherwise.
pub struct Progress {
    bar: Option<indicatif::ProgressBar>,
    cells: f64,
    steps: u64,
    started: Instant,
    last_log: Mutex<Instant>,
    quiet: bool,
    /// When the reported steps ended ([`StepEnds`]).
    ends: Mutex<Option<StepEnds>>,
}

/// Reports of step ends within this of the first report are one batch: the steps of a
/// time-blocked tile all end together (`--time-block`), and so do very short steps.
const BATCH: Duration = Duration::from_millis(1);

/// When the reported steps ended: the first batch ([`BATCH`]) and the latest report.
#[derive(Clone, Copy, Debug)]
struct StepEnds {
    /// When the first report came, and its step.
    opened: (Instant, u64),
    /// The last report of the first batch.
    batch: (Instant, u64),
    /// The latest report.
    last: (Instant, u64),
}

impl StepEnds {
    /// Step `step` ended at `now`.
    fn record(ends: &mut Option<StepEnds>, now: Instant, step: u64) {
        let Some(e) = ends else {
            let at = (now, step);
            *ends = Some(StepEnds {
                opened: at,
                batch: at,
                last: at,
            });
            return;
        };
        let in_batch = e.last.1 == e.batch.1 && now.saturating_duration_since(e.opened.0) < BATCH;
        if in_batch {
            e.batch = (now, step);
        }
        e.last = (now, step);
    }

    /// When stepping began: the end of the first batch less the mean duration of the later
    /// steps for each step of the batch. With no later step (every step ended in one batch:
    /// one tile), `None`: set-up and stepping cannot be told apart.
    fn began(&self) -> Option<Instant> {
        let ((t1, s1), (t2, s2)) = (self.batch, self.last);
        if s2 <= s1 {
            return None;
        }
        let mean = t2.duration_since(t1).as_secs_f64() / (s2 - s1) as f64;
        let steps = (s1 + 1).saturating_sub(self.opened.1).max(1);
        let batch = Duration::from_secs_f64(mean * steps as f64);
        Some(t1.checked_sub(batch).unwrap_or(t1))
    }
}

impl Progress {
    /// Progress of `scene`'s run; nothing shown when `quiet`.
    pub fn new(scene: &Scene, quiet: bool) -> Self {
        let bar = (!quiet && std::io::stderr().is_terminal()).then(|| {
            let bar = indicatif::ProgressBar::new(scene.steps);
            let style = indicatif::ProgressStyle::with_template(
                "{bar:40.cyan/blue} {pos}/{len} steps  {msg}  ETA {eta}",
            )
            .expect("the template is valid");
            bar.set_style(style);
            bar
        });
        let now = Instant::now();
        Progress {
            bar,
            cells: scene.cells() as f64,
            steps: scene.steps,
            started: now,
            last_log: Mutex::new(now),
            quiet,
            ends: Mutex::new(None),
        }
    }

    /// When stepping began: the end of the first batch of steps (one step, or a
    /// time-blocked tile's steps, which end together) less the mean duration of the later
    /// steps for each of its steps. Where every step ended in one batch, when this progress
    /// began: set-up and stepping cannot be told apart, and all of it counts as stepping.
    /// `None` before any step.
    pub fn stepping_began(&self) -> Option<Instant> {
        let ends = *self.ends.lock().unwrap_or_else(|p| p.into_inner());
        Some(ends?.began().unwrap_or(self.started))
    }

    /// When the latest reported step ended, and which step it was. `None` before any step.
    pub fn last_step_end(&self) -> Option<(Instant, u64)> {
        let ends = *self.ends.lock().unwrap_or_else(|p| p.into_inner());
        ends.map(|e| e.last)
    }

    /// Step `step` has ended.
    pub fn update(&self, step: u64) {
        STEPPING.store(true, std::sync::atomic::Ordering::SeqCst);
        {
            let now = Instant::now();
            let mut ends = self.ends.lock().unwrap_or_else(|p| p.into_inner());
            StepEnds::record(&mut ends, now, step);
        }
        let elapsed = self.started.elapsed().as_secs_f64().max(1e-9);
        let rate = self.cells * step as f64 / elapsed;
        if let Some(bar) = &self.bar {
            bar.set_position(step);
            if step % 16 == 0 || step == self.steps {
                bar.set_message(format!("{:.1} Mcells/s", rate / 1e6));
            }
        } else if !self.quiet
            && self
                .last_log
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .elapsed()
                >= Duration::from_secs(5)
        {
            *self.last_log.lock().unwrap_or_else(|p| p.into_inner()) = Instant::now();
            let eta = elapsed / step as f64 * (self.steps - step) as f64;
            log::info!(
                "step {step}/{} ({:.0} %), {:.1} Mcells/s, ETA {eta:.0} s",
                self.steps,
                100.0 * step as f64 / self.steps as f64,
                rate / 1e6
            );
        }
    }

    /// Clears the bar.
    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `began` from step ends at `ends` (milliseconds after a start, step).
    fn began(ends: &[(u64, u64)]) -> Option<f64> {
        let start = Instant::now();
        let mut e = None;
        for &(ms, step) in ends {
            StepEnds::record(&mut e, start + Duration::from_millis(ms), step);
        }
        let began = e.expect("a step").began()?;
        Some(began.duration_since(start).as_secs_f64() * 1e3)
    }

    #[test]
    fn stepping_began_one_mean_step_before_the_first_end_or_a_tile_of_them() {
        // One step at a time, 10 ms each after 100 ms of set-up.
        let one = began(&[(110, 1), (120, 2), (130, 3), (140, 4)]).unwrap();
        assert!((one - 100.0).abs() < 1e-6, "{one}");
        // Tiles of four steps, 40 ms each: each tile's steps end together.
        let tiles: Vec<(u64, u64)> = (1..=12u64).map(|s| (100 + 40 * s.div_ceil(4), s)).collect();
        let tiled = began(&tiles).unwrap();
        assert!((tiled - 100.0).abs() < 1e-6, "{tiled}");
        // One tile in all: no later step to time a step by.
        assert_eq!(began(&[(140, 1), (140, 2), (140, 3), (140, 4)]), None);
    }
}
