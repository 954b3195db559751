//! The brute-force oracle of the topology chooser (Balykov 2017, eqs. (1)–(7)).

use crate::decomposition::uniform_borders;
use crate::topology::{Topology, TopologyError, check_topology, choose_topology, share_surface};

/// Checks every claim the chooser and the uniform split make for `grid` (of `dims`
/// dimensions) over `ranks` ranks, by brute force; returns what failed. The property tests and
/// the fuzz target call it.
///
/// Claims: an answer is feasible and no factorisation `n·m·k = ranks` has a smaller f; an error
/// means no factorisation is feasible; uniform borders tile each axis exactly, strictly
/// increasing, every chunk at least `min_width` wide.
pub fn verify_choice(
    grid: [usize; 3],
    dims: usize,
    ranks: usize,
    min_width: usize,
) -> Result<(), &'static str> {
    let mut best_brute: Option<f64> = None;
    for n in 1..=ranks {
        for m in 1..=ranks / n {
            if ranks % (n * m) != 0 {
                continue;
            }
            let t = Topology([n, m, ranks / (n * m)]);
            let feasible = (0..3).all(|a| {
                if a < dims {
                    grid[a] / t.0[a] >= min_width.max(1)
                } else {
                    t.0[a] == 1
                }
            });
            if feasible {
                let f = share_surface(grid, dims, t);
                best_brute = Some(best_brute.map_or(f, |b: f64| b.min(f)));
            }
        }
    }
    match (choose_topology(grid, dims, ranks, min_width), best_brute) {
        (Ok(c), Some(best)) => {
            if c.f != best {
                return Err("a factorisation has a smaller share surface than the chosen one");
            }
            check_topology(grid, dims, ranks, c.topology, min_width)
                .map_err(|_| "the chosen topology is infeasible")?;
            for a in 0..3 {
                let parts = c.topology.0[a];
                let mut borders = [0i64; 65];
                if parts + 1 > borders.len() {
                    continue;
                }
                uniform_borders(grid[a], parts, &mut borders[..=parts]);
                if borders[0] != 0 || borders[parts] != grid[a] as i64 {
                    return Err("borders do not run from 0 to the extent");
                }
                for w in borders[..=parts].windows(2) {
                    let width = w[1] - w[0];
                    if width <= 0 || (a < dims && (width as usize) < min_width) {
                        return Err("a chunk is empty or narrower than the reach");
                    }
                }
            }
            Ok(())
        }
        (Err(TopologyError::TooNarrow { .. }), None) => Ok(()),
        (Err(TopologyError::NoRanks), None) if ranks == 0 => Ok(()),
        (Ok(_), None) => Err("the chooser answered where no factorisation is feasible"),
        (Err(_), _) => Err("the chooser failed where a factorisation is feasible"),
    }
}
