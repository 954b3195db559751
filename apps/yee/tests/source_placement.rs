//! A line source lands by the rule that places geometry (docs/scene.md, "Where geometry
//! lands"): across a guide `[40, 50]` its `Ez` nodes run from 40 to 50, the two ends at half
//! weight, symmetric in the guide, so it excites no odd mode. The guide (ε = 12, 10 cells
//! wide) carries its first odd mode above 1/(2w√(ε − 1)) = 0.0151 per cell; the transforms of
//! Ez on a plane across the guide downstream, over 0.016–0.020, split into their even and odd
//! parts about the guide's centre, y = 45. The same scene driven on the half-open node set of
//! before (`[39.5, 49.5]`: the nodes 40 … 49, each whole) shows what the test would see of an
//! asymmetric source.

use num_complex::Complex64;

/// The guide scene with the source's `lo`, `hi` along y.
fn scene(lo: f64, hi: f64) -> String {
    format!(
        r#"name = "odd_mode"
[grid]
mode = "tmz"
size = [200, 90]
courant = 0.5
[boundaries]
all = "cpml"
[boundaries.cpml]
thickness = 10
[materials.guide]
eps = 12.0
[[geometry]]
shape = "box"
material = "guide"
lo = [0, 40]
hi = [200, 50]
[[sources]]
component = "ez"
lo = [20, {lo}]
hi = [20, {hi}]
waveform = "gaussian"
frequency = 0.018
width = 60
delay = 300
[[dft]]
name = "across"
components = ["ez"]
lo = [150, 20]
hi = [151, 71]
fmin = 0.016
fmax = 0.02
count = 5
[run]
steps = 4000
"#
    )
}

/// The largest fraction of |Ez|² on the plane in its part odd about y = 45, over the band.
fn odd_fraction(dir: &std::path::Path, name: &str, lo: f64, hi: f64) -> f64 {
    let out = crate::run_text(dir, name, &scene(lo, hi));
    let bytes = std::fs::read(out.join("dft_across.npy")).unwrap();
    let (shape, ez) = yee_io::npy::read_array::<Complex64>(&bytes).unwrap();
    // (frequencies, components, ny, nx): the Ez nodes y = 20 … 70, the centre at index 25.
    assert_eq!(shape, vec![5, 1, 51, 1]);
    (0..5)
        .map(|f| {
            let e = &ez[f * 51..(f + 1) * 51];
            let (mut odd, mut total) = (0.0, 0.0);
            for j in 0..51 {
                let mirror = e[50 - j];
                odd += ((e[j] - mirror) / 2.0).norm_sqr();
                total += e[j].norm_sqr();
            }
            odd / total
        })
        .fold(0.0, f64::max)
}

#[test]
fn a_line_source_across_a_symmetric_guide_excites_no_odd_mode() {
    let dir = crate::tmp_dir(module_path!());
    let closed = odd_fraction(&dir, "closed", 40.0, 50.0);
    let half_open = odd_fraction(&dir, "half_open", 39.5, 49.5);
    eprintln!(
        "odd fraction of |Ez|²: {closed:.3e} on [40, 50], {half_open:.3e} on the nodes 40 … 49"
    );
    assert!(closed <= 1e-4, "odd part {closed}");
    assert!(
        half_open > 1e-3,
        "the asymmetric source's odd part {half_open}"
    );
}
