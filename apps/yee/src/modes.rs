//! `yee modes SCENE.toml --plane x=POS --frequency F --count N`: the guided modes of a
//! cross-section of the scene without running it (docs/modes.md), from the mode solver of
//! `yee-modes` on the plane's ε and μ as the grid places them. Prints each mode's effective
//! index, group index and TE fraction; writes `modes.csv` and, per mode, a plot of |E| and one
//! of its dominant component (`mode_<k>_e.png`, `mode_<k>_<component>.png`).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use yee_core::Axis;
use yee_io::plot::{LinePlot, write_line_plot};
use yee_io::slice_plot::{ColourMap, SlicePlot, write_slice_plot};
use yee_modes::{CrossSection, ModeOptions, Parity, WaveguideMode, solve};
use yee_scene::Scene;

use crate::error::{AppError, io_error};
use crate::plane_plot::length_unit;

/// `yee modes`.
#[derive(Debug, clap::Args)]
pub struct ModesArgs {
    /// The scene file (TOML).
    pub scene: PathBuf,
    /// The cross-section: its normal (the direction of propagation) and where it lies along
    /// it, in scene units, e.g. `x=10` (the plane of the cells that hold that coordinate). 2D
    /// scenes: x or y.
    #[arg(long)]
    pub plane: String,
    /// The frequency, in scene units (as the scene's `frequency` keys).
    #[arg(long)]
    pub frequency: f64,
    /// How many modes, highest effective index first.
    #[arg(long, default_value_t = 1)]
    pub count: usize,
    /// The FDTD grid's own dispersion in time and along the normal: the modes of the
    /// discretised equations, which a run at the scene's time step carries unchanged (default:
    /// the continuous equations along the normal, only the plane discretised).
    #[arg(long)]
    pub grid_dispersion: bool,
    /// Only the modes of one mirror parity about the plane's centre, as a scene's `parity` key
    /// (`even_y`, `odd_z`, `te`, `even_y+odd_z`, …; docs/modes.md): numbered among themselves.
    #[arg(long)]
    pub parity: Option<String>,
    /// Output directory (default: out/<scene name>/).
    #[arg(long)]
    pub out: Option<PathBuf>,
}

/// One row of `modes.csv` and of the printed table.
#[derive(Clone, Debug, PartialEq)]
pub struct ModeRow {
    /// Its number, from 0 (highest n_eff).
    pub number: usize,
    /// Effective index.
    pub n_eff: f64,
    /// Group index.
    pub group_index: f64,
    /// The fraction of the transverse |E|² along the TE axis ([`te_axis`]).
    pub te_fraction: f64,
    /// The component of largest Σ|E|², its name.
    pub dominant: &'static str,
}

/// The axis and the cell index of `--plane AXIS=POSITION` (position in scene units).
pub fn parse_plane(scene: &Scene, text: &str) -> Result<(Axis, usize), AppError> {
    let bad = |why: String| AppError::Usage(format!("--plane {text}: {why}"));
    let (axis, position) = text
        .split_once('=')
        .ok_or_else(|| bad("expected AXIS=POSITION, e.g. x=10".into()))?;
    let axis = match axis.trim() {
        "x" => Axis::X,
        "y" => Axis::Y,
        "z" => Axis::Z,
        other => return Err(bad(format!("the axis `{other}` is not x, y or z"))),
    };
    let position: f64 = position.trim().parse().map_err(|_| {
        bad(format!(
            "the position `{}` is not a number",
            position.trim()
        ))
    })?;
    if !scene.mode.active_axes()[axis.index()] || scene.mode.dims() == 1 {
        return Err(bad(format!(
            "a {} scene's modes propagate along {}",
            scene.mode.name(),
            match scene.mode.dims() {
                1 => "no axis (a 1D scene has no cross-section)",
                _ => "x or y",
            }
        )));
    }
    let n = scene.grid[axis.index()];
    let i = scene.units.length(position).floor();
    if !(i >= 0.0 && i < n as f64) {
        return Err(bad(format!(
            "{position} lies outside the grid along {} ({n} cells)",
            axis.name()
        )));
    }
    Ok((axis, i as usize))
}

/// The axis whose share of the transverse E is the TE fraction: the first of the plane's two
/// axes in x, y, z order in 3D (the guide's width for a guide along z in the xy plane, or along
/// x with its width along y); z in 2D (E parallel to the faces of a slab in the plane).
pub fn te_axis(scene: &Scene, normal: Axis) -> Axis {
    match scene.mode.dims() {
        3 => Axis::ALL
            .into_iter()
            .find(|&a| a != normal)
            .unwrap_or(Axis::X),
        _ => Axis::Z,
    }
}

/// `yee modes`: solves, prints, writes (module docs).
pub fn command(args: &ModesArgs) -> Result<Vec<ModeRow>, AppError> {
    let scene = yee_scene::load(&args.scene)?;
    let (normal, index) = parse_plane(&scene, &args.plane)?;
    if !(args.frequency.is_finite() && args.frequency > 0.0) {
        return Err(AppError::Usage(format!(
            "--frequency {}: a mode's frequency is positive",
            args.frequency
        )));
    }
    if args.count == 0 {
        return Err(AppError::Usage(
            "--count 0: ask for at least one mode".into(),
        ));
    }
    let parity = match &args.parity {
        Some(text) => Parity {
            even: yee_scene::mode_parity::parse(text, normal)
                .map_err(|e| AppError::Usage(format!("--parity {e}")))?,
        },
        None => Parity::default(),
    };
    let f = scene.units.frequency(args.frequency);
    let time_step = args.grid_dispersion.then(|| scene.dt());
    let setup = scene.setup();
    let usage = |e: yee_modes::ModeError| AppError::Usage(format!("{}: {e}", args.scene.display()));
    let cs = CrossSection::of_setup(&setup, normal, index, f, time_step).map_err(usage)?;
    let options = ModeOptions {
        frequency: f,
        count: args.count,
        time_step,
        parity,
    };
    let modes = solve(&cs, &options).map_err(usage)?;
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from("out").join(&scene.name));
    std::fs::create_dir_all(&out)
        .map_err(|e| io_error(&out, format!("cannot create the output directory: {e}")))?;
    let te = te_axis(&scene, normal);
    let rows: Vec<ModeRow> = modes
        .iter()
        .enumerate()
        .map(|(k, m)| row(k, m, te, normal))
        .collect();
    print!("{}", table(&scene, &args.plane, args.frequency, &cs, &rows));
    let csv = out.join("modes.csv");
    yee_io::atomic::write(&csv, csv_text(&rows)).map_err(|e| io_error(&csv, e))?;
    println!("{}", csv.display());
    for (m, r) in modes.iter().zip(&rows) {
        for path in write_plots(&scene, &cs, m, r, &out)? {
            println!("{}", path.display());
        }
    }
    Ok(rows)
}

/// The row of mode `k`.
fn row(k: usize, m: &WaveguideMode, te: Axis, normal: Axis) -> ModeRow {
    let power = |c: usize| m.fields.e[c].iter().map(|x| x.norm_sqr()).sum::<f64>();
    let other = Axis::ALL
        .into_iter()
        .find(|&a| a != te && a != normal)
        .unwrap_or(Axis::X);
    let (a, b) = (power(te.index()), power(other.index()));
    let dominant = (0..3)
        .max_by(|&x, &y| power(x).total_cmp(&power(y)))
        .unwrap_or(0);
    ModeRow {
        number: k,
        n_eff: m.n_eff,
        group_index: m.group_index,
        te_fraction: if a + b > 0.0 { a / (a + b) } else { 0.0 },
        dominant: ["ex", "ey", "ez"][dominant],
    }
}

/// The printed table.
fn table(
    scene: &Scene,
    plane: &str,
    frequency: f64,
    cs: &CrossSection,
    rows: &[ModeRow],
) -> String {
    let mut text = format!(
        "{}: modes of the plane {plane} at frequency {frequency}\n",
        scene.name
    );
    if cs.loss_tangent > 0.0 {
        let _ = writeln!(
            text,
            "note: losses left out (largest |Im ε|/Re ε on the plane {:.2e})",
            cs.loss_tangent
        );
    }
    let _ = writeln!(
        text,
        "mode  n_eff        n_g          TE fraction  polarisation"
    );
    for r in rows {
        let _ = writeln!(
            text,
            "{:<5} {:<12.8} {:<12.8} {:<12.4} {}",
            r.number,
            r.n_eff,
            r.group_index,
            r.te_fraction,
            if r.te_fraction >= 0.5 {
                "TE-like"
            } else {
                "TM-like"
            }
        );
    }
    text
}

/// `modes.csv`.
pub fn csv_text(rows: &[ModeRow]) -> String {
    let mut text = String::from("mode,n_eff,group_index,te_fraction,dominant\n");
    for r in rows {
        let _ = writeln!(
            text,
            "{},{:.12},{:.12},{:.6},{}",
            r.number, r.n_eff, r.group_index, r.te_fraction, r.dominant
        );
    }
    text
}

/// The values of one component (or of |E|) at the plane's cells, in the order of the plots:
/// across the first of the plane's axes in x, y, z order fastest.
fn plot_values(
    cs: &CrossSection,
    value: impl Fn(usize) -> f64,
) -> ([Axis; 2], [usize; 2], Vec<f64>) {
    let [u, v] = cs.axes;
    let [nu, nv] = cs.size;
    if u.index() < v.index() {
        return ([u, v], [nu, nv], (0..nu * nv).map(value).collect());
    }
    let values = (0..nu)
        .flat_map(|i| (0..nv).map(move |j| (i, j)))
        .map(|(i, j)| value(i + nu * j))
        .collect();
    ([v, u], [nv, nu], values)
}

/// Mode `r`'s plots: |E| and its dominant E component (the real part of a transverse
/// component, the imaginary part of the longitudinal one).
fn write_plots(
    scene: &Scene,
    cs: &CrossSection,
    m: &WaveguideMode,
    r: &ModeRow,
    out: &Path,
) -> Result<Vec<PathBuf>, AppError> {
    let e = &m.fields.e;
    let c = ["ex", "ey", "ez"]
        .iter()
        .position(|&n| n == r.dominant)
        .unwrap_or(0);
    let magnitude = |k: usize| (0..3).map(|a| e[a][k].norm_sqr()).sum::<f64>().sqrt();
    let component = |k: usize| e[c][k].re + e[c][k].im;
    let mut paths = Vec::new();
    for (name, label, map, values) in [
        (
            "e",
            "|E|".to_string(),
            ColourMap::Sequential,
            plot_values(cs, magnitude),
        ),
        (
            r.dominant,
            capitalised(r.dominant),
            ColourMap::Diverging,
            plot_values(cs, component),
        ),
    ] {
        let path = out.join(format!("mode_{}_{name}.png", r.number));
        let title = format!(
            "{}: mode {}, n_eff = {:.5}, {label}",
            scene.name, r.number, r.n_eff
        );
        let (axes, size, values) = values;
        let written = if scene.mode.dims() == 3 {
            write_slice_plot(
                &path,
                &SlicePlot {
                    size,
                    values: &values,
                    title: &title,
                    axis_names: axes.map(Axis::name),
                    unit: length_unit(scene),
                    map,
                    limits: None,
                    bar_label: &label,
                    outlines: None,
                    active: None,
                    marks: &[],
                },
            )
        } else {
            let across = if cs.active[0] { 0 } else { 1 };
            let unit = length_unit(scene);
            let xs: Vec<f64> = (0..values.len())
                .map(|i| i as f64 * unit.per_cell)
                .collect();
            write_line_plot(
                &path,
                &LinePlot {
                    title: &title,
                    x_label: &format!("{} ({})", cs.axes[across].name(), unit.name),
                    y_label: &label,
                    xs: &xs,
                    curves: &[(label.as_str(), &values)],
                    log_y: false,
                },
            )
        };
        written.map_err(|e| io_error(&path, e))?;
        paths.push(path);
    }
    Ok(paths)
}

/// "ex" → "Ex".
fn capitalised(name: &str) -> String {
    let mut c = name.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}
