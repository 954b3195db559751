//! The backend conformance suite (`yee_tests::backend_conformance`) instantiated for every backend:
//! bit equality with the scalar oracle (fields and DFT sums) per example scene and per physics
//! case, shell/interior
//! split invariance, halo lengths symmetric between neighbours, slabs and in-place resizing
//! that carry every field and ψ. A new backend adds one line to `backends!` below.

use yee_core::Topology;
use yee_em::Mode;
use yee_tests::backend_conformance::{
    halos_are_symmetric, matches_the_oracle, resizes_like_the_oracle, slabs_round_trip,
    split_is_invariant,
};
use yee_tests::conformance_cases::{MODES, example_scenes, physics};

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
