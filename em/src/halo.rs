//! The Yee halo: which components cross which face after each phase of a step, and the
//! layers of cells they come from and go to. Every Yee backend's chunk (and the no-op
//! backend's cost-only one) exchanges exactly this, so it is written once here.
//!
//! A step is two phases: H (the magnetic half step), then E. The E update reads H half a cell
//! below (so H travels up, toward +axis, after the H phase) and the H update reads E half a
//! cell above (so E travels down after the E phase); edges and corners carry nothing for the
//! Yee stencil (Yee 1966; Taflove & Hagness, ch. 3).
//!
//! A setup with off-diagonal ε⁻¹ or μ⁻¹ ([`HaloShape::Shell`], [`HaloShape::of`]) reads more:
//! a tensor node averages the curls of the other components from the four nodes around it,
//! and those curls reach one cell further, so after each phase the whole one-cell shell
//! around the owned box (faces, edges and corners, both ways) is exchanged.

use yee_core::{Axis, Box3, Direction, Side};

use crate::setup::Setup;
use crate::yee::{Component, Mode};

/// Which ghosts a phase fills.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HaloShape {
    /// The Yee stencil's: one face layer per axis, one way per phase.
    Faces,
    /// The one-cell shell around the owned box, faces, edges and corners, both ways after
    /// both phases: what the tensor update reads.
    Shell,
}

impl HaloShape {
    /// The shape every chunk of `setup` exchanges: [`HaloShape::Shell`] when some node may
    /// carry off-diagonal ε⁻¹ or μ⁻¹ ([`Setup::has_tensor_nodes`]), else
    /// [`HaloShape::Faces`]. It depends on the setup alone, so every rank agrees.
    pub fn of(setup: &Setup) -> HaloShape {
        match setup.has_tensor_nodes() {
            true => HaloShape::Shell,
            false => HaloShape::Faces,
        }
    }
}

/// Phase 0 of a step updates H.
pub const MAGNETIC_PHASE: usize = 0;
/// Phase 1 of a step updates E.
pub const ELECTRIC_PHASE: usize = 1;

/// The components of `mode` updated, and exchanged, in `phase`.
pub fn phase_components(mode: Mode, phase: usize) -> impl Iterator<Item = Component> {
    let electric = phase == ELECTRIC_PHASE;
    mode.components()
        .iter()
        .copied()
        .filter(move |c| c.is_electric() == electric)
}

/// The face (axis, side of the sender) a halo sent toward `toward` after `phase` crosses, if
/// that phase sends anything that way.
pub fn halo_face(mode: Mode, phase: usize, toward: Direction) -> Option<(Axis, Side)> {
    let axis = toward.face_axis()?;
    if !mode.active_axes()[axis.index()] {
        return None;
    }
    let up = toward.0[axis.index()] > 0;
    let wanted = if phase == MAGNETIC_PHASE { up } else { !up };
    wanted.then_some((axis, if up { Side::High } else { Side::Low }))
}

/// The owned cells of `owned` next to `side` of `axis`, one layer thick: what is sent.
pub fn border_layer(owned: Box3, axis: Axis, side: Side) -> Box3 {
    let a = axis.index();
    match side {
        Side::Low => owned.with_bound(axis, Side::High, owned.lo[a] + 1),
        Side::High => owned.with_bound(axis, Side::Low, owned.hi[a] - 1),
    }
}

/// The ghost cells beyond `side` of `axis` of `owned`, one layer thick: where it arrives.
pub fn ghost_layer(owned: Box3, axis: Axis, side: Side) -> Box3 {
    let a = axis.index();
    match side {
        Side::Low => owned
            .with_bound(axis, Side::Low, owned.lo[a] - 1)
            .with_bound(axis, Side::High, owned.lo[a]),
        Side::High => owned
            .with_bound(axis, Side::High, owned.hi[a] + 1)
            .with_bound(axis, Side::Low, owned.hi[a]),
    }
}

/// The owned cells of `owned` toward `toward` (a face, edge or corner), one layer thick along
/// each axis it moves on: what a shell halo sends that way.
pub fn shell_border(owned: Box3, toward: Direction) -> Box3 {
    let mut b = owned;
    for a in 0..3 {
        match toward.0[a] {
            1 => b.lo[a] = owned.hi[a] - 1,
            -1 => b.hi[a] = owned.lo[a] + 1,
            _ => {}
        }
    }
    b
}

/// The ghost cells beyond `owned` on the `from` side (a face, edge or corner), one layer
/// thick along each axis it moves on: where a shell halo from there arrives.
pub fn shell_ghosts(owned: Box3, from: Direction) -> Box3 {
    let mut b = owned;
    for a in 0..3 {
        match from.0[a] {
            1 => (b.lo[a], b.hi[a]) = (owned.hi[a], owned.hi[a] + 1),
            -1 => (b.lo[a], b.hi[a]) = (owned.lo[a] - 1, owned.lo[a]),
            _ => {}
        }
    }
    b
}

/// Whether `d` moves only along axes `mode` uses (a shell halo goes every such way).
fn in_plane(mode: Mode, d: Direction) -> bool {
    let active = mode.active_axes();
    d.0 != [0; 3] && (0..3).all(|a| d.0[a] == 0 || active[a])
}

/// The halo toward `toward` after `phase` as (the layer it is read from, the number of
/// components), if any. An empty box (a disabled rank) sends nothing.
pub fn halo(
    mode: Mode,
    owned: Box3,
    phase: usize,
    toward: Direction,
    shape: HaloShape,
) -> Option<(Box3, usize)> {
    if owned.is_empty() {
        return None;
    }
    if shape == HaloShape::Shell {
        return in_plane(mode, toward).then(|| {
            (
                shell_border(owned, toward),
                phase_components(mode, phase).count(),
            )
        });
    }
    let (axis, side) = halo_face(mode, phase, toward)?;
    Some((
        border_layer(owned, axis, side),
        phase_components(mode, phase).count(),
    ))
}

/// Values sent toward `toward` after `phase`: every component of the phase over the halo
/// layer ([`halo`]), 0 when nothing goes that way.
pub fn halo_values(
    mode: Mode,
    owned: Box3,
    phase: usize,
    toward: Direction,
    shape: HaloShape,
) -> usize {
    halo(mode, owned, phase, toward, shape).map_or(0, |(l, n)| n * l.cells())
}

/// Values arriving from the `from` side after `phase` ([`ghosts`]).
pub fn ghost_values(
    mode: Mode,
    owned: Box3,
    phase: usize,
    from: Direction,
    shape: HaloShape,
) -> usize {
    ghosts(mode, owned, phase, from, shape).map_or(0, |(l, n)| n * l.cells())
}

/// The ghosts filled from the `from` side after `phase` as (the layer, the number of
/// components), if anything arrives from there. An empty box receives nothing.
pub fn ghosts(
    mode: Mode,
    owned: Box3,
    phase: usize,
    from: Direction,
    shape: HaloShape,
) -> Option<(Box3, usize)> {
    if owned.is_empty() {
        return None;
    }
    if shape == HaloShape::Shell {
        return in_plane(mode, from).then(|| {
            (
                shell_ghosts(owned, from),
                phase_components(mode, phase).count(),
            )
        });
    }
    // What arrives from `from` was sent toward the opposite direction.
    let (axis, _) = halo_face(mode, phase, from.opposite())?;
    let side = if from.0[axis.index()] > 0 {
        Side::High
    } else {
        Side::Low
    };
    Some((
        ghost_layer(owned, axis, side),
        phase_components(mode, phase).count(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use yee_core::share_directions;

    #[test]
    fn each_face_carries_one_way_per_phase_and_the_ghosts_match() {
        let owned = Box3::new([2, 3, 4], [6, 8, 9]);
        for mode in [Mode::OneD, Mode::Tmz, Mode::Tez, Mode::ThreeD] {
            for phase in [MAGNETIC_PHASE, ELECTRIC_PHASE] {
                for &d in share_directions(mode.active_axes()).iter() {
                    let faces = HaloShape::Faces;
                    let sent = halo(mode, owned, phase, d, faces);
                    let back = halo(mode, owned, phase, d.opposite(), faces);
                    if d.face_axis().is_none() {
                        assert!(sent.is_none(), "{mode:?} sends toward an edge");
                        continue;
                    }
                    // Exactly one of the two ways of a face carries the phase's components.
                    assert!(sent.is_some() != back.is_some(), "{mode:?} {phase} {d:?}");
                    // The neighbour beyond `d` receives it from its `d.opposite()` side, into a
                    // layer the size of the one sent (a chunk of the same box shows it).
                    if let Some((layer, n)) = sent {
                        let (ghost, m) =
                            ghosts(mode, owned, phase, d.opposite(), faces).expect("a ghost layer");
                        assert_eq!((layer.cells(), n), (ghost.cells(), m));
                        assert!(owned.contains_box(&layer) && owned.intersect(&ghost).is_empty());
                        assert!(ghosts(mode, owned, phase, d, faces).is_none());
                    }
                    // A disabled rank's empty box neither sends nor receives.
                    let empty = owned.with_bound(Axis::X, Side::High, owned.lo[0]);
                    assert!(halo(mode, empty, phase, d, faces).is_none());
                    assert!(ghosts(mode, empty, phase, d, faces).is_none());
                }
            }
        }
    }

    /// The shell goes every way after both phases, and what one box sends toward `d` is what
    /// its neighbour beyond `d` (the next box of a rectilinear layout) receives from
    /// `d.opposite()`: the same global cells.
    #[test]
    fn the_shell_fills_every_ghost_from_the_neighbour_that_owns_it() {
        let owned = Box3::new([2, 3, 4], [6, 8, 9]);
        for mode in [Mode::OneD, Mode::Tez, Mode::ThreeD] {
            let storage = owned.grow(mode.active_axes().map(i64::from));
            let mut filled = 0;
            for phase in [MAGNETIC_PHASE, ELECTRIC_PHASE] {
                for &d in share_directions(mode.active_axes()).iter() {
                    let (layer, _) = halo(mode, owned, phase, d, HaloShape::Shell).unwrap();
                    let shift: [i64; 3] =
                        core::array::from_fn(|a| i64::from(d.0[a]) * owned.extent()[a] as i64);
                    let beyond = Box3::new(
                        core::array::from_fn(|a| owned.lo[a] + shift[a]),
                        core::array::from_fn(|a| owned.hi[a] + shift[a]),
                    );
                    let (ghost, _) =
                        ghosts(mode, beyond, phase, d.opposite(), HaloShape::Shell).unwrap();
                    assert_eq!(layer, ghost, "{mode:?} {d:?}");
                    let (mine, _) = ghosts(mode, owned, phase, d, HaloShape::Shell).unwrap();
                    assert!(storage.contains_box(&mine) && owned.intersect(&mine).is_empty());
                    filled += mine.cells();
                }
                // Every ghost of the storage box is filled once.
                assert_eq!(filled, storage.cells() - owned.cells(), "{mode:?}");
                filled = 0;
            }
        }
    }
}
