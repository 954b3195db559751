//! RCDC (Smyk & Tudruj 2011) on the four 2D shapes of about 20 000 active cells, at tile size 1
//! (a graph of cells): every part connected, imbalance ≤ 1.05 for 8 and 32 equal parts and for
//! the heterogeneous targets 3, 3, 1, 1, 1, 1, 1, 1.

use yee_core::graph::{Graph, RcdcParams, TileGraph, quality, rcdc};
use yee_scene::shapes::{ShapeMask, all};

fn graph(shape: &ShapeMask) -> Graph {
    TileGraph::from_mask(shape.grid(), &shape.active, [1, 1, 1], 1.0)
        .unwrap()
        .graph
}

fn check(name: &str, g: &Graph, speeds: &[f64]) {
    let mut part = vec![0; g.len()];
    let t = std::time::Instant::now();
    let imbalance = rcdc(g, speeds, RcdcParams::default(), &mut part).unwrap();
    let q = quality(g, &part, speeds);
    eprintln!(
        "{name}: {} cells, {} parts: imbalance {:.4}, edge cut {}, disconnected {}, {:.2} s",
        g.len(),
        speeds.len(),
        q.imbalance,
        q.edge_cut,
        q.disconnected,
        t.elapsed().as_secs_f64()
    );
    assert_eq!(q.empty_parts, 0, "{name}: {q:?}");
    assert_eq!(q.disconnected, 0, "{name}: {q:?}");
    assert!(q.imbalance <= 1.05, "{name}: {q:?}");
    assert!((imbalance - q.imbalance).abs() < 1e-12, "{name}");
}

#[test]
fn rcdc_on_the_four_shapes() {
    let shapes = all().map(|s| (s.name, graph(&s)));
    for (name, g) in &shapes {
        assert!((15_000..25_000).contains(&g.len()), "{name}: {}", g.len());
        check(name, g, &[1.0; 8]);
        check(name, g, &[1.0; 32]);
        check(name, g, &[3.0, 3.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]);
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(200))]
    /// Any mask up to 24 × 24, tiles up to 4 × 4, 1 to 12 parts: what `verify_rcdc` checks.
    #[test]
    fn rcdc_claims_hold(
        w in 1usize..24,
        h in 1usize..24,
        tile in 1usize..5,
        parts in 0usize..13,
        bits in proptest::collection::vec(proptest::bool::weighted(0.7), 576),
    ) {
        let mask = &bits[..w * h];
        if let Err(claim) = yee_core::verify::verify_rcdc([w, h, 1], mask, [tile, tile, 1], parts) {
            panic!("{claim}: {w}x{h}, tile {tile}, {parts} parts, mask {mask:?}");
        }
    }
}
