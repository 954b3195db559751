//! The built-in material `pec` is a perfect electric conductor: a 1D pulse reflected by a
//! `pec` box `[150, 200]` is the pulse reflected by a PEC wall at x = 150 (the grid cut there),
//! to a part in 10⁹ at a probe before it; and `pmc` as a material says what to use instead.

use std::path::Path;
use std::process::Command;

fn scene(size: usize, geometry: &str) -> String {
    format!(
        r#"name = "pec"
[grid]
mode = "1d"
size = [{size}]
courant = 0.5
[boundaries]
x_low = "cpml"
x_high = "pec"
[boundaries.cpml]
thickness = 20
{geometry}
[[sources]]
component = "ez"
position = [60]
waveform = "ricker"
frequency = 0.05
[[probes]]
name = "p"
component = "ez"
position = [100]
[run]
steps = 500
"#
    )
}

/// The probe's values of a run of `text`.
fn probe(dir: &Path, name: &str, text: &str) -> Vec<f64> {
    let out = crate::run_text(dir, name, text);
    let csv = std::fs::read_to_string(out.join("probe_p.csv")).unwrap();
    csv.lines()
        .skip(1)
        .map(|l| l.rsplit(',').next().unwrap().trim().parse().unwrap())
        .collect()
}

#[test]
fn a_pec_box_reflects_as_a_pec_wall() {
    let dir = crate::tmp_dir(module_path!());
    let wall = probe(&dir, "wall", &scene(150, ""));
    let pec = "[[geometry]]\nshape = \"box\"\nmaterial = \"pec\"\nlo = [150]\nhi = [200]\n";
    let material = probe(&dir, "material", &scene(200, pec));
    let peak = wall.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    assert!(peak > 0.1, "the pulse passes the probe");
    let worst = wall
        .iter()
        .zip(&material)
        .fold(0.0f64, |m, (a, b)| m.max((a - b).abs()));
    assert_eq!(wall.len(), material.len());
    assert!(worst < 1e-9 * peak, "{worst} against a peak of {peak}");
}

#[test]
fn pmc_as_a_material_names_the_boundary_instead() {
    let dir = crate::tmp_dir(module_path!());
    let pmc = "[[geometry]]\nshape = \"box\"\nmaterial = \"pmc\"\nlo = [150]\nhi = [200]\n";
    let file = dir.join("pmc.toml");
    std::fs::write(&file, scene(200, pmc)).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_yee"))
        .args(["check"])
        .arg(&file)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        stderr.contains("geometry[0].material") && stderr.contains("`pec`"),
        "{stderr}"
    );
}
