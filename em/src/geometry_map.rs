//! The geometry as one value per cell, sampled at each cell's centre: what outputs and previews
//! show of a scene (Meep's `output_epsilon`, gprMax's `#geometry_view`).
//!
//! A cell's centre lies inside its shapes, never on a box's face, so this is the material the
//! cell is filled with; the field nodes on the cell's edges and faces may average it with a
//! neighbour's ([`crate::placement`]). The mask samples the same centres.

use alloc::vec::Vec;

use crate::candidates::Candidates;
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

/// The regions whose bounding box holds the centres of one row of cells, kept while cells of
/// that row follow one another: [`Setup::cell_value_in`] then tests only those whose box also
/// holds the cell, as the placement finds the same among them (a region whose closed box does
/// not hold a point neither holds it nor has it on its surface, and a cell's centre is never on
/// a periodic face). A scene of hundreds of shapes then costs per cell what the few shapes
/// over its row cost, not all of them.
#[derive(Clone, Debug, Default)]
pub struct RowRegions {
    row: Option<[usize; 2]>,
    /// The regions over the row, with their bounds along x.
    over_row: Vec<(usize, [f64; 2])>,
    here: Vec<usize>,
}

impl Setup<'_> {
    /// `q` at the centre of `cell`.
    pub fn cell_value(&self, q: CellQuantity, cell: [usize; 3]) -> f64 {
        self.cell_value_among(q, cell, Candidates::All)
    }

    /// [`Setup::cell_value`], the regions over `cell`'s row kept in `rows` for the next cell.
    pub fn cell_value_in(&self, q: CellQuantity, cell: [usize; 3], rows: &mut RowRegions) -> f64 {
        let p = cell.map(|c| c as f64 + 0.5);
        if rows.row != Some([cell[1], cell[2]]) {
            rows.row = Some([cell[1], cell[2]]);
            rows.over_row.clear();
            for (r, region) in self.regions.iter().enumerate() {
                let (lo, hi) = region.shape.bounds();
                if (1..3).all(|a| lo[a] <= p[a] && p[a] <= hi[a]) {
                    rows.over_row.push((r, [lo[0], hi[0]]));
                }
            }
        }
        rows.here.clear();
        let here = rows
            .over_row
            .iter()
            .filter(|(_, [lo, hi])| *lo <= p[0] && p[0] <= *hi);
        rows.here.extend(here.map(|&(r, _)| r));
        self.cell_value_among(q, cell, Candidates::Only(&rows.here))
    }

    /// [`Setup::cell_value`] among the `candidates` regions, which must include every region
    /// whose closed bounding box holds the cell's centre.
    fn cell_value_among(&self, q: CellQuantity, cell: [usize; 3], candidates: Candidates) -> f64 {
        let p = cell.map(|c| c as f64 + 0.5);
        let material = || self.placement_among(p, candidates).material(self, None);
        match q {
            CellQuantity::Eps => material().eps,
            CellQuantity::Mu => material().mu,
            CellQuantity::Sigma => material().sigma,
            CellQuantity::SigmaM => material().sigma_m,
            CellQuantity::Region => self
                .last_holding(candidates, |shape| shape.contains(p))
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
        let mut rows = RowRegions::default();
        for (cell, value) in out.iter_mut().enumerate() {
            let cell = [cell % nx, (cell / nx) % ny, cell / (nx * ny)];
            *value = self.cell_value_in(q, cell, &mut rows);
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

    /// Overlapping shapes of every kind, centres on a sphere's surface and on a box's edge:
    /// the values among the regions over each row are those among all regions.
    #[test]
    fn values_among_the_regions_over_a_row_are_those_among_all() {
        use yee_core::geometry::Axis;
        let glass = |eps| Material::dielectric(eps);
        let regions = [
            Region {
                shape: Shape::Block {
                    lo: [0.0, 0.0, 0.0],
                    hi: [6.5, 20.0, 3.5],
                },
                material: glass(3.0),
            },
            Region {
                shape: Shape::Sphere {
                    center: [10.5, 9.5, 7.5],
                    radius: 5.0,
                },
                material: glass(2.0),
            },
            Region {
                shape: Shape::Cylinder {
                    center: [14.0, 6.0, 8.0],
                    radius: 3.5,
                    axis: Axis::Y,
                    length: 9.0,
                },
                material: Material {
                    sigma: 0.5,
                    ..glass(5.0)
                },
            },
        ];
        let setup = setup(Mode::ThreeD, [20, 18, 16], &regions);
        let (mut among, mut mixed) = (alloc::vec![0.0; setup.cells()], 0);
        for q in [CellQuantity::Eps, CellQuantity::Sigma, CellQuantity::Region] {
            setup.cell_values(q, &mut among);
            for (n, &v) in among.iter().enumerate() {
                let cell = [n % 20, (n / 20) % 18, n / 360];
                assert_eq!(v, setup.cell_value(q, cell), "{q:?} at {cell:?}");
                mixed += usize::from(q == CellQuantity::Eps && ![1.0, 2.0, 3.0, 5.0].contains(&v));
            }
        }
        // Some centres lie on a surface and take a mean.
        assert!(mixed > 0);
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
