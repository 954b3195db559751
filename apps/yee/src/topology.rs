//! `yee topology`: every candidate topology with its share surface, and the choice.

use serde::Serialize;
use yee_core::topology::{choose_topology, for_each_candidate};

use crate::error::AppError;

/// One topology in the JSON output; 1D and 2D omit the unused factors.
#[derive(Debug, Serialize)]
pub struct CandidateJson {
    /// Ranks along x.
    pub n: usize,
    /// Ranks along y (2D and 3D).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub m: Option<usize>,
    /// Ranks along z (3D).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub k: Option<usize>,
    /// Share surface.
    pub f: f64,
}

/// The JSON document.
#[derive(Debug, Serialize)]
pub struct TopologyJson {
    /// Every feasible topology.
    pub candidates: Vec<CandidateJson>,
    /// The one with the smallest f.
    pub chosen: CandidateJson,
}

fn to_json(c: &yee_core::Candidate, dims: usize) -> CandidateJson {
    let t = c.topology.0;
    CandidateJson {
        n: t[0],
        m: (dims >= 2).then_some(t[1]),
        k: (dims >= 3).then_some(t[2]),
        f: c.f,
    }
}

/// The table (or JSON) for a grid of 1–3 extents over `ranks` ranks.
pub fn report(extents: &[usize], ranks: usize, json: bool) -> Result<String, AppError> {
    let dims = extents.len();
    let grid: [usize; 3] = std::array::from_fn(|a| extents.get(a).copied().unwrap_or(1));
    let chosen = choose_topology(grid, dims, ranks, 1)
        .map_err(|e| AppError::Usage(format!("--ranks {ranks}: {e}")))?;
    let mut all = Vec::new();
    for_each_candidate(grid, dims, ranks, 1, |c| all.push(c));
    if json {
        let doc = TopologyJson {
            candidates: all.iter().map(|c| to_json(c, dims)).collect(),
            chosen: to_json(&chosen, dims),
        };
        return Ok(serde_json::to_string_pretty(&doc).expect("serialises") + "\n");
    }
    let mut out = format!(
        "grid {} on {ranks} ranks: {} candidate topologies (f = share surface of the largest chunk)\n",
        extents
            .iter()
            .map(|n| n.to_string())
            .collect::<Vec<_>>()
            .join("x"),
        all.len()
    );
    for c in &all {
        let t = c.topology.0;
        let mark = if c.topology == chosen.topology {
            "  <- chosen"
        } else {
            ""
        };
        let size: Vec<String> = t[..dims].iter().map(|n| n.to_string()).collect();
        out.push_str(&format!(
            "  {:<8} {:<10} f = {:>12}{mark}\n",
            c.topology.name(dims),
            size.join("x"),
            c.f
        ));
    }
    Ok(out)
}
