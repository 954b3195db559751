//! Checks a partition of the comb given cell by cell (a part number per cell, x fastest, as
//! `bench/partition/comb_tile8_dp.py` writes it) on the tile graph of TILE × TILE tiles: edge
//! cut, imbalance, parts in pieces node by node and cell by cell.
//!
//! `cargo run --release -p yee-partition-compare --bin comb_witness FILE TILE`

use yee_core::graph::{TileGraph, quality};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (Some(file), Some(tile)) = (args.get(1), args.get(2).and_then(|t| t.parse().ok())) else {
        eprintln!("usage: comb_witness FILE TILE");
        std::process::exit(2);
    };
    let comb = yee_scene::shapes::comb();
    let cells: Vec<usize> = std::fs::read_to_string(file)
        .expect("a readable file")
        .split_whitespace()
        .map(|s| s.parse::<i64>().expect("part numbers").max(0) as usize)
        .collect();
    assert_eq!(cells.len(), comb.active.len(), "one number per cell");
    let tg = TileGraph::from_mask(comb.grid(), &comb.active, [tile, tile, 1], 1.0).expect("cells");
    let node = tg.node_of_cells(&comb.active).expect("the mask");
    let mut part = vec![usize::MAX; tg.len()];
    for (cell, &n) in node.iter().enumerate() {
        if comb.active[cell] {
            let n = n as usize;
            assert!(
                part[n] == usize::MAX || part[n] == cells[cell],
                "node {n} in two parts"
            );
            part[n] = cells[cell];
        }
    }
    let parts = part.iter().max().map_or(0, |p| p + 1);
    let speeds = vec![1.0; parts];
    let q = quality(&tg.graph, &part, &speeds);
    let pieces = tg.cell_pieces(&comb.active, &part, parts).expect("parts");
    println!(
        "tile {tile}, {parts} parts: edge cut {}, imbalance {:.4}, parts in pieces {} (cell by cell: {}), empty {}",
        q.edge_cut,
        q.imbalance,
        q.disconnected,
        pieces.iter().filter(|&&p| p != 1).count(),
        q.empty_parts
    );
}
