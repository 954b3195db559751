//! A 3D PEC cavity of 25×10×30 cells, excited by a Ricker pulse: prints its three lowest
//! resonances beside the discrete Yee dispersion relation and the continuum formula.
//!
//! Run: `cargo run --release --example cavity`

use std::time::Instant;

use yee_scalar::Simulation;
use yee_scalar::cavity::{Resonance, SIZE, lowest_resonances, setup};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let steps = 16000;
    let mut sim = Simulation::<f64>::new(&setup())?;
    let start = Instant::now();
    sim.run(steps)?;
    let seconds = start.elapsed().as_secs_f64();
    let cells = SIZE.iter().product::<usize>() as f64;
    println!(
        "PEC cavity {}×{}×{} cells, {steps} steps in {seconds:.2} s ({:.1} Mcells/s, scalar backend, f64)",
        SIZE[0],
        SIZE[1],
        SIZE[2],
        cells * steps as f64 / seconds / 1e6
    );
    let mut table = [Resonance::default(); 3];
    let n = lowest_resonances(sim.probe_series(0), sim.dt(), &mut table);
    println!(
        "{:<6} {:>12} {:>12} {:>9} {:>12} {:>9}",
        "mode", "measured", "discrete", "rel.err", "continuum", "rel.err"
    );
    for r in &table[..n] {
        println!(
            "{:<6} {:>12.8} {:>12.8} {:>9.1e} {:>12.8} {:>9.1e}",
            format!("{}{}{}", r.mode[0], r.mode[1], r.mode[2]),
            r.measured,
            r.discrete,
            (r.measured / r.discrete - 1.0).abs(),
            r.continuum,
            (r.measured / r.continuum - 1.0).abs()
        );
    }
    println!("(frequencies in cycles per unit time: c = 1, cell size 1)");
    Ok(())
}
