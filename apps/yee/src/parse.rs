//! Command-line values that several subcommands share: comma-separated numbers (`--speeds`,
//! `--weights`).

use crate::error::AppError;

/// Parses `--speeds 1,1,0.5,…`.
pub fn parse_speeds(text: &str) -> Result<Vec<f64>, AppError> {
    parse_numbers("--speeds", text)
}

/// A comma-separated list of numbers given to `flag`.
pub fn parse_numbers(flag: &str, text: &str) -> Result<Vec<f64>, AppError> {
    text.split(',')
        .map(|s| {
            s.trim()
                .parse::<f64>()
                .map_err(|_| AppError::Usage(format!("{flag} {text}: `{s}` is not a number")))
        })
        .collect()
}
