//! The communicator conformance suite (`yee_tests::comm_conformance`) on the simulated and the
//! shared-memory communicators, over 1, 2, 3 and 4 ranks (1×1×1, 2×1×1, 3×1×1, 2×2×1). The MPI
//! communicator runs the same checks under `mpirun` (`tests/mpi_conformance.rs`).

use std::time::Duration;

use yee_comm_sim::MachineModel;
use yee_core::Topology;
use yee_tests::comm_conformance::{self as suite, Abilities, Mismatch};

const TOPOLOGIES: [[usize; 3]; 4] = [[1, 1, 1], [2, 1, 1], [3, 1, 1], [2, 2, 1]];

/// Short enough that the timeout check takes a fraction of a second, long enough that a
/// loaded machine does not time out a message that is coming.
const SHORT_TIMEOUT: Duration = Duration::from_millis(300);

/// Panics with every rank's failure, naming the communicator and topology.
fn expect_ok(comm: &str, topology: [usize; 3], results: Vec<Result<(), String>>) {
    let failures: Vec<String> = results
        .into_iter()
        .enumerate()
        .filter_map(|(r, res)| res.err().map(|e| format!("  rank {r}: {e}")))
        .collect();
    assert!(
        failures.is_empty(),
        "{comm} on {topology:?}:\n{}",
        failures.join("\n")
    );
}

/// Runs `$check(&mut comm $(, $arg)*)` on every rank of the simulated and the shared-memory
/// communicators, for every topology (a macro: the check is generic over the communicator).
macro_rules! on_sim_and_shm {
    ($check:path $(, $arg:expr)*) => {
        for shape in TOPOLOGIES {
            let topology = Topology(shape);
            let model = MachineModel::default_for(topology.ranks());
            let sim = yee_comm_sim::launch(topology, model, |c| {
                $check(&mut c.with_receive_timeout(SHORT_TIMEOUT) $(, $arg)*)
            });
            expect_ok("sim", shape, sim);
            let shm = yee_comm_shm::launch(topology, |c| {
                $check(&mut c.with_receive_timeout(SHORT_TIMEOUT) $(, $arg)*)
            });
            expect_ok("shm", shape, shm);
        }
    };
}

#[test]
fn all_reduce_sums_in_tree_order_and_takes_maxima() {
    on_sim_and_shm!(suite::check_all_reduce_in_tree_order);
    // Trees of more levels, with ranks missing from the last block, on the simulated
    // communicator alone (a thread per rank).
    for shape in [[3, 2, 1], [11, 1, 1], [4, 4, 2]] {
        let topology = Topology(shape);
        let model = MachineModel::default_for(topology.ranks());
        let sim = yee_comm_sim::launch(topology, model, |c| {
            suite::check_all_reduce_in_tree_order(&mut c.with_receive_timeout(SHORT_TIMEOUT))
        });
        expect_ok("sim", shape, sim);
    }
}

#[test]
fn rank_size_and_coords_agree_with_the_topology() {
    on_sim_and_shm!(suite::check_identity);
}

#[test]
fn messages_on_different_routes_do_not_mix() {
    on_sim_and_shm!(suite::check_routes_do_not_mix);
}

#[test]
fn successive_exchanges_do_not_mix() {
    on_sim_and_shm!(suite::check_successive_exchanges_do_not_mix);
}

#[test]
fn the_overlap_runs_once_per_exchange() {
    on_sim_and_shm!(suite::check_overlap_runs_once);
}

#[test]
fn a_shorter_message_is_a_size_mismatch() {
    on_sim_and_shm!(suite::check_size_mismatch, Mismatch::Shorter);
}

#[test]
fn a_longer_message_is_a_size_mismatch() {
    on_sim_and_shm!(suite::check_size_mismatch, Mismatch::Longer);
}

#[test]
fn a_message_that_never_comes_times_out() {
    on_sim_and_shm!(suite::check_missing_message_times_out);
}

#[test]
fn all_gather_keeps_rank_order() {
    on_sim_and_shm!(suite::check_all_gather_order);
}

#[test]
fn all_gather_into_a_wrong_buffer_is_a_size_mismatch() {
    on_sim_and_shm!(suite::check_all_gather_wrong_buffer);
}

#[test]
fn all_gather_of_unequal_lengths_is_a_size_mismatch() {
    on_sim_and_shm!(suite::check_all_gather_unequal_lengths);
}

#[test]
fn gather_lens_reaches_every_rank() {
    on_sim_and_shm!(suite::check_gather_lens);
}

#[test]
fn gather_bytes_gives_the_root_every_message_in_rank_order() {
    on_sim_and_shm!(suite::check_gather_bytes);
}

#[test]
fn a_gather_of_empty_messages_completes() {
    on_sim_and_shm!(suite::check_gather_empty);
}

#[test]
fn all_gather_bytes_gives_every_rank_every_message() {
    on_sim_and_shm!(suite::check_all_gather_bytes);
}

#[test]
fn the_exchange_based_gathers_work_called_directly() {
    on_sim_and_shm!(suite::check_gathers_by_exchange);
}

#[test]
fn gather_vecs_gives_the_root_one_vec_per_rank() {
    on_sim_and_shm!(suite::check_gather_vecs);
}

#[test]
fn gathers_with_disagreeing_arguments_are_errors() {
    on_sim_and_shm!(suite::check_gather_misuse);
}

#[test]
fn a_gather_whose_ranks_disagree_on_a_length_is_a_size_mismatch() {
    on_sim_and_shm!(suite::check_gather_disagreeing_lengths);
}

/// The whole suite in one run per communicator, as the MPI binary runs it: the checks leave
/// nothing behind for the next one.
fn whole_suite<M: yee_core::Comm>(comm: &mut M) -> Result<(), String> {
    let failures: Vec<String> = suite::run_suite(comm, Abilities::ALL)
        .into_iter()
        .filter_map(|(check, res)| res.err().map(|e| format!("{check:?}: {e}")))
        .collect();
    if failures.is_empty() {
        Ok(())
    } else {
        Err(failures.join("; "))
    }
}

#[test]
fn the_whole_suite_in_one_run() {
    on_sim_and_shm!(whole_suite);
}
