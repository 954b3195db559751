//! `[units] resolution` (docs/scene.md, "[units]"): with it the grid's size and the CPML's
//! thickness are lengths, and one that is not a whole number of cells is an error naming its
//! key; without it they are cells, whole numbers.

use std::path::Path;

fn load(units: &str, size: &str, thickness: &str) -> Result<yee_scene::Scene, String> {
    let text = format!(
        "{units}\n[grid]\nmode = \"tmz\"\nsize = {size}\n[boundaries]\nall = \"cpml\"\n\
         [boundaries.cpml]\n{thickness}\n[run]\nsteps = 1\n"
    );
    yee_scene::parse(Path::new("lengths.toml"), &text).map_err(|e| e.to_string())
}

#[test]
fn a_grid_in_lengths_is_converted_to_cells() {
    let s = load("[units]\nresolution = 10", "[16, 3.2]", "thickness = 1").unwrap();
    assert_eq!(s.grid, [160, 32, 1]);
    let yee_em::Boundary::Cpml(p) = s.boundaries[0][0] else {
        panic!("no CPML");
    };
    assert_eq!(p.thickness, 10);
    assert_eq!(s.units, yee_scene::Units::Lengths { resolution: 10.0 });
    // In SI, resolution is cells per metre: 0.8 m at 200 per metre.
    let si = load(
        "[units]\nsystem = \"si\"\nresolution = 200",
        "[0.8, 0.16]",
        "thickness = 0.05",
    )
    .unwrap();
    assert_eq!(si.grid, [160, 32, 1]);
    assert_eq!(si.units, yee_scene::Units::Si { cell_size: 0.005 });
    // Without a thickness the CPML is 10 cells, whatever the units.
    let default = load("[units]\nresolution = 20", "[16, 3.2]", "").unwrap();
    let yee_em::Boundary::Cpml(p) = default.boundaries[1][1] else {
        panic!("no CPML");
    };
    assert_eq!(p.thickness, 10);
}

#[test]
fn a_length_that_is_not_whole_cells_names_its_key() {
    let e = load("[units]\nresolution = 10", "[16, 3.15]", "").unwrap_err();
    assert!(
        e.contains("grid.size[1]: 3.15 is 31.5 cells at resolution 10, not a whole number"),
        "{e}"
    );
    let e = load("[units]\nresolution = 10", "[16, 3.2]", "thickness = 0.25").unwrap_err();
    assert!(
        e.contains("boundaries.cpml.thickness: 0.25 is 2.5 cells"),
        "{e}"
    );
    let e = load("", "[16.5, 32]", "").unwrap_err();
    assert!(
        e.contains("grid.size[0]: 16.5 is not a whole number of cells"),
        "{e}"
    );
    let e = load(
        "[units]\nsystem = \"si\"\ncell_size = 0.01\nresolution = 100",
        "[16, 32]",
        "",
    )
    .unwrap_err();
    assert!(e.contains("units.resolution: give the cell size"), "{e}");
    let e = load("[units]\nresolution = -2", "[16, 32]", "").unwrap_err();
    assert!(e.contains("units.resolution: -2 must be a positive"), "{e}");
}
