//! The `Stencil` trait: an update rule over a box of cells.

use crate::geometry::Box3;

/// Names one field of a chunk's state (for Yee, the component index 0–5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FieldId(pub u16);

/// An update rule applied to a sub-box of a chunk's state `S`.
///
/// A stencil declares what it reads and writes, how far it reaches (the ghost width it needs
/// from neighbours) and what a cell costs (the balancer's weight). Applying it to any partition
/// of a box into sub-boxes must give the same values as applying it to the whole box: that is
/// what lets the driver update the border shell and the interior separately.
pub trait Stencil<S: ?Sized> {
    /// A short name for logs and profiles (by default the type's name).
    fn name(&self) -> &str {
        core::any::type_name::<Self>()
    }

    /// Fields read.
    fn reads(&self) -> &[FieldId];

    /// Fields written.
    fn writes(&self) -> &[FieldId];

    /// Ghost cells needed on each side, in cells: the largest [`Stencil::reach_of`].
    fn reach(&self) -> usize;

    /// How far beyond a cell the rule reads `field` (0: only at the cell itself, so that
    /// field needs no halo for this stencil). By default [`Stencil::reach`] for every field
    /// it [reads](Stencil::reads), 0 for the others; a rule that reads one field across
    /// cells and another only in place says so here, and the halo carries only the first.
    fn reach_of(&self, field: FieldId) -> usize {
        match self.reads().contains(&field) {
            true => self.reach(),
            false => 0,
        }
    }

    /// Relative cost of one cell (a plain vacuum Yee cell is 1; the default).
    fn cost_per_cell(&self) -> f64 {
        1.0
    }

    /// Applies the rule for time step `step` to the cells of `region`.
    fn apply(&self, state: &mut S, region: Box3, step: u64);
}

/// A boxed stencil is a stencil: a chunk can hold rules of different types in one list.
#[cfg(feature = "alloc")]
impl<S: ?Sized, X: Stencil<S> + ?Sized> Stencil<S> for alloc::boxed::Box<X> {
    fn name(&self) -> &str {
        (**self).name()
    }
    fn reads(&self) -> &[FieldId] {
        (**self).reads()
    }
    fn writes(&self) -> &[FieldId] {
        (**self).writes()
    }
    fn reach(&self) -> usize {
        (**self).reach()
    }
    fn reach_of(&self, field: FieldId) -> usize {
        (**self).reach_of(field)
    }
    fn cost_per_cell(&self) -> f64 {
        (**self).cost_per_cell()
    }
    fn apply(&self, state: &mut S, region: Box3, step: u64) {
        (**self).apply(state, region, step)
    }
}
