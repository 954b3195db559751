//! Temporal blocking of a chunk whose ghosts no neighbour writes: several steps swept as one
//! wavefront of slabs along the outermost axis (the skewed "wavefront" tiling of Malas,
//! Hager, Ltaief, Stengel, Wellein & Keyes, SIAM J. Sci. Comput. 37(4), 2015, §2, one thread
//! group per wavefront), so that a slab is brought into the cache once for `k` steps instead
//! of once a step.
//!
//! The chunk is cut into slabs of whole planes across its outermost axis; step `s` of slab
//! `j` runs in wave `w = j + s`, the steps of a wave in increasing order ([`wavefront`]).
//! The Yee stencil reaches one plane: H of step `s` reads E one plane above (forward
//! differences), E reads H one plane below (backward, Yee 1966). When (`s`, `j`) runs, slab
//! `j + 1` has done step `s − 1` (wave `w`, earlier in it) and not step `s` (wave `w + 1`),
//! so H reads E⁽ˢ⁾ above; slab `j − 1` has done step `s` (wave `w − 1`) and not `s + 1`
//! (later in wave `w`), so E reads H⁽ˢ⁺¹ᐟ²⁾ below. Every other part of a phase (CPML ψ,
//! sources, DFT sums) reads and writes only the nodes of its own region. So every node is
//! updated from exactly the values the one-step path gives it, by the same arithmetic: the
//! bits are the one-step path's.
//!
//! What does not fit ([`fallback`]): TF/SF plane waves (their incident line advances step by
//! step, shared by every region of a step), dispersive media, off-diagonal ε/μ (a tensor node
//! reads a cell diagonally across the slab border), and a 1D grid (one row: nothing to cut).

use alloc::vec::Vec;
use yee_core::{Box3, Index3};
use yee_em::halo::HaloShape;
use yee_em::{Component, Mode, Setup};

use crate::state::YeeState;

/// Whether to block time steps, as asked for (`--time-block k|auto|off`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TimeBlock {
    /// One step at a time (the default).
    #[default]
    Off,
    /// `k` steps a tile (`k ≥ 2`; 1 is one step at a time).
    Steps(u64),
    /// `k` chosen from the cache and the chunk.
    Auto,
}

impl TimeBlock {
    /// `off`, `auto` or a number of steps (at least 1; 1 is `off`).
    pub fn parse(text: &str) -> Result<TimeBlock, alloc::string::String> {
        match text {
            "off" => Ok(TimeBlock::Off),
            "auto" => Ok(TimeBlock::Auto),
            k => match k.parse::<u64>() {
                Ok(0) | Err(_) => Err(alloc::format!(
                    "--time-block {text}: give off, auto or a number of steps (at least 1)"
                )),
                Ok(1) => Ok(TimeBlock::Off),
                Ok(k) => Ok(TimeBlock::Steps(k)),
            },
        }
    }

    /// How it is written in reports: `off`, `auto` or the number.
    pub fn name(self) -> alloc::string::String {
        match self {
            TimeBlock::Off => "off".into(),
            TimeBlock::Auto => "auto".into(),
            TimeBlock::Steps(k) => alloc::format!("{k}"),
        }
    }
}

/// A wavefront tile: how many steps, and the cells of each slab (whole planes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeTile {
    /// Steps a tile advances (at least 2).
    pub steps: u64,
    /// Cells of a slab; the chunk rounds to whole planes, at least one.
    pub slab_cells: usize,
}

/// Why a chunk with these parts cannot be swept several steps at once, or `None` when it can:
/// plane waves, dispersive media, tensor nodes, a 1D grid (see the module doc).
pub fn fallback(
    plane_waves: bool,
    dispersive: bool,
    halo: HaloShape,
    mode: Mode,
) -> Option<&'static str> {
    if plane_waves {
        Some("TF/SF plane waves: the incident line advances one step at a time")
    } else if dispersive {
        Some("dispersive media are not tiled")
    } else if halo == HaloShape::Shell {
        Some("off-diagonal eps/mu: a tensor node reads across a slab's corner")
    } else if mode == Mode::OneD {
        Some("a 1D grid is one row: nothing to cut into slabs")
    } else {
        None
    }
}

/// [`fallback`] of a chunk's state.
pub fn state_fallback<T: yee_core::Scalar>(state: &YeeState<T>) -> Option<&'static str> {
    fallback(
        !state.lines.is_empty(),
        state.dispersive.iter().any(Option::is_some),
        state.halo_shape,
        state.mode,
    )
}

/// [`fallback`] of a whole setup (every chunk of it; a chunk without the setup's dispersive
/// nodes could tile, but the report names the setup's reason).
pub fn setup_fallback(setup: &Setup) -> Option<&'static str> {
    fallback(
        !setup.plane_waves.is_empty(),
        !setup.poles.is_empty(),
        HaloShape::of(setup),
        setup.mode,
    )
}

/// The probes a multi-step submit samples itself (`yee_em::YeeFields::drain_probe_samples`):
/// those of the setup inside the region it advances. A probe's node is written only by the
/// slab step that holds its cell, and by no other until that slab's next step, so right
/// after step `s` of the slab holding it the node holds its value at step `s` — the value a
/// run stopped after step `s` would read.
#[derive(Clone, Debug, Default)]
pub struct TileProbes {
    /// `(probe index, component, cell)`.
    probes: Vec<(usize, Component, Index3)>,
}

impl TileProbes {
    /// The probes of `setup` whose cells are in `region`.
    pub fn of(setup: &Setup, region: Box3) -> Self {
        let probes = (setup.probes.iter().enumerate())
            .filter(|(_, p)| region.contains(p.cell))
            .map(|(i, p)| (i, p.component, p.cell))
            .collect();
        TileProbes { probes }
    }

    /// Appends `(probe index, step, value)` to `out` for each probe in `slab`, read from
    /// `state` just after it advanced `slab` through `step` steps (1-based).
    pub fn sample<T: yee_core::Scalar>(
        &self,
        state: &YeeState<T>,
        slab: Box3,
        step: u64,
        out: &mut Vec<(usize, u64, T)>,
    ) {
        for &(i, c, cell) in self.probes.iter().filter(|p| slab.contains(p.2)) {
            if let Some(field) = state.field(c) {
                out.push((i, step, field.get(cell)));
            }
        }
    }
}

/// The order of a wavefront over `slabs` slabs and `steps` steps: `(s, j)`, step `s` of slab
/// `j`, wave by wave (`w = j + s`), the steps of a wave in increasing order.
pub fn wavefront(slabs: usize, steps: usize) -> impl Iterator<Item = (usize, usize)> {
    (0..slabs + steps.max(1) - 1).flat_map(move |w| {
        (0..steps)
            .filter(move |&s| s <= w && w - s < slabs)
            .map(move |s| (s, w - s))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_wavefront_meets_the_stencils_one_plane_reach() {
        for (slabs, steps) in [(1, 1), (5, 1), (1, 4), (7, 3), (3, 6)] {
            let order: Vec<(usize, usize)> = wavefront(slabs, steps).collect();
            assert_eq!(order.len(), slabs * steps);
            let at = |s: usize, j: usize| order.iter().position(|&p| p == (s, j)).unwrap();
            for s in 0..steps {
                for j in 0..slabs {
                    let me = at(s, j);
                    // Its own previous step, and the slab above's previous step, come first.
                    if s > 0 {
                        assert!(at(s - 1, j) < me);
                        if j + 1 < slabs {
                            assert!(at(s - 1, j + 1) < me);
                        }
                    }
                    // The slab below has done this step, and not the next.
                    if j > 0 {
                        assert!(at(s, j - 1) < me);
                        if s + 1 < steps {
                            assert!(at(s + 1, j - 1) > me);
                        }
                    }
                    // The slab above has not done this step yet.
                    if j + 1 < slabs {
                        assert!(at(s, j + 1) > me);
                    }
                }
            }
        }
    }

    #[test]
    fn time_block_options_parse_or_name_what_is_wrong() {
        assert_eq!(TimeBlock::parse("off"), Ok(TimeBlock::Off));
        assert_eq!(TimeBlock::parse("auto"), Ok(TimeBlock::Auto));
        assert_eq!(TimeBlock::parse("4"), Ok(TimeBlock::Steps(4)));
        assert_eq!(TimeBlock::parse("1"), Ok(TimeBlock::Off));
        assert!(
            TimeBlock::parse("0")
                .unwrap_err()
                .contains("--time-block 0")
        );
        assert!(TimeBlock::parse("fast").is_err());
        assert_eq!(TimeBlock::Steps(4).name(), "4");
    }
}
