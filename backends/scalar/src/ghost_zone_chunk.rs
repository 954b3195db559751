//! The ghost zone of a [`YeeChunk`] ([`crate::ghost_zone`] says what it is and why the owned
//! cells stay exact): setting it, stepping the owned box and zone at once, its work, and the
//! deep halos — every field, CPML ψ and dispersive polarisation of a box — packed and
//! unpacked.

use yee_core::{Axis, Box3, Direction, Field, Scalar};
use yee_em::Component;

use crate::chunk::{CurlExecutor, YeeChunk};
use crate::ghost_zone::{GhostZone, compute_box, deep_border, deep_ghosts};
use crate::time_tile::TileProbes;

impl<T: Scalar, K: CurlExecutor<T>> YeeChunk<'_, T, K> {
    /// The steps a ghost zone of this chunk could hold: its wavefront tile's
    /// ([`YeeChunk::time_tile`]: what `--time-block` asks for, on what the tile holds), 1
    /// without one, on a periodic axis, or with parts a zone does not hold
    /// ([`crate::time_tile::state_zone_fallback`]: tensor nodes, plane waves). Probes do not
    /// cut it: the chunk samples those it owns inside a block ([`YeeChunk::apply_zone_steps`]).
    pub fn zone_wish(&self) -> u64 {
        if crate::time_tile::state_zone_fallback(&self.state).is_some() {
            return 1;
        }
        let periodic = Axis::ALL
            .into_iter()
            .any(|a| self.state.mode.active_axes()[a.index()] && self.setup.is_periodic(a));
        match periodic {
            true => 1,
            false => self.time_tile().map_or(1, |t| t.steps),
        }
    }

    /// Gives the chunk a ghost zone of `steps` steps (1: none): its state is moved in place
    /// to cover the compute box ([`compute_box`]), the owned values kept.
    pub fn set_zone(&mut self, steps: u64) {
        let owned = self.owned_box();
        self.zone = (steps > 1).then_some(GhostZone { steps, owned });
        let covered = self.covered(owned);
        if covered != self.state.owned {
            self.state.resize(&self.setup, covered, &self.kernel);
        }
    }

    /// The box the state covers for owned box `owned`: the compute box with a zone, else
    /// `owned`.
    pub(crate) fn covered(&self, owned: Box3) -> Box3 {
        let s = &self.state;
        match self.zone {
            Some(z) => compute_box(owned, z.steps, s.grid, s.mode.active_axes()),
            None => owned,
        }
    }

    /// The owned box: the zone's, else the state's.
    pub(crate) fn owned_box(&self) -> Box3 {
        self.zone.map_or(self.state.owned, |z| z.owned)
    }

    /// Advances the owned box `count` steps from `first` (at most the zone's), updating the
    /// zone as deep as they need, `count` cells: in wavefront tiles where the chunk takes
    /// them ([`YeeChunk::apply_steps`]), else step by step, step `s` over the owned box grown
    /// by `count − s` (the exact region shrinks a cell a step: the module doc). The probes
    /// in the owned box are sampled at every step but the last, as [`YeeChunk::apply_steps`]
    /// does: the owned cells are exact after each step of a block, and a probe in the zone is
    /// its owner's to sample.
    pub fn apply_zone_steps(&mut self, first: u64, count: u64) {
        let Some(zone) = self.zone else {
            let owned = self.state.owned;
            return self.apply_steps(first, count, owned);
        };
        let (grid, active) = (self.state.grid, self.state.mode.active_axes());
        if self.time_tile().is_some() && count > 1 {
            return self.apply_steps(first, count, compute_box(zone.owned, count, grid, active));
        }
        let probes = TileProbes::of(&self.setup, zone.owned);
        for s in 0..count {
            let region = compute_box(zone.owned, count - s, grid, active);
            self.apply_step(first + s, region);
            if s + 1 < count {
                probes.sample(
                    &self.state,
                    zone.owned,
                    first + s + 1,
                    &mut self.probe_samples,
                );
            }
        }
    }

    /// The work of [`YeeChunk::apply_zone_steps`] of `count` steps.
    pub fn zone_work(&self, count: u64) -> f64 {
        use yee_core::Chunk;
        let Some(zone) = self.zone else {
            return count as f64 * self.work(self.state.owned);
        };
        let (grid, active) = (self.state.grid, self.state.mode.active_axes());
        let tiled = self.time_tile().is_some() && count > 1;
        (0..count)
            .map(|s| {
                let depth = if tiled { count } else { count - s };
                self.work(compute_box(zone.owned, depth, grid, active))
            })
            .sum()
    }

    /// The deep halo toward `toward` (what is packed) or from `from` (where it goes), as a
    /// box, when the chunk has a zone.
    fn zone_box(&self, dir: Direction, sending: bool) -> Option<Box3> {
        let zone = self.zone?;
        let active = self.state.mode.active_axes();
        let in_plane = dir.0 != [0; 3] && (0..3).all(|a| dir.0[a] == 0 || active[a]);
        let b = match sending {
            true => deep_border(zone.owned, dir, zone.steps),
            false => deep_ghosts(zone.owned, dir, zone.steps),
        };
        (in_plane && !zone.owned.is_empty()).then_some(b)
    }

    /// Values of the deep halo toward (`sending`) or from `dir`: every field and ψ over its
    /// box ([`YeeChunk::cells_len`]), then the polarisations of its dispersive nodes; 0
    /// without a zone.
    pub(crate) fn zone_halo_len(&self, dir: Direction, sending: bool) -> usize {
        self.zone_box(dir, sending).map_or(0, |b| {
            let poles = self.state.dispersive.iter().flatten();
            self.cells_len(b) + poles.map(|d| d.slab_len(b)).sum::<usize>()
        })
    }

    /// Packs the deep halo toward `toward` into `out`: every field and ψ, then each
    /// component's dispersive nodes' polarisations (both slots: the steps' parities agree
    /// across ranks).
    pub(crate) fn pack_zone_halo(&self, toward: Direction, out: &mut [T]) {
        if let Some(b) = self.zone_box(toward, true) {
            let mut at = self.pack_cells(b, out);
            for d in self.state.dispersive.iter().flatten() {
                at += d.pack(b, &mut out[at..]);
            }
        }
    }

    /// Unpacks the deep halo that arrived from `from`.
    pub(crate) fn unpack_zone_halo(&mut self, from: Direction, data: &[T]) {
        if let Some(b) = self.zone_box(from, false) {
            let mut at = self.unpack_cells(b, data);
            for d in self.state.dispersive.iter_mut().flatten() {
                at += d.unpack(b, &data[at..]);
            }
        }
    }

    /// Values [`YeeChunk::pack_cells`] writes for `region`: every component, every ψ.
    pub(crate) fn cells_len(&self, region: Box3) -> usize {
        let fields = self.state.mode.components().len() * region.cells();
        let psi: usize = (self.state.slabs.iter())
            .map(|s| s.psi.iter().flatten().count() * s.layer.intersect(&region).cells())
            .sum();
        fields + psi
    }

    /// Packs each component, then each CPML ψ, over `region` (a sub-box of the state's);
    /// returns the values written.
    pub(crate) fn pack_cells(&self, region: Box3, out: &mut [T]) -> usize {
        let mut at = 0;
        for &c in self.state.mode.components() {
            let n = region.cells();
            let field = self.state.field(c).expect("carried");
            field.read_box(region, &mut out[at..at + n]);
            at += n;
        }
        for slab in &self.state.slabs {
            let part = slab.layer.intersect(&region);
            for psi in slab.psi.iter().flatten() {
                for n in 0..part.cells() {
                    out[at] = psi[slab.region.linear_index(part.index_at(n))];
                    at += 1;
                }
            }
        }
        at
    }

    /// Unpacks what [`YeeChunk::pack_cells`] wrote for `region`; returns the values read.
    pub(crate) fn unpack_cells(&mut self, region: Box3, data: &[T]) -> usize {
        let mut at = 0;
        let components: &[Component] = self.state.mode.components();
        for &c in components {
            let n = region.cells();
            let field = self.state.fields[c.index()].as_mut().expect("carried");
            field.write_box(region, &data[at..at + n]);
            at += n;
        }
        for slab in &mut self.state.slabs {
            let part = slab.layer.intersect(&region);
            for psi in slab.psi.iter_mut().flatten() {
                for n in 0..part.cells() {
                    psi[slab.region.linear_index(part.index_at(n))] = data[at];
                    at += 1;
                }
            }
        }
        at
    }
}
