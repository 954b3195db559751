//! Measuring the MPI link between two ranks for the performance models: a ping-pong over a
//! range of message sizes, fitted to Hockney's `latency + bytes / bandwidth` by least squares
//! (Balykov 2019, eqs. (6)–(7); LT_mpi and BW_mpi of Kim & Park 2012, table 3).

use std::time::Instant;

use mpi::topology::{Communicator, SimpleCommunicator};
use mpi::traits::{Destination, Source};
use yee_core::balance::LinkSums;

/// Ranks 0 and 1 of `world` bounce a message of each size `repeats` times (after one warm-up
/// round trip); rank 0 returns the one-way times (half a round trip) summed for the fit, every
/// other rank an empty sum. Collective over ranks 0 and 1 only; the others return at once.
pub fn ping_pong(world: &SimpleCommunicator, sizes: &[usize], repeats: usize) -> LinkSums {
    let mut sums = LinkSums::default();
    let rank = world.rank();
    if rank > 1 || world.size() < 2 {
        return sums;
    }
    let other = world.process_at_rank(1 - rank);
    for &size in sizes {
        let mut buffer = vec![0u8; size];
        let bounce = |buffer: &mut [u8]| {
            if rank == 0 {
                other.send(&*buffer);
                other.receive_into(buffer);
            } else {
                other.receive_into(&mut *buffer);
                other.send(&*buffer);
            }
        };
        bounce(&mut buffer);
        let start = Instant::now();
        for _ in 0..repeats {
            bounce(&mut buffer);
        }
        let one_way = start.elapsed().as_secs_f64() / (2.0 * repeats as f64);
        if rank == 0 {
            sums.add(size as f64, one_way, 1.0);
        }
    }
    sums
}
