//! Extended sources: the nodes a line, plane or box source drives, and the normalised
//! amplitude an SI current becomes (η₀ Δ J for an electric current density J: Maxwell's curl
//! equation with ct and x/Δ as variables; docs/scene.md, `[[sources]]`).

use std::path::Path;

use yee_em::SourceKind;

const ETA0: f64 = 376.730_313_412;

fn scene(text: &str) -> yee_scene::Scene {
    let text = format!("{text}\n[run]\nsteps = 1\n");
    yee_scene::parse(Path::new("sources.toml"), &text).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn a_line_source_drives_each_node_on_it() {
    let s = scene(
        r#"
[grid]
mode = "tmz"
size = [60, 60]

[[sources]]
component = "ez"
lo = [10, 40]
hi = [10, 50]
waveform = "ricker"
frequency = 0.05
"#,
    );
    let cells: Vec<[i64; 3]> = s.sources.iter().map(|p| p.cell).collect();
    assert_eq!(cells, (40..50).map(|y| [10, y, 0]).collect::<Vec<_>>());
    assert!(s.source_origin.iter().all(|&i| i == 0));
}

#[test]
fn a_box_source_takes_the_nodes_whose_positions_lie_inside() {
    let s = scene(
        r#"
[grid]
mode = "3d"
size = [10, 10, 10]

[[sources]]
component = "ex"
lo = [2, 2, 2]
hi = [4, 3, 3]
waveform = "ricker"
frequency = 0.05
"#,
    );
    // Ex sits at x + ½: the nodes at 2.5 and 3.5 lie in [2, 4), those at y = 2, z = 2 in
    // [2, 3).
    let cells: Vec<[i64; 3]> = s.sources.iter().map(|p| p.cell).collect();
    assert_eq!(cells, vec![[2, 2, 2], [3, 2, 2]]);
}

#[test]
fn si_currents_become_normalised_current_densities() {
    let text = |mode: &str, size: &str, component: &str, place: &str, kind: &str| {
        format!(
            r#"
[units]
system = "si"
cell_size = 0.005

[grid]
mode = "{mode}"
size = {size}

[[sources]]
component = "{component}"
{place}
waveform = "ricker"
frequency = 1e9
amplitude = 2e-3
kind = "{kind}"
"#
        )
    };
    let d = 0.005f64;
    let amplitude = |t: String| {
        let s = scene(&t);
        assert!(
            s.sources
                .iter()
                .all(|p| p.amplitude == s.sources[0].amplitude)
        );
        (s.sources[0].amplitude, s.sources[0].kind)
    };
    // A point dipole of current moment I·l = 2 mA·m in 3D: J = I·l / Δ³, normalised η₀ Δ J.
    let (a, kind) = amplitude(text(
        "3d",
        "[20, 20, 20]",
        "ez",
        "position = [0.05, 0.05, 0.05]",
        "soft",
    ));
    assert_eq!(kind, SourceKind::Soft);
    assert!((a / (ETA0 * 2e-3 / (d * d)) - 1.0).abs() < 1e-12, "{a}");
    // A line of current I = 2 mA along z: J = I / Δ² on each node.
    let line = "lo = [0.05, 0.05, 0.02]\nhi = [0.05, 0.05, 0.08]";
    let (a, _) = amplitude(text("3d", "[20, 20, 20]", "ez", line, "soft"));
    assert!((a / (ETA0 * 2e-3 / d) - 1.0).abs() < 1e-12, "{a}");
    // In TMz a point is a line along z already.
    let (a, _) = amplitude(text(
        "tmz",
        "[20, 20]",
        "ez",
        "position = [0.05, 0.05]",
        "soft",
    ));
    assert!((a / (ETA0 * 2e-3 / d) - 1.0).abs() < 1e-12, "{a}");
    // A sheet of surface current K = 2 mA/m in TMz (a line in the plane): η₀ K.
    let (a, _) = amplitude(text(
        "tmz",
        "[20, 20]",
        "ez",
        "lo = [0.05, 0.02]\nhi = [0.05, 0.08]",
        "soft",
    ));
    assert!((a / (ETA0 * 2e-3) - 1.0).abs() < 1e-12, "{a}");
    // A magnetic dipole moment (V·m) maps without η₀; hard sources set the field.
    let (a, _) = amplitude(text(
        "3d",
        "[20, 20, 20]",
        "hz",
        "position = [0.05, 0.05, 0.05]",
        "soft",
    ));
    assert!((a / (2e-3 / (d * d)) - 1.0).abs() < 1e-12, "{a}");
    let (a, _) = amplitude(text(
        "3d",
        "[20, 20, 20]",
        "ez",
        "position = [0.05, 0.05, 0.05]",
        "hard",
    ));
    assert_eq!(a, 2e-3);
    let (a, _) = amplitude(text(
        "3d",
        "[20, 20, 20]",
        "hz",
        "position = [0.05, 0.05, 0.05]",
        "hard",
    ));
    assert!((a / (ETA0 * 2e-3) - 1.0).abs() < 1e-12, "{a}");
}

#[test]
fn a_source_needs_a_point_or_a_box() {
    let e = yee_scene::parse(
        Path::new("s.toml"),
        r#"
[grid]
mode = "tmz"
size = [20, 20]

[[sources]]
component = "ez"
lo = [2, 2]
waveform = "ricker"
frequency = 0.05

[run]
steps = 1
"#,
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("sources[0]") && e.contains("lo and hi"), "{e}");
}
