//! `yee run`: a scene's [`Simulation`] run to its end with the options of the command line,
//! which writes the outputs, progress and `run.json`.

use yee_scene::Scene;
use yee_simulation::Simulation;
pub use yee_simulation::options::{Backend, CheckpointOptions, RunOptions};
pub use yee_simulation::output_dir::prepare_output_dir;
pub use yee_simulation::run_report::summary;

use crate::error::AppError;
use yee_simulation::report::RunReport;

/// Runs `scene` with `options` to its last step. Returns the report on the process that
/// writes the outputs, `None` on the other processes of an MPI job.
pub fn run(scene: &Scene, options: &RunOptions) -> Result<Option<RunReport>, AppError> {
    let mut simulation = Simulation::new(scene.clone(), options.clone())?;
    simulation.run()?;
    Ok(simulation.into_report())
}
