//! A decision of the tensor-layout balancer (Balykov 2019) from reductions instead of an
//! all-gather (issue 53; needs the `alloc` feature).
//!
//! Eqs. (9)–(19) and the layout (eq. (8)) need of the N ranks' measurements only: the
//! performance of each line of each axis (eq. (21): a sum over the ranks of the line), the
//! border table (the slowest link across each border: a maximum), the measured step time
//! (eq. (2): maxima of compute and waiting times), the work of a whole step (S of eq. (12): a
//! sum), and — while some rank has never been measured — the mean performance of the others
//! ([`crate::balance::rank_perf`]). Each rank records its own interval
//! ([`Balancer::record_rank`]), contributes a vector of O(lines) values that is zero but where
//! it adds to a line or a border, and one [`Comm::all_reduce`] (two while a rank is
//! unmeasured) gives every rank the same inputs: O(lines) bytes per rank per decision, where
//! the all-gather of every rank's `GATHER_LEN` values moved O(N).
//!
//! The sums are accumulated in the tree order over rank index of [`crate::tree_sum`]
//! ([`Comm::all_reduce`]: ⌈log₂ N⌉ latencies up a binomial tree and ⌊log₂ N⌋ down a binary
//! one) and a rank adds 0 to every line it is not in (`x + 0 = x` exactly), so each line's sum
//! has the bits of the same tree over the line's ranks that [`Balancer::decide`] sums; maxima
//! do not depend on the order. The decisions are therefore the all-gather formula's bit for bit
//! (the property test `reduced_decisions_are_the_all_gathers_bit_for_bit` in `yee-tests`
//! compares them on the simulated communicator).
//!
//! Only the decisions are reduced: each rank keeps its own measurements, and those a profile
//! or a checkpoint saves are gathered at the rank that writes it, when it is written
//! ([`gather_measurements`]).

use alloc::vec;
use alloc::vec::Vec;

use crate::balance::{Balancer, MEASUREMENTS_LEN, measured_seconds};
use crate::comm::{Comm, all_reduce_bytes_sent};
use crate::decomposition::rank_coords;

/// What the ranks' measurements reduce to: everything [`Balancer::decide_from`] needs.
#[derive(Clone, Debug, PartialEq)]
pub struct Reduced {
    /// The measured step time of the interval (eq. (2) on the interval means).
    pub measured: f64,
    /// S of eq. (12): the work of one whole step, summed over the ranks in the tree order of
    /// [`crate::tree_sum`].
    pub total_work: f64,
    /// Per axis, the performance of each line (eq. (21)).
    pub line_perf: [Vec<f64>; 3],
    /// Per axis, the slowest link across each border ([`Balancer::decide`]'s border table).
    pub border_times: [Vec<f64>; 3],
}

/// Values of a rank's contribution to the sums: S, the known performance and how many ranks
/// have one, then one value per line of each axis.
pub fn sums_len(topology: crate::Topology) -> usize {
    3 + topology.0.iter().sum::<usize>()
}

/// Values of a rank's contribution to the maxima: the compute and six waiting times per step,
/// then one value per border of each axis.
pub fn maxima_len(topology: crate::Topology) -> usize {
    7 + topology.0.iter().map(|n| n - 1).sum::<usize>()
}

/// Bytes rank `rank` of `topology` sends in the collectives of one decision of the session
/// (`crate::session`), every rank measured: the barrier before the link probes (an
/// all-reduce of one maximum) and [`reduce_inputs`]' all-reduce of [`sums_len`] +
/// [`maxima_len`] values ([`all_reduce_bytes_sent`]). O(lines), whatever the number of ranks.
/// The probes themselves add two messages per face, and a decision while some rank is
/// unmeasured a second all-reduce of the lines' sums.
pub fn decision_bytes_sent(rank: usize, topology: crate::Topology) -> usize {
    let size = topology.ranks();
    let values = sums_len(topology) + maxima_len(topology);
    all_reduce_bytes_sent(rank, size, 1) + all_reduce_bytes_sent(rank, size, values)
}

/// The most any rank of `topology` sends in one decision ([`decision_bytes_sent`]). O(N).
pub fn most_decision_bytes_sent(topology: crate::Topology) -> usize {
    (0..topology.ranks())
        .map(|r| decision_bytes_sent(r, topology))
        .max()
        .unwrap_or(0)
}

/// Where axis `a`'s entries start in a vector of per-axis blocks of `lens` entries after
/// `head` values.
fn block(head: usize, lens: [usize; 3], a: usize) -> usize {
    head + lens[..a].iter().sum::<usize>()
}

/// Records this rank's interval `mine` (`GATHER_LEN` values, [`crate::balance::GATHER_LEN`])
/// into `balancer` and reduces every rank's measurements to a decision's inputs. Collective:
/// every rank calls it with the same balancer state and its own `mine`.
///
/// O(lines) values sent per rank: one [`Comm::all_reduce`] of [`sums_len`] sums and
/// [`maxima_len`] maxima, and a second of the lines' sums while some rank has no measured
/// performance (its line then counts the others' mean, as [`crate::balance::rank_perf`]).
pub fn reduce_inputs<M: Comm>(
    balancer: &mut Balancer,
    comm: &mut M,
    mine: &[f64],
) -> Result<Reduced, M::Error> {
    let (rank, size) = (comm.rank(), comm.size());
    let topology = balancer.topology();
    let n = topology.0;
    let c = rank_coords(rank, topology);
    let (compute, wait) = balancer.record_rank(rank, mine);
    let perf = balancer.perf[rank].perf();
    let lines = [n[0], n[1], n[2]];
    let borders = n.map(|k| k - 1);
    let mut sums = vec![0.0; sums_len(topology)];
    sums[0] = mine[0] / mine[2].max(1.0);
    if let Some(p) = perf {
        sums[1] = p;
        sums[2] = 1.0;
        for a in 0..3 {
            sums[block(3, lines, a) + c[a]] = p;
        }
    }
    let mut maxima = vec![0.0; maxima_len(topology)];
    maxima[0] = 0.0f64.max(compute);
    for f in 0..6 {
        maxima[1 + f] = 0.0f64.max(wait[f]);
    }
    for a in 0..3 {
        // The −a face crosses the border below this rank's line, the +a face the one above.
        let at = block(7, borders, a);
        if c[a] > 0 {
            if let Some(t) = balancer.face_seconds(rank, 2 * a) {
                maxima[at + c[a] - 1] = 0.0f64.max(t);
            }
        }
        if c[a] + 1 < n[a] {
            if let Some(t) = balancer.face_seconds(rank, 2 * a + 1) {
                maxima[at + c[a]] = 0.0f64.max(t);
            }
        }
    }
    comm.all_reduce(&mut sums, &mut maxima)?;
    if sums[2] < size as f64 {
        // Some rank has no performance yet: it counts the mean of the others (1 with none).
        let mean = match sums[2] > 0.0 {
            true => sums[1] / sums[2],
            false => 1.0,
        };
        let p = perf.unwrap_or(mean);
        let mut line_sums = vec![0.0; lines.iter().sum()];
        for a in 0..3 {
            line_sums[block(0, lines, a) + c[a]] = p;
        }
        comm.all_reduce(&mut line_sums, &mut [])?;
        sums[3..].copy_from_slice(&line_sums);
    }
    let wait_max: [f64; 6] = core::array::from_fn(|f| maxima[1 + f]);
    Ok(Reduced {
        measured: measured_seconds(maxima[0], &wait_max),
        total_work: sums[0],
        line_perf: core::array::from_fn(|a| {
            let at = block(3, lines, a);
            sums[at..at + lines[a]].to_vec()
        }),
        border_times: core::array::from_fn(|a| {
            let at = block(7, borders, a);
            maxima[at..at + borders[a]].to_vec()
        }),
    })
}

/// Gives rank `root`'s balancer every rank's measurements (its Q/P and link sums, last message
/// sizes and counts: [`MEASUREMENTS_LEN`] values per rank), as a balancer fed by an all-gather
/// held them: for the profile or the checkpoint that rank writes, once per write, not per
/// decision. The other ranks send [`MEASUREMENTS_LEN`] values and keep their own. Collective.
pub fn gather_measurements<M: Comm>(
    balancer: &mut Balancer,
    comm: &mut M,
    root: usize,
) -> Result<(), M::Error> {
    let mine: Vec<u8> = balancer
        .measurements(comm.rank())
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    let Some(all) = comm.gather_vecs(root, &mine)? else {
        return Ok(());
    };
    for (r, bytes) in all.iter().enumerate() {
        let m: Vec<f64> = bytes
            .chunks_exact(8)
            .map(|b| f64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]))
            .collect();
        if m.len() == MEASUREMENTS_LEN {
            balancer.set_measurements(r, &m);
        }
    }
    Ok(())
}
