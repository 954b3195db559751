//! A chunk made from stencils alone: an app writes its update rules as [`Stencil`]s over
//! [`Fields`] and gets a [`Chunk`] — ghost width, halos, work and migration derived from what
//! the stencils declare — that runs decomposed, balanced and migrated by the generic session.

use alloc::boxed::Box;
use alloc::vec::Vec;
use yee_core::{
    Box3, Capabilities, Chunk, Direction, Field, FieldId, HostBuffer, HostChunkError, Scalar,
    Stencil,
};

use crate::field::HostField;

/// The arrays of a stencil chunk: one [`HostField`] per [`FieldId`] (id `k` is `fields[k]`).
#[derive(Clone, Debug, PartialEq)]
pub struct Fields<T> {
    /// The fields, indexed by id.
    pub fields: Vec<HostField<T>>,
}

impl<T: Scalar> Fields<T> {
    /// The field of `id`.
    #[inline]
    pub fn get(&self, id: FieldId) -> &HostField<T> {
        &self.fields[id.0 as usize]
    }

    /// The field of `id`, mutable.
    #[inline]
    pub fn get_mut(&mut self, id: FieldId) -> &mut HostField<T> {
        &mut self.fields[id.0 as usize]
    }

    /// The fields of `ids`, all mutable at once (`let [u, v] = fields.disjoint_mut([U, V]);`).
    ///
    /// Panics if an id repeats or names no field: a mistake in the app's code, not its input.
    pub fn disjoint_mut<const N: usize>(&mut self, ids: [FieldId; N]) -> [&mut HostField<T>; N] {
        let mut slots: [Option<&mut HostField<T>>; N] = [const { None }; N];
        for (k, field) in self.fields.iter_mut().enumerate() {
            if let Some(j) = ids.iter().position(|id| id.0 as usize == k) {
                slots[j] = Some(field);
            }
        }
        slots.map(|f| f.expect("disjoint_mut: each id must name a distinct field"))
    }
}

/// A stencil of any type over [`Fields`]: [`StencilChunk`]'s default, so one chunk can hold
/// rules of different types (`vec![Box::new(Drift), Box::new(Kick)]`).
pub type DynStencil<T> = Box<dyn Stencil<Fields<T>> + Send>;

/// A chunk whose phases are the stencils `S`, one per phase, in order.
///
/// Derived from the stencils:
/// - the ghost width: the largest [`Stencil::reach`], on each active axis;
/// - the halos after phase `p`: each field stencil `p` writes that some stencil reads beyond
///   its own cell ([`Stencil::reach_of`] > 0), a layer as deep as the deepest such read,
///   toward every share direction (faces, edges and corners: a stencil may read diagonal
///   neighbours); a field read only in place is never sent;
/// - the work of a step: the sum of the stencils' [`Stencil::cost_per_cell`] per cell;
/// - migration: every field of every cell.
pub struct StencilChunk<T: Scalar, S = DynStencil<T>> {
    state: Fields<T>,
    stencils: Vec<S>,
    owned: Box3,
    ghost: [usize; 3],
    /// Per phase, the fields exchanged after it and the depth of their layer.
    exchanged: Vec<Vec<(FieldId, usize)>>,
}

impl<T: Scalar, S: Clone> Clone for StencilChunk<T, S> {
    fn clone(&self) -> Self {
        StencilChunk {
            state: self.state.clone(),
            stencils: self.stencils.clone(),
            owned: self.owned,
            ghost: self.ghost,
            exchanged: self.exchanged.clone(),
        }
    }
}

impl<T: Scalar, S> core::fmt::Debug for StencilChunk<T, S> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("StencilChunk")
            .field("owned", &self.owned)
            .field("ghost", &self.ghost)
            .field("phases", &self.stencils.len())
            .field("exchanged", &self.exchanged)
            .finish_non_exhaustive()
    }
}

impl<T: Scalar, S: Stencil<Fields<T>>> StencilChunk<T, S> {
    /// A chunk owning `owned` of a grid whose `active` axes it uses, with `fields` arrays (all
    /// zero) and one phase per stencil.
    pub fn new(owned: Box3, active: [bool; 3], fields: usize, stencils: Vec<S>) -> Self {
        let reach = stencils.iter().map(Stencil::reach).max().unwrap_or(0);
        let ghost = active.map(|a| if a { reach } else { 0 });
        let depth = |id: FieldId| stencils.iter().map(|s| s.reach_of(id)).max().unwrap_or(0);
        let exchanged = stencils
            .iter()
            .map(|s| {
                s.writes()
                    .iter()
                    .map(|&id| (id, depth(id).min(reach)))
                    .filter(|&(_, d)| d > 0)
                    .collect()
            })
            .collect();
        StencilChunk {
            state: Fields {
                fields: (0..fields)
                    .map(|_| HostField::zeros(owned, ghost))
                    .collect(),
            },
            stencils,
            owned,
            ghost,
            exchanged,
        }
    }

    /// The arrays (to set initial values, owned and ghost cells alike, or read results).
    pub fn fields(&self) -> &Fields<T> {
        &self.state
    }

    /// The arrays, mutable.
    pub fn fields_mut(&mut self) -> &mut Fields<T> {
        &mut self.state
    }

    /// The owned cells within `depth` of the `d` side (`inside`), or the ghost cells that
    /// deep beyond it (`!inside`).
    fn layer(&self, d: Direction, inside: bool, depth: usize) -> Box3 {
        let (o, g) = (self.owned, self.ghost.map(|g| g.min(depth) as i64));
        let mut b = o;
        for a in 0..3 {
            match (d.0[a], inside) {
                (1, true) => b.lo[a] = o.hi[a] - g[a],
                (1, false) => (b.lo[a], b.hi[a]) = (o.hi[a], o.hi[a] + g[a]),
                (-1, true) => b.hi[a] = o.lo[a] + g[a],
                (-1, false) => (b.lo[a], b.hi[a]) = (o.lo[a] - g[a], o.lo[a]),
                _ => {}
            }
        }
        b
    }

    /// Values sent toward (`inside`) or received from `d` after `phase`.
    fn halo_values(&self, phase: usize, d: Direction, inside: bool) -> usize {
        self.exchanged[phase]
            .iter()
            .map(|&(_, depth)| self.layer(d, inside, depth).cells())
            .sum()
    }

    /// Copies the fields exchanged after `phase` toward `d` into `out`, one field after the
    /// other.
    fn pack(&self, phase: usize, d: Direction, out: &mut [T]) {
        let mut at = 0;
        for &(id, depth) in &self.exchanged[phase] {
            let region = self.layer(d, true, depth);
            let n = region.cells();
            self.state.get(id).read_box(region, &mut out[at..at + n]);
            at += n;
        }
    }

    /// Writes what [`StencilChunk::pack`] of the neighbour beyond `d` wrote into the ghosts.
    fn unpack(&mut self, phase: usize, d: Direction, data: &[T]) {
        let mut at = 0;
        for k in 0..self.exchanged[phase].len() {
            let (id, depth) = self.exchanged[phase][k];
            let region = self.layer(d, false, depth);
            let n = region.cells();
            self.state.get_mut(id).write_box(region, &data[at..at + n]);
            at += n;
        }
    }
}

impl<T: Scalar, S: Stencil<Fields<T>>> Chunk for StencilChunk<T, S> {
    type Value = T;
    type Buffer = HostBuffer<T>;
    type Error = HostChunkError;
    const CAPABILITIES: Capabilities = Capabilities {
        asynchronous: false,
        migration: true,
    };

    fn owned(&self) -> Box3 {
        self.owned
    }

    fn ghost(&self) -> [usize; 3] {
        self.ghost
    }

    fn phases(&self) -> usize {
        self.stencils.len()
    }

    fn submit(&mut self, step: u64, phase: usize, region: Box3) -> Result<(), HostChunkError> {
        self.stencils[phase].apply(&mut self.state, region, step);
        Ok(())
    }

    fn buffer(&self, bytes: usize) -> Result<HostBuffer<T>, HostChunkError> {
        Ok(HostBuffer::with_bytes(bytes))
    }

    fn halo_len(&self, phase: usize, toward: Direction) -> usize {
        self.halo_values(phase, toward, true)
    }

    fn ghost_len(&self, phase: usize, from: Direction) -> usize {
        self.halo_values(phase, from, false)
    }

    fn pack_halos(
        &mut self,
        phase: usize,
        towards: &[Direction],
        out: &mut [HostBuffer<T>],
    ) -> Result<(), HostChunkError> {
        for (&d, buffer) in towards.iter().zip(out) {
            let len = self.halo_len(phase, d);
            self.pack(phase, d, buffer.values_mut(len));
        }
        Ok(())
    }

    fn unpack_halos(
        &mut self,
        phase: usize,
        froms: &[Direction],
        data: &[HostBuffer<T>],
    ) -> Result<(), HostChunkError> {
        for (&d, buffer) in froms.iter().zip(data) {
            let len = self.ghost_len(phase, d);
            self.unpack(phase, d, buffer.values(len));
        }
        Ok(())
    }

    fn work(&self, region: Box3) -> f64 {
        let per_cell: f64 = self.stencils.iter().map(Stencil::cost_per_cell).sum();
        per_cell * region.cells() as f64
    }

    fn slab_len(&self, region: Box3) -> usize {
        self.state.fields.len() * region.cells()
    }

    fn pack_slabs(
        &mut self,
        regions: &[Box3],
        out: &mut HostBuffer<T>,
    ) -> Result<(), HostChunkError> {
        let mut at = 0;
        for &r in regions {
            for f in &self.state.fields {
                f.read_box(r, &mut out.0[at..at + r.cells()]);
                at += r.cells();
            }
        }
        Ok(())
    }

    fn unpack_slabs(
        &mut self,
        regions: &[Box3],
        data: &HostBuffer<T>,
    ) -> Result<(), HostChunkError> {
        let mut at = 0;
        for &r in regions {
            for f in &mut self.state.fields {
                f.write_box(r, &data.0[at..at + r.cells()]);
                at += r.cells();
            }
        }
        Ok(())
    }

    fn resize(&mut self, owned: Box3) -> Result<(), HostChunkError> {
        for f in &mut self.state.fields {
            f.resize(owned);
        }
        self.owned = owned;
        Ok(())
    }
}
