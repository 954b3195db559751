//! The frequency-domain near-to-far-field transformation by surface equivalence
//! (Taflove & Hagness, *Computational Electrodynamics*, 3rd ed., ch. 8, the phasor-domain
//! transformation in three dimensions; Balanis, *Antenna Theory*, 3rd ed., §§12.2–12.3).
//!
//! On a closed surface S enclosing every source and scatterer, the tangential fields give the
//! equivalent currents `J_s = n̂ × H` and `M_s = −n̂ × E` (Love's equivalence), which radiate
//! outside S exactly the field of the enclosed sources. In the far zone their radiation
//! vectors are
//!
//! `N(r̂) = ∮ J_s e^{−ik r̂·r'} dS'`, `L(r̂) = ∮ M_s e^{−ik r̂·r'} dS'`
//!
//! and the field is `E(r) ≈ E_far(r̂) e^{ikr}/r` with
//!
//! `E_θ = +ik/(4π) (L_φ + η N_θ)`, `E_φ = −ik/(4π) (L_θ − η N_φ)`,
//! i.e. `E_far = ik/(4π) (η N_⊥ − r̂ × L)`.
//!
//! # Conventions
//!
//! * Units are normalised: c = ε₀ = μ₀ = 1, so η = η₀ = 1 and k = ω = 2πf; `frequency` is f
//!   in cycles per unit time (per unit length). The medium outside S is vacuum.
//! * Time convention: physics `e^{−iωt}`, a real field being `f(t) = Re[F e^{−iωt}]`. The
//!   solver's DFT is `F(ω) = Σₙ f(tₙ) e^{+iωtₙ} Δt` (Meep's), which gives this convention.
//!   Balanis writes `e^{+jωt}`; his formulas become these with `j → −i` (hence `e^{−ik r̂·r'}`
//!   in N and L, `+ik` in `E_θ`).
//! * Phase reference: the origin of the sample positions (`r` is measured from it).
//! * Intensity `U = r²|E|²/(2η)` and powers use `½ Re(E × H*)`: exact when the samples are
//!   peak phasor amplitudes `F`. For a CW run of duration T the DFT above returns `F·T/2`.
//!   For a pulse the DFT is a spectral density; then `(2/π)·U` is the energy radiated per unit
//!   solid angle per unit angular frequency (Parseval over ω > 0), and ratios such as
//!   [`cross_section`] need no normalisation when the incident field goes through the same DFT.

use core::f64::consts::PI;
use num_complex::Complex64;
// Float gives f64 its math in a pure no_std build; when std is linked anywhere in the
// build, f64's inherent methods win and the import goes unused.
#[allow(unused_imports)]
use num_traits::Float;

/// The wave impedance of the (normalised) vacuum outside the surface.
pub const ETA: f64 = 1.0;

/// One quadrature point of the closed equivalence surface: the complex phasors of E and H,
/// already interpolated by the caller to the common point `position` (the Yee staggering is
/// the caller's business), with the outward unit normal and the area the point stands for.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SurfaceSample {
    /// The point r' on the surface.
    pub position: [f64; 3],
    /// The outward unit normal n̂ at r'.
    pub normal: [f64; 3],
    /// The area dA the point stands for (the quadrature weight).
    pub area: f64,
    /// The electric field phasor at r'.
    pub e: [Complex64; 3],
    /// The magnetic field phasor at r'.
    pub h: [Complex64; 3],
}

/// The far field in one direction, as the r-independent part: `E(r) ≈ e · e^{ikr}/r`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FarField {
    /// Polar angle θ of the direction (from +z), radians.
    pub theta: f64,
    /// Azimuth φ of the direction (from +x towards +y), radians; 0 on the z axis.
    pub phi: f64,
    /// `r e^{−ikr} E_θ`.
    pub e_theta: Complex64,
    /// `r e^{−ikr} E_φ`.
    pub e_phi: Complex64,
    /// `r e^{−ikr} E` in Cartesian components (transverse to the direction).
    pub e: [Complex64; 3],
    /// The radiation intensity `U = r²|E|²/(2η)`, power per unit solid angle.
    pub intensity: f64,
}

/// The radiation vectors `(N, L)` of the surface currents `J_s = n̂ × H`, `M_s = −n̂ × E` seen
/// from the unit direction `r_hat` (Balanis §12.3 with `j → −i`):
/// `N = Σ J_s e^{−ik r̂·r'} dA`, `L = Σ M_s e^{−ik r̂·r'} dA`.
pub fn radiation_vectors(
    samples: &[SurfaceSample],
    frequency: f64,
    r_hat: [f64; 3],
) -> ([Complex64; 3], [Complex64; 3]) {
    let k = 2.0 * PI * frequency;
    let zero = Complex64::new(0.0, 0.0);
    let (mut n, mut l) = ([zero; 3], [zero; 3]);
    for s in samples {
        let phase = Complex64::cis(-k * dot(r_hat, s.position)) * s.area;
        let j = cross_real_complex(s.normal, s.h);
        let m = cross_real_complex(s.normal, s.e);
        for i in 0..3 {
            n[i] += j[i] * phase;
            l[i] -= m[i] * phase;
        }
    }
    (n, l)
}

/// The far field of the sampled closed surface at `frequency` towards `direction` (any
/// non-zero vector; it is normalised): `E_far = ik/(4π) (η N_⊥ − r̂ × L)` (module docs).
/// A zero `direction` is read as +z.
pub fn far_field(samples: &[SurfaceSample], frequency: f64, direction: [f64; 3]) -> FarField {
    let norm = dot(direction, direction).sqrt();
    let r_hat = if norm > 0.0 && norm.is_finite() {
        direction.map(|x| x / norm)
    } else {
        [0.0, 0.0, 1.0]
    };
    let theta = r_hat[2].clamp(-1.0, 1.0).acos();
    let phi = r_hat[1].atan2(r_hat[0]);
    let (sin_t, cos_t) = theta.sin_cos();
    let (sin_p, cos_p) = phi.sin_cos();
    let theta_hat = [cos_t * cos_p, cos_t * sin_p, -sin_t];
    let phi_hat = [-sin_p, cos_p, 0.0];

    let (n, l) = radiation_vectors(samples, frequency, r_hat);
    let project = |v: &[Complex64; 3], u: [f64; 3]| v[0] * u[0] + v[1] * u[1] + v[2] * u[2];
    let (n_theta, n_phi) = (project(&n, theta_hat), project(&n, phi_hat));
    let (l_theta, l_phi) = (project(&l, theta_hat), project(&l, phi_hat));
    let factor = Complex64::new(0.0, 2.0 * PI * frequency / (4.0 * PI));
    let e_theta = factor * (l_phi + n_theta * ETA);
    let e_phi = -factor * (l_theta - n_phi * ETA);
    let e = core::array::from_fn(|i| e_theta * theta_hat[i] + e_phi * phi_hat[i]);
    let intensity = (e_theta.norm_sqr() + e_phi.norm_sqr()) / (2.0 * ETA);
    FarField {
        theta,
        phi,
        e_theta,
        e_phi,
        e,
        intensity,
    }
}

/// The total radiated power `P = ∮ U dΩ`, by the quadrature of [`sphere_directions`]
/// (Gauss–Legendre in cos θ, uniform in φ). Zero when either count is zero.
pub fn radiated_power(
    samples: &[SurfaceSample],
    frequency: f64,
    n_theta: usize,
    n_phi: usize,
) -> f64 {
    power_of(sphere_directions(n_theta, n_phi).map(|d| {
        (
            d.solid_angle,
            far_field(samples, frequency, d.direction).intensity,
        )
    }))
}

/// [`radiated_power`]'s quadrature `P = Σ Ω_d U_d` over intensities already taken: pairs of a
/// direction's solid angle and its intensity, in [`sphere_directions`]' order (the same sum,
/// bit for bit, as [`radiated_power`] on the same directions).
pub fn power_of(weighted: impl IntoIterator<Item = (f64, f64)>) -> f64 {
    weighted
        .into_iter()
        .map(|(solid_angle, intensity)| solid_angle * intensity)
        .sum()
}

/// The net time-averaged power out of the sampled surface, `½ Re Σ (E × H*)·n̂ dA`: a check
/// of the near fields independent of the transformation (equal to [`radiated_power`] for a
/// lossless exterior).
pub fn net_flux(samples: &[SurfaceSample]) -> f64 {
    samples
        .iter()
        .map(|s| {
            let h = s.h.map(|c| c.conj());
            let poynting = [
                s.e[1] * h[2] - s.e[2] * h[1],
                s.e[2] * h[0] - s.e[0] * h[2],
                s.e[0] * h[1] - s.e[1] * h[0],
            ];
            let flux: f64 = (0..3).map(|i| poynting[i].re * s.normal[i]).sum();
            0.5 * flux * s.area
        })
        .sum()
}

/// The intensity `S = |E|²/(2η)` of a plane wave of peak amplitude `|E| = e_amplitude`.
pub fn plane_wave_intensity(e_amplitude: f64) -> f64 {
    e_amplitude * e_amplitude / (2.0 * ETA)
}

/// The bistatic scattering cross-section `σ = 4π U / S_inc`, i.e. the IEEE definition
/// `σ = lim 4πr²|E_s|²/|E_i|²`, of a scattered-field intensity `U` (from [`far_field`] on
/// scattered-field samples) under an incident plane wave of intensity `S_inc` (see
/// [`plane_wave_intensity`]); the radar (monostatic) cross-section when the direction is
/// back towards the source. Area in the same units as the positions.
pub fn cross_section(intensity: f64, incident_intensity: f64) -> f64 {
    4.0 * PI * intensity / incident_intensity
}

/// One direction of a quadrature grid on the unit sphere.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SphereDirection {
    /// Polar angle θ, radians.
    pub theta: f64,
    /// Azimuth φ, radians.
    pub phi: f64,
    /// The unit vector (sin θ cos φ, sin θ sin φ, cos θ).
    pub direction: [f64; 3],
    /// The quadrature weight in steradians; the weights sum to 4π.
    pub solid_angle: f64,
}

/// The directions of the product grid [`radiated_power`] integrates on, θ-major, θ and φ
/// ascending: `n_theta` Gauss–Legendre nodes in cos θ (exact for polynomials in cos θ of degree
/// below 2·`n_theta`) times `n_phi` uniform azimuths φ = 2πj/`n_phi` (exact for harmonics
/// below `n_phi`). Suits a far-field CSV (θ, φ, U) whose rows also integrate to the power.
pub fn sphere_directions(n_theta: usize, n_phi: usize) -> SphereDirections {
    SphereDirections {
        n_theta,
        n_phi: if n_theta == 0 { 0 } else { n_phi },
        index: 0,
        ring: (0.0, 0.0),
    }
}

/// The iterator [`sphere_directions`] returns.
#[derive(Clone, Debug)]
pub struct SphereDirections {
    n_theta: usize,
    n_phi: usize,
    index: usize,
    /// (cos θ, Gauss weight) of the current ring, computed at its first azimuth.
    ring: (f64, f64),
}

impl Iterator for SphereDirections {
    type Item = SphereDirection;

    fn next(&mut self) -> Option<SphereDirection> {
        if self.index >= self.n_theta * self.n_phi {
            return None;
        }
        let (i, j) = (self.index / self.n_phi, self.index % self.n_phi);
        if j == 0 {
            self.ring = gauss_legendre(self.n_theta, i);
        }
        self.index += 1;
        let (cos_t, weight) = self.ring;
        let theta = cos_t.acos();
        let phi = 2.0 * PI * j as f64 / self.n_phi as f64;
        let sin_t = theta.sin();
        Some(SphereDirection {
            theta,
            phi,
            direction: [sin_t * phi.cos(), sin_t * phi.sin(), cos_t],
            solid_angle: weight * 2.0 * PI / self.n_phi as f64,
        })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self.n_theta * self.n_phi - self.index;
        (left, Some(left))
    }
}

impl ExactSizeIterator for SphereDirections {}

/// Node `i` (descending, so θ ascends) and weight of the `n`-point Gauss–Legendre rule on
/// [−1, 1], by Newton's method on the three-term recurrence for Pₙ (Press et al., *Numerical
/// Recipes*, 3rd ed., §4.6.1, `gauleg`).
fn gauss_legendre(n: usize, i: usize) -> (f64, f64) {
    let nf = n as f64;
    let mut x = (PI * (i as f64 + 0.75) / (nf + 0.5)).cos();
    let mut derivative = 1.0;
    for _ in 0..100 {
        let (mut p0, mut p1) = (1.0, x);
        for m in 2..=n {
            let mf = m as f64;
            let p2 = ((2.0 * mf - 1.0) * x * p1 - (mf - 1.0) * p0) / mf;
            p0 = p1;
            p1 = p2;
        }
        // p1 = Pₙ(x), p0 = Pₙ₋₁(x); Pₙ' = n (x Pₙ − Pₙ₋₁)/(x² − 1).
        derivative = nf * (x * p1 - p0) / (x * x - 1.0);
        let step = p1 / derivative;
        x -= step;
        if step.abs() <= 1e-15 {
            break;
        }
    }
    (x, 2.0 / ((1.0 - x * x) * derivative * derivative))
}

fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// `a × b` for a real `a` and a complex `b`.
fn cross_real_complex(a: [f64; 3], b: [Complex64; 3]) -> [Complex64; 3] {
    [
        b[2] * a[1] - b[1] * a[2],
        b[0] * a[2] - b[2] * a[0],
        b[1] * a[0] - b[0] * a[1],
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec::Vec;
    use core::f64::consts::FRAC_PI_2;

    const I: Complex64 = Complex64::new(0.0, 1.0);

    /// The exact fields of a point dipole `p` at `origin` oscillating as `e^{−iωt}` (Jackson,
    /// 3rd ed., eqs. 9.18, with c = ε₀ = μ₀ = 1):
    /// `H = k²/(4π) (n̂ × p) e^{ikr}/r (1 − 1/(ikr))`,
    /// `E = 1/(4π) {k² (n̂ × p) × n̂ e^{ikr}/r + [3n̂(n̂·p) − p](1/r³ − ik/r²) e^{ikr}}`.
    fn dipole_fields(
        p: [Complex64; 3],
        origin: [f64; 3],
        k: f64,
        at: [f64; 3],
    ) -> ([Complex64; 3], [Complex64; 3]) {
        let d: [f64; 3] = core::array::from_fn(|i| at[i] - origin[i]);
        let r = dot(d, d).sqrt();
        let n = d.map(|x| x / r);
        let n_cross_p = cross_real_complex(n, p);
        let n_dot_p = p[0] * n[0] + p[1] * n[1] + p[2] * n[2];
        let wave = Complex64::cis(k * r) / (4.0 * PI);
        let h_factor = wave * k * k / r * (1.0 - 1.0 / (I * k * r));
        let h = n_cross_p.map(|c| c * h_factor);
        // (n̂ × p) × n̂ = −n̂ × (n̂ × p)
        let transverse = cross_real_complex(n, n_cross_p).map(|c| -c);
        let near = Complex64::new(1.0 / (r * r * r), -k / (r * r));
        let e = core::array::from_fn(|i| {
            wave * (transverse[i] * k * k / r + (n_dot_p * 3.0 * n[i] - p[i]) * near)
        });
        (e, h)
    }

    /// `per_side`² midpoint samples on each face of the cube of half-side `half` centred on
    /// the origin, with the dipole's fields.
    fn dipole_on_cube(
        p: [Complex64; 3],
        origin: [f64; 3],
        frequency: f64,
        half: f64,
        per_side: usize,
    ) -> Vec<SurfaceSample> {
        let k = 2.0 * PI * frequency;
        let h = 2.0 * half / per_side as f64;
        let mut samples = Vec::new();
        for axis in 0..3 {
            for sign in [-1.0, 1.0] {
                for a in 0..per_side {
                    for b in 0..per_side {
                        let mut position = [0.0; 3];
                        position[axis] = sign * half;
                        position[(axis + 1) % 3] = -half + (a as f64 + 0.5) * h;
                        position[(axis + 2) % 3] = -half + (b as f64 + 0.5) * h;
                        let mut normal = [0.0; 3];
                        normal[axis] = sign;
                        let (e, h_field) = dipole_fields(p, origin, k, position);
                        samples.push(SurfaceSample {
                            position,
                            normal,
                            area: h * h,
                            e,
                            h: h_field,
                        });
                    }
                }
            }
        }
        samples
    }

    fn z_dipole(moment: f64) -> [Complex64; 3] {
        let zero = Complex64::new(0.0, 0.0);
        [zero, zero, Complex64::new(moment, 0.0)]
    }

    fn direction(theta: f64, phi: f64) -> [f64; 3] {
        [
            theta.sin() * phi.cos(),
            theta.sin() * phi.sin(),
            theta.cos(),
        ]
    }

    /// Angles off the axes and the diagonals, where a symmetry could hide an error.
    const ANGLES: [(f64, f64); 6] = [
        (0.3, 0.1),
        (0.7, 1.3),
        (1.1, 2.9),
        (FRAC_PI_2, 0.6),
        (2.0, 4.0),
        (2.8, 5.5),
    ];

    const FREQUENCY: f64 = 1.0; // λ = 1

    #[test]
    fn gauss_legendre_weights_integrate_the_sphere() {
        for n in [1, 2, 5, 16] {
            let total: f64 = sphere_directions(n, 7).map(|d| d.solid_angle).sum();
            assert!((total / (4.0 * PI) - 1.0).abs() < 1e-13, "{n}: {total}");
        }
        // ∫ cos⁴θ dΩ = 4π/5 needs three nodes.
        let moment: f64 = sphere_directions(3, 1)
            .map(|d| d.solid_angle * d.direction[2].powi(4))
            .sum();
        assert!((moment / (4.0 * PI / 5.0) - 1.0).abs() < 1e-13);
        assert_eq!(sphere_directions(0, 5).count(), 0);
        assert_eq!(sphere_directions(4, 0).count(), 0);
        assert_eq!(sphere_directions(4, 6).len(), 24);
    }

    #[test]
    fn z_dipole_far_field_and_power() {
        let moment = 0.8;
        let samples = dipole_on_cube(z_dipole(moment), [0.0; 3], FREQUENCY, 0.6, 40);
        let k = 2.0 * PI * FREQUENCY;
        // Exact far field: E_θ r e^{−ikr} = −k² p sin θ / (4π) (Jackson 9.19), E_φ = 0.
        for (theta, phi) in ANGLES {
            let far = far_field(&samples, FREQUENCY, direction(theta, phi));
            let exact = -k * k * moment * theta.sin() / (4.0 * PI);
            let error = (far.e_theta - exact).norm() / exact.abs();
            assert!(
                error < 0.01,
                "θ {theta} φ {phi}: {} vs {exact}",
                far.e_theta
            );
            assert!(far.e_phi.norm() < 1e-3 * exact.abs(), "{}", far.e_phi);
            assert!((far.theta - theta).abs() < 1e-12);
        }
        // Pattern ∝ sin²θ, normalised by the broadside value.
        let broadside = far_field(&samples, FREQUENCY, [1.0, 0.0, 0.0]).intensity;
        for (theta, phi) in ANGLES {
            let u = far_field(&samples, FREQUENCY, direction(theta, phi)).intensity;
            let pattern = u / broadside;
            let exact = theta.sin().powi(2);
            assert!(
                (pattern - exact).abs() < 0.01 * exact,
                "θ {theta}: {pattern}"
            );
        }
        // P = ω⁴|p|²/(12π) (Jackson 9.24 with c = Z₀ = 1).
        let exact = k.powi(4) * moment * moment / (12.0 * PI);
        let power = radiated_power(&samples, FREQUENCY, 12, 8);
        let flux = net_flux(&samples);
        assert!((power / exact - 1.0).abs() < 0.01, "{power} vs {exact}");
        assert!((flux / exact - 1.0).abs() < 0.01, "{flux} vs {exact}");
    }

    #[test]
    fn shifted_dipole_changes_only_the_phase() {
        let moment = 1.0;
        let shift = [0.13, -0.21, 0.17];
        let centred = dipole_on_cube(z_dipole(moment), [0.0; 3], FREQUENCY, 0.6, 40);
        let shifted = dipole_on_cube(z_dipole(moment), shift, FREQUENCY, 0.6, 40);
        let k = 2.0 * PI * FREQUENCY;
        for (theta, phi) in ANGLES {
            let r_hat = direction(theta, phi);
            let a = far_field(&centred, FREQUENCY, r_hat);
            let b = far_field(&shifted, FREQUENCY, r_hat);
            let magnitude = (b.e_theta.norm() / a.e_theta.norm() - 1.0).abs();
            assert!(magnitude < 0.01, "θ {theta}: |E| off by {magnitude}");
            assert!((b.intensity / a.intensity - 1.0).abs() < 0.02);
            // The shift multiplies the far field by e^{−ik r̂·d}.
            let expected = a.e_theta * Complex64::cis(-k * dot(r_hat, shift));
            let error = (b.e_theta - expected).norm() / a.e_theta.norm();
            assert!(error < 0.01, "θ {theta}: phase off by {error}");
        }
        let power = radiated_power(&shifted, FREQUENCY, 12, 8);
        let exact = k.powi(4) * moment * moment / (12.0 * PI);
        assert!((power / exact - 1.0).abs() < 0.01, "{power} vs {exact}");
    }

    #[test]
    fn x_dipole_pattern() {
        let zero = Complex64::new(0.0, 0.0);
        let p = [Complex64::new(0.0, 0.5), zero, zero];
        let samples = dipole_on_cube(p, [0.0; 3], FREQUENCY, 0.6, 40);
        let broadside = far_field(&samples, FREQUENCY, [0.0, 0.0, 1.0]).intensity;
        for (theta, phi) in ANGLES {
            let u = far_field(&samples, FREQUENCY, direction(theta, phi)).intensity;
            let exact = 1.0 - (theta.sin() * phi.cos()).powi(2);
            assert!(
                (u / broadside - exact).abs() < 0.01 * exact,
                "θ {theta} φ {phi}"
            );
        }
        // Along the moment the field vanishes.
        let axial = far_field(&samples, FREQUENCY, [-1.0, 0.0, 0.0]).intensity;
        assert!(axial < 1e-4 * broadside, "{axial}");
    }

    #[test]
    fn rayleigh_scatterer_cross_section() {
        // A small scatterer of polarisability α (p = α E_inc) has σ_total = k⁴|α|²/(6π)
        // (Jackson §10.1 in units ε₀ = 1); the scattered field is the dipole's.
        let (alpha, e_inc) = (0.01, 2.0);
        let samples = dipole_on_cube(z_dipole(alpha * e_inc), [0.0; 3], FREQUENCY, 0.6, 40);
        let s_inc = plane_wave_intensity(e_inc);
        let total: f64 = sphere_directions(12, 8)
            .map(|d| {
                let u = far_field(&samples, FREQUENCY, d.direction).intensity;
                d.solid_angle * cross_section(u, s_inc) / (4.0 * PI)
            })
            .sum();
        let k = 2.0 * PI * FREQUENCY;
        let exact = k.powi(4) * alpha * alpha / (6.0 * PI);
        assert!((total / exact - 1.0).abs() < 0.01, "{total} vs {exact}");
    }

    #[test]
    fn exterior_source_radiates_nothing() {
        // The equivalent currents of fields whose sources lie outside S radiate zero outside S
        // (the extinction theorem; Balanis §12.2): a test of the sign between N and L.
        let outside = dipole_on_cube(z_dipole(1.0), [1.1, 0.3, -0.2], FREQUENCY, 0.6, 40);
        let inside = dipole_on_cube(z_dipole(1.0), [0.0; 3], FREQUENCY, 0.6, 40);
        for (theta, phi) in ANGLES {
            let r_hat = direction(theta, phi);
            let leak = far_field(&outside, FREQUENCY, r_hat).intensity;
            let reference = far_field(&inside, FREQUENCY, [1.0, 0.0, 0.0]).intensity;
            assert!(
                leak < 1e-4 * reference,
                "θ {theta} φ {phi}: {leak} vs {reference}"
            );
        }
    }

    #[test]
    fn degenerate_inputs_do_not_panic() {
        let far = far_field(&[], FREQUENCY, [0.0; 3]);
        assert_eq!(far.intensity, 0.0);
        assert_eq!(radiated_power(&[], FREQUENCY, 0, 0), 0.0);
        assert_eq!(net_flux(&[]), 0.0);
    }
}
