//! Bloch-periodic boundaries: the phase a field takes where a periodic halo wraps.
//!
//! On a Bloch-periodic axis of `N` cells the fields obey `F(x + N) = e^{i 2π k N} F(x)`
//! (Bloch's theorem; Taflove & Hagness §13.3, "field transformation" methods; Meep's
//! `k_point`). `k` is in cycles per cell here — the scene gives it per length unit and the
//! loader divides by the resolution — so the phase over one period is `2π k N`, Meep's
//! `e^{i 2π k·L}`. A ghost layer filled across the wrap takes that factor: the ghost beyond
//! the high face holds the low border times `e^{+i 2π k N}`, the ghost below the low face the
//! high border times `e^{−i 2π k N}`. Every halo, E's and H's, crosses the wrap through the
//! same exchange ([`crate::halo`]), so the phase is applied in one place, on arrival, and a
//! decomposed run multiplies the same values by the same factor as one chunk.

use num_traits::Float;
use yee_core::{Axis, Box3, Direction};

use crate::setup::Setup;

/// The Bloch phase `(cos θ, sin θ)` of the halo that arrives at the chunk owning `owned` from
/// its `from` side, when that halo wraps across a periodic face with a non-zero `k`: `θ =
/// ±2π k N` (sign of `from` along its axis; the sum over the axes an edge's or a corner's
/// halo wraps). `None` when nothing is to be multiplied (no
/// wrap, or `k = 0` there: plain periodic, bit for bit as before).
pub fn wrap_phase(setup: &Setup<'_>, owned: Box3, from: Direction) -> Option<(f64, f64)> {
    // A face's phase, or an edge's or a corner's: the sum of the phases of the faces it wraps.
    let mut theta = None;
    for axis in Axis::ALL {
        let a = axis.index();
        let k = setup.bloch[a];
        if from.0[a] == 0 || k == 0.0 || !setup.is_periodic(axis) {
            continue;
        }
        let n = setup.grid[a] as i64;
        let sign = match from.0[a] {
            1 if owned.hi[a] == n => 1.0,
            -1 if owned.lo[a] == 0 => -1.0,
            _ => continue,
        };
        let phase = sign * period_phase(k, setup.grid[a]);
        theta = Some(theta.map_or(phase, |t: f64| t + phase));
    }
    let theta = theta?;
    Some((Float::cos(theta), Float::sin(theta)))
}

/// The phase `2π k N` over one period of `cells` cells for `k` cycles per cell, reduced to
/// `[−π, π)` in the number of cycles first, so a large `k N` loses no digits.
pub fn period_phase(k: f64, cells: usize) -> f64 {
    let cycles = k * cells as f64;
    let fraction = cycles - Float::round(cycles);
    2.0 * core::f64::consts::PI * fraction
}

/// True when `setup` has a non-zero Bloch wavevector on some axis (its fields must be
/// complex).
pub fn is_bloch(setup: &Setup<'_>) -> bool {
    Axis::ALL.iter().any(|&a| setup.bloch[a.index()] != 0.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::setup::Boundary;
    use crate::yee::Mode;

    #[test]
    fn the_phase_is_applied_only_where_a_halo_wraps() {
        let mut setup = Setup::vacuum(Mode::Tmz, [10, 8, 1], 0.5, [[Boundary::Periodic; 2]; 3]);
        setup.bloch = [0.025, 0.0, 0.0];
        let whole = Box3::from_extent([10, 8, 1]);
        let theta = 2.0 * core::f64::consts::PI * 0.25;
        let up = wrap_phase(&setup, whole, Direction::face(Axis::X, true)).unwrap();
        assert!((up.0 - theta.cos()).abs() < 1e-15 && (up.1 - theta.sin()).abs() < 1e-15);
        let down = wrap_phase(&setup, whole, Direction::face(Axis::X, false)).unwrap();
        assert!((down.1 + theta.sin()).abs() < 1e-15);
        // k = 0 on y: nothing to multiply; an inner border of x: no wrap.
        assert_eq!(
            wrap_phase(&setup, whole, Direction::face(Axis::Y, true)),
            None
        );
        let left = Box3::new([0, 0, 0], [5, 8, 1]);
        assert_eq!(
            wrap_phase(&setup, left, Direction::face(Axis::X, true)),
            None
        );
        assert!(wrap_phase(&setup, left, Direction::face(Axis::X, false)).is_some());
    }

    #[test]
    fn whole_cycles_drop_out_of_the_period_phase() {
        assert_eq!(period_phase(0.1, 10), 0.0);
        assert!((period_phase(0.35, 10) - (-0.5 * 2.0 * core::f64::consts::PI)).abs() < 1e-12);
    }
}
