//! Errors raised while a simulation runs.

use core::fmt;
use yee_core::Index3;
use yee_em::Component;

/// A run that cannot go on.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum RunError {
    /// A field value became NaN or infinite.
    Diverged {
        /// The step (1-based count of completed steps) whose update produced it.
        step: u64,
        /// The first component, in Ex…Hz order, holding a non-finite value.
        component: Component,
        /// The first such cell, in x-fastest order.
        cell: Index3,
    },
    /// A chunk's nodes need more distinct materials than its `u16` ids can name (the means on
    /// shape surfaces count): the run stops at its first step.
    TooManyMaterials {
        /// The most a chunk can name ([`crate::state::MAX_MATERIAL_IDS`]).
        limit: usize,
    },
}

impl RunError {
    /// The step the error belongs to: 0 for a chunk that could not run at all.
    pub fn step(&self) -> u64 {
        match *self {
            RunError::Diverged { step, .. } => step,
            RunError::TooManyMaterials { .. } => 0,
        }
    }
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            RunError::Diverged {
                step,
                component,
                cell,
            } => write!(
                f,
                "the run diverged: {} became non-finite at step {step} in cell {cell:?}",
                component.name()
            ),
            RunError::TooManyMaterials { limit } => write!(
                f,
                "the geometry gives one chunk's nodes more than {limit} distinct materials \
                 (the means on shape surfaces count); use fewer distinct materials or more ranks"
            ),
        }
    }
}

impl core::error::Error for RunError {}
