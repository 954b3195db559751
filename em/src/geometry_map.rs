//! The geometry as one value per cell, sampled at each cell's centre: what outputs and previews
//! show of a scene (Meep's `output_epsilon`, gprMax's `#geometry_view`).
//!
//! A cell's centre lies inside its shapes, never on a box's face, so this is the material the
//! cell is filled with; the field nodes on the cell's edges and faces may average it with a
//! neighbour's ([`crate::placement`]). The mask samples the same centres.

use crate::setup::Setup;

/// What a geometry map holds per cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CellQuantity {
    /// Relative permittivity ε (ε∞ for a dispersive material).
    Eps,
    /// Relative permeability μ.
    Mu,
    /// Electric conductivity σ (normalised: σ η₀ Δ).
    Sigma,
    /// Magnetic conductivity σ* (normalised: σ* Δ / η₀).
    SigmaM,
    /// 1 + the index of the last region holding the centre; 0 for the background.
    Region,
    /// 1 for a computed cell, 0 for one the mask leaves out.
    Active,
}

impl Setup<'_> {
    /// `q` at the centre of `cell`.
    pub fn cell_value(&self, q: CellQuantity, cell: [usize; 3]) -> f64 {
        let p = cell.map(|c| c as f64 + 0.5);
        match q {
            CellQuantity::Eps => self.material_at(p).eps,
            CellQuantity::Mu => self.material_at(p).mu,
            CellQuantity::Sigma => self.material_at(p).sigma,
            CellQuantity::SigmaM => self.material_at(p).sigma_m,
            CellQuantity::Region => self
                .regions
                .iter()
                .rposition(|r| r.shape.contains(p))
                .map_or(0.0, |r| (r + 1) as f64),
            CellQuantity::Active => f64::from(u8::from(self.is_active(cell.map(|c| c as i64)))),
        }
    }

    /// Fills `out`, one value per cell of the grid (x fastest), with `q` at each cell's centre.
    ///
    /// # Panics
    /// When `out` is not [`Setup::cells`] long.
    pub fn cell_values(&self, q: CellQuantity, out: &mut [f64]) {
        assert_eq!(out.len(), self.cells(), "one value per cell of the grid");
        let [nx, ny, _] = self.grid;
        for (cell, value) in out.iter_mut().enumerate() {
            *value = self.cell_value(q, [cell % nx, (cell / nx) % ny, cell / (nx * ny)]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::material::Material;
    use crate::placement::tests::setup;
    use crate::setup::Region;
    use crate::shape::Shape;
    use crate::yee::Mode;

    #[test]
    fn a_box_fills_the_cells_whose_centres_it_holds() {
        let regions = [Region {
            shape: Shape::Block {
                lo: [2.0, 1.0, 0.0],
                hi: [4.0, 3.0, 1.0],
            },
            material: Material {
                sigma: 0.25,
                ..Material::dielectric(4.0)
            },
        }];
        let setup = setup(Mode::Tmz, [6, 4, 1], &regions);
        let mut eps = [0.0; 24];
        setup.cell_values(CellQuantity::Eps, &mut eps);
        let mut region = [0.0; 24];
        setup.cell_values(CellQuantity::Region, &mut region);
        let mut sigma = [0.0; 24];
        setup.cell_values(CellQuantity::Sigma, &mut sigma);
        for cell in 0..24 {
            let (x, y) = (cell % 6, cell / 6);
            let inside = (2..4).contains(&x) && (1..3).contains(&y);
            assert_eq!(eps[cell], if inside { 4.0 } else { 1.0 }, "cell {cell}");
            assert_eq!(region[cell], if inside { 1.0 } else { 0.0 }, "cell {cell}");
            assert_eq!(sigma[cell], if inside { 0.25 } else { 0.0 }, "cell {cell}");
        }
    }

    #[test]
    fn the_mask_marks_inactive_cells() {
        let active = [true, false, true];
        let mut setup = setup(Mode::Tmz, [3, 1, 1], &[]);
        setup.active = Some(&active);
        let mut out = [9.0; 3];
        setup.cell_values(CellQuantity::Active, &mut out);
        assert_eq!(out, [1.0, 0.0, 1.0]);
    }
}
