//! The backend conformance suite (`yee_tests::backend_conformance`) instantiated for every backend:
//! bit equality with the scalar oracle (fields and DFT sums) per example scene and per physics
//! case, shell/interior
//! split invariance, halo lengths symmetric between neighbours, slabs and in-place resizing
//! that carry every field and ψ. A new backend adds one line to `backends!` below. The rayon
//! backend's temporal blocking (wavefront tiles of several steps) meets the oracle on the same
//! scenes and cases (`rayon_tiles`).

use yee_core::Topology;
use yee_em::Mode;
use yee_tests::backend_conformance::{
    halos_are_symmetric, matches_the_oracle, resizes_like_the_oracle, slabs_round_trip,
    split_is_invariant, tiles_match_the_oracle,
};
use yee_tests::conformance_cases::{MODES, device_physics, example_scenes, physics};

macro_rules! backends {
    ($($name:ident => $backend:expr),* $(,)?) => {$(
        mod $name {
            use super::*;

            #[test]
            fn matches_the_oracle_on_every_example_scene() {
                for (path, mut scene) in example_scenes() {
                    // A mode source's currents come from the mode solver, as in `yee run`.
                    yee_simulation::mode_sources::expand_mode_sources(&mut scene).unwrap();
                    let setup = scene.setup();
                    matches_the_oracle::<f32, _>(&$backend, &setup, 30)
                        .unwrap_or_else(|e| panic!("{path} (f32): {e}"));
                    matches_the_oracle::<f64, _>(&$backend, &setup, 30)
                        .unwrap_or_else(|e| panic!("{path} (f64): {e}"));
                }
            }

            #[test]
            fn matches_the_oracle_in_every_mode() {
                for mode in MODES {
                    matches_the_oracle::<f64, _>(&$backend, &physics(mode), 40)
                        .unwrap_or_else(|e| panic!("{mode:?}: {e}"));
                    matches_the_oracle::<num_complex::Complex<f32>, _>(&$backend, &physics(mode), 20)
                        .unwrap_or_else(|e| panic!("{mode:?} (c32): {e}"));
                }
            }

            #[test]
            fn the_split_update_is_the_whole_update() {
                for mode in MODES {
                    split_is_invariant::<f64, _>(&$backend, &physics(mode), 40)
                        .unwrap_or_else(|e| panic!("{mode:?}: {e}"));
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
                    halos_are_symmetric::<f32, _>(&$backend, &physics(mode), topology)
                        .unwrap_or_else(|e| panic!("{mode:?}: {e}"));
                }
            }

            #[test]
            fn slabs_and_resizing_carry_every_field_and_psi() {
                for mode in MODES {
                    slabs_round_trip::<f64, _>(&$backend, &physics(mode), 30)
                        .unwrap_or_else(|e| panic!("{mode:?}: {e}"));
                }
            }

            #[test]
            fn resizing_across_material_faces_keeps_the_oracle_bits() {
                for mode in MODES {
                    resizes_like_the_oracle::<f64, _>(&$backend, &physics(mode), 10)
                        .unwrap_or_else(|e| panic!("{mode:?}: {e}"));
                }
            }
        }
    )*};
}

backends! {
    scalar => yee_scalar::ScalarCurl,
    rayon => yee_rayon::RayonCurl::with_threads(2).expect("a thread pool"),
}

/// Temporal blocking (issue 45): the rayon backend with `--time-block 2` and `4` in tiles
/// sized for a 1 KiB cache (slabs of one plane, two where H runs ahead of E), and `auto` for
/// this machine's cache, the steps submitted 7 at a time so
/// that tiles end inside and at the blocks: every example scene without a periodic axis, and
/// in every mode the physics case with a plane wave and a full-tensor ball
/// ([`device_physics`]: CPML, PEC and PMC walls, lossy, dispersive and anisotropic media,
/// off-diagonal nodes, TF/SF, sources and DFT monitors), bit for bit the oracle's. Every
/// scene but the 1D ones takes tiles of the `k` asked for.
mod rayon_tiles {
    use super::*;
    use yee_rayon::{RayonCurl, TimeBlock};

    fn backend(block: TimeBlock) -> RayonCurl {
        let rayon = RayonCurl::with_threads(2).expect("a thread pool");
        match block {
            TimeBlock::Auto => rayon.with_time_block(block),
            _ => rayon.with_time_block(block).with_cache_bytes(1 << 10),
        }
    }

    /// The tile's steps `taken` are what `block` asks for, where the mode tiles at all.
    fn took(block: TimeBlock, mode: Mode, taken: u64, what: &str) {
        match (block, mode) {
            (_, Mode::OneD) => assert_eq!(taken, 1, "{what}: a 1D grid took a tile"),
            (TimeBlock::Steps(k), _) => assert_eq!(taken, k, "{what}: {block:?} took {taken}"),
            _ => assert!(taken > 1, "{what}: {block:?} took no tile"),
        }
    }

    #[test]
    fn tiles_match_the_oracle_on_every_example_scene() {
        for (path, mut scene) in example_scenes() {
            yee_simulation::mode_sources::expand_mode_sources(&mut scene).unwrap();
            let setup = scene.setup();
            let periodic = yee_core::Axis::ALL
                .into_iter()
                .any(|a| setup.mode.active_axes()[a.index()] && setup.is_periodic(a));
            if periodic {
                continue;
            }
            for block in [TimeBlock::Steps(2), TimeBlock::Steps(4)] {
                let taken = tiles_match_the_oracle::<f32, _>(&backend(block), &setup, 30, 7)
                    .unwrap_or_else(|e| panic!("{path} (f32): {e}"));
                took(block, setup.mode, taken, &path);
            }
        }
    }

    #[test]
    fn tiles_match_the_oracle_in_every_mode() {
        for mode in MODES {
            let setup = device_physics(mode);
            for block in [TimeBlock::Steps(2), TimeBlock::Steps(4), TimeBlock::Auto] {
                let what = format!("{mode:?}");
                let taken = tiles_match_the_oracle::<f64, _>(&backend(block), &setup, 40, 7)
                    .unwrap_or_else(|e| panic!("{what}: {e}"));
                took(block, mode, taken, &what);
                let taken = tiles_match_the_oracle::<f32, _>(&backend(block), &setup, 30, 7)
                    .unwrap_or_else(|e| panic!("{what} (f32): {e}"));
                took(block, mode, taken, &what);
            }
        }
    }
}
