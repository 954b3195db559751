//! Starting MPI jobs from tests: `mpirun` as root on an oversubscribed machine, with a
//! deadline so that a hang fails the test instead of stalling CI.

use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// Every MPI job a test starts must end within this.
pub const DEADLINE: Duration = Duration::from_secs(120);

/// `mpirun -np NP PROGRAM`, allowed to run as root and to oversubscribe the cores, with one
/// rayon thread per process (the processes share this machine's cores).
pub fn mpirun(np: usize, program: &str) -> Command {
    let mut c = Command::new("mpirun");
    c.args(["--allow-run-as-root", "--oversubscribe", "-np"])
        .arg(np.to_string())
        .arg(program)
        .env("RAYON_NUM_THREADS", "1");
    c
}

/// Runs `command` to completion, or kills it at [`DEADLINE`] and panics with what it printed.
pub fn finish(mut command: Command) -> Output {
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("mpirun starts (install openmpi-bin)");
    let start = Instant::now();
    loop {
        if child.try_wait().expect("the job can be polled").is_some() {
            return child.wait_with_output().expect("the job's output");
        }
        if start.elapsed() > DEADLINE {
            let _ = child.kill();
            let out = child.wait_with_output().expect("the killed job's output");
            panic!(
                "the MPI job hung for {DEADLINE:?}; stdout:\n{}\nstderr:\n{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}
