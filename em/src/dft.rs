//! Running discrete Fourier transforms of field components over a box of nodes, accumulated
//! on the fly (no time series kept): `F(f) = Δt Σₙ F(tₙ) e^{+i 2π f tₙ}`, Meep's sign
//! convention (fields `∝ e^{−iωt}`; Oskooi et al., *Comput. Phys. Commun.* 181, 687 (2010),
//! §4.3). Each component is transformed at its own time: E after step `n` at `(n + 1)Δt`,
//! H at `(n + ½)Δt`; [`DftMonitor::h_average`] turns H into the mean of its two half steps
//! around E's time, the synchronisation the flux needs.
//!
//! The accumulators of a node belong to the rank that owns the node and move with it, and the
//! sum for a node is always taken in step order, so the transform is the same bits for every
//! decomposition.

use crate::yee::Component;
use yee_core::geometry::Box3;
// Float gives f64 its math in a pure no_std build.
#[allow(unused_imports)]
use num_traits::Float;

/// A DFT monitor: components transformed at listed frequencies over a box of nodes. The
/// frequencies are `count` entries of [`crate::Setup::frequencies`] from `first` (one table
/// for every monitor keeps the setup a set of borrowed slices).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DftMonitor {
    /// The nodes (cell indices; each component's node of each cell is transformed).
    pub region: Box3,
    /// The components transformed, by [`Component::index`].
    pub components: [bool; 6],
    /// The first frequency's index in the setup's table.
    pub first: usize,
    /// How many frequencies.
    pub count: usize,
}

impl DftMonitor {
    /// The components transformed, E first.
    pub fn component_list(&self) -> impl Iterator<Item = Component> + '_ {
        Component::ALL
            .into_iter()
            .filter(|c| self.components[c.index()])
    }

    /// Values each node holds per component: a real and an imaginary part per frequency.
    pub fn values_per_node(&self) -> usize {
        2 * self.count
    }

    /// The weights `[Δt cos(2πf t), Δt sin(2πf t)]` per frequency of `frequencies` that the
    /// value of a component at time `t` is multiplied by and added with (real and imaginary
    /// part).
    pub fn weights(frequencies: &[f64], t: f64, dt: f64, out: &mut [[f64; 2]]) {
        for (w, &f) in out.iter_mut().zip(frequencies) {
            let phase = 2.0 * core::f64::consts::PI * f * t;
            *w = [dt * phase.cos(), dt * phase.sin()];
        }
    }

    /// The factor `cos(πfΔt)` that makes the transform of H at half steps the transform of
    /// the mean of H's two half steps around each integer step: `(H^{n−½} + H^{n+½}) / 2`
    /// transforms to `cos(ωΔt/2)` times `H`'s own transform (up to the first and last step).
    pub fn h_average(frequency: f64, dt: f64) -> f64 {
        (core::f64::consts::PI * frequency * dt).cos()
    }

    /// The time at which step `step` (0-based: it takes E from `step·Δt` to `(step + 1)Δt`)
    /// leaves component `c`.
    pub fn time(c: Component, step: u64, dt: f64) -> f64 {
        let n = step as f64;
        if c.is_electric() {
            (n + 1.0) * dt
        } else {
            (n + 0.5) * dt
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sampled_cosine_transforms_to_half_its_amplitude_times_the_duration() {
        let frequencies = [0.05];
        let dt = 0.5;
        let steps = 4000u64;
        let mut acc = [0.0f64; 2];
        let mut w = [[0.0; 2]; 1];
        for s in 0..steps {
            let t = DftMonitor::time(Component::Ez, s, dt);
            DftMonitor::weights(&frequencies, t, dt, &mut w);
            let value = (2.0 * core::f64::consts::PI * 0.05 * t).cos();
            acc[0] += value * w[0][0];
            acc[1] += value * w[0][1];
        }
        // ∫₀ᵀ cos²(ωt) dt = T/2; whole periods: 4000 · 0.5 · 0.05 = 100.
        let duration = steps as f64 * dt;
        assert!((acc[0] - duration / 2.0).abs() < 1e-9 * duration, "{acc:?}");
        assert!(acc[1].abs() < 1e-9 * duration, "{acc:?}");
    }

    #[test]
    fn h_average_is_the_mean_of_two_half_steps() {
        // (e^{iω(t−Δt/2)} + e^{iω(t+Δt/2)}) / 2 = cos(ωΔt/2) e^{iωt}.
        let (f, dt) = (0.07, 0.4);
        let w = 2.0 * core::f64::consts::PI * f;
        let mean = ((w * (1.0 - dt / 2.0)).cos() + (w * (1.0 + dt / 2.0)).cos()) / 2.0;
        assert!((mean - DftMonitor::h_average(f, dt) * w.cos()).abs() < 1e-15);
    }
}
