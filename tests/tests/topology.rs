//! Balykov 2017, tables 1–4: the share surfaces f and the chosen topology, exactly; the whole
//! candidate tables are snapshots. Properties of the chooser hold for random grids.

use proptest::prelude::*;
use yee_core::Topology;
use yee_core::topology::{choose_topology, for_each_candidate};
use yee_core::verify::verify_choice;

fn table(grid: [usize; 3], dims: usize, ranks: usize) -> String {
    let chosen = choose_topology(grid, dims, ranks, 1).unwrap();
    let mut out = String::new();
    for_each_candidate(grid, dims, ranks, 1, |c| {
        let mark = if c.topology == chosen.topology {
            " <- chosen"
        } else {
            ""
        };
        out.push_str(&format!(
            "{:<7} {:?} f = {}{mark}\n",
            c.topology.name(dims),
            c.topology.0,
            c.f
        ));
    });
    out
}

fn f_of(grid: [usize; 3], dims: usize, t: [usize; 3]) -> f64 {
    yee_core::topology::share_surface(grid, dims, Topology(t))
}

#[test]
fn table_1_2d_256x256_on_4() {
    let g = [256, 256, 1];
    assert_eq!(f_of(g, 2, [4, 1, 1]), 320.0);
    assert_eq!(f_of(g, 2, [2, 2, 1]), 256.0);
    assert_eq!(
        choose_topology(g, 2, 4, 1).unwrap().topology,
        Topology([2, 2, 1])
    );
    insta::assert_snapshot!(table(g, 2, 4));
}

#[test]
fn table_2_2d_8192x8_on_4() {
    let g = [8192, 8, 1];
    assert_eq!(f_of(g, 2, [4, 1, 1]), 2056.0);
    assert_eq!(f_of(g, 2, [2, 2, 1]), 4100.0);
    assert_eq!(
        choose_topology(g, 2, 4, 1).unwrap().topology,
        Topology([4, 1, 1])
    );
    insta::assert_snapshot!(table(g, 2, 4));
}

#[test]
fn table_3_3d_64_cubed_on_8() {
    let g = [64, 64, 64];
    assert_eq!(f_of(g, 3, [8, 1, 1]), 5664.0);
    assert_eq!(f_of(g, 3, [4, 2, 1]), 4032.0);
    // The paper's row reads "n = 8, m = 1, k = 1"; its f = 3456 belongs to 2×2×2.
    assert_eq!(f_of(g, 3, [2, 2, 2]), 3456.0);
    assert_eq!(
        choose_topology(g, 3, 8, 1).unwrap().topology,
        Topology([2, 2, 2])
    );
    insta::assert_snapshot!(table(g, 3, 8));
}

#[test]
fn table_4_3d_4096x8x8_on_8() {
    let g = [4096, 8, 8];
    assert_eq!(f_of(g, 3, [8, 1, 1]), 10368.0);
    assert_eq!(f_of(g, 3, [4, 2, 1]), 16464.0);
    assert_eq!(f_of(g, 3, [2, 2, 2]), 24624.0);
    assert_eq!(
        choose_topology(g, 3, 8, 1).unwrap().topology,
        Topology([8, 1, 1])
    );
    insta::assert_snapshot!(table(g, 3, 8));
}

#[test]
fn grids_too_small_for_the_ranks_are_errors() {
    let e = choose_topology([3, 2, 1], 2, 7, 1).unwrap_err();
    assert_eq!(
        e.to_string(),
        "a grid of 3×2×1 cells cannot be split into 7 chunks at least 1 cell(s) wide"
    );
    assert!(choose_topology([37, 29, 23], 3, 6, 1).is_ok());
}

proptest! {
    #[test]
    fn chooser_claims_hold(dims in 1usize..=3, a in 1usize..300, b in 1usize..120, c in 1usize..60, ranks in 1usize..=64, reach in 1usize..=3) {
        let grid = [a, if dims >= 2 { b } else { 1 }, if dims >= 3 { c } else { 1 }];
        prop_assert_eq!(verify_choice(grid, dims, ranks, reach), Ok(()));
    }
}
