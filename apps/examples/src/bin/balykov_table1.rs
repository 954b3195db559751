//! Reproduces Balykov 2019, table 1 on the simulated cluster: the execution-time decrease from
//! dynamic balancing with four of eight nodes slowed by a fixed delay per step — on the tensor
//! layout the paper balances (borders through the whole grid) and on jagged and k-d layouts
//! (one box per rank, issue 22).
//!
//! Run: `cargo run --release -p yee-examples --bin balykov-table1 [T_perf]`

use yee_core::Topology;
use yee_core::box_balance::BoxCut;
use yee_examples::virtual_cluster::{table1_box_case, table1_case};

fn main() {
    let every: u64 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(10);
    let cases = [
        (2.0, 100, "61.3%"),
        (2.0, 1000, "above 90%"),
        (0.2, 1000, "14.4%"),
        (0.2, 10000, "28.2%"),
        (0.02, 10000, "3.6%"),
        (0.02, 20000, "5.0%"),
    ];
    println!(
        "Balykov 2019 table 1 on the simulated cluster: 100³ cells, 2×2×2 nodes, the x = 1 plane slowed; T_perf = {every}"
    );
    println!(
        "{:>8} {:>7} {:>10} {:>12} {:>12} {:>12} {:>12}  tensor: final x borders, disabled",
        "delay s", "steps", "paper", "plain s", "tensor", "jagged", "kd"
    );
    let cuts = [BoxCut::Jagged(Topology([2, 2, 2])), BoxCut::Kd];
    for (delay, steps, paper) in cases {
        let plain = table1_case(delay, steps, None);
        let balanced = table1_case(delay, steps, Some(every));
        let decrease = |seconds: f64| 100.0 * (1.0 - seconds / plain.seconds);
        let boxes =
            cuts.map(|cut| decrease(table1_box_case(delay, steps, Some(every), cut).seconds));
        let last = balanced.history.last();
        println!(
            "{delay:>8} {steps:>7} {paper:>10} {:>12.2} {:>11.1}% {:>11.1}% {:>11.1}%  {:?} {:?}",
            plain.seconds,
            decrease(balanced.seconds),
            boxes[0],
            boxes[1],
            last.map(|h| &h.borders[0]),
            last.map(|h| &h.disabled)
        );
    }
}
