//! Field values as numpy arrays: shaped like the grid's used axes, `a[x, y, z]`, in Fortran
//! order over the values as they are (x fastest), so nothing is copied.

use numpy::{PyArray1, PyArrayMethods, npyffi::NPY_ORDER};
use pyo3::prelude::*;
use yee_simulation::Values;

/// `values` (x fastest over `shape`) as a numpy array of that shape, without copying.
pub fn array(py: Python<'_>, values: Values, shape: &[usize]) -> PyResult<PyObject> {
    let order = NPY_ORDER::NPY_FORTRANORDER;
    Ok(match values {
        Values::F32(v) => PyArray1::from_vec(py, v)
            .reshape_with_order(shape, order)?
            .into_any()
            .unbind(),
        Values::F64(v) => PyArray1::from_vec(py, v)
            .reshape_with_order(shape, order)?
            .into_any()
            .unbind(),
        Values::C32(v) => PyArray1::from_vec(py, v)
            .reshape_with_order(shape, order)?
            .into_any()
            .unbind(),
        Values::C64(v) => PyArray1::from_vec(py, v)
            .reshape_with_order(shape, order)?
            .into_any()
            .unbind(),
    })
}

/// `values` as a one-dimensional numpy array of `f64`.
pub fn vector(py: Python<'_>, values: Vec<f64>) -> PyObject {
    PyArray1::from_vec(py, values).into_any().unbind()
}
