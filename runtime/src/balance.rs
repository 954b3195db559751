//! How a run is laid out: uniform, statically balanced (Franek's cost densities, rank speeds
//! or a saved profile), or dynamically balanced (Balykov 2019); and the ranks' shares that
//! the plot of a balanced run shows.

use std::path::PathBuf;

use yee_core::balance::{BalanceParams, Balancer};
use yee_core::box_balance::{BoxBalancer, BoxCut};
use yee_core::box_layout::{jagged_layout, kd_layout};
use yee_core::decomposition::rank_coords;
use yee_core::session::{HistoryEntry, Plan};
use yee_core::{Box3, Topology};
use yee_em::load::{
    box_work, region_slice_densities, slice_densities, slice_densities_per_axis,
    slice_memory_densities,
};
use yee_em::{Costs, Setup};
use yee_scalar::decomposed::uniform_plan;
use yee_scalar::tiled::DynamicBoxes;

use crate::error::{RuntimeError, RuntimeErrorKind};
use crate::profile::Profile;

/// `--balance`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[serde(rename_all = "lowercase")]
pub enum BalanceMode {
    /// Uniform chunks.
    Off,
    /// Chunks sized once, before the run, by cost density and speeds or a profile.
    Static,
    /// Static start, then rebalanced every `--rebalance-every` steps from measurements.
    Dynamic,
}

/// `--density`: how the load of the grid becomes one density per axis (static balancing of
/// time; dynamic balancing starts from it and weighs lines by it).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[serde(rename_all = "kebab-case")]
pub enum DensityModel {
    /// The whole work of each one-cell slice, every CPML layer it crosses included (a cell
    /// where layers overlap counts once per layer): exact for a split along one axis, and the
    /// better of the two on a box with CPML on every face (docs/balancing.md, "Density
    /// models").
    #[default]
    Summed,
    /// Franek 2016, §2.2 and §3: each axis by its own media only (a slice in the axis' CPML
    /// weighs `costs.cpml` per cell, the other axes' layers are left out). Reproduces the
    /// paper's wind-turbine example (389 × 291 × 164), where it also balances better: there
    /// the last rank holds the corner where all three layers overlap.
    PerAxis,
}

/// `--layout`: how the ranks' boxes are cut (docs/balancing.md, "Layouts beyond the tensor
/// grid").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[serde(rename_all = "lowercase")]
pub enum LayoutKind {
    /// Borders through the whole grid, one set per axis (Balykov 2019, eq. (21)).
    #[default]
    Tensor,
    /// Slabs of x by their ranks' summed speeds, each cut along y, each column along z.
    Jagged,
    /// Weighted recursive bisection: a k-d tree of boxes.
    Kd,
}

/// Everything the balancing flags say.
#[derive(Clone, Debug)]
pub struct BalanceOptions {
    /// Off, static or dynamic.
    pub mode: BalanceMode,
    /// T_perf.
    pub every: u64,
    /// ε, relative.
    pub epsilon: f64,
    /// A profile to start from.
    pub profile: Option<PathBuf>,
    /// Relative speeds per rank.
    pub speeds: Option<Vec<f64>>,
    /// Balance memory instead of time (static balancing only).
    pub by_memory: bool,
    /// How the load density of each axis is built (time only).
    pub density: DensityModel,
    /// How the boxes are cut.
    pub layout: LayoutKind,
}

impl Default for BalanceOptions {
    fn default() -> Self {
        BalanceOptions {
            mode: BalanceMode::Off,
            every: 100,
            epsilon: 0.05,
            profile: None,
            speeds: None,
            by_memory: false,
            density: DensityModel::default(),
            layout: LayoutKind::default(),
        }
    }
}

/// The plan of a run of `setup` over `topology`: `costs` weigh the cells when balancing time,
/// `value_bytes` (bytes of one field value) when balancing memory.
pub fn make_plan(
    setup: &Setup,
    costs: &Costs,
    value_bytes: usize,
    topology: Topology,
    options: &BalanceOptions,
) -> Result<Plan, RuntimeError> {
    let usage = |message: String| RuntimeError::new(RuntimeErrorKind::Options, message);
    let mut plan = uniform_plan(setup, topology);
    if options.mode == BalanceMode::Off {
        if options.profile.is_some() || options.speeds.is_some() {
            return Err(usage(
                "--profile and --speeds need --balance static or dynamic".into(),
            ));
        }
        return Ok(plan);
    }
    if options.every == 0 {
        return Err(usage(
            "--rebalance-every 0: give the number of steps between rebalances (at least 1)".into(),
        ));
    }
    if !(options.epsilon.is_finite() && (0.0..1.0).contains(&options.epsilon)) {
        return Err(usage(format!(
            "--epsilon {}: must be in [0, 1) (a fraction of the step time)",
            options.epsilon
        )));
    }
    if options.by_memory && options.mode != BalanceMode::Static {
        return Err(usage(
            "--balance-memory needs --balance static (memory does not change during a run)".into(),
        ));
    }
    let density = if options.by_memory {
        slice_memory_densities(setup, value_bytes)
    } else if options.density == DensityModel::Summed {
        slice_densities(setup, costs)
    } else {
        slice_densities_per_axis(setup, costs)
    };
    // S of eq. (12) is the whole step's work, whatever the density model weighs the axes by.
    let total_work: f64 = if options.by_memory {
        density[0].iter().sum()
    } else {
        box_work(setup, Box3::from_extent(setup.grid), costs)
    };
    let params = BalanceParams {
        every: options.every,
        epsilon: options.epsilon,
        ..BalanceParams::default()
    };
    let mut balancer = Balancer::new(topology, setup.mode.dims(), density, params);
    if let Some(path) = &options.profile {
        let profile = Profile::load(path, setup.grid, topology.0)?;
        let (perf, links) = profile.sums();
        balancer = balancer.with_sums(perf, links);
    } else if let Some(speeds) = &options.speeds {
        check_speeds(speeds, topology.ranks())?;
        balancer = balancer.with_speeds(speeds);
    }
    let decision = balancer.decide(total_work, 0.0).map_err(|e| {
        RuntimeError::new(
            RuntimeErrorKind::Layout,
            format!("cannot balance {:?} over {:?}: {e}", setup.grid, topology.0),
        )
    })?;
    plan.borders = decision.borders;
    if options.mode == BalanceMode::Dynamic {
        plan.balancer = Some(balancer);
    }
    Ok(plan)
}

/// The boxes of a jagged or k-d layout (`options.layout`) of `setup` over `topology`'s ranks:
/// with `--balance off` cut by cells at equal speeds; otherwise by the cost density of the box
/// being cut (`options.density`, as the tensor balancer weighs an axis) and the speeds of
/// `--speeds` or of a profile (equal without either). One box per rank, x-fastest rank order
/// as in a tensor layout.
pub fn box_layout(
    setup: &Setup,
    costs: &Costs,
    topology: Topology,
    options: &BalanceOptions,
) -> Result<Vec<Box3>, RuntimeError> {
    let usage = |message: String| RuntimeError::new(RuntimeErrorKind::Options, message);
    let ranks = topology.ranks();
    if options.by_memory {
        return Err(usage(format!(
            "--balance-memory balances a tensor layout; use it without --layout {}",
            layout_name(options.layout)
        )));
    }
    if options.mode == BalanceMode::Off && (options.profile.is_some() || options.speeds.is_some()) {
        return Err(usage(
            "--profile and --speeds need --balance static or dynamic".into(),
        ));
    }
    let speeds: Vec<f64> = if let Some(path) = &options.profile {
        let profile = Profile::load(path, setup.grid, topology.0)?;
        let (perf, _) = profile.sums();
        perf.iter().map(|p| p.perf().unwrap_or(0.0)).collect()
    } else if let Some(speeds) = &options.speeds {
        check_speeds(speeds, ranks)?;
        speeds.clone()
    } else {
        vec![1.0; ranks]
    };
    let per_axis = options.density == DensityModel::PerAxis;
    let by_cost = |region: Box3, axis: usize, out: &mut [f64]| {
        region_slice_densities(setup, costs, region, axis, per_axis, out);
    };
    let by_cells = |region: Box3, axis: usize, out: &mut [f64]| {
        let across: f64 = (0..3)
            .filter(|&b| b != axis)
            .map(|b| region.extent()[b] as f64)
            .product();
        out.fill(across);
    };
    let active = setup.mode.active_axes();
    let mut boxes = vec![Box3::new([0; 3], [0; 3]); ranks];
    let result = match (options.layout, options.mode == BalanceMode::Off) {
        (LayoutKind::Kd, true) => kd_layout(setup.grid, active, &speeds, &by_cells, 1, &mut boxes),
        (LayoutKind::Kd, false) => kd_layout(setup.grid, active, &speeds, &by_cost, 1, &mut boxes),
        (_, true) => jagged_layout(
            setup.grid, active, topology, &speeds, &by_cells, 1, &mut boxes,
        ),
        (_, false) => jagged_layout(
            setup.grid, active, topology, &speeds, &by_cost, 1, &mut boxes,
        ),
    };
    result.map_err(|e| {
        RuntimeError::new(
            RuntimeErrorKind::Layout,
            format!(
                "--layout {}: cannot lay out {:?} over {ranks} ranks: {e}",
                layout_name(options.layout),
                setup.grid
            ),
        )
    })?;
    Ok(boxes)
}

/// The balancer of a jagged or k-d layout run with `--balance dynamic` (`None` otherwise):
/// starts from `boxes` (what [`box_layout`] cut), rebalances every `--rebalance-every` steps
/// with `--epsilon`, weighing cells by `--density`.
pub fn dynamic_boxes(
    setup: &Setup,
    topology: Topology,
    options: &BalanceOptions,
    boxes: &[Box3],
) -> Option<DynamicBoxes> {
    let cut = match options.layout {
        LayoutKind::Tensor => return None,
        LayoutKind::Jagged => BoxCut::Jagged(topology),
        LayoutKind::Kd => BoxCut::Kd,
    };
    (options.mode == BalanceMode::Dynamic).then(|| DynamicBoxes {
        balancer: BoxBalancer::new(
            cut,
            setup.grid,
            setup.mode.active_axes(),
            BalanceParams {
                every: options.every,
                epsilon: options.epsilon,
                ..BalanceParams::default()
            },
            boxes.to_vec(),
        ),
        per_axis: options.density == DensityModel::PerAxis,
    })
}

/// The name of a layout on the command line.
pub fn layout_name(kind: LayoutKind) -> &'static str {
    match kind {
        LayoutKind::Tensor => "tensor",
        LayoutKind::Jagged => "jagged",
        LayoutKind::Kd => "kd",
    }
}

/// `--speeds` must give one positive, finite speed per rank.
fn check_speeds(speeds: &[f64], ranks: usize) -> Result<(), RuntimeError> {
    let usage = |message: String| RuntimeError::new(RuntimeErrorKind::Options, message);
    if speeds.len() != ranks {
        return Err(usage(format!(
            "--speeds: {} values for {} ranks",
            speeds.len(),
            ranks
        )));
    }
    if let Some(bad) = speeds.iter().find(|s| !(s.is_finite() && **s > 0.0)) {
        return Err(usage(format!("--speeds: {bad} is not a positive speed")));
    }
    Ok(())
}

/// Each rank's share of the cells for a layout with `borders`.
pub fn shares(borders: &[Vec<i64>; 3], topology: Topology) -> Vec<f64> {
    let total: f64 = (0..3)
        .map(|a| (borders[a][topology.0[a]] - borders[a][0]) as f64)
        .product();
    (0..topology.ranks())
        .map(|r| {
            let c = rank_coords(r, topology);
            (0..3)
                .map(|a| (borders[a][c[a] + 1] - borders[a][c[a]]) as f64)
                .product::<f64>()
                / total
        })
        .collect()
}

/// Each rank's share of the cells at the start (`initial` borders) and after each rebalance
/// of `history`: the columns of `balance_shares.png` (`yee_io::balance::write_share_plot`).
pub fn share_history(
    initial: &[Vec<i64>; 3],
    history: &[HistoryEntry],
    topology: Topology,
) -> Vec<Vec<f64>> {
    std::iter::once(initial)
        .chain(history.iter().map(|h| &h.borders))
        .map(|b| shares(b, topology))
        .collect()
}

/// Each rank's share of the cells of a jagged or k-d layout: for the `initial` boxes, then
/// for the boxes after each entry of `history` (the columns of `balance_shares.png`).
pub fn box_share_history(initial: &[Box3], history: &[HistoryEntry]) -> Vec<Vec<f64>> {
    std::iter::once(initial)
        .chain(history.iter().map(|h| &h.boxes[..]))
        .map(|boxes| {
            let total: usize = boxes.iter().map(Box3::cells).sum();
            boxes
                .iter()
                .map(|b| b.cells() as f64 / total.max(1) as f64)
                .collect()
        })
        .collect()
}

/// One box in `yee balance --json`.
#[derive(Debug, serde::Serialize)]
pub struct BoxJson {
    /// The rank.
    pub rank: usize,
    /// Lower corner.
    pub lo: [i64; 3],
    /// Upper corner (exclusive).
    pub hi: [i64; 3],
}

/// How far the plan's slowest rank is from an even split of the work: the max over ranks of
/// the work of its box ([`box_work`], every CPML layer it holds counted) ÷ its share of the
/// whole grid's work (`speeds[r] / Σ speeds`; equal shares without speeds, and 1 for a rank
/// `speeds` has no entry for). 1 is perfect.
pub fn load_imbalance(setup: &Setup, costs: &Costs, plan: &Plan, speeds: Option<&[f64]>) -> f64 {
    load_imbalance_of(setup, costs, &plan_boxes(plan), speeds)
}

/// [`load_imbalance`] of any boxes, one per rank (an empty box: a disabled rank, left out).
pub fn load_imbalance_of(
    setup: &Setup,
    costs: &Costs,
    boxes: &[Box3],
    speeds: Option<&[f64]>,
) -> f64 {
    let total = box_work(setup, Box3::from_extent(setup.grid), costs);
    let speed = |r: usize| speeds.and_then(|s| s.get(r)).copied().unwrap_or(1.0);
    let speed_sum: f64 = (0..boxes.len()).map(speed).sum();
    boxes
        .iter()
        .enumerate()
        .filter(|(_, b)| !b.is_empty())
        .map(|(r, b)| box_work(setup, *b, costs) / (total * speed(r) / speed_sum))
        .fold(0.0, f64::max)
}

/// The box of every rank of a tensor plan's initial layout.
pub fn plan_boxes(plan: &Plan) -> Vec<Box3> {
    let layout = plan.layout(&plan.borders);
    (0..plan.topology.ranks())
        .map(|r| layout.chunk_box(r))
        .collect()
}

/// The boxes of a layout (one per rank), as a table or as `{"boxes": [{"rank", "lo", "hi"}, …]}`, with
/// `"max_load_over_ideal"` (see [`load_imbalance`]) when `imbalance` is given.
pub fn boxes_report(boxes: &[Box3], json: bool, imbalance: Option<f64>) -> String {
    let boxes: Vec<BoxJson> = boxes
        .iter()
        .enumerate()
        .map(|(rank, b)| BoxJson {
            rank,
            lo: b.lo,
            hi: b.hi,
        })
        .collect();
    if json {
        let mut doc = serde_json::json!({ "boxes": boxes });
        if let Some(i) = imbalance {
            doc["max_load_over_ideal"] = i.into();
        }
        return serde_json::to_string_pretty(&doc).expect("serialises") + "\n";
    }
    let mut out = String::new();
    for b in &boxes {
        let cells: i64 = (0..3).map(|a| b.hi[a] - b.lo[a]).product();
        out.push_str(&format!(
            "rank {:>3}: {:?}..{:?} ({cells} cells)\n",
            b.rank, b.lo, b.hi
        ));
    }
    if let Some(i) = imbalance {
        out.push_str(&format!(
            "max load / ideal: {i:.4} (the slowest rank's work over its share)\n"
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn box_shares_follow_each_decision() {
        let half = |lo: i64, hi: i64| Box3::new([lo, 0, 0], [hi, 4, 4]);
        let entry = |boxes: Vec<Box3>| HistoryEntry {
            step: 10,
            borders: Default::default(),
            predicted_seconds: 1.0,
            measured_seconds: 2.0,
            disabled: Default::default(),
            action: "rebalance".into(),
            boxes,
        };
        let history = [
            entry(vec![half(0, 6), half(6, 8)]),
            entry(vec![half(0, 8), Box3::new([0; 3], [0; 3])]),
        ];
        assert_eq!(
            box_share_history(&[half(0, 4), half(4, 8)], &history),
            [[0.5, 0.5], [0.75, 0.25], [1.0, 0.0]]
        );
    }
}
