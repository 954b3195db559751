//! The built-in materials `pec` and `pmc` are perfect conductors: a 1D pulse reflected by a
//! `pec` box `[150, 200]` is the pulse reflected by a PEC wall at x = 150 (the grid cut there),
//! and one reflected by a `pmc` box `[150, 200]` the pulse reflected by a grid of 151 cells
//! with a PMC face (whose wall pins H at 150.5, as the box does), to a part in 10⁹ at a probe
//! before them.

use std::path::Path;

fn scene(size: usize, geometry: &str) -> String {
    scene_with(size, "pec", geometry)
}

fn scene_with(size: usize, high: &str, geometry: &str) -> String {
    format!(
        r#"name = "pec"
[grid]
mode = "1d"
size = [{size}]
courant = 0.5
[boundaries]
x_low = "cpml"
x_high = "{high}"
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
fn a_pmc_box_reflects_as_a_pmc_wall() {
    let dir = crate::tmp_dir(module_path!());
    let wall = probe(&dir, "pmc_wall", &scene_with(151, "pmc", ""));
    let pmc = "[[geometry]]\nshape = \"box\"\nmaterial = \"pmc\"\nlo = [150]\nhi = [200]\n";
    let material = probe(&dir, "pmc_material", &scene(200, pmc));
    let peak = wall.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    assert!(peak > 0.1, "the pulse passes the probe");
    let worst = wall
        .iter()
        .zip(&material)
        .fold(0.0f64, |m, (a, b)| m.max((a - b).abs()));
    assert_eq!(wall.len(), material.len());
    assert!(worst < 1e-9 * peak, "{worst} against a peak of {peak}");
    // A PMC reflects E with the sign kept, a PEC with the sign flipped: the two records
    // differ by twice the reflection.
    let pec = probe(&dir, "pec_wall", &scene(150, ""));
    let apart = pec
        .iter()
        .zip(&material)
        .fold(0.0f64, |m, (a, b)| m.max((a - b).abs()));
    assert!(apart > 0.5 * peak, "{apart} against a peak of {peak}");
}
