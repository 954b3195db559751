//! The extension module `yee._yee` of the Python package `yee` (maturin, abi3): scenes
//! ([`scene`]), simulations ([`simulation`]), numpy arrays ([`arrays`]) and exceptions
//! ([`errors`]) over `yee-scene` and `yee-simulation`.

pub mod arrays;
pub mod errors;
pub mod scene;
pub mod simulation;

use pyo3::prelude::*;

/// The classes and exceptions the package `yee` re-exports.
#[pymodule]
fn _yee(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<scene::PyScene>()?;
    m.add_class::<simulation::PySimulation>()?;
    m.add("SceneError", m.py().get_type::<errors::SceneError>())?;
    m.add("RunError", m.py().get_type::<errors::RunError>())?;
    Ok(())
}
