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
        }
    }
}

impl std::error::Error for ModeError {}
