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
fn a_line_source_holds_its_nodes_by_the_geometry_rule() {
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
    // The Ez nodes at y = 40 … 50, the two on the ends at half weight: ten cells of current,
    // centred on 45 as the guide [40, 50] of the bend example is.
    let cells: Vec<[i64; 3]> = s.sources.iter().map(|p| p.cell).collect();
    assert_eq!(cells, (40..=50).map(|y| [10, y, 0]).collect::<Vec<_>>());
    let weights: Vec<f64> = s.sources.iter().map(|p| p.amplitude).collect();
    let mut expected = vec![1.0; 11];
    (expected[0], expected[10]) = (0.5, 0.5);
    assert_eq!(weights, expected);
    assert!(s.source_origin.iter().all(|&i| i == 0));
}

#[test]
fn a_box_source_weighs_its_nodes_half_on_faces_a_quarter_on_edges() {
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
amplitude = 3.0
"#,
    );
    // Ex sits at x + ½: the nodes at 2.5 and 3.5 lie inside [2, 4]; those at y = 2, 3 and
    // z = 2, 3 on the box's faces, so each node lies on an x edge: weight ¼, and the eight
    // add up to the box's volume, 2.
    let nodes: Vec<([i64; 3], f64)> = s.sources.iter().map(|p| (p.cell, p.amplitude)).collect();
    let mut expected = Vec::new();
    for z in 2..4 {
        for y in 2..4 {
            for x in 2..4 {
                expected.push(([x, y, z], 0.75));
            }
        }
    }
    assert_eq!(nodes, expected);
}

#[test]
fn a_hard_source_sets_every_node_of_its_closed_box() {
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
amplitude = 2.0
kind = "hard"
"#,
    );
    assert_eq!(s.sources.len(), 11);
    assert!(s.sources.iter().all(|p| p.amplitude == 2.0));
}

#[test]
fn a_plane_source_across_a_periodic_axis_is_uniform() {
    let s = scene(
        r#"
[grid]
mode = "tmz"
size = [30, 20]

[boundaries]
y = "periodic"

[[sources]]
component = "ez"
lo = [10, 0]
hi = [10, 20]
waveform = "ricker"
frequency = 0.05
"#,
    );
    // The node at y = 20 is the image of the one at 0: their halves make it whole.
    let nodes: Vec<([i64; 3], f64)> = s.sources.iter().map(|p| (p.cell, p.amplitude)).collect();
    assert_eq!(
        nodes,
        (0..20).map(|y| ([10, y, 0], 1.0)).collect::<Vec<_>>()
    );
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
    // The amplitude of a node inside (whole weight); nodes on the box's faces carry half.
    let amplitude = |t: String| {
        let s = scene(&t);
        let full = s.sources.iter().map(|p| p.amplitude).fold(0.0, f64::max);
        let parts = [full, full / 2.0, full / 4.0, full / 8.0];
        assert!(s.sources.iter().all(|p| parts.contains(&p.amplitude)));
        (full, s.sources[0].kind)
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
