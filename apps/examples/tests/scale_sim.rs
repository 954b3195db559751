//! The scale simulator (`yee_comm_sim::scale`, issue 53) at 4 × 4 × 4 ranks: the balancer's
//! decisions on the machine model behave as docs/balancing.md, "At scale", says.

use yee_comm_sim::scale::{DeadLink, ScaleMachine, ScaleSim};
use yee_core::Topology;
use yee_core::balance::BalanceParams;

/// 256³ cells on 4 × 4 × 4 ranks (64³ each), the default machine: speeds within ±5 %, one slow
/// rank (3×), one dead link (1000×) across the first z border; three intervals.
#[test]
fn sixty_four_ranks_shrink_the_slow_rank_and_avoid_the_dead_link() {
    let topology = Topology([4, 4, 4]);
    let machine = ScaleMachine::default();
    let model = machine.model(topology);
    let mut sim = ScaleSim::new([256; 3], topology, model, BalanceParams::default());
    let uniform = sim.borders.clone();
    let healed_share = sim.step_seconds_on(&sim.model.healed(), &uniform).share;
    let before = sim.step_seconds(&uniform);
    // The dead link's halo (64² × 16 B at 10 MB/s and 2 ms) dominates the uniform layout.
    assert!(
        before.share > 100.0 * healed_share,
        "{before:?} vs {healed_share}"
    );
    let mut last = None;
    for _ in 0..3 {
        let gathered = sim.gathered();
        last = Some(sim.decide(&gathered).expect("a decision"));
    }
    let decision = last.expect("three intervals");
    let (dead_low, _) = machine.dead_pair(topology).expect("a dead link");
    assert_eq!(
        dead_low,
        2 + 4 * 2,
        "the dead link crosses z border 0 at x = y = 2"
    );
    // Eqs. (9)–(18): the plane below the dead border goes, the dead link carries nothing.
    assert_eq!(decision.disabled, [vec![], vec![], vec![0]], "{decision:?}");
    let after = sim.step_seconds(&sim.borders);
    assert!(
        after.share < 2.0 * healed_share,
        "{after:?} vs {healed_share}"
    );
    // Eq. (21): the slow rank's lines lose a little width on each axis, so its box is smaller
    // than the mean (48 enabled ranks; 0.93 × here), yet it still computes far longer than the others.
    let slow = machine.slow_ranks(64);
    assert_eq!(slow.len(), 1);
    let mean = sim.total_work() / 48.0;
    let cells = sim.cells(slow[0]);
    assert!(cells > 0.0 && cells < 0.95 * mean, "{cells} vs {mean}");
    // The per-axis line model predicts at most the model's step (it cannot see the slow rank
    // inside its plane) and at least a slow factor (3) × the noise below it.
    let achieved = after.total();
    let predicted = decision.predicted_seconds;
    assert!(
        predicted <= 1.001 * achieved && achieved <= 3.0 * 1.1 * predicted,
        "predicted {predicted}, achieved {achieved}"
    );
    // Deterministic: the same machine, seeded anew, balances to the same borders.
    let mut again = ScaleSim::new(
        [256; 3],
        topology,
        machine.model(topology),
        BalanceParams::default(),
    );
    for _ in 0..3 {
        let gathered = again.gathered();
        again.decide(&gathered).expect("a decision");
    }
    assert_eq!(again.borders, sim.borders);
}

/// Without slow ranks and without the dead link, ranks of equal speed: the balancer keeps the
/// uniform layout, predicts it within 1 % of the model and the model is the ideal step.
#[test]
fn equal_ranks_on_healthy_links_stay_at_the_ideal() {
    let topology = Topology([4, 4, 4]);
    let machine = ScaleMachine {
        speed_noise: 0.0,
        slow_every: 0,
        dead_link: DeadLink::None,
        ..ScaleMachine::default()
    };
    let mut sim = ScaleSim::new(
        [256; 3],
        topology,
        machine.model(topology),
        BalanceParams::default(),
    );
    let uniform = sim.borders.clone();
    let gathered = sim.gathered();
    let decision = sim.decide(&gathered).expect("a decision");
    assert_eq!(sim.borders, uniform);
    let step = sim.step_seconds(&sim.borders);
    let ideal = sim.ideal_compute_seconds();
    assert!((step.compute - ideal).abs() <= 1e-12 * ideal);
    assert!(decision.predicted_seconds <= step.total());
    assert!(decision.predicted_seconds >= 0.99 * step.compute);
}
