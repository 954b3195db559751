//! A chunk made from stencils alone: an app writes its update rules as [`Stencil`]s over
//! [`Fields`] and gets a [`Chunk`] — ghost width, halos, work and migration derived from what
//! the stencils declare — that runs decomposed, balanced and migrated by the generic session.

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
    pub fn get(&self, id: FieldId) -> &HostField<T> {
        &self.fields[id.0 as usize]
    }

    /// The field of `id`, mutable.
    pub fn get_mut(&mut self, id: FieldId) -> &mut HostField<T> {
        &mut self.fields[id.0 as usize]
    }
}

/// A chunk whose phases are the stencils `S`, one per phase, in order.
///
/// Derived from the stencils:
/// - the ghost width: the largest [`Stencil::reach`], on each active axis;
/// - the halos after phase `p`: the fields stencil `p` writes that some stencil reads with a
///   non-zero reach, a layer of the ghost width toward every share direction (faces, edges
///   and corners: a stencil may read diagonal neighbours);
/// - the work of a step: the sum of the stencils' [`Stencil::cost_per_cell`] per cell;
/// - migration: every field of every cell.
#[derive(Clone, Debug)]
pub struct StencilChunk<T: Scalar, S> {
    state: Fields<T>,
    stencils: Vec<S>,
    owned: Box3,
    ghost: [usize; 3],
    /// Per phase, the fields exchanged after it.
    exchanged: Vec<Vec<FieldId>>,
}

impl<T: Scalar, S: Stencil<Fields<T>>> StencilChunk<T, S> {
    /// A chunk owning `owned` of a grid whose `active` axes it uses, with `fields` arrays (all
    /// zero) and one phase per stencil.
    pub fn new(owned: Box3, active: [bool; 3], fields: usize, stencils: Vec<S>) -> Self {
        let reach = stencils.iter().map(Stencil::reach).max().unwrap_or(0);
        let ghost = active.map(|a| if a { reach } else { 0 });
        let read_across = |id: &FieldId| {
            stencils
                .iter()
                .any(|s| s.reach() > 0 && s.reads().contains(id))
        };
        let exchanged = stencils
            .iter()
            .map(|s| s.writes().iter().copied().filter(read_across).collect())
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

    /// The owned cells within the ghost width of the `d` side (`inside`), or the ghost cells
    /// beyond it (`!inside`).
    fn layer(&self, d: Direction, inside: bool) -> Box3 {
        let (o, g) = (self.owned, self.ghost.map(|g| g as i64));
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

    /// Copies the fields exchanged after `phase` over `region` into `out`, one field after
    /// the other.
    fn pack(&self, phase: usize, region: Box3, out: &mut [T]) {
        let n = region.cells();
        for (k, &id) in self.exchanged[phase].iter().enumerate() {
            self.state
                .get(id)
                .read_box(region, &mut out[k * n..(k + 1) * n]);
        }
    }

    /// Writes what [`StencilChunk::pack`] of a neighbour wrote into `region`.
    fn unpack(&mut self, phase: usize, region: Box3, data: &[T]) {
        let n = region.cells();
        for (k, &id) in self.exchanged[phase].iter().enumerate() {
            self.state.fields[id.0 as usize].write_box(region, &data[k * n..(k + 1) * n]);
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
        self.exchanged[phase].len() * self.layer(toward, true).cells()
    }

    fn ghost_len(&self, phase: usize, from: Direction) -> usize {
        self.exchanged[phase].len() * self.layer(from, false).cells()
    }

    fn pack_halos(
        &mut self,
        phase: usize,
        towards: &[Direction],
        out: &mut [HostBuffer<T>],
    ) -> Result<(), HostChunkError> {
        for (&d, buffer) in towards.iter().zip(out) {
            let len = self.halo_len(phase, d);
            self.pack(phase, self.layer(d, true), buffer.values_mut(len));
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
            self.unpack(phase, self.layer(d, false), buffer.values(len));
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
