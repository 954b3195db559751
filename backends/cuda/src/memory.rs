//! The device memory a chunk of a scene needs on the CUDA backend, part by part: what
//! `yee check` prints and what the device chunk allocates (it sizes its staging buffer with
//! [`halo_staging_values`]).

use yee_core::{Box3, share_directions};
use yee_em::halo::{ELECTRIC_PHASE, HaloShape, MAGNETIC_PHASE, halo_values};
use yee_em::{Component, Mode, Setup};

/// Bytes of device memory per part of one chunk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DeviceMemory {
    /// The field components over the owned box and its ghost layers.
    pub fields: u64,
    /// A 2-byte material id per component node.
    pub ids: u64,
    /// The `[decay, gain]` pairs of each material (E and H) and the CPML stretch tables
    /// (`[b, c, 1/κ]` at integer and half positions along each axis).
    pub tables: u64,
    /// The CPML ψ arrays of the layers inside the chunk.
    pub psi: u64,
    /// The halo staging buffer (every halo of one phase) and the divergence flag and key.
    pub staging: u64,
}

/// The divergence flag (an `int`) and the first non-finite key (a `u64`).
pub const DIVERGENCE_BYTES: u64 = 4 + 8;

impl DeviceMemory {
    /// The device memory of the chunk owning `owned` of `setup`, with values of
    /// `value_bytes` bytes and `materials` distinct node media (the coefficient tables'
    /// length: the chunk's own count once built, else an estimate).
    pub fn of(setup: &Setup, owned: Box3, value_bytes: usize, materials: usize) -> Self {
        let mode = setup.mode;
        let value = value_bytes as u64;
        let storage = owned.grow(mode.active_axes().map(i64::from)).cells() as u64;
        let components = mode.components().len() as u64;
        let stretch: u64 = setup.grid.iter().map(|&n| 2 * 3 * n as u64).sum();
        let psi: u64 = setup
            .cpml_layers_with_axes()
            .map(|(axis, layer)| {
                let carried = Component::ALL
                    .iter()
                    .filter(|c| mode.has(**c) && c.curl_terms().iter().any(|t| t.axis == axis))
                    .count() as u64;
                layer.intersect(&owned).cells() as u64 * carried
            })
            .sum();
        DeviceMemory {
            fields: components * storage * value,
            ids: components * storage * 2,
            tables: (2 * 2 * materials as u64 + stretch) * value,
            psi: psi * value,
            staging: halo_staging_values(mode, owned, HaloShape::of(setup)) as u64 * value
                + DIVERGENCE_BYTES,
        }
    }

    /// The parts with their names, in the order `yee check` prints them.
    pub fn parts(&self) -> [(&'static str, u64); 5] {
        [
            ("fields", self.fields),
            ("ids", self.ids),
            ("coefficients and stretch", self.tables),
            ("ψ", self.psi),
            ("staging", self.staging),
        ]
    }

    /// All of it.
    pub fn total(&self) -> u64 {
        self.parts().iter().map(|(_, b)| b).sum()
    }
}

/// Values the device staging buffer holds: every halo the chunk sends after one phase (the
/// larger phase), toward every share direction.
pub fn halo_staging_values(mode: Mode, owned: Box3, shape: HaloShape) -> usize {
    [MAGNETIC_PHASE, ELECTRIC_PHASE]
        .into_iter()
        .map(|phase| {
            share_directions(mode.active_axes())
                .iter()
                .map(|&d| halo_values(mode, owned, phase, d, shape))
                .sum::<usize>()
        })
        .max()
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use yee_em::{Boundary, CpmlParams};

    /// A 3D vacuum grid with 4-cell CPML on both x faces, counted by hand: 6 components over
    /// (10+2)·(8+2)·(6+2) storage nodes, ψ of four components (Ey, Ez, Hy, Hz differentiate
    /// along x) per layer of 4·8·6 cells, halos
    /// of three components on one face per axis (after H toward the high sides, after E
    /// toward the low ones).
    #[test]
    fn the_parts_are_counted_by_hand_and_sum_to_the_total() {
        let cpml = Boundary::Cpml(CpmlParams::with_thickness(4));
        let setup = Setup::vacuum(
            Mode::ThreeD,
            [10, 8, 6],
            0.5,
            [[cpml; 2], [Boundary::Pec; 2], [Boundary::Pec; 2]],
        );
        let owned = Box3::from_extent(setup.grid);
        let m = DeviceMemory::of(&setup, owned, 4, 3);
        let storage = 12 * 10 * 8;
        assert_eq!(m.fields, 6 * storage * 4);
        assert_eq!(m.ids, 6 * storage * 2);
        assert_eq!(m.tables, (2 * 2 * 3 + 6 * (10 + 8 + 6)) * 4);
        assert_eq!(m.psi, 2 * 4 * (4 * 8 * 6) * 4);
        let faces = 8 * 6 + 10 * 6 + 10 * 8;
        assert_eq!(m.staging, 3 * faces * 4 + DIVERGENCE_BYTES);
        assert_eq!(
            m.total(),
            m.fields + m.ids + m.tables + m.psi + m.staging,
            "the total is the parts' sum"
        );
        assert_eq!(m.parts().iter().map(|p| p.1).sum::<u64>(), m.total());
        // A chunk holding half the grid holds one layer's ψ.
        let half = Box3::new([0, 0, 0], [5, 8, 6]);
        assert_eq!(
            DeviceMemory::of(&setup, half, 8, 3).psi,
            4 * (4 * 8 * 6) * 8
        );
    }
}
