//! Balancing profiles: the Q/P sums of Balykov 2019 §2.3 (performance per rank, Hockney
//! regression sums per link) saved after a run, so the next run on the same machine starts
//! balanced (eqs. (28)–(29)).
//!
//! The file is JSON:
//! `{"format": "yee-balance-profile", "version": 1, "grid": [x, y, z], "topology": [n, m, k],
//!   "perf": [{"work": Q, "seconds": P}, …one per rank],
//!   "links": [[{"count", "sum_x", "sum_t", "sum_xx", "sum_xt"} × 6 faces −x +x −y +y −z +z], …one per rank]}`
//! `work` is in plain-cell units (a vacuum Yee cell update), `seconds` compute time; link sums
//! are over messages received on that face (x bytes, t seconds).

use std::path::Path;

use serde::{Deserialize, Serialize};
use yee_core::Topology;
use yee_core::balance::{Balancer, LinkSums, PerfSums};
use yee_core::box_balance::BoxBalancer;

use crate::error::{RuntimeError, RuntimeErrorKind};

/// The format name in every profile.
pub const FORMAT: &str = "yee-balance-profile";
/// The version this build writes and reads.
pub const VERSION: u32 = 1;

/// Q/P sums of one rank.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PerfJson {
    /// Q: work done.
    pub work: f64,
    /// P: seconds.
    pub seconds: f64,
}

/// Regression sums of one link.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkJson {
    /// Samples.
    pub count: f64,
    /// Σx (bytes).
    pub sum_x: f64,
    /// Σt (seconds).
    pub sum_t: f64,
    /// Σx².
    pub sum_xx: f64,
    /// Σxt.
    pub sum_xt: f64,
}

impl From<&PerfSums> for PerfJson {
    fn from(p: &PerfSums) -> Self {
        PerfJson {
            work: p.work,
            seconds: p.seconds,
        }
    }
}

impl From<&PerfJson> for PerfSums {
    fn from(p: &PerfJson) -> Self {
        PerfSums {
            work: p.work,
            seconds: p.seconds,
        }
    }
}

impl From<&LinkSums> for LinkJson {
    fn from(l: &LinkSums) -> Self {
        LinkJson {
            count: l.count,
            sum_x: l.sum_x,
            sum_t: l.sum_t,
            sum_xx: l.sum_xx,
            sum_xt: l.sum_xt,
        }
    }
}

impl From<&LinkJson> for LinkSums {
    fn from(l: &LinkJson) -> Self {
        LinkSums {
            count: l.count,
            sum_x: l.sum_x,
            sum_t: l.sum_t,
            sum_xx: l.sum_xx,
            sum_xt: l.sum_xt,
        }
    }
}

/// A whole profile file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Profile {
    /// Always "yee-balance-profile".
    pub format: String,
    /// File format version.
    pub version: u32,
    /// Grid it was measured on.
    pub grid: [usize; 3],
    /// Topology it was measured on.
    pub topology: [usize; 3],
    /// Per rank.
    pub perf: Vec<PerfJson>,
    /// Per rank, per face.
    pub links: Vec<[LinkJson; 6]>,
}

impl Profile {
    /// The sums of a balancer.
    pub fn from_balancer(b: &Balancer) -> Self {
        Profile {
            format: FORMAT.into(),
            version: VERSION,
            grid: b.grid(),
            topology: b.topology().0,
            perf: b.perf.iter().map(PerfJson::from).collect(),
            links: b
                .links
                .iter()
                .map(|faces| faces.map(|l| LinkJson::from(&l)))
                .collect(),
        }
    }

    /// The Q/P sums of a jagged or k-d layout's balancer (ranks in place of the tensor's
    /// ranks; its links are not fitted, so their sums are zero) on `topology`, the
    /// topology the run numbered its ranks by.
    pub fn from_box_balancer(b: &BoxBalancer, grid: [usize; 3], topology: Topology) -> Self {
        let none = LinkJson::from(&LinkSums::default());
        Profile {
            format: FORMAT.into(),
            version: VERSION,
            grid,
            topology: topology.0,
            perf: b.measured.perf.iter().map(PerfJson::from).collect(),
            links: vec![[none; 6]; b.measured.perf.len()],
        }
    }

    /// The sums as the balancer takes them.
    pub fn sums(&self) -> (Vec<PerfSums>, Vec<[LinkSums; 6]>) {
        let perf = self.perf.iter().map(PerfSums::from).collect();
        let links = self
            .links
            .iter()
            .map(|faces| faces.map(|l| LinkSums::from(&l)))
            .collect();
        (perf, links)
    }

    /// Writes the profile atomically (a temporary file renamed into place), so a run stopped
    /// while writing leaves the old profile or the new one, never half of one.
    pub fn save(&self, path: &Path) -> std::io::Result<()> {
        let text = serde_json::to_string_pretty(self).map_err(std::io::Error::other)?;
        yee_io::atomic::write(path, text + "\n")
    }

    /// Reads a profile and checks it belongs to this run: `grid` and `topology`. Errors are of
    /// kind [`RuntimeErrorKind::Profile`] and name the file.
    pub fn load(
        path: &Path,
        grid: [usize; 3],
        topology: [usize; 3],
    ) -> Result<Profile, RuntimeError> {
        let bad = |m: String| {
            RuntimeError::new(
                RuntimeErrorKind::Profile,
                format!("profile {}: {m}; the run does not start", path.display()),
            )
        };
        let text =
            std::fs::read_to_string(path).map_err(|e| bad(format!("cannot read it: {e}")))?;
        let value: serde_json::Value = serde_json::from_str(&text).map_err(|e| {
            bad(format!(
                "not a complete JSON document (line {}, column {}): {e}",
                e.line(),
                e.column()
            ))
        })?;
        if value.get("format").and_then(|f| f.as_str()) != Some(FORMAT) {
            return Err(bad(format!(
                "not a yee balancing profile (\"format\" must be \"{FORMAT}\")"
            )));
        }
        match value.get("version").and_then(|v| v.as_u64()) {
            Some(v) if v == u64::from(VERSION) => {}
            Some(v) => {
                return Err(bad(format!(
                    "version {v}, but this build reads version {VERSION}"
                )));
            }
            None => return Err(bad("no \"version\"".into())),
        }
        let p: Profile =
            serde_json::from_value(value).map_err(|e| bad(format!("malformed: {e}")))?;
        let ranks: usize = p.topology.iter().product();
        if p.perf.len() != ranks || p.links.len() != ranks {
            return Err(bad(format!(
                "{} perf and {} link entries for a topology of {ranks} ranks",
                p.perf.len(),
                p.links.len()
            )));
        }
        if p.topology != topology {
            return Err(bad(format!(
                "measured on {} ranks ({}x{}x{}), this run has {} ({}x{}x{})",
                ranks,
                p.topology[0],
                p.topology[1],
                p.topology[2],
                topology.iter().product::<usize>(),
                topology[0],
                topology[1],
                topology[2]
            )));
        }
        if p.grid != grid {
            return Err(bad(format!(
                "measured on a grid of {:?} cells, this run has {grid:?}",
                p.grid
            )));
        }
        let finite = p.perf.iter().all(|x| {
            x.work.is_finite() && x.seconds.is_finite() && x.work >= 0.0 && x.seconds >= 0.0
        });
        if !finite {
            return Err(bad("a perf entry is negative or not finite".into()));
        }
        Ok(p)
    }
}
