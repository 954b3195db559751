//! yee's errors as Python exceptions: a bad scene raises `yee.SceneError` (a `ValueError`)
//! naming the key (`key`) and, for files, the line (`line`); a bad option `ValueError`; a file
//! not written `OSError`; a diverged or failed run `yee.RunError`; a stopped run
//! `KeyboardInterrupt`.

use pyo3::exceptions::{PyKeyboardInterrupt, PyOSError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use yee_scene::SceneError as Scene;
use yee_simulation::AppError;

pyo3::create_exception!(
    yee,
    SceneError,
    PyValueError,
    "A scene that cannot be read or run: `key` names the key (like `sources[1].component`), \
     `line` the line of a file (None where there is none), `file` the file."
);

pyo3::create_exception!(
    yee,
    RunError,
    PyRuntimeError,
    "A run that diverged (the message names the step, component and cell) or failed."
);

/// `e` as the Python exception a caller catches.
pub fn to_py(e: AppError) -> PyErr {
    match e {
        AppError::Scene(s) => scene_error(s),
        AppError::Usage(m) => PyValueError::new_err(m),
        AppError::Io { .. } => PyOSError::new_err(e.to_string()),
        AppError::Interrupted(m) => PyKeyboardInterrupt::new_err(m),
        AppError::Runtime(_) | AppError::Run(_) | AppError::Reported => {
            RunError::new_err(e.to_string())
        }
    }
}

/// A scene error as [`SceneError`] with its key, line and file as attributes.
pub fn scene_error(e: Scene) -> PyErr {
    let (file, key, line) = match &e {
        Scene::Read { file, .. } => (file.clone(), String::new(), None),
        Scene::Parse {
            file, line, key, ..
        } => (file.clone(), key.clone(), Some(*line)),
        Scene::Invalid { file, key, .. } => (file.clone(), key.clone(), None),
    };
    let err = SceneError::new_err(e.to_string());
    Python::with_gil(|py| {
        let value = err.value(py);
        let _ = value.setattr("key", key);
        let _ = value.setattr("line", line);
        let _ = value.setattr("file", file.display().to_string());
    });
    err
}
