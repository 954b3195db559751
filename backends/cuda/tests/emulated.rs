//! The backend conformance suite (`yee_tests::backend_conformance`) on the emulated device
//! (`--backend cuda-emulated`): the device chunk's own code (every launch and its argument
//! list, both streams and their events, the staging and pinned copies, read-backs, slabs and
//! resizing) running the kernel files built for the host, bit for bit the scalar oracle, f32
//! and f64, on every mode with CPML, walls, lossy, anisotropic and dispersive media, DFT
//! monitors and an oblique plane wave. What the device does not run yet is refused by name. Decomposed runs (halos on
//! sim and shm), balancing and checkpoints on emulated-device ranks are tested through
//! `yee run` (`apps/yee/tests/cuda.rs`).
#![cfg(feature = "cuda")]

use yee_core::Topology;
use yee_cuda::device::EmulatedBackend;
use yee_em::{Mode, YeeBackend};
use yee_tests::backend_conformance::{
    halos_are_symmetric, matches_the_oracle, slabs_round_trip, split_is_invariant,
};
use yee_tests::conformance_cases::{MODES, device_physics, example_scenes};

fn device() -> EmulatedBackend {
    EmulatedBackend::default()
}

/// What the device chunk refuses a setup with (`chunk.rs`, `supported`).
const REFUSED: &str = "the CUDA backend does not run";

#[test]
fn matches_the_oracle_on_every_example_scene_it_runs() {
    let mut ran = Vec::new();
    for (path, scene) in example_scenes() {
        let setup = scene.setup();
        match matches_the_oracle::<f32, _>(&device(), &setup, 30) {
            Err(e) if e.contains(REFUSED) => {
                eprintln!("{path}: refused: {e}");
                continue;
            }
            done => done.unwrap_or_else(|e| panic!("{path} (f32): {e}")),
        }
        matches_the_oracle::<f64, _>(&device(), &setup, 30)
            .unwrap_or_else(|e| panic!("{path} (f64): {e}"));
        ran.push(path);
    }
    assert!(ran.len() >= 5, "only {ran:?} ran on the device");
}

#[test]
fn matches_the_oracle_in_every_mode() {
    for mode in MODES {
        let setup = device_physics(mode);
        matches_the_oracle::<f32, _>(&device(), &setup, 40)
            .unwrap_or_else(|e| panic!("{mode:?} (f32): {e}"));
        matches_the_oracle::<f64, _>(&device(), &setup, 40)
            .unwrap_or_else(|e| panic!("{mode:?} (f64): {e}"));
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

/// A Bloch-periodic setup is refused by name (its fields are complex, and complex value
/// types are not device values at all: `DeviceReal` is f32 and f64).
#[test]
fn what_the_device_does_not_run_is_refused_by_name() {
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
        .expect_err("Bloch-periodic setups are not run on the device");
    let e = format!("{e:?}");
    assert!(
        e.contains(REFUSED) && e.contains("Bloch") && e.contains("Unsupported"),
        "{e}"
    );
}

/// A lossy sphere smoothed with the full tensor gives its surface nodes an off-diagonal loss
/// the device's tensor pass lacks: building it is refused by name (`yee run` keeps the
/// diagonal rule there on a device), never run with the wrong bits; lossless, it runs.
#[test]
fn an_off_diagonal_loss_is_refused_by_name() {
    use yee_em::{Boundary, Material, Region, Setup, Shape};
    let sphere = |sigma| {
        [Region {
            shape: Shape::Sphere {
                center: [8.0, 8.0, 8.0],
                radius: 4.3,
            },
            material: Material {
                sigma,
                ..Material::dielectric(2.25)
            },
        }]
    };
    let (lossy, lossless) = (sphere(0.02), sphere(0.0));
    let setup = |regions| Setup {
        regions,
        ..Setup::vacuum(Mode::ThreeD, [16; 3], 0.5, [[Boundary::Pec; 2]; 3])
    };
    let whole = yee_core::Box3::from_extent([16; 3]);
    assert!(setup(&lossy).smooths_lossy_off_diagonal());
    let e = YeeBackend::<f32>::build(&device(), &setup(&lossy), whole, Default::default())
        .expect_err("the off-diagonal loss is not run on the device");
    let e = format!("{e:?}");
    assert!(
        e.contains(REFUSED) && e.contains("off-diagonal loss"),
        "{e}"
    );
    assert!(!setup(&lossless).smooths_lossy_off_diagonal());
    assert!(setup(&lossless).smooths_off_diagonal());
    YeeBackend::<f32>::build(&device(), &setup(&lossless), whole, Default::default()).unwrap();
}

/// Every entry point of every kernel file loads on the emulated device for both types, and a
/// launch whose arguments do not have the kernel's parameter sizes is refused naming both.
#[test]
#[allow(unsafe_code)]
fn every_kernel_loads_and_a_launch_of_wrong_sizes_is_refused() {
    use yee_cuda::device::{Arg, Driver, Emulated};
    use yee_cuda::kernels::{self, Precision};
    let driver = Emulated::open(0).unwrap();
    for file in kernels::ALL {
        for entry in file.entries {
            for p in Precision::BOTH {
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
