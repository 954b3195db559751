//! A run whose fields stay finite but whose flux spectrum or DFT sums overflow (a source of
//! amplitude 1e300: E × H* is beyond the range of f64; 1e308: the sums over the steps are)
//! ends `failed`, naming the flux or DFT box, instead of `complete` with an all-inf CSV or
//! `.npy`.

use std::process::Command;

#[test]
fn an_overflowing_flux_spectrum_fails_the_run_naming_it() {
    let dir = crate::tmp_dir(module_path!());
    let file = dir.join("big.toml");
    std::fs::write(
        &file,
        "name = \"big\"\n[grid]\nmode = \"1d\"\nsize = [200]\n[boundaries]\nall = \"cpml\"\n\
         [[sources]]\ncomponent = \"ez\"\nposition = [50]\nwaveform = \"ricker\"\n\
         frequency = 0.05\namplitude = 1e300\n[[flux]]\nname = \"t\"\naxis = \"x\"\n\
         position = 150\nfmin = 0.02\nfmax = 0.08\ncount = 4\n[run]\nsteps = 300\n",
    )
    .unwrap();
    let out = dir.join("out");
    let run = Command::new(env!("CARGO_BIN_EXE_yee"))
        .args(["run", "--quiet", "--out"])
        .arg(&out)
        .arg(&file)
        .output()
        .unwrap();
    assert!(!run.status.success());
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("run.json")).unwrap()).unwrap();
    assert_eq!(report["status"], "failed");
    let error = report["error"].as_str().unwrap();
    assert!(
        error.starts_with("flux `t`: its flux is not finite at 4 of its 4"),
        "{error}"
    );
}

/// Issue 49, case 6: `amplitude = 1e308` left the fields finite while the DFT sums overflowed
/// to inf and NaN, and the run said `complete`.
#[test]
fn overflowing_dft_sums_fail_the_run_naming_the_box() {
    let dir = crate::tmp_dir(module_path!());
    let file = dir.join("huge.toml");
    std::fs::write(
        &file,
        "name = \"huge\"\n[grid]\nmode = \"1d\"\nsize = [200]\n[boundaries]\nall = \"cpml\"\n\
         [[sources]]\ncomponent = \"ez\"\nposition = [50]\nwaveform = \"ricker\"\n\
         frequency = 0.05\namplitude = 1e308\n[[dft]]\nname = \"box\"\ncomponents = [\"ez\"]\n\
         lo = [140]\nhi = [160]\nfmin = 0.02\nfmax = 0.08\ncount = 4\n[run]\nsteps = 300\n",
    )
    .unwrap();
    let out = dir.join("huge");
    let run = Command::new(env!("CARGO_BIN_EXE_yee"))
        .args(["run", "--quiet", "--out"])
        .arg(&out)
        .arg(&file)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(!run.status.success(), "{stderr}");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("run.json")).unwrap()).unwrap();
    // Not "diverged": the fields stay finite.
    assert_eq!(report["status"], "failed");
    let error = report["error"].as_str().unwrap();
    assert!(error.starts_with("dft `box`: "), "{error}");
    assert!(error.contains("values are not finite (first: "), "{error}");
    assert!(stderr.contains("dft `box`"), "{stderr}");
    // Written all the same, as the flux CSV is, and listed.
    assert!(out.join("dft_box.npy").exists());
    assert_eq!(report["dfts"][0]["file"], "dft_box.npy");
}

#[test]
fn a_minus_file_holding_nan_is_refused_before_the_run() {
    let dir = crate::tmp_dir(module_path!());
    let scene = |minus: &str| {
        format!(
            "name = \"m\"\n[grid]\nmode = \"1d\"\nsize = [200]\n[boundaries]\nall = \"cpml\"\n\
             [[sources]]\ncomponent = \"ez\"\nposition = [50]\nwaveform = \"ricker\"\n\
             frequency = 0.05\n[[flux]]\nname = \"t\"\naxis = \"x\"\nposition = 150\n\
             fmin = 0.02\nfmax = 0.08\ncount = 4\n{minus}[run]\nsteps = 100\n"
        )
    };
    let normal = crate::run_text(&dir, "normal", &scene(""));
    let npy = normal.join("flux_t_dft.npy");
    let mut bytes = std::fs::read(&npy).unwrap();
    let at = bytes.len() - 16;
    bytes[at..at + 8].copy_from_slice(&f64::NAN.to_le_bytes());
    std::fs::write(&npy, bytes).unwrap();
    let file = dir.join("minus.toml");
    std::fs::write(
        &file,
        scene(&format!("minus = {:?}\n", npy.display().to_string())),
    )
    .unwrap();
    let run = Command::new(env!("CARGO_BIN_EXE_yee"))
        .args(["run", "--quiet", "--out"])
        .arg(dir.join("minus"))
        .arg(&file)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(!run.status.success());
    assert!(
        stderr.contains(&format!(
            "minus.toml: flux[0].minus: {}: holds NaN",
            npy.display()
        )),
        "{stderr}"
    );
    assert!(
        !dir.join("minus/run.json").exists(),
        "refused before the run: {stderr}"
    );
}
