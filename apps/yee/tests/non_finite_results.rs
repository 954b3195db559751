//! A run whose fields stay finite but whose flux spectrum overflows (a source of amplitude
//! 1e300: E × H* is beyond the range of f64) ends `failed`, naming the flux, instead of
//! `complete` with an all-inf CSV.

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
