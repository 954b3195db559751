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
