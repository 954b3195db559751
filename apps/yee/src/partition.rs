//! `yee partition`: cuts a scene's active cells (or one of the four test shapes) into tiles,
//! partitions the tile graph by RCDC, the redeployment algorithm or CDC (Smyk & Tudruj 2011),
//! and reports each part, the cut, the imbalance, the parts in pieces and the run time; draws
//! the parts as a PNG; with `--speedup`, evaluates the partitions for 8 … 256 processors on
//! the nine machines of the paper's table 2.

use std::path::{Path, PathBuf};

use serde::Serialize;
use yee_core::graph::architecture::table_2;
use yee_core::graph::{Method, TileGraph, quality};
use yee_runtime::tiled::{Area, run_partition};

use crate::error::AppError;
use yee_simulation::weights::check_weights;

/// One part of a partition.
#[derive(Debug, Serialize)]
pub struct PartReport {
    /// Part number (the rank).
    pub part: usize,
    /// Its target share of the total weight (from `--weights`).
    pub target: f64,
    /// Its weight (active cells).
    pub weight: f64,
    /// Nodes of the tile graph it holds (tiles, or pieces of tiles crossed by inactive cells).
    pub tiles: usize,
    /// Edge weight to other parts: cells it sends per phase.
    pub volume: f64,
    /// Connected pieces of its active cells, face neighbours joined (1 for a connected part,
    /// 0 for an empty one).
    pub pieces: usize,
}

/// The report of `yee partition`.
#[derive(Debug, Serialize)]
pub struct PartitionReport {
    /// Scene or shape name.
    pub name: String,
    /// rcdc, redeploy or cdc.
    pub method: String,
    /// Number of parts.
    pub ranks: usize,
    /// Tile extent.
    pub tile: [usize; 3],
    /// Nodes of the tile graph.
    pub nodes: usize,
    /// Active cells.
    pub cells: usize,
    /// Each part.
    pub parts: Vec<PartReport>,
    /// Sum of the weights of cut edges.
    pub edge_cut: f64,
    /// Sum of the parts' volumes (twice the cut).
    pub volume: f64,
    /// Max over parts of weight ÷ target.
    pub imbalance: f64,
    /// Pieces beyond one per part, cell by cell, summed.
    pub disconnected: usize,
    /// Parts with nothing.
    pub empty_parts: usize,
    /// Seconds the partitioning took.
    pub seconds: f64,
    /// The PNG written, if any.
    pub png: Option<PathBuf>,
}

/// Partitions `area` and reports it.
pub fn report(
    area: &Area,
    graph: &TileGraph,
    weights: &[f64],
    method: Method,
) -> Result<(PartitionReport, Vec<usize>), AppError> {
    let (part, seconds) = run_partition(graph, weights, method)?;
    let g = &graph.graph;
    let q = quality(g, &part, weights);
    let total_target: f64 = weights.iter().sum();
    // Pieces cell by cell (face neighbours, as the stencil reaches), not node by node.
    let pieces = graph
        .cell_pieces(&area.active, &part, weights.len())
        .ok_or_else(|| {
            AppError::Run(format!(
                "{}: the tile graph was built from another mask",
                area.name
            ))
        })?;
    let parts = (0..weights.len())
        .map(|p| PartReport {
            part: p,
            target: weights[p] / total_target,
            weight: q.part_weight[p],
            tiles: part.iter().filter(|&&k| k == p).count(),
            volume: q.comm_volume[p],
            pieces: pieces[p],
        })
        .collect();
    Ok((
        PartitionReport {
            name: area.name.clone(),
            method: method.name().into(),
            ranks: weights.len(),
            tile: graph.tile,
            nodes: graph.len(),
            cells: graph.cells.iter().sum(),
            parts,
            edge_cut: q.edge_cut,
            volume: q.comm_volume.iter().sum(),
            imbalance: q.imbalance,
            disconnected: pieces.iter().map(|&p| p.saturating_sub(1)).sum(),
            empty_parts: q.empty_parts,
            seconds,
            png: None,
        },
        part,
    ))
}

/// The report as text.
pub fn table(r: &PartitionReport) -> String {
    let mut s = format!(
        "{}: {} active cells in {} tile graph nodes (tiles of {} or their pieces), {} parts by {}\n\n",
        r.name,
        r.cells,
        r.nodes,
        r.tile.map(|t| t.to_string()).join("x"),
        r.ranks,
        r.method
    );
    s.push_str("part  target  weight  tiles  volume  pieces\n");
    for p in &r.parts {
        s.push_str(&format!(
            "{:>4}  {:>6.3}  {:>6}  {:>5}  {:>6}  {:>6}\n",
            p.part, p.target, p.weight, p.tiles, p.volume, p.pieces
        ));
    }
    s.push_str(&format!(
        "\nedge cut {}, communication volume {}, imbalance {:.4} (max weight / target), \
         {} disconnected, {} empty, {:.3} s\n",
        r.edge_cut, r.volume, r.imbalance, r.disconnected, r.empty_parts, r.seconds
    ));
    if let Some(png) = &r.png {
        s.push_str(&format!("wrote {}\n", png.display()));
    }
    s
}

/// The weights of `--weights` for `ranks` parts (all 1 when absent).
pub fn weights(text: Option<&str>, ranks: usize) -> Result<Vec<f64>, AppError> {
    if ranks == 0 {
        return Err(AppError::Usage("--ranks 0: at least one part".into()));
    }
    let Some(text) = text else {
        return Ok(vec![1.0; ranks]);
    };
    check_weights(
        "--weights",
        crate::parse::parse_numbers("--weights", text)?,
        ranks,
    )
}

/// A colour per part: hues spaced by the golden angle, alternating lightness.
pub fn part_colour(p: usize) -> [u8; 3] {
    let h = (p as f64 * 0.618_033_988_75).fract() * 6.0;
    let (s, v) = (0.65, if p % 2 == 0 { 0.95 } else { 0.75 });
    let c = v * s;
    let x = c * (1.0 - ((h % 2.0) - 1.0).abs());
    let (r, g, b) = match h as usize {
        0 => (c, x, 0.0),
        1 => (x, c, 0.0),
        2 => (0.0, c, x),
        3 => (0.0, x, c),
        4 => (x, 0.0, c),
        _ => (c, 0.0, x),
    };
    let m = v - c;
    [r, g, b].map(|k| ((k + m) * 255.0).round() as u8)
}

/// Draws the parts of the middle z plane (a colour per part, inactive cells black, y up),
/// each cell a square of pixels so the image is about 512 pixels across.
pub fn write_png(
    path: &Path,
    area: &Area,
    graph: &TileGraph,
    part: &[usize],
) -> Result<(), AppError> {
    let [nx, ny, nz] = area.grid;
    let z = nz / 2;
    let scale = (512 / nx.max(ny)).max(1);
    let (w, h) = (nx * scale, ny * scale);
    let node_of = graph.node_of_cells(&area.active).ok_or_else(|| {
        AppError::Run(format!(
            "{}: the tile graph was built from another mask",
            area.name
        ))
    })?;
    let mut data = vec![0u8; w * h * 3];
    for y in 0..ny {
        for x in 0..nx {
            if !area.active[x + nx * (y + ny * z)] {
                continue;
            }
            let colour = part_colour(part[node_of[x + nx * (y + ny * z)] as usize]);
            for dy in 0..scale {
                let row = (ny - 1 - y) * scale + dy;
                for dx in 0..scale {
                    let at = 3 * (row * w + x * scale + dx);
                    data[at..at + 3].copy_from_slice(&colour);
                }
            }
        }
    }
    yee_io::png::save_rgb(path, w, h, &data).map_err(|e| crate::error::io_error(path, e))
}

/// One row of the speedup table: a machine of table 2 and its speedup per processor count.
#[derive(Debug, Serialize)]
pub struct SpeedupRow {
    /// FF … SS.
    pub architecture: String,
    /// Speedup for each entry of [`SpeedupTable::processors`].
    pub speedup: Vec<f64>,
}

/// Speedups of one method over the nine machines of table 2.
#[derive(Debug, Serialize)]
pub struct SpeedupTable {
    /// Area name.
    pub name: String,
    /// Method.
    pub method: String,
    /// Tile extent.
    pub tile: [usize; 3],
    /// Processor counts.
    pub processors: Vec<usize>,
    /// Imbalance of each partition.
    pub imbalance: Vec<f64>,
    /// One row per machine.
    pub rows: Vec<SpeedupRow>,
}

/// Partitions `graph` for each processor count (8 … 256, those the graph can hold) by
/// `method` and evaluates each partition on the machines of table 2.
pub fn speedups(area: &Area, graph: &TileGraph, method: Method) -> Result<SpeedupTable, AppError> {
    let processors: Vec<usize> = [8, 16, 32, 64, 128, 256]
        .into_iter()
        .filter(|&p| p <= graph.len())
        .collect();
    let machines = table_2();
    let mut rows: Vec<SpeedupRow> = machines
        .iter()
        .map(|m| SpeedupRow {
            architecture: m.symbol.iter().collect(),
            speedup: Vec::new(),
        })
        .collect();
    let mut imbalance = Vec::new();
    for &p in &processors {
        let weights = vec![1.0; p];
        let (part, _) = run_partition(graph, &weights, method)?;
        imbalance.push(quality(&graph.graph, &part, &weights).imbalance);
        for (row, m) in rows.iter_mut().zip(&machines) {
            row.speedup.push(m.speedup(&graph.graph, &part, p));
        }
        log::info!("{}: {p} processors partitioned", area.name);
    }
    Ok(SpeedupTable {
        name: area.name.clone(),
        method: method.name().into(),
        tile: graph.tile,
        processors,
        imbalance,
        rows,
    })
}

/// The speedup table as Markdown.
pub fn speedup_markdown(t: &SpeedupTable) -> String {
    let mut s = format!(
        "{} by {} at tile {}: speedup over one processor\n\n| machine |",
        t.name,
        t.method,
        t.tile.map(|x| x.to_string()).join("x")
    );
    for p in &t.processors {
        s.push_str(&format!(" {p} |"));
    }
    s.push_str("\n| --- |");
    s.push_str(&" ---: |".repeat(t.processors.len()));
    s.push('\n');
    for row in &t.rows {
        s.push_str(&format!("| {} |", row.architecture));
        for v in &row.speedup {
            s.push_str(&format!(" {v:.1} |"));
        }
        s.push('\n');
    }
    s.push_str("| imbalance |");
    for v in &t.imbalance {
        s.push_str(&format!(" {v:.3} |"));
    }
    s.push('\n');
    s
}
