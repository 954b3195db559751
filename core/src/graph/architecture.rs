//! The architecture model of Smyk & Tudruj 2011, table 2: homogeneous machines described by
//! a processor speed (fast 1 GFlops, medium 0.3, slow 0.02) and a communication speed between
//! two processors (fast: shared memory, medium: RB RDMA, slow: MPI), nine combinations FF … SS,
//! and the step time and speedup of a partition on them (their figures 9, 10 and 13).
//!
//! The table names the links but gives no numbers for them; the latencies and bandwidths of
//! [`LINKS`] are yee's assumptions (documented in docs/partitioning.md), as is the cost of a
//! cell in flops ([`FLOPS_PER_CELL`]).

use alloc::vec;

use super::csr::Graph;

/// A link kind: Hockney's latency and bandwidth.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Link {
    /// Letter of table 2: F, M or S.
    pub letter: char,
    /// What it stands for.
    pub name: &'static str,
    /// Seconds per message.
    pub latency: f64,
    /// Bytes per second.
    pub bandwidth: f64,
}

/// The three links of table 2 (numbers assumed: a 2011 shared-memory node, an RDMA fabric
/// with little processor involvement, MPI over Gigabit Ethernet).
pub const LINKS: [Link; 3] = [
    Link {
        letter: 'F',
        name: "shared memory",
        latency: 0.2e-6,
        bandwidth: 4e9,
    },
    Link {
        letter: 'M',
        name: "RB RDMA",
        latency: 2e-6,
        bandwidth: 1e9,
    },
    Link {
        letter: 'S',
        name: "MPI",
        latency: 50e-6,
        bandwidth: 0.1e9,
    },
];

/// The three processor speeds of table 2, in flops per second, with their letters.
pub const PROCESSORS: [(char, f64); 3] = [('F', 1e9), ('M', 0.3e9), ('S', 0.02e9)];

/// Floating-point operations of one 2D TMz cell per step: Ez = Ca·Ez + Cb·(∂Hy − ∂Hx) is
/// 6, Hx and Hy 4 each.
pub const FLOPS_PER_CELL: f64 = 14.0;

/// Bytes of one value crossing a cut edge (double precision).
pub const BYTES_PER_VALUE: f64 = 8.0;

/// Messages per step between two neighbouring parts in each direction (the H and E phases).
pub const MESSAGES_PER_STEP: f64 = 2.0;

/// One machine of table 2.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Architecture {
    /// Processor letter then link letter, e.g. "FS".
    pub symbol: [char; 2],
    /// Flops per second of each processor.
    pub flops: f64,
    /// Its link between any two processors.
    pub link: Link,
}

/// The nine machines of table 2, in its order (FF, FM, FS, MF, … SS).
pub fn table_2() -> [Architecture; 9] {
    core::array::from_fn(|i| {
        let (p, flops) = PROCESSORS[i / 3];
        let link = LINKS[i % 3];
        Architecture {
            symbol: [p, link.letter],
            flops,
            link,
        }
    })
}

impl Architecture {
    /// The step time of `part` (the part of each node of `g`, below `parts`): the slowest
    /// processor's compute time (its weight × [`FLOPS_PER_CELL`] ÷ flops) plus, for each part
    /// it shares edges with, [`MESSAGES_PER_STEP`] messages of Hockney time (latency + the
    /// shared edge weight × [`BYTES_PER_VALUE`] ÷ bandwidth), sent one after the other.
    pub fn step_time(&self, g: &Graph, part: &[usize], parts: usize) -> f64 {
        let mut weight = vec![0.0; parts];
        // shared[p * parts + q]: the edge weight between parts p and q.
        let mut shared = vec![0.0; parts * parts];
        for n in 0..g.len() {
            weight[part[n]] += g.weight[n];
            for (m, w) in g.edges(n) {
                if part[m] != part[n] {
                    shared[part[n] * parts + part[m]] += w;
                }
            }
        }
        (0..parts)
            .map(|p| {
                let compute = weight[p] * FLOPS_PER_CELL / self.flops;
                let communicate: f64 = shared[p * parts..(p + 1) * parts]
                    .iter()
                    .filter(|&&w| w > 0.0)
                    .map(|&w| {
                        MESSAGES_PER_STEP
                            * (self.link.latency + w * BYTES_PER_VALUE / self.link.bandwidth)
                    })
                    .sum();
                compute + communicate
            })
            .fold(0.0, f64::max)
    }

    /// One processor's step time over the whole graph divided by the partition's.
    pub fn speedup(&self, g: &Graph, part: &[usize], parts: usize) -> f64 {
        g.total_weight() * FLOPS_PER_CELL / self.flops / self.step_time(g, part, parts)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_2_in_order() {
        let symbols: [[char; 2]; 9] = table_2().map(|a| a.symbol);
        let names: alloc::vec::Vec<alloc::string::String> =
            symbols.iter().map(|s| s.iter().collect()).collect();
        assert_eq!(
            names,
            ["FF", "FM", "FS", "MF", "MM", "MS", "SF", "SM", "SS"]
        );
        assert_eq!(table_2()[5].flops, 0.3e9);
        assert_eq!(table_2()[5].link.name, "MPI");
    }

    #[test]
    fn step_time_of_a_path_by_hand() {
        // Four nodes of weight 100 in a path, edges of weight 10, cut in the middle.
        let g = Graph::from_edges(vec![100.0; 4], &[(0, 1, 10.0), (1, 2, 10.0), (2, 3, 10.0)]);
        let part = [0, 0, 1, 1];
        let ff = table_2()[0];
        // compute 200 · 14 / 1e9 = 2.8 µs; 2 · (0.2 µs + 10 · 8 / 4e9 s = 0.02 µs) = 0.44 µs.
        let t = ff.step_time(&g, &part, 2);
        assert!((t - 3.24e-6).abs() < 1e-15, "{t}");
        let s = ff.speedup(&g, &part, 2);
        assert!((s - 5.6 / 3.24).abs() < 1e-12, "{s}");
        // One part: no communication, speedup 1.
        assert!((ff.speedup(&g, &[0; 4], 1) - 1.0).abs() < 1e-15);
    }
}
