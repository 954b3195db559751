//! Errors of the core: every variant names the offending value.

use core::fmt;

use crate::pole::{PoleProblem, PoleRule};
use crate::yee::{Component, Mode};
use yee_core::geometry::{Axis, Index3, Side};

/// A simulation description that cannot run.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub enum SetupError {
    /// An active axis has no cells.
    ZeroExtent {
        /// The axis.
        axis: Axis,
    },
    /// An axis has more cells than yee accepts.
    ExtentTooLarge {
        /// The axis.
        axis: Axis,
        /// Its extent.
        extent: usize,
        /// The largest accepted.
        max: usize,
    },
    /// An axis the mode does not use has an extent other than 1.
    UnusedAxisExtent {
        /// The axis.
        axis: Axis,
        /// Its extent.
        extent: usize,
        /// The mode.
        mode: Mode,
    },
    /// The number of cells (times the bytes of six components) overflows.
    TooManyCells {
        /// The grid.
        grid: [usize; 3],
    },
    /// The Courant number is zero, negative or not finite.
    CourantNotPositive {
        /// The value.
        courant: f64,
    },
    /// The Courant number exceeds the stability limit of the mode.
    CourantAboveLimit {
        /// The value.
        courant: f64,
        /// The limit.
        limit: f64,
        /// The mode.
        mode: Mode,
    },
    /// A material parameter is out of range (`region` `None` is the background).
    InvalidMaterial {
        /// Region index, or `None` for the background.
        region: Option<usize>,
        /// "eps", "mu", "sigma" or "sigma_m", or an entry of an anisotropic diagonal
        /// ("eps[1] (y)").
        parameter: &'static str,
        /// The value.
        value: f64,
    },
    /// A material's pole set reaches past the setup's table of poles.
    PolesOutOfRange {
        /// Region index, or `None` for the background.
        region: Option<usize>,
        /// The set's first index.
        first: usize,
        /// Its length.
        count: usize,
        /// The table's length.
        table: usize,
    },
    /// A pole of a material has a parameter out of range or past its stability limit.
    InvalidPole {
        /// Region index, or `None` for the background.
        region: Option<usize>,
        /// The pole's index within the material's poles.
        pole: usize,
        /// "drude", "lorentz" or "debye".
        kind: &'static str,
        /// The parameter, its value and the rule it breaks.
        problem: PoleProblem,
    },
    /// A dispersive material's permittivity at the Nyquist frequency is too small for the
    /// Courant number (the poles take too much at the grid's highest frequency).
    DispersiveCourant {
        /// Region index, or `None` for the background.
        region: Option<usize>,
        /// `ε∞ + Σχₚ` at the Nyquist frequency.
        nyquist: f64,
        /// The least it may be: `d S² / μ`.
        needed: f64,
    },
    /// A general anisotropic material (full ε or μ tensor) with poles: the tensor update has
    /// no polarisation currents.
    TensorWithPoles {
        /// Region index, or `None` for the background.
        region: Option<usize>,
    },
    /// A general anisotropic material (full ε or μ tensor) reaches within two cells of a CPML
    /// layer: the tensor update has no stretched coordinates.
    TensorInCpml {
        /// Region index, or `None` for the background.
        region: Option<usize>,
    },
    /// A material's fastest wave (a scalar `eps`·`mu` below 1, or a tensor's smallest
    /// eigenvalues) breaks the Courant limit: the time step must satisfy
    /// `S ≤ S_max √(λmin(ε) λmin(μ))`.
    MaterialCourant {
        /// Region index, or `None` for the background.
        region: Option<usize>,
        /// The Courant number.
        courant: f64,
        /// The largest one the material allows.
        limit: f64,
    },
    /// A shape parameter is invalid.
    InvalidShape {
        /// Region index.
        region: usize,
        /// The parameter.
        parameter: &'static str,
    },
    /// Only one face of an axis is periodic.
    HalfPeriodic {
        /// The axis.
        axis: Axis,
    },
    /// A Bloch wavevector component is not finite, or non-zero on an axis that is not
    /// periodic.
    InvalidBloch {
        /// The axis.
        axis: Axis,
        /// Its `k` (cycles per cell).
        k: f64,
    },
    /// A Bloch wavevector on fields of a real element type.
    BlochNeedsComplex {
        /// The wavevector (cycles per cell).
        k: [f64; 3],
    },
    /// A CPML parameter is out of range.
    InvalidCpml {
        /// The axis.
        axis: Axis,
        /// The face.
        side: Side,
        /// The parameter.
        parameter: &'static str,
    },
    /// A CPML layer is thicker than half its axis.
    CpmlTooThick {
        /// The axis.
        axis: Axis,
        /// The face.
        side: Side,
        /// Its thickness.
        thickness: usize,
        /// The axis extent.
        extent: usize,
    },
    /// The two CPML layers of an axis overlap.
    CpmlOverlap {
        /// The axis.
        axis: Axis,
        /// Sum of both thicknesses.
        total: usize,
        /// The axis extent.
        extent: usize,
    },
    /// A source or probe names a component the mode does not carry.
    ComponentNotInMode {
        /// "source" or "probe".
        what: &'static str,
        /// Its index.
        index: usize,
        /// The component.
        component: Component,
        /// The mode.
        mode: Mode,
    },
    /// A source or probe lies outside the grid.
    OutsideGrid {
        /// "source" or "probe".
        what: &'static str,
        /// Its index.
        index: usize,
        /// Its cell.
        cell: Index3,
        /// The grid.
        grid: [usize; 3],
    },
    /// A waveform parameter is invalid.
    InvalidWaveform {
        /// Source index.
        source: usize,
        /// The parameter.
        parameter: &'static str,
    },
    /// A source amplitude is not finite.
    InvalidAmplitude {
        /// Source index.
        source: usize,
        /// The value.
        value: f64,
    },
    /// The mask of active cells has a length other than the grid's cell count.
    MaskLength {
        /// Values in the mask.
        mask: usize,
        /// Cells of the grid.
        cells: usize,
    },
    /// The mask leaves no cell active.
    MaskEmpty,
    /// A source drives a node of an inactive cell (it would never be computed).
    SourceInactive {
        /// Source index.
        source: usize,
        /// Its cell.
        cell: Index3,
    },
    /// A plane wave's parameter is out of range.
    InvalidPlaneWave {
        /// Plane wave index.
        wave: usize,
        /// What is wrong.
        parameter: &'static str,
    },
    /// A node next to a plane wave's total-field surface is not plain background (a region,
    /// a CPML layer or a masked cell): the incident wave would not solve the update there.
    PlaneWaveSurface {
        /// Plane wave index.
        wave: usize,
        /// The component of the node.
        component: Component,
        /// Its cell.
        cell: Index3,
        /// "a material region", "a CPML layer" or "an inactive cell".
        what: &'static str,
    },
    /// A DFT monitor's parameter is out of range.
    InvalidMonitor {
        /// Monitor index.
        monitor: usize,
        /// What is wrong.
        parameter: &'static str,
    },
}

impl fmt::Display for SetupError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use SetupError::*;
        match *self {
            ZeroExtent { axis } => write!(
                f,
                "grid extent along {} is 0; it must be at least 1",
                axis.name()
            ),
            ExtentTooLarge { axis, extent, max } => {
                write!(
                    f,
                    "grid extent along {} is {extent}, above the limit {max}",
                    axis.name()
                )
            }
            UnusedAxisExtent { axis, extent, mode } => write!(
                f,
                "grid extent along {} is {extent}, but mode {} does not use that axis (it must be 1)",
                axis.name(),
                mode.name()
            ),
            TooManyCells { grid } => write!(f, "grid {grid:?} has too many cells to address"),
            CourantNotPositive { courant } => {
                write!(f, "Courant number {courant} must be positive and finite")
            }
            CourantAboveLimit {
                courant,
                limit,
                mode,
            } => write!(
                f,
                "Courant number {courant} is above the stability limit {limit:.6} of mode {}",
                mode.name()
            ),
            InvalidMaterial {
                region,
                parameter,
                value,
            } => {
                let rule = match parameter {
                    p if p.starts_with("eps") || p.starts_with("mu") => {
                        "must be positive and finite"
                    }
                    _ => "must be non-negative and finite",
                };
                match region {
                    Some(r) => write!(f, "region {r}: material {parameter} = {value} {rule}"),
                    None => write!(f, "background material {parameter} = {value} {rule}"),
                }
            }
            PolesOutOfRange {
                region,
                first,
                count,
                table,
            } => {
                material(f, region)?;
                write!(
                    f,
                    " names poles {first}..{} of a table of {table}",
                    first.saturating_add(count)
                )
            }
            InvalidPole {
                region,
                pole,
                kind,
                problem,
            } => {
                material(f, region)?;
                let PoleProblem {
                    parameter, value, ..
                } = problem;
                write!(f, ": pole {pole} ({kind}) {parameter} = {value} ")?;
                match problem.rule {
                    PoleRule::Positive => write!(f, "must be positive and finite"),
                    PoleRule::NonNegative => write!(f, "must be non-negative and finite"),
                    PoleRule::OmegaDt { omega_dt } => write!(
                        f,
                        "gives ω₀Δt = 2π·frequency·Δt = {omega_dt:.4}, at or above the limit 2 \
                         of the explicit Lorentz update: lower the frequency or the time step"
                    ),
                }
            }
            TensorWithPoles { region } => {
                material(f, region)?;
                write!(
                    f,
                    ": a full `eps` or `mu` tensor (off-diagonal entries) cannot have poles: \
                     the tensor update carries no polarisation currents"
                )
            }
            TensorInCpml { region } => {
                material(f, region)?;
                write!(
                    f,
                    ": a full `eps` or `mu` tensor (off-diagonal entries) reaches within two \
                     cells of a CPML layer, where the tensor update has no stretched \
                     coordinates: keep the material clear of the layers (a periodic axis or a \
                     wider grid)"
                )
            }
            MaterialCourant {
                region,
                courant,
                limit,
            } => {
                material(f, region)?;
                write!(
                    f,
                    ": its `eps` and `mu` let light travel at 1/√(λmin(ε)λmin(μ)) of its speed \
                     in vacuum, so the Courant number {courant} must be at most {limit:.6}: \
                     lower `courant`"
                )
            }
            DispersiveCourant {
                region,
                nyquist,
                needed,
            } => {
                material(f, region)?;
                write!(
                    f,
                    ": its poles leave a permittivity ε∞ + Σχ = {nyquist:.4} at the Nyquist \
                     frequency 1/(2Δt), below the limit {needed:.4} (dimensions × Courant² / μ) \
                     the update needs to stay stable: lower the pole strengths or the time step"
                )
            }
            InvalidShape { region, parameter } => {
                write!(f, "region {region}: shape parameter {parameter} is invalid")
            }
            HalfPeriodic { axis } => write!(
                f,
                "axis {} is periodic on one face only; both faces must be periodic",
                axis.name()
            ),
            InvalidBloch { axis, k } => write!(
                f,
                "Bloch wavevector k = {k} on axis {}: it must be finite, and non-zero only on a \
                 periodic axis",
                axis.name()
            ),
            BlochNeedsComplex { k } => write!(
                f,
                "Bloch wavevector k = {k:?} needs complex fields (value type c32 or c64): a \
                 real field cannot carry the phase e^(i 2π k·L)"
            ),
            InvalidCpml {
                axis,
                side,
                parameter,
            } => write!(
                f,
                "CPML on the {} {} face: parameter {parameter} is out of range",
                side.name(),
                axis.name()
            ),
            CpmlTooThick {
                axis,
                side,
                thickness,
                extent,
            } => write!(
                f,
                "CPML on the {} {} face is {thickness} cells thick, more than half the {extent} cells of the axis",
                side.name(),
                axis.name()
            ),
            CpmlOverlap {
                axis,
                total,
                extent,
            } => write!(
                f,
                "CPML layers along {} are {total} cells thick together, more than the {extent} cells of the axis",
                axis.name()
            ),
            ComponentNotInMode {
                what,
                index,
                component,
                mode,
            } => write!(
                f,
                "{what} {index}: component {} does not exist in mode {}",
                component.name(),
                mode.name()
            ),
            OutsideGrid {
                what,
                index,
                cell,
                grid,
            } => {
                write!(
                    f,
                    "{what} {index}: cell {cell:?} lies outside the grid {grid:?}"
                )
            }
            InvalidWaveform { source, parameter } => {
                write!(
                    f,
                    "source {source}: waveform parameter {parameter} is invalid"
                )
            }
            InvalidAmplitude { source, value } => {
                write!(f, "source {source}: amplitude {value} is not finite")
            }
            MaskLength { mask, cells } => write!(
                f,
                "the mask of active cells has {mask} values for a grid of {cells} cells"
            ),
            MaskEmpty => write!(f, "the mask leaves no cell active"),
            SourceInactive { source, cell } => write!(
                f,
                "source {source}: cell {cell:?} is inactive (masked out), so it is never computed"
            ),
            InvalidPlaneWave { wave, parameter } => {
                write!(f, "plane wave {wave}: invalid {parameter}")
            }
            PlaneWaveSurface {
                wave,
                component,
                cell,
                what,
            } => write!(
                f,
                "plane wave {wave}: the {} node of cell {cell:?} next to the total-field \
                 surface lies in {what}; the surface must run through the background \
                 material, clear of CPML and masks (move the box or the object)",
                component.name()
            ),
            InvalidMonitor { monitor, parameter } => {
                write!(f, "DFT monitor {monitor}: invalid {parameter}")
            }
        }
    }
}

impl core::error::Error for SetupError {}

/// "region r: material" or "background material".
fn material(f: &mut fmt::Formatter<'_>, region: Option<usize>) -> fmt::Result {
    match region {
        Some(r) => write!(f, "region {r}: material"),
        None => write!(f, "background material"),
    }
}
