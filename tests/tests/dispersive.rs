//! Dispersive media against analytic answers (issue 20's acceptance).
//!
//! Half-spaces: a Drude metal and a Lorentz dielectric fill x ≥ X0 of a 1D grid (through the
//! CPML at the far end); a soft current sheet (1D: a plane wave) lights them. R is the
//! reflected flux (the run's transforms less the vacuum run's, as `flux.rs` does) over the
//! incident flux at a plane between. The reference is the reflection of the Yee lattice itself
//! with the update's discrete-time ε(ω) ([`yee_em::medium::NodeMedium::discrete_permittivity`]):
//! with Ez at integer nodes, the node on the interface holding the mean ε of both sides
//! ([`yee_em::placement`]), and `sin(kⱼ/2) = (Ω/2)√εⱼ`, `Ω = 2 sin(ωΔt/2)/Δt` on each side
//! (Taflove & Hagness 3rd ed. eq. (4.12)), the lattice's Helmholtz equation at the interface
//! node gives `r = (sin k₁ − sin k₂) / (sin k₁ + sin k₂)` — the Fresnel coefficient
//! `(n₁ − n₂)/(n₁ + n₂)` with `nⱼ cos(kⱼ/2)` for `nⱼ`. Against the continuous ε(ω) and the
//! continuum Fresnel formula, the miss shrinks with refinement.
//!
//! Debye: the whole grid is a Debye medium; the transforms of Ez at two planes beyond the
//! source give `E(x₂)/E(x₁) = e^{ik(x₂ − x₁)}`, so attenuation `Im k` and phase velocity
//! `ω / Re k`, against `k = ω√ε(ω)` with the continuous ε.

use std::f64::consts::PI;

use num_complex::Complex64;
use yee_core::{Axis, Box3, Side};
use yee_em::flux::flux_spectrum;
use yee_em::{
    Component, FluxPlane, Material, Mode, NodeMedium, PointSource, Pole, PoleSet, Region, Setup,
    Shape, SourceKind, Waveform,
};
use yee_tests::{cpml_everywhere, single_chunk, vacuum};

const COURANT: f64 = 0.5;
/// At resolution 1 (lengths times the resolution, frequencies over it): the grid, the source,
/// the reflection plane, the interface, and the pulse's peak frequency (band [0.005, 0.02]:
/// 50 to 200 cells per vacuum wavelength).
const GRID: usize = 800;
const SOURCE: i64 = 60;
const PLANE: i64 = 150;
const X0: f64 = 300.0;
const F0: f64 = 0.0125;
const STEPS: u64 = 6000;

fn plane(x: i64) -> FluxPlane {
    FluxPlane {
        cells: Box3::new([x, 0, 0], [x + 1, 1, 1]),
        axis: Axis::X,
        normal: Side::High,
    }
}

/// A pole with its frequencies over `resolution` (lengths and times times it).
fn refined(pole: Pole, resolution: f64) -> Pole {
    match pole {
        Pole::Drude {
            frequency,
            gamma,
            sigma,
        } => Pole::Drude {
            frequency: frequency / resolution,
            gamma: gamma / resolution,
            sigma,
        },
        Pole::Lorentz {
            frequency,
            gamma,
            sigma,
        } => Pole::Lorentz {
            frequency: frequency / resolution,
            gamma: gamma / resolution,
            sigma,
        },
        Pole::Debye { delta_eps, tau } => Pole::Debye {
            delta_eps,
            tau: tau * resolution,
        },
    }
}

/// A soft Ez current sheet at `x` with the test's Ricker pulse at `resolution` (no DC
/// content, so no static charge stays behind).
fn pulse(x: i64, resolution: f64) -> PointSource {
    PointSource {
        component: Component::Ez,
        cell: [x, 0, 0],
        waveform: Waveform::Ricker {
            frequency: F0 / resolution,
            delay: 2.0 * resolution / F0,
        },
        amplitude: 1.0,
        kind: SourceKind::Soft,
    }
}

/// The test's band at `resolution`.
fn band(resolution: f64) -> Vec<f64> {
    (0..=30)
        .map(|i| (0.005 + 0.0005 * i as f64) / resolution)
        .collect()
}

/// The transforms at the reflection plane, with or without the half-space of `eps_inf` and
/// `poles` (at resolution 1), at `resolution`.
fn reflection_run(
    half_space: Option<(f64, &[Pole])>,
    frequencies: &[f64],
    resolution: usize,
) -> yee_em::DftFields {
    let k = resolution as f64;
    let at = |x: i64| x * resolution as i64;
    let grid = [GRID * resolution, 1, 1];
    let poles: Vec<Pole> = half_space
        .map(|(_, p)| p.iter().map(|&p| refined(p, k)).collect())
        .unwrap_or_default();
    let regions: Vec<Region> = half_space
        .map(|(eps, _)| Region {
            shape: Shape::Block {
                lo: [X0 * k, f64::NEG_INFINITY, f64::NEG_INFINITY],
                hi: [f64::INFINITY; 3],
            },
            material: Material {
                poles: PoleSet {
                    first: 0,
                    count: poles.len(),
                },
                ..Material::dielectric(eps)
            },
        })
        .into_iter()
        .collect();
    let sources = [pulse(at(SOURCE), k)];
    let monitors = [plane(at(PLANE)).monitor(Mode::OneD, grid, 0, frequencies.len())];
    let setup = Setup {
        regions: &regions,
        poles: &poles,
        sources: &sources,
        monitors: &monitors,
        frequencies,
        ..vacuum(Mode::OneD, grid, COURANT, cpml_everywhere(20))
    };
    setup.validate().unwrap();
    let out = single_chunk::<f64>(&setup, STEPS * resolution as u64);
    let tail = out.fields[Component::Ez.index()]
        .as_ref()
        .unwrap()
        .iter()
        .fold(0.0f64, |m, v| m.max(v.abs()));
    assert!(tail < 1e-4, "the fields have not died down: {tail:e}");
    out.dft.into_iter().next().unwrap()
}

/// `r = (sin k₁ − sin k₂)/(sin k₁ + sin k₂)` of the Yee lattice (module docs) between
/// vacuum and a medium of discrete permittivity `eps` at `frequency`.
fn lattice_fresnel(eps: Complex64, frequency: f64, dt: f64) -> Complex64 {
    let half_omega = (PI * frequency * dt).sin() / dt;
    let sin_k = |eps: Complex64| {
        let s = eps.sqrt() * half_omega;
        s * (Complex64::new(1.0, 0.0) - s * s).sqrt() * 2.0
    };
    let (a, b) = (sin_k(Complex64::new(1.0, 0.0)), sin_k(eps));
    (a - b) / (a + b)
}

/// The continuum `(1 − n)/(1 + n)`, n = √ε.
fn fresnel(eps: Complex64) -> Complex64 {
    let n = eps.sqrt();
    (1.0 - n) / (1.0 + n)
}

/// The half-space's R over the band at `resolution`, with the largest relative misses of the
/// lattice reflection with the discrete ε(ω) and of the continuum one with the continuous ε.
fn half_space_misses(eps_inf: f64, poles: &[Pole], resolution: usize) -> (f64, f64) {
    let k = resolution as f64;
    let frequencies = band(k);
    let empty = reflection_run(None, &frequencies, resolution);
    let full = reflection_run(Some((eps_inf, poles)), &frequencies, resolution);
    let grid = [GRID * resolution, 1, 1];
    let p = plane(PLANE * resolution as i64);
    let spectrum = |d: &yee_em::DftFields, minus: Option<&yee_em::DftFields>| {
        flux_spectrum(&p, d, minus, Mode::OneD, grid, [false; 3], COURANT)
    };
    let incident = spectrum(&empty, None);
    let reflected = spectrum(&full, Some(&empty));
    let table: Vec<Pole> = poles.iter().map(|&p| refined(p, k)).collect();
    let medium = NodeMedium::whole(Material {
        poles: PoleSet {
            first: 0,
            count: table.len(),
        },
        ..Material::dielectric(eps_inf)
    });
    let (mut discrete, mut continuous) = (0.0f64, 0.0f64);
    for (i, &f) in frequencies.iter().enumerate() {
        let r = -reflected[i] / incident[i];
        let lattice = lattice_fresnel(medium.discrete_permittivity(&table, f, COURANT), f, COURANT)
            .norm_sqr();
        let exact = fresnel(medium.permittivity(&table, f)).norm_sqr();
        discrete = discrete.max((r - lattice).abs() / lattice);
        continuous = continuous.max((r - exact).abs() / exact);
    }
    eprintln!(
        "ε∞ = {eps_inf}, {poles:?} at resolution {resolution}: R within {:.3} % of the \
         lattice's Fresnel reflection with the discrete ε(ω), {:.3} % of the continuum one \
         with the continuous ε(ω)",
        100.0 * discrete,
        100.0 * continuous
    );
    (discrete, continuous)
}

fn half_space_acceptance(eps_inf: f64, poles: &[Pole]) {
    let (discrete, coarse) = half_space_misses(eps_inf, poles, 1);
    assert!(
        discrete <= 0.01,
        "R misses the discrete Fresnel R by {discrete}"
    );
    let (discrete, fine) = half_space_misses(eps_inf, poles, 2);
    assert!(
        discrete <= 0.01,
        "R misses the discrete Fresnel R by {discrete}"
    );
    assert!(
        fine < 0.5 * coarse,
        "refining does not close on the continuous ε(ω): {coarse} then {fine}"
    );
}

/// A Drude metal, plasma frequency mid-band: R ≈ 1 below 0.0125, falling above.
#[test]
fn drude_half_space_reflects_as_fresnel() {
    half_space_acceptance(
        1.0,
        &[Pole::Drude {
            frequency: 0.0125,
            gamma: 0.002,
            sigma: 1.0,
        }],
    );
}

/// A Lorentz dielectric (ε∞ = 2, Δε = 1.5) resonant at 0.01, with its stop band up to 0.0132.
#[test]
fn lorentz_half_space_reflects_as_fresnel() {
    half_space_acceptance(
        2.0,
        &[Pole::Lorentz {
            frequency: 0.01,
            gamma: 0.002,
            sigma: 1.5,
        }],
    );
}

/// Debye medium (ε∞ = 2, Δε = 6, ωτ = 1 mid-band): attenuation and phase velocity across the
/// band from the transforms at two planes, against `k = ω√ε(ω)`.
#[test]
fn debye_attenuation_and_phase_velocity() {
    let resolution = 2.0;
    let debye = [Pole::Debye {
        delta_eps: 6.0,
        tau: 1.0 / (2.0 * PI * 0.008) * resolution,
    }];
    let background = Material {
        poles: PoleSet { first: 0, count: 1 },
        ..Material::dielectric(2.0)
    };
    let at = |x: f64| (x * resolution) as i64;
    let grid = [(GRID as f64 * resolution) as usize, 1, 1];
    let frequencies: Vec<f64> = (0..=16)
        .map(|i| (0.004 + 0.0005 * i as f64) / resolution)
        .collect();
    let (x1, x2) = (at(200.0), at(215.0));
    let monitors = [x1, x2].map(|x| yee_em::DftMonitor {
        region: Box3::new([x, 0, 0], [x + 1, 1, 1]),
        components: std::array::from_fn(|c| c == Component::Ez.index()),
        first: 0,
        count: frequencies.len(),
    });
    let sources = [pulse(at(100.0), resolution)];
    let setup = Setup {
        background,
        poles: &debye,
        sources: &sources,
        monitors: &monitors,
        frequencies: &frequencies,
        ..vacuum(Mode::OneD, grid, COURANT, cpml_everywhere(20))
    };
    setup.validate().unwrap();
    let out = single_chunk::<f64>(&setup, (STEPS as f64 * resolution) as u64);
    let medium = NodeMedium::whole(background);
    let (mut attenuation, mut velocity) = (0.0f64, 0.0f64);
    for (i, &f) in frequencies.iter().enumerate() {
        let ez = |m: usize| out.dft[m].at(Component::Ez, [[x1, x2][m], 0, 0], i, grid, [false; 3]);
        // E(x₂)/E(x₁) = e^{ik d}: ln of it is ik d.
        let q = (ez(1) / ez(0)).ln() / (x2 - x1) as f64;
        let k = 2.0 * PI * f * medium.permittivity(&debye, f).sqrt();
        attenuation = attenuation.max((-q.re - k.im).abs() / k.im);
        velocity = velocity.max((q.im - k.re).abs() / k.re);
    }
    eprintln!(
        "Debye ε∞ = 2, Δε = 6: attenuation within {:.3} %, phase velocity within {:.3} % of \
         k = ω√ε(ω) over the band",
        100.0 * attenuation,
        100.0 * velocity
    );
    assert!(attenuation <= 0.01, "attenuation misses by {attenuation}");
    assert!(velocity <= 0.01, "phase velocity misses by {velocity}");
}

/// The load-time bound `ε∞ + Σχₚ(Nyquist) ≥ d S²` ([`yee_em::setup::check_poles`]) is where
/// the update turns unstable: a lossless Drude medium filling a 1D grid at S = 0.99 grows
/// without bound just past it and stays bounded just inside it.
#[test]
fn the_nyquist_bound_is_the_stability_limit() {
    let courant = 0.99;
    let growth = |nyquist: f64| {
        // ε∞ − ωₚ²Δt²/4 = nyquist with ε∞ = 1.
        let wp = 2.0 * (1.0 - nyquist).sqrt() / courant;
        let poles = [Pole::Drude {
            frequency: wp / (2.0 * PI),
            gamma: 0.0,
            sigma: 1.0,
        }];
        let background = Material {
            poles: PoleSet { first: 0, count: 1 },
            ..Material::VACUUM
        };
        let sources = [PointSource {
            waveform: Waveform::Ricker {
                frequency: 0.3,
                delay: 5.0,
            },
            ..pulse(50, 1.0)
        }];
        let setup = Setup {
            background,
            poles: &poles,
            sources: &sources,
            ..vacuum(
                Mode::OneD,
                [100, 1, 1],
                courant,
                [[yee_em::Boundary::Periodic; 2]; 3],
            )
        };
        let whole = Box3::from_extent(setup.grid);
        let mut chunk = yee_scalar::YeeChunk::<f64>::new(&setup, whole);
        let peak = |c: &yee_scalar::YeeChunk<f64>| {
            let f = c.state.field(Component::Ez).unwrap();
            (0..100).fold(0.0f64, |m, x| m.max(f.get([x, 0, 0]).abs()))
        };
        let mut at_200 = 0.0;
        for step in 0..2000 {
            chunk.apply(step, yee_scalar::chunk::MAGNETIC_PHASE, whole);
            wrap(&mut chunk, yee_scalar::chunk::MAGNETIC_PHASE);
            chunk.apply(step, yee_scalar::chunk::ELECTRIC_PHASE, whole);
            wrap(&mut chunk, yee_scalar::chunk::ELECTRIC_PHASE);
            if step == 200 {
                at_200 = peak(&chunk);
            }
        }
        peak(&chunk) / at_200
    };
    let needed = courant * courant;
    let (inside, outside) = (growth(needed + 0.01), growth(needed - 0.01));
    eprintln!(
        "peak growth from step 200 to 2000: {inside:.3} inside the bound, {outside:.3e} past it"
    );
    assert!(inside < 2.0, "inside the bound the fields grow {inside}×");
    assert!(
        outside > 1e3,
        "past the bound the fields grow only {outside}×"
    );
}

/// Copies the periodic halo of `phase` across x (the chunk is its own neighbour).
fn wrap(chunk: &mut yee_scalar::YeeChunk<f64>, phase: usize) {
    use yee_core::Chunk;
    for positive in [true, false] {
        let toward = yee_core::Direction::face(Axis::X, positive);
        let mut buffer = vec![0.0; chunk.halo_len(phase, toward)];
        chunk.pack_halo(phase, toward, &mut buffer);
        chunk.unpack_halo(phase, toward.opposite(), &buffer);
    }
}
