//! Performance models used to predict and to check step times: Hockney's share time and the
//! step time of Balykov 2019 here, the overlap model of Kim & Park 2012 in [`overlap`], and the
//! cache a run keeps, from read rates, in [`cache_knee`].

pub mod cache_knee;
pub mod overlap;

pub use overlap::{OverlapMethod, OverlapModel};

/// Hockney's share time of `x` units over a link: `latency + x / bandwidth`
/// (Balykov 2019, eq. (6)).
pub fn hockney(latency: f64, bandwidth: f64, x: f64) -> f64 {
    latency + x / bandwidth
}

/// The time of one step (Balykov 2019, eq. (2)): the slowest rank's computation plus, for each
/// share direction, the slowest share in that direction.
/// `compute[i]` is rank i's compute time; `share[i * directions + d]` its share time in
/// direction `d`.
pub fn step_time(compute: &[f64], share: &[f64], directions: usize) -> f64 {
    let slowest = compute.iter().copied().fold(0.0, f64::max);
    let shares: f64 = (0..directions)
        .map(|d| {
            share
                .iter()
                .skip(d)
                .step_by(directions.max(1))
                .copied()
                .fold(0.0, f64::max)
        })
        .sum();
    slowest + shares
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eq2_by_hand() {
        // Two ranks, two directions: max(3, 5) + max(1, 0.5) + max(0.25, 2) = 5 + 1 + 2.
        let compute = [3.0, 5.0];
        let share = [1.0, 0.25, 0.5, 2.0];
        assert_eq!(step_time(&compute, &share, 2), 8.0);
        assert_eq!(hockney(1e-6, 1e9, 8e3), 1e-6 + 8e-6);
    }
}
