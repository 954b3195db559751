//! yee-modes' integration tests as one binary: the solver on scenes, against independent
//! references (the slab's dispersion relation, MPB).

mod parity;
mod rect_guide;
mod slab;
