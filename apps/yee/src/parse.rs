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

/// Parses `--rank-backends scalar,rayon,…`: one backend per rank of a run of `ranks` ranks,
/// named as `--backend` takes them. An unknown name is reported with its entry and rank.
pub fn parse_rank_backends(
    text: &str,
    ranks: usize,
) -> Result<Vec<yee_simulation::Backend>, AppError> {
    use clap::ValueEnum;
    let names: Vec<&str> = text.split(',').map(str::trim).collect();
    let known: Vec<&str> = yee_simulation::Backend::value_variants()
        .iter()
        .map(|b| b.name())
        .collect();
    let backends = names
        .iter()
        .enumerate()
        .map(|(rank, name)| {
            yee_simulation::Backend::from_str(name, true).map_err(|_| {
                AppError::Usage(format!(
                    "--rank-backends {text}: entry {} (rank {rank}) `{name}` is not a backend \
                     of this build (it has {})",
                    rank + 1,
                    known.join(", ")
                ))
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    if backends.len() != ranks {
        return Err(AppError::Usage(format!(
            "--rank-backends {text}: {} entries for {ranks} rank(s); give one backend per rank",
            backends.len()
        )));
    }
    Ok(backends)
}
