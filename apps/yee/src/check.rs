//! `yee check`: the resolved setup of a scene, without running it.

use std::fmt::Write;

use yee_core::{Axis, Index3, Side};
use yee_em::{Boundary, Component, Shape};
use yee_runtime::memory::human;
use yee_runtime::memory_limit::{MemoryLimit, memory_limit};
use yee_scene::Scene;
use yee_simulation::memory_estimate::estimate;

/// Below this many cells per wavelength, numerical dispersion is worth a warning.
pub const MIN_CELLS_PER_WAVELENGTH: f64 = 10.0;

/// The smallest number of cells per wavelength over the sources' and plane waves' highest
/// significant frequency and the densest material, with that frequency; `None` without either.
pub fn cells_per_wavelength(scene: &Scene) -> Option<(f64, f64)> {
    let f_max = scene
        .sources
        .iter()
        .map(|s| s.waveform)
        .chain(scene.plane_waves.iter().map(|w| w.waveform))
        .map(|w| w.max_frequency())
        .fold(0.0, f64::max);
    if f_max <= 0.0 {
        return None;
    }
    let index = std::iter::once(scene.background.1)
        .chain(scene.regions.iter().map(|r| r.material))
        .map(|m| (m.eps * m.mu).sqrt())
        .fold(1.0, f64::max);
    Some((1.0 / (f_max * index), f_max))
}

/// The processes of this MPI job on this machine (Open MPI's and MPICH's local size), else 1.
fn processes_on_this_node() -> usize {
    ["OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS"]
        .iter()
        .find_map(|v| std::env::var(v).ok()?.parse().ok())
        .unwrap_or(1)
}

/// The bytes `scene` needs on this machine when `ranks` ranks run it (MPI: one per process,
/// each holding its share of the state, as many on this machine as it has local processes,
/// and the writing rank the whole gather; otherwise all in this process), and the bound that
/// binds this process ([`memory_limit`]).
pub fn memory_need(scene: &Scene, ranks: usize, mpi: bool) -> (u64, Option<MemoryLimit>) {
    let e = estimate(scene);
    let need = if mpi {
        let local = processes_on_this_node() as u64;
        let shared = e.state + e.geometry + e.probes;
        shared.div_ceil(ranks as u64) * local + e.process * local + e.gather.max(e.results)
    } else {
        e.total()
    };
    (need, memory_limit())
}

/// The message of a scene that does not fit in memory, or `None` when it fits (or the OS does
/// not say what is available).
pub fn memory_shortfall(scene: &Scene, ranks: usize, mpi: bool) -> Option<String> {
    let (need, limit) = memory_need(scene, ranks, mpi);
    let limit = limit?;
    if need <= limit.bytes {
        return None;
    }
    let extent: Vec<String> = scene.grid[..scene.mode.dims()]
        .iter()
        .map(|n| n.to_string())
        .collect();
    let share = if mpi {
        format!(", this machine's share of {ranks} MPI ranks")
    } else {
        String::new()
    };
    let smaller = if scene.value_type.bytes() > 4 {
        " `value_type = \"f32\"` (half the bytes),"
    } else {
        ""
    };
    Some(format!(
        "{}: the grid {} ({} cells, {}) with its outputs needs about {}{share}, but only {} \
         is available ({}): spread it over machines (`mpirun -np N` across nodes),{smaller} or \
         use a smaller or coarser grid",
        scene.file.display(),
        extent.join(" × "),
        scene.cells(),
        scene.value_type.name(),
        human(need),
        human(limit.bytes),
        limit.source,
    ))
}

/// Stops a run whose scene does not fit in memory before anything is allocated.
pub fn memory_fits(scene: &Scene, ranks: usize, mpi: bool) -> Result<(), crate::error::AppError> {
    match memory_shortfall(scene, ranks, mpi) {
        Some(message) => Err(crate::error::AppError::Run(message)),
        None => Ok(()),
    }
}

/// The device memory the scene needs on `--backend cuda` with one rank, part by part
/// ([`yee_cuda::memory::DeviceMemory`]; the coefficient tables counted for the background,
/// each region's material and the inactive id).
pub fn device_memory_line(scene: &Scene) -> String {
    let setup = scene.setup();
    let Some(precision) = yee_cuda::kernels::Precision::of_name(scene.value_type.name()) else {
        return format!(
            "cuda        no device kernels for {} values",
            scene.value_type.name()
        );
    };
    let m = yee_cuda::memory::DeviceMemory::of(
        &setup,
        yee_core::Box3::from_extent(setup.grid),
        precision,
        setup.regions.len() + 2,
    );
    let parts: Vec<String> = m
        .parts()
        .iter()
        .map(|(name, bytes)| format!("{name} {}", human(*bytes)))
        .collect();
    format!(
        "cuda        about {} of device memory with one rank ({})",
        human(m.total()),
        parts.join(", ")
    )
}

/// The report `yee check` prints, and the warnings in it.
pub fn describe(scene: &Scene) -> (String, Vec<String>) {
    let mut s = String::new();
    let mut warnings = Vec::new();
    describe_setup(scene, &mut s, &mut warnings);
    describe_sources(scene, &mut s, &mut warnings);
    describe_outputs(scene, &mut s);
    describe_scan(scene, &mut s);
    (s, warnings)
}

/// `[scan]`: the trace count, the steps, and where the first and the last trace put the
/// sources and receivers.
fn describe_scan(scene: &Scene, s: &mut String) {
    let Some(scan) = &scene.scan else {
        return;
    };
    let dims = scene.mode.dims();
    let unit = match scene.units {
        yee_scene::Units::Si { .. } => " m",
        yee_scene::Units::Lengths { .. } => " a",
        yee_scene::Units::Normalised => "",
    };
    let step = |cells: &[i64; 3]| {
        let lengths: Vec<f64> = (cells[..dims].iter())
            .map(|&c| scene.units.to_scene_length(c as f64))
            .collect();
        format!("{lengths:?}{unit} ({:?} cells)", &cells[..dims])
    };
    let names: Vec<&str> = (scan.receivers.iter())
        .map(|&p| scene.probe_names[p].as_str())
        .collect();
    let _ = writeln!(
        s,
        "scan        {} traces of {} steps: sources move {} per trace, receivers ({}) {}; \
         one folder per trace (trace_000/…), merged into bscan_<probe>_<component>.npy and .png",
        scan.count,
        scene.steps,
        step(&scan.src_step),
        names.join(", "),
        step(&scan.rx_step)
    );
    for (label, k) in [("first", 0), ("last", scan.count - 1)] {
        let (sources, receivers) = scene.trace_positions(k);
        let at: Vec<String> = (sources.iter().chain(&receivers))
            .map(|p| format!("{} at {:?}{unit}", p.name, p.position))
            .collect();
        let _ = writeln!(s, "  {label:<5} trace {k}: {}", at.join(", "));
    }
}

/// The scene, grid, memory, time step, materials and smoothing.
fn describe_setup(scene: &Scene, s: &mut String, warnings: &mut Vec<String>) {
    let dims = scene.mode.dims();
    let extent: Vec<String> = scene.grid[..dims].iter().map(|n| n.to_string()).collect();
    let _ = writeln!(s, "scene       {} ({})", scene.name, scene.file.display());
    let _ = writeln!(
        s,
        "mode        {} ({}D), values {}",
        scene.mode.name(),
        dims,
        scene.value_type.name()
    );
    let memory = estimate(scene);
    let _ = writeln!(
        s,
        "grid        {} cells{} ({} in all)",
        extent.join(" × "),
        in_lengths(&scene.units, &scene.grid[..dims]),
        scene.cells(),
    );
    let _ = writeln!(
        s,
        "memory      about {} at the peak of a run on the scalar backend with one rank ({})",
        human(memory.total()),
        memory.parts().join(", ")
    );
    if let Some(message) = memory_shortfall(scene, 1, false) {
        warnings.push(message);
    }
    warnings.extend(yee_scene::warnings::scene_warnings(scene));
    let _ = writeln!(s, "{}", device_memory_line(scene));
    let limit = scene.mode.courant_limit();
    let _ = writeln!(
        s,
        "time step   dt = {:.6} Δx/c{}, Courant {:.6} of limit {:.6}",
        scene.dt(),
        match scene.units {
            yee_scene::Units::Normalised => String::new(),
            si => format!(" = {:.6e} {}", si.to_scene_time(scene.dt()), si.time_unit()),
        },
        scene.courant,
        limit
    );
    let _ = writeln!(
        s,
        "run         {} steps = {:.6e} {}",
        scene.steps,
        scene.units.to_scene_time(scene.steps as f64 * scene.dt()),
        scene.units.time_unit()
    );
    let (bg_name, bg) = &scene.background;
    let _ = writeln!(s, "background  {bg_name} ({})", describe_material(bg));
    for (i, (r, name)) in scene
        .regions
        .iter()
        .zip(&scene.region_materials)
        .enumerate()
    {
        let _ = writeln!(s, "region {i}    {name}: {:?}", r.shape);
    }
    // Each dispersive material's poles once, normalised (ε above is then ε∞).
    let mut shown: Vec<&str> = Vec::new();
    let named = std::iter::once((bg_name, bg)).chain(
        scene
            .region_materials
            .iter()
            .zip(scene.regions.iter().map(|r| &r.material)),
    );
    for (name, m) in named {
        if shown.contains(&name.as_str()) {
            continue;
        }
        shown.push(name);
        for p in m.poles.of(&scene.poles).unwrap_or(&[]) {
            let _ = writeln!(s, "pole        {name} (eps∞ {}): {p:?} (normalised)", m.eps);
        }
    }
    for (name, m) in &scene.library {
        let _ = writeln!(
            s,
            "library     {name}: {}, fit of {}, valid over {}",
            m.description, m.source, m.range
        );
    }
    for v in material_volumes(scene) {
        let _ = writeln!(s, "volume      {}", v.describe());
    }
    let curved = scene
        .regions
        .iter()
        .filter(|r| matches!(r.shape, Shape::Sphere { .. } | Shape::Cylinder { .. }))
        .count();
    if curved > 0 {
        let _ = writeln!(
            s,
            "smoothing   {}",
            match scene.smoothing {
                true => format!(
                    "on: the surfaces of {curved} sphere(s) and cylinder(s) are smoothed \
                     (subpixel averaging){}{}; the volumes above count them staircased",
                    if scene.regions.iter().any(|r| r.material.is_dispersive())
                        || scene.background.1.is_dispersive()
                    {
                        ", but for E beside a dispersive material"
                    } else {
                        ""
                    },
                    if scene.setup().smooths_off_diagonal() {
                        ", with the effective tensor's off-diagonal entries where the normal \
                         lies off the axes (the diagonal alone with tile sets, --partition, \
                         and jagged or k-d --layout)"
                    } else {
                        ""
                    }
                ),
                false => "off: spheres and cylinders are staircased".to_string(),
            }
        );
    }
}

/// A mode source expanded into `nodes` soft sources.
fn describe_mode_source(scene: &Scene, m: &yee_scene::ModeSource, nodes: usize, s: &mut String) {
    let (sense, h_plane) = match m.forward {
        true => ('+', m.plane as f64 - 0.5),
        false => ('-', m.plane as f64 + 0.5),
    };
    let length = |x: f64| scene.units.to_scene_length(x);
    let parity = yee_modes::Parity { even: m.parity }.phrase();
    let _ = writeln!(
        s,
        "source {}    mode {}{parity} along {sense}{}, n_eff {:.6} at the centre frequency: \
         E sheet at {axis}={}, H sheet at {axis}={}, {nodes} soft nodes, amplitude {} of the \
         unit-power mode, {}, significant up to f = {:.6e}{}{}",
        m.index,
        m.mode,
        m.axis.name(),
        m.n_eff.unwrap_or(f64::NAN),
        length(m.plane as f64),
        length(h_plane),
        m.amplitude,
        describe_waveform(&m.waveform, &scene.units),
        scene.units.to_scene_frequency(m.waveform.max_frequency()),
        frequency_unit(&scene.units),
        broadband(scene, m),
        axis = m.axis.name(),
    );
}

/// What a broadband mode source (`num_freqs` > 1) adds to its description: the frequencies
/// its mode is found at.
fn broadband(scene: &Scene, m: &yee_scene::ModeSource) -> String {
    match yee_simulation::mode_sources::band(m) {
        Some((low, high)) if m.num_freqs > 1 => format!(
            "; its mode found at {} frequencies over {:.6} … {:.6}",
            m.num_freqs,
            scene.units.to_scene_frequency(low),
            scene.units.to_scene_frequency(high)
        ),
        _ => String::new(),
    }
}

/// The sources, plane waves, flux regions and the resolution they ask for.
fn describe_sources(scene: &Scene, s: &mut String, warnings: &mut Vec<String>) {
    let mut next = 0;
    while next < scene.sources.len() {
        let origin = scene.source_origin[next];
        let nodes = scene.source_origin[next..]
            .iter()
            .take_while(|&&o| o == origin)
            .count();
        let group = &scene.sources[next..next + nodes];
        let (src, last) = (&group[0], &group[nodes - 1]);
        if let Some(m) = scene.mode_sources.iter().find(|m| m.index == origin) {
            describe_mode_source(scene, m, nodes, s);
            next += nodes;
            continue;
        }
        // Nodes on the faces of a box carry part of its current (docs/scene.md, "The same
        // rule for sources and monitors"): the amplitude shown is a whole node's.
        let whole = group
            .iter()
            .map(|p| p.amplitude)
            .fold(0.0, |m: f64, a| if a.abs() > m.abs() { a } else { m });
        let weighted = group.iter().any(|p| p.amplitude != whole);
        let (first_node, last_node) = (
            node_in_lengths(scene, src.component, src.cell),
            node_in_lengths(scene, last.component, last.cell),
        );
        let place = match (nodes, weighted) {
            (1, _) => format!("at cell {:?}{first_node}", src.cell),
            (_, false) => format!(
                "on {nodes} nodes from cell {:?}{first_node} to {:?}{last_node}",
                src.cell, last.cell
            ),
            (_, true) => format!(
                "on {nodes} nodes from cell {:?}{first_node} to {:?}{last_node} (those on the \
                 box's faces weighted ½, edges ¼, corners ⅛)",
                src.cell, last.cell
            ),
        };
        let _ = writeln!(
            s,
            "source {origin}    {} {:?} {place}, amplitude {} per node (normalised), {}, \
             significant up to f = {:.6e}{}",
            src.component.name(),
            src.kind,
            whole,
            describe_waveform(&src.waveform, &scene.units),
            scene.units.to_scene_frequency(src.waveform.max_frequency()),
            frequency_unit(&scene.units)
        );
        next += nodes;
    }
    for (i, w) in scene.plane_waves.iter().enumerate() {
        let _ = writeln!(
            s,
            "plane wave {i}  along {:?}, E along {:?}, total-field box {:?}..{:?}, amplitude {}, \
             {}",
            w.k_direction(),
            w.e_direction(),
            w.region.lo,
            w.region.hi,
            w.amplitude,
            describe_waveform(&w.waveform, &scene.units)
        );
    }
    for f in &scene.fluxes {
        let m = &scene.monitors[f.first_monitor];
        let frequencies = &scene.frequencies[m.first..m.first + m.count];
        let _ = writeln!(
            s,
            "flux {}  {} face(s), {} frequencies from {:.6e} to {:.6e}{}{}{}",
            f.name,
            f.planes.len(),
            frequencies.len(),
            scene.units.to_scene_frequency(frequencies[0]),
            scene
                .units
                .to_scene_frequency(frequencies[frequencies.len() - 1]),
            frequency_unit(&scene.units),
            f.minus
                .as_ref()
                .map_or(String::new(), |p| format!(", minus {}", p.display())),
            f.far_field.map_or(String::new(), |[t, p]| format!(
                ", far field on {t} × {p} directions"
            ))
        );
    }
    match cells_per_wavelength(scene) {
        Some((cells, f)) => {
            let _ = writeln!(
                s,
                "resolution  {cells:.1} cells per wavelength at f = {:.6e}{} in the densest material",
                scene.units.to_scene_frequency(f),
                frequency_unit(&scene.units)
            );
            if cells < MIN_CELLS_PER_WAVELENGTH {
                warnings.push(format!(
                    "only {cells:.1} cells per wavelength at the highest source frequency (below {MIN_CELLS_PER_WAVELENGTH}): expect numerical dispersion; refine the grid or lower the frequency"
                ));
            }
        }
        None => {
            let _ = writeln!(s, "resolution  no sources or plane waves");
        }
    }
}

/// The `[[resonances]]` blocks and the `until_decayed` rule.
fn describe_resonances(scene: &Scene, s: &mut String) {
    let units = scene.units;
    for b in &scene.resonances {
        let probes: Vec<&str> = b
            .probes
            .iter()
            .map(|&p| scene.probe_names[p].as_str())
            .collect();
        let _ = writeln!(
            s,
            "resonances  {}: harmonic inversion of {} in [{}, {}]{} from time {}{} on, into \
             resonances_{}.csv",
            b.name,
            probes.join(" + "),
            b.band[0],
            b.band[1],
            frequency_unit(&units),
            b.after,
            time_unit(&units),
            b.name
        );
    }
    if let Some(rule) = scene.until_decayed {
        let time = |steps: u64| units.to_scene_time(steps as f64 * scene.dt());
        let unit = time_unit(&units);
        let _ = writeln!(
            s,
            "decay stop  when |{}|² at probe {} over {} steps (time {:.6e}{unit}) falls to {:e} of \
             its largest, checked from step {} (time {:.6e}{unit}) on",
            scene.probes[rule.probe].component.name(),
            scene.probe_names[rule.probe],
            rule.every,
            time(rule.every),
            rule.factor,
            rule.after + rule.every,
            time(rule.after + rule.every)
        );
    }
}

/// The boundaries, mask, probes, slices and snapshots.
fn describe_outputs(scene: &Scene, s: &mut String) {
    let dims = scene.mode.dims();
    for axis in Axis::ALL.into_iter().take(dims) {
        let faces: Vec<String> = Side::BOTH
            .iter()
            .map(|&side| match scene.boundaries[axis.index()][side.index()] {
                Boundary::Cpml(p) => format!(
                    "{} cpml ({} cells{}, m {}, sigma_max {:.3}, kappa_max {}, alpha_max {})",
                    side.name(),
                    p.thickness,
                    in_lengths(&scene.units, &[p.thickness]),
                    p.order,
                    p.resolved_sigma_max(),
                    p.kappa_max,
                    p.alpha_max
                ),
                b => format!("{} {}", side.name(), b.name()),
            })
            .collect();
        let _ = writeln!(s, "boundary {}  {}", axis.name(), faces.join(", "));
    }
    if let Some(active) = &scene.active {
        let on = active.iter().filter(|&&a| a).count();
        let tiles = yee_core::graph::TileGraph::from_mask(scene.grid, active, scene.tile, 1.0)
            .map_or(0, |g| {
                let mut tiles = g.tile_of;
                tiles.dedup();
                tiles.len()
            });
        let _ = writeln!(
            s,
            "mask        {on} of {} cells active ({:.1} %); {tiles} tiles of {} hold active cells",
            active.len(),
            100.0 * on as f64 / active.len() as f64,
            scene.tile.map(|t| t.to_string()).join("x")
        );
    }
    for (p, name) in scene.probes.iter().zip(&scene.probe_names) {
        let _ = writeln!(
            s,
            "probe       {name}: {} at cell {:?}{}",
            p.component.name(),
            p.cell,
            node_in_lengths(scene, p.component, p.cell)
        );
    }
    describe_resonances(scene, s);
    for slice in &scene.slices {
        let _ = writeln!(
            s,
            "slice       {} every {} steps",
            slice.component.name(),
            slice.every
        );
    }
    if let Some(snap) = &scene.snapshots {
        let names: Vec<&str> = (snap.components.iter().map(|c| c.name()))
            .chain(snap.geometry.iter().map(|q| q.name()))
            .collect();
        let when = if snap.every == 0 {
            "at the last step".to_string()
        } else {
            format!("every {} steps and at the last", snap.every)
        };
        let _ = writeln!(
            s,
            "snapshots   {} {when}{}{}{}",
            names.join(", "),
            if snap.npy { ", npy" } else { "" },
            match (snap.vti, snap.zlib) {
                (true, true) => ", vti (zlib)",
                (true, false) => ", vti",
                _ => "",
            },
            if snap.hdf5 { ", hdf5" } else { "" }
        );
    }
}

/// How much of the grid a geometry material got, beside what its shapes say.
#[derive(Clone, Debug, PartialEq)]
pub struct MaterialVolume {
    /// The material's name.
    pub name: String,
    /// Per component of the mode, the weighted count of its nodes the material holds: a node
    /// on a shape's face counts by its share (docs/scene.md, "Where geometry lands"); nodes of
    /// inactive cells do not count. In cells (lengths in 1D, areas in 2D).
    pub grid: Vec<(Component, f64)>,
    /// The sum of its shapes' analytic measures ([`yee_em::Shape::measure`]), or `None` when
    /// one of them has no simple one.
    pub analytic: Option<f64>,
    /// A shape reaches a face of the grid or beyond: the grid holds only part of it.
    pub clipped: bool,
    /// A shape's bounding box overlaps another region's: the shapes' sum does not account for
    /// what the overlap covers twice or what a later shape takes.
    pub overlapping: bool,
}

impl MaterialVolume {
    /// One line: the grid's counts, then the analytic measure and what may keep them apart.
    pub fn describe(&self) -> String {
        let mut line = format!("{}: grid ", self.name);
        let first = self.grid.first().map_or(0.0, |&(_, v)| v);
        if self.grid.iter().all(|&(_, v)| v == first) {
            let names: Vec<&str> = self.grid.iter().map(|(c, _)| c.name()).collect();
            let _ = write!(line, "{} cells ({})", figure(first), names.join(", "));
        } else {
            let each: Vec<String> = self
                .grid
                .iter()
                .map(|(c, v)| format!("{} {}", c.name(), figure(*v)))
                .collect();
            let _ = write!(line, "{} cells", each.join(", "));
        }
        match self.analytic {
            Some(a) => {
                let _ = write!(line, "; analytic {}", figure(a));
            }
            None => line.push_str("; no analytic measure in this mode"),
        }
        if self.clipped {
            line.push_str(", clipped by the grid's faces");
        }
        if self.overlapping {
            line.push_str(", overlapping other shapes");
        }
        line
    }
}

/// A count or a measure with at most three decimals, trailing zeros dropped.
fn figure(x: f64) -> String {
    let text = format!("{x:.3}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    if text == "-0" {
        "0".into()
    } else {
        text.into()
    }
}

/// The volume the grid gives each material of the geometry (in order of first use), per
/// component, beside its shapes' analytic measure: the nodes counted exactly as the backends
/// place materials ([`yee_em::Setup::node_placement`]).
pub fn material_volumes(scene: &Scene) -> Vec<MaterialVolume> {
    let setup = scene.setup();
    let used = scene.mode.active_axes();
    let mut names: Vec<&str> = Vec::new();
    for name in &scene.region_materials {
        if !names.contains(&name.as_str()) {
            names.push(name);
        }
    }
    let index_of: Vec<usize> = scene
        .region_materials
        .iter()
        .map(|n| names.iter().position(|m| m == n).unwrap_or(0))
        .collect();
    if names.is_empty() {
        return Vec::new();
    }
    let components = scene.mode.components();
    let mut counts = vec![vec![0.0; components.len()]; names.len()];
    let (lo, hi) = node_range(scene);
    for (ci, &c) in components.iter().enumerate() {
        for k in lo[2]..hi[2] {
            for j in lo[1]..hi[1] {
                for i in lo[0]..hi[0] {
                    let cell: Index3 = [i, j, k];
                    if !setup.is_active(cell) {
                        continue;
                    }
                    let placement = setup.node_placement(c, cell);
                    let share = 1.0 / placement.sides().len() as f64;
                    for r in placement.sides().iter().flatten() {
                        counts[index_of[*r]][ci] += share;
                    }
                }
            }
        }
    }
    let inside = |shape: &yee_em::Shape| {
        let (lo, hi) = shape.bounds();
        (0..3).all(|a| !used[a] || (lo[a] > 0.0 && hi[a] < scene.grid[a] as f64))
    };
    let overlaps = |r: usize| {
        let (a_lo, a_hi) = scene.regions[r].shape.bounds();
        scene.regions.iter().enumerate().any(|(q, other)| {
            let (b_lo, b_hi) = other.shape.bounds();
            q != r && (0..3).all(|a| !used[a] || (a_lo[a] < b_hi[a] && b_lo[a] < a_hi[a]))
        })
    };
    names
        .iter()
        .enumerate()
        .map(|(m, name)| {
            let regions: Vec<usize> = (0..scene.regions.len())
                .filter(|&r| index_of[r] == m)
                .collect();
            MaterialVolume {
                name: (*name).to_string(),
                grid: components
                    .iter()
                    .copied()
                    .zip(counts[m].iter().copied())
                    .collect(),
                analytic: regions
                    .iter()
                    .map(|&r| scene.regions[r].shape.measure(used))
                    .sum(),
                clipped: regions.iter().any(|&r| !inside(&scene.regions[r].shape)),
                overlapping: regions.iter().any(|&r| overlaps(r)),
            }
        })
        .collect()
}

/// The cells whose nodes any region can reach: the regions' bounding box, a cell wider on each
/// side, within the grid (the whole of a periodic axis, whose low-face nodes see the high face).
fn node_range(scene: &Scene) -> (Index3, Index3) {
    let mut lo = [0i64; 3];
    let mut hi = scene.grid.map(|n| n as i64);
    for a in 0..3 {
        if scene.setup().is_periodic(Axis::ALL[a]) {
            continue;
        }
        let (min, max) = scene
            .regions
            .iter()
            .map(|r| r.shape.bounds())
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(min, max), (l, h)| {
                (min.min(l[a]), max.max(h[a]))
            });
        // Saturating float-to-int casts keep infinite bounds at the grid's ends.
        lo[a] = lo[a].max((min.floor() as i64).saturating_sub(1));
        hi[a] = hi[a].min((max.ceil() as i64).saturating_add(2)).max(lo[a]);
    }
    (lo, hi)
}

/// " = 16 × 32 a" or " = 0.8 × 1.6 m": `cells` as lengths in the scene's units (nothing in
/// normalised scenes, whose lengths are cells).
fn in_lengths(units: &yee_scene::Units, cells: &[usize]) -> String {
    let Some(unit) = length_unit(units) else {
        return String::new();
    };
    let lengths: Vec<String> = (cells.iter())
        .map(|&n| scene_length(units, n as f64))
        .collect();
    format!(" = {} {unit}", lengths.join(" × "))
}

/// The name of a scene's lengths: `a` or `m`; none in scenes in cells.
fn length_unit(units: &yee_scene::Units) -> Option<&'static str> {
    match units {
        yee_scene::Units::Normalised => None,
        yee_scene::Units::Lengths { .. } => Some("a"),
        yee_scene::Units::Si { .. } => Some("m"),
    }
}

/// `cells` in the scene's lengths as a user writes them: 12 significant digits (70 cells of
/// 0.005 m is 0.35, not 0.35000000000000003), a small length with an exponent (3e-6, not
/// 0.000003).
fn scene_length(units: &yee_scene::Units, cells: f64) -> String {
    let x = units.to_scene_length(cells);
    let x: f64 = format!("{x:.11e}").parse().unwrap_or(x);
    match x != 0.0 && x.abs() < 1e-3 {
        true => format!("{x:e}"),
        false => format!("{x}"),
    }
}

/// ", node at [0.15, 0.32] m": where `component`'s node of `cell` lies in the scene's lengths
/// (the point a probe records or a source drives); nothing in scenes in cells.
fn node_in_lengths(scene: &Scene, component: yee_em::Component, cell: [i64; 3]) -> String {
    let Some(unit) = length_unit(&scene.units) else {
        return String::new();
    };
    let node: Vec<String> = component.position(cell)[..scene.mode.dims()]
        .iter()
        .map(|&x| scene_length(&scene.units, x))
        .collect();
    format!(", node at [{}] {unit}", node.join(", "))
}

/// " Hz" in SI scenes; nothing in normalised ones (frequencies in c/Δx).
fn frequency_unit(units: &yee_scene::Units) -> &'static str {
    match units {
        yee_scene::Units::Si { .. } => " Hz",
        yee_scene::Units::Lengths { .. } => " c/a",
        yee_scene::Units::Normalised => "",
    }
}

/// " s" in SI scenes, " a/c" in scenes of lengths in `a`, " Δx/c" in normalised ones.
fn time_unit(units: &yee_scene::Units) -> String {
    format!(" {}", units.time_unit())
}

/// A waveform in the scene's units: frequencies in Hz and times in seconds in SI scenes, in
/// c/Δx and Δx/c in normalised ones.
fn describe_waveform(w: &yee_em::Waveform, units: &yee_scene::Units) -> String {
    let (hz, s) = match units {
        yee_scene::Units::Si { .. } => (" Hz", " s"),
        yee_scene::Units::Lengths { .. } => (" c/a", " a/c"),
        yee_scene::Units::Normalised => ("", ""),
    };
    let f = |x: f64| format!("{:.6e}{hz}", units.to_scene_frequency(x));
    let t = |x: f64| format!("{:.6e}{s}", units.to_scene_time(x));
    match *w {
        yee_em::Waveform::Gaussian {
            delay,
            width,
            frequency,
        } => format!(
            "gaussian: frequency {}, width {}, delay {}",
            f(frequency),
            t(width),
            t(delay)
        ),
        yee_em::Waveform::Ricker { frequency, delay } => {
            format!("ricker: frequency {}, delay {}", f(frequency), t(delay))
        }
        yee_em::Waveform::Sinusoid {
            frequency,
            phase,
            ramp,
        } => format!(
            "sinusoid: frequency {}, phase {phase} rad, ramp {}",
            f(frequency),
            t(ramp)
        ),
    }
}

/// ε, μ and σ of `m`, with the diagonals of an anisotropic one and the tensors of a general
/// one.
fn describe_material(m: &yee_em::Material) -> String {
    if m.coupling.is_some() {
        let rows = |t: [[f64; 3]; 3]| {
            let row = |r: [f64; 3]| format!("[{}, {}, {}]", r[0], r[1], r[2]);
            format!("[{}, {}, {}]", row(t[0]), row(t[1]), row(t[2]))
        };
        return format!(
            "eps {}, mu {}, sigma {}",
            rows(m.full_tensor(true)),
            rows(m.full_tensor(false)),
            m.sigma
        );
    }
    match m.diagonal {
        None => format!("eps {}, mu {}, sigma {}", m.eps, m.mu, m.sigma),
        Some(d) => format!(
            "eps [{}, {}, {}], mu [{}, {}, {}], sigma {}",
            d.eps[0], d.eps[1], d.eps[2], d.mu[0], d.mu[1], d.mu[2], m.sigma
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    const SCENE: &str = r#"
[grid]
mode = "1d"
size = [200]

[materials.glass]
eps = 4.0

[materials.metal]
sigma = 1.0

[[geometry]]
shape = "box"
material = "glass"
lo = [50]
hi = [110]

[[geometry]]
shape = "box"
material = "metal"
lo = [150]
hi = [250]

[[geometry]]
shape = "box"
material = "glass"
lo = [20]
hi = [29.999]

[run]
steps = 1
"#;

    #[test]
    fn each_material_shows_its_grid_volume_beside_the_analytic_one() {
        let scene = yee_scene::parse(Path::new("volumes.toml"), SCENE).expect("valid scene");
        let (text, _) = describe(&scene);
        let lines: Vec<&str> = text.lines().filter(|l| l.starts_with("volume")).collect();
        // glass: 60 cells of [50, 110] for both components; [20, 29.999] gives Ez half a node at
        // 20 and whole ones at 21..=29 (9.5), Hy the nodes 20.5..=29.5 (10).
        // metal: the grid ends at 200, so Ez holds half a node at 150 and 151..=199.
        assert_eq!(
            lines,
            [
                "volume      glass: grid ez 69.5, hy 70 cells; analytic 69.999",
                "volume      metal: grid ez 49.5, hy 50 cells; analytic 100, clipped by the grid's faces",
            ]
        );
    }

    #[test]
    fn equal_counts_are_written_once() {
        let v = MaterialVolume {
            name: "glass".into(),
            grid: vec![(Component::Ez, 60.0), (Component::Hy, 60.0)],
            analytic: Some(60.0),
            clipped: false,
            overlapping: true,
        };
        assert_eq!(
            v.describe(),
            "glass: grid 60 cells (ez, hy); analytic 60, overlapping other shapes"
        );
        assert_eq!(figure(1963.4954084936207), "1963.495");
        assert_eq!(figure(-0.0001), "0");
    }
}
