//! The scene file as written: TOML tables read with serde. Every key is documented in
//! `docs/scene.md`; unknown keys are errors.

use std::collections::BTreeMap;

use serde::Deserialize;

/// A whole scene file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SceneSpec {
    /// Name of the scene (default: the file name without extension).
    pub name: Option<String>,
    /// Unit system.
    #[serde(default)]
    pub units: UnitsSpec,
    /// Grid, mode, value type and Courant number.
    pub grid: GridSpec,
    /// Face boundaries.
    #[serde(default)]
    pub boundaries: BoundariesSpec,
    /// Named materials.
    #[serde(default)]
    pub materials: BTreeMap<String, MaterialSpec>,
    /// The material filling space where no geometry applies (default "vacuum").
    pub background: Option<String>,
    /// Shapes in order; later ones on top.
    #[serde(default)]
    pub geometry: Vec<GeometrySpec>,
    /// Point sources.
    #[serde(default)]
    pub sources: Vec<SourceSpec>,
    /// Probes.
    #[serde(default)]
    pub probes: Vec<ProbeSpec>,
    /// TF/SF plane waves.
    #[serde(default)]
    pub plane_waves: Vec<PlaneWaveSpec>,
    /// Flux regions (DFT monitors).
    #[serde(default)]
    pub flux: Vec<FluxSpec>,
    /// DFT field outputs.
    #[serde(default)]
    pub dft: Vec<DftSpec>,
    /// Mode monitors: waveguide mode amplitudes through a plane.
    #[serde(default)]
    pub modes: Vec<ModesSpec>,
    /// Harmonic inversion of probe records at the end of the run.
    #[serde(default)]
    pub resonances: Vec<ResonancesSpec>,
    /// What to write.
    #[serde(default)]
    pub output: OutputSpec,
    /// How long to run.
    pub run: RunSpec,
    /// Relative cell costs for load balancing.
    #[serde(default)]
    pub costs: CostsSpec,
    /// Images of active cells and the tile size of irregular partitions.
    #[serde(default)]
    pub mask: MaskSpec,
    /// Subpixel smoothing of curved interfaces (default true: Kottke's full tensor; false
    /// staircases them; "diagonal" keeps the tensor's diagonal alone).
    pub smoothing: Option<SmoothingSpec>,
    /// A band structure for `yee bands`: the k-points and the band searched.
    pub bands: Option<BandsSpec>,
    /// A B-scan: the scene run once per trace with its sources and receivers moved.
    pub scan: Option<ScanSpec>,
}

/// `[scan]`: gprMax's `#src_steps` and `#rx_steps` — the scene runs `count` times, trace `k`
/// with every source moved by `k × src_steps` and every receiver by `k × rx_steps`
/// (docs/scene.md, "Scans").
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScanSpec {
    /// How many traces.
    pub count: usize,
    /// The sources' displacement from one trace to the next (scene lengths, one number per
    /// axis of the mode; whole cells). Default: they stay.
    pub src_steps: Option<Vec<f64>>,
    /// The receivers' displacement from one trace to the next. Default: they stay.
    pub rx_steps: Option<Vec<f64>>,
    /// The `[[probes]]` names that are receivers (default: every probe).
    pub receivers: Option<Vec<String>>,
}

/// `[bands]`: what `yee bands` computes (docs/bands.md).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BandsSpec {
    /// The corners of the k-path (or the k-points themselves with `points = 0`), each as many
    /// numbers as the mode has axes, in cycles per lattice constant.
    pub path: Vec<Vec<f64>>,
    /// A name per corner (e.g. "Γ", "X", "M", "Γ").
    pub labels: Option<Vec<String>>,
    /// k-points inserted between consecutive corners (default 0).
    #[serde(default)]
    pub points: usize,
    /// `[fmin, fmax]` searched (scene frequency units).
    pub band: Vec<f64>,
    /// Probe samples before this time (scene units) are left out: the source must be off.
    pub after: f64,
    /// The lattice constant `a` (scene length) the path is measured in (default 1).
    pub lattice_constant: Option<f64>,
}

/// `[mask]`: images of the active cells (light = active) and the tile extent.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MaskSpec {
    /// 2D: one PNG of grid width × height pixels, top row = highest y.
    pub image: Option<String>,
    /// 3D: one PNG per z plane, lowest z first.
    pub images: Option<Vec<String>>,
    /// Tile extent in cells along each used axis (default 8).
    pub tile: Option<Vec<usize>>,
}

/// `[costs]`: the work of cell kinds relative to a plain vacuum cell.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CostsSpec {
    /// A cell inside a CPML layer (default 1.86, Franek 2016).
    #[serde(default = "default_cpml_cost")]
    pub cpml: f64,
    /// Extra work of a source cell (default 1).
    #[serde(default = "one")]
    pub source: f64,
    /// Extra work of a probe cell (default 1).
    #[serde(default = "one")]
    pub probe: f64,
    /// Extra work of a dispersive cell, whatever its poles (default 0.6, measured).
    #[serde(default = "default_dispersive_cell")]
    pub dispersive_cell: f64,
    /// Extra work per pole of a dispersive cell (default 0.4, measured).
    #[serde(default = "default_dispersive_pole")]
    pub dispersive_pole: f64,
}

impl Default for CostsSpec {
    fn default() -> Self {
        CostsSpec {
            cpml: default_cpml_cost(),
            source: 1.0,
            probe: 1.0,
            dispersive_cell: default_dispersive_cell(),
            dispersive_pole: default_dispersive_pole(),
        }
    }
}

fn default_dispersive_cell() -> f64 {
    yee_em::Costs::default().dispersive_cell
}

fn default_dispersive_pole() -> f64 {
    yee_em::Costs::default().dispersive_pole
}

fn default_cpml_cost() -> f64 {
    1.86
}

/// `[units]`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UnitsSpec {
    /// "normalised" (default) or "si".
    #[serde(default)]
    pub system: UnitSystem,
    /// Cell size in metres ("si": this or `resolution`; grid and CPML then in cells).
    pub cell_size: Option<f64>,
    /// Cells per length unit (per `a`, or per metre in "si"): every length of the scene,
    /// the grid's size and the CPML's thickness too, is then a length.
    pub resolution: Option<f64>,
}

/// The unit system of lengths, times, frequencies and conductivities in the scene.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum UnitSystem {
    /// c = 1, cell size 1.
    #[default]
    #[serde(alias = "normalized")]
    Normalised,
    /// Metres, seconds, hertz, siemens per metre.
    Si,
}

/// `[grid]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GridSpec {
    /// "1d", "tmz", "tez" or "3d".
    pub mode: ModeSpec,
    /// Cells along each used axis (lengths with `[units] resolution`): 1, 2 or 3 numbers.
    pub size: Vec<f64>,
    /// "f32", "f64" (default), "c32" or "c64".
    #[serde(default)]
    pub value_type: ValueType,
    /// Courant number (default 0.99 × the mode's limit).
    pub courant: Option<f64>,
}

/// The mode names of scene files.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
pub enum ModeSpec {
    /// 1D.
    #[serde(rename = "1d")]
    OneD,
    /// 2D TMz.
    #[serde(rename = "tmz")]
    Tmz,
    /// 2D TEz.
    #[serde(rename = "tez")]
    Tez,
    /// 3D.
    #[serde(rename = "3d")]
    ThreeD,
}

/// The element type of the fields.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ValueType {
    /// Single precision.
    F32,
    /// Double precision.
    #[default]
    F64,
    /// Complex single precision.
    C32,
    /// Complex double precision.
    C64,
}

impl ValueType {
    /// Name as in scene files.
    pub fn name(self) -> &'static str {
        match self {
            ValueType::F32 => "f32",
            ValueType::F64 => "f64",
            ValueType::C32 => "c32",
            ValueType::C64 => "c64",
        }
    }

    /// Bytes of one value.
    pub fn bytes(self) -> usize {
        match self {
            ValueType::F32 => 4,
            ValueType::F64 | ValueType::C32 => 8,
            ValueType::C64 => 16,
        }
    }
}

/// `[boundaries]`: `all` sets every face, `x`/`y`/`z` both faces of an axis, `x_low` … one face.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BoundariesSpec {
    /// Every face.
    pub all: Option<BoundaryKind>,
    /// Both x faces.
    pub x: Option<BoundaryKind>,
    /// Both y faces.
    pub y: Option<BoundaryKind>,
    /// Both z faces.
    pub z: Option<BoundaryKind>,
    /// Low x face.
    pub x_low: Option<BoundaryKind>,
    /// High x face.
    pub x_high: Option<BoundaryKind>,
    /// Low y face.
    pub y_low: Option<BoundaryKind>,
    /// High y face.
    pub y_high: Option<BoundaryKind>,
    /// Low z face.
    pub z_low: Option<BoundaryKind>,
    /// High z face.
    pub z_high: Option<BoundaryKind>,
    /// Parameters of every CPML face.
    #[serde(default)]
    pub cpml: CpmlSpec,
    /// The Bloch wavevector on the periodic axes, one number per axis of the mode, in cycles
    /// per scene length unit (Meep's `k_point`: the fields one period `L` apart differ by
    /// `e^{i 2π k·L}`). Needs a complex value type.
    pub k: Option<Vec<f64>>,
}

/// A face boundary.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BoundaryKind {
    /// Perfect electric conductor.
    Pec,
    /// Perfect magnetic conductor.
    Pmc,
    /// Periodic.
    Periodic,
    /// Convolutional PML.
    Cpml,
}

/// `[boundaries.cpml]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CpmlSpec {
    /// Thickness in cells, or a length with `[units] resolution` (default 10 cells).
    pub thickness: Option<f64>,
    /// Grading order m (default 3).
    #[serde(default = "default_order")]
    pub order: f64,
    /// Peak σ in normalised units (default 0.8 (m + 1)).
    pub sigma_max: Option<f64>,
    /// Peak κ (default 1).
    #[serde(default = "one")]
    pub kappa_max: f64,
    /// Peak α in normalised units (default [`default_alpha`] of the mode).
    pub alpha_max: Option<f64>,
}

impl Default for CpmlSpec {
    fn default() -> Self {
        CpmlSpec {
            thickness: None,
            order: default_order(),
            sigma_max: None,
            kappa_max: 1.0,
            alpha_max: None,
        }
    }
}

fn default_order() -> f64 {
    3.0
}
/// The default peak α of a `mode` grid: 0.05 in 2D and 3D, where it absorbs evanescent waves
/// and gave the lowest reflection in the CPML validation test; 0 in 1D, where every wave is
/// propagating at normal incidence and α > 0 only keeps the stretch `1 + σ/(α + iω)` real
/// below ω ≈ α, so that a pulse's DC part lingered (a slab's R + T − 1 of 4.9e-4 with a
/// Gaussian of f₀w = 0.36 against 7e-6 with α = 0, issue 51).
pub fn default_alpha(mode: yee_em::Mode) -> f64 {
    match mode {
        yee_em::Mode::OneD => 0.0,
        _ => 0.05,
    }
}
fn one() -> f64 {
    1.0
}

fn isotropic_one() -> Diagonal {
    Diagonal::Isotropic(1.0)
}

/// A material parameter that may be anisotropic: one number, one per axis, or a full 3×3
/// tensor (rows first).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Diagonal {
    /// The same along every axis.
    Isotropic(f64),
    /// Along x, y, z.
    Axes([f64; 3]),
    /// A full tensor `[[xx, xy, xz], [yx, yy, yz], [zx, zy, zz]]` (checked symmetric and
    /// positive definite when resolved).
    Tensor([[f64; 3]; 3]),
}

/// The `smoothing` key: on or off, or the name of a rule ("diagonal").
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub enum SmoothingSpec {
    /// `true` (Kottke's full effective tensor) or `false` (staircase).
    On(bool),
    /// A rule by name: "diagonal" (the effective tensor's diagonal, as a backend without the
    /// tensor update runs it).
    Rule(String),
}

/// An entry of a material parameter's list: a number (of `[x, y, z]`) or a row (of a tensor).
#[derive(Deserialize)]
#[serde(untagged)]
enum Entry {
    Number(f64),
    Row(Vec<f64>),
}

impl<'de> Deserialize<'de> for Diagonal {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = Diagonal;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a number, [x, y, z] or [[xx, xy, xz], [yx, yy, yz], [zx, zy, zz]]")
            }
            fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Diagonal, E> {
                Ok(Diagonal::Isotropic(v))
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Diagonal, E> {
                Ok(Diagonal::Isotropic(v as f64))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Diagonal, E> {
                Ok(Diagonal::Isotropic(v as f64))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<Diagonal, A::Error> {
                let mut entries = Vec::new();
                while let Some(v) = seq.next_element::<Entry>()? {
                    entries.push(v);
                }
                let expected = &"a number, [x, y, z] or three rows of three";
                let numbers: Vec<f64> = entries
                    .iter()
                    .filter_map(|e| match e {
                        Entry::Number(v) => Some(*v),
                        Entry::Row(_) => None,
                    })
                    .collect();
                let rows: Vec<[f64; 3]> = entries
                    .iter()
                    .filter_map(|e| match e {
                        Entry::Row(r) => <[f64; 3]>::try_from(r.as_slice()).ok(),
                        Entry::Number(_) => None,
                    })
                    .collect();
                if numbers.len() == entries.len() {
                    return <[f64; 3]>::try_from(numbers.as_slice())
                        .map(Diagonal::Axes)
                        .map_err(|_| serde::de::Error::invalid_length(numbers.len(), expected));
                }
                <[[f64; 3]; 3]>::try_from(rows.as_slice())
                    .ok()
                    .filter(|_| rows.len() == entries.len())
                    .map(Diagonal::Tensor)
                    .ok_or_else(|| serde::de::Error::invalid_length(entries.len(), expected))
            }
        }
        d.deserialize_any(Visitor)
    }
}

/// `[materials.NAME]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MaterialSpec {
    /// Relative permittivity: one number, `[εx, εy, εz]` for a diagonally anisotropic
    /// material, or a symmetric 3×3 tensor `[[εxx, εxy, εxz], …]` (default 1).
    #[serde(default = "isotropic_one")]
    pub eps: Diagonal,
    /// Relative permeability: one number, `[μx, μy, μz]` or a symmetric 3×3 tensor (default 1).
    #[serde(default = "isotropic_one")]
    pub mu: Diagonal,
    /// Electric conductivity (default 0; S/m in SI scenes).
    #[serde(default)]
    pub sigma: f64,
    /// Magnetic conductivity (default 0; Ω/m in SI scenes).
    #[serde(default)]
    pub sigma_m: f64,
    /// Dispersive poles; `eps` is then ε∞ (default none).
    #[serde(default)]
    pub poles: Vec<PoleSpec>,
}

/// One entry of `poles` in `[materials.NAME]`, by `kind` (docs/scene.md, "Dispersive
/// materials"). Frequencies are ordinary frequencies (Hz in SI scenes), τ a time.
#[derive(Clone, Copy, Debug, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase", deny_unknown_fields)]
pub enum PoleSpec {
    /// `ε += σ ω₀² / (−ω² − iωγ)`, ω₀ = 2π·frequency, γ = 2π·gamma.
    Drude {
        /// ω₀/2π.
        frequency: f64,
        /// γ/2π (default 0).
        #[serde(default)]
        gamma: f64,
        /// Strength σ (default 1: then ω₀ is the plasma frequency).
        #[serde(default = "one")]
        sigma: f64,
    },
    /// `ε += σ ω₀² / (ω₀² − ω² − iωγ)`.
    Lorentz {
        /// ω₀/2π, the resonance.
        frequency: f64,
        /// γ/2π (default 0).
        #[serde(default)]
        gamma: f64,
        /// Strength σ (the static Δε).
        sigma: f64,
    },
    /// `ε += Δε / (1 − iωτ)`.
    Debye {
        /// Δε.
        delta_eps: f64,
        /// Relaxation time τ.
        tau: f64,
    },
}

/// `[[geometry]]`: a shape filled with a material.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GeometrySpec {
    /// "box", "sphere" or "cylinder".
    pub shape: ShapeKind,
    /// Name of a material (or "vacuum").
    pub material: String,
    /// Box: lower corner.
    pub lo: Option<Vec<f64>>,
    /// Box: upper corner.
    pub hi: Option<Vec<f64>>,
    /// Sphere, cylinder: centre.
    pub center: Option<Vec<f64>>,
    /// Sphere, cylinder: radius.
    pub radius: Option<f64>,
    /// Cylinder: axis "x", "y" or "z" (default "z").
    pub axis: Option<AxisName>,
    /// Cylinder: length (default infinite).
    pub length: Option<f64>,
}

/// Shape names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ShapeKind {
    /// Axis-aligned box.
    Box,
    /// Sphere (a disc in 2D).
    Sphere,
    /// Cylinder.
    Cylinder,
}

/// Axis names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AxisName {
    /// x.
    X,
    /// y.
    Y,
    /// z.
    Z,
}

/// Component names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ComponentName {
    /// Ex.
    Ex,
    /// Ey.
    Ey,
    /// Ez.
    Ez,
    /// Hx.
    Hx,
    /// Hy.
    Hy,
    /// Hz.
    Hz,
}

/// What a snapshot can hold: a field component or one of the geometry's quantities.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OutputName {
    /// Ex.
    Ex,
    /// Ey.
    Ey,
    /// Ez.
    Ez,
    /// Hx.
    Hx,
    /// Hy.
    Hy,
    /// Hz.
    Hz,
    /// Relative permittivity at cell centres.
    Eps,
    /// Relative permeability at cell centres.
    Mu,
    /// Electric conductivity at cell centres.
    Sigma,
    /// Magnetic conductivity at cell centres.
    SigmaM,
    /// Material number at cell centres.
    Material,
    /// 1 for computed cells, 0 for masked ones.
    Mask,
}

/// `[[sources]]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SourceSpec {
    /// The component driven (soft and hard sources).
    pub component: Option<ComponentName>,
    /// Position (1, 2 or 3 numbers); the node of the cell containing it is driven. A mode
    /// source: the plane's coordinate along `axis` (one number).
    pub position: Option<SourcePosition>,
    /// A mode source: the plane's normal, the direction of propagation.
    pub axis: Option<AxisName>,
    /// A mode source: the mode, numbered from 0 by decreasing effective index as `yee modes`
    /// numbers them (default 0).
    pub mode: Option<usize>,
    /// A mode source: "+" (along increasing coordinate) or "-".
    pub direction: Option<String>,
    /// A mode source: the mirror parity of the mode (`"odd_y"`, `"even_y+odd_z"`, …,
    /// [`crate::mode_parity`]); `mode` then counts the modes of that parity.
    pub parity: Option<String>,
    /// A mode source: the number of frequencies across the waveform's band at which the mode
    /// is found and whose profiles the injected currents carry (default 1: the centre
    /// frequency's alone; Tidy3D's `ModeSource.num_freqs`).
    pub num_freqs: Option<usize>,
    /// A line, plane or box of nodes instead of a point: low corner...
    pub lo: Option<Vec<f64>>,
    /// ...and high corner (equal to `lo` on the axes the source does not extend along).
    pub hi: Option<Vec<f64>>,
    /// "gaussian", "ricker" or "sinusoid".
    pub waveform: WaveformKind,
    /// Frequency (carrier for gaussian, peak for ricker).
    pub frequency: Option<f64>,
    /// Centre time (gaussian, ricker).
    pub delay: Option<f64>,
    /// Envelope standard deviation in time (gaussian).
    pub width: Option<f64>,
    /// Phase in radians (sinusoid, default 0).
    pub phase: Option<f64>,
    /// Ramp duration (sinusoid, default 0).
    pub ramp: Option<f64>,
    /// Amplitude (default 1).
    #[serde(default = "one")]
    pub amplitude: f64,
    /// "soft" (default), "hard" or "mode".
    #[serde(default)]
    pub kind: SourceKindName,
}

/// A source's `position`: a point, or a mode source's coordinate along its axis.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub enum SourcePosition {
    /// One number: a mode source's plane.
    Along(f64),
    /// 1, 2 or 3 numbers: a point.
    Point(Vec<f64>),
}

/// `[[plane_waves]]`: a plane wave along an axis, injected on the surface of a total-field box.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlaneWaveSpec {
    /// Low corner of the total-field box (scene units).
    pub lo: Vec<f64>,
    /// High corner of the total-field box (scene units).
    pub hi: Vec<f64>,
    /// "+x", "-x", "+y", "-y", "+z" or "-z", or a vector (oblique incidence).
    pub direction: DirectionSpec,
    /// The direction of E: three numbers, perpendicular to the direction of travel.
    pub polarization: Vec<f64>,
    /// "gaussian", "ricker" or "sinusoid".
    pub waveform: WaveformKind,
    /// Frequency (carrier for gaussian, peak for ricker).
    pub frequency: Option<f64>,
    /// Centre time (gaussian, ricker), where the wave enters the box.
    pub delay: Option<f64>,
    /// Envelope standard deviation in time (gaussian).
    pub width: Option<f64>,
    /// Phase in radians (sinusoid, default 0).
    pub phase: Option<f64>,
    /// Ramp duration (sinusoid, default 0).
    pub ramp: Option<f64>,
    /// Peak incident E (default 1).
    #[serde(default = "one")]
    pub amplitude: f64,
}

/// `[[dft]]`: running Fourier transforms of components over a box, written at the end.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DftSpec {
    /// Name used in the file name.
    pub name: String,
    /// Components transformed.
    pub components: Vec<ComponentName>,
    /// Low corner (scene units, on cell boundaries).
    pub lo: Vec<f64>,
    /// High corner.
    pub hi: Vec<f64>,
    /// Listed frequencies (scene units)...
    pub frequencies: Option<Vec<f64>>,
    /// ...or a band: lowest,
    pub fmin: Option<f64>,
    /// highest,
    pub fmax: Option<f64>,
    /// and how many (default 100).
    pub count: Option<usize>,
}

/// A direction of travel: an axis and sense, or a vector.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub enum DirectionSpec {
    /// "+x" … "-z".
    Axis(String),
    /// Components along x, y, z (those the mode uses).
    Vector(Vec<f64>),
}

/// `[[flux]]`: Poynting flux spectra through a plane (`axis` and `position`) or out of a closed
/// box (`lo` and `hi` without `axis`).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FluxSpec {
    /// Name used in file names.
    pub name: String,
    /// A plane: its normal axis (flux counted along increasing coordinates).
    pub axis: Option<AxisName>,
    /// A plane: its coordinate along `axis` (scene units; rounded to the nearest node plane).
    pub position: Option<f64>,
    /// Low corner of the box, or of the plane's extent (default the grid's).
    pub lo: Option<Vec<f64>>,
    /// High corner of the box, or of the plane's extent.
    pub hi: Option<Vec<f64>>,
    /// Listed frequencies (scene units)...
    pub frequencies: Option<Vec<f64>>,
    /// ...or a band: lowest,
    pub fmin: Option<f64>,
    /// highest,
    pub fmax: Option<f64>,
    /// and how many (default 100).
    pub count: Option<usize>,
    /// The `flux_<name>_dft.npy` of an earlier run (relative to the scene file) whose fields
    /// are subtracted before the flux is taken: the incident run of a reflection measurement.
    pub minus: Option<String>,
    /// A closed box in a 3D vacuum scene: the far field by surface equivalence, on this many
    /// polar and azimuthal directions `[n_theta, n_phi]`.
    pub far_field: Option<Vec<usize>>,
    /// With `far_field`: the frequencies (scene units) its plot draws, each the nearest of the
    /// region's (default: all up to ten, else ten spread over the band).
    pub plot_frequencies: Option<Vec<f64>>,
}

/// `[[modes]]`: the forward and backward amplitudes of a waveguide's modes through a plane
/// (docs/modes.md).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModesSpec {
    /// Name used in file names.
    pub name: String,
    /// The plane's normal, the direction of propagation (forward: increasing coordinate).
    pub axis: AxisName,
    /// The plane's coordinate along `axis` (scene units; rounded to the nearest node plane).
    pub position: f64,
    /// The modes, numbered from 0 by decreasing effective index as `yee modes` numbers them
    /// (default `[0]`).
    pub modes: Option<Vec<usize>>,
    /// The mirror parity of the modes ([`crate::mode_parity`]); `modes` then counts the modes
    /// of that parity.
    pub parity: Option<String>,
    /// Listed frequencies (scene units)...
    pub frequencies: Option<Vec<f64>>,
    /// ...or a band: lowest,
    pub fmin: Option<f64>,
    /// highest,
    pub fmax: Option<f64>,
    /// and how many (default 100).
    pub count: Option<usize>,
}

/// Waveform names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum WaveformKind {
    /// Gaussian pulse, optionally modulated.
    Gaussian,
    /// Ricker wavelet.
    Ricker,
    /// Ramped sinusoid.
    Sinusoid,
}

/// Source kinds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SourceKindName {
    /// Adds a current.
    #[default]
    Soft,
    /// Overwrites the field.
    Hard,
    /// Launches a waveguide mode one way: its E and H as currents on a plane (docs/modes.md).
    Mode,
}

/// `[[probes]]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProbeSpec {
    /// Name used in the file name (default "probeN").
    pub name: Option<String>,
    /// The component recorded.
    pub component: ComponentName,
    /// Position (1, 2 or 3 numbers).
    pub position: Vec<f64>,
}

/// `[output]`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OutputSpec {
    /// PNG slices.
    #[serde(default)]
    pub slices: Vec<SliceSpec>,
    /// Whole-field snapshots.
    pub snapshots: Option<SnapshotSpec>,
}

/// `[[output.slices]]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SliceSpec {
    /// The component drawn.
    pub component: ComponentName,
    /// Write one every this many steps (and at the last step).
    pub every: u64,
    /// 3D only: the axis normal to the slice (default "z").
    pub axis: Option<AxisName>,
    /// 3D only: the slice's coordinate along `axis` (default the middle).
    pub position: Option<f64>,
    /// Fixed colour limits `[lo, hi]` for every image (default: each image's own).
    pub limits: Option<[f64; 2]>,
    /// Draw the material outlines and masked cells over the field (default true).
    pub outlines: Option<bool>,
}

/// `[output.snapshots]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SnapshotSpec {
    /// Components and geometry quantities written.
    pub components: Vec<OutputName>,
    /// Write one every this many steps (0: only at the last step).
    #[serde(default)]
    pub every: u64,
    /// Formats: "npy", "vti", "hdf5" (default npy and vti).
    pub formats: Option<Vec<SnapshotFormat>>,
    /// How `.vti` arrays are stored: "none" (default) or "zlib".
    #[serde(default)]
    pub compression: VtiCompression,
}

/// `.vti` storage.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum VtiCompression {
    /// Raw bytes.
    #[default]
    None,
    /// zlib blocks.
    Zlib,
}

/// Whole-field formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SnapshotFormat {
    /// NumPy `.npy`.
    Npy,
    /// VTK XML image data `.vti`.
    Vti,
    /// HDF5: every snapshot, probe and flux spectrum of the run in one `fields.h5` (needs a yee
    /// built with the `hdf5` feature).
    Hdf5,
}

/// `[run]`: exactly one of `steps` or `time`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunSpec {
    /// Number of steps.
    pub steps: Option<u64>,
    /// Duration (scene time units); rounded up to whole steps.
    pub time: Option<f64>,
    /// End the run earlier, when the fields at a point have decayed.
    pub until_decayed: Option<DecaySpec>,
}

/// `[[resonances]]`: the modes of one or a few probes' records (harmonic inversion).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResonancesSpec {
    /// Names the file `resonances_<name>.csv`.
    pub name: String,
    /// `[[probes]]` names: one, or a few whose records are summed.
    pub probes: Vec<String>,
    /// `[fmin, fmax]` (scene frequency units).
    pub band: Vec<f64>,
    /// Samples before this time (scene units) are left out (default 0).
    pub after: Option<f64>,
}

/// `[run] until_decayed`: Meep's `stop_when_fields_decayed`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DecaySpec {
    /// The name of a `[[probes]]` entry, or a position (then sampled as the probe
    /// `until_decayed`).
    pub probe: ProbeRef,
    /// The component: required with a position; with a probe's name, its component.
    pub component: Option<ComponentName>,
    /// The run ends at a check whose interval's largest |field|² is at most this times the
    /// largest seen.
    pub factor: f64,
    /// Time (scene units) before which nothing is checked (default 0).
    pub after: Option<f64>,
    /// Time between checks (scene units); both rounded up to whole steps.
    pub every: f64,
}

/// A probe by name, or a point.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub enum ProbeRef {
    /// A `[[probes]]` name.
    Name(String),
    /// A position (1, 2 or 3 numbers).
    Position(Vec<f64>),
}
