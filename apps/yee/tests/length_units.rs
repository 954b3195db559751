//! Scenes in lengths (`[units] resolution`, docs/scene.md "[units]"): one number sets the
//! resolution of the whole scene. A slab's reflectance at `resolution` 10 and 20 approaches the
//! Airy formula's at second order, and a scene written in lengths runs bit for bit as the
//! same scene written in cells.

use std::path::Path;

use num_complex::Complex64;

/// A 1D slab (ε = 4, 4 a thick) lit by a Gaussian plane wave over 0.05–0.2 c/a, in lengths of
/// `a` at `resolution` cells per a; without the slab, the normalisation run.
fn slab_scene(resolution: u32, slab: bool, minus: Option<&Path>) -> String {
    let geometry = match slab {
        true => "[[geometry]]\nshape = \"box\"\nmaterial = \"slab\"\nlo = [22]\nhi = [26]\n",
        false => "",
    };
    let minus = minus.map_or(String::new(), |m| {
        format!("minus = {:?}\n", m.to_str().unwrap())
    });
    format!(
        r#"[units]
resolution = {resolution}
[grid]
mode = "1d"
size = [50]
courant = 0.5
[boundaries]
all = "cpml"
[boundaries.cpml]
thickness = 2
[materials.slab]
eps = 4.0
{geometry}
[[plane_waves]]
lo = [4]
hi = [46]
direction = "+x"
polarization = [0, 0, 1]
waveform = "gaussian"
frequency = 0.125
width = 4.25
delay = 21.25
[[flux]]
name = "refl"
axis = "x"
position = 12
fmin = 0.05
fmax = 0.2
count = 31
{minus}
[run]
time = 150
"#
    )
}

/// The flux spectrum `name` of the run in `out`.
fn flux(out: &Path, name: &str) -> Vec<f64> {
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("run.json")).unwrap()).unwrap();
    let entry = report["fluxes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["name"] == name)
        .unwrap()
        .clone();
    entry["flux"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect()
}

/// The largest distance of the slab's R from the Airy formula's over the band, at
/// `resolution`.
fn reflectance_error(dir: &Path, resolution: u32) -> f64 {
    let empty = crate::run_text(
        dir,
        &format!("empty{resolution}"),
        &slab_scene(resolution, false, None),
    );
    let minus = empty.join("flux_refl_dft.npy");
    let full = crate::run_text(
        dir,
        &format!("slab{resolution}"),
        &slab_scene(resolution, true, Some(&minus)),
    );
    let (incident, reflected) = (flux(&empty, "refl"), flux(&full, "refl"));
    (0..31)
        .map(|k| {
            let f = 0.05 + 0.15 * k as f64 / 30.0;
            let airy = yee_em::airy::slab(Complex64::new(4.0, 0.0), 4.0, f).unwrap();
            (-reflected[k] / incident[k] - airy.reflectance).abs()
        })
        .fold(0.0, f64::max)
}

#[test]
fn a_slab_in_lengths_converges_at_second_order_as_the_resolution_doubles() {
    let dir = crate::tmp_dir(module_path!());
    let coarse = reflectance_error(&dir, 10);
    let fine = reflectance_error(&dir, 20);
    eprintln!(
        "slab R against Airy: {coarse:.3e} at 10 cells per a, {fine:.3e} at 20 (ratio {:.2})",
        coarse / fine
    );
    assert!(coarse < 0.03 && fine < 0.008, "{coarse}, {fine}");
    // Second order: a quarter of the error at twice the resolution.
    assert!((3.2..4.8).contains(&(coarse / fine)), "{coarse} / {fine}");
}

/// A guide, a rod, a line source across the guide, a flux plane and a probe: in lengths of
/// `a` at 10 cells per a when `cells` is false, else the same numbers converted to cells as the
/// scene's units convert them (lengths × 10, times × 10, frequencies / 10).
fn guide_scene(cells: bool) -> String {
    let (units, k) = match cells {
        true => (String::new(), 10.0f64),
        false => ("[units]\nresolution = 10\n".to_string(), 1.0),
    };
    let l = |x: f64| format!("{:?}", x * k);
    let f = |x: f64| format!("{:?}", x / k);
    format!(
        r#"name = "guide"
{units}[grid]
mode = "tmz"
size = [{}, {}]
courant = 0.5
[boundaries]
all = "cpml"
[boundaries.cpml]
thickness = {}
[materials.glass]
eps = 12.0
sigma = {}
[[geometry]]
shape = "box"
material = "glass"
lo = [0, {}]
hi = [{}, {}]
[[geometry]]
shape = "cylinder"
material = "glass"
center = [{}, {}]
radius = {}
[[sources]]
component = "ez"
lo = [{}, {}]
hi = [{}, {}]
waveform = "gaussian"
frequency = {}
width = {}
delay = {}
[[flux]]
name = "trans"
axis = "x"
position = {}
lo = [{}, {}]
hi = [{}, {}]
fmin = {}
fmax = {}
count = 5
[[probes]]
name = "p"
component = "ez"
position = [{}, {}]
[run]
time = {}
"#,
        l(8.0),
        l(6.0),
        l(1.0),
        f(0.01),
        l(2.5),
        l(8.0),
        l(3.5),
        l(4.0),
        l(4.6),
        l(0.35),
        l(1.5),
        l(2.5),
        l(1.5),
        l(3.5),
        f(0.15),
        l(10.0),
        l(50.0),
        l(6.5),
        l(6.5),
        l(2.0),
        l(6.5),
        l(4.0),
        f(0.1),
        f(0.2),
        l(5.25),
        l(3.05),
        l(60.0),
    )
}

#[test]
fn a_scene_in_lengths_runs_bit_for_bit_as_the_same_scene_in_cells() {
    let dir = crate::tmp_dir(module_path!());
    let lengths = crate::run_text(&dir, "guide_lengths", &guide_scene(false));
    let cells = crate::run_text(&dir, "guide_cells", &guide_scene(true));
    let read = |out: &Path, file: &str| std::fs::read(out.join(file)).unwrap();
    let same = read(&lengths, "flux_trans_dft.npy") == read(&cells, "flux_trans_dft.npy");
    assert!(same, "the flux plane's transforms differ");
    let bits = |v: Vec<f64>| v.into_iter().map(f64::to_bits).collect::<Vec<_>>();
    assert_eq!(bits(flux(&lengths, "trans")), bits(flux(&cells, "trans")));
    // The probe's values (the third column); its times are in a/c and in cells.
    let values = |out: &Path| -> Vec<String> {
        let csv = String::from_utf8(read(out, "probe_p.csv")).unwrap();
        csv.lines()
            .skip(1)
            .map(|l| l.rsplit(',').next().unwrap().to_string())
            .collect()
    };
    let probe = values(&lengths);
    assert_eq!(probe, values(&cells));
    assert!(probe.iter().any(|v| v.parse::<f64>().unwrap() != 0.0));
    // The outputs speak the scene's units: frequencies in c/a, ten times the cell form's.
    let frequencies = |out: &Path| -> Vec<f64> {
        let report: serde_json::Value =
            serde_json::from_str(&String::from_utf8(read(out, "run.json")).unwrap()).unwrap();
        report["fluxes"][0]["frequencies"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_f64().unwrap())
            .collect()
    };
    let (fa, fc) = (frequencies(&lengths), frequencies(&cells));
    assert!(
        (fa[0] - 0.1).abs() < 1e-12 && (fc[0] - 0.01).abs() < 1e-12,
        "{fa:?} {fc:?}"
    );
}

/// `yee check` prints where things land in cells and in the scene's lengths: the grid and the
/// CPML, and the node a probe records or a source drives (issue 50: "probe rx: ez at cell
/// [42, 85, 0]" gave no way to see that 0.086 m had missed node 43). Small SI lengths keep
/// their exponent.
#[test]
fn yee_check_prints_cells_and_lengths() {
    let dir = crate::tmp_dir(module_path!());
    let stdout = |name: &str, text: &str| {
        let out = crate::check_text(&dir, name, text);
        assert!(out.status.success(), "{out:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    let guide = stdout("guide_check", &guide_scene(false));
    for expected in [
        "grid        80 × 60 cells = 8 × 6 a",
        "low cpml (10 cells = 1 a,",
        "ez Soft on 11 nodes from cell [15, 25, 0], node at [1.5, 2.5] a to [15, 35, 0], node \
         at [1.5, 3.5] a (those on the box's faces weighted ½",
        "probe       p: ez at cell [52, 30, 0], node at [5.2, 3] a\n",
    ] {
        assert!(guide.contains(expected), "`{expected}` in\n{guide}");
    }
    let si = stdout(
        "si_check",
        include_str!("../../scene/tests/scenes/si_probe_86mm.toml"),
    );
    for expected in [
        "grid        100 × 100 cells = 0.2 × 0.2 m",
        "ez Soft at cell [25, 25, 0], node at [0.05, 0.05] m,",
        "probe       rx: ez at cell [43, 85, 0], node at [0.086, 0.17] m\n",
    ] {
        assert!(si.contains(expected), "`{expected}` in\n{si}");
    }
    let nano = stdout(
        "nano_check",
        "[units]\nsystem = \"si\"\ncell_size = 1e-9\n[grid]\nmode = \"1d\"\nsize = [3000]\n[boundaries]\nall = \"cpml\"\n\
         [[probes]]\nname = \"p\"\ncomponent = \"ez\"\nposition = [2.5e-6]\n[run]\nsteps = 1\n",
    );
    for expected in [
        "grid        3000 cells = 3e-6 m",
        "low cpml (10 cells = 1e-8 m,",
        "probe       p: ez at cell [2500, 0, 0], node at [2.5e-6] m\n",
    ] {
        assert!(nano.contains(expected), "`{expected}` in\n{nano}");
    }
}
