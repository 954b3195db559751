//! Scene positions land on the cell exact arithmetic puts them in: `k·Δ` in metres is node `k`
//! for every `k` up to 10⁵ and a dozen cell sizes, whether the position is the double nearest
//! the exact decimal or the product `k as f64 * Δ` — not `k − 1` when the quotient rounds to
//! 42.999999999999993 (gprMax B-scans with 0.002 m cells striped before).

use std::path::Path;

use yee_scene::Units;

/// Cell sizes as decimal mantissa and exponent: Δ = m·10^e.
const CELL_SIZES: [(u64, i32); 12] = [
    (2, -3),
    (1, -1),
    (1, -9),
    (5, -3),
    (1, -2),
    (25, -3),
    (1, -3),
    (3, -3),
    (7, -4),
    (3, -1),
    (25, -7),
    (15, -2),
];

#[test]
fn every_multiple_of_the_cell_size_lands_on_its_node() {
    for (m, e) in CELL_SIZES {
        let d: f64 = format!("{m}e{e}").parse().unwrap();
        let units = Units::Si { cell_size: d };
        for k in 0..=100_000u64 {
            // The double nearest k·m·10^e, as a scene file writes it, and the product.
            let decimal: f64 = format!("{}e{e}", k * m).parse().unwrap();
            for x in [decimal, k as f64 * d] {
                let cells = units.length(x);
                assert_eq!(cells.floor() as u64, k, "{x} m with {d} m cells: {cells}");
            }
        }
    }
}

#[test]
fn lengths_between_nodes_are_not_moved() {
    let units = Units::Si { cell_size: 0.002 };
    assert_eq!(units.length(0.0871), 0.0871 / 0.002);
    assert!(units.length(0.086 - 1e-7) < 43.0);
}

/// Half a cell is where the other half of the nodes sit (Hy at x + ½, …): 0.087 m with 2 mm
/// cells is 43.5 in exact arithmetic and 43.49999999999999 in floating point; it lands on the
/// node, in SI and in lengths of `a` alike.
#[test]
fn lengths_on_half_cells_land_on_the_half_nodes() {
    assert_eq!(Units::Si { cell_size: 0.002 }.length(0.087), 43.5);
    assert_eq!(Units::Lengths { resolution: 10.0 }.length(0.35), 3.5);
    assert_eq!(Units::Lengths { resolution: 3.0 }.length(0.1), 0.1 * 3.0);
}

#[test]
fn a_probe_at_0_086_m_with_2_mm_cells_is_in_cell_43() {
    let text = include_str!("scenes/si_probe_86mm.toml");
    let s = yee_scene::parse(Path::new("positions.toml"), text).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(s.probes[0].cell, [43, 85, 0]);
}
