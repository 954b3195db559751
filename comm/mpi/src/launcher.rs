//! A rank never outlives the launcher that started it.
//!
//! When a job ends, mpirun (or the node's orted) sends every process `SIGCONT`, `SIGTERM` and at
//! last `SIGKILL`. A rank that was stopped, or that is busy with `SIGTERM` (which yee turns into
//! "checkpoint and stop at an agreed step", an agreement its dead peers can no longer give), may
//! still be there when mpirun exits without the `SIGKILL`: CI saw a stopped rank 0 still alive
//! 10 s after the watchdog of rank 1 had ended the job and mpirun had exited (not reproduced on a
//! quiet machine, where Open MPI's own clean-up ends it). [`end_with_launcher`] asks the kernel
//! to kill this process when its parent exits (`PR_SET_PDEATHSIG`, Linux), which reaches a
//! stopped process too.

use std::io;

/// Makes the kernel send `SIGKILL` to this process when its parent (mpirun, orted, or a shell
/// they started that `exec`s yee) exits; if the parent has already gone, exits now with
/// `exit_code`. Call it only under a launcher: a process started from an interactive shell would
/// die with that shell. Elsewhere than on Linux it does nothing.
pub fn end_with_launcher(exit_code: i32) -> io::Result<()> {
    #[cfg(target_os = "linux")]
    {
        use rustix::process::{Signal, getppid, set_parent_process_death_signal};
        let parent = getppid();
        set_parent_process_death_signal(Some(Signal::KILL))?;
        // The parent may have exited between the start and the call above: then no signal
        // comes, and this process has been handed to another parent.
        if getppid() != parent {
            std::process::exit(exit_code);
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = exit_code;
    Ok(())
}
