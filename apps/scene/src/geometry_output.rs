//! The geometry quantities a scene can have written beside the fields: ε, μ, σ, σ*, material
//! numbers and the mask ([`crate::Scene::geometry_values`] gives their values).

/// A geometry quantity written beside the fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GeometryOutput {
    /// Relative permittivity (ε∞ for a dispersive material).
    Eps,
    /// Relative permeability.
    Mu,
    /// Electric conductivity (S/m in SI scenes).
    Sigma,
    /// Magnetic conductivity (Ω/m in SI scenes).
    SigmaM,
    /// The material's number in [`crate::Scene::material_names`].
    Material,
    /// 1 for a computed cell, 0 for one the mask leaves out.
    Mask,
}

impl GeometryOutput {
    /// The name in scene files and output file names.
    pub fn name(self) -> &'static str {
        match self {
            GeometryOutput::Eps => "eps",
            GeometryOutput::Mu => "mu",
            GeometryOutput::Sigma => "sigma",
            GeometryOutput::SigmaM => "sigma_m",
            GeometryOutput::Material => "material",
            GeometryOutput::Mask => "mask",
        }
    }

    /// True for the quantities that take whole numbers (drawn with a qualitative colour map).
    pub fn is_label(self) -> bool {
        matches!(self, GeometryOutput::Material | GeometryOutput::Mask)
    }
}
