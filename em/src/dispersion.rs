//! The numerical dispersion of the Yee scheme and the resonances of a PEC box.
//!
//! On a lattice of unit cells the Yee scheme propagates a plane wave of wavevector k at the
//! angular frequency ω that solves
//! `[sin(ωΔt/2) / (cΔt)]² = Σᵢ [sin(kᵢΔᵢ/2) / Δᵢ]²`
//! (Taflove & Hagness, 3rd ed., ch. 4, the 3D numerical dispersion relation), with c = Δᵢ = 1.

use core::f64::consts::PI;
// Float gives f64 its math in a pure no_std build; when std is linked anywhere in the
// build, f64's inherent methods win and the import goes unused.
#[allow(unused_imports)]
use num_traits::Float;

/// The angular frequency the Yee scheme gives wavevector `k` at time step `dt`, or `None`
/// beyond the stability limit (no real solution).
pub fn discrete_omega(k: [f64; 3], dt: f64) -> Option<f64> {
    let s: f64 = k
        .iter()
        .map(|&ki| (ki / 2.0).sin().powi(2))
        .sum::<f64>()
        .sqrt();
    let arg = s * dt;
    (arg <= 1.0).then(|| 2.0 * arg.asin() / dt)
}

/// The continuum angular frequency `|k|` (c = 1).
pub fn continuum_omega(k: [f64; 3]) -> f64 {
    k.iter().map(|ki| ki * ki).sum::<f64>().sqrt()
}

/// The wavevector of mode (m, n, p) of a PEC box of `size` cells: `kᵢ = π mᵢ / Lᵢ`.
pub fn cavity_wavevector(mode: [u32; 3], size: [usize; 3]) -> [f64; 3] {
    core::array::from_fn(|i| PI * mode[i] as f64 / size[i] as f64)
}

/// True when (m, n, p) is a mode of a rectangular PEC cavity: at least two indices non-zero.
pub fn is_cavity_mode(mode: [u32; 3]) -> bool {
    mode.iter().filter(|&&m| m > 0).count() >= 2
}

/// The lowest cavity resonances (as continuum frequencies f = ω/2π, ascending) with their
/// modes, written into `out`; modes with equal frequency appear once. Returns how many.
pub fn lowest_cavity_modes(size: [usize; 3], out: &mut [([u32; 3], f64)]) -> usize {
    let mut found = 0;
    let limit = 12;
    for m in 0..limit {
        for n in 0..limit {
            for p in 0..limit {
                let mode = [m, n, p];
                if !is_cavity_mode(mode) {
                    continue;
                }
                let f = continuum_omega(cavity_wavevector(mode, size)) / (2.0 * PI);
                if out[..found]
                    .iter()
                    .any(|&(_, g)| (g - f).abs() <= 1e-12 * f)
                {
                    continue;
                }
                // Insertion into the sorted prefix, dropping the highest when full.
                let pos = out[..found]
                    .iter()
                    .position(|&(_, g)| g > f)
                    .unwrap_or(found);
                if pos == out.len() {
                    continue;
                }
                let end = found.min(out.len() - 1);
                out.copy_within(pos..end, pos + 1);
                out[pos] = (mode, f);
                found = (found + 1).min(out.len());
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_d_magic_step_has_no_dispersion() {
        let k = [0.3, 0.0, 0.0];
        assert!((discrete_omega(k, 1.0).unwrap() - 0.3).abs() < 1e-15);
    }

    #[test]
    fn lowest_modes_of_the_test_cavity() {
        let mut out = [([0; 3], 0.0); 3];
        assert_eq!(lowest_cavity_modes([25, 10, 30], &mut out), 3);
        assert_eq!(out.map(|m| m.0), [[1, 0, 1], [1, 0, 2], [2, 0, 1]]);
    }
}
