//! Command-line arguments (clap, derive API) and their dispatch.

use std::path::PathBuf;

use clap::{Parser, Subcommand, ValueEnum};

use crate::error::AppError;
use crate::run::{RunOptions, run, summary};
use crate::scene;

/// yee: a parallel FDTD electromagnetics solver.
#[derive(Debug, Parser)]
#[command(name = "yee", version, about, long_about = None)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run a scene and write its outputs.
    Run(RunArgs),
    /// Validate a scene and print the resolved setup without running it.
    Check(CheckArgs),
}

/// Backends this build has.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Backend {
    /// The reference scalar CPU backend.
    Scalar,
}

/// `yee run`.
#[derive(Debug, clap::Args)]
pub struct RunArgs {
    /// The scene file (TOML).
    pub scene: PathBuf,
    /// Output directory (default: out/<scene name>/).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Number of steps, overriding the scene's run length.
    #[arg(long)]
    pub steps: Option<u64>,
    /// Backend.
    #[arg(long, value_enum, default_value_t = Backend::Scalar)]
    pub backend: Backend,
    /// Number of ranks.
    #[arg(long, default_value_t = 1)]
    pub ranks: usize,
    /// No progress bar, no log lines, no summary.
    #[arg(long)]
    pub quiet: bool,
}

/// `yee check`.
#[derive(Debug, clap::Args)]
pub struct CheckArgs {
    /// The scene file (TOML).
    pub scene: PathBuf,
}

/// Ranks this build can run.
pub const AVAILABLE_RANKS: &[usize] = &[1];

/// Runs a parsed command line; returns what to print on success.
pub fn execute(cli: Cli) -> Result<(), AppError> {
    match cli.command {
        Command::Run(args) => {
            if !AVAILABLE_RANKS.contains(&args.ranks) {
                return Err(AppError::Usage(format!(
                    "--ranks {}: this build runs a single rank (available: 1); decomposed runs come with the sim and shm communicators",
                    args.ranks
                )));
            }
            let mut scene = scene::load(&args.scene)?;
            if let Some(steps) = args.steps {
                scene.set_steps(steps)?;
            }
            let out = args
                .out
                .unwrap_or_else(|| PathBuf::from("out").join(&scene.name));
            let options = RunOptions {
                out: out.clone(),
                quiet: args.quiet,
                backend: "scalar".into(),
                ranks: args.ranks,
            };
            log::info!(
                "running {} for {} steps into {}",
                scene.name,
                scene.steps,
                out.display()
            );
            let report = run(&scene, &options)?;
            if !args.quiet {
                println!("{}", summary(&report, &out));
            }
            Ok(())
        }
        Command::Check(args) => {
            let scene = scene::load(&args.scene)?;
            let (text, warnings) = crate::check::describe(&scene);
            print!("{text}");
            for w in warnings {
                println!("warning: {w}");
            }
            println!("ok: {} is valid", args.scene.display());
            Ok(())
        }
    }
}
