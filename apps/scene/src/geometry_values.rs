//! The geometry as outputs show it: ε, μ, σ, σ*, material numbers and the mask, one value per
//! cell at its centre ([`yee_em::geometry_map`]), conductivities in the scene's units.

use yee_em::CellQuantity;

use crate::geometry_output::GeometryOutput;
use crate::resolve::{Scene, Units};

impl Units {
    /// Normalised electric conductivity → scene units (S/m in SI).
    pub fn to_scene_sigma(self, s: f64) -> f64 {
        s / self.sigma(1.0)
    }

    /// Normalised magnetic conductivity → scene units (Ω/m in SI).
    pub fn to_scene_sigma_m(self, s: f64) -> f64 {
        s / self.sigma_m(1.0)
    }
}

impl Scene {
    /// The material names, numbered as [`GeometryOutput::Material`] numbers them: the
    /// background's first, then each other name in the order the geometry first uses it.
    pub fn material_names(&self) -> Vec<&str> {
        let mut names = vec![self.background.0.as_str()];
        for name in &self.region_materials {
            if !names.contains(&name.as_str()) {
                names.push(name);
            }
        }
        names
    }

    /// `q` for every cell of the grid (x fastest).
    pub fn geometry_values(&self, q: GeometryOutput) -> Vec<f64> {
        let [nx, ny, nz] = self.grid;
        let cells =
            (0..nz).flat_map(|z| (0..ny).flat_map(move |y| (0..nx).map(move |x| [x, y, z])));
        self.geometry_at(q, cells)
    }

    /// `q` at each of `cells`, in the scene's units.
    pub fn geometry_at(
        &self,
        q: GeometryOutput,
        cells: impl Iterator<Item = [usize; 3]>,
    ) -> Vec<f64> {
        let setup = self.setup();
        let cell_quantity = match q {
            GeometryOutput::Eps => CellQuantity::Eps,
            GeometryOutput::Mu => CellQuantity::Mu,
            GeometryOutput::Sigma => CellQuantity::Sigma,
            GeometryOutput::SigmaM => CellQuantity::SigmaM,
            GeometryOutput::Material => CellQuantity::Region,
            GeometryOutput::Mask => CellQuantity::Active,
        };
        // The material number of each region value (0: the background), looked up once.
        let names = self.material_names();
        let numbers: Vec<f64> = std::iter::once(self.background.0.as_str())
            .chain(self.region_materials.iter().map(String::as_str))
            .map(|name| names.iter().position(|&n| n == name).unwrap_or(0) as f64)
            .collect();
        // The regions over each row are kept while its cells follow one another.
        let mut rows = yee_em::geometry_map::RowRegions::default();
        cells
            .map(|cell| {
                let v = setup.cell_value_in(cell_quantity, cell, &mut rows);
                match q {
                    GeometryOutput::Sigma => self.units.to_scene_sigma(v),
                    GeometryOutput::SigmaM => self.units.to_scene_sigma_m(v),
                    GeometryOutput::Material => numbers[v as usize],
                    _ => v,
                }
            })
            .collect()
    }
}
