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
    /// When the first and the latest reported steps ended, and which steps they were.
    ends: Mutex<Option<[(Instant, u64); 2]>>,
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

    /// When stepping began: the end of the first step less the mean duration of the later
    /// ones (none later: the end of the first step). `None` before any step.
    pub fn stepping_began(&self) -> Option<Instant> {
        let ends = *self.ends.lock().unwrap_or_else(|p| p.into_inner());
        let [(first, s1), (last, s2)] = ends?;
        let mean = match s2 - s1 {
            0 => Duration::ZERO,
            n => Duration::from_secs_f64(last.duration_since(first).as_secs_f64() / n as f64),
        };
        Some(first.checked_sub(mean).unwrap_or(first))
    }

    /// When the latest reported step ended, and which step it was. `None` before any step.
    pub fn last_step_end(&self) -> Option<(Instant, u64)> {
        let ends = *self.ends.lock().unwrap_or_else(|p| p.into_inner());
        ends.map(|e| e[1])
    }

    /// Step `step` has ended.
    pub fn update(&self, step: u64) {
        STEPPING.store(true, std::sync::atomic::Ordering::SeqCst);
        {
            let now = Instant::now();
            let mut ends = self.ends.lock().unwrap_or_else(|p| p.into_inner());
            let first = ends.map_or((now, step), |e| e[0]);
            *ends = Some([first, (now, step)]);
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
