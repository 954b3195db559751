//! `[boundaries] k`: the Bloch wavevector in cycles per scene length, converted to cycles per
//! cell, and the errors that name the key (docs/scene.md, `[boundaries]`).

use std::path::Path;

fn parse(text: &str) -> Result<yee_scene::Scene, String> {
    let text = format!("{text}\n[run]\nsteps = 1\n");
    yee_scene::parse(Path::new("bloch.toml"), &text).map_err(|e| e.to_string())
}

const NORMALISED: &str = r#"
[grid]
mode = "tmz"
size = [32, 32]
value_type = "c64"

[boundaries]
all = "periodic"
"#;

#[test]
fn k_is_in_cycles_per_length_and_lands_in_the_setup() {
    let s = parse(&format!("{NORMALISED}k = [0.015625, -0.01]")).unwrap();
    assert_eq!(s.bloch, [0.015625, -0.01, 0.0]);
    assert_eq!(s.setup().bloch, s.bloch);
    // In SI a wavenumber per metre is per cell times the cell size.
    let si = parse(
        r#"
[units]
system = "si"
cell_size = 0.001

[grid]
mode = "1d"
size = [100]
value_type = "c32"

[boundaries]
x = "periodic"
k = [50.0]
"#,
    )
    .unwrap();
    assert!((si.bloch[0] - 0.05).abs() < 1e-15, "{:?}", si.bloch);
}

#[test]
fn bad_k_is_refused_naming_the_key() {
    let real = NORMALISED.replace("c64", "f64");
    let e = parse(&format!("{real}k = [0.01, 0.0]")).unwrap_err();
    assert!(
        e.contains("boundaries.k") && e.contains("complex") && e.contains("c64"),
        "{e}"
    );
    let e = parse(&format!("{NORMALISED}k = [0.01]")).unwrap_err();
    assert!(e.contains("boundaries.k") && e.contains("needs 2"), "{e}");
    let walls = NORMALISED.replace("all = \"periodic\"", "x = \"periodic\"");
    let e = parse(&format!("{walls}k = [0.01, 0.02]")).unwrap_err();
    assert!(
        e.contains("boundaries.k[1]") && e.contains("periodic"),
        "{e}"
    );
    // k = 0 on a wall is plain: no error.
    assert!(parse(&format!("{walls}k = [0.01, 0.0]")).is_ok());
}

const BANDS: &str = r#"
[[probes]]
component = "ez"
position = [7.2, 21.4]

[bands]
path = [[0, 0], [0.5, 0], [0.5, 0.5]]
labels = ["Γ", "X", "M"]
points = 1
lattice_constant = 32
band = [0.0, 0.03]
after = 0.5
"#;

#[test]
fn bands_resolve_to_k_points_per_cell() {
    let s = parse(&format!("{NORMALISED}{BANDS}")).unwrap();
    let b = s.bands.unwrap();
    assert_eq!(b.k_points.len(), 5);
    assert_eq!(b.k_points[1], [0.25, 0.0, 0.0]);
    assert_eq!(b.k_cells[2], [0.5 / 32.0, 0.0, 0.0]);
    assert_eq!(b.corners[2], (4, Some("M".to_string())));
}

#[test]
fn bad_bands_are_refused_naming_the_key() {
    let real = NORMALISED.replace("c64", "f64");
    let e = parse(&format!("{real}{BANDS}")).unwrap_err();
    assert!(e.contains("bands.path") && e.contains("complex"), "{e}");
    let e = parse(&format!(
        "{NORMALISED}{}",
        BANDS.replace("[0.0, 0.03]", "[0.03, 0.01]")
    ))
    .unwrap_err();
    assert!(e.contains("bands.band"), "{e}");
    let e = parse(&format!(
        "{NORMALISED}{}",
        BANDS.replace("\"M\"]", "\"M\", \"Γ\"]")
    ))
    .unwrap_err();
    assert!(e.contains("bands.labels"), "{e}");
    let e = parse(&format!(
        "{NORMALISED}{}",
        BANDS.replace("after = 0.5", "after = 5")
    ))
    .unwrap_err();
    assert!(e.contains("bands.after"), "{e}");
    // Each k-point is a run: a path of billions is refused before any is listed (a fuzzed
    // `points = 4294967297` once filled the test machine's memory).
    for points in ["4294967297", "50000", "9223372036854775807"] {
        let e = parse(&format!(
            "{NORMALISED}{}",
            BANDS.replace("points = 1", &format!("points = {points}"))
        ))
        .unwrap_err();
        assert!(e.contains("bands.points") && e.contains("100000"), "{e}");
    }
    let walls = NORMALISED.replace("all = \"periodic\"", "x = \"periodic\"");
    let e = parse(&format!("{walls}{BANDS}")).unwrap_err();
    assert!(e.contains("bands.path[2]") && e.contains("periodic"), "{e}");
}
