//! The discrete energy of a closed lossless PEC box is an exact invariant of the Yee scheme:
//! W = ½Σ εEⁿ·Eⁿ + ½Σ μH^{n−½}·H^{n+½}.

use yee_core::Field;
use yee_em::{Component, Mode};
use yee_scalar::Simulation;
use yee_tests::{PEC, vacuum};

/// A deterministic pseudo-random value in [−1, 1) from a cell position (a hash, no state).
fn noise(p: [f64; 3], salt: u64) -> f64 {
    let mut h = salt ^ 0x9E37_79B9_7F4A_7C15;
    for v in p {
        h ^= (v * 2.0) as i64 as u64;
        h = h.wrapping_mul(0xBF58_476D_1CE4_E5B9).rotate_left(29);
    }
    (h >> 11) as f64 / (1u64 << 52) as f64 - 1.0
}

fn components(sim: &Simulation<f64>, electric: bool) -> Vec<Vec<f64>> {
    Component::ALL
        .iter()
        .filter(|c| c.is_electric() == electric)
        .map(|&c| {
            let f = sim.field(c).unwrap();
            let mut out = vec![0.0; f.owned().cells()];
            f.read_box(f.owned(), &mut out);
            out
        })
        .collect()
}

fn dot(a: &[Vec<f64>], b: &[Vec<f64>]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| x.iter().zip(y).map(|(p, q)| p * q).sum::<f64>())
        .sum()
}

#[test]
fn discrete_energy_is_conserved_in_a_closed_pec_box() {
    let setup = vacuum(Mode::ThreeD, [12, 10, 8], 0.55, PEC);
    let mut sim = Simulation::<f64>::new(&setup).unwrap();
    for (salt, c) in Component::ALL.into_iter().enumerate() {
        sim.fill(c, |p| noise(p, salt as u64));
    }
    let mut first = None;
    let mut worst = 0.0f64;
    for _ in 0..3000 {
        let e = components(&sim, true);
        let h_before = components(&sim, false);
        sim.step().unwrap();
        let h_after = components(&sim, false);
        let w = 0.5 * dot(&e, &e) + 0.5 * dot(&h_before, &h_after);
        let w0 = *first.get_or_insert(w);
        worst = worst.max((w - w0).abs() / w0);
    }
    assert!(worst <= 1e-10, "relative drift {worst:e}");
}
