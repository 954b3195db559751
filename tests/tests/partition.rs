//! Border rounding properties for random densities, speeds and minimum widths (the same checks
//! as the `partition` fuzz target).

use proptest::prelude::*;
use yee_core::verify::verify_rounding;

proptest! {
    #[test]
    fn rounding_claims_hold(
        density in prop::collection::vec(prop_oneof![Just(0.0), 0.1f64..3.0, Just(f64::NAN)], 1..300),
        weights in prop::collection::vec(prop_oneof![Just(0.0), 0.01f64..10.0, Just(-1.0)], 1..40),
        min_width in 0usize..4,
    ) {
        let mut scratch = vec![0.0; 2 * (weights.len() + 1)];
        let mut borders = vec![0i64; 2 * (weights.len() + 1)];
        prop_assert_eq!(verify_rounding(&density, &weights, min_width, &mut scratch, &mut borders), Ok(()));
    }
}
