//! The plots a run writes show what a user asks for: a probe's record beside its spectrum, and
//! a far field at the frequencies the scene picks (`plot_frequencies`), with a legend.

use yee_io::plot::{COLOURS, panels_size};

/// Pixels of curve colour `n` in columns `[x0, x1)` of an RGB image `w` wide.
fn pixels(rgb: &[u8], w: usize, (x0, x1): (usize, usize), n: usize) -> usize {
    let c = COLOURS[n];
    rgb.chunks(3)
        .enumerate()
        .filter(|(i, p)| (x0..x1).contains(&(i % w)) && **p == [c.0, c.1, c.2])
        .count()
}

const PROBE_SCENE: &str = r#"name = "probe_plot"
[grid]
mode = "tmz"
size = [60, 40]
[boundaries]
all = "cpml"
[[sources]]
component = "ez"
position = [20, 20]
waveform = "ricker"
frequency = 0.05
[[probes]]
name = "east"
component = "ez"
position = [40, 20]
[run]
steps = 200
"#;

#[test]
fn a_probe_plot_holds_its_record_beside_its_spectrum() {
    let dir = crate::tmp_dir(module_path!());
    let out = crate::run_text(&dir, "probe_plot", PROBE_SCENE);
    let (w, h, rgb) = yee_io::png::read_rgb(&out.join("probe_east.png")).unwrap();
    assert_eq!((w, h), panels_size(2), "two panels side by side");
    let (w, half) = (w as usize, w as usize / 2);
    let trace = pixels(&rgb, w, (0, half), 0);
    let spectrum = pixels(&rgb, w, (half, w), 0);
    assert!(
        trace > 300 && spectrum > 300,
        "trace {trace}, spectrum {spectrum} pixels"
    );
}

/// A closed box in vacuum around a dipole, its far field at 21 frequencies.
fn far_field_scene(picks: &str) -> String {
    format!(
        r#"name = "far_plot"
[grid]
mode = "3d"
size = [24, 20, 16]
courant = 0.5
[boundaries]
all = "cpml"
[boundaries.cpml]
thickness = 4
[[sources]]
component = "ez"
position = [12, 10, 8]
waveform = "ricker"
frequency = 0.04
delay = 30
[[flux]]
name = "around"
lo = [6, 4, 5]
hi = [18, 16, 12]
fmin = 0.02
fmax = 0.06
count = 21
far_field = [8, 4]
{picks}
[run]
steps = 60
"#
    )
}

/// The far field's `plot_frequencies` in run.json and the curve colours its PNG holds.
fn far_plot(name: &str, picks: &str) -> (Vec<f64>, Vec<usize>) {
    let dir = crate::tmp_dir(module_path!());
    let out = crate::run_text(&dir, name, &far_field_scene(picks));
    let run: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("run.json")).unwrap()).unwrap();
    let drawn: Vec<f64> = run["fluxes"][0]["far_field"]["plot_frequencies"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect();
    let (w, _, rgb) = yee_io::png::read_rgb(&out.join("farfield_around.png")).unwrap();
    let w = w as usize;
    let colours = (0..COLOURS.len())
        .filter(|&n| pixels(&rgb, w, (0, w), n) > 20)
        .collect();
    (drawn, colours)
}

#[test]
fn the_far_field_plot_draws_the_picked_frequencies_with_a_legend() {
    // Picks land on the nearest of the band's 0.02, 0.022, …, 0.06.
    let (drawn, colours) = far_plot("picked", "plot_frequencies = [0.0505, 0.03]");
    assert_eq!(drawn.len(), 2, "{drawn:?}");
    assert!(
        (drawn[0] - 0.03).abs() < 1e-12 && (drawn[1] - 0.05).abs() < 1e-12,
        "{drawn:?}"
    );
    assert_eq!(
        colours,
        [0, 1],
        "a curve (and legend line) per pick, no more"
    );
    // By default: ten of the 21, spread from the lowest to the highest.
    let (drawn, colours) = far_plot("default", "");
    assert_eq!(drawn.len(), 10, "{drawn:?}");
    assert!(
        (drawn[0] - 0.02).abs() < 1e-12 && (drawn[9] - 0.06).abs() < 1e-12,
        "{drawn:?}"
    );
    assert_eq!(colours, (0..10).collect::<Vec<_>>());
}
