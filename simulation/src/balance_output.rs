//! The balancing record of a run: `balance_history.csv`, the share plot `balance_shares.png`
//! and the measured `profile.json` a later run can start from.

use std::path::Path;

use yee_runtime::balance::{BalanceMode, box_share_history, share_history};
use yee_runtime::profile::Profile;
use yee_scalar::decomposed::RankOutput;
use yee_scene::Scene;

use crate::error::io_error;
use crate::failures::Failures;
use crate::layout::RunLayout;
use crate::options::RunOptions;

/// Writes the balancing record of a balanced run into `out`, adding the files written to
/// `outputs` and what failed to `failed`; a run that does not balance writes none.
pub fn write_balance<T>(
    scene: &Scene,
    options: &RunOptions,
    layout: &RunLayout,
    results: &[RankOutput<T>],
    out: &Path,
    outputs: &mut Vec<String>,
    failed: &mut Failures,
) {
    if options.balance.mode == BalanceMode::Off {
        return;
    }
    let plan = &layout.plan;
    let layout_boxes = &layout.boxes;
    let history = &results[0].history;
    let path = out.join("balance_history.csv");
    let written = yee_io::balance::write_history(&path, history);
    if failed
        .keep(written.map_err(|e| io_error(&path, e)))
        .is_some()
    {
        outputs.push("balance_history.csv".to_string());
    }
    // Tile sets' shares are not boxes: their plot is not drawn (not built yet).
    let columns = match (&layout_boxes, options.partition) {
        (_, Some(_)) => None,
        (None, None) => Some(share_history(&plan.borders, history, options.topology)),
        (Some(boxes), None) => Some(box_share_history(boxes, history)),
    };
    if let Some(columns) = columns {
        let path = out.join("balance_shares.png");
        let written = yee_io::balance::write_share_plot(&path, &columns);
        if failed
            .keep(written.map_err(|e| io_error(&path, e)))
            .is_some()
        {
            outputs.push("balance_shares.png".to_string());
        }
    }
    let profile = match (&results[0].balancer, &results[0].box_balancer) {
        (Some(b), _) => Some(Profile::from_balancer(b)),
        (None, Some(b)) => Some(Profile::from_box_balancer(b, scene.grid, options.topology)),
        (None, None) => None,
    };
    if let Some(profile) = profile {
        let path = out.join("profile.json");
        if failed
            .keep(profile.save(&path).map_err(|e| io_error(&path, e)))
            .is_some()
        {
            outputs.push("profile.json".into());
        }
    }
}
