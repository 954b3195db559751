//! Writers of the files a run leaves behind.

pub mod csv;
pub mod font;
pub mod npy;
pub mod png;
pub mod vti;
