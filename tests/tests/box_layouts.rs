//! Layouts beyond the tensor grid (jagged and k-d, `core/src/box_layout.rs`): their claims for
//! random grids, topologies and speeds (the same checks as the `layouts` fuzz target).

use proptest::prelude::*;
use yee_core::Topology;
use yee_core::verify::verify_layouts;

proptest! {
    #[test]
    fn layout_claims_hold(
        dims in 1usize..=3,
        grid in prop::array::uniform3(1usize..24),
        topology in prop::array::uniform3(1usize..4),
        speeds in prop::collection::vec(prop_oneof![Just(0.0), 0.01f64..4.0], 27),
        min_width in 1usize..3,
    ) {
        let grid: [usize; 3] = std::array::from_fn(|a| if a < dims { grid[a] } else { 1 });
        let topology = Topology(std::array::from_fn(|a| if a < dims { topology[a] } else { 1 }));
        let speeds = &speeds[..topology.ranks()];
        let active = std::array::from_fn(|a| a < dims);
        prop_assert_eq!(verify_layouts(grid, active, topology, speeds, min_width), Ok(()));
    }
}

/// Decomposition never changes the answer on a jagged or k-d layout either: every rank owns one
/// box whose faces touch several neighbours, steps through the tile driver with the layers
/// taken from the boxes, and the fields and probe records are bit for bit those of one chunk
/// (3D with CPML, a dielectric and a dispersive block, boxes cut for unequal speeds; on the
/// simulated communicator with and without overlap, and on shm).
mod runs {
    use yee_core::box_layout::{BoxLayout, face_contact, jagged_layout, kd_layout};
    use yee_core::{Box3, Topology};
    use yee_em::load::region_slice_densities;
    use yee_em::{
        Boundary, Component, Costs, CpmlParams, Material, Mode, PointSource, Probe, Region, Setup,
        Shape, SourceKind, Waveform,
    };
    use yee_scalar::tiled::{assemble_tiles, tiled_probe_series};
    use yee_tests::{owned_run, single_chunk};

    fn ricker(component: Component, cell: [i64; 3]) -> PointSource {
        PointSource {
            component,
            cell,
            waveform: Waveform::Ricker {
                frequency: 0.08,
                delay: 15.0,
            },
            amplitude: 1.0,
            kind: SourceKind::Soft,
        }
    }

    /// The most neighbours one face of one box touches.
    fn most_neighbours_on_a_face(boxes: &[Box3]) -> usize {
        let mut most = 0;
        for (r, b) in boxes.iter().enumerate() {
            let mut per_face = [0usize; 6];
            for (p, o) in boxes.iter().enumerate() {
                if p != r {
                    if let Some((a, high)) = face_contact(b, o, [true; 3]) {
                        per_face[2 * a + usize::from(high)] += 1;
                    }
                }
            }
            most = most.max(per_face.into_iter().max().unwrap_or(0));
        }
        most
    }

    #[test]
    fn jagged_and_kd_layouts_are_bit_identical_to_one_chunk() {
        let grid = [22, 18, 16];
        let mut boundaries = [[Boundary::Pec; 2]; 3];
        boundaries[0] = [Boundary::Cpml(CpmlParams::with_thickness(4)); 2];
        boundaries[2][1] = Boundary::Cpml(CpmlParams::with_thickness(4));
        let regions = [
            Region {
                shape: Shape::Block {
                    lo: [5.0, 4.0, 3.0],
                    hi: [12.0, 14.0, 9.0],
                },
                material: Material {
                    eps: 2.5,
                    sigma: 0.02,
                    ..Material::VACUUM
                },
            },
            Region {
                shape: Shape::Sphere {
                    center: [15.0, 9.0, 10.0],
                    radius: 4.0,
                },
                material: yee_tests::dispersive(2.0, 0, 3),
            },
        ];
        let sources = [
            ricker(Component::Ez, [8, 9, 8]),
            ricker(Component::Hx, [17, 5, 4]),
        ];
        let probes = [
            Probe {
                component: Component::Ez,
                cell: [14, 12, 6],
            },
            Probe {
                component: Component::Hy,
                cell: [3, 3, 12],
            },
        ];
        let setup = Setup {
            mode: Mode::ThreeD,
            grid,
            courant: 0.5,
            background: Material::VACUUM,
            poles: &yee_tests::TEST_POLES,
            regions: &regions,
            boundaries,
            sources: &sources,
            probes: &probes,
            plane_waves: &[],
            monitors: &[],
            frequencies: &[],
            active: None,
            smoothing: true,
        };
        setup.validate().expect("valid setup");
        let steps = 60;
        let reference = single_chunk::<f64>(&setup, steps);
        let energy: f64 = reference
            .fields
            .iter()
            .flatten()
            .flatten()
            .map(|v| v * v)
            .sum();
        assert!(
            energy > 1e-8,
            "the sources must excite the grid ({energy:e})"
        );
        let costs = Costs::default();
        let density = |r: Box3, a: usize, out: &mut [f64]| {
            region_slice_densities(&setup, &costs, r, a, false, out);
        };
        let speeds = [1.0, 1.0, 1.0, 0.2, 1.0, 1.0, 1.0, 1.0];
        let mut kd = vec![Box3::new([0; 3], [0; 3]); 8];
        kd_layout(grid, [true; 3], &speeds, &density, 1, &mut kd).unwrap();
        let mut jagged = kd.clone();
        jagged_layout(
            grid,
            [true; 3],
            Topology([2, 2, 2]),
            &speeds,
            &density,
            1,
            &mut jagged,
        )
        .unwrap();
        // Five ranks, 3 slow: an odd split.
        let mut kd5 = vec![Box3::new([0; 3], [0; 3]); 5];
        kd_layout(
            grid,
            [true; 3],
            &[1.0, 0.5, 2.0, 1.0, 0.7],
            &density,
            1,
            &mut kd5,
        )
        .unwrap();
        for (name, boxes) in [("kd", kd), ("jagged", jagged), ("kd5", kd5)] {
            assert!(
                most_neighbours_on_a_face(&boxes) >= 2,
                "{name}: some face must touch several neighbours: {boxes:?}"
            );
            let map = BoxLayout { grid, boxes };
            for (sim, overlap) in [(true, true), (true, false), (false, true)] {
                let outputs = owned_run::<f64>(&setup, &map, sim, overlap, steps);
                let what = format!("{name} sim {sim} overlap {overlap}");
                assert!(outputs.iter().all(|o| o.diverged.is_none()), "{what}");
                for c in Component::ALL {
                    let got = assemble_tiles(&outputs, grid, c);
                    assert!(got == reference.fields[c.index()], "{what}: {c:?} differs");
                }
                for i in 0..probes.len() {
                    let got = tiled_probe_series(&outputs, i).expect("a rank holds the probe");
                    assert!(got == reference.probes[i], "{what}: probe {i} differs");
                }
            }
        }
    }
}
