//! From the scene as written to a validated [`Scene`]: unit conversion, name lookup, defaults
//! and every semantic check, each error naming its key and value.

use std::path::{Path, PathBuf};

use yee_core::Box3;
use yee_core::{Axis, Side};
use yee_em::{
    Boundaries, Boundary, Component, CpmlParams, DftMonitor, FluxPlane, Material, Mode, PlaneWave,
    PointSource, Probe, Region, Setup, SetupError, Shape, SourceKind, Waveform,
};

use super::error::SceneError;
use super::geometry_output::GeometryOutput;
use super::library::{LibraryMaterial, library_material, library_names};
use super::mask;
use super::spec::{
    AxisName, BoundaryKind, ComponentName, DftSpec, Diagonal, DirectionSpec, FluxSpec,
    GeometrySpec, ModeSpec, ModesSpec, OutputName, PlaneWaveSpec, PoleSpec, SceneSpec, ShapeKind,
    SmoothingSpec, SnapshotFormat, SourcePosition, SourceSpec, UnitSystem, ValueType,
    VtiCompression, WaveformKind,
};

/// Speed of light in vacuum, m/s.
const C0: f64 = 299_792_458.0;
/// Impedance of free space, Ω (μ₀ c).
const ETA0: f64 = 376.730_313_412;

/// How the scene's numbers map to yee's normalised units (c = 1, cell size 1).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Units {
    /// Already normalised.
    Normalised,
    /// SI with the given cell size in metres.
    Si {
        /// Cell size Δ in metres.
        cell_size: f64,
    },
    /// Normalised with lengths in a unit `a` of `resolution` cells (Meep's units): lengths in
    /// `a`, times in `a/c`, frequencies in `c/a`, conductivities in `1/(η₀ a)` and `η₀/a`.
    Lengths {
        /// Cells per `a`.
        resolution: f64,
    },
}

/// The built-in perfect electric conductor (gprMax's and Meep's `pec`).
pub const PEC: &str = "pec";

/// [`PEC`]: vacuum with σ = 10³⁰ (normalised), so the E update's `Ca` is −1 and its `Cb`
/// 10⁻³⁰: E on its nodes stays below 10⁻³⁰ of the curl of H, a perfect conductor to every
/// digit a field carries. It is placed as any material is (docs/scene.md, "Where geometry
/// lands"): a box `[lo, hi]` is a conductor with its surfaces on `lo` and `hi`.
pub const PEC_MATERIAL: Material = Material {
    sigma: 1e30,
    ..Material::VACUUM
};

/// The built-in perfect magnetic conductor (Meep's `perfect_magnetic_conductor`).
pub const PMC: &str = "pmc";

/// [`PMC`]: vacuum with σ* = 10³⁰ (normalised), the dual of [`PEC_MATERIAL`]: the H update's
/// `Da` is −1 and its `Db` 10⁻³⁰, so tangential H on its nodes stays zero. A box `[lo, hi]`
/// holds its H nodes from `lo + ½` on, so its wall is where a grid's PMC face puts its own,
/// half a cell inside the face (a grid of `lo + 1` cells with a PMC high face pins H at
/// `lo + ½`).
pub const PMC_MATERIAL: Material = Material {
    sigma_m: 1e30,
    ..Material::VACUUM
};

/// `q` rounded to the nearest whole or half number — the coordinates nodes sit at — when it
/// lies within a relative 1e-9 of it (far above the rounding of a quotient or a product,
/// 1e-16, and far below any length a scene means).
fn snap_to_node(q: f64) -> f64 {
    let n = (2.0 * q).round() / 2.0;
    match (q - n).abs() <= 1e-9 * n.abs().max(1.0) {
        true => n,
        false => q,
    }
}

impl Units {
    /// Scene length → cells. A length within a relative 1e-9 of a whole number of cells is
    /// that number exactly, so a position on a node in exact arithmetic lands on it:
    /// `0.086 / 0.002` is 42.999999999999993 in floating point, and 43 here. So is one within
    /// 1e-9 of a half number of cells, where the other nodes sit.
    pub fn length(self, x: f64) -> f64 {
        match self {
            Units::Normalised => x,
            Units::Si { cell_size } => snap_to_node(x / cell_size),
            Units::Lengths { resolution } => snap_to_node(x * resolution),
        }
    }

    /// Cells → scene length.
    pub fn to_scene_length(self, cells: f64) -> f64 {
        match self {
            Units::Normalised => cells,
            Units::Si { cell_size } => cells * cell_size,
            Units::Lengths { resolution } => cells / resolution,
        }
    }

    /// The length of a cell in scene units: 1, `1/resolution` (in `a`) or Δ (in metres).
    pub fn cell(self) -> f64 {
        match self {
            Units::Normalised => 1.0,
            Units::Si { cell_size } => cell_size,
            Units::Lengths { resolution } => 1.0 / resolution,
        }
    }

    /// Scene time → normalised time (one unit = the time light takes to cross a cell).
    pub fn time(self, t: f64) -> f64 {
        match self {
            Units::Normalised => t,
            Units::Si { cell_size } => t * C0 / cell_size,
            Units::Lengths { resolution } => t * resolution,
        }
    }

    /// Normalised time → scene time.
    pub fn to_scene_time(self, t: f64) -> f64 {
        match self {
            Units::Normalised => t,
            Units::Si { cell_size } => t * cell_size / C0,
            Units::Lengths { resolution } => t / resolution,
        }
    }

    /// Scene frequency → normalised frequency.
    pub fn frequency(self, f: f64) -> f64 {
        match self {
            Units::Normalised => f,
            Units::Si { cell_size } => f * cell_size / C0,
            Units::Lengths { resolution } => f / resolution,
        }
    }

    /// Scene wavenumber (cycles per length unit) → cycles per cell.
    pub fn wavenumber(self, k: f64) -> f64 {
        match self {
            Units::Normalised => k,
            Units::Si { cell_size } => k * cell_size,
            Units::Lengths { resolution } => k / resolution,
        }
    }

    /// Cycles per cell → scene wavenumber (cycles per length unit).
    pub fn to_scene_wavenumber(self, k: f64) -> f64 {
        match self {
            Units::Normalised => k,
            Units::Si { cell_size } => k / cell_size,
            Units::Lengths { resolution } => k * resolution,
        }
    }

    /// Normalised frequency → scene frequency.
    pub fn to_scene_frequency(self, f: f64) -> f64 {
        match self {
            Units::Normalised => f,
            Units::Si { cell_size } => f * C0 / cell_size,
            Units::Lengths { resolution } => f * resolution,
        }
    }

    /// Electric conductivity (S/m in SI) → normalised (σ η₀ Δ).
    pub fn sigma(self, s: f64) -> f64 {
        match self {
            Units::Normalised => s,
            Units::Si { cell_size } => s * ETA0 * cell_size,
            Units::Lengths { resolution } => s / resolution,
        }
    }

    /// Magnetic conductivity (Ω/m in SI) → normalised (σ* Δ / η₀).
    pub fn sigma_m(self, s: f64) -> f64 {
        match self {
            Units::Normalised => s,
            Units::Si { cell_size } => s * cell_size / ETA0,
            Units::Lengths { resolution } => s / resolution,
        }
    }

    /// A source amplitude → the normalised value each of its nodes gets. In SI scenes a soft
    /// E source is a current: a current moment I·l in A·m at a point, a current I in A along a
    /// line, a surface current in A/m on a plane, a current density in A/m² in a box (`extended`
    /// counts the axes it spans, the axes a 2D or 1D mode does not use included); the node's
    /// current density `J` maps to `η₀ Δ J` (Maxwell's curl equation with c t and x/Δ as the
    /// variables). A soft H source is the magnetic current (V·m, V, V/m, V/m²) and maps to
    /// `Δ M`. Hard sources set the field: V/m for E, A/m for H (× η₀).
    pub fn source_amplitude(
        self,
        amplitude: f64,
        component: Component,
        kind: SourceKind,
        extended: usize,
    ) -> f64 {
        // In units of a the impedance of free space is 1, as in cells.
        let (cell_size, eta) = match self {
            Units::Normalised => return amplitude,
            Units::Si { cell_size } => (cell_size, ETA0),
            Units::Lengths { resolution } => (1.0 / resolution, 1.0),
        };
        let impedance = if component.is_electric() { eta } else { 1.0 };
        match kind {
            SourceKind::Hard if component.is_electric() => amplitude,
            SourceKind::Hard => amplitude * eta,
            // J = amplitude / Δ^{3 − extended}, scaled by η₀Δ (E) or Δ (H).
            SourceKind::Soft => impedance * amplitude * cell_size.powi(extended as i32 - 2),
        }
    }

    /// The unit of time as users name it: `s`, `a/c` in a scene of lengths in `a`, or `Δx/c`
    /// (the time light takes to cross a cell) in normalised scenes.
    pub fn time_unit(self) -> &'static str {
        match self {
            Units::Normalised => "Δx/c",
            Units::Si { .. } => "s",
            Units::Lengths { .. } => "a/c",
        }
    }

    /// Name for reports: "normalised" or "si".
    pub fn name(self) -> &'static str {
        match self {
            Units::Normalised => "normalised",
            Units::Si { .. } => "si",
            Units::Lengths { .. } => "normalised",
        }
    }
}

/// A PNG slice request.
#[derive(Clone, Debug, PartialEq)]
pub struct Slice {
    /// The component drawn.
    pub component: Component,
    /// Steps between images.
    pub every: u64,
    /// Axis normal to the plane (z for 2D).
    pub axis: Axis,
    /// Cell index of the plane along `axis`.
    pub index: i64,
    /// Fixed colour limits (lo < hi), the same for every image.
    pub limits: Option<(f64, f64)>,
    /// Draw material outlines and masked cells over the field.
    pub outlines: bool,
}

/// A flux region: a plane or the faces of a closed box, each face with its DFT monitor.
#[derive(Clone, Debug, PartialEq)]
pub struct Flux {
    /// File-name safe name.
    pub name: String,
    /// The faces (one for a plane), outward normals for a box.
    pub planes: Vec<FluxPlane>,
    /// The index of the first face's monitor in [`Scene::monitors`] (the others follow).
    pub first_monitor: usize,
    /// The transforms of an earlier run to subtract (resolved against the scene's folder).
    pub minus: Option<PathBuf>,
    /// Far-field directions `[n_theta, n_phi]` (a closed box in a 3D vacuum scene).
    pub far_field: Option<[usize; 2]>,
    /// The indices of the frequencies the far-field plot draws, increasing
    /// ([`crate::plot_frequencies`]; empty without a far field).
    pub plot_frequencies: Vec<usize>,
}

/// A `[[dft]]` output: the transforms of chosen components over a box, written whole.
#[derive(Clone, Debug, PartialEq)]
pub struct DftOutput {
    /// File-name safe name.
    pub name: String,
    /// Its monitor's index in [`Scene::monitors`].
    pub monitor: usize,
}

/// A `[[modes]]` monitor: the transforms of the tangential fields on a plane, decomposed after
/// the run into the forward and backward amplitudes of the plane's waveguide modes.
#[derive(Clone, Debug, PartialEq)]
pub struct ModeMonitor {
    /// File-name safe name.
    pub name: String,
    /// The plane (the grid's whole cross-section; forward is along increasing coordinate).
    pub plane: FluxPlane,
    /// Its monitor's index in [`Scene::monitors`].
    pub monitor: usize,
    /// The mode numbers, from 0 by decreasing effective index (among the modes of
    /// `parity`).
    pub modes: Vec<usize>,
    /// The mirror parity of the modes per grid axis, `Some(true)` even
    /// ([`crate::mode_parity`]).
    pub parity: [Option<bool>; 3],
}

/// A whole-field snapshot request.
#[derive(Clone, Debug, PartialEq)]
pub struct Snapshots {
    /// Components written.
    pub components: Vec<Component>,
    /// Geometry quantities written (once as `.npy`, in every `.vti`).
    pub geometry: Vec<GeometryOutput>,
    /// Steps between snapshots (0: only the last step).
    pub every: u64,
    /// Write `.npy` files.
    pub npy: bool,
    /// Write `.vti` files.
    pub vti: bool,
    /// Compress the `.vti` arrays with zlib.
    pub zlib: bool,
    /// Write the snapshots into the run's `fields.h5`.
    pub hdf5: bool,
}

/// A validated scene: everything needed to build a [`Setup`] and write the outputs.
#[derive(Clone, Debug)]
pub struct Scene {
    /// The file it came from.
    pub file: PathBuf,
    /// SHA-256 of the file's text (hex).
    pub sha256: String,
    /// Its name.
    pub name: String,
    /// Unit system.
    pub units: Units,
    /// Mode.
    pub mode: Mode,
    /// Grid extent (1 on unused axes).
    pub grid: [usize; 3],
    /// Field element type.
    pub value_type: ValueType,
    /// Courant number.
    pub courant: f64,
    /// Background material (normalised) and its name.
    pub background: (String, Material),
    /// The dispersive poles (normalised) the materials name.
    pub poles: Vec<yee_em::Pole>,
    /// Regions (normalised) with their material names.
    pub regions: Vec<Region>,
    /// Material name of each region.
    pub region_materials: Vec<String>,
    /// Face boundaries.
    pub boundaries: Boundaries,
    /// Sources (normalised), one per node driven.
    pub sources: Vec<PointSource>,
    /// The `[[sources]]` entry each source node comes from.
    pub source_origin: Vec<usize>,
    /// Mode sources (`kind = "mode"`), which the mode solver expands into soft sources in
    /// [`Scene::sources`] before a run (`yee_simulation::mode_sources`).
    pub mode_sources: Vec<ModeSource>,
    /// Probes.
    pub probes: Vec<Probe>,
    /// Probe names (file-name safe, unique).
    pub probe_names: Vec<String>,
    /// TF/SF plane waves (normalised).
    pub plane_waves: Vec<yee_em::PlaneWave>,
    /// Flux regions.
    pub fluxes: Vec<Flux>,
    /// DFT field outputs.
    pub dfts: Vec<DftOutput>,
    /// Mode monitors.
    pub mode_monitors: Vec<ModeMonitor>,
    /// DFT monitors: those of each flux region, in [`Scene::fluxes`] order, then those of
    /// [`Scene::dfts`], then those of [`Scene::mode_monitors`].
    pub monitors: Vec<yee_em::DftMonitor>,
    /// The monitors' frequencies (normalised).
    pub frequencies: Vec<f64>,
    /// Steps to run.
    pub steps: u64,
    /// Harmonic inversions of probe records at the end of the run (`[[resonances]]`).
    pub resonances: Vec<Resonances>,
    /// Ends the run earlier when the fields at a probe have decayed (`[run] until_decayed`).
    pub until_decayed: Option<yee_em::DecayRule>,
    /// PNG slices.
    pub slices: Vec<Slice>,
    /// Whole-field snapshots.
    pub snapshots: Option<Snapshots>,
    /// Relative cell costs for load balancing.
    pub costs: yee_em::Costs,
    /// The active cells (x fastest), `None` when every cell is.
    pub active: Option<Vec<bool>>,
    /// The images the mask was read from.
    pub mask_files: Vec<PathBuf>,
    /// Tile extent of irregular partitions (1 on unused axes).
    pub tile: [usize; 3],
    /// Subpixel smoothing of curved interfaces ([`yee_em::smoothing`]).
    pub smoothing: bool,
    /// Smoothing keeps the off-diagonal entries of the effective tensor
    /// ([`yee_em::Setup::smoothing_tensor`]); a run on a backend without the tensor update
    /// clears it (the diagonal rule) and says so.
    pub smoothing_tensor: bool,
    /// The Bloch wavevector in cycles per cell (`[boundaries] k`; zero without one).
    pub bloch: [f64; 3],
    /// The band structure `yee bands` computes (`[bands]`).
    pub bands: Option<crate::bands::Bands>,
    /// The materials taken from the library ([`crate::library`]): the name the scene uses,
    /// and the entry.
    pub library: Vec<(String, &'static LibraryMaterial)>,
    /// The B-scan `yee run` runs trace by trace (`[scan]`; `Scene::trace`), set by
    /// [`crate::parse`].
    pub scan: Option<crate::scan::Scan>,
}

impl Scene {
    /// The core description of this scene.
    pub fn setup(&self) -> Setup<'_> {
        Setup {
            mode: self.mode,
            grid: self.grid,
            courant: self.courant,
            background: self.background.1,
            poles: &self.poles,
            regions: &self.regions,
            boundaries: self.boundaries,
            sources: &self.sources,
            probes: &self.probes,
            plane_waves: &self.plane_waves,
            monitors: &self.monitors,
            frequencies: &self.frequencies,
            active: self.active.as_deref(),
            smoothing: self.smoothing,
            smoothing_tensor: self.smoothing_tensor,
            bloch: self.bloch,
        }
    }

    /// The time step in normalised units.
    pub fn dt(&self) -> f64 {
        self.courant
    }

    /// Number of cells.
    pub fn cells(&self) -> usize {
        self.grid.iter().product()
    }

    /// Sets the number of steps (the `--steps` flag).
    pub fn set_steps(&mut self, steps: u64) -> Result<(), SceneError> {
        if steps == 0 {
            return Err(self.invalid("--steps", "0: a run needs at least one step".into()));
        }
        self.steps = steps;
        Ok(())
    }

    fn invalid(&self, key: &str, message: String) -> SceneError {
        SceneError::Invalid {
            file: self.file.clone(),
            key: key.into(),
            message,
        }
    }
}

struct Resolver<'a> {
    file: &'a Path,
    units: Units,
    /// Grid sizes and CPML thickness are lengths (`[units] resolution`), not cells.
    lengths: bool,
    mode: Mode,
    grid: [usize; 3],
}

impl Resolver<'_> {
    fn err(&self, key: impl Into<String>, message: impl Into<String>) -> SceneError {
        SceneError::Invalid {
            file: self.file.to_path_buf(),
            key: key.into(),
            message: message.into(),
        }
    }

    fn dims(&self) -> usize {
        self.mode.dims()
    }

    /// A point of `dims` numbers in scene units → continuous cell coordinates, `fill` on
    /// unused axes.
    fn point(&self, key: &str, v: &[f64], fill: f64) -> Result<[f64; 3], SceneError> {
        if v.len() != self.dims() {
            return Err(self.err(
                key,
                format!(
                    "has {} numbers, but mode {} needs {}",
                    v.len(),
                    self.mode.name(),
                    self.dims()
                ),
            ));
        }
        if let Some(bad) = v.iter().find(|x| !x.is_finite()) {
            return Err(self.err(key, format!("{bad} is not a finite number")));
        }
        Ok(std::array::from_fn(|a| {
            if a < v.len() {
                self.units.length(v[a])
            } else {
                fill
            }
        }))
    }

    /// The cell containing a point, which must lie in the grid.
    fn cell(&self, key: &str, v: &[f64]) -> Result<[i64; 3], SceneError> {
        let p = self.point(key, v, 0.0)?;
        let cell = p.map(|x| x.floor() as i64);
        let inside = (0..3).all(|a| cell[a] >= 0 && cell[a] < self.grid[a] as i64);
        if !inside {
            let extent: Vec<String> = self.grid[..self.dims()]
                .iter()
                .map(|n| n.to_string())
                .collect();
            return Err(self.err(
                key,
                format!(
                    "{v:?} lies outside the grid (cells {}; positions must be within 0 ≤ x < extent)",
                    extent.join(" × ")
                ),
            ));
        }
        Ok(cell)
    }

    fn component(&self, key: &str, c: ComponentName) -> Result<Component, SceneError> {
        let component = to_component(c);
        if !self.mode.has(component) {
            let names: Vec<&str> = self.mode.components().iter().map(|c| c.name()).collect();
            return Err(self.err(
                key,
                format!(
                    "component {} does not exist in mode {} (it has {})",
                    component.name(),
                    self.mode.name(),
                    names.join(", ")
                ),
            ));
        }
        Ok(component)
    }
}

/// A snapshot's name as a field component or a geometry quantity.
fn output_name(n: OutputName) -> (Option<ComponentName>, Option<GeometryOutput>) {
    let field = |c| (Some(c), None);
    let geometry = |q| (None, Some(q));
    match n {
        OutputName::Ex => field(ComponentName::Ex),
        OutputName::Ey => field(ComponentName::Ey),
        OutputName::Ez => field(ComponentName::Ez),
        OutputName::Hx => field(ComponentName::Hx),
        OutputName::Hy => field(ComponentName::Hy),
        OutputName::Hz => field(ComponentName::Hz),
        OutputName::Eps => geometry(GeometryOutput::Eps),
        OutputName::Mu => geometry(GeometryOutput::Mu),
        OutputName::Sigma => geometry(GeometryOutput::Sigma),
        OutputName::SigmaM => geometry(GeometryOutput::SigmaM),
        OutputName::Material => geometry(GeometryOutput::Material),
        OutputName::Mask => geometry(GeometryOutput::Mask),
    }
}

fn to_component(c: ComponentName) -> Component {
    match c {
        ComponentName::Ex => Component::Ex,
        ComponentName::Ey => Component::Ey,
        ComponentName::Ez => Component::Ez,
        ComponentName::Hx => Component::Hx,
        ComponentName::Hy => Component::Hy,
        ComponentName::Hz => Component::Hz,
    }
}

fn to_axis(a: AxisName) -> Axis {
    match a {
        AxisName::X => Axis::X,
        AxisName::Y => Axis::Y,
        AxisName::Z => Axis::Z,
    }
}

/// The `smoothing` key as (smoothing on, with Kottke's off-diagonal terms): `true` (the
/// default) both, `false` neither, "diagonal" the diagonal rule alone.
fn smoothing_rule(spec: Option<&SmoothingSpec>) -> Result<(bool, bool), String> {
    match spec {
        None | Some(SmoothingSpec::On(true)) => Ok((true, true)),
        Some(SmoothingSpec::On(false)) => Ok((false, false)),
        Some(SmoothingSpec::Rule(r)) if r == "diagonal" => Ok((true, false)),
        Some(SmoothingSpec::Rule(r)) => Err(format!("{r:?}: give true, false or \"diagonal\"")),
    }
}

/// Resolves a parsed scene.
pub fn resolve(file: &Path, spec: SceneSpec) -> Result<Scene, SceneError> {
    let err = |key: &str, message: String| SceneError::Invalid {
        file: file.to_path_buf(),
        key: key.into(),
        message,
    };
    let (smoothing, smoothing_tensor) =
        smoothing_rule(spec.smoothing.as_ref()).map_err(|m| err("smoothing", m))?;
    let resolution = match spec.units.resolution {
        Some(_) if spec.units.cell_size.is_some() => {
            return Err(err(
                "units.resolution",
                "give the cell size (cell_size) or the cells per metre (resolution), not both"
                    .into(),
            ));
        }
        Some(res) if !(res.is_finite() && res > 0.0) => {
            return Err(err(
                "units.resolution",
                format!("{res} must be a positive number of cells per length unit"),
            ));
        }
        other => other,
    };
    let units = match (spec.units.system, spec.units.cell_size, resolution) {
        (UnitSystem::Normalised, None, Some(resolution)) => Units::Lengths { resolution },
        (UnitSystem::Si, None, Some(resolution)) => Units::Si {
            cell_size: 1.0 / resolution,
        },
        (UnitSystem::Normalised, None, None) => Units::Normalised,
        (UnitSystem::Normalised, Some(_), _) => {
            return Err(err(
                "units.cell_size",
                "is only used with system = \"si\" (normalised scenes have cell size 1)".into(),
            ));
        }
        (UnitSystem::Si, Some(d), _) if d.is_finite() && d > 0.0 => Units::Si { cell_size: d },
        (UnitSystem::Si, Some(d), _) => {
            return Err(err(
                "units.cell_size",
                format!("{d} must be a positive length in metres"),
            ));
        }
        (UnitSystem::Si, None, None) => {
            return Err(err(
                "units.cell_size",
                "is required with system = \"si\" (or resolution, in cells per metre)".into(),
            ));
        }
    };
    let lengths = resolution.is_some();
    let mode = match spec.grid.mode {
        ModeSpec::OneD => Mode::OneD,
        ModeSpec::Tmz => Mode::Tmz,
        ModeSpec::Tez => Mode::Tez,
        ModeSpec::ThreeD => Mode::ThreeD,
    };
    let size = spec
        .grid
        .size
        .iter()
        .enumerate()
        .map(|(a, &v)| {
            whole_cells(units, lengths, v).map_err(|m| err(&format!("grid.size[{a}]"), m))
        })
        .collect::<Result<Vec<usize>, _>>()?;
    if size.len() != mode.dims() {
        return Err(err(
            "grid.size",
            format!(
                "has {} numbers, but mode {} needs {}",
                size.len(),
                mode.name(),
                mode.dims()
            ),
        ));
    }
    if let Some(a) = size.iter().position(|&n| n == 0) {
        return Err(err(
            &format!("grid.size[{a}]"),
            "is 0; every extent must be at least 1".into(),
        ));
    }
    let grid: [usize; 3] = std::array::from_fn(|a| size.get(a).copied().unwrap_or(1));
    let limit = mode.courant_limit();
    let courant = spec.grid.courant.unwrap_or(0.99 * limit);
    if !(courant.is_finite() && courant > 0.0 && courant <= limit * (1.0 + 1e-12)) {
        return Err(err(
            "grid.courant",
            format!(
                "{courant} is outside (0, {limit:.6}], the stability range of mode {}",
                mode.name()
            ),
        ));
    }
    let r = Resolver {
        file,
        units,
        lengths,
        mode,
        grid,
    };

    // Library materials the scene names without defining them join its materials.
    let mut spec = spec;
    let library = library_materials(&r, &spec)?;
    for (name, m) in &library {
        spec.materials.insert(name.clone(), m.spec());
    }
    let in_library = |name: &str| library.iter().any(|(n, _)| n == name);

    // Materials.
    let mut materials = vec![
        ("vacuum".to_string(), Material::VACUUM),
        (PEC.to_string(), PEC_MATERIAL),
        (PMC.to_string(), PMC_MATERIAL),
    ];
    let mut poles = Vec::new();
    for (name, m) in &spec.materials {
        // Keys name where the material came from: the scene's table or the library.
        let table = if in_library(name) {
            "library"
        } else {
            "materials"
        };
        let key = |p: &str| format!("{table}.{name}.{p}");
        if name == "vacuum" || name == PEC || name == PMC || name == mask::INACTIVE {
            return Err(r.err(
                format!("materials.{name}"),
                format!("the name {name} is built in; choose another"),
            ));
        }
        let entries = |name: &'static str, d: Diagonal| match d {
            Diagonal::Isotropic(v) => vec![(name.to_string(), v, true)],
            Diagonal::Axes(v) => (0..3)
                .map(|a| (format!("{name}[{a}]"), v[a], true))
                .collect(),
            // A tensor is checked as a whole below.
            Diagonal::Tensor(_) => Vec::new(),
        };
        for (p, d) in [("eps", m.eps), ("mu", m.mu)] {
            if let Diagonal::Tensor(t) = d {
                check_tensor(&t).map_err(|problem| r.err(key(p), problem))?;
            }
        }
        let checks = entries("eps", m.eps)
            .into_iter()
            .chain(entries("mu", m.mu))
            .chain([
                ("sigma".to_string(), m.sigma, false),
                ("sigma_m".to_string(), m.sigma_m, false),
            ]);
        for (p, v, positive) in checks {
            let ok = v.is_finite() && if positive { v > 0.0 } else { v >= 0.0 };
            if !ok {
                let rule = if positive {
                    "must be positive"
                } else {
                    "must be non-negative"
                };
                return Err(r.err(key(&p), format!("{v} {rule}")));
            }
        }
        let first = poles.len();
        for (k, p) in m.poles.iter().enumerate() {
            poles.push(pole(&r, &format!("{table}.{name}"), k, p)?);
        }
        let axes = |d: Diagonal| match d {
            Diagonal::Isotropic(v) => [v; 3],
            Diagonal::Axes(v) => v,
            Diagonal::Tensor(t) => [t[0][0], t[1][1], t[2][2]],
        };
        let tensor = |d: Diagonal| match d {
            Diagonal::Tensor(t) => t,
            _ => {
                let v = axes(d);
                std::array::from_fn(|i| std::array::from_fn(|j| if i == j { v[i] } else { 0.0 }))
            }
        };
        let isotropic = matches!(
            (m.eps, m.mu),
            (Diagonal::Isotropic(_), Diagonal::Isotropic(_))
        );
        let full = matches!(m.eps, Diagonal::Tensor(_)) || matches!(m.mu, Diagonal::Tensor(_));
        let shape = match (isotropic, full) {
            (true, _) => Material::dielectric(axes(m.eps)[0]),
            (false, false) => Material::anisotropic(axes(m.eps), axes(m.mu)),
            (false, true) => Material::tensor(tensor(m.eps), tensor(m.mu)),
        };
        let material = Material {
            eps: shape.eps,
            mu: if isotropic { axes(m.mu)[0] } else { shape.mu },
            diagonal: shape.diagonal,
            coupling: shape.coupling,
            sigma: units.sigma(m.sigma),
            sigma_m: units.sigma_m(m.sigma_m),
            poles: yee_em::PoleSet {
                first,
                count: m.poles.len(),
            },
        };
        yee_em::setup::check_poles(&material, None, &poles, mode, courant).map_err(|e| {
            let at = match e {
                SetupError::InvalidPole {
                    pole,
                    problem: yee_em::pole::PoleProblem { parameter, .. },
                    ..
                } => format!("{table}.{name}.poles[{pole}].{parameter}"),
                _ => format!("{table}.{name}.poles"),
            };
            // The core names the background; here the material has a name.
            let message = e.to_string();
            let message = message
                .strip_prefix("background material")
                .map_or(message.clone(), |rest| format!("material {name}{rest}"));
            r.err(at, message)
        })?;
        materials.push((name.clone(), material));
    }
    let lookup = |key: &str, name: &str| -> Result<Material, SceneError> {
        materials
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, m)| *m)
            .ok_or_else(|| {
                let known: Vec<&str> = materials.iter().map(|(n, _)| n.as_str()).collect();
                r.err(
                    key,
                    format!(
                        "unknown material `{name}` (defined: {}; library: {}; `inactive` marks \
                         cells not computed)",
                        known.join(", "),
                        library_names().join(", ")
                    ),
                )
            })
    };
    let background_name = spec.background.clone().unwrap_or_else(|| "vacuum".into());
    let background_inactive = background_name == mask::INACTIVE;
    let background = if background_inactive {
        Material::VACUUM
    } else {
        lookup("background", &background_name)?
    };

    // Geometry; the material `inactive` marks cells as not computed.
    let mut regions = Vec::new();
    let mut region_materials = Vec::new();
    let mut mask_layers = Vec::new();
    for (i, g) in spec.geometry.iter().enumerate() {
        let shape = shape(&r, i, g)?;
        let inactive = g.material == mask::INACTIVE;
        mask_layers.push((shape, inactive));
        if inactive {
            continue;
        }
        let material = lookup(&format!("geometry[{i}].material"), &g.material)?;
        regions.push(Region { shape, material });
        region_materials.push(g.material.clone());
    }
    let (active, mask_files, tile) = resolve_mask(&r, &spec, background_inactive, &mask_layers)?;

    let boundaries = boundaries(&r, &spec)?;
    let bloch = bloch(&r, &spec, &boundaries)?;

    // Sources.
    let mut sources = Vec::new();
    let mut source_origin = Vec::new();
    let mut mode_sources = Vec::new();
    for (i, s) in spec.sources.iter().enumerate() {
        let waveform = waveform(&r, &format!("sources[{i}]"), &s.into())?;
        if s.kind == super::spec::SourceKindName::Mode {
            mode_sources.push(mode_source(&r, i, s, waveform)?);
            continue;
        }
        for (name, given) in [
            ("axis", s.axis.is_some()),
            ("mode", s.mode.is_some()),
            ("direction", s.direction.is_some()),
            ("parity", s.parity.is_some()),
            ("num_freqs", s.num_freqs.is_some()),
        ] {
            if given {
                return Err(r.err(
                    format!("sources[{i}].{name}"),
                    "only a mode source (kind = \"mode\") takes it",
                ));
            }
        }
        let Some(name) = s.component else {
            return Err(r.err(
                format!("sources[{i}]"),
                "a soft or hard source names its component",
            ));
        };
        let component = r.component(&format!("sources[{i}].component"), name)?;
        let (nodes, extended) = source_nodes(&r, i, component, s, &boundaries)?;
        if !s.amplitude.is_finite() {
            return Err(r.err(
                format!("sources[{i}].amplitude"),
                format!("{} is not a finite number", s.amplitude),
            ));
        }
        let kind = match s.kind {
            super::spec::SourceKindName::Soft => SourceKind::Soft,
            super::spec::SourceKindName::Hard => SourceKind::Hard,
            super::spec::SourceKindName::Mode => unreachable!("mode sources are taken above"),
        };
        let amplitude = r
            .units
            .source_amplitude(s.amplitude, component, kind, extended);
        for (cell, weight) in nodes {
            // A soft source is a current density: a node holding part of the box carries that
            // part of it. A hard source sets the field on every node the box holds.
            let amplitude = match kind {
                SourceKind::Soft => amplitude * weight,
                SourceKind::Hard => amplitude,
            };
            sources.push(PointSource {
                component,
                cell,
                waveform,
                amplitude,
                kind,
            });
            source_origin.push(i);
        }
    }

    // Probes.
    let mut probes = Vec::new();
    let mut probe_names: Vec<String> = Vec::new();
    for (i, p) in spec.probes.iter().enumerate() {
        let component = r.component(&format!("probes[{i}].component"), p.component)?;
        let cell = r.cell(&format!("probes[{i}].position"), &p.position)?;
        let name = p.name.clone().unwrap_or_else(|| format!("probe{i}"));
        if !safe_name(&name) {
            return Err(r.err(format!("probes[{i}].name"), safe_name_rule(&name)));
        }
        if probe_names.contains(&name) {
            return Err(r.err(
                format!("probes[{i}].name"),
                format!("`{name}` is used by an earlier probe"),
            ));
        }
        probes.push(Probe { component, cell });
        probe_names.push(name);
    }
    let until_decayed = match &spec.run.until_decayed {
        Some(d) => Some(decay_rule(&r, d, &mut probes, &mut probe_names, courant)?),
        None => None,
    };
    let resonances = spec
        .resonances
        .iter()
        .enumerate()
        .map(|(i, b)| resonances_block(&r, i, b, &probes, &probe_names, courant))
        .collect::<Result<Vec<_>, _>>()?;
    if let Some(i) = (1..resonances.len()).find(|&i| {
        resonances[..i]
            .iter()
            .any(|b: &Resonances| b.name == resonances[i].name)
    }) {
        return Err(r.err(
            format!("resonances[{i}].name"),
            format!(
                "`{}` is used by an earlier [[resonances]] block",
                resonances[i].name
            ),
        ));
    }

    let plane_waves = spec
        .plane_waves
        .iter()
        .enumerate()
        .map(|(i, w)| plane_wave(&r, i, w))
        .collect::<Result<Vec<_>, _>>()?;
    let mut fluxes = Vec::new();
    let mut monitors = Vec::new();
    let mut frequencies = Vec::new();
    for (i, f) in spec.flux.iter().enumerate() {
        let flux = flux_region(&r, i, f, &mut monitors, &mut frequencies)?;
        if fluxes.iter().any(|g: &Flux| g.name == flux.name) {
            return Err(r.err(
                format!("flux[{i}].name"),
                format!("`{}` is used by an earlier flux region", flux.name),
            ));
        }
        if flux.far_field.is_some() && background != Material::VACUUM {
            return Err(r.err(
                format!("flux[{i}].far_field"),
                format!(
                    "the far field is taken in vacuum, but the background is `{background_name}`"
                ),
            ));
        }
        fluxes.push(flux);
    }
    let mut dfts: Vec<DftOutput> = Vec::new();
    for (i, d) in spec.dft.iter().enumerate() {
        let out = dft_output(&r, i, d, &mut monitors, &mut frequencies)?;
        if dfts.iter().any(|e| e.name == out.name) {
            return Err(r.err(
                format!("dft[{i}].name"),
                format!("`{}` is used by an earlier dft output", out.name),
            ));
        }
        dfts.push(out);
    }
    let mut mode_monitors: Vec<ModeMonitor> = Vec::new();
    for (i, m) in spec.modes.iter().enumerate() {
        let monitor = mode_monitor(&r, i, m, &mut monitors, &mut frequencies)?;
        let taken = fluxes.iter().any(|f| f.name == monitor.name)
            || mode_monitors.iter().any(|e| e.name == monitor.name);
        if taken {
            return Err(r.err(
                format!("modes[{i}].name"),
                format!(
                    "`{}` is used by an earlier flux region or mode monitor",
                    monitor.name
                ),
            ));
        }
        mode_monitors.push(monitor);
    }

    // Outputs.
    let mut slices = Vec::new();
    for (i, s) in spec.output.slices.iter().enumerate() {
        let key = |k: &str| format!("output.slices[{i}].{k}");
        let component = r.component(&key("component"), s.component)?;
        if s.every == 0 {
            return Err(r.err(
                key("every"),
                "is 0; give the number of steps between images (at least 1)",
            ));
        }
        if mode.dims() < 3 && (s.axis.is_some() || s.position.is_some()) {
            return Err(r.err(
                key("axis"),
                format!(
                    "mode {} has a single plane; axis and position are for 3D",
                    mode.name()
                ),
            ));
        }
        let axis = s.axis.map_or(Axis::Z, to_axis);
        let n = grid[axis.index()] as i64;
        let index = match s.position {
            None => n / 2,
            Some(x) => {
                let i = units.length(x).floor();
                if !(i >= 0.0 && (i as i64) < n) {
                    return Err(r.err(
                        key("position"),
                        format!(
                            "{x} lies outside the grid along {} (extent {n})",
                            axis.name()
                        ),
                    ));
                }
                i as i64
            }
        };
        let limits = match s.limits {
            None => None,
            Some([lo, hi]) if lo.is_finite() && hi.is_finite() && lo < hi => Some((lo, hi)),
            Some([lo, hi]) => {
                return Err(r.err(
                    key("limits"),
                    format!("[{lo}, {hi}] is not a range: give finite [lo, hi] with lo < hi"),
                ));
            }
        };
        slices.push(Slice {
            component,
            every: s.every,
            axis,
            index,
            limits,
            outlines: s.outlines.unwrap_or(true),
        });
    }
    let snapshots = match &spec.output.snapshots {
        None => None,
        Some(s) => {
            if s.components.is_empty() {
                return Err(r.err(
                    "output.snapshots.components",
                    "is empty; name at least one component",
                ));
            }
            let mut components = Vec::new();
            let mut geometry = Vec::new();
            for (i, &c) in s.components.iter().enumerate() {
                let key = format!("output.snapshots.components[{i}]");
                let (field, quantity) = output_name(c);
                if let Some(c) = field {
                    components.push(r.component(&key, c)?);
                }
                if let Some(q) = quantity {
                    if geometry.contains(&q) {
                        return Err(r.err(key, format!("names {} twice", q.name())));
                    }
                    geometry.push(q);
                }
            }
            let formats = s
                .formats
                .clone()
                .unwrap_or_else(|| vec![SnapshotFormat::Npy, SnapshotFormat::Vti]);
            if formats.is_empty() {
                return Err(r.err(
                    "output.snapshots.formats",
                    "is empty; use \"npy\", \"vti\", \"hdf5\" or several",
                ));
            }
            if s.compression == VtiCompression::Zlib && !formats.contains(&SnapshotFormat::Vti) {
                return Err(r.err(
                    "output.snapshots.compression",
                    "applies to .vti files, and formats does not include \"vti\"",
                ));
            }
            Some(Snapshots {
                components,
                geometry,
                every: s.every,
                npy: formats.contains(&SnapshotFormat::Npy),
                vti: formats.contains(&SnapshotFormat::Vti),
                zlib: s.compression == VtiCompression::Zlib,
                hdf5: formats.contains(&SnapshotFormat::Hdf5),
            })
        }
    };

    // Run length.
    let steps = match (spec.run.steps, spec.run.time) {
        (Some(_), Some(_)) => return Err(r.err("run", "give either steps or time, not both")),
        (None, None) => return Err(r.err("run", "give the run length as steps or time")),
        (Some(0), None) => return Err(r.err("run.steps", "is 0; a run needs at least one step")),
        (Some(n), None) => n,
        (None, Some(t)) => {
            if !(t.is_finite() && t > 0.0) {
                return Err(r.err("run.time", format!("{t} must be a positive duration")));
            }
            (units.time(t) / courant).ceil() as u64
        }
    };

    let c = &spec.costs;
    for (key, v, min) in [
        ("costs.cpml", c.cpml, 1.0),
        ("costs.source", c.source, 0.0),
        ("costs.probe", c.probe, 0.0),
        ("costs.dispersive_cell", c.dispersive_cell, 0.0),
        ("costs.dispersive_pole", c.dispersive_pole, 0.0),
    ] {
        if !(v.is_finite() && v >= min) {
            return Err(r.err(key, format!("{v} must be at least {min}")));
        }
    }
    let costs = yee_em::Costs {
        cpml: c.cpml,
        source: c.source,
        probe: c.probe,
        dispersive_cell: c.dispersive_cell,
        dispersive_pole: c.dispersive_pole,
    };
    let name = spec.name.clone().unwrap_or_else(|| {
        file.file_stem()
            .map_or("scene".into(), |s| s.to_string_lossy().into_owned())
    });
    if let Some(why) = scene_name_fault(&name) {
        let key = match spec.name {
            Some(_) => "name",
            None => "name (by default the scene file's name)",
        };
        return Err(r.err(key, why));
    }
    let bands = match &spec.bands {
        Some(b) => Some(crate::bands::resolve_bands(
            &crate::bands::BandsContext {
                file,
                length: &|x| units.length(x),
                mode,
                value_type: spec.grid.value_type,
                boundaries: &boundaries,
                duration: units.to_scene_time(steps as f64 * courant),
                probes: probes.len(),
            },
            b,
        )?),
        None => None,
    };
    let scene = Scene {
        sha256: String::new(),
        file: file.to_path_buf(),
        name,
        units,
        mode,
        grid,
        value_type: spec.grid.value_type,
        courant,
        background: (background_name, background),
        poles,
        regions,
        region_materials,
        boundaries,
        sources,
        source_origin,
        mode_sources,
        probes,
        probe_names,
        plane_waves,
        fluxes,
        dfts,
        mode_monitors,
        monitors,
        frequencies,
        steps,
        resonances,
        until_decayed,
        slices,
        snapshots,
        costs,
        active,
        mask_files,
        tile,
        smoothing,
        smoothing_tensor,
        bloch,
        bands,
        library,
        scan: None,
    };
    // Anything the checks above missed, reported through the core's own message.
    scene.setup().validate().map_err(|e| {
        let origin = |n: usize| scene.source_origin.get(n).copied().unwrap_or(n);
        r.err(setup_error_key(&e, origin), e.to_string())
    })?;
    Ok(scene)
}

/// A `[[resonances]]` block: harmonic inversion of the (summed) records of `probes` over
/// `band`, from time `after` on, written as `resonances_<name>.csv` at the end of the run.
#[derive(Clone, Debug, PartialEq)]
pub struct Resonances {
    /// Names the file.
    pub name: String,
    /// The probes (indices into [`Scene::probes`]), all E or all H, so that their samples
    /// share one time axis.
    pub probes: Vec<usize>,
    /// `[fmin, fmax]` in scene frequency units.
    pub band: [f64; 2],
    /// Samples before this time (scene units) are left out.
    pub after: f64,
}

/// `[[resonances]]` entry `i`: its probes found by name, its band inside `(−Nyquist,
/// Nyquist)` and not empty.
fn resonances_block(
    r: &Resolver,
    i: usize,
    b: &super::spec::ResonancesSpec,
    probes: &[Probe],
    names: &[String],
    courant: f64,
) -> Result<Resonances, SceneError> {
    let key = |k: &str| format!("resonances[{i}].{k}");
    if !safe_name(&b.name) {
        return Err(r.err(key("name"), safe_name_rule(&b.name)));
    }
    if b.probes.is_empty() {
        return Err(r.err(
            key("probes"),
            "is empty; name one [[probes]] entry or a few",
        ));
    }
    let mut found = Vec::new();
    for (j, name) in b.probes.iter().enumerate() {
        let Some(p) = names.iter().position(|n| n == name) else {
            let known = match names.is_empty() {
                true => "the scene has no [[probes]]".to_string(),
                false => format!("the probes are {}", names.join(", ")),
            };
            return Err(r.err(
                format!("{}[{j}]", key("probes")),
                format!("`{name}` names no probe: {known}"),
            ));
        };
        if found.contains(&p) {
            return Err(r.err(
                format!("{}[{j}]", key("probes")),
                format!("`{name}` is named twice"),
            ));
        }
        if probes[p].component.is_electric()
            != probes[found.first().copied().unwrap_or(p)]
                .component
                .is_electric()
        {
            return Err(r.err(
                format!("{}[{j}]", key("probes")),
                format!(
                    "`{name}` records {}, an H component where the first records E or the other \
                     way round: H is sampled half a step earlier, so their records cannot be \
                     summed",
                    probes[p].component.name()
                ),
            ));
        }
        found.push(p);
    }
    let [f_min, f_max] = match b.band[..] {
        [lo, hi] if lo.is_finite() && hi.is_finite() => [lo, hi],
        _ => {
            return Err(r.err(key("band"), "give [fmin, fmax]: two finite frequencies"));
        }
    };
    if f_min >= f_max {
        return Err(r.err(
            key("band"),
            format!("[{f_min}, {f_max}] is empty: fmin must be below fmax"),
        ));
    }
    // Sampled every step: frequencies past 1 / (2 Δt) alias.
    let nyquist = 0.5 / r.units.to_scene_time(courant);
    if f_max.abs().max(f_min.abs()) > nyquist {
        return Err(r.err(
            key("band"),
            format!(
                "[{f_min}, {f_max}] reaches past the Nyquist frequency {nyquist} of the probes, \
                 sampled once a step"
            ),
        ));
    }
    let after = b.after.unwrap_or(0.0);
    if !(after.is_finite() && after >= 0.0) {
        return Err(r.err(key("after"), format!("{after} must be a non-negative time")));
    }
    Ok(Resonances {
        name: b.name.clone(),
        probes: found,
        band: [f_min, f_max],
        after,
    })
}

/// `[run] until_decayed` as a rule on a probe: a `[[probes]]` entry by name, or a point,
/// added as the probe `until_decayed`; `after` and `every` rounded up to whole steps.
fn decay_rule(
    r: &Resolver,
    d: &super::spec::DecaySpec,
    probes: &mut Vec<Probe>,
    names: &mut Vec<String>,
    courant: f64,
) -> Result<yee_em::DecayRule, SceneError> {
    const KEY: &str = "run.until_decayed";
    let probe = match &d.probe {
        super::spec::ProbeRef::Name(name) => {
            let i = names.iter().position(|n| n == name).ok_or_else(|| {
                let known = match names.is_empty() {
                    true => "the scene has no [[probes]]".to_string(),
                    false => format!("the probes are {}", names.join(", ")),
                };
                r.err(
                    format!("{KEY}.probe"),
                    format!("`{name}` names no probe: {known}"),
                )
            })?;
            if let Some(c) = d.component {
                let c = r.component(&format!("{KEY}.component"), c)?;
                if c != probes[i].component {
                    return Err(r.err(
                        format!("{KEY}.component"),
                        format!(
                            "is {} but the probe `{name}` records {}: leave it out, or give a \
                             position as the probe",
                            c.name(),
                            probes[i].component.name()
                        ),
                    ));
                }
            }
            i
        }
        super::spec::ProbeRef::Position(position) => {
            let Some(c) = d.component else {
                return Err(r.err(
                    format!("{KEY}.component"),
                    "is required when the probe is a position",
                ));
            };
            let component = r.component(&format!("{KEY}.component"), c)?;
            let cell = r.cell(&format!("{KEY}.probe"), position)?;
            if names.iter().any(|n| n == "until_decayed") {
                return Err(r.err(
                    format!("{KEY}.probe"),
                    "a position is sampled as the probe `until_decayed`, a name a [[probes]] \
                     entry has: name that probe here instead",
                ));
            }
            probes.push(Probe { component, cell });
            names.push("until_decayed".into());
            probes.len() - 1
        }
    };
    if !(d.factor.is_finite() && d.factor > 0.0 && d.factor < 1.0) {
        return Err(r.err(
            format!("{KEY}.factor"),
            format!("{} must lie between 0 and 1 (e.g. 1e-3)", d.factor),
        ));
    }
    let to_steps = |key: &str, t: f64, positive: bool| {
        let (ok, kind) = match positive {
            true => (t > 0.0, "positive"),
            false => (t >= 0.0, "non-negative"),
        };
        match t.is_finite() && ok {
            true => Ok((r.units.time(t) / courant).ceil() as u64),
            false => Err(r.err(format!("{KEY}.{key}"), format!("{t} must be a {kind} time"))),
        }
    };
    Ok(yee_em::DecayRule {
        probe,
        after: to_steps("after", d.after.unwrap_or(0.0), false)?,
        every: to_steps("every", d.every, true)?.max(1),
        factor: d.factor,
    })
}

type MaskParts = (Option<Vec<bool>>, Vec<PathBuf>, [usize; 3]);

/// The mask of active cells (geometry and images together) and the tile extent.
fn resolve_mask(
    r: &Resolver,
    spec: &SceneSpec,
    background_inactive: bool,
    layers: &[(Shape, bool)],
) -> Result<MaskParts, SceneError> {
    let m = &spec.mask;
    let needs_mask = background_inactive
        || layers.iter().any(|(_, inactive)| *inactive)
        || m.image.is_some()
        || m.images.is_some();
    let cells = r.grid.iter().try_fold(1usize, |n, &e| n.checked_mul(e));
    if needs_mask && cells.is_none_or(|c| c > MAX_MASK_CELLS) {
        return Err(r.err(
            "mask",
            format!(
                "a grid of {:?} cells is too large for a mask of active cells (at most {MAX_MASK_CELLS} cells)",
                &r.grid[..r.dims()]
            ),
        ));
    }
    let mut active = mask::from_geometry(r.grid, background_inactive, layers);
    let (key, files) = match (&m.image, &m.images) {
        (Some(_), Some(_)) => return Err(r.err("mask", "give image (2D) or images (3D), not both")),
        (Some(one), None) => {
            if r.dims() != 2 {
                return Err(r.err(
                    "mask.image",
                    format!("is for 2D scenes, and this one is {}", r.mode.name()),
                ));
            }
            ("mask.image", vec![one.clone()])
        }
        (None, Some(many)) => {
            if r.dims() != 3 {
                return Err(r.err(
                    "mask.images",
                    format!("is for 3D scenes, and this one is {}", r.mode.name()),
                ));
            }
            ("mask.images", many.clone())
        }
        (None, None) => ("", Vec::new()),
    };
    let mut paths = Vec::new();
    if !files.is_empty() {
        let (image, read) = mask::from_images(r.file, key, &files, r.grid)?;
        active = Some(match active {
            None => image,
            Some(g) => g.iter().zip(&image).map(|(a, b)| *a && *b).collect(),
        });
        paths = read;
    }
    let used = r.mode.active_axes();
    let tile = match &m.tile {
        None => used.map(|u| if u { mask::DEFAULT_TILE } else { 1 }),
        Some(t) => {
            if t.len() != r.dims() {
                return Err(r.err(
                    "mask.tile",
                    format!(
                        "has {} numbers, but mode {} needs {}",
                        t.len(),
                        r.mode.name(),
                        r.dims()
                    ),
                ));
            }
            if let Some(a) = t.iter().position(|&n| n == 0) {
                return Err(r.err(format!("mask.tile[{a}]"), "is 0; a tile is at least 1 cell"));
            }
            std::array::from_fn(|a| t.get(a).copied().unwrap_or(1))
        }
    };
    Ok((active, paths, tile))
}

/// The scene key a core setup error refers to; `origin(n)` is the `[[sources]]` entry of the
/// setup's source node `n`.
fn setup_error_key(e: &SetupError, origin: impl Fn(usize) -> usize) -> String {
    match *e {
        SetupError::CourantAboveLimit { .. } | SetupError::CourantNotPositive { .. } => {
            "grid.courant".into()
        }
        SetupError::OutsideGrid {
            what: "source",
            index,
            ..
        } => {
            format!("sources[{}]", origin(index))
        }
        SetupError::OutsideGrid { what, index, .. } => format!("{what}s[{index}].position"),
        SetupError::ComponentNotInMode { what, index, .. } => format!("{what}s[{index}].component"),
        SetupError::InvalidWaveform { source, .. }
        | SetupError::InvalidAmplitude { source, .. } => format!("sources[{}]", origin(source)),
        SetupError::InvalidShape { region, .. }
        | SetupError::InvalidMaterial {
            region: Some(region),
            ..
        }
        | SetupError::InvalidPole {
            region: Some(region),
            ..
        }
        | SetupError::PolesOutOfRange {
            region: Some(region),
            ..
        }
        | SetupError::DispersiveCourant {
            region: Some(region),
            ..
        } => {
            format!("geometry[{region}]")
        }
        SetupError::InvalidMaterial { region: None, .. }
        | SetupError::InvalidPole { region: None, .. }
        | SetupError::PolesOutOfRange { region: None, .. }
        | SetupError::DispersiveCourant { region: None, .. } => "background".into(),
        SetupError::CpmlTooThick { .. }
        | SetupError::CpmlOverlap { .. }
        | SetupError::InvalidCpml { .. } => "boundaries.cpml".into(),
        SetupError::HalfPeriodic { axis } => format!("boundaries.{}", axis.name()),
        SetupError::InvalidBloch { .. } | SetupError::BlochNeedsComplex { .. } => {
            "boundaries.k".into()
        }
        SetupError::SourceInactive { source, .. } => {
            format!("sources[{}].position", origin(source))
        }
        SetupError::MaskEmpty | SetupError::MaskLength { .. } => "mask".into(),
        SetupError::InvalidPlaneWave { wave, .. } | SetupError::PlaneWaveSurface { wave, .. } => {
            format!("plane_waves[{wave}]")
        }
        SetupError::InvalidMonitor { .. } => "flux".into(),
        _ => "grid".into(),
    }
}

/// The library materials `spec` names (as the background or a shape's material) without
/// defining them, each once under the name used. They are in SI units: a normalised scene that
/// names one is an error at the key naming it.
fn library_materials(
    r: &Resolver,
    spec: &SceneSpec,
) -> Result<Vec<(String, &'static LibraryMaterial)>, SceneError> {
    let named = spec
        .background
        .iter()
        .map(|b| ("background".to_string(), b))
        .chain(
            spec.geometry
                .iter()
                .enumerate()
                .map(|(i, g)| (format!("geometry[{i}].material"), &g.material)),
        );
    let mut found: Vec<(String, &'static LibraryMaterial)> = Vec::new();
    for (key, name) in named {
        if spec.materials.contains_key(name) || found.iter().any(|(n, _)| n == name) {
            continue;
        }
        let Some(m) = library_material(name) else {
            continue;
        };
        if !matches!(r.units, Units::Si { .. }) {
            return Err(r.err(
                key,
                format!(
                    "`{name}` is a library material ({}), given in SI units: give the scene \
                     [units] system = \"si\" and a cell_size",
                    m.description
                ),
            ));
        }
        found.push((name.clone(), m));
    }
    Ok(found)
}

/// Pole `k` of the material at `key` (`materials.NAME`) in normalised units: frequencies (Hz
/// in SI) and τ (s) converted, strengths as given.
fn pole(r: &Resolver, key: &str, k: usize, p: &PoleSpec) -> Result<yee_em::Pole, SceneError> {
    let u = r.units;
    Ok(match *p {
        PoleSpec::Drude {
            frequency,
            gamma,
            sigma,
        } => yee_em::Pole::Drude {
            frequency: u.frequency(frequency),
            gamma: u.frequency(gamma),
            sigma,
        },
        PoleSpec::Lorentz {
            frequency,
            gamma,
            sigma,
        } => yee_em::Pole::Lorentz {
            frequency: u.frequency(frequency),
            gamma: u.frequency(gamma),
            sigma,
        },
        PoleSpec::Debye { delta_eps, tau } => {
            if !(tau.is_finite() && tau > 0.0) {
                return Err(r.err(
                    format!("{key}.poles[{k}].tau"),
                    format!("{tau} must be a positive time"),
                ));
            }
            yee_em::Pole::Debye {
                delta_eps,
                tau: u.time(tau),
            }
        }
    })
}

fn shape(r: &Resolver, i: usize, g: &GeometrySpec) -> Result<Shape, SceneError> {
    let key = |k: &str| format!("geometry[{i}].{k}");
    let need = |name: &str, v: Option<&Vec<f64>>| {
        v.cloned().ok_or_else(|| {
            r.err(
                key(name),
                format!("is required for a {:?}", g.shape).to_lowercase(),
            )
        })
    };
    let forbid = |name: &str, present: bool| {
        if present {
            Err(r.err(
                key(name),
                format!(
                    "is not a parameter of a {}",
                    format!("{:?}", g.shape).to_lowercase()
                ),
            ))
        } else {
            Ok(())
        }
    };
    let radius = |g: &GeometrySpec| -> Result<f64, SceneError> {
        let v = g
            .radius
            .ok_or_else(|| r.err(key("radius"), "is required"))?;
        if !(v.is_finite() && v >= 0.0) {
            return Err(r.err(key("radius"), format!("{v} must be a non-negative length")));
        }
        Ok(r.units.length(v))
    };
    match g.shape {
        ShapeKind::Box => {
            forbid("center", g.center.is_some())?;
            forbid("radius", g.radius.is_some())?;
            forbid("axis", g.axis.is_some())?;
            forbid("length", g.length.is_some())?;
            let lo = r.point(&key("lo"), &need("lo", g.lo.as_ref())?, f64::NEG_INFINITY)?;
            let hi = r.point(&key("hi"), &need("hi", g.hi.as_ref())?, f64::INFINITY)?;
            if let Some(a) = (0..3).find(|&a| hi[a] < lo[a]) {
                return Err(r.err(
                    key("hi"),
                    format!("is below lo along {}", Axis::from_index(a).name()),
                ));
            }
            Ok(Shape::Block { lo, hi })
        }
        ShapeKind::Sphere => {
            forbid("lo", g.lo.is_some())?;
            forbid("hi", g.hi.is_some())?;
            forbid("axis", g.axis.is_some())?;
            forbid("length", g.length.is_some())?;
            let center = r.point(&key("center"), &need("center", g.center.as_ref())?, 0.0)?;
            let radius = radius(g)?;
            Ok(match r.dims() {
                // A sphere of a 1D scene is a segment, of a 2D scene a disc.
                1 => Shape::Block {
                    lo: [center[0] - radius, f64::NEG_INFINITY, f64::NEG_INFINITY],
                    hi: [center[0] + radius, f64::INFINITY, f64::INFINITY],
                },
                2 => Shape::Cylinder {
                    center,
                    radius,
                    axis: Axis::Z,
                    length: f64::INFINITY,
                },
                _ => Shape::Sphere { center, radius },
            })
        }
        ShapeKind::Cylinder => {
            forbid("lo", g.lo.is_some())?;
            forbid("hi", g.hi.is_some())?;
            let center = r.point(&key("center"), &need("center", g.center.as_ref())?, 0.0)?;
            let radius = radius(g)?;
            let axis = g.axis.map_or(Axis::Z, to_axis);
            if r.dims() < 3 && axis != Axis::Z {
                return Err(r.err(
                    key("axis"),
                    format!(
                        "in mode {} a cylinder must lie along z (a disc)",
                        r.mode.name()
                    ),
                ));
            }
            if r.dims() == 1 {
                return Err(r.err(key("shape"), "a cylinder has no meaning in 1D; use a box"));
            }
            let length = match g.length {
                None => f64::INFINITY,
                Some(l) if l >= 0.0 && !l.is_nan() => r.units.length(l),
                Some(l) => {
                    return Err(r.err(key("length"), format!("{l} must be a non-negative length")));
                }
            };
            let length = if r.dims() < 3 { f64::INFINITY } else { length };
            Ok(Shape::Cylinder {
                center,
                radius,
                axis,
                length,
            })
        }
    }
}

/// `[boundaries] k`: the Bloch wavevector in cycles per cell, zero on every axis without it.
/// It needs a complex value type, and non-zero components only on periodic axes.
fn bloch(r: &Resolver, spec: &SceneSpec, boundaries: &Boundaries) -> Result<[f64; 3], SceneError> {
    let Some(k) = &spec.boundaries.k else {
        return Ok([0.0; 3]);
    };
    if k.len() != r.dims() {
        return Err(r.err(
            "boundaries.k",
            format!(
                "has {} numbers, but mode {} needs {}",
                k.len(),
                r.mode.name(),
                r.dims()
            ),
        ));
    }
    let mut out = [0.0; 3];
    for (a, &v) in k.iter().enumerate() {
        let key = format!("boundaries.k[{a}]");
        if !v.is_finite() {
            return Err(r.err(key, format!("{v} is not a finite number")));
        }
        if v != 0.0 && boundaries[a][0] != Boundary::Periodic {
            let axis = Axis::from_index(a).name();
            return Err(r.err(
                key,
                format!(
                    "{v} on axis {axis}, whose faces are {}: a Bloch phase needs a periodic \
                     axis (boundaries.{axis} = \"periodic\")",
                    boundaries[a][0].name()
                ),
            ));
        }
        out[a] = r.units.wavenumber(v);
    }
    let complex = matches!(spec.grid.value_type, ValueType::C32 | ValueType::C64);
    if out.iter().any(|&v| v != 0.0) && !complex {
        return Err(r.err(
            "boundaries.k",
            format!(
                "{k:?} needs complex fields, but grid.value_type is \"{}\": set \
                 value_type = \"c64\" (or \"c32\") in [grid]",
                spec.grid.value_type.name()
            ),
        ));
    }
    Ok(out)
}

/// The CPML's thickness when the scene gives none, in cells whatever its units.
const DEFAULT_CPML_CELLS: usize = 10;

/// A grid size or CPML thickness as a whole number of cells: `v` cells, or with `lengths` a
/// length in scene units that must be a whole number of cells (within a relative 1e-9).
fn whole_cells(units: Units, lengths: bool, v: f64) -> Result<usize, String> {
    if !v.is_finite() || v < 0.0 {
        return Err(format!("{v} must be a non-negative finite number"));
    }
    let q = if lengths { units.length(v) } else { v };
    if q.fract() != 0.0 {
        return Err(match units {
            _ if !lengths => format!(
                "{v} is not a whole number of cells (give [units] resolution to state sizes \
                 as lengths)"
            ),
            Units::Lengths { resolution } => {
                format!("{v} is {q} cells at resolution {resolution}, not a whole number")
            }
            _ => format!(
                "{v} m is {q} cells at resolution {}, not a whole number",
                1.0 / units.cell()
            ),
        });
    }
    // Far beyond any grid (`yee_em::setup::MAX_EXTENT`), refused before it is counted.
    if q > 2.0 * yee_em::setup::MAX_EXTENT as f64 {
        return Err(format!("{v} is far larger than any grid"));
    }
    Ok(q as usize)
}

fn boundaries(r: &Resolver, spec: &SceneSpec) -> Result<Boundaries, SceneError> {
    let b = &spec.boundaries;
    let per_axis = [b.x, b.y, b.z];
    let per_face = [
        [b.x_low, b.x_high],
        [b.y_low, b.y_high],
        [b.z_low, b.z_high],
    ];
    let active = r.mode.active_axes();
    let c = &b.cpml;
    let alpha_max = c
        .alpha_max
        .unwrap_or_else(|| crate::spec::default_alpha(r.mode));
    let thickness = match c.thickness {
        None => DEFAULT_CPML_CELLS,
        Some(v) => {
            whole_cells(r.units, r.lengths, v).map_err(|m| r.err("boundaries.cpml.thickness", m))?
        }
    };
    let cpml = CpmlParams {
        thickness,
        order: c.order,
        sigma_max: c.sigma_max,
        kappa_max: c.kappa_max,
        alpha_max,
    };
    let mut out: Boundaries = [[Boundary::Pec; 2]; 3];
    for axis in Axis::ALL {
        let a = axis.index();
        if !active[a] {
            let named = per_axis[a].is_some() || per_face[a].iter().any(Option::is_some);
            if named {
                return Err(r.err(
                    format!("boundaries.{}", axis.name()),
                    format!("mode {} has no {} axis", r.mode.name(), axis.name()),
                ));
            }
            continue;
        }
        for side in Side::BOTH {
            let kind = per_face[a][side.index()]
                .or(per_axis[a])
                .or(b.all)
                .unwrap_or(BoundaryKind::Pec);
            out[a][side.index()] = match kind {
                BoundaryKind::Pec => Boundary::Pec,
                BoundaryKind::Pmc => Boundary::Pmc,
                BoundaryKind::Periodic => Boundary::Periodic,
                BoundaryKind::Cpml => Boundary::Cpml(cpml),
            };
        }
        let [low, high] = out[a];
        if (low == Boundary::Periodic) != (high == Boundary::Periodic) {
            return Err(r.err(
                format!("boundaries.{}_low", axis.name()),
                format!("axis {} is periodic on one face only ({} low, {} high); both faces must be periodic", axis.name(), low.name(), high.name()),
            ));
        }
        let layers = out[a]
            .iter()
            .filter(|f| matches!(f, Boundary::Cpml(_)))
            .count();
        if layers > 0 {
            let n = r.grid[a];
            if thickness == 0 {
                return Err(r.err(
                    "boundaries.cpml.thickness",
                    "is 0; a CPML layer needs at least one cell",
                ));
            }
            if 2 * thickness > n {
                return Err(r.err(
                    "boundaries.cpml.thickness",
                    format!(
                        "{} cells is more than half the {n} cells along {}",
                        thickness,
                        axis.name()
                    ),
                ));
            }
        }
    }
    for (p, v, min) in [
        ("order", c.order, 0.0),
        ("kappa_max", c.kappa_max, 1.0),
        ("alpha_max", alpha_max, 0.0),
    ] {
        if !(v.is_finite() && v >= min) {
            return Err(r.err(
                format!("boundaries.cpml.{p}"),
                format!("{v} must be at least {min}"),
            ));
        }
    }
    if let Some(s) = c.sigma_max.filter(|s| !(s.is_finite() && *s >= 0.0)) {
        return Err(r.err(
            "boundaries.cpml.sigma_max",
            format!("{s} must be non-negative"),
        ));
    }
    Ok(out)
}

/// The waveform keys a source or a plane wave carries.
struct WaveformKeys {
    waveform: WaveformKind,
    frequency: Option<f64>,
    delay: Option<f64>,
    width: Option<f64>,
    phase: Option<f64>,
    ramp: Option<f64>,
}

impl From<&SourceSpec> for WaveformKeys {
    fn from(s: &SourceSpec) -> Self {
        WaveformKeys {
            waveform: s.waveform,
            frequency: s.frequency,
            delay: s.delay,
            width: s.width,
            phase: s.phase,
            ramp: s.ramp,
        }
    }
}

impl From<&PlaneWaveSpec> for WaveformKeys {
    fn from(s: &PlaneWaveSpec) -> Self {
        WaveformKeys {
            waveform: s.waveform,
            frequency: s.frequency,
            delay: s.delay,
            width: s.width,
            phase: s.phase,
            ramp: s.ramp,
        }
    }
}

fn waveform(r: &Resolver, table: &str, s: &WaveformKeys) -> Result<Waveform, SceneError> {
    let key = |k: &str| format!("{table}.{k}");
    let name = match s.waveform {
        WaveformKind::Gaussian => "gaussian",
        WaveformKind::Ricker => "ricker",
        WaveformKind::Sinusoid => "sinusoid",
    };
    let forbid = |k: &str, present: bool| {
        if present {
            Err(r.err(key(k), format!("is not a parameter of the {name} waveform")))
        } else {
            Ok(())
        }
    };
    let positive = |k: &str, v: Option<f64>| -> Result<f64, SceneError> {
        match v {
            None => Err(r.err(key(k), format!("is required by the {name} waveform"))),
            Some(x) if x.is_finite() && x > 0.0 => Ok(x),
            Some(x) => Err(r.err(key(k), format!("{x} must be positive"))),
        }
    };
    let finite = |k: &str, v: f64| -> Result<f64, SceneError> {
        if v.is_finite() {
            Ok(v)
        } else {
            Err(r.err(key(k), format!("{v} is not a finite number")))
        }
    };
    let u = r.units;
    let w = match s.waveform {
        WaveformKind::Gaussian => {
            forbid("phase", s.phase.is_some())?;
            forbid("ramp", s.ramp.is_some())?;
            let width = u.time(positive("width", s.width)?);
            // A Gaussian without a carrier has a DC part: a soft source driven by it leaves a
            // static charge behind, and a plane wave a static field.
            let frequency = match s.frequency {
                None => {
                    return Err(r.err(
                        key("frequency"),
                        "is required by the gaussian waveform (its carrier; a baseband \
                         Gaussian leaves a static charge behind — for a broad band take a \
                         carrier at the band's centre and a short width)",
                    ));
                }
                Some(f) if f.is_finite() && f > 0.0 => u.frequency(f),
                Some(f) => return Err(r.err(key("frequency"), format!("{f} must be positive"))),
            };
            let delay = match s.delay {
                Some(d) => u.time(finite("delay", d)?),
                None => 5.0 * width,
            };
            Waveform::Gaussian {
                delay,
                width,
                frequency,
            }
        }
        WaveformKind::Ricker => {
            forbid("width", s.width.is_some())?;
            forbid("phase", s.phase.is_some())?;
            forbid("ramp", s.ramp.is_some())?;
            let frequency = u.frequency(positive("frequency", s.frequency)?);
            let delay = match s.delay {
                Some(d) => u.time(finite("delay", d)?),
                None => 1.5 / frequency,
            };
            Waveform::Ricker { frequency, delay }
        }
        WaveformKind::Sinusoid => {
            forbid("width", s.width.is_some())?;
            forbid("delay", s.delay.is_some())?;
            let frequency = u.frequency(positive("frequency", s.frequency)?);
            let phase = finite("phase", s.phase.unwrap_or(0.0))?;
            let ramp = match s.ramp {
                None => 0.0,
                Some(t) if t.is_finite() && t >= 0.0 => u.time(t),
                Some(t) => {
                    return Err(r.err(key("ramp"), format!("{t} must be a non-negative duration")));
                }
            };
            Waveform::Sinusoid {
                frequency,
                phase,
                ramp,
            }
        }
    };
    Ok(w)
}

/// The longest name, in bytes, that a scene may give an output file or folder: with what the
/// outputs add around it (`.probe_NAME.png.part`, `.flux_NAME_dft.npy.part`) it stays within
/// the 255 bytes a file name may have.
pub const NAME_MAX_BYTES: usize = 200;

/// A file-name safe name: letters, digits, `_` and `-`, at most [`NAME_MAX_BYTES`].
fn safe_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= NAME_MAX_BYTES
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// What [`safe_name`] asks of a name, for an error about `name`.
fn safe_name_rule(name: &str) -> String {
    format!(
        "`{}` must be letters, digits, _ or -, at most {NAME_MAX_BYTES} bytes (it names a file)",
        shortened(name)
    )
}

/// `name`, cut to its first 60 characters (an error need not repeat thousands).
fn shortened(name: &str) -> String {
    match name.char_indices().nth(60) {
        Some((at, _)) => format!("{}… ({} bytes)", &name[..at], name.len()),
        None => name.to_string(),
    }
}

/// Why the scene's `name` cannot name its output folder (`out/NAME`), if it cannot: it must be
/// one file name — not empty, no path separator, no `..`, no control character, at most
/// [`NAME_MAX_BYTES`] — so the outputs of a scene never land outside `out/`.
fn scene_name_fault(name: &str) -> Option<String> {
    let long = format!("is longer than {NAME_MAX_BYTES} bytes");
    let why = if name.is_empty() {
        "is empty"
    } else if name.len() > NAME_MAX_BYTES {
        &long
    } else if name.contains("..") || name == "." {
        "holds `..` or is `.`"
    } else if name.contains(['/', '\\']) {
        "holds a path separator"
    } else if name.chars().any(char::is_control) {
        "holds a control character"
    } else {
        return None;
    };
    Some(format!(
        "`{}` {why}: the scene's name must be one file name (it names the output folder \
         out/NAME)",
        shortened(name)
    ))
}

/// A box of whole cells from two corners in scene units: each coordinate must land on a node
/// plane (an integer number of cells, within 1e-9). Along `flat` (a plane's normal) the
/// corners may coincide: the box is then one cell thick there.
fn cell_box(
    r: &Resolver,
    key: &str,
    lo: &[f64],
    hi: &[f64],
    flat: Option<Axis>,
) -> Result<Box3, SceneError> {
    let on_node = |which: &str, v: &[f64]| -> Result<[i64; 3], SceneError> {
        let p = r.point(&format!("{key}.{which}"), v, 0.0)?;
        let mut out = [0i64; 3];
        for a in 0..r.dims() {
            let n = p[a].round();
            if (p[a] - n).abs() > 1e-9 * n.abs().max(1.0) {
                return Err(r.err(
                    format!("{key}.{which}"),
                    format!("{v:?} is not on a cell boundary (cells of the grid: whole numbers)"),
                ));
            }
            // Far outside any grid: refused before it can overflow arithmetic on cells.
            let limit = 2.0 * yee_em::setup::MAX_EXTENT as f64;
            if !(-limit..=limit).contains(&n) {
                return Err(r.err(
                    format!("{key}.{which}"),
                    format!("{v:?} lies far outside the grid"),
                ));
            }
            out[a] = n as i64;
        }
        Ok(out)
    };
    let (lo, hi) = (on_node("lo", lo)?, on_node("hi", hi)?);
    let flat = flat.map(Axis::index);
    let hi: [i64; 3] = std::array::from_fn(|a| {
        if a >= r.dims() {
            1
        } else if Some(a) == flat {
            lo[a] + 1
        } else {
            hi[a]
        }
    });
    if (0..r.dims()).any(|a| hi[a] <= lo[a]) {
        return Err(r.err(
            key.to_string(),
            format!("hi {hi:?} must exceed lo {lo:?} on every axis"),
        ));
    }
    Ok(Box3::new(lo, hi))
}

fn plane_wave(r: &Resolver, i: usize, w: &PlaneWaveSpec) -> Result<PlaneWave, SceneError> {
    let table = format!("plane_waves[{i}]");
    let region = cell_box(r, &table, &w.lo, &w.hi, None)?;
    let direction = match &w.direction {
        DirectionSpec::Axis(name) => match name.as_str() {
            "+x" => [1.0, 0.0, 0.0],
            "-x" => [-1.0, 0.0, 0.0],
            "+y" => [0.0, 1.0, 0.0],
            "-y" => [0.0, -1.0, 0.0],
            "+z" => [0.0, 0.0, 1.0],
            "-z" => [0.0, 0.0, -1.0],
            other => {
                return Err(r.err(
                    format!("{table}.direction"),
                    format!("`{other}` is not one of +x, -x, +y, -y, +z, -z (or give a vector)"),
                ));
            }
        },
        DirectionSpec::Vector(v) => r.point(&format!("{table}.direction"), v, 0.0)?,
    };
    let [px, py, pz] = w.polarization[..] else {
        return Err(r.err(
            format!("{table}.polarization"),
            format!(
                "has {} numbers; the direction of E takes 3",
                w.polarization.len()
            ),
        ));
    };
    if !w.amplitude.is_finite() {
        return Err(r.err(
            format!("{table}.amplitude"),
            format!("{} is not a finite number", w.amplitude),
        ));
    }
    Ok(PlaneWave {
        region,
        direction,
        polarization: [px, py, pz],
        waveform: waveform(r, &table, &w.into())?,
        amplitude: w.amplitude,
    })
}

/// A flux region's faces, with a DFT monitor per face appended to `monitors` and its
/// frequencies (normalised) to `frequencies`.
fn flux_region(
    r: &Resolver,
    i: usize,
    f: &FluxSpec,
    monitors: &mut Vec<DftMonitor>,
    frequencies: &mut Vec<f64>,
) -> Result<Flux, SceneError> {
    let table = format!("flux[{i}]");
    let key = |k: &str| format!("{table}.{k}");
    if !safe_name(&f.name) {
        return Err(r.err(key("name"), safe_name_rule(&f.name)));
    }
    let whole = Box3::from_extent(r.grid);
    let planes = match (f.axis, f.position) {
        (Some(axis), Some(position)) => {
            let axis = to_axis(axis);
            if axis.index() >= r.dims() {
                return Err(r.err(
                    key("axis"),
                    format!("{} is not an axis of this mode", axis.name()),
                ));
            }
            let x = r.units.length(position);
            let k = x.round() as i64;
            if !(x.is_finite() && k >= 1 && k < r.grid[axis.index()] as i64) {
                return Err(r.err(
                    key("position"),
                    format!("{position} must lie inside the grid, a cell or more from its faces"),
                ));
            }
            let extent = match (&f.lo, &f.hi) {
                (Some(lo), Some(hi)) => cell_box(r, &table, lo, hi, Some(axis))?,
                (None, None) => whole,
                _ => return Err(r.err(table.clone(), "give both lo and hi, or neither")),
            };
            vec![FluxPlane {
                cells: extent
                    .with_bound(axis, Side::Low, k)
                    .with_bound(axis, Side::High, k + 1),
                axis,
                normal: Side::High,
            }]
        }
        (None, None) => {
            let (Some(lo), Some(hi)) = (&f.lo, &f.hi) else {
                return Err(r.err(
                    table.clone(),
                    "give a plane (axis and position) or a closed box (lo and hi)",
                ));
            };
            FluxPlane::faces_of_box(cell_box(r, &table, lo, hi, None)?, r.mode)
        }
        _ => return Err(r.err(table.clone(), "a plane needs both axis and position")),
    };
    for p in &planes {
        if !whole.contains_box(&p.cells) {
            return Err(r.err(
                table.clone(),
                format!("the face {:?} leaves the grid", p.cells),
            ));
        }
    }
    let band = Band {
        frequencies: f.frequencies.as_deref(),
        fmin: f.fmin,
        fmax: f.fmax,
        count: f.count,
    };
    let listed = band.resolve(r, &table)?;
    let first = frequencies.len();
    frequencies.extend(&listed);
    let first_monitor = monitors.len();
    monitors.extend(
        planes
            .iter()
            .map(|p| p.monitor(r.mode, r.grid, first, listed.len())),
    );
    let minus = f.minus.as_ref().map(|m| {
        let path = PathBuf::from(m);
        if path.is_absolute() {
            path
        } else {
            r.file.parent().unwrap_or(Path::new(".")).join(path)
        }
    });
    let far_field = match &f.far_field {
        None => None,
        Some(n) => {
            let closed = f.axis.is_none();
            let [n_theta, n_phi] = n[..] else {
                return Err(r.err(key("far_field"), "takes two counts: [n_theta, n_phi]"));
            };
            if !(closed && r.dims() == 3) {
                return Err(r.err(
                    key("far_field"),
                    "needs a closed box (lo and hi, no axis) in a 3D scene",
                ));
            }
            if n_theta == 0 || n_phi == 0 {
                return Err(r.err(key("far_field"), "counts must be at least 1"));
            }
            Some([n_theta, n_phi])
        }
    };
    let plot_frequencies = match (&f.plot_frequencies, far_field) {
        (Some(_), None) => {
            return Err(r.err(
                key("plot_frequencies"),
                "picks the frequencies of a far field's plot: give far_field too",
            ));
        }
        (Some(picks), Some(_)) => {
            let scene: Vec<f64> = (listed.iter())
                .map(|&x| r.units.to_scene_frequency(x))
                .collect();
            crate::plot_frequencies::pick(&scene, picks)
                .map_err(|m| r.err(key("plot_frequencies"), m))?
        }
        (None, Some(_)) => crate::plot_frequencies::spread(listed.len()),
        (None, None) => Vec::new(),
    };
    Ok(Flux {
        name: f.name.clone(),
        planes,
        first_monitor,
        minus,
        far_field,
        plot_frequencies,
    })
}

/// The nodes of `component` a source drives with the weight of each, and how many axes it
/// extends along (the unused axes of the mode included): the node of the cell containing
/// `position` (weight 1), or the nodes of the closed box `[lo, hi]` weighted by the rule that
/// places geometry ([`crate::closed_box`]).
fn source_nodes(
    r: &Resolver,
    i: usize,
    component: Component,
    s: &SourceSpec,
    boundaries: &Boundaries,
) -> Result<(Vec<crate::closed_box::WeightedNode>, usize), SceneError> {
    let key = |k: &str| format!("sources[{i}].{k}");
    let unused = 3 - r.dims();
    match (&s.position, &s.lo, &s.hi) {
        (Some(SourcePosition::Along(x)), None, None) => Err(r.err(
            key("position"),
            format!("{x}: a point source's position is a list of coordinates"),
        )),
        (Some(SourcePosition::Point(p)), None, None) => {
            Ok((vec![(r.cell(&key("position"), p)?, 1.0)], unused))
        }
        (None, Some(lo), Some(hi)) => {
            let (a, b) = (r.point(&key("lo"), lo, 0.0)?, r.point(&key("hi"), hi, 0.0)?);
            for axis in 0..r.dims() {
                let n = r.grid[axis] as f64;
                if b[axis] < a[axis] {
                    return Err(r.err(key("hi"), format!("{hi:?} lies below lo {lo:?}")));
                }
                if !(-1.0..=n + 1.0).contains(&a[axis]) || !(-1.0..=n + 1.0).contains(&b[axis]) {
                    return Err(r.err(key("lo"), format!("[{lo:?}, {hi:?}] leaves the grid")));
                }
            }
            let extended = unused + (0..r.dims()).filter(|&axis| b[axis] > a[axis]).count();
            let nodes = crate::closed_box::node_count_bound(a, b, r.dims());
            if nodes > MAX_SOURCE_NODES {
                return Err(r.err(
                    format!("sources[{i}]"),
                    format!(
                        "drives {nodes} nodes, more than the {MAX_SOURCE_NODES} one source \
                         takes: a smaller region, or a plane wave for a wide front"
                    ),
                ));
            }
            let periodic = std::array::from_fn(|axis| boundaries[axis][0] == Boundary::Periodic);
            let nodes =
                crate::closed_box::weighted_nodes(component, a, b, r.grid, periodic, r.dims())
                    .map_err(|crate::closed_box::BoxFault::Outside { axis }| {
                        r.err(
                            key("lo"),
                            format!(
                                "[{lo:?}, {hi:?}] holds no {} node inside the grid along {}, or \
                                 leaves it",
                                component.name(),
                                ["x", "y", "z"][axis]
                            ),
                        )
                    })?;
            Ok((nodes, extended))
        }
        _ => Err(r.err(
            format!("sources[{i}]"),
            "give a point (position) or a line, plane or box (lo and hi)",
        )),
    }
}

/// A `[[sources]]` entry of `kind = "mode"`: one guided mode of the grid's cross-section at
/// `plane` launched one way by the equivalent currents of its E and H on that plane (the
/// total-field/scattered-field correction of a single plane, docs/modes.md). The scene
/// cannot solve for the mode; `yee_simulation::mode_sources` does, and adds the currents to
/// [`Scene::sources`].
#[derive(Clone, Debug, PartialEq)]
pub struct ModeSource {
    /// The `[[sources]]` entry.
    pub index: usize,
    /// The plane's normal.
    pub axis: Axis,
    /// The plane's cell index along `axis`: the E sheet lies on it, the H sheet on the cells
    /// before it (`forward`) or on it (backward).
    pub plane: usize,
    /// The mode number, from 0 by decreasing effective index (among the modes of `parity`).
    pub mode: usize,
    /// The mirror parity of the mode per grid axis, `Some(true)` even
    /// ([`crate::mode_parity`]).
    pub parity: [Option<bool>; 3],
    /// Along increasing coordinate when true.
    pub forward: bool,
    /// The time dependence of the launched mode's E on the plane (normalised).
    pub waveform: yee_em::Waveform,
    /// The scale of the mode, whose fields carry unit power (normalised) at the centre
    /// frequency.
    pub amplitude: f64,
    /// The number of frequencies across the waveform's band at which the mode is found (1:
    /// the centre frequency alone), docs/modes.md.
    pub num_freqs: usize,
    /// The launched mode's effective index at the centre frequency, once its currents are in
    /// [`Scene::sources`] (`None` before).
    pub n_eff: Option<f64>,
}

/// `[[sources]]` entry `i` of `kind = "mode"`: its plane inside the grid (a cell from either
/// face), its direction, no component or box.
fn mode_source(
    r: &Resolver,
    i: usize,
    s: &SourceSpec,
    waveform: yee_em::Waveform,
) -> Result<ModeSource, SceneError> {
    let key = |k: &str| format!("sources[{i}].{k}");
    for (name, given) in [
        ("component", s.component.is_some()),
        ("lo", s.lo.is_some()),
        ("hi", s.hi.is_some()),
    ] {
        if given {
            return Err(r.err(
                key(name),
                "a mode source fills the grid's cross-section at axis and position",
            ));
        }
    }
    let Some(name) = s.axis else {
        return Err(r.err(key("axis"), "a mode source names its plane's normal"));
    };
    let axis = to_axis(name);
    if r.dims() == 1 || axis.index() >= r.dims() {
        return Err(r.err(
            key("axis"),
            format!(
                "{}: a {} scene's modes propagate along {}",
                axis.name(),
                r.mode.name(),
                ["no axis", "x", "x or y", "x, y or z"][r.dims()]
            ),
        ));
    }
    let x = match s.position {
        Some(SourcePosition::Along(x)) => x,
        _ => {
            return Err(r.err(
                key("position"),
                "a mode source's plane is one coordinate along axis",
            ));
        }
    };
    let k = r.units.length(x).round() as i64;
    if !(x.is_finite() && k >= 1 && k < r.grid[axis.index()] as i64) {
        return Err(r.err(
            key("position"),
            format!("{x} must lie inside the grid, a cell or more from its faces"),
        ));
    }
    let forward = match s.direction.as_deref() {
        Some("+") => true,
        Some("-") => false,
        other => {
            return Err(r.err(
                key("direction"),
                format!("{other:?}: a mode source travels \"+\" or \"-\" along its axis"),
            ));
        }
    };
    if !(s.amplitude.is_finite()) {
        return Err(r.err(
            key("amplitude"),
            format!("{} is not a finite number", s.amplitude),
        ));
    }
    let parity = match &s.parity {
        Some(text) => crate::mode_parity::parse(text, axis).map_err(|e| r.err(key("parity"), e))?,
        None => [None; 3],
    };
    let num_freqs = s.num_freqs.unwrap_or(1);
    if num_freqs == 0 {
        return Err(r.err(
            key("num_freqs"),
            "0: give 1 (the mode at the centre frequency alone) or more (the mode found at \
             that many frequencies across the waveform's band)",
        ));
    }
    Ok(ModeSource {
        index: i,
        axis,
        plane: k as usize,
        mode: s.mode.unwrap_or(0),
        parity,
        forward,
        waveform,
        amplitude: s.amplitude,
        num_freqs,
        n_eff: None,
    })
}

/// The most frequencies one `[[flux]]` or `[[dft]]` table takes (each costs two values per
/// node of its monitor).
const MAX_FREQUENCIES: usize = 100_000;

/// The most cells a mask of active cells holds (one byte each).
const MAX_MASK_CELLS: usize = 1 << 31;

/// The most nodes one `[[sources]]` entry drives (each is a source record of its own).
const MAX_SOURCE_NODES: u64 = 10_000_000;

/// The frequency keys of a `[[flux]]` or `[[dft]]` table: a list, or a band and a count.
struct Band<'a> {
    frequencies: Option<&'a [f64]>,
    fmin: Option<f64>,
    fmax: Option<f64>,
    count: Option<usize>,
}

impl Band<'_> {
    /// The frequencies, checked, normalised (a band spaced between its converted ends).
    fn resolve(&self, r: &Resolver, table: &str) -> Result<Vec<f64>, SceneError> {
        let listed: Vec<f64> = match (self.frequencies, self.fmin, self.fmax) {
            (Some(list), None, None) => list.iter().map(|&f| r.units.frequency(f)).collect(),
            (None, Some(lo), Some(hi)) => {
                let n = self.count.unwrap_or(100);
                if n == 0
                    || n > MAX_FREQUENCIES
                    || !(lo.is_finite() && hi.is_finite() && 0.0 <= lo && lo <= hi)
                {
                    return Err(r.err(
                        table.to_string(),
                        format!(
                            "fmin {lo}, fmax {hi}, count {n}: need 0 ≤ fmin ≤ fmax and \
                             1 ≤ count ≤ {MAX_FREQUENCIES}"
                        ),
                    ));
                }
                // The band's ends converted first, so a scene in lengths and the same scene in
                // cells space their frequencies alike, to the bit.
                let (lo, hi) = (r.units.frequency(lo), r.units.frequency(hi));
                (0..n)
                    .map(|k| {
                        if n == 1 {
                            lo
                        } else {
                            lo + (hi - lo) * k as f64 / (n - 1) as f64
                        }
                    })
                    .collect()
            }
            _ => {
                return Err(r.err(
                    table.to_string(),
                    "give the frequencies as a list (frequencies) or a band (fmin, fmax, count)",
                ));
            }
        };
        if listed.len() > MAX_FREQUENCIES {
            return Err(r.err(
                format!("{table}.frequencies"),
                format!("{} frequencies, more than {MAX_FREQUENCIES}", listed.len()),
            ));
        }
        if listed.is_empty() || listed.iter().any(|x| !(x.is_finite() && *x >= 0.0)) {
            return Err(r.err(
                format!("{table}.frequencies"),
                "need one or more finite, non-negative frequencies",
            ));
        }
        Ok(listed)
    }
}

/// A `[[dft]]` table: its monitor appended to `monitors`, its frequencies (normalised) to
/// `frequencies`.
fn dft_output(
    r: &Resolver,
    i: usize,
    d: &DftSpec,
    monitors: &mut Vec<DftMonitor>,
    frequencies: &mut Vec<f64>,
) -> Result<DftOutput, SceneError> {
    let table = format!("dft[{i}]");
    if !safe_name(&d.name) {
        return Err(r.err(format!("{table}.name"), safe_name_rule(&d.name)));
    }
    let region = cell_box(r, &table, &d.lo, &d.hi, None)?;
    if !Box3::from_extent(r.grid).contains_box(&region) {
        return Err(r.err(table.clone(), format!("the box {region:?} leaves the grid")));
    }
    if d.components.is_empty() {
        return Err(r.err(format!("{table}.components"), "name at least one component"));
    }
    let mut components = [false; 6];
    for &c in &d.components {
        components[r.component(&format!("{table}.components"), c)?.index()] = true;
    }
    let band = Band {
        frequencies: d.frequencies.as_deref(),
        fmin: d.fmin,
        fmax: d.fmax,
        count: d.count,
    };
    let listed = band.resolve(r, &table)?;
    let first = frequencies.len();
    frequencies.extend(&listed);
    monitors.push(DftMonitor {
        region,
        components,
        first,
        count: listed.len(),
    });
    Ok(DftOutput {
        name: d.name.clone(),
        monitor: monitors.len() - 1,
    })
}

/// The most modes one `[[modes]]` table asks for (each is a mode solve per frequency).
const MAX_MODES: usize = 32;

/// A `[[modes]]` table: its monitor (the tangential fields a flux through the same plane
/// needs) appended to `monitors`, its frequencies (normalised) to `frequencies`.
fn mode_monitor(
    r: &Resolver,
    i: usize,
    m: &ModesSpec,
    monitors: &mut Vec<DftMonitor>,
    frequencies: &mut Vec<f64>,
) -> Result<ModeMonitor, SceneError> {
    let table = format!("modes[{i}]");
    let key = |k: &str| format!("{table}.{k}");
    if !safe_name(&m.name) {
        return Err(r.err(key("name"), safe_name_rule(&m.name)));
    }
    let axis = to_axis(m.axis);
    if r.dims() == 1 || axis.index() >= r.dims() {
        return Err(r.err(
            key("axis"),
            format!(
                "{}: a {} scene's modes propagate along {}",
                axis.name(),
                r.mode.name(),
                match r.dims() {
                    1 => "no axis (a 1D scene has no cross-section)",
                    2 => "x or y",
                    _ => "x, y or z",
                }
            ),
        ));
    }
    let x = r.units.length(m.position);
    let k = x.round() as i64;
    if !(x.is_finite() && k >= 1 && k < r.grid[axis.index()] as i64) {
        return Err(r.err(
            key("position"),
            format!(
                "{} must lie inside the grid, a cell or more from its faces",
                m.position
            ),
        ));
    }
    let numbers = m.modes.clone().unwrap_or_else(|| vec![0]);
    if numbers.is_empty() || numbers.len() > MAX_MODES {
        return Err(r.err(
            key("modes"),
            format!("{numbers:?}: list from 1 to {MAX_MODES} mode numbers"),
        ));
    }
    if let Some(&n) = numbers.iter().find(|&&n| n >= MAX_MODES) {
        return Err(r.err(
            key("modes"),
            format!("{n}: mode numbers run from 0 to {}", MAX_MODES - 1),
        ));
    }
    if let Some(w) = numbers.windows(2).find(|w| w[0] >= w[1]) {
        return Err(r.err(
            key("modes"),
            format!(
                "{numbers:?}: list each mode once, increasing ({} then {})",
                w[0], w[1]
            ),
        ));
    }
    let parity = match &m.parity {
        Some(text) => crate::mode_parity::parse(text, axis).map_err(|e| r.err(key("parity"), e))?,
        None => [None; 3],
    };
    let band = Band {
        frequencies: m.frequencies.as_deref(),
        fmin: m.fmin,
        fmax: m.fmax,
        count: m.count,
    };
    let listed = band.resolve(r, &table)?;
    if let Some(&f) = listed.iter().find(|&&f| f <= 0.0) {
        return Err(r.err(
            key("frequencies"),
            format!(
                "{}: a guided mode's frequency is positive",
                r.units.to_scene_frequency(f)
            ),
        ));
    }
    let plane = FluxPlane {
        cells: Box3::from_extent(r.grid)
            .with_bound(axis, Side::Low, k)
            .with_bound(axis, Side::High, k + 1),
        axis,
        normal: Side::High,
    };
    let first = frequencies.len();
    frequencies.extend(&listed);
    monitors.push(plane.monitor(r.mode, r.grid, first, listed.len()));
    Ok(ModeMonitor {
        name: m.name.clone(),
        plane,
        monitor: monitors.len() - 1,
        modes: numbers,
        parity,
    })
}

/// Why a material's tensor `eps` or `mu` cannot be used: an entry not finite, not symmetric
/// (naming the pair), or not positive definite (with its smallest eigenvalue).
fn check_tensor(t: &[[f64; 3]; 3]) -> Result<(), String> {
    use yee_em::tensor::{TensorProblem, check_symmetric_positive};
    check_symmetric_positive(t).map_err(|p| match p {
        TensorProblem::NotFinite => "every entry of the tensor must be finite".to_string(),
        TensorProblem::NotSymmetric(i, j) => format!(
            "the tensor is not symmetric: [{i}][{j}] = {} but [{j}][{i}] = {}",
            t[i][j], t[j][i]
        ),
        TensorProblem::NotPositiveDefinite(low) => format!(
            "the tensor is not positive definite (smallest eigenvalue {low:.6}): a passive \
             medium needs every eigenvalue > 0"
        ),
    })
}
