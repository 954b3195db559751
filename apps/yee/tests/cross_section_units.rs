//! The `cross_section` column of a flux CSV is what docs/scene.md says it is: in 1D, T (or R)
//! — dimensionless in an SI scene too (it was the ratio times Δ², 1e-4 with 1 cm cells).

const SCENE: &str = r#"name = "vacuum_si_1d"
[units]
system = "si"
cell_size = 0.01
[grid]
mode = "1d"
size = [500]
courant = 0.5
[boundaries]
all = "cpml"
[boundaries.cpml]
thickness = 20
[[plane_waves]]
lo = [0.4]
hi = [4.6]
direction = "+x"
polarization = [0, 0, 1]
waveform = "gaussian"
frequency = 3.75e8
width = 1.4133e-9
delay = 7.0667e-9
[[flux]]
name = "trans"
axis = "x"
position = 3.8
fmin = 2.5e8
fmax = 5e8
count = 6
[run]
steps = 2400
"#;

#[test]
fn a_1d_si_transmission_in_vacuum_is_one() {
    let dir = crate::tmp_dir(module_path!());
    let out = crate::run_text(&dir, "vacuum_si_1d", SCENE);
    let csv = std::fs::read_to_string(out.join("flux_trans.csv")).unwrap();
    assert!(csv.starts_with("frequency,flux,cross_section\n"), "{csv}");
    for line in csv.lines().skip(1) {
        let t: f64 = line.rsplit(',').next().unwrap().parse().unwrap();
        assert!((t - 1.0).abs() < 1e-2, "T = {t} in vacuum: {line}");
    }
}
