//! The traces of a `[scan]` ([`crate::scan`]): the block resolved against the scene, every
//! trace checked, and each trace's scene and positions.

use yee_core::Box3;

use crate::Scene;
use crate::error::SceneError;
use crate::scan::{MAX_TRACES, Scan, TracePosition};
use crate::spec::ScanSpec;

/// Resolves `[scan]` against the resolved `scene`, whose first `declared_probes` probes are
/// the `[[probes]]` entries. Every trace is checked: no source node and no receiver may leave
/// the grid or enter a CPML layer; the error names the trace and the object.
pub fn resolve_scan(
    scene: &Scene,
    spec: &ScanSpec,
    declared_probes: usize,
) -> Result<Scan, SceneError> {
    let err = |key: &str, message: String| SceneError::Invalid {
        file: scene.file.clone(),
        key: format!("scan.{key}"),
        message,
    };
    if spec.count == 0 || spec.count > MAX_TRACES {
        return Err(err(
            "count",
            format!(
                "{} traces: a scan runs from 1 to {MAX_TRACES} traces",
                spec.count
            ),
        ));
    }
    if scene.bands.is_some() {
        return Err(err(
            "count",
            "a scene with [bands] runs once per k-point (`yee bands`); a scan is a scene of \
             its own"
                .into(),
        ));
    }
    if scene.until_decayed.is_some() {
        return Err(err(
            "count",
            "every trace runs the same steps, one row of the B-scan each: give [run] steps or \
             time without until_decayed"
                .into(),
        ));
    }
    if spec.src_steps.is_none() && spec.rx_steps.is_none() {
        return Err(err(
            "src_steps",
            "is missing, and so is rx_steps: a scan moves the sources, the receivers or both"
                .into(),
        ));
    }
    let src_step = step_cells(scene, "src_steps", spec.src_steps.as_deref())?;
    let rx_step = step_cells(scene, "rx_steps", spec.rx_steps.as_deref())?;
    if src_step != [0; 3] && scene.sources.is_empty() {
        return Err(err(
            "src_steps",
            "moves the sources, and the scene has no [[sources]] (plane waves do not move)".into(),
        ));
    }
    let receivers = match &spec.receivers {
        None => (0..declared_probes).collect(),
        Some(names) => {
            let mut out: Vec<usize> = Vec::new();
            for (i, name) in names.iter().enumerate() {
                let declared = &scene.probe_names[..declared_probes];
                let Some(p) = declared.iter().position(|n| n == name) else {
                    return Err(err(
                        &format!("receivers[{i}]"),
                        format!(
                            "`{name}` is not a [[probes]] name (the probes are: {})",
                            declared.join(", ")
                        ),
                    ));
                };
                if out.contains(&p) {
                    return Err(err(
                        &format!("receivers[{i}]"),
                        format!("names `{name}` twice"),
                    ));
                }
                out.push(p);
            }
            out
        }
    };
    if receivers.is_empty() {
        return Err(err(
            "receivers",
            "names no probe: a scan records at one [[probes]] entry at least".into(),
        ));
    }
    let scan = Scan {
        count: spec.count,
        src_step,
        rx_step,
        receivers,
    };
    check_traces(scene, &scan).map_err(|m| err("count", m))?;
    Ok(scan)
}

/// `steps` in whole cells (zero when absent), or the error naming `key`.
fn step_cells(scene: &Scene, key: &str, steps: Option<&[f64]>) -> Result<[i64; 3], SceneError> {
    let err = |key: String, message: String| SceneError::Invalid {
        file: scene.file.clone(),
        key: format!("scan.{key}"),
        message,
    };
    let Some(steps) = steps else {
        return Ok([0; 3]);
    };
    let dims = scene.mode.dims();
    if steps.len() != dims {
        return Err(err(
            key.into(),
            format!(
                "has {} numbers, but mode {} needs {dims}",
                steps.len(),
                scene.mode.name()
            ),
        ));
    }
    let mut out = [0; 3];
    for (a, &v) in steps.iter().enumerate() {
        let cells = scene.units.length(v);
        // A whole number of cells within what a length is converted to exactly
        // (`Units::length` snaps within 1e-9 of a node).
        if !(cells.is_finite() && cells == cells.round()) {
            return Err(err(
                format!("{key}[{a}]"),
                format!(
                    "{v} is {cells} cells; a step is a whole number of cells (a cell is {} \
                     here), so that every trace drives and records the same nodes of the Yee \
                     cell",
                    scene.units.cell()
                ),
            ));
        }
        if cells.abs() > scene.grid[a] as f64 {
            return Err(err(
                format!("{key}[{a}]"),
                format!(
                    "{v} is {cells} cells, longer than the grid ({} cells along {})",
                    scene.grid[a],
                    ["x", "y", "z"][a]
                ),
            ));
        }
        out[a] = cells as i64;
    }
    Ok(out)
}

/// `cell` moved by `k` steps of `step`.
fn moved(cell: [i64; 3], step: [i64; 3], k: usize) -> [i64; 3] {
    std::array::from_fn(|a| cell[a] + step[a] * k as i64)
}

/// Why the first trace that moves a source node or a receiver out of the grid or into a CPML
/// layer cannot run, naming the trace and the object.
fn check_traces(scene: &Scene, scan: &Scan) -> Result<(), String> {
    let grid = Box3::from_extent(scene.grid);
    let slabs = crate::warnings::cpml_slabs(scene);
    // Each moving object as the box of its cells in the first trace, and its step.
    let mut objects: Vec<(String, Box3, [i64; 3])> = Vec::new();
    for (s, &origin) in scene.sources.iter().zip(&scene.source_origin) {
        let name = format!("sources[{origin}]");
        let cell = Box3::new(s.cell, s.cell.map(|x| x + 1));
        match objects.iter_mut().find(|(n, _, _)| *n == name) {
            Some((_, b, _)) => *b = bounding(*b, cell),
            None => objects.push((name, cell, scan.src_step)),
        }
    }
    for &p in &scan.receivers {
        let c = scene.probes[p].cell;
        let name = format!("receiver {} (probes[{p}])", scene.probe_names[p]);
        objects.push((name, Box3::new(c, c.map(|x| x + 1)), scan.rx_step));
    }
    for k in 0..scan.count {
        for (name, b, step) in &objects {
            let at = Box3::new(moved(b.lo, *step, k), moved(b.hi, *step, k));
            let lo = &at.lo[..scene.mode.dims()];
            if grid.intersect(&at) != at {
                return Err(format!(
                    "{} traces: trace {k} moves {name} to cell {lo:?}, outside the grid \
                     (cells {:?}); fewer traces or smaller steps",
                    scan.count,
                    &scene.grid[..scene.mode.dims()]
                ));
            }
            if let Some((face, slab)) = slabs.iter().find(|(_, s)| !s.intersect(&at).is_empty()) {
                return Err(format!(
                    "{} traces: trace {k} moves {name} to cell {lo:?}, in {}, which absorbs \
                     what is driven or recorded there; fewer traces or smaller steps",
                    scan.count,
                    crate::warnings::layer_name(face, slab)
                ));
            }
        }
    }
    Ok(())
}

/// The smallest box holding `a` and `b`.
fn bounding(a: Box3, b: Box3) -> Box3 {
    Box3::new(
        std::array::from_fn(|i| a.lo[i].min(b.lo[i])),
        std::array::from_fn(|i| a.hi[i].max(b.hi[i])),
    )
}

impl Scene {
    /// Trace `k` of the scene's scan: its sources and receivers moved by `k` steps, without
    /// the `[scan]` block. A scene without one is its own only trace.
    pub fn trace(&self, k: usize) -> Scene {
        let mut trace = self.clone();
        let Some(scan) = trace.scan.take() else {
            return trace;
        };
        for s in &mut trace.sources {
            s.cell = moved(s.cell, scan.src_step, k);
        }
        for &p in &scan.receivers {
            trace.probes[p].cell = moved(trace.probes[p].cell, scan.rx_step, k);
        }
        trace
    }

    /// Where trace `k` of the scan puts each `[[sources]]` entry and each receiver (the
    /// scene's own positions without a scan).
    pub fn trace_positions(&self, k: usize) -> (Vec<TracePosition>, Vec<TracePosition>) {
        let (src_step, rx_step, receivers) = match &self.scan {
            Some(scan) => (scan.src_step, scan.rx_step, scan.receivers.clone()),
            None => ([0; 3], [0; 3], (0..self.probes.len()).collect()),
        };
        let dims = self.mode.dims();
        // 70 cells of 0.005 m is 0.35000000000000003 in floating point: shown to 12 digits.
        let tidy = |x: f64| format!("{x:.12e}").parse().unwrap_or(x);
        let at = |c: yee_em::Component, cell: [i64; 3], step: [i64; 3]| -> Vec<f64> {
            c.position(moved(cell, step, k))[..dims]
                .iter()
                .map(|&x| tidy(self.units.to_scene_length(x)))
                .collect()
        };
        // The nodes of one `[[sources]]` entry are consecutive: its first stands for it.
        let mut sources: Vec<TracePosition> = Vec::new();
        let mut last = None;
        for (s, &origin) in self.sources.iter().zip(&self.source_origin) {
            if last != Some(origin) {
                last = Some(origin);
                sources.push(TracePosition {
                    name: format!("sources[{origin}]"),
                    position: at(s.component, s.cell, src_step),
                });
            }
        }
        let receivers = receivers
            .into_iter()
            .map(|p| TracePosition {
                name: self.probe_names[p].clone(),
                position: at(self.probes[p].component, self.probes[p].cell, rx_step),
            })
            .collect();
        (sources, receivers)
    }
}
