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
//! **Tensor nodes** (off-diagonal ε/μ, the smoothed surfaces of Kottke et al. 2008;
//! [`crate::tensor_nodes`]) read the other field a plane further: a tensor H node reads E a
//! plane below as well as above, a tensor E node H a plane above as well as below. Where a
//! chunk has them, H runs *one plane ahead* ([`h_ahead`], [`slab_planes`]): H of slab `j`
//! covers the slab's planes shifted up by one (from the region's first plane for the first
//! slab), E its own planes, and slabs other than the last are at least [`AHEAD_MIN_PLANES`]
//! thick when a tile has several steps. Then H(`s`, `j`), over planes `lo + 1 ..= hi`, reads
//! E of planes `lo … hi + 1`: `lo … hi − 1` are slab `j`'s, advanced to step `s` in wave
//! `w − 1`, and `hi`, `hi + 1` are slab `j + 1`'s (two planes thick), advanced to step `s`
//! by (`s − 1`, `j + 1`) earlier in wave `w`, and not yet past it. E(`s`, `j`) reads H of
//! planes `lo − 1 … hi`: `lo − 1` and `lo` were H-slab `j − 1`'s (advanced in wave `w − 1`,
//! next in wave `w` at step `s + 1`, after this), the rest H-slab `j`'s, just advanced. A
//! tensor node's running sums are its own. The bits are again the one-step path's. (One
//! step alone needs no thickness: [`crate::chunk::YeeChunk::apply_step`] runs it in slabs
//! of any thickness.)
//!
//! **TF/SF plane waves**: the incident line advances one step at a time, shared by every
//! region of a step. A tile first advances it through the tile's steps and keeps each step's
//! values (`k` copies of the line: [`yee_em::IncidentLine::keep_steps`]), and the corrections
//! of step `s` read step `s`'s; the line ends where the steps one by one leave it.
//!
//! **Dispersive media** (the polarisation of Drude, Lorentz and Debye poles;
//! [`crate::dispersive`]): the three passes of an E phase read and write only their own
//! node's E and P, in the phase's region, and each pass of step `s` takes the slots of Pⁿ
//! and Pⁿ⁻¹ by the parity of `s`, which is its own argument: slab `j` at step `s` and slab
//! `j + 1` at step `s − 1` use opposite slots of different nodes. So a slab step runs them
//! as the one-step path does, and the bits are again its.
//!
//! **A periodic wrap** across the slabs (x, and y in 3D) in a run of one rank: the chunk is
//! its own neighbour there, and a tile refreshes the wrap's ghosts over a slab's planes right
//! before the slab's phase reads them ([`crate::own_wrap`], where the argument is). A periodic
//! slab axis cannot be swept as a wavefront; those runs step one step at a time.
//!
//! What does not fit ([`fallback`]): a 1D grid (one row: nothing to cut). A decomposed run's
//! ghost zones ([`crate::ghost_zone`]) hold neither tensor nodes nor plane waves
//! ([`zone_fallback`]); they carry the polarisations of their dispersive nodes in the deep
//! halo, as fields and ψ.

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

/// A cache size as the OS writes it under `/sys/devices/system/cpu/cpu0/cache` (`32768K`) and
/// `--cache-bytes` takes it: a number of bytes, or a number followed by `K`, `M` or `G`
/// (binary: 2¹⁰, 2²⁰, 2³⁰); `None` for anything else, zero, or a size past `usize`.
pub fn parse_cache_bytes(text: &str) -> Option<usize> {
    let (digits, unit) = match text.as_bytes().last()? {
        b'K' | b'k' => (&text[..text.len() - 1], 1usize << 10),
        b'M' | b'm' => (&text[..text.len() - 1], 1 << 20),
        b'G' | b'g' => (&text[..text.len() - 1], 1 << 30),
        _ => (text, 1),
    };
    let n = digits.parse::<usize>().ok()?.checked_mul(unit)?;
    (n > 0).then_some(n)
}

/// A wavefront tile: how many steps, and the cells of each slab (whole planes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeTile {
    /// Steps a tile advances (at least 2).
    pub steps: u64,
    /// Cells of a slab; the chunk rounds to whole planes, at least one.
    pub slab_cells: usize,
}

/// Why a chunk of `mode` cannot be swept several steps at once, or `None` when it can: a 1D
/// grid (see the module doc).
pub fn fallback(mode: Mode) -> Option<&'static str> {
    (mode == Mode::OneD).then_some("a 1D grid is one row: nothing to cut into slabs")
}

/// Why a decomposed run's chunk with these parts keeps no ghost zone ([`crate::ghost_zone`])
/// though it tiles, or `None`: a tensor node reads the other field a cell further than the
/// Yee stencil (the exact region would shrink two cells a step, and the zone does not carry
/// the nodes' running sums), and plane waves are not tested there.
pub fn zone_fallback(plane_waves: bool, halo: HaloShape) -> Option<&'static str> {
    if halo == HaloShape::Shell {
        Some("off-diagonal eps/mu: a tensor node reads two cells a step beyond a ghost zone")
    } else if plane_waves {
        Some("TF/SF plane waves keep no ghost zone")
    } else {
        None
    }
}

/// [`fallback`] of a chunk's state.
pub fn state_fallback<T: yee_core::Scalar>(state: &YeeState<T>) -> Option<&'static str> {
    fallback(state.mode)
}

/// [`zone_fallback`] of a chunk's state.
pub fn state_zone_fallback<T: yee_core::Scalar>(state: &YeeState<T>) -> Option<&'static str> {
    zone_fallback(!state.lines.is_empty(), state.halo_shape)
}

/// [`fallback`] of a whole setup, then, for a run of several ranks (`decomposed`),
/// [`zone_fallback`].
pub fn setup_fallback(setup: &Setup, decomposed: bool) -> Option<&'static str> {
    let zone = || zone_fallback(!setup.plane_waves.is_empty(), HaloShape::of(setup));
    fallback(setup.mode).or_else(|| decomposed.then(zone).flatten())
}

/// The axis a box of `extent` cells is cut into slabs across: the outermost it spans beyond
/// x (z, else y), `None` for a single row.
pub fn slab_axis(extent: [usize; 3]) -> Option<usize> {
    (1..3).rev().find(|&a| extent[a] > 1)
}

/// Whether a chunk's H slabs run one plane ahead of its E slabs ([`slab_planes`], the module
/// doc): it has tensor nodes.
pub fn h_ahead<T: yee_core::Scalar>(state: &YeeState<T>) -> bool {
    state.tensor.iter().any(Option::is_some)
}

/// The fewest planes a slab other than the last holds in a tile of several steps where H runs
/// ahead (the module doc): H of slab `j` then reads E of slab `j + 1`'s first two planes.
pub const AHEAD_MIN_PLANES: usize = 2;

/// The planes H and E of slab `j` cover (`[H, E]`, counted from the region's first plane) when
/// a region of `planes` planes is cut into slabs of `thickness`: E its own; H the same unless
/// `ahead`, then shifted up by one plane, the first slab's from the region's first plane and
/// the last slab's to its last (the module doc).
pub fn slab_planes(
    j: usize,
    thickness: usize,
    planes: usize,
    ahead: bool,
) -> [core::ops::Range<usize>; 2] {
    let lo = (j * thickness).min(planes);
    let hi = (lo + thickness).min(planes);
    let shift = usize::from(ahead);
    let h_lo = if j == 0 { lo } else { (lo + shift).min(planes) };
    [h_lo..(hi + shift).min(planes), lo..hi]
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
/// `j` (H, then E), wave by wave (wave `j + s`), the parts of a wave in increasing step.
pub fn wavefront(slabs: usize, steps: usize) -> impl Iterator<Item = (usize, usize)> {
    let waves = slabs + steps.max(1) - 1;
    (0..waves).flat_map(move |w| {
        (0..steps).filter_map(move |s| {
            let j = w.checked_sub(s)?;
            (j < slabs).then_some((s, j))
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;
    use yee_em::halo::{ELECTRIC_PHASE, MAGNETIC_PHASE};

    /// As the OS writes them and as `--cache-bytes` takes them; nothing else, and no zero.
    #[test]
    fn cache_sizes_read_as_the_os_writes_them() {
        assert_eq!(parse_cache_bytes("32768K"), Some(32 << 20));
        assert_eq!(parse_cache_bytes("1M"), Some(1 << 20));
        assert_eq!(parse_cache_bytes("16m"), Some(16 << 20));
        assert_eq!(parse_cache_bytes("2G"), Some(2 << 30));
        assert_eq!(parse_cache_bytes("512"), Some(512));
        for bad in [
            "lots",
            "",
            "M",
            "0",
            "0K",
            "-1M",
            "1.5M",
            "99999999999999999999G",
        ] {
            assert_eq!(parse_cache_bytes(bad), None, "{bad:?}");
        }
    }

    /// Runs the order of [`wavefront`] over `planes` planes cut into slabs of `thickness`, each
    /// phase over its [`slab_planes`], on counters of how many times each plane's H and E were
    /// updated, and checks that every update finds its own field and the other field's planes
    /// it reads (`below` and `above` its own, H's and E's reach) at the one-step path's step:
    /// H(`s`) reads E after `s` updates, E(`s`) reads H after `s + 1`.
    fn check_order(
        planes: usize,
        thickness: usize,
        steps: usize,
        ahead: bool,
        reach: [[usize; 2]; 2],
    ) {
        let mut done = [vec![0; planes], vec![0; planes]];
        for (s, j) in wavefront(planes.div_ceil(thickness), steps) {
            let ranges = slab_planes(j, thickness, planes, ahead);
            for (phase, range) in [MAGNETIC_PHASE, ELECTRIC_PHASE].into_iter().zip(ranges) {
                let other = 1 - phase;
                let [below, above] = reach[phase];
                for p in range {
                    assert_eq!(done[phase][p], s, "{phase} of plane {p} out of turn");
                    for n in p.saturating_sub(below)..(p + above + 1).min(planes) {
                        let want = s + usize::from(phase == ELECTRIC_PHASE);
                        assert_eq!(
                            done[other][n], want,
                            "step {s} phase {phase} of plane {p} (slab {j}) reads plane {n} at \
                             the wrong step ({planes} planes of {thickness}, {steps} steps, \
                             ahead {ahead})"
                        );
                    }
                    done[phase][p] += 1;
                }
            }
        }
        assert!(done.iter().flatten().all(|&n| n == steps), "a plane missed");
    }

    /// The Yee stencil: H reads E of its plane and the one above, E reads H of its plane and
    /// the one below.
    const YEE: [[usize; 2]; 2] = [[0, 1], [1, 0]];
    /// A tensor node reads the other field of the planes on both sides.
    const TENSOR: [[usize; 2]; 2] = [[1, 1], [1, 1]];

    #[test]
    fn the_wavefront_meets_the_stencils_one_plane_reach() {
        for (planes, thickness, steps) in [
            (1, 1, 1),
            (5, 1, 1),
            (1, 1, 4),
            (7, 1, 3),
            (3, 1, 6),
            (9, 2, 3),
            (8, 3, 5),
        ] {
            check_order(planes, thickness, steps, false, YEE);
        }
    }

    #[test]
    fn h_one_plane_ahead_meets_the_tensor_nodes_reach() {
        // Slabs of two planes and more, the last of one, two or more; and one step in slabs
        // of one plane (`YeeChunk::apply_step`).
        for (planes, thickness, steps) in [
            (1, 2, 3),
            (2, 2, 4),
            (5, 2, 1),
            (7, 2, 3),
            (8, 2, 6),
            (10, 3, 4),
            (11, 4, 8),
            (9, 1, 1),
            (1, 1, 5),
        ] {
            check_order(planes, thickness, steps, true, TENSOR);
            check_order(planes, thickness, steps, true, YEE);
        }
    }

    #[test]
    #[should_panic(expected = "wrong step")]
    fn slabs_in_step_do_not_meet_the_tensor_nodes_reach() {
        check_order(8, 2, 3, false, TENSOR);
    }

    #[test]
    #[should_panic(expected = "wrong step")]
    fn one_plane_slabs_ahead_do_not_meet_it_over_several_steps() {
        check_order(6, 1, 2, true, TENSOR);
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
