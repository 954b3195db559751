//! The material library: dispersive media usable by name in a scene's `[[geometry]]`
//! `material` and `background` (docs/scene.md, "Material library"). Each entry is the
//! `[materials.NAME]` a user would write, in SI units (Hz, s, S/m), with the source of its fit.
//!
//! - Metals: the Lorentz–Drude fits of Rakić, Djurišić, Elazar & Majewski 1998, *Appl. Opt.*
//!   37, 5271–5283: their Lorentz–Drude model, eq. (3), with its fitted parameters (as Meep's
//!   materials library uses them): `ε(ω) = 1 − f₀ωₚ²/(ω(ω + iΓ₀)) + Σⱼ fⱼωₚ²/(ωⱼ² − ω² − iωΓⱼ)` (energies in eV),
//!   which is a Drude pole of plasma frequency ωₚ and strength f₀ and Lorentz poles of strength
//!   `fⱼωₚ²/ωⱼ²` in yee's conventions ([`PoleSpec`]).
//! - Water at 20 °C: one Debye relaxation, Stogryn's fit as Ulaby & Long give it (*Microwave
//!   Radar and Radiometric Remote Sensing*, 2014, §4-1): `ε_s(T) = 88.045 − 0.4147T +
//!   6.295·10⁻⁴T² + 1.075·10⁻⁵T³`, `ε∞ = 4.9`, `2πτ(T) = 1.1109·10⁻¹⁰ − 3.824·10⁻¹²T +
//!   6.938·10⁻¹⁴T² − 5.096·10⁻¹⁶T³` s.
//! - Soil: the semi-empirical mixing model of Peplinski, Ulaby & Dobson 1995, *IEEE Trans.
//!   Geosci. Remote Sens.* 33, 803–807 (eqs. (2)–(6) with the 0.3–1.3 GHz correction) for sand
//!   0.5, clay 0.5, bulk density 2.0 g/cm³, particle density 2.66 g/cm³ and volumetric water
//!   0.10, fitted by least squares over 0.3–1.3 GHz with ε∞, one Debye pole and a
//!   conductivity (worst relative error 0.07 %).

use crate::spec::{Diagonal, MaterialSpec, PoleSpec};

/// Hz per eV: `e/h`.
pub const HZ_PER_EV: f64 = 2.417_989_242e14;

/// One library material.
#[derive(Debug)]
pub struct LibraryMaterial {
    /// The name scenes use.
    pub name: &'static str,
    /// Other names for it.
    pub aliases: &'static [&'static str],
    /// What it is.
    pub description: &'static str,
    /// Where the fit comes from.
    pub source: &'static str,
    /// Where the fit holds.
    pub range: &'static str,
    /// ε∞.
    pub eps: f64,
    /// Conductivity, S/m.
    pub sigma: f64,
    /// The poles, in SI (frequencies in Hz, τ in s).
    pub poles: &'static [PoleSpec],
}

/// A Drude pole of plasma energy `wp` and damping `g0` (eV), strength `f0`.
const fn drude(wp: f64, f0: f64, g0: f64) -> PoleSpec {
    PoleSpec::Drude {
        frequency: wp * HZ_PER_EV,
        gamma: g0 * HZ_PER_EV,
        sigma: f0,
    }
}

/// A Lorentz oscillator `f ωₚ²/(ω₀² − ω² − iωΓ)` (energies in eV).
const fn lorentz(wp: f64, f: f64, gamma: f64, w0: f64) -> PoleSpec {
    PoleSpec::Lorentz {
        frequency: w0 * HZ_PER_EV,
        gamma: gamma * HZ_PER_EV,
        sigma: f * wp * wp / (w0 * w0),
    }
}

const RAKIC: &str = "Rakić, Djurišić, Elazar & Majewski 1998, Appl. Opt. 37, 5271, \
                     Lorentz–Drude model";
const GOLD_WP: f64 = 9.03;
const SILVER_WP: f64 = 9.01;
const ALUMINIUM_WP: f64 = 14.98;

/// Water at 20 °C (module docs): `ε_s` and τ of Stogryn's fit at T = 20.
const WATER_STATIC: f64 = 88.045 - 0.4147 * 20.0 + 6.295e-4 * 400.0 + 1.075e-5 * 8000.0;
const WATER_TAU: f64 = (1.1109e-10 - 3.824e-12 * 20.0 + 6.938e-14 * 400.0 - 5.096e-16 * 8000.0)
    / (2.0 * core::f64::consts::PI);

/// Every library material.
pub const LIBRARY: [LibraryMaterial; 5] = [
    LibraryMaterial {
        name: "gold",
        aliases: &["au"],
        description: "gold (Au), Lorentz–Drude",
        source: RAKIC,
        range: "0.2–5 eV (0.25–6.2 µm)",
        eps: 1.0,
        sigma: 0.0,
        poles: &[
            drude(GOLD_WP, 0.760, 0.053),
            lorentz(GOLD_WP, 0.024, 0.241, 0.415),
            lorentz(GOLD_WP, 0.010, 0.345, 0.830),
            lorentz(GOLD_WP, 0.071, 0.870, 2.969),
            lorentz(GOLD_WP, 0.601, 2.494, 4.304),
            lorentz(GOLD_WP, 4.384, 2.214, 13.32),
        ],
    },
    LibraryMaterial {
        name: "silver",
        aliases: &["ag"],
        description: "silver (Ag), Lorentz–Drude",
        source: RAKIC,
        range: "0.1–5 eV (0.25–12.4 µm)",
        eps: 1.0,
        sigma: 0.0,
        poles: &[
            drude(SILVER_WP, 0.845, 0.048),
            lorentz(SILVER_WP, 0.065, 3.886, 0.816),
            lorentz(SILVER_WP, 0.124, 0.452, 4.481),
            lorentz(SILVER_WP, 0.011, 0.065, 8.185),
            lorentz(SILVER_WP, 0.840, 0.916, 9.083),
            lorentz(SILVER_WP, 5.646, 2.419, 20.29),
        ],
    },
    LibraryMaterial {
        name: "aluminium",
        aliases: &["aluminum", "al"],
        description: "aluminium (Al), Lorentz–Drude",
        source: RAKIC,
        range: "0.1–5 eV (0.25–12.4 µm)",
        eps: 1.0,
        sigma: 0.0,
        poles: &[
            drude(ALUMINIUM_WP, 0.523, 0.047),
            lorentz(ALUMINIUM_WP, 0.227, 0.333, 0.162),
            lorentz(ALUMINIUM_WP, 0.050, 0.312, 1.544),
            lorentz(ALUMINIUM_WP, 0.166, 1.351, 1.808),
            lorentz(ALUMINIUM_WP, 0.030, 3.382, 3.473),
        ],
    },
    LibraryMaterial {
        name: "water",
        aliases: &[],
        description: "pure water at 20 °C, one Debye relaxation",
        source: "Stogryn's fit as in Ulaby & Long 2014, Microwave Radar and Radiometric \
                 Remote Sensing, §4-1",
        range: "up to about 40 GHz (1 % of Liebe 1991's double Debye; 0.6 % below 20 GHz)",
        eps: 4.9,
        sigma: 0.0,
        poles: &[PoleSpec::Debye {
            delta_eps: WATER_STATIC - 4.9,
            tau: WATER_TAU,
        }],
    },
    LibraryMaterial {
        name: "soil",
        aliases: &[],
        description: "soil, sand 0.5 / clay 0.5, bulk density 2.0 g/cm³, 10 % water by volume",
        source: "Peplinski, Ulaby & Dobson 1995, IEEE TGRS 33, 803, fitted as ε∞, one Debye \
                 pole and σ",
        range: "0.3–1.3 GHz (0.07 % of the model)",
        eps: 8.2976,
        sigma: 0.051864,
        poles: &[PoleSpec::Debye {
            delta_eps: 1.4375,
            tau: 16.654e-12,
        }],
    },
];

impl LibraryMaterial {
    /// The `[materials.NAME]` table this entry stands for.
    pub fn spec(&self) -> MaterialSpec {
        MaterialSpec {
            eps: Diagonal::Isotropic(self.eps),
            mu: Diagonal::Isotropic(1.0),
            sigma: self.sigma,
            sigma_m: 0.0,
            poles: self.poles.to_vec(),
        }
    }
}

/// The library material called `name` (or one of its aliases), ignoring case.
pub fn library_material(name: &str) -> Option<&'static LibraryMaterial> {
    LIBRARY.iter().find(|m| {
        m.name.eq_ignore_ascii_case(name) || m.aliases.iter().any(|a| a.eq_ignore_ascii_case(name))
    })
}

/// The library's names, for messages.
pub fn library_names() -> Vec<&'static str> {
    LIBRARY.iter().map(|m| m.name).collect()
}
