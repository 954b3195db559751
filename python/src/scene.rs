//! `yee.Scene`: a validated scene from a TOML file, TOML text or a dict mirroring the scene
//! file's keys (docs/scene.md) — one loader, so the same checks and the same messages.

use std::path::PathBuf;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use yee_scene::{Scene, SceneError};

use crate::errors::scene_error;

/// A scene, validated: the grid, materials, sources, probes, monitors and outputs of one run.
///
/// Make one with `Scene.load(path)`, `Scene.from_toml(text)` or `Scene.from_dict(d)`; a
/// scene that cannot run raises `yee.SceneError` naming the key (and the line of a file).
#[pyclass(name = "Scene", module = "yee", frozen)]
pub struct PyScene {
    /// The scene.
    pub scene: Scene,
}

#[pymethods]
impl PyScene {
    /// Loads the scene file `path` (TOML, as `yee run` reads it).
    #[staticmethod]
    fn load(path: PathBuf) -> PyResult<Self> {
        let scene = yee_scene::load(&path).map_err(scene_error)?;
        Ok(PyScene { scene })
    }

    /// The scene written in `text` (TOML); `path` names it in messages and is where the
    /// files it names (masks, `minus` spectra) are found from (default: `scene.toml` in the
    /// working directory).
    #[staticmethod]
    #[pyo3(signature = (text, path = None))]
    fn from_toml(text: &str, path: Option<PathBuf>) -> PyResult<Self> {
        let path = path.unwrap_or_else(|| PathBuf::from("scene.toml"));
        let scene = yee_scene::parse(&path, text).map_err(scene_error)?;
        Ok(PyScene { scene })
    }

    /// The scene a dict describes, with the keys and values of a scene file: tables are
    /// dicts, arrays lists or tuples. Errors name the key (`sources[0].component`); `path`
    /// is where the files it names are found from.
    #[staticmethod]
    #[pyo3(signature = (scene, path = None))]
    fn from_dict(scene: &Bound<'_, PyDict>, path: Option<PathBuf>) -> PyResult<Self> {
        let table = toml_value(scene.as_any(), "")?;
        let text = toml::to_string(&table)
            .map_err(|e| PyValueError::new_err(format!("the dict is not a scene: {e}")))?;
        let path = path.unwrap_or_else(|| PathBuf::from("<dict>"));
        let scene = yee_scene::parse(&path, &text).map_err(|e| scene_error(without_line(e)))?;
        Ok(PyScene { scene })
    }

    /// The scene's name (its output folder is `out/<name>` by default).
    #[getter]
    fn name(&self) -> &str {
        &self.scene.name
    }

    /// Steps the run takes.
    #[getter]
    fn steps(&self) -> u64 {
        self.scene.steps
    }

    /// Cells along x, y, z (1 on the axes the mode does not use).
    #[getter]
    fn grid(&self) -> [usize; 3] {
        self.scene.grid
    }

    /// 1, 2 or 3.
    #[getter]
    fn dims(&self) -> usize {
        self.scene.mode.dims()
    }

    /// The time step in scene units (seconds in SI scenes, cell crossings of light otherwise).
    #[getter]
    fn dt(&self) -> f64 {
        self.scene.units.to_scene_time(self.scene.dt())
    }

    /// The element type: "f32", "f64", "c32" or "c64".
    #[getter]
    fn value_type(&self) -> &'static str {
        self.scene.value_type.name()
    }

    /// The probes' names, in the scene's order.
    #[getter]
    fn probe_names(&self) -> Vec<String> {
        self.scene.probe_names.clone()
    }

    /// The same scene run for `steps` steps.
    fn with_steps(&self, steps: u64) -> PyResult<Self> {
        let mut scene = self.scene.clone();
        scene.set_steps(steps).map_err(scene_error)?;
        Ok(PyScene { scene })
    }

    fn __repr__(&self) -> String {
        let s = &self.scene;
        let grid: Vec<String> = s.grid[..s.mode.dims()]
            .iter()
            .map(usize::to_string)
            .collect();
        format!(
            "Scene({:?}, {} {}, {} steps, {})",
            s.name,
            s.mode.name(),
            grid.join("×"),
            s.steps,
            s.value_type.name()
        )
    }
}

/// A dict's scene error without a line: the line would be one of the TOML text made from it.
fn without_line(e: SceneError) -> SceneError {
    match e {
        SceneError::Parse {
            file, key, message, ..
        } => SceneError::Invalid { file, key, message },
        other => other,
    }
}

/// `value` (at `key`) as a TOML value: dicts as tables, lists and tuples as arrays, bools,
/// integers, floats and strings as themselves.
fn toml_value(value: &Bound<'_, PyAny>, key: &str) -> PyResult<toml::Value> {
    let bad = |what: &str| {
        let at = if key.is_empty() { "the scene" } else { key };
        PyValueError::new_err(format!("{at}: {what}"))
    };
    if value.is_instance_of::<PyBool>() {
        return Ok(toml::Value::Boolean(value.extract()?));
    }
    if value.is_instance_of::<PyInt>() {
        let i: i64 = value
            .extract()
            .map_err(|_| bad("the integer does not fit in 64 bits"))?;
        return Ok(toml::Value::Integer(i));
    }
    if value.is_instance_of::<PyFloat>() {
        return Ok(toml::Value::Float(value.extract()?));
    }
    if value.is_instance_of::<PyString>() {
        return Ok(toml::Value::String(value.extract()?));
    }
    if let Ok(d) = value.downcast::<PyDict>() {
        let mut table = toml::map::Map::new();
        for (k, v) in d.iter() {
            let name: String = k
                .extract()
                .map_err(|_| bad(&format!("the key {k} is not a string")))?;
            let path = if key.is_empty() {
                name.clone()
            } else {
                format!("{key}.{name}")
            };
            table.insert(name, toml_value(&v, &path)?);
        }
        return Ok(toml::Value::Table(table));
    }
    if value.is_instance_of::<PyList>() || value.is_instance_of::<PyTuple>() {
        let items = value
            .try_iter()?
            .enumerate()
            .map(|(i, v)| toml_value(&v?, &format!("{key}[{i}]")))
            .collect::<PyResult<Vec<_>>>()?;
        return Ok(toml::Value::Array(items));
    }
    if value.is_none() {
        return Err(bad("None has no TOML value: leave the key out"));
    }
    // numpy scalars and other numbers: integers first (`__index__`), then floats.
    if let Ok(i) = value.extract::<i64>() {
        return Ok(toml::Value::Integer(i));
    }
    if let Ok(x) = value.extract::<f64>() {
        return Ok(toml::Value::Float(x));
    }
    Err(bad(&format!(
        "a {} has no TOML value (use dicts, lists, strings, numbers and booleans)",
        value.get_type().name()?
    )))
}
