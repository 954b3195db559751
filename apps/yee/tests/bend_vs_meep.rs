//! Meep's bent-waveguide tutorial (examples/scenes/waveguide_bend_incident.toml, then
//! waveguide_bend.toml): the bend's transmittance T(f) = flux_trans / incident_trans over the
//! band 0.1–0.2 c/µm against Meep 1.25's, recorded below with
//!
//! ```text
//! /usr/bin/python3 bench/meep_bend.py --meep-only --resolution 10   (and 20)
//! ```
//!
//! (Meep's tutorial as written there: subpixel averaging on, which on these grid-aligned faces
//! is the mean of ε that yee's placement rule gives). The examples are in µm at
//! `resolution = 10` cells per µm; at 20 that one number changes. The line source across the guide
//! lands symmetrically in it (docs/scene.md, "The same rule for sources and monitors"), as
//! Meep's does; on the nodes 40 … 49 of the old rule T missed Meep's by 0.063 at 10 and 0.030
//! at 20 cells per µm.

use std::path::Path;

// Meep 1.25.0, resolution 10, f = 0.1000 … 0.2000 c/um
const MEEP_T_10: [f64; 100] = [
    0.506073, 0.499603, 0.491264, 0.481856, 0.472400, 0.463756, 0.456307, 0.449843, 0.443668,
    0.436899, 0.428817, 0.419151, 0.408170, 0.396563, 0.385170, 0.374660, 0.365301, 0.356901,
    0.348926, 0.340748, 0.331908, 0.322292, 0.312154, 0.301985, 0.292297, 0.283411, 0.275335,
    0.267789, 0.260341, 0.252599, 0.244376, 0.235765, 0.227089, 0.218767, 0.211147, 0.204382,
    0.198383, 0.192877, 0.187530, 0.182084, 0.176457, 0.170771, 0.165297, 0.160356, 0.156209,
    0.152983, 0.150662, 0.149131, 0.148269, 0.148017, 0.148422, 0.149607, 0.151694, 0.154714,
    0.158540, 0.162900, 0.167467, 0.172021, 0.176615, 0.181679, 0.187987, 0.196478, 0.207931,
    0.222612, 0.240012, 0.258791, 0.277017, 0.292657, 0.304201, 0.311193, 0.314458, 0.315900,
    0.317866, 0.322313, 0.330068, 0.340517, 0.351869, 0.361916, 0.368983, 0.372641, 0.373863,
    0.374528, 0.376502, 0.380732, 0.386783, 0.393076, 0.397702, 0.399422, 0.398331, 0.395836,
    0.393962, 0.394331, 0.397329, 0.401910, 0.406124, 0.408108, 0.407012, 0.403409, 0.398957,
    0.395525,
];

// Meep 1.25.0, resolution 20, f = 0.1000 … 0.2000 c/um
const MEEP_T_20: [f64; 100] = [
    0.504429, 0.497945, 0.489593, 0.480168, 0.470688, 0.462009, 0.454518, 0.448011, 0.441806,
    0.435031, 0.426975, 0.417365, 0.406455, 0.394919, 0.383580, 0.373100, 0.363750, 0.355350,
    0.347376, 0.339209, 0.330391, 0.320803, 0.310689, 0.300532, 0.290846, 0.281955, 0.273883,
    0.266356, 0.258943, 0.251242, 0.243049, 0.234436, 0.225714, 0.217302, 0.209564, 0.202675,
    0.196571, 0.190996, 0.185618, 0.180164, 0.174527, 0.168800, 0.163232, 0.158139, 0.153787,
    0.150324, 0.147749, 0.145960, 0.144833, 0.144294, 0.144374, 0.145187, 0.146867, 0.149477,
    0.152936, 0.157007, 0.161371, 0.165769, 0.170168, 0.174884, 0.180599, 0.188225, 0.198627,
    0.212276, 0.228944, 0.247570, 0.266389, 0.283337, 0.296649, 0.305435, 0.310052, 0.312051,
    0.313704, 0.317210, 0.323886, 0.333669, 0.345146, 0.356148, 0.364672, 0.369737, 0.371786,
    0.372446, 0.373732, 0.377070, 0.382617, 0.389198, 0.394920, 0.398153, 0.398376, 0.396475,
    0.394310, 0.393772, 0.395823, 0.399997, 0.404638, 0.407736, 0.407953, 0.405275, 0.400992,
    0.397008,
];

/// The flux spectrum `name` of a run's report.
fn flux(report: &serde_json::Value, name: &str) -> Vec<f64> {
    let fluxes = report["fluxes"].as_array().unwrap();
    let entry = fluxes.iter().find(|f| f["name"] == name).unwrap();
    let values = entry["flux"].as_array().unwrap();
    values.iter().map(|v| v.as_f64().unwrap()).collect()
}

/// The example pair at `resolution` cells per µm: T(f) and its largest distance from Meep's.
fn bend_transmittance(resolution: u32, meep: &[f64; 100]) -> f64 {
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/scenes");
    let dir = crate::tmp_dir(module_path!()).join(format!("r{resolution}"));
    std::fs::create_dir_all(&dir).unwrap();
    // The examples are in µm at 10 cells per µm: one number sets the resolution.
    let read = |name: &str| {
        let text = std::fs::read_to_string(examples.join(name)).unwrap();
        assert!(text.contains("\nresolution = 10\n"));
        text.replace(
            "\nresolution = 10\n",
            &format!("\nresolution = {resolution}\n"),
        )
    };
    let incident_text = read("waveguide_bend_incident.toml");
    let incident = crate::run_text(&dir, "incident", &incident_text);
    let minus = incident.join("flux_refl_dft.npy");
    let bend_text = read("waveguide_bend.toml").replace(
        "../../out/waveguide_bend_incident/flux_refl_dft.npy",
        minus.to_str().unwrap(),
    );
    let bend = crate::run_text(&dir, "bend", &bend_text);
    let report = |out: &Path| -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(out.join("run.json")).unwrap()).unwrap()
    };
    let (incident, bend) = (
        flux(&report(&incident), "trans"),
        flux(&report(&bend), "trans"),
    );
    let worst = (0..100)
        .map(|i| (bend[i] / incident[i] - meep[i]).abs())
        .fold(0.0, f64::max);
    eprintln!("bend at {resolution} cells/µm: max |T_yee − T_meep| = {worst:.4}");
    worst
}

#[test]
fn the_bend_transmits_as_meep_at_10_cells_per_um() {
    let worst = bend_transmittance(10, &MEEP_T_10);
    assert!(worst <= 0.01, "T misses Meep's by {worst}");
}

/// 20 cells per µm: four times the cells and twice the steps of the test above (about two
/// minutes in the test profile on two cores, so left out of the README's `cargo test`;
/// `.ci/run` runs it with `--ignored`: 0.0009 on 2026-11-29).
#[test]
#[ignore = "about 2 minutes in the test profile; .ci/run runs it with --ignored"]
fn the_bend_transmits_as_meep_at_20_cells_per_um() {
    let worst = bend_transmittance(20, &MEEP_T_20);
    assert!(worst <= 0.005, "T misses Meep's by {worst}");
}
