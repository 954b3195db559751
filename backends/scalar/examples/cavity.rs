//! A 3D PEC cavity of 25×10×30 cells, excited by a Ricker pulse: prints its three lowest
//! resonances beside the discrete Yee dispersion relation and the continuum formula.
//!
//! Run: `cargo run --release --example cavity`

use std::f64::consts::PI;
use std::time::Instant;

use yee_core::dispersion::{cavity_wavevector, discrete_omega, lowest_cavity_modes};
use yee_core::spectrum::resonances;
use yee_core::{
    Boundary, Component, Material, Mode, PointSource, Probe, Setup, SourceKind, Waveform,
};
use yee_scalar::Simulation;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let size = [25, 10, 30];
    let steps = 16000;
    let sources = [PointSource {
        component: Component::Ey,
        cell: [7, 3, 11],
        waveform: Waveform::Ricker {
            frequency: 0.035,
            delay: 60.0,
        },
        amplitude: 1.0,
        kind: SourceKind::Soft,
    }];
    let probes = [Probe {
        component: Component::Ey,
        cell: [17, 6, 19],
    }];
    let setup = Setup {
        mode: Mode::ThreeD,
        grid: size,
        courant: 0.5,
        background: Material::VACUUM,
        regions: &[],
        boundaries: [[Boundary::Pec; 2]; 3],
        sources: &sources,
        probes: &probes,
    };
    let mut sim = Simulation::<f64>::new(&setup)?;
    let start = Instant::now();
    sim.run(steps)?;
    let seconds = start.elapsed().as_secs_f64();
    println!(
        "PEC cavity {}×{}×{} cells, {steps} steps in {seconds:.2} s ({:.1} Mcells/s, scalar backend, f64)",
        size[0],
        size[1],
        size[2],
        (size.iter().product::<usize>() as f64 * steps as f64) / seconds / 1e6
    );
    let dt = sim.dt();
    let mut found = [0.0; 3];
    let n = resonances(
        &sim.probe_series(0)[300..],
        dt,
        0.02,
        0.047,
        1e-3,
        &mut found,
    );
    let mut modes = [([0; 3], 0.0); 3];
    lowest_cavity_modes(size, &mut modes);
    println!(
        "{:<10} {:>12} {:>12} {:>10} {:>12} {:>10}",
        "mode", "measured", "discrete", "rel.err", "continuum", "rel.err"
    );
    for (f, (mode, f_continuum)) in found[..n].iter().zip(modes) {
        let f_discrete =
            discrete_omega(cavity_wavevector(mode, size), dt).unwrap_or(f64::NAN) / (2.0 * PI);
        println!(
            "{:<10} {f:>12.8} {f_discrete:>12.8} {:>10.1e} {f_continuum:>12.8} {:>10.1e}",
            format!("{}{}{}", mode[0], mode[1], mode[2]),
            (f / f_discrete - 1.0).abs(),
            (f / f_continuum - 1.0).abs()
        );
    }
    println!("(frequencies in cycles per unit time, c = 1, cell size 1)");
    Ok(())
}
