//! Where each rank's cells are: a tensor plan of borders (the box driver), the boxes of a
//! jagged or k-d layout, or tile sets partitioned over the scene's mask (the tile driver), and
//! how the run rebalances them.

use yee_core::Box3;
use yee_core::session::Plan;
use yee_core::tile_driver::Ownership;
use yee_em::Setup;
use yee_runtime::balance::{
    BalanceMode, LayoutKind, box_layout, dynamic_boxes, layout_name, make_plan,
};
use yee_scalar::tiled::Rebalancing;
use yee_scene::Scene;

use crate::error::AppError;
use crate::options::RunOptions;
use crate::report::PartitionSummary;

/// A run's layout over its ranks.
pub struct RunLayout {
    /// The tensor plan (its borders are the layout of a tensor run, and where a balanced one
    /// starts).
    pub plan: Plan,
    /// The boxes of a jagged or k-d layout (a tensor layout's are the plan's borders).
    pub boxes: Option<Vec<Box3>>,
    /// Tile sets or boxes for the tile driver; `None` for a tensor layout (the box driver).
    pub owned: Option<Box<dyn Ownership + Sync>>,
    /// How a tiled run rebalances, if it does.
    pub rebalancing: Option<Rebalancing>,
    /// The partition of tile sets, for run.json.
    pub partition: Option<PartitionSummary>,
}

impl RunLayout {
    /// The layout `options` ask for of `scene` (whose setup is `setup`).
    pub fn new(scene: &Scene, setup: &Setup, options: &RunOptions) -> Result<Self, AppError> {
        let mut plan = make_plan(
            setup,
            &scene.costs,
            scene.value_type.bytes(),
            options.topology,
            &options.balance,
        )?;
        plan.overlap = options.overlap;
        let boxes = (options.balance.layout != LayoutKind::Tensor)
            .then(|| box_layout(setup, &scene.costs, options.topology, &options.balance))
            .transpose()?;
        let mut layout = RunLayout {
            plan,
            boxes,
            owned: None,
            rebalancing: None,
            partition: None,
        };
        match (options.partition, &layout.boxes) {
            (Some(method), _) => layout.tile_sets(scene, setup, options, method)?,
            (None, Some(boxes)) => {
                layout.rebalancing =
                    dynamic_boxes(setup, options.topology, &options.balance, boxes)
                        .map(Rebalancing::Boxes);
                let map = yee_core::box_layout::BoxLayout {
                    grid: setup.grid,
                    boxes: boxes.clone(),
                };
                yee_scalar::tiled::check_tiled(setup, &map).map_err(|e| {
                    AppError::Usage(format!(
                        "--layout {}: {e}",
                        layout_name(options.balance.layout)
                    ))
                })?;
                layout.owned = Some(Box::new(map));
            }
            (None, None) => {}
        }
        Ok(layout)
    }

    /// Tile sets of the scene's mask partitioned by `method` (`--partition`), weighted by
    /// `--speeds`, rebalanced when the run balances dynamically.
    fn tile_sets(
        &mut self,
        scene: &Scene,
        setup: &Setup,
        options: &RunOptions,
        method: yee_core::graph::Method,
    ) -> Result<(), AppError> {
        let ranks = options.topology.ranks();
        let weights = match options.balance.speeds.clone() {
            None => vec![1.0; ranks],
            Some(s) => crate::weights::check_weights("--speeds", s, ranks)?,
        };
        let tiles =
            yee_runtime::tiled::plan_tiles(setup, &scene.name, scene.tile, &weights, method)?;
        self.partition = Some(PartitionSummary {
            method: method.name().into(),
            tile: scene.tile,
            edge_cut: tiles.edge_cut,
            imbalance: tiles.imbalance,
        });
        if options.balance.mode == BalanceMode::Dynamic {
            self.rebalancing = Some(Rebalancing::Tiles(yee_runtime::tiled::dynamic_tiles(
                setup,
                &scene.costs,
                &tiles,
                options.balance.every,
                options.balance.epsilon,
            )));
        }
        self.owned = Some(Box::new(tiles.map));
        Ok(())
    }
}
