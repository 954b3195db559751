//! Oracles: functions that check what the layout algorithms promise, by brute force or by
//! running them, and return the claim that failed. The property tests and the cargo-fuzz
//! targets are three-line wrappers around them. Kept apart from the algorithms so that no
//! algorithm depends on another's checker.

mod choice;
#[cfg(feature = "alloc")]
mod rcdc;
mod rounding;

pub use choice::verify_choice;
#[cfg(feature = "alloc")]
pub use rcdc::verify_rcdc;
pub use rounding::verify_rounding;
