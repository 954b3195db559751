//! Low-frequency residue of pulses (issue 51): a Gaussian-modulated carrier has a DC part
//! (`2 exp(−2π²(f₀w)²)` of its spectrum at the carrier, 15 % for the pulse below), which a CPML
//! with a complex-frequency shift α hardly absorbs: the stretch `1 + σ/(α + iω)` is real below
//! ω ≈ α. Three measures on a 1D grid at Courant 0.99 (the scenes' default): the field left
//! inside a TF/SF box after the pulse has passed, and a slab's `R + T − 1` lit by a TF/SF plane
//! wave and by a current sheet, with the CPML a 1D scene gets by default (α = 0).
//!
//! Before issue 51 (the incident line's CPML with α = 0.05, the main grid's too): the residue
//! reached 1.3e-3 of the peak by t = 5250; `R + T − 1` was 7.1e-4 (plane wave, Gaussian),
//! 6.1e-6 (plane wave, Ricker), 5.4e-3 (sheet, Gaussian), 5.1e-5 (sheet, Ricker) to t = 5000.
//! After: 1.7e-7 of the peak; 3.6e-6, 3.6e-6, 5.8e-6, 5.8e-6. Meep 1.25 on the same cells
//! (`bench/meep_slab_rt.py --courant 0.99 --until 5000`, a sheet): 3.9e-5 (Gaussian), 1.3e-5
//! (Ricker).

use yee_core::{Axis, Box3, Side};
use yee_em::flux::flux_spectrum;
use yee_em::{
    Boundaries, Boundary, Component, CpmlParams, FluxPlane, Material, Mode, PlaneWave, PointSource,
    Probe, Region, Setup, Shape, SourceKind, Waveform,
};
use yee_tests::{single_chunk, vacuum};

const COURANT: f64 = 0.99;

/// The pulse: f₀ = 0.0145, w = 25 (f₀w = 0.36, DC part 7.7 % of the spectral peak).
const GAUSSIAN: Waveform = Waveform::Gaussian {
    delay: 125.0,
    width: 25.0,
    frequency: 0.0145,
};
const RICKER: Waveform = Waveform::Ricker {
    frequency: 0.0145,
    delay: 125.0,
};

fn cpml(params: CpmlParams) -> Boundaries {
    [[Boundary::Cpml(params); 2]; 3]
}

/// The largest |Ez| at a probe in the middle of a TF/SF box in an empty 1D grid, after the
/// pulse has passed it and up to `until`, over the peak.
fn residue(waveform: Waveform, until: f64, boundaries: Boundaries) -> f64 {
    let grid = [200, 1, 1];
    let waves = [PlaneWave {
        region: Box3::new([30, 0, 0], [170, 1, 1]),
        direction: [1.0, 0.0, 0.0],
        polarization: [0.0, 0.0, 1.0],
        waveform,
        amplitude: 1.0,
    }];
    let probes = [Probe {
        component: Component::Ez,
        cell: [100, 0, 0],
    }];
    let setup = Setup {
        plane_waves: &waves,
        probes: &probes,
        ..vacuum(Mode::OneD, grid, COURANT, boundaries)
    };
    setup.validate().unwrap();
    let steps = (until / COURANT).ceil() as u64;
    let out = single_chunk::<f64>(&setup, steps);
    let series = &out.probes[0];
    let peak = series.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    // The pulse's envelope has fallen below 1e-7 at the probe (70 cells into the box) by
    // delay + 6w + 70 = 345 (a Ricker's sooner).
    let after = (345.0 / COURANT).ceil() as usize;
    let tail = series[after..].iter().fold(0.0f64, |m, v| m.max(v.abs()));
    tail / peak
}

/// How the slab is lit.
#[derive(Clone, Copy, Debug)]
enum Lighting {
    PlaneWave(Waveform),
    Sheet(Waveform),
}

const GRID: usize = 500;

fn plane(x: i64) -> FluxPlane {
    FluxPlane {
        cells: Box3::new([x, 0, 0], [x + 1, 1, 1]),
        axis: Axis::X,
        normal: Side::High,
    }
}

/// The transforms at x = 120 and x = 380 with or without a slab of ε = 4 over [220, 260].
fn transforms(
    lighting: Lighting,
    with_slab: bool,
    frequencies: &[f64],
    boundaries: Boundaries,
    until: f64,
) -> (Vec<yee_em::DftFields>, [FluxPlane; 2]) {
    let grid = [GRID, 1, 1];
    let regions: Vec<Region> = with_slab
        .then_some(Region {
            shape: Shape::Block {
                lo: [220.0, f64::NEG_INFINITY, f64::NEG_INFINITY],
                hi: [260.0, f64::INFINITY, f64::INFINITY],
            },
            material: Material::dielectric(4.0),
        })
        .into_iter()
        .collect();
    let (waves, sources) = match lighting {
        Lighting::PlaneWave(waveform) => (
            vec![PlaneWave {
                region: Box3::new([40, 0, 0], [460, 1, 1]),
                direction: [1.0, 0.0, 0.0],
                polarization: [0.0, 0.0, 1.0],
                waveform,
                amplitude: 1.0,
            }],
            vec![],
        ),
        Lighting::Sheet(waveform) => (
            vec![],
            vec![PointSource {
                component: Component::Ez,
                cell: [60, 0, 0],
                waveform,
                amplitude: 1.0,
                kind: SourceKind::Soft,
            }],
        ),
    };
    let planes = [plane(120), plane(380)];
    let monitors = planes.map(|p| p.monitor(Mode::OneD, grid, 0, frequencies.len()));
    let setup = Setup {
        regions: &regions,
        plane_waves: &waves,
        sources: &sources,
        monitors: &monitors,
        frequencies,
        ..vacuum(Mode::OneD, grid, COURANT, boundaries)
    };
    setup.validate().unwrap();
    let out = single_chunk::<f64>(&setup, (until / COURANT).ceil() as u64);
    (out.dft, planes)
}

/// The largest |R + T − 1| over [0.005, 0.024] (the pulse's band f₀ ± 1.5σ_f).
fn energy_miss(lighting: Lighting, boundaries: Boundaries, until: f64) -> f64 {
    let frequencies: Vec<f64> = (0..=38).map(|i| 0.005 + 0.0005 * i as f64).collect();
    let (empty, planes) = transforms(lighting, false, &frequencies, boundaries, until);
    let (slab, _) = transforms(lighting, true, &frequencies, boundaries, until);
    let grid = [GRID, 1, 1];
    let spectrum = |p: &FluxPlane, d: &yee_em::DftFields, minus: Option<&yee_em::DftFields>| {
        flux_spectrum(p, d, minus, Mode::OneD, grid, [false; 3], COURANT)
    };
    let incident_r = spectrum(&planes[0], &empty[0], None);
    let incident_t = spectrum(&planes[1], &empty[1], None);
    let reflected = spectrum(&planes[0], &slab[0], Some(&empty[0]));
    let transmitted = spectrum(&planes[1], &slab[1], None);
    let mut worst = 0.0f64;
    for i in 0..frequencies.len() {
        let r = -reflected[i] / incident_r[i];
        let t = transmitted[i] / incident_t[i];
        worst = worst.max((r + t - 1.0).abs());
    }
    worst
}

/// The CPML of a 1D scene by default: 20 cells, the scene's other defaults.
fn scene_default_cpml() -> Boundaries {
    cpml(CpmlParams {
        alpha_max: yee_scene::spec::default_alpha(Mode::OneD),
        ..CpmlParams::with_thickness(20)
    })
}

/// Twenty pulse lengths (2 × delay = 250 each) after the pulse has passed the probe.
const UNTIL: f64 = 345.0 + 20.0 * 250.0;

#[test]
fn a_plane_wave_leaves_nothing_behind_in_its_box() {
    for (name, waveform) in [("Gaussian", GAUSSIAN), ("Ricker", RICKER)] {
        let r = residue(waveform, UNTIL, scene_default_cpml());
        eprintln!("{name}: |Ez| in the box after the pulse, to t = {UNTIL}: {r:.2e} of the peak");
        assert!(r <= 1e-6, "{name}: residue {r:e} of the peak");
    }
}

#[test]
fn a_slab_conserves_energy_lit_by_a_plane_wave_or_a_sheet() {
    for (name, lighting) in [
        ("plane wave, Gaussian", Lighting::PlaneWave(GAUSSIAN)),
        ("plane wave, Ricker", Lighting::PlaneWave(RICKER)),
        ("sheet, Gaussian", Lighting::Sheet(GAUSSIAN)),
        ("sheet, Ricker", Lighting::Sheet(RICKER)),
    ] {
        let miss = energy_miss(lighting, scene_default_cpml(), 5000.0);
        eprintln!("{name}, to t = 5000: |R + T − 1| ≤ {miss:.2e}");
        assert!(miss <= 3e-5, "{name}: |R + T − 1| = {miss:e}");
    }
}

#[test]
fn a_one_d_scene_gets_a_cpml_without_alpha() {
    let text = "name = \"a\"\n[grid]\nmode = \"1d\"\nsize = [100]\n[boundaries]\nall = \"cpml\"\n[run]\nsteps = 10\n";
    let scene = yee_scene::parse(std::path::Path::new("inline.toml"), text).unwrap();
    let Boundary::Cpml(p) = scene.boundaries[0][0] else {
        panic!("{:?}", scene.boundaries[0][0]);
    };
    assert_eq!(p.alpha_max, 0.0);
    let two_d = text.replace("1d", "tmz").replace("[100]", "[100, 100]");
    let scene = yee_scene::parse(std::path::Path::new("inline.toml"), &two_d).unwrap();
    let Boundary::Cpml(p) = scene.boundaries[0][0] else {
        panic!("{:?}", scene.boundaries[0][0]);
    };
    assert_eq!(p.alpha_max, 0.05);
}
