//! The far field of a closed flux box (`far_field = [n_theta, n_phi]`): by surface
//! equivalence from the box's DFT fields ([`yee_em::near_to_far`]), per frequency the field on
//! a sphere of directions, the radiated power, and with a plane wave in the scene the
//! bistatic radar cross-section σ = 4πU / S_inc.

use std::path::Path;

use serde::Serialize;
use yee_em::flux::surface_points;
use yee_em::near_to_far::{
    FarField, SphereDirection, SurfaceSample, cross_section, far_field, plane_wave_intensity,
    power_of, sphere_directions,
};
use yee_em::plane_wave::grid_wavenumber;
use yee_em::{DftFields, DftMonitor, FluxPlane};
use yee_scene::Scene;

use crate::error::io_error;
use crate::failures::Failures;

/// A far field's entry in `run.json`.
#[derive(Debug, Serialize)]
pub struct FarFieldReport {
    /// `farfield_<name>.csv`: one row per frequency and direction.
    pub csv: String,
    /// `farfield_<name>.png`: radiation intensity against θ at φ = 0, one curve per frequency
    /// it draws ([`yee_scene::Flux::plot_frequencies`]).
    pub png: String,
    /// The frequencies (scene units) the PNG draws, in its legend's order.
    pub plot_frequencies: Vec<f64>,
    /// Radiated power per frequency (normalised units, the DFT's spectral density).
    pub radiated_power: Vec<f64>,
    /// Where the CSV's values are not finite, when they are not: how many rows and the first
    /// (not in `run.json`; [`crate::flux_output::check_finite`] fails the run with it).
    #[serde(skip)]
    pub not_finite: Option<String>,
}

/// The incident intensity at each frequency of the scene's first plane wave as a flux plane
/// would measure it (`None` without a plane wave): `|A W(f)|² / 2η` with `W` the sum the
/// monitors take over E's sample times, times the two averages the flux applies to H — over
/// its half steps, `cos(πfΔt)`, and over the half cells either side of the plane,
/// `cos(k/2)` with the grid's wavenumber along an axis `sin(k/2) = sin(πfΔt)/S` (Taflove &
/// Hagness, 3rd ed., eq. (4.12)). A ratio of a measured flux to it is then free of both.
pub fn incident_intensity(scene: &Scene, frequencies: &[f64], steps: u64) -> Option<Vec<f64>> {
    let wave = scene.plane_waves.first()?;
    let dt = scene.dt();
    let mut sums = vec![[0.0f64; 2]; frequencies.len()];
    let mut weights = vec![[0.0f64; 2]; frequencies.len()];
    for step in 0..steps {
        let t = DftMonitor::time(yee_em::Component::Ex, step, dt);
        DftMonitor::weights(frequencies, t, dt, &mut weights);
        let v = wave.amplitude * wave.waveform.value(t);
        for (s, w) in sums.iter_mut().zip(&weights) {
            s[0] += v * w[0];
            s[1] += v * w[1];
        }
    }
    let background = scene.background.1;
    let n = (background.eps * background.mu).sqrt();
    let impedance = (background.mu / background.eps).sqrt();
    Some(
        sums.iter()
            .zip(frequencies)
            .map(|([re, im], &f)| {
                let half_step = (std::f64::consts::PI * f * dt).cos();
                let omega = 2.0 * std::f64::consts::PI * f;
                // At f = 0, k = 0; beyond the grid's cut-off nothing propagates: cos(k/2) = 0.
                let k = grid_wavenumber(omega, n, [1.0, 0.0, 0.0], dt).unwrap_or(if omega > 0.0 {
                    std::f64::consts::PI
                } else {
                    0.0
                });
                plane_wave_intensity((re * re + im * im).sqrt()) / impedance
                    * half_step
                    * (k / 2.0).cos()
            })
            .collect(),
    )
}

/// The far field of `samples` at `frequency` towards each of `directions`, in their order
/// ([`far_field`] each; on rayon's pool where the build has it: each direction's sum is the
/// same on any thread).
fn far_fields(
    samples: &[SurfaceSample],
    frequency: f64,
    directions: &[SphereDirection],
) -> Vec<FarField> {
    #[cfg(feature = "rayon")]
    {
        use rayon::prelude::*;
        (directions.par_iter())
            .map(|d| far_field(samples, frequency, d.direction))
            .collect()
    }
    #[cfg(not(feature = "rayon"))]
    {
        (directions.iter())
            .map(|d| far_field(samples, frequency, d.direction))
            .collect()
    }
}

/// Writes the far field of the box `planes` with transforms `faces`, its plot drawing the
/// frequencies `drawn` (indices, increasing), returning its report and the files written; a
/// file that cannot be written is kept in `failures`.
#[allow(clippy::too_many_arguments)]
pub fn write_far_field(
    scene: &Scene,
    name: &str,
    planes: &[FluxPlane],
    faces: &[DftFields],
    [n_theta, n_phi]: [usize; 2],
    drawn: &[usize],
    steps: u64,
    out: &Path,
    failures: &mut Failures,
) -> (FarFieldReport, Vec<String>) {
    let setup = scene.setup();
    let periodic = yee_core::Axis::ALL.map(|a| setup.is_periodic(a));
    let frequencies = &faces[0].frequencies;
    let incident = incident_intensity(scene, frequencies, steps);
    let mut text = String::from(
        "frequency,theta_deg,phi_deg,e_theta_re,e_theta_im,e_phi_re,e_phi_im,intensity",
    );
    text.push_str(if incident.is_some() { ",rcs\n" } else { "\n" });
    let mut power = Vec::with_capacity(frequencies.len());
    let directions: Vec<SphereDirection> = sphere_directions(n_theta, n_phi).collect();
    let mut curves: Vec<Vec<f64>> = Vec::new();
    let mut thetas: Vec<f64> = Vec::new();
    let (mut rows, mut bad_rows, mut first_bad) = (0usize, 0usize, None);
    for (k, &f) in frequencies.iter().enumerate() {
        let samples: Vec<SurfaceSample> = planes
            .iter()
            .zip(faces)
            .flat_map(|(p, d)| {
                surface_points(p, d, k, setup.mode, setup.grid, periodic, setup.dt())
            })
            .collect();
        // Each direction's far field once, for the power and the rows alike.
        let fields = far_fields(&samples, f, &directions);
        power.push(power_of(
            (directions.iter().zip(&fields)).map(|(d, ff)| (d.solid_angle, ff.intensity)),
        ));
        let scene_f = scene.units.to_scene_frequency(f);
        let mut curve = Vec::new();
        for (d, ff) in directions.iter().zip(&fields) {
            text.push_str(&format!(
                "{scene_f:e},{:.6},{:.6},{:e},{:e},{:e},{:e},{:e}",
                d.theta.to_degrees(),
                d.phi.to_degrees(),
                ff.e_theta.re,
                ff.e_theta.im,
                ff.e_phi.re,
                ff.e_phi.im,
                ff.intensity
            ));
            let rcs = incident.as_ref().map(|s| cross_section(ff.intensity, s[k]));
            if let Some(rcs) = rcs {
                text.push_str(&format!(",{rcs:e}"));
            }
            let row = [ff.e_theta.re, ff.e_theta.im, ff.e_phi.re, ff.e_phi.im];
            rows += 1;
            let mut values = row.iter().chain([&ff.intensity]).chain(&rcs);
            if !values.all(|v| v.is_finite()) {
                bad_rows += 1;
                first_bad.get_or_insert_with(|| {
                    format!(
                        "f = {scene_f:e}, θ = {:.1}°, φ = {:.1}°: intensity {}",
                        d.theta.to_degrees(),
                        d.phi.to_degrees(),
                        ff.intensity
                    )
                });
            }
            text.push('\n');
            if d.phi == 0.0 && drawn.contains(&k) {
                curve.push(ff.intensity);
                if k == drawn[0] {
                    thetas.push(d.theta.to_degrees());
                }
            }
        }
        if drawn.contains(&k) {
            curves.push(curve);
        }
    }
    let csv = format!("farfield_{name}.csv");
    let path = out.join(&csv);
    let mut written = Vec::new();
    if failures
        .keep(yee_io::atomic::write(&path, text).map_err(|e| io_error(&path, e)))
        .is_some()
    {
        written.push(csv.clone());
    }
    let png = format!("farfield_{name}.png");
    let path = out.join(&png);
    let unit = match scene.units {
        yee_scene::Units::Si { .. } => " Hz",
        yee_scene::Units::Lengths { .. } => " c/a",
        yee_scene::Units::Normalised => " c/Δx",
    };
    let names: Vec<String> = (drawn.iter().map(|&k| frequencies[k]))
        .map(|f| {
            format!(
                "f = {}{unit}",
                yee_io::style::tick(scene.units.to_scene_frequency(f))
            )
        })
        .collect();
    let named: Vec<(&str, &[f64])> = (names.iter().map(String::as_str))
        .zip(curves.iter().map(Vec::as_slice))
        .collect();
    // One curve has no legend: the title names its frequency.
    let title = match &names[..] {
        [only] => format!("{}: far field of {name}, φ = 0, {only}", scene.name),
        _ => format!("{}: far field of {name}, φ = 0", scene.name),
    };
    let plot = yee_io::plot::LinePlot {
        title: &title,
        x_label: "θ (degrees)",
        y_label: "radiation intensity",
        xs: &thetas,
        curves: &named,
        log_y: false,
    };
    if failures
        .keep(yee_io::plot::write_line_plot(&path, &plot).map_err(|e| io_error(&path, e)))
        .is_some()
    {
        written.push(png.clone());
    }
    (
        FarFieldReport {
            csv,
            png,
            plot_frequencies: (drawn.iter())
                .map(|&k| scene.units.to_scene_frequency(frequencies[k]))
                .collect(),
            radiated_power: power,
            not_finite: first_bad.map(|first| {
                format!("at {bad_rows} of its {rows} directions and frequencies (first: {first})")
            }),
        },
        written,
    )
}

// The default spread and the picks draw no more curves than a plot has colours.
const _: () = assert!(yee_scene::plot_frequencies::MOST <= yee_io::plot::MAX_CURVES);
