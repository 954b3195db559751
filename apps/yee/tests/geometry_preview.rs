//! `yee geometry`: the preview PNGs decoded by the `png` crate, with the dielectric, the
//! source, the probe and the CPML where the scene puts them; planes of 3D scenes; clear
//! refusals of options a scene cannot take.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn out_dir(name: &str) -> PathBuf {
    let dir = crate::tmp_dir(module_path!()).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn yee_geometry(scene: &Path, out: &Path, extra: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_yee"))
        .args(["geometry", scene.to_str().unwrap(), "--out"])
        .arg(out)
        .args(extra)
        .output()
        .unwrap()
}

/// (width, height, RGB bytes), by the `png` crate's decoder.
fn decode(path: &Path) -> (u32, u32, Vec<u8>) {
    yee_io::png::read_rgb(path).unwrap()
}

fn count(image: &(u32, u32, Vec<u8>), colour: [u8; 3]) -> usize {
    image.2.chunks(3).filter(|p| *p == colour).count()
}

#[test]
fn a_2d_preview_shows_the_dielectric_source_probe_and_cpml() {
    let out = out_dir("cylinder_tez");
    let scene = repo().join("examples/scenes/cylinder_tez.toml");
    let output = yee_geometry(&scene, &out, &[]);
    assert!(output.status.success(), "{output:?}");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("geometry.png"), "{stdout}");
    assert!(stdout.contains("1 dielectric: eps 4"), "{stdout}");
    let image = decode(&out.join("geometry.png"));
    assert_eq!(
        (image.0, image.1),
        yee_io::slice_plot::image_size([240, 160])
    );
    // ε = 4 is the darkest colour of the map: the cylinder of radius 25 covers ~1960 cells
    // of (600 / 240 → 2 px)² each.
    let darkest =
        yee_io::slice_plot::map_colour(yee_io::slice_plot::ColourMap::Sequential, (1.0, 4.0), 4.0);
    let dark = count(&image, darkest);
    assert!((6000..9000).contains(&dark), "{dark} pixels of ε = 4");
    assert!(
        count(&image, [214, 39, 40]) > 20,
        "the source is drawn in red"
    );
    assert!(
        count(&image, [44, 160, 44]) > 20,
        "the probe is drawn in green"
    );
    assert!(
        count(&image, [0, 0, 0]) > 300,
        "outlines and axes are black"
    );
}

#[test]
fn a_3d_preview_draws_a_plane_per_axis_or_the_one_asked_for() {
    let scene = repo().join("examples/scenes/dipole_halfspace3d.toml");
    let out = out_dir("halfspace");
    let output = yee_geometry(&scene, &out, &[]);
    assert!(output.status.success(), "{output:?}");
    for file in ["geometry_x30.png", "geometry_y30.png", "geometry_z30.png"] {
        let image = decode(&out.join(file));
        assert_eq!((image.0, image.1), yee_io::slice_plot::image_size([60, 60]));
    }
    // 0.1 m in a scene of 5 mm cells: plane 20 along z, in the soil.
    let out = out_dir("halfspace-z");
    let output = yee_geometry(&scene, &out, &["--axis", "z", "--position", "0.1"]);
    assert!(output.status.success(), "{output:?}");
    assert!(out.join("geometry_z20.png").is_file());
    let output = yee_geometry(&scene, &out, &["--axis", "z", "--position", "2"]);
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("--position 2 lies outside the grid along z"),
        "{stderr}"
    );
}

#[test]
fn a_2d_scene_refuses_a_plane() {
    let scene = repo().join("examples/scenes/dipole2d.toml");
    let out = out_dir("dipole2d");
    let output = yee_geometry(&scene, &out, &["--axis", "x"]);
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("has a single plane"), "{stderr}");
}
