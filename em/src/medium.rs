//! The electric medium of one node: the mean of its sides' materials ([`crate::placement`])
//! and their pole sets, each weighed by the fraction of the node it holds.
//!
//! Weighing a pole's strength (σ or Δε) by the fraction makes the node's `ε(ω)` the
//! arithmetic mean of its sides' `ε(ω)` at every frequency, the rule [`Material::mean`]
//! applies to ε. With the poles' polarisations the E update is
//! `ε∞(Eⁿ⁺¹ − Eⁿ)/Δt + σ(Eⁿ⁺¹ + Eⁿ)/2 + Σ(Pⁿ⁺¹ − Pⁿ)/Δt = ∇×H` ([`crate::pole`]); a Debye
//! pole's `Pⁿ⁺¹ = αPⁿ + β(Eⁿ⁺¹ + Eⁿ)` brings `β(Eⁿ⁺¹ + Eⁿ)/Δt` into it, which acts as a
//! conductivity `2β/Δt`: [`NodeMedium::electric_coefficients`] folds it into `Ca`, `Cb`, and
//! the rest of the polarisation change enters as `−(Cb/Δt) Σ kₚ` with `kₚ = Pⁿ⁺¹ − Pⁿ`
//! (Lorentz, Drude) or `(α − 1)Pⁿ` (Debye).

use core::f64::consts::PI;

use num_complex::Complex64;
// Float gives f64 its math in a pure no_std build.
#[allow(unused_imports)]
use num_traits::Float;

use crate::material::{Material, MaterialBits, PoleSet, UpdateCoefficients, lossy_coefficients};
use crate::placement::MAX_SIDES;
use crate::pole::{Ade, Pole};

/// A node's material and its weighed pole sets.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NodeMedium {
    /// The mean of the sides' materials (ε is ε∞ where poles are).
    pub material: Material,
    sets: [(PoleSet, f64); MAX_SIDES],
    len: u8,
}

/// A [`NodeMedium`]'s bit patterns: an exact identity for interning.
pub type MediumBits = (MaterialBits, [[u64; 3]; MAX_SIDES]);

impl NodeMedium {
    /// A node wholly of `material`.
    pub fn whole(material: Material) -> NodeMedium {
        NodeMedium::from_sets(material, &[(material.poles, 1.0)])
    }

    /// The medium of an H node of `material`: its μ, σ* and the off-diagonal entries of its
    /// μ⁻¹ alone, the rest vacuum's. The H
    /// update reads nothing else ([`crate::material::magnetic_coefficients`]), so H nodes of
    /// media that differ only electrically (a dielectric and the vacuum around it) share one
    /// material id, and the rows they fill stay rows of one material for the fast kernels.
    pub fn of_h_node(material: Material) -> NodeMedium {
        let coupling = material.coupling.and_then(|c| {
            let any = c.mu_inverse.iter().any(|&v| v != 0.0);
            any.then_some(crate::material::Coupling {
                eps_inverse: [0.0; 3],
                ..c
            })
        });
        let magnetic = Material {
            mu: material.mu,
            sigma_m: material.sigma_m,
            coupling,
            ..Material::VACUUM
        };
        NodeMedium::from_sets(magnetic, &[])
    }

    /// The node of mean `material` holding each pole set with its weight (empty sets are
    /// dropped; equal sets must come merged, in ascending order).
    pub fn from_sets(material: Material, sets: &[(PoleSet, f64)]) -> NodeMedium {
        let mut medium = NodeMedium {
            material,
            sets: [(PoleSet::NONE, 0.0); MAX_SIDES],
            len: 0,
        };
        for &(set, weight) in sets.iter().filter(|(s, _)| !s.is_empty()) {
            medium.sets[usize::from(medium.len)] = (set, weight);
            medium.len += 1;
        }
        medium
    }

    /// The pole sets and the fraction of the node each holds.
    pub fn pole_sets(&self) -> &[(PoleSet, f64)] {
        &self.sets[..usize::from(self.len)]
    }

    /// True when the node holds poles.
    pub fn is_dispersive(&self) -> bool {
        self.len > 0
    }

    /// The node's poles from `table` ([`crate::Setup::poles`]), each weighed by its share, in
    /// set order then pole order (sets reaching past the table are skipped: a validated setup
    /// has none).
    pub fn poles<'a>(&'a self, table: &'a [Pole]) -> impl Iterator<Item = Pole> + 'a {
        self.pole_sets().iter().flat_map(move |&(set, weight)| {
            set.of(table)
                .unwrap_or(&[])
                .iter()
                .map(move |p| p.weighted(weight))
        })
    }

    /// How many poles the node holds.
    pub fn pole_count(&self) -> usize {
        self.pole_sets().iter().map(|(s, _)| s.count).sum()
    }

    /// `Ca`, `Cb` of the E update, the Debye poles' `β` folded in as a conductivity `2Σβ/Δt`
    /// (module docs). Without Debye poles, the lossy Yee coefficients bit for bit.
    pub fn electric_coefficients(&self, table: &[Pole], dt: f64) -> UpdateCoefficients {
        let debye: f64 = self
            .poles(table)
            .map(|p| match p.ade(dt) {
                Ade::Trapezoidal { beta, .. } => beta,
                Ade::Explicit { .. } => 0.0,
            })
            .sum();
        let sigma = if debye == 0.0 {
            self.material.sigma
        } else {
            self.material.sigma + 2.0 * debye / dt
        };
        lossy_coefficients(self.material.eps, sigma, dt)
    }

    /// The bit patterns of the material and the weighed sets.
    pub fn to_bits(&self) -> MediumBits {
        let mut sets = [[0u64; 3]; MAX_SIDES];
        for (bits, (set, weight)) in sets.iter_mut().zip(self.pole_sets()) {
            *bits = [set.first as u64, set.count as u64, weight.to_bits()];
        }
        (self.material.to_bits(), sets)
    }

    /// The continuous `ε(f) = ε∞ + iσ/ω + Σχₚ(ω)` (ω = 2πf > 0).
    pub fn permittivity(&self, table: &[Pole], frequency: f64) -> Complex64 {
        let w = 2.0 * PI * frequency;
        self.poles(table).fold(
            Complex64::new(self.material.eps, self.material.sigma / w),
            |eps, p| eps + p.susceptibility(frequency),
        )
    }

    /// The discrete-time `ε(f)` the update gives a steady sinusoid of frequency f at time
    /// step `dt`: `ε∞ + iσ cos(ωΔt/2)/Ω + Σχₚ` with `Ω = 2 sin(ωΔt/2)/Δt` and each pole's
    /// discrete χ ([`Pole::discrete_susceptibility`]).
    pub fn discrete_permittivity(&self, table: &[Pole], frequency: f64, dt: f64) -> Complex64 {
        let half = PI * frequency * dt;
        let omega = 2.0 * half.sin() / dt;
        self.poles(table).fold(
            Complex64::new(self.material.eps, self.material.sigma * half.cos() / omega),
            |eps, p| eps + p.discrete_susceptibility(frequency, dt),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn half_a_node_is_the_mean_permittivity() {
        let table = [
            Pole::Drude {
                frequency: 0.05,
                gamma: 0.01,
                sigma: 1.0,
            },
            Pole::Debye {
                delta_eps: 2.0,
                tau: 5.0,
            },
        ];
        let metal = Material {
            eps: 2.0,
            poles: PoleSet { first: 0, count: 2 },
            ..Material::VACUUM
        };
        let mean = Material::mean(&[(metal, 1), (Material::VACUUM, 1)]).unwrap();
        let half = NodeMedium::from_sets(mean, &[(metal.poles, 0.5)]);
        let whole = NodeMedium::whole(metal);
        let (f, dt) = (0.03, 0.5);
        for (a, b) in [
            (
                half.permittivity(&table, f),
                (whole.permittivity(&table, f) + 1.0) / 2.0,
            ),
            (
                half.discrete_permittivity(&table, f, dt),
                (whole.discrete_permittivity(&table, f, dt) + 1.0) / 2.0,
            ),
        ] {
            assert!((a - b).norm() < 1e-12, "{a} vs {b}");
        }
        assert_eq!(half.pole_count(), 2);
        assert!(!NodeMedium::whole(Material::VACUUM).is_dispersive());
    }

    #[test]
    fn plain_nodes_keep_the_lossy_coefficients() {
        let m = Material {
            sigma: 0.1,
            ..Material::dielectric(3.0)
        };
        assert_eq!(
            NodeMedium::whole(m).electric_coefficients(&[], 0.5),
            crate::material::electric_coefficients(&m, 0.5)
        );
    }
}
