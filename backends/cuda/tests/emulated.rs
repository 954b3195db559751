//! The backend conformance suite (`yee_tests::backend_conformance`) on the emulated device
//! (`--backend cuda-emulated`): the device chunk's own code (every launch and its argument
//! list, both streams and their events, the staging and pinned copies, read-backs, slabs and
//! resizing) running the kernel files built for the host, bit for bit the scalar oracle, f32,
//! f64, c32 and c64, on every mode with CPML, walls, lossy, anisotropic and dispersive media,
//! DFT monitors and an oblique plane wave, and Bloch-periodic (complex fields, the phase where
//! a halo wraps) on one and several ranks. Decomposed runs (halos on sim and shm), balancing
//! and checkpoints on emulated-device ranks are tested through `yee run`
//! (`apps/yee/tests/cuda.rs`).
#![cfg(feature = "cuda")]

use num_complex::Complex;
use yee_core::Topology;
use yee_cuda::device::EmulatedBackend;
use yee_em::{Mode, YeeBackend};
use yee_tests::backend_conformance::{
    halos_are_symmetric, matches_the_oracle, resizes_like_the_oracle, slabs_round_trip,
    split_is_invariant, stepped,
};
use yee_tests::conformance_cases::{MODES, bloch_device_physics, device_physics, example_scenes};
use yee_tests::decomposed_on;

fn device() -> EmulatedBackend {
    EmulatedBackend::default()
}

/// Every example scene, f32 and f64, and those whose fields are complex (the band scenes) in
/// c32 and c64 too.
#[test]
fn matches_the_oracle_on_every_example_scene() {
    let mut complex = Vec::new();
    for (path, scene) in example_scenes() {
        let setup = scene.setup();
        matches_the_oracle::<f32, _>(&device(), &setup, 30)
            .unwrap_or_else(|e| panic!("{path} (f32): {e}"));
        matches_the_oracle::<f64, _>(&device(), &setup, 30)
            .unwrap_or_else(|e| panic!("{path} (f64): {e}"));
        if scene.value_type.name().starts_with('c') {
            matches_the_oracle::<Complex<f32>, _>(&device(), &setup, 30)
                .unwrap_or_else(|e| panic!("{path} (c32): {e}"));
            matches_the_oracle::<Complex<f64>, _>(&device(), &setup, 30)
                .unwrap_or_else(|e| panic!("{path} (c64): {e}"));
            complex.push(path);
        }
    }
    assert_eq!(complex.len(), 2, "{complex:?}");
}

#[test]
fn matches_the_oracle_in_every_mode() {
    for mode in MODES {
        let setup = device_physics(mode);
        matches_the_oracle::<f32, _>(&device(), &setup, 40)
            .unwrap_or_else(|e| panic!("{mode:?} (f32): {e}"));
        matches_the_oracle::<f64, _>(&device(), &setup, 40)
            .unwrap_or_else(|e| panic!("{mode:?} (f64): {e}"));
        matches_the_oracle::<Complex<f32>, _>(&device(), &setup, 20)
            .unwrap_or_else(|e| panic!("{mode:?} (c32): {e}"));
        matches_the_oracle::<Complex<f64>, _>(&device(), &setup, 20)
            .unwrap_or_else(|e| panic!("{mode:?} (c64): {e}"));
    }
}

/// Complex fields with a Bloch phase (every physics case of the device, made Bloch-periodic):
/// one rank (its own neighbour across each periodic face) and decomposed on shm, edges and
/// corners wrapping across two faces in 3D, give the scalar oracle's fields, probe records and
/// DFT transforms bit for bit (the scalar backend on one rank, which `tests/tests/bloch.rs`
/// holds to a single `Simulation` and to every decomposition), c32 and c64; the phase reached
/// the fields (their imaginary parts are not zero).
#[test]
fn bloch_runs_are_the_oracle_bit_for_bit() {
    fn check<T: yee_cuda::device::DeviceScalar>(mode: Mode, topologies: &[Topology], steps: u64) {
        let setup = bloch_device_physics(mode);
        // The scalar backend on one rank through the same driver (its TF/SF surface crosses
        // materials, which `Setup::validate` and so a `Simulation` refuse; the chunks do not).
        let scalar = yee_scalar::ScalarCurl;
        let oracle = decomposed_on::<T, _>(&scalar, &setup, Topology([1, 1, 1]), steps);
        let imaginary =
            (oracle.fields.iter().flatten().flatten()).any(|v| v.im() != T::Real::default());
        assert!(imaginary, "{mode:?}: the phase did not reach the fields");
        for &topology in topologies {
            let got = decomposed_on::<T, _>(&device(), &setup, topology, steps);
            let what = format!("{mode:?} {} on {:?}", T::NAME, topology.0);
            assert!(got.fields == oracle.fields, "{what}: fields differ");
            assert!(got.probes == oracle.probes, "{what}: probes differ");
            assert!(got.dft == oracle.dft, "{what}: DFT transforms differ");
        }
    }
    let cases = [
        (Mode::OneD, [Topology([1, 1, 1]), Topology([3, 1, 1])]),
        (Mode::Tmz, [Topology([1, 1, 1]), Topology([2, 2, 1])]),
        (Mode::Tez, [Topology([1, 1, 1]), Topology([2, 1, 1])]),
        (Mode::ThreeD, [Topology([1, 1, 1]), Topology([2, 2, 1])]),
    ];
    for (mode, topologies) in cases {
        check::<Complex<f32>>(mode, &topologies, 30);
        check::<Complex<f64>>(mode, &topologies, 30);
    }
}

/// Kim & Park 2012's kernel split on the device's two streams (`Chunk::splits_border`): each
/// rank's border shell, its halo packs, the copies both ways and the unpacks run on the border
/// stream while the interior runs on the compute stream, the shell waiting for the interior
/// of the phase before (an event). Every mode's device case decomposed on shm gives the
/// scalar oracle's fields, probes and DFT sums bit for bit, f32 and f64. Seen failing with
/// the shell's wait for the compute stream removed (`CudaChunk::submit_border`).
#[test]
fn the_border_stream_beside_the_interior_keeps_the_oracle_bits() {
    fn check<T: yee_cuda::device::DeviceScalar>(mode: Mode, topology: Topology) {
        let setup = device_physics(mode);
        let scalar = yee_scalar::ScalarCurl;
        let oracle = decomposed_on::<T, _>(&scalar, &setup, Topology([1, 1, 1]), 24);
        let got = decomposed_on::<T, _>(&device(), &setup, topology, 24);
        let what = format!("{mode:?} {} on {:?}", T::NAME, topology.0);
        assert!(got.fields == oracle.fields, "{what}: fields differ");
        assert!(got.probes == oracle.probes, "{what}: probes differ");
        assert!(got.dft == oracle.dft, "{what}: DFT sums differ");
    }
    let cases = [
        (Mode::OneD, Topology([3, 1, 1])),
        (Mode::Tmz, Topology([2, 2, 1])),
        (Mode::Tez, Topology([1, 2, 1])),
        (Mode::ThreeD, Topology([2, 1, 2])),
    ];
    for (mode, topology) in cases {
        check::<f32>(mode, topology);
        check::<f64>(mode, topology);
    }
}

#[test]
fn the_split_update_is_the_whole_update() {
    for mode in MODES {
        let setup = device_physics(mode);
        split_is_invariant::<f32, _>(&device(), &setup, 40)
            .unwrap_or_else(|e| panic!("{mode:?} (f32): {e}"));
        split_is_invariant::<f64, _>(&device(), &setup, 40)
            .unwrap_or_else(|e| panic!("{mode:?} (f64): {e}"));
        split_is_invariant::<Complex<f64>, _>(&device(), &setup, 20)
            .unwrap_or_else(|e| panic!("{mode:?} (c64): {e}"));
    }
}

#[test]
fn halo_lengths_are_symmetric() {
    for (mode, topology) in [
        (Mode::OneD, Topology([3, 1, 1])),
        (Mode::Tmz, Topology([2, 3, 1])),
        (Mode::Tez, Topology([3, 2, 1])),
        (Mode::ThreeD, Topology([2, 2, 2])),
    ] {
        halos_are_symmetric::<f32, _>(&device(), &device_physics(mode), topology)
            .unwrap_or_else(|e| panic!("{mode:?}: {e}"));
    }
}

#[test]
fn slabs_and_resizing_carry_every_field_and_psi() {
    for mode in MODES {
        let setup = device_physics(mode);
        slabs_round_trip::<f32, _>(&device(), &setup, 30)
            .unwrap_or_else(|e| panic!("{mode:?} (f32): {e}"));
        slabs_round_trip::<f64, _>(&device(), &setup, 30)
            .unwrap_or_else(|e| panic!("{mode:?} (f64): {e}"));
        slabs_round_trip::<Complex<f32>, _>(&device(), &setup, 20)
            .unwrap_or_else(|e| panic!("{mode:?} (c32): {e}"));
    }
}

/// A one-plane box walked across the device case: the polarisations, tensor sums and ψ a
/// resize keeps go to their own component's nodes (once seen failing: a chunk whose box
/// left the Ex nodes of a dispersive block gave its Ex polarisations to Ey, only when
/// dynamic balancing happened to move a thin rank's borders so).
#[test]
fn resizing_across_material_faces_keeps_the_oracle_bits() {
    for mode in MODES {
        resizes_like_the_oracle::<f32, _>(&device(), &device_physics(mode), 10)
            .unwrap_or_else(|e| panic!("{mode:?}: {e}"));
    }
}

/// Every mode's device case has the parts it is meant to test: DFT monitors, a plane wave,
/// dispersive nodes, and (where the mode carries two components of a field) tensor nodes.
#[test]
fn the_device_case_has_every_feature() {
    for mode in MODES {
        let setup = device_physics(mode);
        assert!(!setup.monitors.is_empty() && !setup.plane_waves.is_empty());
        assert!(
            setup
                .regions
                .iter()
                .any(|r| r.material.poles != yee_em::PoleSet::NONE)
        );
        assert_eq!(setup.has_tensor_nodes(), mode != Mode::OneD, "{mode:?}");
    }
}

/// A Bloch-periodic setup refuses real fields by name, as the scalar chunk does, and builds
/// with complex ones.
#[test]
fn real_fields_refuse_a_bloch_phase_by_name() {
    let (path, scene) = (example_scenes().into_iter())
        .find(|(p, _)| p.ends_with("bragg_bands.toml"))
        .expect("the scene is there");
    // A point of its band diagram: a wavevector along its periodic x.
    let setup = yee_em::Setup {
        bloch: [0.25, 0.0, 0.0],
        ..scene.setup()
    };
    assert!(yee_em::bloch::is_bloch(&setup), "{path} at k = 0.25");
    let whole = yee_core::Box3::from_extent(setup.grid);
    let e = YeeBackend::<f64>::build(&device(), &setup, whole, yee_em::Costs::default())
        .expect_err("a real field cannot carry the Bloch phase");
    let e = format!("{e:?}");
    assert!(
        e.contains("Bloch wavevector") && e.contains("needs complex fields"),
        "{e}"
    );
    YeeBackend::<Complex<f64>>::build(&device(), &setup, whole, yee_em::Costs::default())
        .expect("complex fields carry it");
}

/// A lossy sphere smoothed with the full tensor gives its surface nodes an off-diagonal loss
/// (issue 51: two running sums per node), which the device's tensor pass runs with the scalar
/// backend's arithmetic (`yee_tensor_node`): one chunk bit for bit the oracle (f32, f64, c64),
/// the split and decomposed runs too (2×1×2 on shm), and the slabs and resizes carry the
/// sums (a chunk rebuilt from them steps on identically). Lossless, the sphere keeps no sums.
#[test]
fn an_off_diagonal_loss_runs_bit_for_bit() {
    use yee_em::{Boundary, Component, Material, PointSource, Region, Setup, Shape, SourceKind};
    let sphere = |sigma| {
        [Region {
            shape: Shape::Sphere {
                center: [8.0, 7.6, 8.2],
                radius: 4.3,
            },
            material: Material {
                sigma,
                ..Material::dielectric(2.25)
            },
        }]
    };
    let source = [PointSource {
        component: Component::Ez,
        cell: [5, 8, 8],
        waveform: yee_em::Waveform::Ricker {
            frequency: 0.1,
            delay: 8.0,
        },
        amplitude: 1.0,
        kind: SourceKind::Soft,
    }];
    let (lossy, lossless) = (sphere(0.05), sphere(0.0));
    let setup = |regions| Setup {
        regions,
        sources: &source,
        smoothing_tensor: true,
        ..Setup::vacuum(Mode::ThreeD, [16; 3], 0.5, [[Boundary::Pec; 2]; 3])
    };
    assert!(setup(&lossy).smooths_lossy_off_diagonal());
    assert!(!setup(&lossless).smooths_lossy_off_diagonal());
    let setup = setup(&lossy);
    matches_the_oracle::<f32, _>(&device(), &setup, 30).unwrap();
    matches_the_oracle::<f64, _>(&device(), &setup, 30).unwrap();
    matches_the_oracle::<Complex<f64>, _>(&device(), &setup, 20).unwrap();
    split_is_invariant::<f32, _>(&device(), &setup, 20).unwrap();
    slabs_round_trip::<f64, _>(&device(), &setup, 20).unwrap();
    let scalar = yee_scalar::ScalarCurl;
    let oracle = decomposed_on::<f32, _>(&scalar, &setup, Topology([1, 1, 1]), 24);
    let got = decomposed_on::<f32, _>(&device(), &setup, Topology([2, 1, 2]), 24);
    assert!(got.fields == oracle.fields, "2×1×2 on shm: fields differ");
    // The device's slabs are the scalar chunk's bytes (the sums after the fields, ψ, DFT sums
    // and polarisations): cells with sums migrate between device and host ranks.
    let whole = yee_core::Box3::from_extent(setup.grid);
    let device_slab = slab_bytes(stepped::<f64, _>(&device(), &setup, 20, &[whole]).unwrap());
    let scalar_slab = slab_bytes(stepped::<f64, _>(&scalar, &setup, 20, &[whole]).unwrap());
    assert!(device_slab == scalar_slab, "the slabs differ");
}

/// The bytes of `chunk`'s slab of its whole owned box.
fn slab_bytes<C: yee_core::Chunk>(mut chunk: C) -> Vec<u8>
where
    C::Error: core::fmt::Debug,
{
    use yee_core::StagingBuffer;
    let owned = chunk.owned();
    let bytes = chunk.slab_len(owned) * size_of::<C::Value>();
    let mut buffer = chunk.buffer(bytes).unwrap();
    chunk.pack_slabs(&[owned], &mut buffer).unwrap();
    chunk.wait().unwrap();
    buffer.bytes()[..bytes].to_vec()
}

/// Every entry point of every kernel file loads on the emulated device for every type, and a
/// launch whose arguments do not have the kernel's parameter sizes is refused naming both.
#[test]
#[allow(unsafe_code)]
fn every_kernel_loads_and_a_launch_of_wrong_sizes_is_refused() {
    use yee_cuda::device::{Arg, Driver, Emulated};
    use yee_cuda::kernels::{self, Precision};
    let driver = Emulated::open(0).unwrap();
    for file in kernels::ALL {
        for entry in file.entries {
            for p in Precision::ALL {
                driver
                    .kernel(file, entry, p)
                    .unwrap_or_else(|e| panic!("{} {entry} {p:?}: {e}", file.name));
            }
        }
    }
    let e = driver
        .kernel(kernels::BOX, "yee_curl", Precision::F32)
        .expect_err("box.cu has no yee_curl");
    assert!(
        e.message.contains("box.cu has no kernel yee_curl_f32"),
        "{e}"
    );
    let stream = driver.stream().unwrap();
    let source = driver
        .kernel(kernels::SOURCE, "yee_source", Precision::F64)
        .unwrap();
    let one = yee_cuda::layout::linear_launch(1).unwrap().unwrap();
    // A float where the f64 kernel takes a double: refused before anything runs.
    let args = [
        Arg::Address(0),
        Arg::Long(0),
        Arg::Float(1.0),
        Arg::Int(0),
        Arg::Address(0),
        Arg::Int(0),
        Arg::Address(0),
    ];
    // SAFETY: refused before it runs (the sizes differ), so no address is touched.
    let e = unsafe { driver.launch(&stream, &source, one, &args) }.expect_err("sizes differ");
    assert!(
        e.message
            .contains("yee_source_f64 takes parameters of [8, 8, 8, 4, 8, 4, 8] bytes")
            && e.message.contains("passed [8, 8, 4, 4, 8, 4, 8]"),
        "{e}"
    );
}

/// The bench's triad (`kernels/triad.cu`) writes b + 3c into every value and reports a finite
/// bandwidth; the bench's chunk stepped alone holds the scalar oracle's fields after its steps
/// (the untimed first step counted), so `yee bench --backend cuda` times the real update.
#[test]
fn the_bench_times_the_triad_and_the_real_update() {
    use yee_cuda::device::Emulated;
    use yee_cuda::device::bench::{DeviceTriad, SteppedChunk};
    use yee_em::{Component, YeeFields};
    let mut triad = DeviceTriad::<f64, Emulated>::new(0, 1000).unwrap();
    let bandwidth = triad.bandwidth().unwrap();
    assert!(bandwidth.is_finite() && bandwidth > 0.0, "{bandwidth}");
    assert!(triad.result().unwrap().iter().all(|&a| a == 7.0));
    let setup = yee_tests::conformance_cases::physics(Mode::ThreeD);
    let mut stepped = SteppedChunk::<f32, Emulated>::new(&setup).unwrap();
    let seconds = stepped.steps(11).unwrap();
    assert!(seconds > 0.0);
    let oracle = yee_tests::single_chunk::<f32>(&setup, 12);
    let owned = yee_core::Box3::from_extent(setup.grid);
    for c in Component::ALL {
        let mut out = vec![0.0; owned.cells()];
        if stepped
            .chunk_mut()
            .read_component(c, owned, &mut out)
            .unwrap()
        {
            assert_eq!(Some(&out), oracle.fields[c.index()].as_ref(), "{c:?}");
            assert!(out.iter().any(|&v| v != 0.0), "{c:?} never moved");
        }
    }
}
