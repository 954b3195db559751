//! `yee check` and `yee run` warn, naming the key, when a source, probe, flux plane or DFT box
//! lies in a CPML layer (a TF/SF box that touches one is an error already) — and no example
//! scene gets a warning; and when a pulse's DC part exceeds 1e-3 of its spectrum at the carrier,
//! naming the key that fixes it.

use std::path::Path;

use yee_scene::warnings::{placement_warnings, scene_warnings};

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
                scene_warnings(&scene),
                Vec::<String>::new(),
                "{}",
                path.display()
            );
            seen += 1;
        }
    }
    assert!(seen >= 10, "{seen} example scenes");
}

#[test]
fn a_pulse_with_a_large_dc_part_is_named_with_the_key_that_fixes_it() {
    let gaussian = |width: f64| {
        format!(
            "[[sources]]\ncomponent = \"ez\"\nposition = [40, 30]\nwaveform = \"gaussian\"\n\
             frequency = 0.0145\nwidth = {width}\n\
             [[plane_waves]]\nlo = [20, 15]\nhi = [60, 45]\ndirection = [1, 0]\n\
             polarization = [0, 0, 1]\nwaveform = \"gaussian\"\nfrequency = 0.0145\n\
             width = {width}\n"
        )
    };
    let scene = |extra: &str| {
        let text = format!(
            "[grid]\nmode = \"tmz\"\nsize = [80, 60]\n[boundaries]\nall = \"cpml\"\n\
             [boundaries.cpml]\nthickness = 10\n{extra}[run]\nsteps = 1\n"
        );
        yee_scene::parse(Path::new("dc.toml"), &text).unwrap_or_else(|e| panic!("{e}"))
    };
    // f₀w = 0.36: a DC part of 15 % of the spectrum at the carrier.
    let w = scene_warnings(&scene(&gaussian(25.0)));
    assert_eq!(w.len(), 2, "{w:?}");
    assert!(
        w[0].starts_with("sources[0] has a DC part of 1.5e-1")
            && w[0].contains("raise sources[0].width to at least 0.621/frequency"),
        "{w:?}"
    );
    assert!(
        w[1].starts_with("plane_waves[0] has a DC part of 1.5e-1")
            && w[1].contains("plane_waves[0].width"),
        "{w:?}"
    );
    // What the warning asks for silences it: 0.621/0.0145 = 42.8.
    assert_eq!(
        scene_warnings(&scene(&gaussian(42.9))),
        Vec::<String>::new()
    );
    assert_eq!(scene_warnings(&scene(SOURCE)), Vec::<String>::new());
}
