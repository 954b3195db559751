//! A frequency-dependent response over a band realised by delayed copies of one waveform: the
//! profile of a broadband mode source (`num_freqs`), which carries at each frequency of its
//! band the mode found at that frequency.
//!
//! **The filter.** A node of the source drives `Σ_k c_k g(t + kδ)` (k = −N … N), a short FIR
//! filter of the waveform g: its transform is `G(f) · Σ_k c_k e^{±ikθ}` with `θ = 2πfδ` (the
//! sign is the transform's convention), and with real `c_k` the signal stays real. Writing
//! `a_k = c_k + c_{−k}` and `b_k = c_k − c_{−k}`, the factor is
//! `Σ_k a_k cos kθ ± i Σ_k b_k sin kθ`: its real part a cosine series, its imaginary part a sine
//! series in θ — whichever sign the convention takes, the real and imaginary parts of a wanted
//! response `R(f)` fix `a` and `b`.
//!
//! **Interpolation.** With `δ = 1/(2(f_lo + f_hi))` the band `[f_lo, f_hi]` maps to θ in
//! `(0, π)` symmetrically about π/2, where `x = cos θ` is monotone; `cos kθ = T_k(x)` and
//! `sin kθ = sin θ · U_{k−1}(x)` (Chebyshev polynomials of the first and second kinds), so the
//! cosine series is a polynomial in x and the sine series `sin θ` times one. The `N` node
//! frequencies are the Chebyshev points of x over the band (Trefethen, *Approximation Theory
//! and Approximation Practice*, 2013, ch. 2), where the real part is interpolated by
//! `T_0 … T_{N−1}` and the imaginary part over `sin θ` by `U_0 … U_{N−1}`: both exact at the
//! nodes, of degree N − 1 in x between them, so the error falls geometrically with N for a
//! smooth response (ch. 8). Tidy3D's `ModeSource` interpolates the mode in frequency over
//! Chebyshev points the same way (`num_freqs`); here the polynomials are realised as delays of
//! a quarter period of the band's centre, which every backend runs as the soft sources it
//! already has. The delays span `±Nδ`: the waveform is advanced by at most N/(4 f_c).

use num_complex::Complex64;

use crate::band_lu::BandMatrix;

/// The most interpolation frequencies a band takes.
pub const MAX_FREQUENCIES: usize = 10;

/// The largest amplification (the inverse interpolation matrices' ∞-norm) accepted: beyond
/// it the taps cancel each other to more digits than a response needs.
const MAX_AMPLIFICATION: f64 = 1e8;

/// Why a band cannot be interpolated.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum BandError {
    /// The band is not `0 < low < high`, finite.
    Band {
        /// Its low edge.
        low: f64,
        /// Its high edge.
        high: f64,
    },
    /// The count is not 2 … [`MAX_FREQUENCIES`].
    Count(usize),
    /// The band is so narrow for the count that the taps would cancel to more than
    /// 1e8 (take fewer frequencies).
    IllConditioned {
        /// The amplification.
        amplification: f64,
    },
}

impl std::fmt::Display for BandError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            BandError::Band { low, high } => write!(
                f,
                "the band {low} … {high} does not lie between zero frequency and its high edge"
            ),
            BandError::Count(n) => write!(f, "{n}: give 2 to {MAX_FREQUENCIES} frequencies"),
            BandError::IllConditioned { amplification } => write!(
                f,
                "the band is too narrow for that many frequencies (the interpolation would \
                 amplify by {amplification:.1e}): take fewer"
            ),
        }
    }
}

/// The node frequencies and delay step of one band's interpolation, with the inverses of its
/// cosine and sine interpolation matrices.
#[derive(Clone, Debug)]
pub struct BandInterpolation {
    /// The N node frequencies, increasing.
    pub frequencies: Vec<f64>,
    /// The delay step δ between taps.
    pub delay: f64,
    /// `V⁻¹`, row-major: `a = V⁻¹ re` with `V_jk = cos(kθ_j)`, k = 0 … N−1.
    cosine: Vec<f64>,
    /// `W⁻¹`, row-major: `b = W⁻¹ im` with `W_jk = sin((k+1)θ_j)`, k = 0 … N−1.
    sine: Vec<f64>,
}

/// The inverse of the n × n matrix `entry(j, k)`, row-major, by LU with partial pivoting
/// ([`crate::band_lu`] with a full band); `None` when it is singular.
fn inverse(n: usize, entry: impl Fn(usize, usize) -> f64) -> Option<Vec<f64>> {
    let mut m = BandMatrix::zeros(n, n - 1, n - 1);
    for j in 0..n {
        for k in 0..n {
            m.add(j, k, entry(j, k));
        }
    }
    let lu = m.factor().ok()?;
    let mut out = vec![0.0; n * n];
    for col in 0..n {
        let mut e = vec![0.0; n];
        e[col] = 1.0;
        lu.solve(&mut e);
        for (row, v) in e.into_iter().enumerate() {
            out[row * n + col] = v;
        }
    }
    Some(out)
}

/// The ∞-norm of an n × n row-major matrix.
fn norm_inf(n: usize, m: &[f64]) -> f64 {
    m.chunks(n)
        .map(|row| row.iter().map(|v| v.abs()).sum::<f64>())
        .fold(0.0, f64::max)
}

impl BandInterpolation {
    /// The interpolation of `[low, high]` over `count` Chebyshev points (module docs).
    pub fn new(low: f64, high: f64, count: usize) -> Result<BandInterpolation, BandError> {
        if !(low.is_finite() && high.is_finite() && low > 0.0 && high > low) {
            return Err(BandError::Band { low, high });
        }
        if !(2..=MAX_FREQUENCIES).contains(&count) {
            return Err(BandError::Count(count));
        }
        let delay = 1.0 / (2.0 * (low + high));
        let theta_of = |f: f64| 2.0 * std::f64::consts::PI * f * delay;
        // x = cos θ over the band: symmetric about 0, decreasing with f.
        let radius = theta_of(low).cos();
        let thetas: Vec<f64> = (0..count)
            .map(|j| {
                let node = ((2 * j + 1) as f64 * std::f64::consts::PI / (2 * count) as f64).cos();
                (radius * node).acos()
            })
            .collect();
        let ill = |amplification: f64| BandError::IllConditioned { amplification };
        let cosine =
            inverse(count, |j, k| (k as f64 * thetas[j]).cos()).ok_or(ill(f64::INFINITY))?;
        let sine =
            inverse(count, |j, k| ((k + 1) as f64 * thetas[j]).sin()).ok_or(ill(f64::INFINITY))?;
        let amplification = norm_inf(count, &cosine).max(norm_inf(count, &sine));
        if amplification > MAX_AMPLIFICATION {
            return Err(ill(amplification));
        }
        let frequencies = thetas
            .iter()
            .map(|t| t / (2.0 * std::f64::consts::PI * delay))
            .collect();
        Ok(BandInterpolation {
            frequencies,
            delay,
            cosine,
            sine,
        })
    }

    /// The taps `c_k`, k = −N … N (index k + N), whose factor `Σ c_k e^{±ikθ}` equals
    /// `re[j] ± i im[j]` at each node frequency j.
    pub fn taps(&self, re: &[f64], im: &[f64]) -> Vec<f64> {
        let n = self.frequencies.len();
        let apply = |m: &[f64], v: &[f64]| -> Vec<f64> {
            m.chunks(n)
                .map(|row| row.iter().zip(v).map(|(a, b)| a * b).sum())
                .collect()
        };
        let (a, b) = (apply(&self.cosine, re), apply(&self.sine, im));
        let mut c = vec![0.0; 2 * n + 1];
        c[n] = a[0];
        for k in 1..=n {
            let ak = if k < n { a[k] } else { 0.0 };
            c[n + k] = (ak + b[k - 1]) / 2.0;
            c[n - k] = (ak - b[k - 1]) / 2.0;
        }
        c
    }

    /// The factor `Σ_k c_k e^{+ikθ}` of `taps` at frequency `f` (the convention in which a
    /// tap k advances the waveform by kδ and the transform is `∫ g(t) e^{−2πift} dt`).
    pub fn response(&self, taps: &[f64], f: f64) -> Complex64 {
        let n = self.frequencies.len() as i64;
        let theta = 2.0 * std::f64::consts::PI * f * self.delay;
        taps.iter()
            .enumerate()
            .map(|(i, &c)| Complex64::from_polar(c, (i as i64 - n) as f64 * theta))
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A smooth complex response over the band 0.75 … 1.25: a profile and a phase that change
    /// by tens of per cent across it.
    fn wanted(f: f64) -> Complex64 {
        Complex64::from_polar(
            1.0 + 0.4 * (f - 1.0) - 0.8 * (f - 1.0).powi(2),
            0.7 * (f - 1.0),
        )
    }

    fn fit(count: usize) -> (BandInterpolation, Vec<f64>) {
        let b = BandInterpolation::new(0.75, 1.25, count).unwrap();
        let values: Vec<Complex64> = b.frequencies.iter().map(|&f| wanted(f)).collect();
        let re: Vec<f64> = values.iter().map(|v| v.re).collect();
        let im: Vec<f64> = values.iter().map(|v| v.im).collect();
        let taps = b.taps(&re, &im);
        (b, taps)
    }

    #[test]
    fn the_taps_give_the_response_at_the_nodes() {
        for count in 2..=6 {
            let (b, taps) = fit(count);
            assert_eq!(taps.len(), 2 * count + 1);
            for &f in &b.frequencies {
                assert!(
                    (b.response(&taps, f) - wanted(f)).norm() < 1e-12,
                    "{count}: {f}"
                );
                assert!((0.75..=1.25).contains(&f));
            }
            // Conjugate frequencies of the same filter: the convention's other sign.
            let f = b.frequencies[0];
            let n = count as i64;
            let theta = 2.0 * std::f64::consts::PI * f * b.delay;
            let minus: Complex64 = taps
                .iter()
                .enumerate()
                .map(|(i, &c)| Complex64::from_polar(c, -((i as i64 - n) as f64) * theta))
                .sum();
            assert!((minus - wanted(f).conj()).norm() < 1e-12);
        }
    }

    /// Between the nodes the error falls geometrically with the count (measured 3.5e-2,
    /// 2.7e-3, 5.1e-4, 7.1e-5 for 2 … 5; tested at a factor 5 per step).
    #[test]
    fn the_error_between_nodes_falls_with_the_count() {
        let mut last = f64::INFINITY;
        for count in 2..=5 {
            let (b, taps) = fit(count);
            let worst = (0..=100)
                .map(|i| 0.75 + 0.005 * i as f64)
                .map(|f| (b.response(&taps, f) - wanted(f)).norm())
                .fold(0.0, f64::max);
            assert!(worst < last / 5.0, "{count}: {worst} after {last}");
            last = worst;
        }
        assert!(last < 1e-4, "{last}");
    }

    #[test]
    fn bad_bands_and_counts_are_refused() {
        assert!(matches!(
            BandInterpolation::new(0.0, 1.0, 3),
            Err(BandError::Band { .. })
        ));
        assert!(matches!(
            BandInterpolation::new(1.0, 1.0, 3),
            Err(BandError::Band { .. })
        ));
        assert_eq!(
            BandInterpolation::new(0.5, 1.0, 1).unwrap_err(),
            BandError::Count(1)
        );
        assert_eq!(
            BandInterpolation::new(0.5, 1.0, 11).unwrap_err(),
            BandError::Count(11)
        );
        assert!(matches!(
            BandInterpolation::new(0.999, 1.001, 10),
            Err(BandError::IllConditioned { .. })
        ));
    }
}
