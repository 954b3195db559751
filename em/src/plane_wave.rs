//! Total-field/scattered-field (TF/SF) plane waves: a box of the grid holds the total field,
//! the rest only the scattered field, and the incident wave is injected on the box's surface
//! from a one-dimensional auxiliary grid (Taflove & Hagness, *Computational Electrodynamics*,
//! 3rd ed., §5.6–5.8; Schneider, *Understanding the FDTD Method*, §3.10 and §9.5).
//!
//! The rule is the same for every node: an update reads neighbours; where the updated node and
//! a neighbour lie on different sides of the surface, the neighbour's incident value is added
//! (updated node inside, neighbour outside: the update needs the total field) or subtracted
//! (inside out: it needs the scattered field) — Taflove & Hagness eqs. (5.46)–(5.49), written
//! once for any component, axis and box. For a wave along a grid axis the auxiliary grid's
//! update equations are the main grid's restricted to one line, so the incident field is an
//! exact solution of the discrete equations and nothing leaks into the scattered region but
//! rounding.

use alloc::vec;
use alloc::vec::Vec;

use crate::cpml::{CpmlParams, cpml_coefficients};
use crate::material::{Material, electric_coefficients, magnetic_coefficients};
use crate::waveform::Waveform;
use crate::yee::{Component, CurlTerm, Mode};
use yee_core::geometry::{Axis, Box3, Index3, Side};
// Float gives f64 its math in a pure no_std build.
#[allow(unused_imports)]
use num_traits::Float;

/// The CPML at each end of the auxiliary grid: a plain PML (no complex-frequency shift α,
/// κ = 1) graded at order 4 over 20 cells with the near-optimal σmax. The line carries only a
/// wave at normal incidence, with no evanescent part for α to absorb, and α > 0 turns the
/// stretch `1 + σ/(α + iω)` real below ω ≈ α: the DC part of a Gaussian-modulated carrier
/// (`exp(−2π²(f₀w)²)` of its spectral peak) came back from the far end and lingered in the
/// total-field box (1.3e-3 of the peak by t = 5000 for f₀w = 0.36 with α = 0.05; 1.6e-7 with
/// this layer, issue 51). Order 4 against 3 lowers the reflection of the band from 1.4e-6 to
/// 1e-8 (Taflove & Hagness, 3rd ed., §7.6: m between 3 and 4).
const LINE_PML: CpmlParams = CpmlParams {
    thickness: 20,
    order: 4.0,
    sigma_max: None,
    kappa_max: 1.0,
    alpha_max: 0.0,
};
/// Cells of CPML at each end of the auxiliary grid.
const LINE_CPML: usize = LINE_PML.thickness;
/// Cells between a CPML of the auxiliary grid and the nodes the surface reads.
const LINE_GAP: i64 = 8;
/// Where the auxiliary grid launches its wave, along the travel from the corner where the
/// wave enters the box: far enough back that every node next to the surface (within √3 of the
/// corner) and its interpolation neighbours lie on the total side.
const LAUNCH: i64 = -5;

/// A plane wave injected on the surface of a total-field box.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PlaneWave {
    /// The total-field box in cells: nodes whose position lies in the closed box
    /// `[lo, hi]` (on the axes the mode uses) carry the total field. On a periodic axis the
    /// wave does not travel along, the box may span the whole grid (`lo = 0`, `hi = cells`):
    /// it then has no surface across that axis.
    pub region: Box3,
    /// The direction of travel k (normalised when used; zero on axes the mode does not use).
    /// Along a grid axis the incident field is exact; oblique, it is interpolated from the
    /// auxiliary grid, whose dispersion is matched to the main grid's along k.
    pub direction: [f64; 3],
    /// The direction of the electric field (normalised when used; perpendicular to k).
    pub polarization: [f64; 3],
    /// Time dependence of the incident E at the corner where the wave enters the box.
    pub waveform: Waveform,
    /// Peak incident E.
    pub amplitude: f64,
}

fn unit(v: [f64; 3]) -> [f64; 3] {
    let n = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
    v.map(|x| x / n)
}

fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

impl PlaneWave {
    /// The unit direction of travel k̂.
    pub fn k_direction(&self) -> [f64; 3] {
        unit(self.direction)
    }

    /// The axis the wave travels along, when it travels along one.
    pub fn aligned_axis(&self) -> Option<usize> {
        let nonzero: heapless::Vec<usize, 3> =
            (0..3).filter(|&a| self.direction[a] != 0.0).collect();
        (nonzero.len() == 1).then(|| nonzero[0])
    }

    /// The unit electric direction ê.
    pub fn e_direction(&self) -> [f64; 3] {
        unit(self.polarization)
    }

    /// The magnetic direction ĥ = k̂ × ê: the incident H is `h ĥ` with `h` the auxiliary
    /// grid's magnetic value.
    pub fn h_direction(&self) -> [f64; 3] {
        let (k, e) = (self.k_direction(), self.e_direction());
        [
            k[1] * e[2] - k[2] * e[1],
            k[2] * e[0] - k[0] * e[2],
            k[0] * e[1] - k[1] * e[0],
        ]
    }

    /// The incident part of component `c` per unit of the auxiliary value.
    pub fn weight(&self, c: Component) -> f64 {
        let d = if c.is_electric() {
            self.e_direction()
        } else {
            self.h_direction()
        };
        d[c.axis().index()]
    }

    /// The corner of the box the wave reaches first: the origin of the distance along k̂.
    fn entry_corner(&self) -> [f64; 3] {
        core::array::from_fn(|a| {
            if self.direction[a] >= 0.0 {
                self.region.lo[a] as f64
            } else {
                self.region.hi[a] as f64
            }
        })
    }

    /// The distance along k̂ of position `x` from the entry corner (axes where k̂ is zero do
    /// not count, so the unused and spanned axes drop out).
    pub fn distance(&self, x: [f64; 3]) -> f64 {
        distance_along(self.k_direction(), self.entry_corner(), x)
    }

    /// The range of [`PlaneWave::distance`] over the box grown by one cell.
    fn distance_range(&self, mode: Mode) -> (f64, f64) {
        let active = mode.active_axes();
        let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
        for corner in 0..8 {
            let x: [f64; 3] = core::array::from_fn(|a| {
                let high = corner >> a & 1 == 1;
                match (active[a], high) {
                    (false, _) => 0.0,
                    (true, false) => self.region.lo[a] as f64 - 1.0,
                    (true, true) => self.region.hi[a] as f64 + 1.0,
                }
            });
            let d = self.distance(x);
            lo = lo.min(d);
            hi = hi.max(d);
        }
        (lo, hi)
    }

    /// True when the node at continuous position `x` carries the total field.
    pub fn is_total(&self, mode: Mode, x: [f64; 3]) -> bool {
        let active = mode.active_axes();
        (0..3).all(|a| {
            !active[a]
                || self.spans(a)
                || (self.region.lo[a] as f64 <= x[a] && x[a] <= self.region.hi[a] as f64)
        })
    }

    /// True when the box spans axis `a` (valid on periodic axes only): no surface across it.
    fn spans(&self, a: usize) -> bool {
        self.region.lo[a] <= 0
    }

    /// The cells whose nodes the TF/SF surface corrects, as slabs two cells thick around each
    /// face the box has (edges counted once per face): the wave's share of the load.
    pub fn surface_slabs(&self, mode: Mode) -> impl Iterator<Item = Box3> + '_ {
        let active = mode.active_axes();
        let outer = Box3::new(
            core::array::from_fn(|a| if active[a] { self.region.lo[a] - 1 } else { 0 }),
            core::array::from_fn(|a| if active[a] { self.region.hi[a] + 1 } else { 1 }),
        );
        Axis::ALL
            .into_iter()
            .filter(move |a| active[a.index()] && !self.spans(a.index()))
            .flat_map(move |axis| {
                let a = axis.index();
                [self.region.lo[a], self.region.hi[a]].map(|face| {
                    outer.with_bound(axis, Side::Low, face - 1).with_bound(
                        axis,
                        Side::High,
                        face + 1,
                    )
                })
            })
    }

    /// The first reason the wave cannot run on a `mode` grid of `grid` cells with `periodic`
    /// axes, if any.
    pub fn invalid_parameter(
        &self,
        mode: Mode,
        grid: [usize; 3],
        periodic: [bool; 3],
    ) -> Option<&'static str> {
        let active = mode.active_axes();
        if !self.amplitude.is_finite() {
            return Some("amplitude");
        }
        if self.waveform.invalid_parameter().is_some() {
            return Some("waveform");
        }
        let (k, p) = (self.direction, self.polarization);
        if k.iter().any(|x| !x.is_finite()) || k.iter().all(|&x| x == 0.0) {
            return Some("direction (zero or not finite)");
        }
        if (0..3).any(|a| !active[a] && k[a] != 0.0) {
            return Some("direction (along an axis the mode does not use)");
        }
        if p.iter().any(|x| !x.is_finite()) || p.iter().all(|&x| x == 0.0) {
            return Some("polarization (zero or not finite)");
        }
        if dot(self.k_direction(), self.e_direction()).abs() > 1e-9 {
            return Some("polarization (not perpendicular to the direction of travel)");
        }
        for c in Component::ALL {
            if self.weight(c).abs() > 1e-12 && !mode.has(c) {
                return Some("polarization (needs a component the mode does not carry)");
            }
        }
        for a in 0..3 {
            if !active[a] {
                continue;
            }
            let (lo, hi) = (self.region.lo[a], self.region.hi[a]);
            let spanning = lo == 0 && hi == grid[a] as i64;
            if spanning && periodic[a] && k[a] == 0.0 {
                continue;
            }
            if !(lo >= 1 && hi > lo && hi < grid[a] as i64) {
                return Some(
                    "box (needs 1 ≤ lo < hi ≤ cells − 1 on each axis in use, or the whole of \
                     a periodic axis the wave does not travel along)",
                );
            }
        }
        None
    }
}

/// `k · (x − corner)` over the axes where `k` is not zero.
fn distance_along(k: [f64; 3], corner: [f64; 3], x: [f64; 3]) -> f64 {
    (0..3)
        .filter(|&a| k[a] != 0.0)
        .map(|a| k[a] * (x[a] - corner[a]))
        .sum()
}

/// The wavenumber of a plane wave of angular frequency `omega` travelling along the unit
/// vector `k` in a medium of index `n` on the Yee grid (Δ = 1, time step `dt`): the root of
/// `Σₐ sin²(k kₐ/2) = (n sin(ω Δt/2) / Δt)²` (Taflove & Hagness, 3rd ed., eq. (4.12)) by
/// Newton's method from the continuous `nω` (along an axis, the closed form
/// `2 asin((n/Δt) sin(ωΔt/2))`); `None` beyond the grid's cut-off or at `ω = 0`.
pub fn grid_wavenumber(omega: f64, n: f64, k: [f64; 3], dt: f64) -> Option<f64> {
    let sine = n * (omega * dt / 2.0).sin() / dt;
    if k.iter().filter(|&&c| c != 0.0).count() == 1 {
        let x = 2.0 * sine.asin();
        return (sine < 1.0 && x > 0.0).then_some(x);
    }
    let target = sine.powi(2);
    let mut x = n * omega;
    for _ in 0..50 {
        let f: f64 = k.iter().map(|&c| (x * c / 2.0).sin().powi(2)).sum::<f64>() - target;
        let df: f64 = k.iter().map(|&c| c / 2.0 * (x * c).sin()).sum();
        if df == 0.0 || !f.is_finite() {
            return None;
        }
        let step = f / df;
        x -= step;
        if step.abs() <= 1e-15 * x.abs() {
            return (x.is_finite() && x > 0.0).then_some(x);
        }
    }
    None
}

/// The speed the analytic pulse is delayed by between the launch point and the entry corner:
/// the line's own phase velocity at the waveform's centre frequency,
/// `ω / k` with `sin(k/2) = (n₁/Δt) sin(ωΔt/2)` (Taflove & Hagness, 3rd ed., eq. (4.12)), so
/// that the incident E at the entry corner is `amplitude · w(t)` at that frequency whatever
/// the grid's dispersion; the continuous `1/n₁` where that is undefined.
fn launch_speed(wave: &PlaneWave, medium: &Material, dt: f64) -> f64 {
    let n = (medium.eps * medium.mu).sqrt();
    let omega = 2.0 * core::f64::consts::PI * wave.waveform.centre_frequency();
    grid_wavenumber(omega, n, [1.0, 0.0, 0.0], dt)
        .map(|k| omega / k)
        .filter(|v| v.is_finite() && *v > 0.0)
        .unwrap_or(1.0 / n)
}

/// The one-dimensional auxiliary grid of a [`PlaneWave`], along its direction of travel:
/// `e[m]` at distance `origin + m` from the entry corner and `h[m]` at `origin + m + ½`, with
/// CPML at both ends. Its medium is the background with ε and μ both scaled by `n₁/n`, so that
/// its impedance is the background's and its phase velocity at the waveform's centre frequency
/// is the main grid's along k̂ (the matched numerical dispersion of Taflove & Hagness, 3rd ed.,
/// §5.9; along a grid axis the two grids' equations agree and nothing is scaled). The wave is
/// launched into it at a one-point TF/SF from the analytic `amplitude · w(t − s/v)`; the grid
/// then carries its own discrete wave, and a node of the main grid takes the value at its
/// distance along k̂ (cubic Lagrange interpolation; exact along an axis).
#[derive(Clone, Debug)]
pub struct IncidentLine {
    wave: PlaneWave,
    /// The wave's k̂, entry corner and [`PlaneWave::weight`] per component, computed once.
    k: [f64; 3],
    corner: [f64; 3],
    weights: [f64; 6],
    origin: i64,
    e: Vec<f64>,
    h: Vec<f64>,
    psi_e: Vec<f64>,
    psi_h: Vec<f64>,
    /// `[b, c, 1/κ]` per e and per h node.
    stretch_e: Vec<[f64; 3]>,
    stretch_h: Vec<[f64; 3]>,
    /// `[Ca, Cb]`, `[Da, Db]` of the line's medium.
    electric: [f64; 2],
    magnetic: [f64; 2],
    /// Index of the injection e node.
    inject: usize,
    /// Phase velocity and impedance of the line's medium.
    speed: f64,
    impedance: f64,
    dt: f64,
    /// Half steps done: after `2n` e holds `E^n` and h `H^{n−½}`; after `2n + 1`, h `H^{n+½}`.
    half: u64,
    /// The values of the steps of a tile ([`IncidentLine::keep_steps`]): from step
    /// `kept_from`, per step `n` the `E^n` and then the `H^{n+½}` of every node; empty when
    /// no tile runs.
    kept: Vec<f64>,
    kept_from: u64,
}

impl IncidentLine {
    /// The auxiliary grid of `wave` on a `mode` grid in `background` with time step `dt`, at
    /// rest.
    pub fn new(wave: &PlaneWave, mode: Mode, background: &Material, dt: f64) -> Self {
        let n = (background.eps * background.mu).sqrt();
        let scale = match wave.aligned_axis() {
            Some(_) => 1.0,
            None => {
                let omega = 2.0 * core::f64::consts::PI * wave.waveform.centre_frequency();
                grid_wavenumber(omega, n, wave.k_direction(), dt)
                    .map(|k| dt * (k / 2.0).sin() / (omega * dt / 2.0).sin() / n)
                    .filter(|r| r.is_finite() && *r > 0.0)
                    .unwrap_or(1.0)
            }
        };
        let medium = Material {
            eps: background.eps * scale,
            mu: background.mu * scale,
            sigma: background.sigma * scale,
            sigma_m: background.sigma_m * scale,
            poles: crate::material::PoleSet::NONE,
            diagonal: None,
            coupling: None,
        };
        let pad = LINE_CPML as i64 + LINE_GAP;
        let (near, far) = wave.distance_range(mode);
        let origin = (near.floor() as i64).min(LAUNCH) - pad;
        let len = (far.ceil() as i64 - origin + pad) as usize + 1;
        let params = LINE_PML;
        let depth = |x: f64| {
            let t = LINE_CPML as f64;
            let from_low = t - x;
            let from_high = x - (len - 1) as f64 + t;
            from_low.max(from_high)
        };
        let table = |shift: f64| -> Vec<[f64; 3]> {
            (0..len)
                .map(|m| {
                    let k = cpml_coefficients(&params, depth(m as f64 + shift), dt);
                    [k.b, k.c, k.inv_kappa]
                })
                .collect()
        };
        let ke = electric_coefficients(&medium, dt);
        let kh = magnetic_coefficients(&medium, dt);
        IncidentLine {
            wave: *wave,
            k: wave.k_direction(),
            corner: wave.entry_corner(),
            weights: Component::ALL.map(|c| wave.weight(c)),
            origin,
            e: vec![0.0; len],
            h: vec![0.0; len],
            psi_e: vec![0.0; len],
            psi_h: vec![0.0; len],
            stretch_e: table(0.0),
            stretch_h: table(0.5),
            electric: [ke.decay, ke.curl],
            magnetic: [kh.decay, kh.curl],
            inject: (LAUNCH - origin) as usize,
            speed: launch_speed(wave, &medium, dt),
            impedance: (medium.mu / medium.eps).sqrt(),
            dt,
            half: 0,
            kept: Vec::new(),
            kept_from: 0,
        }
    }

    /// The analytic incident E at distance `s` along the travel and time `t`.
    fn analytic_e(&self, s: f64, t: f64) -> f64 {
        self.wave.amplitude * self.wave.waveform.value(t - s / self.speed)
    }

    /// The analytic incident h (along ĥ) at distance `s` and time `t`.
    fn analytic_h(&self, s: f64, t: f64) -> f64 {
        self.analytic_e(s, t) / self.impedance
    }

    /// Advances the line so that it holds E at time `step·Δt` (`magnetic = true`, what the H
    /// update of `step` reads) or H at `(step + ½)Δt` (what the E update of `step` reads).
    /// Steps only forward: the line is shared by every phase and region of a step.
    pub fn advance_for(&mut self, step: u64, magnetic: bool) {
        let target = 2 * step + u64::from(!magnetic);
        while self.half < target {
            if self.half % 2 == 0 {
                self.update_h();
            } else {
                self.update_e();
            }
            self.half += 1;
        }
    }

    /// `H^{n−½} → H^{n+½}` with `n = half / 2`.
    fn update_h(&mut self) {
        let n = (self.half / 2) as f64;
        let [da, db] = self.magnetic;
        let last = self.e.len() - 1;
        for m in 0..last {
            let d = self.e[m + 1] - self.e[m];
            let [b, c, k] = self.stretch_h[m];
            self.psi_h[m] = b * self.psi_h[m] + c * d;
            self.h[m] = da * self.h[m] - db * (k * d + self.psi_h[m]);
        }
        // The launching TF/SF point: the h node on the scattered side of the injection node
        // reads the total e there, so its incident part is taken out.
        let s = (self.origin + self.inject as i64) as f64;
        self.h[self.inject - 1] += db * self.analytic_e(s, n * self.dt);
    }

    /// `E^n → E^{n+1}` with `n = half / 2`.
    fn update_e(&mut self) {
        let n = (self.half / 2) as f64;
        let [ca, cb] = self.electric;
        let last = self.e.len() - 1;
        for m in 1..last {
            let d = self.h[m] - self.h[m - 1];
            let [b, c, k] = self.stretch_e[m];
            self.psi_e[m] = b * self.psi_e[m] + c * d;
            self.e[m] = ca * self.e[m] - cb * (k * d + self.psi_e[m]);
        }
        let s = (self.origin + self.inject as i64) as f64;
        let t = (n + 0.5) * self.dt;
        self.e[self.inject] += cb * self.analytic_h(s - 0.5, t);
    }

    /// Advances the line through steps `first .. first + count` (to where the E update of the
    /// last reads it, as [`IncidentLine::advance_for`] of each step would), keeping each
    /// step's `E^n` and `H^{n+½}`: a wavefront tile updates regions of several steps in turn,
    /// and each reads its own step's values ([`IncidentLine::corrections_at`]), though the
    /// line advances one step at a time and only forward. The line must not have passed what
    /// step `first`'s H update reads (it has not where the steps before ran one by one or in
    /// tiles). The line ends where the steps one by one leave it; only the kept values are
    /// extra, until [`IncidentLine::release_kept`].
    pub fn keep_steps(&mut self, first: u64, count: u64) {
        let len = self.e.len();
        self.kept.clear();
        self.kept.reserve(2 * len * count as usize);
        self.kept_from = first;
        for n in first..first + count {
            self.advance_for(n, true);
            debug_assert_eq!(self.half, 2 * n, "the line passed step {n}'s E");
            self.kept.extend_from_slice(&self.e);
            self.advance_for(n, false);
            self.kept.extend_from_slice(&self.h);
        }
    }

    /// Drops the values [`IncidentLine::keep_steps`] kept (the allocation stays).
    pub fn release_kept(&mut self) {
        self.kept.clear();
    }

    /// What the update of `c` at step `step` reads of the line (`H^{n+½}` for E, `E^n` for H):
    /// the values kept for the step ([`IncidentLine::keep_steps`]), else those the line holds.
    fn read_by(&self, c: Component, step: u64) -> &[f64] {
        let len = self.e.len();
        let kept_steps = (self.kept.len() / (2 * len).max(1)) as u64;
        match step.checked_sub(self.kept_from) {
            Some(i) if i < kept_steps => {
                let at = (2 * i as usize + usize::from(c.is_electric())) * len;
                &self.kept[at..at + len]
            }
            _ => self.held(!c.is_electric()),
        }
    }

    /// The values the line holds of E (`electric`) or H.
    fn held(&self, electric: bool) -> &[f64] {
        if electric { &self.e } else { &self.h }
    }

    /// The incident value of component `c` at `cell` at the time the line holds for it
    /// (E: `n`, H: `n + ½`); zero off the line's span.
    pub fn incident(&self, c: Component, cell: Index3) -> f64 {
        self.incident_in(self.held(c.is_electric()), c, cell)
    }

    /// The incident value of component `c` at `cell` from `values`, the line's values of
    /// `c`'s field (E or H) at some time; zero off the line's span.
    fn incident_in(&self, values: &[f64], c: Component, cell: Index3) -> f64 {
        let w = self.weights[c.index()];
        if w == 0.0 {
            return 0.0;
        }
        // E nodes of the line sit at origin + m, H nodes half a cell further.
        let shift = if c.is_electric() { 0.0 } else { 0.5 };
        let distance = distance_along(self.k, self.corner, c.position(cell));
        let m = distance - self.origin as f64 - shift;
        let below = m.floor();
        let t = m - below;
        let at = |i: f64| {
            usize::try_from(i as i64)
                .ok()
                .and_then(|i| values.get(i))
                .copied()
                .unwrap_or(0.0)
        };
        let v = if t == 0.0 {
            at(below)
        } else {
            // Cubic Lagrange interpolation through the nodes below − 1 … below + 2.
            let weights = [
                -t * (t - 1.0) * (t - 2.0) / 6.0,
                (t + 1.0) * (t - 1.0) * (t - 2.0) / 2.0,
                -(t + 1.0) * t * (t - 2.0) / 2.0,
                (t + 1.0) * t * (t - 1.0) / 6.0,
            ];
            (0..4)
                .map(|j| weights[j] * at(below - 1.0 + j as f64))
                .sum()
        };
        w * v
    }

    /// The plane wave.
    pub fn wave(&self) -> &PlaneWave {
        &self.wave
    }

    /// Calls `correct(cell, value)` for every node of component `c` inside `region` whose
    /// update reads a neighbour across the box's surface: `value` is what adds to the curl of
    /// that node (multiplied by the node's curl coefficient it corrects the field). The line
    /// must hold the incident field the update read ([`IncidentLine::advance_for`]).
    pub fn corrections(
        &self,
        mode: Mode,
        c: Component,
        region: Box3,
        correct: impl FnMut(Index3, f64),
    ) {
        self.corrections_from(self.held(!c.is_electric()), mode, c, region, correct);
    }

    /// [`IncidentLine::corrections`] of the update of step `step`: from the values kept for
    /// it by a tile ([`IncidentLine::keep_steps`]), else from those the line holds (which
    /// [`IncidentLine::advance_for`] must have brought to the step).
    pub fn corrections_at(
        &self,
        step: u64,
        mode: Mode,
        c: Component,
        region: Box3,
        correct: impl FnMut(Index3, f64),
    ) {
        self.corrections_from(self.read_by(c, step), mode, c, region, correct);
    }

    /// [`IncidentLine::corrections`] with `values`, the line's values of the other field.
    fn corrections_from(
        &self,
        values: &[f64],
        mode: Mode,
        c: Component,
        region: Box3,
        mut correct: impl FnMut(Index3, f64),
    ) {
        crossings(&self.wave, mode, c, region, |p, term, reads| {
            let value: f64 = reads
                .iter()
                .map(|&(q, sign)| f64::from(sign) * self.incident_in(values, term.source, q))
                .sum();
            if value != 0.0 {
                correct(p, f64::from(term.sign) * value);
            }
        });
    }
}

/// Calls `visit(p, term, reads)` for every node `p` of component `c` inside `region` and every
/// curl term whose neighbours straddle the surface of `wave`'s box: `reads` are the two
/// neighbours `q` with the sign their incident value enters the difference with (+1 where the
/// update needs the total field and read the scattered one, −1 the other way round, 0 where
/// both lie on `p`'s side) — Taflove & Hagness eqs. (5.46)–(5.49) for any component.
pub fn crossings(
    wave: &PlaneWave,
    mode: Mode,
    c: Component,
    region: Box3,
    mut visit: impl FnMut(Index3, CurlTerm, [(Index3, i8); 2]),
) {
    let active = mode.active_axes();
    let outer = Box3::new(
        core::array::from_fn(|a| if active[a] { wave.region.lo[a] - 1 } else { 0 }),
        core::array::from_fn(|a| if active[a] { wave.region.hi[a] + 2 } else { 1 }),
    );
    for term in c.curl_terms() {
        let b = term.axis.index();
        if !active[b] || !mode.has(term.source) || wave.weight(term.source) == 0.0 || wave.spans(b)
        {
            continue;
        }
        let (lo, hi) = (wave.region.lo[b], wave.region.hi[b]);
        let mut planes = [lo - 1, lo, hi - 1, hi, hi + 1];
        planes.sort_unstable();
        let mut previous = None;
        for &plane in &planes {
            if previous == Some(plane) {
                continue;
            }
            previous = Some(plane);
            let slab = outer
                .with_bound(term.axis, Side::Low, plane)
                .with_bound(term.axis, Side::High, plane + 1)
                .intersect(&region);
            for n in 0..slab.cells() {
                let p = slab.index_at(n);
                let inside = wave.is_total(mode, c.position(p));
                // E reads G at p and p − e_b (difference upper − lower); H at p + e_b and p.
                let (upper, lower) = if c.is_electric() {
                    (p, step(p, b, -1))
                } else {
                    (step(p, b, 1), p)
                };
                let sign = |q: Index3| -> i8 {
                    match (inside, wave.is_total(mode, term.source.position(q))) {
                        (true, false) => 1,
                        (false, true) => -1,
                        _ => 0,
                    }
                };
                let (su, sl) = (sign(upper), sign(lower));
                if su != 0 || sl != 0 {
                    visit(p, term, [(upper, su), (lower, -sl)]);
                }
            }
        }
    }
}

fn step(p: Index3, axis: usize, by: i64) -> Index3 {
    let mut q = p;
    q[axis] += by;
    q
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wave(direction: [f64; 3]) -> PlaneWave {
        PlaneWave {
            region: Box3::new([20, 0, 0], [60, 1, 1]),
            direction,
            polarization: [0.0, 0.0, 1.0],
            waveform: Waveform::Gaussian {
                delay: 50.0,
                width: 6.0,
                frequency: 0.0,
            },
            amplitude: 1.0,
        }
    }

    #[test]
    fn directions_follow_the_right_hand() {
        // Ez along +x: H along −y (k × E); along −x, +y.
        assert_eq!(wave([1.0, 0.0, 0.0]).h_direction(), [0.0, -1.0, 0.0]);
        assert_eq!(wave([-2.0, 0.0, 0.0]).h_direction(), [0.0, 1.0, 0.0]);
        let mut w = wave([0.0, 0.0, 1.0]);
        w.polarization = [2.0, 0.0, 0.0];
        assert_eq!(w.e_direction(), [1.0, 0.0, 0.0]);
        assert_eq!(w.h_direction(), [0.0, 1.0, 0.0]);
        assert_eq!(w.aligned_axis(), Some(2));
        w.direction = [1.0, 1.0, 0.0];
        assert_eq!(w.aligned_axis(), None);
    }

    #[test]
    fn the_line_carries_the_pulse_one_way() {
        for direction in [[1.0, 0.0, 0.0], [-1.0, 0.0, 0.0]] {
            let w = wave(direction);
            let mut line = IncidentLine::new(&w, Mode::OneD, &Material::VACUUM, 1.0);
            // Courant 1 in 1D: the discrete wave is exact; 25 steps after the peak enters,
            // the pulse sits 25 cells further on with its amplitude, and nothing went back.
            line.advance_for(75, true);
            let ahead = if direction[0] > 0.0 { 45 } else { 35 };
            let at = |x: i64| line.incident(Component::Ez, [x, 0, 0]);
            assert!(
                (at(ahead) - 1.0).abs() < 1e-12,
                "{direction:?}: {}",
                at(ahead)
            );
            // The line launches 5 cells before the entry: behind that, nothing.
            let behind = if direction[0] > 0.0 { 12 } else { 68 };
            assert!(
                at(behind).abs() < 1e-12,
                "{direction:?} leaked {}",
                at(behind)
            );
        }
    }

    #[test]
    fn the_grid_wavenumber_solves_the_dispersion_relation() {
        // Along an axis the relation is 1D's: sin(k/2) = (n/Δt) sin(ωΔt/2).
        let (omega, dt) = (0.3, 0.5);
        let k = grid_wavenumber(omega, 1.0, [1.0, 0.0, 0.0], dt).unwrap();
        let axis_residual = (k / 2.0).sin().powi(2) - ((omega * dt / 2.0).sin() / dt).powi(2);
        assert!(axis_residual.abs() < 1e-15, "{axis_residual}");
        // Newton's method off the axis meets the closed form as the direction nears the axis.
        let near = unit([1.0, 1e-4, 0.0]);
        let newton = grid_wavenumber(omega, 1.0, near, dt).unwrap();
        assert!((newton - k).abs() < 1e-8 * k, "{newton} against {k}");
        assert!(grid_wavenumber(0.0, 1.0, [0.0, 1.0, 0.0], dt).is_none());
        // Along the diagonal the grid is faster than along an axis (Taflove & Hagness,
        // 3rd ed., Fig. 4.5): a smaller wavenumber, still above the continuous one.
        let s = 1.0 / 3f64.sqrt();
        let diagonal = grid_wavenumber(omega, 1.0, [s, s, s], dt).unwrap();
        assert!(
            omega < diagonal && diagonal < k,
            "{omega} < {diagonal} < {k}"
        );
        let residual: f64 =
            3.0 * (diagonal * s / 2.0).sin().powi(2) - ((omega * dt / 2.0).sin() / dt).powi(2);
        assert!(residual.abs() < 1e-15);
    }

    #[test]
    fn validation_names_the_problem() {
        let mut w = wave([1.0, 0.0, 0.0]);
        let periodic_y = [false, true, false];
        assert_eq!(
            w.invalid_parameter(Mode::OneD, [80, 1, 1], [false; 3]),
            None
        );
        // The box spans y: only on a periodic axis.
        w.region.hi[1] = 10;
        assert_eq!(
            w.invalid_parameter(Mode::Tmz, [80, 10, 1], periodic_y),
            None
        );
        assert!(
            w.invalid_parameter(Mode::Tmz, [80, 10, 1], [false; 3])
                .is_some()
        );
        w.polarization = [1.0, 0.0, 0.0];
        assert!(
            w.invalid_parameter(Mode::Tmz, [80, 10, 1], periodic_y)
                .is_some()
        );
        w.polarization = [0.0, 1.0, 0.0];
        // Ey is not carried in TMz.
        assert!(
            w.invalid_parameter(Mode::Tmz, [80, 10, 1], periodic_y)
                .is_some()
        );
        // Oblique across a spanned axis: no.
        let mut w = wave([1.0, 1.0, 0.0]);
        w.region.hi[1] = 10;
        assert!(
            w.invalid_parameter(Mode::Tmz, [80, 10, 1], periodic_y)
                .is_some()
        );
        // Along z in TMz: no.
        assert!(
            wave([0.0, 0.0, 1.0])
                .invalid_parameter(Mode::Tmz, [80, 10, 1], periodic_y)
                .is_some()
        );
        // The box must end inside the grid along the travel.
        let w = wave([1.0, 0.0, 0.0]);
        assert!(
            w.invalid_parameter(Mode::OneD, [60, 1, 1], [false; 3])
                .is_some()
        );
    }
}
