//! Which of a far field's frequencies its plot draws (`[[flux]] plot_frequencies`): those a
//! scene picks, each the nearest of the flux's frequencies, or by default every one up to
//! [`MOST`] and else [`MOST`] spread evenly from the lowest to the highest.

/// The most curves a far-field plot draws: as many as its colours tell apart
/// (`yee_io::plot::MAX_CURVES`).
pub const MOST: usize = 10;

/// The default: every index of `count` frequencies when there are at most [`MOST`], else
/// [`MOST`] of them spread evenly from the first to the last.
pub fn spread(count: usize) -> Vec<usize> {
    if count <= MOST {
        return (0..count).collect();
    }
    (0..MOST)
        .map(|j| ((j * (count - 1)) as f64 / (MOST - 1) as f64).round() as usize)
        .collect()
}

/// The indices into `listed` (the flux's frequencies) of `picks` (both in the scene's units),
/// in increasing order: each pick is the listed frequency nearest it, which must lie within
/// half the distance to that frequency's nearest neighbour (or within 10⁻⁹ of it when it has
/// none). The error says what is wrong: an empty list, more than [`MOST`] picks, a pick that
/// is no listed frequency, two picks of one frequency.
pub fn pick(listed: &[f64], picks: &[f64]) -> Result<Vec<usize>, String> {
    if picks.is_empty() {
        return Err(
            "is empty: list the frequencies to draw, or leave it out for the default".into(),
        );
    }
    if picks.len() > MOST {
        return Err(format!(
            "lists {} frequencies; a plot tells at most {MOST} apart",
            picks.len()
        ));
    }
    let mut chosen: Vec<(usize, f64)> = Vec::with_capacity(picks.len());
    for &p in picks {
        let nearest = (0..listed.len())
            .filter(|_| p.is_finite())
            .min_by(|&a, &b| (listed[a] - p).abs().total_cmp(&(listed[b] - p).abs()));
        let Some(k) = nearest.filter(|&k| within_reach(listed, k, p)) else {
            return Err(format!(
                "{p} is not one of the flux's frequencies ({}): pick within half a spacing of one",
                describe(listed)
            ));
        };
        if let Some((_, q)) = chosen.iter().find(|(j, _)| *j == k) {
            return Err(format!(
                "{q} and {p} both pick the frequency {}: list each once",
                listed[k]
            ));
        }
        chosen.push((k, p));
    }
    let mut indices: Vec<usize> = chosen.into_iter().map(|(k, _)| k).collect();
    indices.sort_unstable();
    Ok(indices)
}

/// Whether `p` lies within half the distance from `listed[k]` to its nearest other listed
/// frequency, or within a relative 10⁻⁹ of it.
fn within_reach(listed: &[f64], k: usize, p: f64) -> bool {
    let f = listed[k];
    let gap = (listed.iter().enumerate())
        .filter(|&(j, g)| j != k && *g != f)
        .map(|(_, g)| (g - f).abs())
        .fold(f64::INFINITY, f64::min);
    let exact = 1e-9 * f.abs().max(p.abs());
    let reach = if gap.is_finite() { 0.5 * gap } else { 0.0 };
    (p - f).abs() <= reach.max(exact)
}

/// The listed frequencies in a few words: all of up to four, else the ends and how many.
fn describe(listed: &[f64]) -> String {
    let text: Vec<String> = listed.iter().map(|f| f.to_string()).collect();
    match listed.len() {
        0..=4 => text.join(", "),
        n => format!("{n} frequencies from {} to {}", text[0], text[n - 1]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_frequency_up_to_ten_and_the_band_spread_beyond() {
        assert_eq!(spread(3), [0, 1, 2]);
        assert_eq!(spread(10), (0..10).collect::<Vec<_>>());
        let spread = spread(100);
        assert_eq!(spread.len(), 10);
        assert_eq!((spread[0], spread[9]), (0, 99));
        assert!(spread.windows(2).all(|w| w[1] > w[0]));
    }

    #[test]
    fn picks_land_on_the_nearest_frequency_within_half_a_spacing() {
        // A band 0.1 … 0.2 of 11: spacing 0.01.
        let band: Vec<f64> = (0..11).map(|k| 0.1 + 0.01 * k as f64).collect();
        assert_eq!(pick(&band, &[0.2, 0.1, 0.15]), Ok(vec![0, 5, 10]));
        assert_eq!(pick(&band, &[0.1549]), Ok(vec![5]));
        assert_eq!(pick(&band, &[0.0951, 0.2049]), Ok(vec![0, 10]));
        let far = pick(&band, &[0.2051]).unwrap_err();
        assert!(
            far.starts_with(
                "0.2051 is not one of the flux's frequencies (11 frequencies from 0.1 to 0.2"
            ),
            "{far}"
        );
        assert!(pick(&band, &[0.05]).is_err());
        assert!(pick(&band, &[f64::NAN]).is_err());
        let twice = pick(&band, &[0.15, 0.151]).unwrap_err();
        assert!(
            twice.starts_with("0.15 and 0.151 both pick the frequency"),
            "{twice}"
        );
        assert!(pick(&band, &[]).unwrap_err().starts_with("is empty"));
        let many = pick(&band, &band).unwrap_err();
        assert_eq!(many, "lists 11 frequencies; a plot tells at most 10 apart");
    }

    #[test]
    fn a_single_frequency_is_picked_only_by_itself() {
        assert_eq!(pick(&[3e9], &[3e9]), Ok(vec![0]));
        assert_eq!(pick(&[3e9], &[3e9 * (1.0 + 1e-12)]), Ok(vec![0]));
        let wrong = pick(&[3e9], &[3.1e9]).unwrap_err();
        assert!(wrong.contains("(3000000000)"), "{wrong}");
    }
}
