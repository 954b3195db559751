//! Reproduces Balykov 2019, table 1 on the simulated cluster: the execution-time decrease from
//! dynamic balancing with four of eight nodes slowed by a fixed delay per step.
//!
//! Run: `cargo run --release -p yee-examples --bin balykov-table1 [T_perf]`

use yee_examples::virtual_cluster::table1_case;

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
        "{:>8} {:>7} {:>14} {:>14} {:>10} {:>10}  final x borders, disabled",
        "delay s", "steps", "plain s", "balanced s", "decrease", "paper"
    );
    for (delay, steps, paper) in cases {
        let plain = table1_case(delay, steps, None);
        let balanced = table1_case(delay, steps, Some(every));
        let decrease = 100.0 * (1.0 - balanced.seconds / plain.seconds);
        let last = balanced.history.last();
        println!(
            "{delay:>8} {steps:>7} {:>14.2} {:>14.2} {decrease:>9.1}% {paper:>10}  {:?} {:?}",
            plain.seconds,
            balanced.seconds,
            last.map(|h| &h.borders[0]),
            last.map(|h| &h.disabled)
        );
    }
}
