//! A chunk that only costs time: it holds no fields, sends Yee-sized halos of zeros and moves
//! nothing when migrating, so balancing runs on large virtual machines (Balykov 2019's 100³ on
//! 8 nodes for 20 000 steps) take seconds. Its work is one unit per cell.

use yee_core::{Box3, Chunk, Direction, Mode};

/// A stand-in for a Yee chunk of `mode` over `owned`.
#[derive(Clone, Debug)]
pub struct CostChunk {
    owned: Box3,
    mode: Mode,
}

impl CostChunk {
    /// A chunk owning `owned`.
    pub fn new(owned: Box3, mode: Mode) -> Self {
        CostChunk { owned, mode }
    }

    /// Components exchanged after `phase` (0: H, 1: E).
    fn components(&self, phase: usize) -> usize {
        self.mode
            .components()
            .iter()
            .filter(|c| c.is_electric() == (phase == 1))
            .count()
    }

    /// Cells of the face crossed toward `toward` if the Yee halo of `phase` crosses it.
    fn face_cells(&self, phase: usize, toward: Direction) -> usize {
        let Some(axis) = toward.face_axis() else {
            return 0;
        };
        let a = axis.index();
        if !self.mode.active_axes()[a] || (toward.0[a] > 0) != (phase == 0) || self.owned.is_empty()
        {
            return 0;
        }
        let e = self.owned.extent();
        e.iter()
            .enumerate()
            .filter(|&(b, _)| b != a)
            .map(|(_, &n)| n)
            .product()
    }
}

impl Chunk for CostChunk {
    type Value = f32;

    fn owned(&self) -> Box3 {
        self.owned
    }
    fn ghost(&self) -> [usize; 3] {
        self.mode.active_axes().map(usize::from)
    }
    fn phases(&self) -> usize {
        2
    }
    fn apply(&mut self, _step: u64, _phase: usize, _region: Box3) {}
    fn halo_len(&self, phase: usize, toward: Direction) -> usize {
        self.components(phase) * self.face_cells(phase, toward)
    }
    fn ghost_len(&self, phase: usize, from: Direction) -> usize {
        self.halo_len(phase, from.opposite())
    }
    fn pack_halo(&self, _phase: usize, _toward: Direction, out: &mut [f32]) {
        out.fill(0.0);
    }
    fn unpack_halo(&mut self, _phase: usize, _from: Direction, _data: &[f32]) {}
    fn slab_len(&self, _region: Box3) -> Option<usize> {
        Some(0)
    }
}
