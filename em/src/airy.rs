//! Reflection and transmission of a plane wave at normal incidence on a homogeneous slab
//! between two vacuum half-spaces: the Airy (Fabry–Pérot) formulae, the sum of the waves
//! bounced back and forth inside the slab (Born & Wolf, *Principles of Optics*, 7th ed.,
//! §1.6.4 for the amplitudes of a homogeneous film, §7.6.1 for Airy's intensity formula;
//! Hecht, *Optics*, §9.7).
//!
//! Conventions: fields vary in time as e^{−iωt} (as in Born & Wolf and Bohren & Huffman), so
//! a passive lossy slab has Im ε ≥ 0 and a conductor of the Yee scheme's kind
//! (`ε ∂E/∂t + σE = ∇×H`) has ε(f) = ε + iσ/(2πf) ([`conductive_permittivity`]). μ = 1,
//! c = 1: the vacuum wavelength is 1/f and k₀ = 2πf. The slab fills 0 ≤ z ≤ d and the wave
//! arrives from z < 0; `r` is E_reflected / E_incident at z = 0 and `t` is E_transmitted at
//! z = d over E_incident at z = 0, so the transmitted field beyond is `t e^{ik₀(z−d)}`.

use core::f64::consts::PI;
use num_complex::Complex64;
// Float gives f64 its math in a pure no_std build; when std is linked anywhere in the
// build, f64's inherent methods win and the import goes unused.
#[allow(unused_imports)]
use num_traits::Float;

/// The response of a slab at one frequency.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SlabResponse {
    /// Complex amplitude reflection coefficient at the front face (z = 0).
    pub r: Complex64,
    /// Complex amplitude transmission coefficient, exit face (z = d) over front face.
    pub t: Complex64,
    /// Power reflectance R = |r|².
    pub reflectance: f64,
    /// Power transmittance T = |t|² (vacuum on both sides, so no impedance factor).
    pub transmittance: f64,
}

impl SlabResponse {
    /// The fraction of the incident power absorbed in the slab, A = 1 − R − T
    /// (zero to rounding for a lossless slab, negative for a gain medium).
    pub fn absorptance(&self) -> f64 {
        1.0 - self.reflectance - self.transmittance
    }
}

/// The complex relative permittivity `ε + iσ/ω` (ω = 2πf) of a material with real relative
/// permittivity `eps` and conductivity `sigma` at frequency `frequency` (> 0), in the
/// e^{−iωt} convention and normalised units (ε₀ = 1): the frequency-domain form of
/// `ε ∂E/∂t + σE = ∇×H`, the continuum model the lossy Yee update discretises.
pub fn conductive_permittivity(eps: f64, sigma: f64, frequency: f64) -> Complex64 {
    Complex64::new(eps, sigma / (2.0 * PI * frequency))
}

/// The reflection and transmission of a slab of relative permittivity `eps` (complex for
/// loss, Im ε ≥ 0 when passive) and `thickness` d at `frequency` f, with vacuum on both sides.
///
/// With n = √ε, the single-face Fresnel amplitude ρ = (1 − n)/(1 + n) and the one-way phase
/// β = 2πf n d, the multiple reflections sum to
/// `r = ρ (1 − e^{2iβ}) / (1 − ρ² e^{2iβ})` and `t = (1 − ρ²) e^{iβ} / (1 − ρ² e^{2iβ})`
/// (Born & Wolf §1.6.4 with r₁₂ = −r₂₃ = ρ and t₁₂ t₂₃ = 1 − ρ²). Both are even in n, so the
/// choice of square root is free; the form used keeps every exponential bounded by 1.
///
/// For a dispersive material pass ε(f) at each frequency. `None` when the thickness or the
/// frequency is negative or not finite, when ε is not finite, or when the result is not
/// finite (a gain slab exactly at its lasing threshold). `frequency = 0` or `thickness = 0`
/// give the no-slab answer r = 0, t = 1.
pub fn slab(eps: Complex64, thickness: f64, frequency: f64) -> Option<SlabResponse> {
    let valid = |v: f64| v.is_finite() && v >= 0.0;
    if !valid(thickness) || !valid(frequency) || !eps.is_finite() {
        return None;
    }
    let one = Complex64::new(1.0, 0.0);
    let n = eps.sqrt();
    let rho = (one - n).fdiv(one + n);
    let beta = n * (2.0 * PI * frequency * thickness);
    let i = Complex64::i();
    // |e^{iβ}| = e^{−Im β}: divide through by e^{2iβ} when that exponential would grow
    // (only a gain medium, Im n < 0), so nothing overflows.
    let (r, t) = if beta.im >= 0.0 {
        let phase = (i * beta).exp();
        let round_trip = phase * phase;
        let denominator = one - rho * rho * round_trip;
        (
            (rho * (one - round_trip)).fdiv(denominator),
            ((one - rho * rho) * phase).fdiv(denominator),
        )
    } else {
        let phase = (-i * beta).exp();
        let round_trip = phase * phase;
        let denominator = round_trip - rho * rho;
        (
            (rho * (round_trip - one)).fdiv(denominator),
            ((one - rho * rho) * phase).fdiv(denominator),
        )
    };
    let response = SlabResponse {
        r,
        t,
        reflectance: r.norm_sqr(),
        transmittance: t.norm_sqr(),
    };
    (response.r.is_finite() && response.t.is_finite() && response.reflectance.is_finite())
        .then_some(response)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(re: f64, im: f64) -> Complex64 {
        Complex64::new(re, im)
    }

    #[test]
    fn lossless_slabs_conserve_energy() {
        for &eps in &[1.0, 1.5, 2.25, 4.0, 12.0, 80.0] {
            for &d in &[0.01, 0.1, 0.37, 1.0, 5.3] {
                for &f in &[0.01, 0.2, 0.5, 1.0, 3.7] {
                    let s = slab(c(eps, 0.0), d, f).unwrap();
                    assert!(
                        (s.reflectance + s.transmittance - 1.0).abs() < 1e-12,
                        "eps {eps} d {d} f {f}: R + T = {}",
                        s.reflectance + s.transmittance
                    );
                }
            }
        }
    }

    #[test]
    fn lossy_slabs_absorb_and_gain_slabs_amplify() {
        let lossy = slab(c(4.0, 0.5), 0.3, 1.0).unwrap();
        assert!(lossy.absorptance() > 0.01 && lossy.absorptance() < 1.0);
        let gain = slab(c(4.0, -0.05), 0.3, 1.0).unwrap();
        assert!(gain.absorptance() < 0.0);
    }

    #[test]
    fn no_slab_reflects_nothing() {
        for &eps in &[c(2.25, 0.0), c(4.0, 1.0), c(-3.0, 0.2)] {
            for (d, f) in [(0.0, 0.7), (0.3, 0.0)] {
                let s = slab(eps, d, f).unwrap();
                assert_eq!(s.r, c(0.0, 0.0), "eps {eps}");
                assert!((s.t - c(1.0, 0.0)).norm() < 1e-15, "eps {eps}: t = {}", s.t);
            }
        }
        // Vacuum of any thickness: ρ = 0, t = e^{ik₀d}.
        let s = slab(c(1.0, 0.0), 0.25, 1.0).unwrap();
        assert!(s.r.norm() < 1e-15);
        assert!((s.t - c(0.0, 1.0)).norm() < 1e-15);
    }

    #[test]
    fn half_wave_slab_is_transparent() {
        // n d = λ/2 (λ = 1/f): e^{2iβ} = e^{2πi} = 1, so r = 0 and t = −1.
        for &n in &[1.5, 2.0, 3.5] {
            let f = 0.8;
            let d = 0.5 / (n * f);
            let s = slab(c(n * n, 0.0), d, f).unwrap();
            assert!(s.reflectance < 1e-24, "n {n}: R = {}", s.reflectance);
            assert!((s.t + c(1.0, 0.0)).norm() < 1e-12, "n {n}: t = {}", s.t);
        }
    }

    #[test]
    fn quarter_wave_slab_reflects_the_most() {
        // n d = λ/4: e^{2iβ} = −1, so r = 2ρ/(1 + ρ²) = (1 − n²)/(1 + n²), the Airy maximum
        // R = F/(1 + F) with F = 4ρ²/(1 − ρ²)² (Born & Wolf §7.6.1).
        let n = 2.0f64;
        let s = slab(c(n * n, 0.0), 0.25 / n, 1.0).unwrap();
        let expected = (1.0 - n * n) / (1.0 + n * n);
        assert!((s.r - c(expected, 0.0)).norm() < 1e-15, "r = {}", s.r);
    }

    #[test]
    fn thick_lossy_slab_reflects_like_one_interface() {
        // ε = 4 + 4i: n = √(4 + 4i) ≈ 2.197 + 0.910i, and 10 wavelengths of it attenuate the
        // round trip by e^{−2 · 0.910 · 2π · 10} ≈ 1e−50: only the front face is left,
        // r = (1 − n)/(1 + n) and T = 0.
        let eps = c(4.0, 4.0);
        let s = slab(eps, 10.0, 1.0).unwrap();
        let n = eps.sqrt();
        let fresnel = (c(1.0, 0.0) - n) / (c(1.0, 0.0) + n);
        assert!(
            (s.r - fresnel).norm() < 1e-14,
            "r = {}, Fresnel {fresnel}",
            s.r
        );
        assert!(s.transmittance < 1e-48, "T = {}", s.transmittance);
        // A good conductor (σ = 1e6 at f = 1: n ≈ 282 (1 + i)) reflects as a metal,
        // R ≈ 1 − 2/Re n, and lets nothing through a wavelength of it.
        let metal = slab(conductive_permittivity(1.0, 1e6, 1.0), 1.0, 1.0).unwrap();
        assert!(metal.reflectance > 0.99 && metal.transmittance < 1e-300);
    }

    #[test]
    fn eighth_wave_slab_by_hand() {
        // n = 2, f = 1 (λ = 1), d = 1/16 so n d = λ/8: β = 2π · 2 / 16 = π/4, e^{2iβ} = i,
        // ρ = (1 − 2)/(1 + 2) = −1/3, ρ² = 1/9.
        // r = −(1/3)(1 − i)/(1 − i/9) = −(1/3)(1 − i)(1 + i/9)/(82/81)
        //   = −(1/3)(10/9 − 8i/9)(81/82) = −(1/3)(90 − 72i)/82 = (−15 + 12i)/41,
        // R = (225 + 144)/1681 = 9/41. Airy's formula agrees: F = 4ρ²/(1 − ρ²)² = 9/16 and
        // R = F sin²β/(1 + F sin²β) = (9/32)/(41/32) = 9/41, T = 32/41.
        // t = (8/9) e^{iπ/4}/(1 − i/9) = 8 e^{iπ/4}/(9 − i) = 8 e^{iπ/4}(9 + i)/82.
        let s = slab(c(4.0, 0.0), 1.0 / 16.0, 1.0).unwrap();
        assert!(
            (s.r - c(-15.0 / 41.0, 12.0 / 41.0)).norm() < 1e-15,
            "r = {}",
            s.r
        );
        assert!((s.reflectance - 9.0 / 41.0).abs() < 1e-15);
        assert!((s.transmittance - 32.0 / 41.0).abs() < 1e-15);
        let t = Complex64::from_polar(8.0 / 82.0, PI / 4.0) * c(9.0, 1.0);
        assert!((s.t - t).norm() < 1e-15, "t = {}, expected {t}", s.t);
    }

    #[test]
    fn dispersive_permittivity_per_frequency() {
        // A Drude-like ε(f) evaluated by the caller: below the plasma frequency the slab is
        // a metal (ε < 0), above it a dielectric; both are finite and lossless.
        let eps = |f: f64| c(1.0 - 0.25 / (f * f), 0.0);
        for &f in &[0.2, 0.45, 0.55, 2.0] {
            let s = slab(eps(f), 4.0, f).unwrap();
            assert!((s.reflectance + s.transmittance - 1.0).abs() < 1e-12);
        }
        // At f = 0.2, ε = −5.25: the field decays as e^{−κz}, κ = 2π f √5.25 ≈ 2.88, so
        // through d = 4 the power falls as e^{−2κd} ≈ e^{−23} ≈ 1e−10.
        let evanescent = slab(eps(0.2), 4.0, 0.2).unwrap().transmittance;
        assert!(evanescent > 1e-11 && evanescent < 1e-9, "T = {evanescent}");
    }

    #[test]
    fn nonsense_is_rejected() {
        assert!(slab(c(2.0, 0.0), -1.0, 1.0).is_none());
        assert!(slab(c(2.0, 0.0), 1.0, -1.0).is_none());
        assert!(slab(c(2.0, 0.0), f64::NAN, 1.0).is_none());
        assert!(slab(c(2.0, 0.0), 1.0, f64::INFINITY).is_none());
        assert!(slab(c(f64::NAN, 0.0), 1.0, 1.0).is_none());
    }
}
