//! Memory: the peak resident set of this process, and the estimate `yee check` prints.

use yee_em::Setup;

/// Peak resident set size in bytes (`VmHWM` of `/proc/self/status`), where the OS tells.
pub fn peak_rss_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// Bytes the scalar backend allocates for `setup` with values of `value_bytes` bytes: each
/// component over the grid plus its ghost layers, a 2-byte material id per node of each
/// component whose nodes are not all of one material, the CPML ψ arrays, and the DFT
/// monitors' sums (a real and an imaginary value per frequency, component and node), the
/// point sources each chunk keeps for its nodes (a mode source's sheets are one per node of
/// its plane). A chunk
/// keeps no ids for a component of one material (`YeeState::one_id`): every component without
/// regions or a mask, and the H components where every region has the background's μ and σ*
/// (H nodes see nothing else).
pub fn estimate_bytes(setup: &Setup, value_bytes: usize) -> u64 {
    let active = setup.mode.active_axes();
    let storage: u64 = (0..3)
        .map(|a| setup.grid[a] as u64 + if active[a] { 2 } else { 0 })
        .product();
    let components = setup.mode.components().len() as u64;
    let value = value_bytes as u64;
    let mut psi = 0u64;
    for axis in yee_core::Axis::ALL {
        for side in yee_core::Side::BOTH {
            if let Some(p) = setup.cpml(axis, side) {
                let slab =
                    setup.cells() as u64 / setup.grid[axis.index()] as u64 * p.thickness as u64;
                // Four ψ arrays per layer in 3D (two E, two H), two in 2D, at most.
                psi += slab * components.min(4) * value;
            }
        }
    }
    let dft: u64 = setup
        .monitors
        .iter()
        .map(|m| {
            m.region.cells() as u64
                * m.component_list().count() as u64
                * m.values_per_node() as u64
                * value
        })
        .sum();
    let plain = setup.active.is_none();
    let bg = setup.background;
    // An H node's id is keyed by `NodeMedium::of_h_node` (an anisotropic medium is placed per
    // axis, so it keeps ids).
    let h_key = |m: yee_em::Material| yee_em::NodeMedium::of_h_node(m).to_bits();
    let same_h = |m: &yee_em::Material| {
        h_key(*m) == h_key(bg) && m.diagonal.is_none() && bg.diagonal.is_none()
    };
    let with_ids = setup
        .mode
        .components()
        .iter()
        .filter(|c| match c.is_electric() {
            true => !(plain && setup.regions.is_empty()),
            false => !(plain && setup.regions.iter().all(|r| same_h(&r.material))),
        })
        .count() as u64;
    let sources = core::mem::size_of_val(setup.sources) as u64;
    storage * (components * value + with_ids * 2) + psi + dft + sources
}

/// `bytes` as a human-readable size.
pub fn human(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = bytes as f64;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < UNITS.len() {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{bytes} B")
    } else {
        format!("{v:.1} {}", UNITS[u])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use yee_em::{Boundary, CpmlParams, Material, Mode, Region, Shape};
    use yee_scalar::state::YeeState;

    /// Bytes the scalar state of the whole grid keeps: fields, ψ and material ids.
    fn kept(setup: &Setup) -> u64 {
        let state = YeeState::<f32>::new(setup, yee_core::Box3::from_extent(setup.grid));
        let fields: usize = state
            .fields
            .iter()
            .flatten()
            .map(|f| f.as_slice().len())
            .sum();
        let psi = state.psi_len();
        let ids: usize = state.material_ids.iter().map(Vec::len).sum();
        (4 * (fields + psi) + 2 * ids) as u64
    }

    #[test]
    fn the_estimate_counts_ids_only_for_the_components_that_keep_them() {
        let sphere = |material| Region {
            shape: Shape::Sphere {
                center: [8.0, 7.0, 6.0],
                radius: 3.5,
            },
            material,
        };
        let magnetic = Material {
            mu: 2.0,
            ..Material::dielectric(2.0)
        };
        let cases = [
            ("vacuum", vec![], Material::VACUUM),
            (
                "dielectric sphere",
                vec![sphere(Material::dielectric(2.25))],
                Material::VACUUM,
            ),
            ("magnetic sphere", vec![sphere(magnetic)], Material::VACUUM),
            (
                "anisotropic background",
                vec![],
                Material::anisotropic([2.0, 3.0, 4.0], [1.0; 3]),
            ),
        ];
        let cpml = Boundary::Cpml(CpmlParams::with_thickness(3));
        for (name, regions, background) in &cases {
            let setup = Setup {
                regions,
                background: *background,
                ..Setup::vacuum(Mode::ThreeD, [16, 14, 12], 0.5, [[cpml; 2]; 3])
            };
            assert_eq!(estimate_bytes(&setup, 4), kept(&setup), "{name}");
        }
    }
}
