//! Errors raised while a simulation runs.

use core::fmt;
use yee_core::{Component, Index3};

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
        }
    }
}

impl core::error::Error for RunError {}
