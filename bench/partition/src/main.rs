//! Compares RCDC (Smyk & Tudruj 2011) with METIS k-way, plain and with contiguous parts, on
//! the four irregular shapes at tile size 1 (a graph of cells) and at the default tile size,
//! for 8 and 32 equal parts: edge cut, imbalance, parts in pieces and run time, as the
//! Markdown table of docs/partitioning.md.
//!
//! `cargo run --release -p yee-partition-compare [SHAPE]` (bench only: METIS never enters
//! yee); a shape name keeps only that shape's rows.

use std::time::Instant;

use yee_core::graph::{Graph, Method, PartitionQuality, TileGraph, partition, quality};
use yee_scene::shapes;

/// One partitioner's result.
struct Outcome {
    quality: PartitionQuality,
    seconds: f64,
}

fn rcdc(g: &Graph, parts: usize) -> Outcome {
    let weights = vec![1.0; parts];
    let mut part = vec![0; g.len()];
    let start = Instant::now();
    partition(g, &weights, Method::Rcdc, &mut part).expect("enough tiles");
    let seconds = start.elapsed().as_secs_f64();
    Outcome {
        quality: quality(g, &part, &weights),
        seconds,
    }
}

fn metis(g: &Graph, parts: usize, contiguous: bool) -> Outcome {
    // METIS takes integer weights: node weights are active cells, edge weights facing pairs.
    let mut xadj: Vec<metis::Idx> = vec![0];
    let mut adjncy = Vec::new();
    let mut adjwgt = Vec::new();
    for n in 0..g.len() {
        for (m, w) in g.edges(n) {
            adjncy.push(m as metis::Idx);
            adjwgt.push(w.round() as metis::Idx);
        }
        xadj.push(adjncy.len() as metis::Idx);
    }
    let vwgt: Vec<metis::Idx> = g.weight.iter().map(|w| w.round() as metis::Idx).collect();
    let mut part = vec![0 as metis::Idx; g.len()];
    let start = Instant::now();
    metis::Graph::new(1, parts as metis::Idx, &xadj, &adjncy)
        .expect("a valid graph")
        .set_vwgt(&vwgt)
        .set_adjwgt(&adjwgt)
        .set_option(metis::option::Contig(contiguous))
        .set_option(metis::option::Seed(1))
        .part_kway(&mut part)
        .expect("METIS partitions");
    let seconds = start.elapsed().as_secs_f64();
    let part: Vec<usize> = part.iter().map(|&p| p as usize).collect();
    Outcome {
        quality: quality(g, &part, &vec![1.0; parts]),
        seconds,
    }
}

fn main() {
    println!(
        "| shape | tile | nodes | parts | RCDC cut | METIS cut | METIS-contig cut | RCDC imb. | METIS imb. | contig imb. | pieces RCDC / METIS / contig | RCDC s | METIS s | contig s |"
    );
    println!(
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: |"
    );
    let only = std::env::args().nth(1);
    for shape in shapes::all() {
        if only.as_ref().is_some_and(|name| name != shape.name) {
            continue;
        }
        for tile in [1, yee_scene::mask::DEFAULT_TILE] {
            let tg = TileGraph::from_mask(shape.grid(), &shape.active, [tile, tile, 1], 1.0)
                .expect("cells");
            let g = &tg.graph;
            for parts in [8, 32] {
                let r = rcdc(g, parts);
                let k = metis(g, parts, false);
                let c = metis(g, parts, true);
                println!(
                    "| {} | {tile} | {} | {parts} | {} | {} | {} | {:.3} | {:.3} | {:.3} | {} / {} / {} | {:.3} | {:.3} | {:.3} |",
                    shape.name,
                    g.len(),
                    r.quality.edge_cut,
                    k.quality.edge_cut,
                    c.quality.edge_cut,
                    r.quality.imbalance,
                    k.quality.imbalance,
                    c.quality.imbalance,
                    r.quality.disconnected,
                    k.quality.disconnected,
                    c.quality.disconnected,
                    r.seconds,
                    k.seconds,
                    c.seconds,
                );
            }
        }
    }
}
