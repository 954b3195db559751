//! The single-chunk simulation: one chunk covering the whole grid, stepped in order.

use alloc::vec;
use alloc::vec::Vec;
use yee_core::{Axis, Chunk, Field, Index3, Scalar};
use yee_em::{Component, Mode, Probe, Setup, SetupError};

use crate::chunk::{ELECTRIC_PHASE, MAGNETIC_PHASE, YeeChunk};
use crate::error::RunError;
use crate::field::HostField;

/// A whole grid on one chunk: build it from a [`Setup`], then [`Simulation::step`] it.
///
/// E is at time `steps · Δt`, H at `(steps − ½) · Δt`. Probes record after every step.
#[derive(Clone, Debug)]
pub struct Simulation<'s, T: Scalar> {
    chunk: YeeChunk<'s, T>,
    periodic: [bool; 3],
    steps: u64,
    probes: Vec<Probe>,
    series: Vec<Vec<T>>,
}

impl<'s, T: Scalar> Simulation<'s, T> {
    /// Validates `setup` and allocates its fields (all zero).
    pub fn new(setup: &Setup<'s>) -> Result<Self, SetupError> {
        setup.validate()?;
        setup.validate_value_type(T::COMPLEX)?;
        let owned = yee_core::Box3::from_extent(setup.grid);
        Ok(Simulation {
            chunk: YeeChunk::new(setup, owned),
            periodic: Axis::ALL.map(|a| setup.is_periodic(a)),
            steps: 0,
            probes: setup.probes.to_vec(),
            series: vec![Vec::new(); setup.probes.len()],
        })
    }

    /// Advances one time step: H, then E, then the probes. A grid whose nodes need more
    /// materials than ids can name refuses to step ([`RunError::TooManyMaterials`]).
    pub fn step(&mut self) -> Result<(), RunError> {
        if self.chunk.state.too_many_materials {
            return Err(RunError::TooManyMaterials {
                limit: crate::state::MAX_MATERIAL_IDS,
            });
        }
        let n = self.steps;
        let owned = self.chunk.owned();
        if self.periodic.contains(&true) {
            for phase in [MAGNETIC_PHASE, ELECTRIC_PHASE] {
                self.chunk.apply(n, phase, owned);
                self.wrap_periodic(phase);
            }
        } else {
            self.chunk.apply_step(n, owned);
        }
        self.steps += 1;
        if self.chunk.state.non_finite {
            // A hard source may have overwritten the flagged value: only a stored one counts.
            self.chunk.state.non_finite = false;
            if let Some(error) = self.locate_divergence() {
                return Err(error);
            }
        }
        for (probe, series) in self.probes.iter().zip(&mut self.series) {
            series.push(
                self.chunk
                    .state
                    .field(probe.component)
                    .expect("validated")
                    .get(probe.cell),
            );
        }
        Ok(())
    }

    /// Advances `steps` time steps.
    pub fn run(&mut self, steps: u64) -> Result<(), RunError> {
        for _ in 0..steps {
            self.step()?;
        }
        Ok(())
    }

    /// The running transforms of DFT monitor `index` of the setup (`None` without one).
    pub fn dft(&mut self, index: usize) -> Option<yee_em::DftFields> {
        let setup = self.chunk.setup;
        setup.monitors.get(index)?;
        let owned = self.chunk.owned();
        let pieces = crate::decomposed::dft_pieces(&setup, &mut self.chunk, &[owned])
            .expect("host chunks read their own sums");
        Some(crate::decomposed::assemble_dft(
            &setup,
            index,
            pieces.iter(),
        ))
    }

    /// Steps completed.
    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// The time step Δt.
    pub fn dt(&self) -> f64 {
        self.chunk.state.dt
    }

    /// The mode.
    pub fn mode(&self) -> Mode {
        self.chunk.state.mode
    }

    /// The grid extent.
    pub fn grid(&self) -> [usize; 3] {
        self.chunk.state.grid
    }

    /// The field of component `c`, if the mode carries it.
    pub fn field(&self, c: Component) -> Option<&HostField<T>> {
        self.chunk.state.field(c)
    }

    /// The value of `c` at `cell` (zero for components the mode does not carry).
    pub fn value(&self, c: Component, cell: Index3) -> T {
        self.field(c).map_or(T::zero(), |f| f.get(cell))
    }

    /// Copies component `c` over the whole grid into `out` (x fastest); false if absent.
    pub fn read_component(&self, c: Component, out: &mut [T]) -> bool {
        match self.field(c) {
            Some(f) => {
                f.read_box(f.owned(), out);
                true
            }
            None => false,
        }
    }

    /// Sets component `c` to `value(position)` at every node that evolves (nodes pinned by
    /// PEC or PMC walls stay zero). Positions are continuous, staggered node positions. Use it
    /// for initial conditions: E is at time 0, H at −Δt/2.
    pub fn fill(&mut self, c: Component, value: impl Fn([f64; 3]) -> T) {
        let free = self.chunk.state.free[c.index()].intersect(&self.chunk.owned());
        if let Some(field) = self.chunk.state.fields[c.index()].as_mut() {
            for n in 0..free.cells() {
                let p = free.index_at(n);
                field.set(p, value(c.position(p)));
            }
        }
        self.wrap_periodic(MAGNETIC_PHASE);
        self.wrap_periodic(ELECTRIC_PHASE);
    }

    /// The probes, in setup order.
    pub fn probes(&self) -> &[Probe] {
        &self.probes
    }

    /// The values recorded by probe `i`, one per completed step.
    pub fn probe_series(&self, i: usize) -> &[T] {
        &self.series[i]
    }

    /// The chunk, for drivers and tests that need the raw state.
    pub fn chunk(&self) -> &YeeChunk<'s, T> {
        &self.chunk
    }

    /// Copies the halo of `phase` across each periodic axis: the chunk is its own neighbour
    /// (across edges and corners too, where the halo is a shell).
    fn wrap_periodic(&mut self, phase: usize) {
        let active = self.mode().active_axes();
        for &toward in yee_core::share_directions(active).iter() {
            let wraps = (0..3).all(|a| toward.0[a] == 0 || self.periodic[a]);
            if wraps {
                let len = self.chunk.halo_len(phase, toward);
                if len == 0 {
                    continue;
                }
                let mut buffer = vec![T::zero(); len];
                self.chunk.pack_halo(phase, toward, &mut buffer);
                self.chunk.unpack_halo(phase, toward.opposite(), &buffer);
            }
        }
    }

    fn locate_divergence(&self) -> Option<RunError> {
        for &c in self.mode().components() {
            let field = self.field(c).expect("mode carries it");
            let owned = field.owned();
            for n in 0..owned.cells() {
                let p = owned.index_at(n);
                if !field.get(p).is_finite() {
                    return Some(RunError::Diverged {
                        step: self.steps,
                        component: c,
                        cell: p,
                    });
                }
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use yee_em::Boundary;

    #[test]
    fn a_grid_with_too_many_materials_refuses_to_step() {
        let setup = Setup::vacuum(Mode::OneD, [8, 1, 1], 0.5, [[Boundary::Pec; 2]; 3]);
        let mut sim = Simulation::<f64>::new(&setup).unwrap();
        assert_eq!(sim.step(), Ok(()));
        sim.chunk.state.too_many_materials = true;
        assert_eq!(
            sim.step(),
            Err(RunError::TooManyMaterials {
                limit: crate::state::MAX_MATERIAL_IDS
            })
        );
        assert_eq!(sim.steps(), 1);
        // A decomposed run's chunk with the same overflow is refused when built.
        let mut chunk = YeeChunk::<f64>::new(&setup, sim.chunk.owned());
        assert!(chunk.clone().checked().is_ok());
        chunk.state.too_many_materials = true;
        let refused = chunk.checked().map(|_| ()).unwrap_err();
        assert_eq!(refused.kind, yee_core::ChunkErrorKind::InvalidArgument);
        assert!(
            refused.what.contains("65536 distinct materials"),
            "{}",
            refused.what
        );
    }

    /// A Bloch wave `e^{i2πkx}` filled over the grid continues into the ghosts across the
    /// wrap, as `F(x + N) = e^{i2πkN} F(x)` says: Ez's ghost beyond the high face and Hy's
    /// below the low face hold the wave at their nodes' positions.
    #[test]
    fn the_ghosts_continue_a_bloch_wave_across_the_wrap() {
        use num_complex::Complex;
        let n = 10;
        let k = 0.0173;
        let setup = Setup {
            bloch: [k, 0.0, 0.0],
            ..Setup::vacuum(Mode::OneD, [n, 1, 1], 0.5, [[Boundary::Periodic; 2]; 3])
        };
        let wave = |x: f64| Complex::from_polar(1.0, 2.0 * core::f64::consts::PI * k * x);
        let mut sim = Simulation::<Complex<f64>>::new(&setup).unwrap();
        sim.fill(Component::Ez, |p| wave(p[0]));
        sim.fill(Component::Hy, |p| wave(p[0]));
        let ez = sim.field(Component::Ez).unwrap().get([n as i64, 0, 0]);
        let hy = sim.field(Component::Hy).unwrap().get([-1, 0, 0]);
        let ez_expected = wave(Component::Ez.position([n as i64, 0, 0])[0]);
        let hy_expected = wave(Component::Hy.position([-1, 0, 0])[0]);
        assert!(
            (ez - ez_expected).norm() < 1e-14,
            "{ez} against {ez_expected}"
        );
        assert!(
            (hy - hy_expected).norm() < 1e-14,
            "{hy} against {hy_expected}"
        );
        // Real fields refuse the phase.
        assert!(matches!(
            Simulation::<f64>::new(&setup).map(|_| ()),
            Err(SetupError::BlochNeedsComplex { .. })
        ));
    }
}
