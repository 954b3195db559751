//! The `yee` command. See `yee --help` and docs/scene.md.

use clap::Parser;

fn main() -> std::process::ExitCode {
    let cli = yee::cli::Cli::parse();
    let quiet = matches!(&cli.command, yee::cli::Command::Run(args) if args.quiet);
    let level = if quiet { "warn" } else { "info" };
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or(level))
        .format_timestamp(None)
        .init();
    match yee::cli::execute(cli) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
