//! RCDC (Smyk & Tudruj 2011) on the four 2D shapes of about 20 000 active cells, at tile size 1
//! (a graph of cells): every part connected, imbalance ≤ 1.05 for 8 and 32 equal parts and for
//! the heterogeneous targets 3, 3, 1, 1, 1, 1, 1, 1.

use yee_core::graph::{Graph, RcdcParams, TileGraph, quality, rcdc};

/// The active cells of a `side` × `side` grid, x fastest.
fn mask(side: usize, active: impl Fn(usize, usize) -> bool) -> Vec<bool> {
    (0..side * side)
        .map(|i| active(i % side, i / side))
        .collect()
}

/// An L: a 170² square without its upper-right quarter (21 675 cells).
fn l_shape() -> (usize, Vec<bool>) {
    (170, mask(170, |x, y| x < 85 || y < 85))
}

/// An annulus of radii 45 and 90 (≈ 19 100 cells).
fn annulus() -> (usize, Vec<bool>) {
    (
        182,
        mask(182, |x, y| {
            let (dx, dy) = (x as f64 - 90.5, y as f64 - 90.5);
            let r2 = dx * dx + dy * dy;
            (45.0 * 45.0..90.0 * 90.0).contains(&r2)
        }),
    )
}

/// A comb: a 200 × 10 spine with 3-cell fingers 3 cells apart, 182 cells tall (≈ 20 000).
fn comb() -> (usize, Vec<bool>) {
    (200, mask(200, |x, y| y < 10 || (x % 6 < 3 && y < 192)))
}

/// A 175² square with 35 % of its cells removed at random (seeded), reduced to its largest
/// connected cluster: the cells cut off from it could not exchange anything anyway.
fn porous() -> (usize, Vec<bool>) {
    let side = 175;
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut m: Vec<bool> = (0..side * side)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % 100) >= 35
        })
        .collect();
    let g = TileGraph::from_mask([side, side, 1], &m, [1, 1, 1], 1.0).unwrap();
    let all = vec![0; g.len()];
    // Component labels by flood fill over the cell graph.
    let mut label = vec![usize::MAX; g.len()];
    let mut sizes = Vec::new();
    for s in 0..g.len() {
        if label[s] != usize::MAX {
            continue;
        }
        let mut stack = vec![s];
        label[s] = sizes.len();
        let mut size = 0;
        while let Some(k) = stack.pop() {
            size += 1;
            for (n, _) in g.graph.edges(k) {
                if label[n] == usize::MAX && all[n] == 0 {
                    label[n] = sizes.len();
                    stack.push(n);
                }
            }
        }
        sizes.push(size);
    }
    let biggest = (0..sizes.len()).max_by_key(|&c| sizes[c]).unwrap();
    for (node, &tile) in g.tile_of.iter().enumerate() {
        m[tile] = label[node] == biggest;
    }
    (side, m)
}

fn graph(shape: (usize, Vec<bool>)) -> Graph {
    let (side, m) = shape;
    TileGraph::from_mask([side, side, 1], &m, [1, 1, 1], 1.0)
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
    let shapes = [
        ("L-shape", graph(l_shape())),
        ("annulus", graph(annulus())),
        ("porous", graph(porous())),
        ("comb", graph(comb())),
    ];
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
        if let Err(claim) = yee_core::graph::verify_rcdc([w, h, 1], mask, [tile, tile, 1], parts) {
            panic!("{claim}: {w}x{h}, tile {tile}, {parts} parts, mask {mask:?}");
        }
    }
}
