//! The `yee` command. See `yee --help` and docs/scene.md.

use clap::Parser;

fn main() -> std::process::ExitCode {
    let cli = yee::cli::Cli::parse();
    match yee::cli::execute(cli) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        // Under MPI, rank 0 has printed the error every rank agreed on.
        Err(yee::error::AppError::Reported) => std::process::ExitCode::FAILURE,
        Err(e @ yee::error::AppError::Interrupted(_)) => {
            eprintln!("{e}");
            std::process::ExitCode::from(yee::error::INTERRUPTED_EXIT)
        }
        Err(e) => {
            eprintln!("error: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
