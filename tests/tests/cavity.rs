//! The three lowest resonances of a 25×10×30 PEC cavity against the discrete Yee dispersion
//! relation (≤ 1e-4) and the continuum formula (≤ 0.3 %).

use yee_scalar::Simulation;
use yee_scalar::cavity::{Resonance, lowest_resonances, setup};

#[test]
fn lowest_three_resonances_match_theory() {
    let mut sim = Simulation::<f64>::new(&setup()).unwrap();
    sim.run(8000).unwrap();
    let mut table = [Resonance::default(); 3];
    assert_eq!(
        lowest_resonances(sim.probe_series(0), sim.dt(), &mut table),
        3,
        "{table:?}"
    );
    assert_eq!(table.map(|r| r.mode), [[1, 0, 1], [1, 0, 2], [2, 0, 1]]);
    for r in table {
        let rel_discrete = (r.measured / r.discrete - 1.0).abs();
        let rel_continuum = (r.measured / r.continuum - 1.0).abs();
        eprintln!("{r:?}: {rel_discrete:.1e} from discrete, {rel_continuum:.1e} from continuum");
        assert!(
            rel_discrete <= 1e-4,
            "{r:?}: {rel_discrete:e} from the discrete relation"
        );
        assert!(
            rel_continuum <= 3e-3,
            "{r:?}: {rel_continuum:e} from the continuum"
        );
    }
}
