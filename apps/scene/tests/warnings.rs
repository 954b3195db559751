//! `yee check` and `yee run` warn, naming the key, when a source, probe, flux plane or DFT box
//! lies in a CPML layer (a TF/SF box that touches one is an error already) — and no example
//! scene gets a warning.

use std::path::Path;

use yee_scene::warnings::placement_warnings;

fn warnings(extra: &str) -> Vec<String> {
    let text = format!(
        r#"
[grid]
mode = "tmz"
size = [80, 60]
[boundaries]
all = "cpml"
[boundaries.cpml]
thickness = 10
{extra}
[run]
steps = 1
"#
    );
    let scene =
        yee_scene::parse(Path::new("warnings.toml"), &text).unwrap_or_else(|e| panic!("{e}"));
    placement_warnings(&scene)
}

const SOURCE: &str = r#"
[[sources]]
component = "ez"
position = [40, 30]
waveform = "ricker"
frequency = 0.05
"#;

#[test]
fn each_thing_in_a_layer_is_named() {
    assert_eq!(warnings(SOURCE), Vec::<String>::new());
    let cases = [
        (
            "[[sources]]\ncomponent = \"ez\"\nposition = [5, 30]\nwaveform = \"ricker\"\nfrequency = 0.05\n",
            "sources[1] drives cell [5, 30, 0] in the x_low CPML",
        ),
        (
            "[[probes]]\nname = \"edge\"\ncomponent = \"ez\"\nposition = [40, 55]\n",
            "probes[0] (edge) records cell [40, 55, 0] in the y_high CPML",
        ),
        (
            "[[flux]]\nname = \"t\"\naxis = \"x\"\nposition = 75\nfrequencies = [0.05]\n",
            "flux[0] (t) reaches into the x_high CPML",
        ),
        (
            "[[dft]]\nname = \"d\"\ncomponents = [\"ez\"]\nlo = [2, 20]\nhi = [30, 40]\nfrequencies = [0.05]\n",
            "dft[0] (d) reaches into the x_low CPML",
        ),
    ];
    for (extra, expected) in cases {
        let w = warnings(&format!("{SOURCE}{extra}"));
        assert!(w.len() == 1 && w[0].starts_with(expected), "{extra}: {w:?}");
    }
}

#[test]
fn no_example_scene_gets_a_warning() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/scenes");
    let mut seen = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "toml") {
            let scene = yee_scene::load(&path).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(
                placement_warnings(&scene),
                Vec::<String>::new(),
                "{}",
                path.display()
            );
            seen += 1;
        }
    }
    assert!(seen >= 10, "{seen} example scenes");
}
