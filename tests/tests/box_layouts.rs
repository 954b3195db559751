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
    use yee_comm_shm::Slowdown;
    use yee_comm_sim::MachineModel;
    use yee_core::balance::BalanceParams;
    use yee_core::box_balance::{BoxBalancer, BoxCut};
    use yee_core::box_layout::{BoxLayout, face_contact, jagged_layout, kd_layout};
    use yee_core::{Box3, Topology};
    use yee_em::load::region_slice_densities;
    use yee_em::{
        Boundary, Component, Costs, CpmlParams, Material, Mode, PointSource, Probe, Region, Setup,
        Shape, SourceKind, Waveform,
    };
    use yee_scalar::decomposed::assemble_dft;
    use yee_scalar::tiled::{DynamicBoxes, assemble_tiles, tiled_probe_series};
    use yee_tests::{CommKind, balanced_run, owned_run, single_chunk};

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

    /// 22×18×16 with CPML on three faces, a lossy dielectric block, a Drude-Lorentz-Debye
    /// sphere, two sources, two probes and a DFT monitor over the middle.
    fn with_scene<R>(f: impl FnOnce(&Setup) -> R) -> R {
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
        let monitors = [yee_em::DftMonitor {
            region: Box3::new([3, 2, 2], [19, 16, 13]),
            components: [true, true, true, false, true, false],
            first: 0,
            count: 2,
        }];
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
            monitors: &monitors,
            frequencies: &[0.05, 0.08],
            active: None,
            smoothing: true,
            smoothing_tensor: true,
            bloch: [0.0; 3],
        };
        setup.validate().expect("valid setup");
        f(&setup)
    }

    #[test]
    fn jagged_and_kd_layouts_are_bit_identical_to_one_chunk() {
        with_scene(|setup| {
            let grid = setup.grid;
            let probes = setup.probes;
            let steps = 60;
            let reference = single_chunk::<f64>(setup, steps);
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
                region_slice_densities(setup, &costs, r, a, false, out);
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
                    let outputs = owned_run::<f64>(setup, &map, sim, overlap, steps);
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
        })
    }

    /// The sim model of the dynamic tests: 8 ranks of 1 Mcells/s, rank 3 at 0.2 Mcells/s,
    /// links of 1 µs and 1 GB/s.
    fn one_slow_of_eight() -> MachineModel {
        let mut model = MachineModel::uniform(8, 1e6, 1e-6, 1e9);
        model.speeds[3] = 2e5;
        model
    }

    /// A balancer of `cut` starting from equal speeds, rebalancing every `every` steps when
    /// that wins by more than `epsilon`.
    fn dynamic(setup: &Setup, cut: BoxCut, every: u64, epsilon: f64) -> DynamicBoxes {
        let costs = Costs::default();
        let density = |r: Box3, a: usize, out: &mut [f64]| {
            region_slice_densities(setup, &costs, r, a, false, out);
        };
        let start = cut
            .layout(setup.grid, [true; 3], &[1.0; 8], &density, 1)
            .unwrap();
        let params = BalanceParams {
            every,
            epsilon,
            ..BalanceParams::default()
        };
        DynamicBoxes {
            balancer: BoxBalancer::new(cut, setup.grid, [true; 3], params, start),
            per_axis: false,
        }
    }

    /// Dynamic balancing never changes the answer either: the boxes move (on sim, rank 3 slow
    /// and a fixed delay per step on rank 5, so that the measured speeds depend on the boxes
    /// and keep moving them; on shm, rank 3 sleeping per cell) and the cells migrate with
    /// their fields, ψ, polarisations and DFT sums, and the probes follow them: fields, probe
    /// records and transforms bit for bit those of one chunk.
    #[test]
    fn dynamic_rebalancing_is_bit_identical_to_one_chunk() {
        const NONE: Slowdown = Slowdown {
            per_cell: 0.0,
            per_step: 0.0,
            from_step: 0,
            to_step: 0,
        };
        const SLOW: [Slowdown; 4] = [
            NONE,
            NONE,
            NONE,
            Slowdown {
                per_cell: 2e-6,
                to_step: 1000,
                ..NONE
            },
        ];
        with_scene(|setup| {
            let steps = 60;
            let reference = single_chunk::<f64>(setup, steps);
            let mut model = one_slow_of_eight();
            model.delays[5] = 3e-3;
            for cut in [BoxCut::Kd, BoxCut::Jagged(Topology([2, 2, 2]))] {
                // ε = 0: every gain that pays for its migration is taken, so the boxes move
                // more often.
                let dynamic = dynamic(setup, cut, 8, 0.0);
                for comm in [CommKind::Sim, CommKind::ShmSlowed(&SLOW)] {
                    let what = format!("{cut:?} {comm:?}");
                    let outputs =
                        balanced_run::<f64>(setup, &dynamic, comm, Some(model.clone()), steps);
                    let moves = outputs[0].history.iter().filter(|(_, d)| d.migrate).count();
                    eprintln!(
                        "{what}: {} rebalances, {moves} moves",
                        outputs[0].history.len()
                    );
                    let least = if comm == CommKind::Sim { 2 } else { 1 };
                    assert!(moves >= least, "{what}: the boxes moved {moves} times");
                    assert!(outputs.iter().all(|o| o.diverged.is_none()), "{what}");
                    for c in Component::ALL {
                        let got = assemble_tiles(&outputs, setup.grid, c);
                        assert!(got == reference.fields[c.index()], "{what}: {c:?} differs");
                    }
                    for i in 0..setup.probes.len() {
                        let got = tiled_probe_series(&outputs, i).expect("a rank holds the probe");
                        assert!(got == reference.probes[i], "{what}: probe {i} differs");
                    }
                    let dft = assemble_dft(setup, 0, outputs.iter().flat_map(|o| &o.dft));
                    assert!(dft == reference.dft[0], "{what}: the DFT sums differ");
                }
            }
        })
    }
}
