//! Material update coefficients of the lossy Yee scheme.
//!
//! With σ averaged in time, `ε ∂E/∂t + σE = ∇×H` becomes
//! `E^{n+1} = Ca E^n + Cb (∇×H)^{n+½}` with
//! `Ca = (1 − σΔt/2ε) / (1 + σΔt/2ε)` and `Cb = (Δt/ε) / (1 + σΔt/2ε)`,
//! and dually for H with μ and the magnetic conductivity σ*
//! (Taflove & Hagness, *Computational Electrodynamics*, 3rd ed., ch. 3, the lossy Yee algorithm). Units are normalised: c = ε₀ = μ₀ = 1
//! and the cell size is 1, so ε and μ are relative and the spatial step drops out.
//!
//! A dispersive material adds poles ([`crate::pole`]); its `eps` is then ε∞, and the update of
//! a node that holds poles is [`crate::medium`]'s.
//!
//! A diagonally anisotropic material ([`Diagonal`]) has `ε = diag(εx, εy, εz)` and
//! `μ = diag(μx, μy, μz)` in the grid's axes. On the Yee lattice each component lives on its
//! own node and its update involves only its own axis's entry (`εx ∂Ex/∂t = (∇×H)x`), so a
//! node of `Ex` sees the isotropic material [`Material::along`]`(x)`: nothing else changes.
//!
//! A general anisotropic material ([`Material::tensor`]) has full symmetric `ε` and `μ`. The
//! update is written with `ε⁻¹` (`E = ε⁻¹D`, `∂D/∂t = ∇×H`): the node of `Ex` takes the
//! diagonal entry `(ε⁻¹)ₓₓ` as its own (its [`Diagonal`] entry is `1/(ε⁻¹)ₓₓ`), and the
//! off-diagonal entries ([`Coupling`]) weigh the curls of the other components, averaged onto
//! its node (`yee_scalar::tensor_nodes`; Kottke, Farjadpour & Johnson 2008, *Phys. Rev. E* 77,
//! 036611, sec. III; Werner & Cary 2007, *J. Comput. Phys.* 226, 1085).

use yee_core::geometry::Axis;

use crate::tensor::{Matrix3, inverse};

/// A material: isotropic unless [`Material::diagonal`] is set.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Material {
    /// Relative permittivity ε (> 0); of an anisotropic material, the mean of its diagonal.
    pub eps: f64,
    /// Relative permeability μ (> 0); of an anisotropic material, the mean of its diagonal.
    pub mu: f64,
    /// Electric conductivity σ (≥ 0), in normalised units (σ Δt / ε is dimensionless).
    pub sigma: f64,
    /// Magnetic conductivity σ* (≥ 0).
    pub sigma_m: f64,
    /// Dispersive poles (none for a plain material): entries of [`crate::Setup::poles`].
    pub poles: PoleSet,
    /// Diagonal anisotropy, or `None` for an isotropic material. The solver sees each
    /// component's axis through [`Material::along`].
    pub diagonal: Option<Diagonal>,
    /// The off-diagonal entries of `ε⁻¹` and `μ⁻¹` of a general anisotropic material, `None`
    /// when they are all zero.
    pub coupling: Option<Coupling>,
}

/// The off-diagonal entries of a general anisotropic material's `ε⁻¹` and `μ⁻¹`, each indexed
/// by the axis its pair leaves out ([`Coupling::slot`]): `[yz, xz, xy]`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Coupling {
    /// `[(ε⁻¹)yz, (ε⁻¹)xz, (ε⁻¹)xy]`.
    pub eps_inverse: [f64; 3],
    /// `[(μ⁻¹)yz, (μ⁻¹)xz, (μ⁻¹)xy]`.
    pub mu_inverse: [f64; 3],
}

impl Coupling {
    /// The slot of the pair of distinct axes `a`, `b`: the axis it leaves out.
    pub const fn slot(a: usize, b: usize) -> usize {
        3 - a - b
    }

    /// The entries of `ε⁻¹` (`electric`) or `μ⁻¹` coupling axis `a` to the two others, as
    /// `[(b, entry); 2]` with `b` increasing.
    pub fn row(&self, electric: bool, a: usize) -> [(usize, f64); 2] {
        let entries = if electric {
            self.eps_inverse
        } else {
            self.mu_inverse
        };
        let (b, c) = ((a + 1) % 3, (a + 2) % 3);
        let (b, c) = (b.min(c), b.max(c));
        [
            (b, entries[Coupling::slot(a, b)]),
            (c, entries[Coupling::slot(a, c)]),
        ]
    }

    /// `None` when every entry is zero.
    fn nonzero(self) -> Option<Coupling> {
        let any = self
            .eps_inverse
            .iter()
            .chain(&self.mu_inverse)
            .any(|&v| v != 0.0);
        any.then_some(self)
    }
}

/// The diagonals of a diagonally anisotropic ε and μ, along x, y, z.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Diagonal {
    /// `εx, εy, εz` (each > 0).
    pub eps: [f64; 3],
    /// `μx, μy, μz` (each > 0).
    pub mu: [f64; 3],
}

/// A material's dispersive poles: `count` entries of [`crate::Setup::poles`] from `first`
/// (as a DFT monitor names its frequencies).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PoleSet {
    /// The first pole's index.
    pub first: usize,
    /// How many.
    pub count: usize,
}

impl PoleSet {
    /// No poles: a non-dispersive material.
    pub const NONE: PoleSet = PoleSet { first: 0, count: 0 };

    /// True without poles.
    pub const fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// The poles of `table` this set names (`None` when it reaches past the table).
    pub fn of<'a>(&self, table: &'a [crate::Pole]) -> Option<&'a [crate::Pole]> {
        table.get(self.first..self.first.checked_add(self.count)?)
    }
}

impl Material {
    /// Vacuum: ε = μ = 1, lossless.
    pub const VACUUM: Material = Material {
        eps: 1.0,
        mu: 1.0,
        sigma: 0.0,
        sigma_m: 0.0,
        poles: PoleSet::NONE,
        diagonal: None,
        coupling: None,
    };

    /// A lossless dielectric of relative permittivity `eps`.
    pub const fn dielectric(eps: f64) -> Material {
        Material {
            eps,
            ..Material::VACUUM
        }
    }

    /// A lossless material with diagonal `eps` and `mu` (`eps` and `mu` hold their means).
    pub fn anisotropic(eps: [f64; 3], mu: [f64; 3]) -> Material {
        Material {
            eps: (eps[0] + eps[1] + eps[2]) / 3.0,
            mu: (mu[0] + mu[1] + mu[2]) / 3.0,
            diagonal: Some(Diagonal { eps, mu }),
            ..Material::VACUUM
        }
    }

    /// A lossless general anisotropic material of symmetric positive definite `eps` and `mu`
    /// ([`crate::tensor::check_symmetric_positive`] must pass). Each axis's [`Diagonal`] entry
    /// is the inverse of the diagonal entry of the tensor's inverse (what the component along
    /// it weighs its own curl by); the off-diagonal entries of the inverses are the
    /// [`Coupling`]. Diagonal tensors give [`Material::anisotropic`] of their diagonals.
    pub fn tensor(eps: Matrix3, mu: Matrix3) -> Material {
        let diagonal_of = |m: &Matrix3| -> Option<[f64; 3]> {
            let off = [m[0][1], m[0][2], m[1][2]];
            off.iter()
                .all(|&v| v == 0.0)
                .then_some([m[0][0], m[1][1], m[2][2]])
        };
        let split = |m: &Matrix3| -> ([f64; 3], [f64; 3]) {
            if let Some(d) = diagonal_of(m) {
                return (d, [0.0; 3]);
            }
            let inv = inverse(m);
            (
                core::array::from_fn(|a| 1.0 / inv[a][a]),
                [inv[1][2], inv[0][2], inv[0][1]],
            )
        };
        let ((eps_diagonal, eps_inverse), (mu_diagonal, mu_inverse)) = (split(&eps), split(&mu));
        Material {
            coupling: Coupling {
                eps_inverse,
                mu_inverse,
            }
            .nonzero(),
            ..Material::anisotropic(eps_diagonal, mu_diagonal)
        }
    }

    /// The isotropic material a component along `axis` sees: ε and μ are the diagonals'
    /// entries for `axis` (the material itself when it is isotropic); of the [`Coupling`],
    /// only the entries of `axis`'s row stay.
    pub fn along(&self, axis: Axis) -> Material {
        let coupling = self.coupling.and_then(|c| {
            let mut row = c;
            row.eps_inverse[axis.index()] = 0.0;
            row.mu_inverse[axis.index()] = 0.0;
            row.nonzero()
        });
        match self.diagonal {
            None => Material { coupling, ..*self },
            Some(d) => Material {
                eps: d.eps[axis.index()],
                mu: d.mu[axis.index()],
                diagonal: None,
                coupling,
                ..*self
            },
        }
    }

    /// The full `ε` (`electric`) or `μ` tensor: the inverse of the tensor whose diagonal is
    /// the inverses of [`Material::diagonals`] and whose off-diagonal entries are the
    /// [`Coupling`] (the material's own tensor for one made by [`Material::tensor`]).
    pub fn full_tensor(&self, electric: bool) -> Matrix3 {
        let d = self.diagonals();
        let diagonal = if electric { d.eps } else { d.mu };
        let Some(c) = self.coupling else {
            return core::array::from_fn(|i| {
                core::array::from_fn(|j| if i == j { diagonal[i] } else { 0.0 })
            });
        };
        let off = if electric {
            c.eps_inverse
        } else {
            c.mu_inverse
        };
        let inv: Matrix3 = core::array::from_fn(|i| {
            core::array::from_fn(|j| match i == j {
                true => 1.0 / diagonal[i],
                false => off[Coupling::slot(i, j)],
            })
        });
        inverse(&inv)
    }

    /// `[εx, εy, εz]` and `[μx, μy, μz]` (three equal entries when isotropic).
    pub fn diagonals(&self) -> Diagonal {
        self.diagonal.unwrap_or(Diagonal {
            eps: [self.eps; 3],
            mu: [self.mu; 3],
        })
    }
}

impl Material {
    /// The mean of `parts`, each material taken `count` times: ε, μ, σ and σ* (and the
    /// [`Coupling`]'s entries, zero for a material without) each averaged arithmetically, as cell-based codes average the cells around an edge (gprMax: Warren,
    /// Giannopoulos & Giannakis 2016, *Comput. Phys. Commun.* 209, 163–170). Summed in the
    /// order given, so equal parts in equal order give equal bits; a single part comes back
    /// unchanged. The poles are the parts' when they all share one set, else none: a mix of
    /// pole sets is weighed per set ([`crate::medium::NodeMedium`]). `None` when the counts
    /// add up to zero.
    pub fn mean(parts: &[(Material, u32)]) -> Option<Material> {
        let total: u32 = parts.iter().map(|&(_, n)| n).sum();
        if total == 0 {
            return None;
        }
        let average = |get: fn(&Material) -> f64| {
            parts
                .iter()
                .map(|(m, n)| get(m) * f64::from(*n))
                .sum::<f64>()
                / f64::from(total)
        };
        let diagonal = match parts.iter().any(|(m, _)| m.diagonal.is_some()) {
            false => None,
            true => {
                let entry = |get: fn(&Diagonal) -> [f64; 3], a: usize| {
                    parts
                        .iter()
                        .map(|(m, n)| get(&m.diagonals())[a] * f64::from(*n))
                        .sum::<f64>()
                        / f64::from(total)
                };
                Some(Diagonal {
                    eps: core::array::from_fn(|a| entry(|d| d.eps, a)),
                    mu: core::array::from_fn(|a| entry(|d| d.mu, a)),
                })
            }
        };
        let coupling = match parts.iter().any(|(m, _)| m.coupling.is_some()) {
            false => None,
            true => {
                let entry = |get: fn(&Coupling) -> [f64; 3], k: usize| {
                    parts
                        .iter()
                        .map(|(m, n)| m.coupling.map_or(0.0, |c| get(&c)[k]) * f64::from(*n))
                        .sum::<f64>()
                        / f64::from(total)
                };
                Coupling {
                    eps_inverse: core::array::from_fn(|k| entry(|c| c.eps_inverse, k)),
                    mu_inverse: core::array::from_fn(|k| entry(|c| c.mu_inverse, k)),
                }
                .nonzero()
            }
        };
        Some(Material {
            eps: average(|m| m.eps),
            mu: average(|m| m.mu),
            sigma: average(|m| m.sigma),
            sigma_m: average(|m| m.sigma_m),
            poles: match parts.iter().all(|(m, _)| m.poles == parts[0].0.poles) {
                true => parts[0].0.poles,
                false => PoleSet::NONE,
            },
            diagonal,
            coupling,
        })
    }

    /// The parameters' bit patterns (the diagonals' entries, σ, σ*, the pole set's indices
    /// and the [`Coupling`]'s entries): a total order and an exact identity for interning. An isotropic material and
    /// an anisotropic one with three equal entries are the same material.
    pub fn to_bits(&self) -> MaterialBits {
        let Diagonal { eps, mu } = self.diagonals();
        let c = self.coupling.unwrap_or(Coupling {
            eps_inverse: [0.0; 3],
            mu_inverse: [0.0; 3],
        });
        let [ex, ey, ez, mx, my, mz, sigma, sigma_m] = [
            eps[0],
            eps[1],
            eps[2],
            mu[0],
            mu[1],
            mu[2],
            self.sigma,
            self.sigma_m,
        ]
        .map(f64::to_bits);
        [
            ex,
            ey,
            ez,
            mx,
            my,
            mz,
            sigma,
            sigma_m,
            self.poles.first as u64,
            self.poles.count as u64,
            c.eps_inverse[0].to_bits(),
            c.eps_inverse[1].to_bits(),
            c.eps_inverse[2].to_bits(),
            c.mu_inverse[0].to_bits(),
            c.mu_inverse[1].to_bits(),
            c.mu_inverse[2].to_bits(),
        ]
    }

    /// True when the material has poles.
    pub fn is_dispersive(&self) -> bool {
        !self.poles.is_empty()
    }
}

impl Default for Material {
    fn default() -> Self {
        Material::VACUUM
    }
}

/// A [`Material`]'s bit patterns ([`Material::to_bits`]).
pub type MaterialBits = [u64; 16];

/// The two coefficients of one update: `F^{new} = decay · F^{old} + curl · (∇×G)`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct UpdateCoefficients {
    /// `Ca` (E) or `Da` (H).
    pub decay: f64,
    /// `Cb` (E) or `Db` (H).
    pub curl: f64,
}

/// `Ca`, `Cb` of the E update (E half of the lossy Yee algorithm).
pub fn electric_coefficients(m: &Material, dt: f64) -> UpdateCoefficients {
    lossy_coefficients(m.eps, m.sigma, dt)
}

/// `Da`, `Db` of the H update (H half, the dual of the E half).
pub fn magnetic_coefficients(m: &Material, dt: f64) -> UpdateCoefficients {
    lossy_coefficients(m.mu, m.sigma_m, dt)
}

pub(crate) fn lossy_coefficients(
    permittivity: f64,
    conductivity: f64,
    dt: f64,
) -> UpdateCoefficients {
    let loss = conductivity * dt / (2.0 * permittivity);
    UpdateCoefficients {
        decay: (1.0 - loss) / (1.0 + loss),
        curl: (dt / permittivity) / (1.0 + loss),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lossless_coefficients() {
        let c = electric_coefficients(&Material::dielectric(4.0), 0.5);
        assert_eq!(
            c,
            UpdateCoefficients {
                decay: 1.0,
                curl: 0.125
            }
        );
    }

    #[test]
    fn mean_averages_each_parameter() {
        let glass = Material {
            sigma: 0.5,
            ..Material::dielectric(4.0)
        };
        let m = Material::mean(&[(glass, 1), (Material::VACUUM, 3)]).unwrap();
        assert_eq!(
            m,
            Material {
                eps: 1.75,
                mu: 1.0,
                sigma: 0.125,
                sigma_m: 0.0,
                poles: PoleSet::NONE,
                diagonal: None,
                coupling: None,
            }
        );
        // Eight equal samples give the material back bit for bit.
        let odd = Material::dielectric(0.1);
        assert_eq!(Material::mean(&[(odd, 8)]), Some(odd));
        assert_eq!(Material::mean(&[]), None);
    }

    #[test]
    fn lossy_coefficients_by_hand() {
        // σΔt/2ε = 0.1·0.5/2 = 0.025
        let m = Material {
            sigma: 0.1,
            ..Material::VACUUM
        };
        let c = electric_coefficients(&m, 0.5);
        assert!((c.decay - 0.975 / 1.025).abs() < 1e-15);
        assert!((c.curl - 0.5 / 1.025).abs() < 1e-15);
    }
}
