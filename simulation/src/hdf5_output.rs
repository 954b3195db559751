//! `fields.h5`, the HDF5 file of a run whose snapshots ask for `"hdf5"` ([`yee_io::hdf5`]): its
//! snapshots, probes and flux spectra. A yee built without the `hdf5` feature refuses such a
//! scene before it runs.

use std::path::Path;

use yee_core::Scalar;
use yee_em::Component;
use yee_scene::Scene;

use crate::error::AppError;
use crate::flux_output::FluxReport;

/// The file's name in the output folder.
pub const FILE: &str = "fields.h5";

/// The XDMF index of its snapshots, for ParaView.
pub const INDEX: &str = "fields.xmf";

/// What a scene asking for HDF5 gets from a yee built without it.
pub const MISSING: &str = "output.snapshots.formats asks for \"hdf5\", but this yee was built \
     without the `hdf5` feature; rebuild with `cargo build --release -p yee --features hdf5` \
     (needs the HDF5 library: apt-get install libhdf5-dev)";

/// True when the scene's snapshots go to `fields.h5`.
pub fn wanted(scene: &Scene) -> bool {
    scene.snapshots.as_ref().is_some_and(|s| s.hdf5)
}

/// Fails when the scene asks for HDF5 and this build cannot write it.
pub fn check_built(scene: &Scene) -> Result<(), AppError> {
    if wanted(scene) && !cfg!(feature = "hdf5") {
        return Err(AppError::Usage(MISSING.into()));
    }
    Ok(())
}

/// The run's `fields.h5`, opened for each write (so the file is whole between writes).
pub struct Hdf5Output {
    #[cfg(feature = "hdf5")]
    path: std::path::PathBuf,
    #[cfg(not(feature = "hdf5"))]
    never: std::convert::Infallible,
}

#[cfg(feature = "hdf5")]
/// The time of `c`'s values at `step` in scene units: E at `step·Δt`, H half a step earlier.
fn time_of(scene: &Scene, c: Component, step: u64) -> f64 {
    let offset = if c.is_electric() { 0.0 } else { 0.5 };
    scene
        .units
        .to_scene_time((step as f64 - offset) * scene.dt())
}

#[cfg(feature = "hdf5")]
impl Hdf5Output {
    /// Creates `fields.h5` in `out` when the scene asks for it; a run resumed after step
    /// `resumed_after` writes on into the one there (without the steps it writes again).
    pub fn start(
        scene: &Scene,
        out: &Path,
        resumed_after: Option<u64>,
    ) -> Result<Option<Hdf5Output>, AppError> {
        use yee_io::hdf5::{H5File, RunAttributes};
        if !wanted(scene) {
            return Ok(None);
        }
        let path = out.join(FILE);
        let io = |e| crate::error::io_error(&path, e);
        let file = match resumed_after {
            Some(step) if path.is_file() => {
                let file = H5File::open(&path).map_err(io)?;
                file.remove_after(step).map_err(io)?;
                file
            }
            _ => {
                let run = RunAttributes {
                    scene: &scene.name,
                    units: scene.units.name(),
                    spacing: scene.units.cell(),
                    time_step: scene.units.to_scene_time(scene.dt()),
                    courant: scene.courant,
                    grid: scene.grid,
                    mode: scene.mode.name(),
                    axes: &"zyx"[3 - scene.mode.dims()..],
                    yee_version: env!("CARGO_PKG_VERSION"),
                };
                H5File::create(&path, &run).map_err(io)?
            }
        };
        file.close().map_err(io)?;
        Ok(Some(Hdf5Output { path }))
    }

    fn write(
        &self,
        what: impl FnOnce(&yee_io::hdf5::H5File) -> std::io::Result<()>,
    ) -> Result<(), AppError> {
        let io = |e| crate::error::io_error(&self.path, e);
        let file = yee_io::hdf5::H5File::open(&self.path).map_err(io)?;
        what(&file).map_err(io)?;
        file.close().map_err(io)
    }

    /// Writes the snapshot of `step`: each component's values (x fastest over the grid).
    pub fn write_snapshot<T: Scalar>(
        &self,
        scene: &Scene,
        step: u64,
        arrays: &[(Component, &[T])],
    ) -> Result<(), AppError> {
        let shape = yee_io::npy::shape(scene.grid, scene.mode.dims());
        self.write(|file| {
            for &(c, values) in arrays {
                file.write_field(&yee_io::hdf5::Field {
                    component: c.name(),
                    yee_offset: c.stagger(),
                    step,
                    time: time_of(scene, c, step),
                    shape: &shape,
                    values,
                })?;
            }
            Ok(())
        })
    }

    /// Writes a probe's series as `/probes/<name>`, the rows of its CSV.
    pub fn write_probe<T: Scalar>(
        &self,
        scene: &Scene,
        name: &str,
        component: Component,
        series: &[T],
    ) -> Result<(), AppError> {
        let (columns, rows) =
            yee_io::hdf5::probe_rows(series, |step| time_of(scene, component, step));
        self.write(|file| file.write_table(&format!("probes/{name}"), columns, &rows))
    }

    /// Writes `fields.xmf`, the XDMF index of the file's snapshots for ParaView, and returns
    /// its name; `None` for 1D and complex runs, which XDMF's meshes and numbers do not hold.
    pub fn write_index(&self, scene: &Scene, out: &Path) -> Result<Option<String>, AppError> {
        let precision = match scene.value_type.name() {
            "f32" => 4,
            "f64" => 8,
            _ => return Ok(None),
        };
        if scene.mode.dims() < 2 {
            return Ok(None);
        }
        let io = |e| crate::error::io_error(&self.path, e);
        let file = yee_io::hdf5::H5File::open(&self.path).map_err(io)?;
        let snapshots = file.snapshots().map_err(io)?;
        file.close().map_err(io)?;
        let steps: Vec<(u64, f64, Vec<String>)> = snapshots
            .into_iter()
            .map(|(step, components)| {
                let time = scene.units.to_scene_time(step as f64 * scene.dt());
                (step, time, components)
            })
            .collect();
        let index = yee_io::xdmf::Index {
            file: FILE,
            grid: scene.grid,
            dims: scene.mode.dims(),
            spacing: scene.units.cell(),
            precision,
            steps: &steps,
        };
        let path = out.join(INDEX);
        yee_io::atomic::write_with(&path, |w| yee_io::xdmf::write(w, &index))
            .map_err(|e| crate::error::io_error(&path, e))?;
        Ok(Some(INDEX.into()))
    }

    /// Writes each flux spectrum as `/flux/<name>`, the rows of its CSV.
    pub fn write_fluxes(&self, fluxes: &[FluxReport]) -> Result<(), AppError> {
        self.write(|file| {
            for flux in fluxes {
                let mut rows = Vec::new();
                for (k, (&f, &p)) in flux.frequencies.iter().zip(&flux.flux).enumerate() {
                    rows.extend([f, p]);
                    rows.extend(flux.cross_section.as_ref().map(|c| c[k]));
                }
                let columns = match flux.cross_section {
                    Some(_) => "frequency,flux,cross_section",
                    None => "frequency,flux",
                };
                file.write_table(&format!("flux/{}", flux.name), columns, &rows)?;
            }
            Ok(())
        })
    }
}

/// Without the `hdf5` feature no run gets an [`Hdf5Output`] ([`check_built`] refuses the
/// scenes that ask for one).
#[cfg(not(feature = "hdf5"))]
impl Hdf5Output {
    /// `None`, or the error saying that this build has no HDF5.
    pub fn start(scene: &Scene, _: &Path, _: Option<u64>) -> Result<Option<Hdf5Output>, AppError> {
        check_built(scene).map(|()| None)
    }

    /// Never called: there is no [`Hdf5Output`].
    pub fn write_snapshot<T: Scalar>(
        &self,
        _: &Scene,
        _: u64,
        _: &[(Component, &[T])],
    ) -> Result<(), AppError> {
        match self.never {}
    }

    /// Never called: there is no [`Hdf5Output`].
    pub fn write_probe<T: Scalar>(
        &self,
        _: &Scene,
        _: &str,
        _: Component,
        _: &[T],
    ) -> Result<(), AppError> {
        match self.never {}
    }

    /// Never called: there is no [`Hdf5Output`].
    pub fn write_index(&self, _: &Scene, _: &Path) -> Result<Option<String>, AppError> {
        match self.never {}
    }

    /// Never called: there is no [`Hdf5Output`].
    pub fn write_fluxes(&self, _: &[FluxReport]) -> Result<(), AppError> {
        match self.never {}
    }
}
