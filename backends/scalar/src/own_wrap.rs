//! A chunk alone along a periodic axis is its own neighbour there: the ghosts past one face
//! hold the values just inside the other (times the Bloch phase, [`yee_em::bloch`]). A run
//! refreshes them by exchanging halos with itself after every phase; a chunk that sweeps
//! several steps in wavefront tiles ([`crate::time_tile`]) refreshes them itself instead, slab
//! by slab, right before a slab's phase reads them ([`refresh`]).
//!
//! Why the bits stay: the Yee stencil reads a ghost across a face along that face's axis
//! alone, at the reading node's own plane of the slab axis. Before H of slab `j` at step `s`,
//! E over the slab's planes is at step `s` (its E of step `s − 1` ran in the wave before) and
//! its ghosts are copied from those values; before E of slab `j`, H over the slab's planes has
//! just been advanced to `s + ½`. So every ghost a slab's phase reads holds what the halo
//! exchange of the one-step run would have put there. What this does not hold
//! ([`tile_wrap`]): a periodic slab axis (the wavefront cannot wrap), tensor nodes (they read
//! the other field a plane further, across edges), a ghost zone, and a chunk that is not
//! alone along its periodic axes.

use yee_core::{Axis, Box3, Direction, Real, Scalar};
use yee_em::Setup;
use yee_em::halo::{self, HaloShape};

use crate::state::YeeState;

/// The Bloch rotation of the halo arriving at `owned` from its `from` side, in the field's
/// real type ([`yee_em::bloch::wrap_phase`]).
pub fn bloch_rotation<T: Scalar>(
    setup: &Setup,
    owned: Box3,
    from: Direction,
) -> Option<(T::Real, T::Real)> {
    yee_em::bloch::wrap_phase(setup, owned, from)
        .map(|(re, im)| (T::Real::from_f64(re), T::Real::from_f64(im)))
}

/// The periodic axes along which a chunk owning `owned` of `setup` wraps onto itself, if a
/// tile sweeping slabs across `slab_axis` can refresh them as it goes ([module doc](self)),
/// else why not.
pub fn tile_wrap(
    setup: &Setup,
    owned: Box3,
    shape: HaloShape,
    slab_axis: usize,
) -> Result<[bool; 3], &'static str> {
    let periodic = Axis::ALL.map(|a| setup.is_periodic(a));
    if !periodic.contains(&true) {
        return Ok(periodic);
    }
    if periodic[slab_axis] {
        return Err("periodic along the slab axis (z in 3D, y in 2D): a wavefront cannot wrap");
    }
    if shape == HaloShape::Shell {
        return Err("a periodic wrap with off-diagonal eps/mu (tensor nodes) refreshes every step");
    }
    let alone = (0..3).all(|a| !periodic[a] || owned.extent()[a] == setup.grid[a]);
    match alone {
        true => Ok(periodic),
        false => Err("a periodic wrap across ranks refreshes the ghosts every step"),
    }
}

/// Why a run of `setup` (of several ranks: `decomposed`) steps one step at a time for its
/// periodic wrap, or `None`: no wrap, or one rank whose tiles refresh it ([`tile_wrap`] of
/// the whole grid, slabs across its outermost axis beyond x).
pub fn setup_wrap_fallback(setup: &Setup, decomposed: bool) -> Option<&'static str> {
    if !Axis::ALL.into_iter().any(|a| setup.is_periodic(a)) {
        return None;
    }
    if decomposed {
        return Some("a periodic wrap in a decomposed run refreshes the ghosts every step");
    }
    let whole = Box3::from_extent(setup.grid);
    let axis = crate::time_tile::slab_axis(setup.grid)?;
    tile_wrap(setup, whole, HaloShape::of(setup), axis).err()
}

/// Copies the ghosts of `phase`'s components that the chunk's own wrap along `axes` fills,
/// over the planes `planes` of `slab_axis` ([module doc](self)): for each face of each such
/// axis, the owned layer the driver would send toward it lands in the ghosts on the other
/// side, times the Bloch phase.
pub fn refresh<T: Scalar>(
    state: &mut YeeState<T>,
    setup: &Setup,
    (phase, axes): (usize, [bool; 3]),
    slab_axis: usize,
    planes: core::ops::Range<i64>,
) {
    let (mode, owned, shape) = (state.mode, state.owned, state.halo_shape);
    let cut = |mut b: Box3| {
        b.lo[slab_axis] = b.lo[slab_axis].max(planes.start);
        b.hi[slab_axis] = b.hi[slab_axis].min(planes.end);
        b
    };
    for a in (0..3).filter(|&a| axes[a]) {
        for sign in [1i8, -1] {
            let mut toward = Direction([0; 3]);
            toward.0[a] = sign;
            let from = toward.opposite();
            let (Some((layer, _)), Some((ghosts, _))) = (
                halo::halo(mode, owned, phase, toward, shape),
                halo::ghosts(mode, owned, phase, from, shape),
            ) else {
                continue;
            };
            let (layer, ghosts) = (cut(layer), cut(ghosts));
            if layer.is_empty() {
                continue;
            }
            let shift = ghosts.lo[a] - layer.lo[a];
            let bloch = bloch_rotation::<T>(setup, owned, from);
            let nx = layer.extent()[0];
            for c in halo::phase_components(mode, phase) {
                let field = state.fields[c.index()]
                    .as_mut()
                    .expect("phase components are carried");
                // Row by row: the layer's row and its ghost row, both along x in storage.
                for z in layer.lo[2]..layer.hi[2] {
                    for y in layer.lo[1]..layer.hi[1] {
                        let from = [layer.lo[0], y, z];
                        let mut to = from;
                        to[a] += shift;
                        let (src, dst) = (field.storage_offset(from), field.storage_offset(to));
                        let values = field.as_mut_slice();
                        for i in 0..nx {
                            let v = values[src + i];
                            values[dst + i] = bloch.map_or(v, |(re, im)| v.rotate(re, im));
                        }
                    }
                }
            }
        }
    }
}
