//! Why a cross-section has no modes to give.

use yee_core::geometry::Axis;

/// Why [`crate::solve`] or [`crate::CrossSection::of_setup`] failed.
#[derive(Clone, Debug, PartialEq)]
pub enum ModeError {
    /// A 1D scene has no cross-section, and a 2D scene's modes propagate in its plane.
    NoCrossSection {
        /// The scene's mode name ("1d", "tmz", …).
        mode: &'static str,
        /// The normal asked for.
        normal: Axis,
    },
    /// The plane's cell index lies outside the grid.
    IndexOutside {
        /// The normal.
        normal: Axis,
        /// The index asked for.
        index: usize,
        /// Cells along the normal.
        cells: usize,
    },
    /// The frequency is not positive and finite.
    Frequency(f64),
    /// No modes asked for.
    NoCount,
    /// The shifted operator is singular (the shift sits on an eigenvalue).
    Singular,
    /// The eigensolver failed.
    Eigen(crate::arnoldi::ArnoldiError),
    /// A mode's discrete propagation constant `β̃ = 2 sin(βΔ/2)/Δ` exceeds 2: no wave of the
    /// grid along the normal has it (the frequency is too high for the resolution).
    BeyondGrid {
        /// β̃ in radians per cell.
        beta: f64,
    },
    /// A parity asked for about the plane's normal, which is no mirror of the plane.
    ParityAlongNormal {
        /// The normal.
        axis: Axis,
    },
    /// A parity along an axis a 2D scene lacks that none of its modes has: every mode is
    /// `even` (E across the axis) or odd (E along it) there.
    ParityOfPolarisation {
        /// The axis.
        axis: Axis,
        /// The parity every mode has.
        even: bool,
    },
    /// A parity about a plane axis whose mirror through the plane's centre does not map ε and
    /// μ onto themselves ([`crate::parity`]).
    NotSymmetric {
        /// The mirror's normal.
        axis: Axis,
        /// The mirror's coordinate along it (cells).
        centre: f64,
        /// The first differing node's component: electric (ε) or magnetic (μ), and its axis.
        component: (bool, Axis),
        /// That node's coordinate along `axis` (cells).
        at: f64,
        /// Its ε (or μ) and its mirror image's.
        values: [f64; 2],
    },
}

impl std::fmt::Display for ModeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ModeError::NoCrossSection { mode, normal } => write!(
                f,
                "a {mode} scene has no cross-section normal to {}: modes propagate along an axis \
                 of the grid that varies (x or y in 2D, any axis in 3D; none in 1D)",
                normal.name()
            ),
            ModeError::IndexOutside {
                normal,
                index,
                cells,
            } => write!(
                f,
                "the plane at cell {index} along {} lies outside the grid's {cells} cells",
                normal.name()
            ),
            ModeError::Frequency(x) => write!(f, "the frequency {x} is not positive and finite"),
            ModeError::NoCount => write!(f, "no modes asked for (the count is 0)"),
            ModeError::Singular => write!(f, "the shifted mode operator is singular"),
            ModeError::Eigen(e) => write!(f, "{e}"),
            ModeError::BeyondGrid { beta } => write!(
                f,
                "a mode's discrete propagation constant {beta:.4} rad/cell exceeds 2: the \
                 frequency is too high for the grid's resolution"
            ),
            ModeError::ParityAlongNormal { axis } => write!(
                f,
                "a parity about {} asked for on a plane normal to {}: a mode's parity is about \
                 one of the plane's axes",
                axis.name(),
                axis.name()
            ),
            ModeError::ParityOfPolarisation { axis, even } => write!(
                f,
                "every mode of this 2D scene is {} in {} (its E lies {} {}): none has the parity \
                 asked for",
                if *even { "even" } else { "odd" },
                axis.name(),
                if *even { "across" } else { "along" },
                axis.name()
            ),
            ModeError::NotSymmetric {
                axis,
                centre,
                component: (electric, along),
                at,
                values: [a, b],
            } => {
                let a_name = axis.name();
                let (what, field) = if *electric { ("ε", "E") } else { ("μ", "H") };
                write!(
                    f,
                    "a parity about {a_name} needs a cross-section symmetric about its centre \
                     (cell {centre} along {a_name}), but {what} of {field}{} at cell {at} along \
                     {a_name} is {a} and {b} at its mirror image, cell {} (centre the guide in \
                     the grid across {a_name})",
                    along.name(),
                    2.0 * centre - at
                )
            }
        }
    }
}

impl std::error::Error for ModeError {}
