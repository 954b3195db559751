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

/// Cells of CPML at each end of the auxiliary grid.
const LINE_CPML: usize = 20;
/// Cells between a CPML of the auxiliary grid and the box's surface (the injection point sits
/// two cells outside the surface, in the gap).
const LINE_GAP: i64 = 6;

/// A plane wave travelling along a grid axis, injected on the surface of a total-field box.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PlaneWave {
    /// The total-field box in cells: nodes whose position lies in the closed box
    /// `[lo, hi]` (on the axes the mode uses) carry the total field. On a periodic axis other
    /// than the axis of travel the box may span the whole grid (`lo = 0`, `hi = cells`): it
    /// then has no surface across that axis.
    pub region: Box3,
    /// The axis the wave travels along.
    pub axis: Axis,
    /// `High`: towards increasing coordinates; `Low`: towards decreasing ones.
    pub toward: Side,
    /// The direction of the electric field (normalised when used; perpendicular to `axis`).
    pub polarization: [f64; 3],
    /// Time dependence of the incident E where the wave enters the box.
    pub waveform: Waveform,
    /// Peak incident E.
    pub amplitude: f64,
}

impl PlaneWave {
    /// The unit electric direction ê.
    pub fn e_direction(&self) -> [f64; 3] {
        let p = self.polarization;
        let n = (p[0] * p[0] + p[1] * p[1] + p[2] * p[2]).sqrt();
        p.map(|x| x / n)
    }

    /// The magnetic direction ĥ = â × ê (â the unit vector of increasing `axis`): the
    /// incident H is `h ĥ` with `h` the auxiliary grid's magnetic value, whichever way the
    /// wave goes.
    pub fn h_direction(&self) -> [f64; 3] {
        let e = self.e_direction();
        let a = self.axis.index();
        let (b, c) = ((a + 1) % 3, (a + 2) % 3);
        let mut h = [0.0; 3];
        // â × ê: component b gets −e_c, component c gets e_b.
        h[b] = -e[c];
        h[c] = e[b];
        h
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
        if !active[self.axis.index()] {
            return Some("axis (not an axis the mode uses)");
        }
        if !(self.amplitude.is_finite()) {
            return Some("amplitude");
        }
        if self.waveform.invalid_parameter().is_some() {
            return Some("waveform");
        }
        let p = self.polarization;
        if p.iter().any(|x| !x.is_finite()) || p.iter().all(|&x| x == 0.0) {
            return Some("polarization (zero or not finite)");
        }
        if p[self.axis.index()] != 0.0 {
            return Some("polarization (has a part along the axis of travel)");
        }
        for c in Component::ALL {
            if self.weight(c) != 0.0 && !mode.has(c) {
                return Some("polarization (needs a component the mode does not carry)");
            }
        }
        for a in 0..3 {
            if !active[a] {
                continue;
            }
            let (lo, hi) = (self.region.lo[a], self.region.hi[a]);
            let spanning = lo == 0 && hi == grid[a] as i64;
            if spanning && periodic[a] && a != self.axis.index() {
                continue;
            }
            if !(lo >= 1 && hi > lo && hi < grid[a] as i64) {
                return Some(
                    "box (needs 1 ≤ lo < hi ≤ cells − 1 on each axis in use, or the whole of \
                     a periodic axis across the travel)",
                );
            }
        }
        None
    }

    /// The continuous coordinate along the axis where the wave enters the box.
    fn entry(&self) -> i64 {
        match self.toward {
            Side::High => self.region.lo[self.axis.index()],
            Side::Low => self.region.hi[self.axis.index()],
        }
    }
}

/// The one-dimensional auxiliary grid of a [`PlaneWave`]: `e[m]` at coordinate `origin + m`
/// and `h[m]` at `origin + m + ½` along the axis of travel, in the background material, with
/// CPML at both ends. The wave is launched into it by a TF/SF point two cells before the box,
/// from the analytic `amplitude · w(t − s/v)`; the grid then carries its own discrete wave to
/// every node the box's surface needs.
#[derive(Clone, Debug)]
pub struct IncidentLine {
    wave: PlaneWave,
    origin: i64,
    e: Vec<f64>,
    h: Vec<f64>,
    psi_e: Vec<f64>,
    psi_h: Vec<f64>,
    /// `[b, c, 1/κ]` per e and per h node.
    stretch_e: Vec<[f64; 3]>,
    stretch_h: Vec<[f64; 3]>,
    /// `[Ca, Cb]`, `[Da, Db]` of the background.
    electric: [f64; 2],
    magnetic: [f64; 2],
    /// Index of the injection e node.
    inject: usize,
    /// Phase velocity and impedance of the background.
    speed: f64,
    impedance: f64,
    dt: f64,
    /// Half steps done: after `2n` e holds `E^n` and h `H^{n−½}`; after `2n + 1`, h `H^{n+½}`.
    half: u64,
}

impl IncidentLine {
    /// The auxiliary grid of `wave` in `background` with time step `dt`, at rest.
    pub fn new(wave: &PlaneWave, background: &Material, dt: f64) -> Self {
        let a = wave.axis.index();
        let pad = LINE_CPML as i64 + LINE_GAP;
        let origin = wave.region.lo[a] - pad;
        let len = (wave.region.hi[a] - wave.region.lo[a] + 2 * pad) as usize + 1;
        let params = CpmlParams::with_thickness(LINE_CPML);
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
        let ke = electric_coefficients(background, dt);
        let kh = magnetic_coefficients(background, dt);
        let entry = wave.entry();
        let inject = match wave.toward {
            Side::High => entry - 2,
            Side::Low => entry + 2,
        };
        IncidentLine {
            wave: *wave,
            origin,
            e: vec![0.0; len],
            h: vec![0.0; len],
            psi_e: vec![0.0; len],
            psi_h: vec![0.0; len],
            stretch_e: table(0.0),
            stretch_h: table(0.5),
            electric: [ke.decay, ke.curl],
            magnetic: [kh.decay, kh.curl],
            inject: (inject - origin) as usize,
            speed: 1.0 / (background.eps * background.mu).sqrt(),
            impedance: (background.mu / background.eps).sqrt(),
            dt,
            half: 0,
        }
    }

    /// The analytic incident E at coordinate `x` and time `t`.
    fn analytic_e(&self, x: f64, t: f64) -> f64 {
        let s = match self.wave.toward {
            Side::High => x - self.wave.entry() as f64,
            Side::Low => self.wave.entry() as f64 - x,
        };
        self.wave.amplitude * self.wave.waveform.value(t - s / self.speed)
    }

    /// The analytic incident h (along ĥ) at coordinate `x` and time `t`.
    fn analytic_h(&self, x: f64, t: f64) -> f64 {
        let sign = match self.wave.toward {
            Side::High => 1.0,
            Side::Low => -1.0,
        };
        sign * self.analytic_e(x, t) / self.impedance
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
        let x = (self.origin + self.inject as i64) as f64;
        let inc = self.analytic_e(x, n * self.dt);
        match self.wave.toward {
            Side::High => self.h[self.inject - 1] += db * inc,
            Side::Low => self.h[self.inject] -= db * inc,
        }
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
        let x = (self.origin + self.inject as i64) as f64;
        let t = (n + 0.5) * self.dt;
        match self.wave.toward {
            Side::High => self.e[self.inject] += cb * self.analytic_h(x - 0.5, t),
            Side::Low => self.e[self.inject] -= cb * self.analytic_h(x + 0.5, t),
        }
    }

    /// The incident value of component `c` at `cell` at the time the line holds for it
    /// (E: `n`, H: `n + ½`); zero off the line's span.
    pub fn incident(&self, c: Component, cell: Index3) -> f64 {
        let w = self.wave.weight(c);
        if w == 0.0 {
            return 0.0;
        }
        let m = cell[self.wave.axis.index()] - self.origin;
        let values = if c.is_electric() { &self.e } else { &self.h };
        usize::try_from(m)
            .ok()
            .and_then(|m| values.get(m))
            .map_or(0.0, |v| w * v)
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
        mut correct: impl FnMut(Index3, f64),
    ) {
        crossings(&self.wave, mode, c, region, |p, term, reads| {
            let value: f64 = reads
                .iter()
                .map(|&(q, sign)| f64::from(sign) * self.incident(term.source, q))
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

    fn wave(toward: Side) -> PlaneWave {
        PlaneWave {
            region: Box3::new([20, 0, 0], [60, 1, 1]),
            axis: Axis::X,
            toward,
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
        // Ez along +x: H along −y (k × E).
        assert_eq!(wave(Side::High).h_direction(), [0.0, -1.0, 0.0]);
        let mut w = wave(Side::High);
        w.axis = Axis::Z;
        w.polarization = [2.0, 0.0, 0.0];
        assert_eq!(w.e_direction(), [1.0, 0.0, 0.0]);
        assert_eq!(w.h_direction(), [0.0, 1.0, 0.0]);
    }

    #[test]
    fn the_line_carries_the_pulse_one_way() {
        for toward in [Side::High, Side::Low] {
            let w = wave(toward);
            let mut line = IncidentLine::new(&w, &Material::VACUUM, 1.0);
            // Courant 1 in 1D: the discrete wave is exact; 25 steps after the peak enters,
            // the pulse sits 25 cells further on with its amplitude, and nothing went back.
            line.advance_for(75, true);
            let x_entry = w.entry();
            let ahead = match toward {
                Side::High => x_entry + 25,
                Side::Low => x_entry - 25,
            };
            let at = |x: i64| line.e[(x - line.origin) as usize];
            assert!((at(ahead) - 1.0).abs() < 1e-12, "{toward:?}: {}", at(ahead));
            let behind = match toward {
                Side::High => x_entry - 4,
                Side::Low => x_entry + 4,
            };
            assert!(at(behind).abs() < 1e-12, "{toward:?} leaked {}", at(behind));
        }
    }

    #[test]
    fn validation_names_the_problem() {
        let mut w = wave(Side::High);
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
        // The box must end inside the grid along the travel.
        let w = wave(Side::High);
        assert!(
            w.invalid_parameter(Mode::OneD, [60, 1, 1], [false; 3])
                .is_some()
        );
    }
}
