//! The seam a run's checkpoints plug into: when to cut the run, what a rank saves, and how
//! the ranks agree that a checkpoint is whole. The files themselves are the caller's
//! (`yee_runtime::checkpoint` writes them); this crate only calls the hooks at the right
//! steps, on every rank alike.
//!
//! A checkpoint is everything the chunks hold ([`yee_core::Chunk::pack_slabs`] over the owned
//! box: fields, CPML ψ, DFT sums and every other auxiliary array), the probe samples so far,
//! and the layout with its balancer ([`Cut`]): a tensor layout's borders ([`Start`]), or the
//! boxes or tile sets of a tiled run. The plane waves' incident lines are not in it:
//! they are a function of the step alone, and a chunk built at a later step replays them.

use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;
use yee_core::Box3;
use yee_core::box_balance::BoxBalancer;
use yee_core::session::{Plan, Start};
use yee_core::tile_balance::TileBalancer;
use yee_core::tile_driver::Ownership;
use yee_em::YeeFields;

/// Per probe index, `(step, value)` samples.
pub type ProbeSamples<T> = [Vec<(u64, T)>];

/// What a rank wrote of a checkpoint: the bytes and a checksum of them, gathered on every
/// rank and handed to [`Checkpoints::commit`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SavedPart {
    /// Bytes written.
    pub bytes: u64,
    /// CRC-32 of what was written.
    pub checksum: u32,
}

/// One checkpoint of a run: its step, and why it is not usable if it is not.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckpointRecord {
    /// Steps done when it was taken.
    pub step: u64,
    /// `None` when every rank saved its part and the checkpoint was completed.
    pub error: Option<String>,
}

/// Where a run is cut: the step and the layout it goes on from, which the checkpoint keeps so
/// that a run resumed on the same layout carries on with it.
#[derive(Clone, Copy)]
pub struct Cut<'a> {
    /// Steps done.
    pub step: u64,
    /// Who owns which cells from that step on.
    pub layout: CutLayout<'a>,
}

/// The layout of a [`Cut`].
#[derive(Clone, Copy)]
pub enum CutLayout<'a> {
    /// A tensor layout: its borders and balancer at the step.
    Tensor {
        /// The plan (topology, periodicity).
        plan: &'a Plan,
        /// The borders and balancer.
        start: &'a Start,
    },
    /// Boxes of a jagged or k-d layout, or tile sets.
    Owned {
        /// Who owns what.
        map: &'a dyn Ownership,
        /// Its balancer, when it is rebalanced.
        balancer: OwnedBalancer<'a>,
    },
}

/// The balancer of a box layout or tile set at a [`Cut`].
#[derive(Clone, Copy)]
pub enum OwnedBalancer<'a> {
    /// Fixed for the whole run.
    None,
    /// A jagged or k-d layout's.
    Boxes(&'a BoxBalancer),
    /// A tile set's.
    Tiles(&'a TileBalancer),
}

impl Cut<'_> {
    /// The cells `rank` owns at the cut, as the boxes its part of the checkpoint holds.
    pub fn owned(&self, rank: usize) -> Vec<Box3> {
        match self.layout {
            CutLayout::Tensor { plan, start } => vec![start.owned_box(plan, rank)],
            CutLayout::Owned { map, .. } => map.owned(rank),
        }
    }

    /// Number of ranks.
    pub fn ranks(&self) -> usize {
        match self.layout {
            CutLayout::Tensor { plan, .. } => plan.topology.ranks(),
            CutLayout::Owned { map, .. } => map.ranks(),
        }
    }
}

/// The hooks of one rank's checkpoints.
pub trait Checkpoints<C: YeeFields> {
    /// The first step after `step` at which a checkpoint is due by step count; the run is cut
    /// there. `None` when none is.
    fn next_due(&self, step: u64) -> Option<u64>;

    /// Polled after every step: true asks every rank to stop at the next collective check
    /// (`yee_core::session::STOP_CHECK_STEPS`), for a checkpoint when a wall-clock interval
    /// has passed, or for good when [`Checkpoints::interrupted`].
    fn wants_stop(&mut self) -> bool;

    /// A signal asked this process to stop: the run ends at the agreed step with a checkpoint.
    fn interrupted(&self) -> bool;

    /// Writes this rank's part of the checkpoint at `at.step`: `chunk`'s slabs over the cells
    /// the rank owns ([`Cut::owned`]) and this rank's probe samples.
    fn save(
        &mut self,
        chunk: &mut C,
        probes: &ProbeSamples<C::Value>,
        at: &Cut,
    ) -> Result<SavedPart, String>;

    /// Runs on every rank once every rank has saved (`parts[r]`, `None` where rank `r`
    /// failed): completes the checkpoint where every part is there (the writing rank writes
    /// its index), and drops the one it replaces.
    fn commit(&mut self, at: &Cut, parts: &[Option<SavedPart>]) -> Result<(), String>;

    /// Whether the run ends by copying each component out of the chunk into its
    /// [`crate::decomposed::RankOutput`] (by default it does). A run whose outputs were
    /// gathered while stepping says no and spares a second copy of the fields at its peak.
    fn keeps_fields(&self) -> bool {
        true
    }

    /// The rule that ends the run when its fields have decayed, checked by every rank at the
    /// same steps ([`yee_em::decay`]); `None` (the default): the run goes to its last step.
    fn until_decayed(&self) -> Option<yee_em::DecayRule> {
        None
    }
}

/// No checkpoints: a run that is never cut.
#[derive(Clone, Copy, Debug)]
pub struct NoCheckpoints {
    /// [`Checkpoints::keeps_fields`].
    pub keep_fields: bool,
}

impl Default for NoCheckpoints {
    /// Keeping the fields.
    fn default() -> Self {
        NoCheckpoints { keep_fields: true }
    }
}

impl<C: YeeFields> Checkpoints<C> for NoCheckpoints {
    fn next_due(&self, _: u64) -> Option<u64> {
        None
    }

    fn wants_stop(&mut self) -> bool {
        false
    }

    fn interrupted(&self) -> bool {
        false
    }

    fn save(
        &mut self,
        _: &mut C,
        _: &ProbeSamples<C::Value>,
        _: &Cut,
    ) -> Result<SavedPart, String> {
        Ok(SavedPart::default())
    }

    fn commit(&mut self, _: &Cut, _: &[Option<SavedPart>]) -> Result<(), String> {
        Ok(())
    }

    fn keeps_fields(&self) -> bool {
        self.keep_fields
    }
}
