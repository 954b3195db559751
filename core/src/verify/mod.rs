//! Oracles: functions that check what the layout algorithms promise, by brute force or by
//! running them, and return the claim that failed. The property tests and the cargo-fuzz
//! targets are three-line wrappers around them. Kept apart from the algorithms so that no
//! algorithm depends on another's checker.

#[cfg(feature = "alloc")]
mod box_layout;
mod choice;
#[cfg(feature = "alloc")]
mod rcdc;
mod rounding;

#[cfg(feature = "alloc")]
pub use box_layout::{verify_box_layout, verify_layouts};
pub use choice::verify_choice;
#[cfg(feature = "alloc")]
pub use rcdc::verify_rcdc;
pub use rounding::verify_rounding;
