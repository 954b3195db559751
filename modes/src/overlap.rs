//! The forward and backward amplitudes of a waveguide mode in the transforms of a run's fields
//! on a plane: mode decomposition by the overlap integrals of the mode's fields with the
//! fields' (Snyder & Love, *Optical Waveguide Theory*, 1983, §31; Meep's
//! `get_eigenmode_coefficients`, "Mode Decomposition" in Meep's documentation, whose
//! `α± = (⟨E_m|H⟩ ± ⟨H_m|E⟩) / 2N_m` this is, in the sign convention below).
//!
//! **The expansion.** On the plane, the transverse fields of a sum of a forward and a backward
//! wave of mode m are `E_t = (a⁺ + a⁻) E_m`, `H_t = (a⁺ − a⁻) H_m` (the backward mode has the
//! same transverse E and the opposite transverse H). With `P = Σ (E_m × H_m*)·p̂` over the
//! plane, `X = Σ (E × H_m*)·p̂ = (a⁺ + a⁻) P` and `Y = Σ (E_m* × H)·p̂ = (a⁺ − a⁻) P` (the
//! transverse mode fields are real), so `a± = (X ± Y) / 2P`; other modes drop out of both
//! sums by the modes' orthogonality `Σ (E_m × H_n*)·p̂ = 0` for m ≠ n.
//!
//! **On the grid.** Every sum runs over the plane's nodes as the mode solver's power does
//! (`E_u` and `H_v` share a node in the plane, as do `E_v` and `H_u`: no interpolation across
//! the plane). Along the normal the tangential E nodes lie in the plane, the tangential H
//! nodes half a cell either side: H is their mean, which for a mode `e^{±iβp}` is `cos(β/2)`
//! times H in the plane whichever way it travels; and in time H is taken as the mean of its
//! two half steps around E's time (the transform's `cos(ωΔt/2)`,
//! [`yee_em::dft::DftMonitor::h_average`]). The mode's H is given the same two factors, so `P`
//! is, to the factor ½, the power the flux monitor measures for the mode
//! ([`yee_em::flux`]: the same averages). The amplitudes returned are `A± = a± √(P/2)`:
//! `|A±|²` is the power carried forward and backward in the flux's own units, and for fields
//! of the modes alone the flux through the plane is `Σ_m (|A⁺_m|² − |A⁻_m|²)`.

use num_complex::Complex64;
use yee_core::geometry::Index3;
use yee_em::DftFields;
use yee_em::dft::DftMonitor;
use yee_em::yee::Component;

use crate::cross_section::CrossSection;
use crate::solver::WaveguideMode;

/// A mode's amplitudes, normalised so that `|A|²` is power in the flux monitor's units
/// (module docs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ModeAmplitudes {
    /// Along increasing coordinate of the normal.
    pub forward: Complex64,
    /// Along decreasing coordinate.
    pub backward: Complex64,
}

/// Where a monitor's transforms are read: its grid, its periodic axes, the time step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GridOf {
    /// Cells per axis.
    pub grid: [usize; 3],
    /// Periodic axes (a node beyond the grid wraps).
    pub periodic: [bool; 3],
    /// The time step (normalised).
    pub dt: f64,
}

/// The tangential fields of a run's transforms on the plane of a [`CrossSection`] at one
/// frequency, per node: E in the plane, H the mean of its two node layers either side and of
/// its two half steps around E's time (module docs).
#[derive(Clone, Debug, PartialEq)]
pub struct PlaneFields {
    /// `E_u`, `E_v`.
    pub e: [Vec<Complex64>; 2],
    /// `H_u`, `H_v`, averaged.
    pub h: [Vec<Complex64>; 2],
    /// The time factor `cos(ωΔt/2)` H carries ([`DftMonitor::h_average`]).
    pub time_factor: f64,
}

impl PlaneFields {
    /// The fields of `data` at frequency index `f` on the plane of `cs`.
    pub fn of(cs: &CrossSection, data: &DftFields, f: usize, at: GridOf) -> PlaneFields {
        let [u, v, p] = [cs.axes[0], cs.axes[1], cs.normal];
        let time_factor = DftMonitor::h_average(data.frequencies[f], at.dt);
        let [nu, _] = cs.size;
        let mut out = PlaneFields {
            e: Default::default(),
            h: Default::default(),
            time_factor,
        };
        for n in 0..cs.nodes() {
            let mut cell: Index3 = [0; 3];
            cell[u.index()] = (n % nu) as i64;
            cell[v.index()] = (n / nu) as i64;
            cell[p.index()] = cs.index as i64;
            let mut below = cell;
            below[p.index()] -= 1;
            for (k, a) in [u, v].into_iter().enumerate() {
                let read =
                    |c: Component, at_cell: Index3| data.at(c, at_cell, f, at.grid, at.periodic);
                let ce = Component::along(a, true);
                let ch = Component::along(a, false);
                out.e[k].push(read(ce, cell));
                out.h[k].push((read(ch, cell) + read(ch, below)) * (0.5 * time_factor));
            }
        }
        out
    }

    /// The net power through the plane along increasing coordinate, `½ Re Σ (E × H*)·p̂` over
    /// the nodes: the sum the amplitudes are taken with.
    pub fn power(&self) -> f64 {
        let [eu, ev] = &self.e;
        let [hu, hv] = &self.h;
        0.5 * (0..eu.len())
            .map(|n| (eu[n] * hv[n].conj() - ev[n] * hu[n].conj()).re)
            .sum::<f64>()
    }

    /// The amplitudes of `mode` (a mode of the plane's cross-section found with the grid's
    /// own dispersion) in these fields (module docs).
    pub fn amplitudes(&self, mode: &WaveguideMode, cs: &CrossSection) -> ModeAmplitudes {
        let [u, v] = cs.axes;
        let factor = self.time_factor * (mode.beta / 2.0).cos();
        let m = &mode.fields;
        let [eu, ev] = &self.e;
        let [hu, hv] = &self.h;
        let (mut x, mut y, mut norm) = (Complex64::default(), Complex64::default(), 0.0);
        for n in 0..eu.len() {
            let (em_u, em_v) = (m.e[u.index()][n], m.e[v.index()][n]);
            let (hm_u, hm_v) = (m.h[u.index()][n] * factor, m.h[v.index()][n] * factor);
            x += eu[n] * hm_v.conj() - ev[n] * hm_u.conj();
            y += em_u.conj() * hv[n] - em_v.conj() * hu[n];
            norm += (em_u * hm_v.conj() - em_v * hm_u.conj()).re;
        }
        let scale = 1.0 / (2.0 * (2.0 * norm).sqrt());
        ModeAmplitudes {
            forward: (x + y) * scale,
            backward: (x - y) * scale,
        }
    }
}
