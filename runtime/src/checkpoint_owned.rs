//! The balancer of a box layout (`--layout jagged|kd`) or tile set (`--partition`) in a
//! checkpoint, and a resumed run taking it up: on the same layout the run carries on with the
//! saved boxes or tile owners and everything measured, so it decides as the run that was never
//! stopped would have.

use serde::{Deserialize, Serialize};
use yee_core::Box3;
use yee_core::Topology;
use yee_core::box_balance::BoxCut;
use yee_core::measurements::Measurements;
use yee_scalar::checkpoints::OwnedBalancer;
use yee_scalar::tiled::Rebalancing;

use crate::checkpoint::{Loaded, SavedBox};
use crate::profile::PerfJson;

/// What the ranks owned and what the balancer learnt, at the checkpoint's step.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OwnedBalancerJson {
    /// `"jagged"`, `"kd"` (boxes) or `"tiles"` (a tile set).
    pub kind: String,
    /// The topology a jagged layout cuts along (`[ranks, 1, 1]` otherwise).
    pub topology: [usize; 3],
    /// Each rank's box (an empty one for a disabled rank; none for a tile set).
    pub boxes: Vec<SavedBox>,
    /// Disabled ranks, the most recently disabled last (boxes only).
    pub disabled: Vec<usize>,
    /// Each tile's owner, by linear tile index (a tile set only).
    pub owner: Vec<Option<usize>>,
    /// Q/P sums per rank.
    pub perf: Vec<PerfJson>,
    /// Per rank, halo transfer seconds per step.
    pub share: Vec<f64>,
    /// Seconds per byte of the halo transfers, where known.
    pub byte_seconds: Option<f64>,
    /// Bytes a migration moves per cell.
    pub cell_bytes: f64,
}

impl OwnedBalancerJson {
    /// The state of `balancer`; `None` for a layout fixed for the whole run.
    pub fn of(balancer: OwnedBalancer<'_>) -> Option<Self> {
        let (kind, topology, boxes, disabled, owner, measured) = match balancer {
            OwnedBalancer::None => return None,
            OwnedBalancer::Boxes(b) => {
                let layout = b.layout();
                let (kind, topology) = match b.cut() {
                    BoxCut::Jagged(t) => ("jagged", t.0),
                    BoxCut::Kd => ("kd", [layout.boxes.len(), 1, 1]),
                };
                let boxes = layout
                    .boxes
                    .iter()
                    .map(|b| SavedBox { lo: b.lo, hi: b.hi })
                    .collect();
                (
                    kind,
                    topology,
                    boxes,
                    b.disabled().to_vec(),
                    Vec::new(),
                    &b.measured,
                )
            }
            OwnedBalancer::Tiles(b) => (
                "tiles",
                [b.map().ranks, 1, 1],
                Vec::new(),
                Vec::new(),
                b.map().owner.clone(),
                &b.measured,
            ),
        };
        Some(OwnedBalancerJson {
            kind: kind.into(),
            topology,
            boxes,
            disabled,
            owner,
            perf: measured.perf.iter().map(PerfJson::from).collect(),
            share: measured.share.clone(),
            byte_seconds: measured.byte_seconds,
            cell_bytes: measured.cell_bytes,
        })
    }

    fn measurements(&self) -> Measurements {
        Measurements {
            perf: self.perf.iter().map(Into::into).collect(),
            share: self.share.clone(),
            byte_seconds: self.byte_seconds,
            cell_bytes: self.cell_bytes,
        }
    }

    /// How boxes were cut, `None` for a tile set or an unknown kind.
    fn cut(&self) -> Option<BoxCut> {
        match self.kind.as_str() {
            "jagged" => Some(BoxCut::Jagged(Topology(self.topology))),
            "kd" => Some(BoxCut::Kd),
            _ => None,
        }
    }
}

impl Loaded {
    /// How a resumed tiled run rebalances: `own`, carrying on from the checkpoint's boxes or
    /// tile owners and measurements when the checkpoint was taken on the same kind of layout
    /// and number of ranks; else `own` afresh (the fields do not depend on the layout).
    pub fn rebalancing(&self, own: &Rebalancing) -> Rebalancing {
        let Some(saved) = &self.index.owned_balancer else {
            return own.clone();
        };
        let carried = match own {
            Rebalancing::Boxes(d) if saved.cut() == Some(d.balancer.cut()) => {
                let boxes = saved.boxes.iter().map(|b| Box3::new(b.lo, b.hi)).collect();
                d.balancer
                    .clone()
                    .with_state(boxes, saved.disabled.clone(), saved.measurements())
                    .map(|balancer| {
                        let mut d = d.clone();
                        d.balancer = balancer;
                        Rebalancing::Boxes(d)
                    })
            }
            Rebalancing::Tiles(d) if saved.kind == "tiles" => d
                .balancer
                .clone()
                .with_state(saved.owner.clone(), saved.measurements())
                .map(|balancer| {
                    let mut d = d.clone();
                    d.balancer = balancer;
                    Rebalancing::Tiles(d)
                }),
            _ => None,
        };
        carried.unwrap_or_else(|| own.clone())
    }
}
