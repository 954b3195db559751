//! External programs the app's tests read outputs with (VTK, h5py, ffmpeg): whether they are
//! there. A missing one skips its test with a line saying so, except under CI (`CI` set),
//! where `.ci/run` installs them and their absence fails.

use std::process::Command;

/// True when `python3 -c code` succeeds (e.g. `"import h5py, numpy"`); `install` says how to
/// get what it needs.
pub fn python_runs(code: &str, install: &str) -> bool {
    let ok = Command::new("python3")
        .args(["-c", code])
        .status()
        .is_ok_and(|s| s.success());
    required(ok, &format!("python3 -c \"{code}\""), install)
}

/// True when each of `programs` runs with `-version` (ffmpeg's and ffprobe's flag).
pub fn programs_run(programs: &[&str], install: &str) -> bool {
    let ok = programs.iter().all(|p| {
        Command::new(p)
            .arg("-version")
            .output()
            .is_ok_and(|o| o.status.success())
    });
    required(ok, &programs.join(", "), install)
}

/// `ok`, after failing under CI or saying the test is skipped when it is false.
fn required(ok: bool, what: &str, install: &str) -> bool {
    if !ok {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI needs {what} to work: {install}"
        );
        eprintln!("skipped: {what} does not work ({install})");
    }
    ok
}

/// Runs the Python `script` with `args` and returns what it printed; fails naming `reader`
/// (e.g. "VTK's reader") with its output when the script fails (its asserts are the checks).
pub fn python_check(script: &str, args: &[&std::ffi::OsStr], reader: &str) -> String {
    let output = Command::new("python3")
        .args(["-c", script])
        .args(args)
        .output()
        .expect("python3 starts");
    let stdout = String::from_utf8_lossy(&output.stdout).to_string();
    assert!(
        output.status.success(),
        "{reader} disagrees:\n{stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
}
