//! A probe's spectrum, drawn beside its record: `|F(f)| = |Δt Σₙ s(tₙ) e^{+2πi f tₙ}|`, the
//! transform the DFT monitors take ([`yee_em::DftMonitor`], Meep's sign), of the whole record
//! without a window (a pulse that has left the probe needs none), at [`POINTS`] frequencies
//! from 0 to [`top_frequency`].

use yee_scene::Scene;

/// How many frequencies a probe's spectrum is drawn at.
pub const POINTS: usize = 400;

/// The highest frequency (normalised) a probe's spectrum shows: twice the highest significant
/// frequency ([`yee_em::Waveform::max_frequency`]) of the scene's sources and plane waves, so
/// the fall of their spectra shows; at most the Nyquist frequency `1/(2Δt)`, which it is
/// without either.
pub fn top_frequency(scene: &Scene) -> f64 {
    let nyquist = 0.5 / scene.dt();
    let pulses = (scene.sources.iter().map(|s| s.waveform))
        .chain(scene.plane_waves.iter().map(|w| w.waveform));
    let highest = pulses.map(|w| w.max_frequency()).fold(0.0f64, f64::max);
    match highest > 0.0 {
        true => (2.0 * highest).min(nyquist),
        false => nyquist,
    }
}

/// [`POINTS`] frequencies evenly from 0 to `top`.
pub fn frequencies(top: f64) -> Vec<f64> {
    (0..POINTS)
        .map(|k| top * k as f64 / (POINTS - 1) as f64)
        .collect()
}

/// `|Δt Σₙ (re + i im)(t₀ + nΔt) e^{+2πi f (t₀ + nΔt)}|` at each of `frequencies`, for samples
/// `re`, `im` (as long as each other) every `dt` (the magnitude does not depend on `t₀`). The
/// phase factor advances by a rotation per sample, exact to a relative 10⁻¹⁰ over 10⁶ samples.
pub fn magnitudes(re: &[f64], im: &[f64], dt: f64, frequencies: &[f64]) -> Vec<f64> {
    frequencies
        .iter()
        .map(|&f| {
            let (s, c) = (2.0 * std::f64::consts::PI * f * dt).sin_cos();
            let (mut zr, mut zi) = (1.0, 0.0);
            let (mut sr, mut si) = (0.0, 0.0);
            for (&a, &b) in re.iter().zip(im) {
                sr += a * zr - b * zi;
                si += a * zi + b * zr;
                (zr, zi) = (zr * c - zi * s, zr * s + zi * c);
            }
            dt * sr.hypot(si)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A Gaussian pulse's transform is a Gaussian: `Δt Σ e^{−t²/2w²} e^{2πift}` is
    /// `√(2π) w e^{−2π²w²f²}` when the samples resolve it (the sum is then the integral).
    #[test]
    fn a_sampled_gaussian_has_the_gaussian_transform() {
        let (dt, w, t0) = (0.5, 20.0, 200.0);
        let re: Vec<f64> = (0..800)
            .map(|n| (-((n as f64 * dt - t0) / w).powi(2) / 2.0).exp())
            .collect();
        let im = vec![0.0; re.len()];
        let fs = frequencies(0.05);
        let got = magnitudes(&re, &im, dt, &fs);
        for (f, g) in fs.iter().zip(&got) {
            let exact = (2.0 * std::f64::consts::PI).sqrt()
                * w
                * (-2.0 * (std::f64::consts::PI * w * f).powi(2)).exp();
            assert!(
                (g - exact).abs() < 1e-9 * (2.0 * std::f64::consts::PI).sqrt() * w,
                "f = {f}: {g} vs {exact}"
            );
        }
    }

    /// A complex tone e^{−2πi f₀ t} peaks at f₀ (the sign is Meep's), not at −f₀.
    #[test]
    fn a_complex_tone_peaks_at_its_frequency() {
        let (dt, f0) = (1.0, 0.1);
        let phase = |n: usize| -2.0 * std::f64::consts::PI * f0 * n as f64 * dt;
        let re: Vec<f64> = (0..1000).map(|n| phase(n).cos()).collect();
        let im: Vec<f64> = (0..1000).map(|n| phase(n).sin()).collect();
        let got = magnitudes(&re, &im, dt, &[f0, 0.2]);
        assert!((got[0] - 1000.0).abs() < 1e-6, "{got:?}");
        assert!(got[1] < 1.0, "{got:?}");
    }
}
