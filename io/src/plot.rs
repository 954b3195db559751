//! Line plots as PNG (plotters): curves over a shared x axis with a title, axis names with
//! units, a grid, and a legend when there are several curves. Non-finite points break a
//! curve; on a logarithmic y axis so do points at or below zero. Several plots may share one
//! image as panels side by side ([`write_line_plots`]).

use std::path::Path;

use plotters::coord::ranged1d::{Ranged, ValueFormatter};
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;

use crate::style::{self, FONT};

/// One colour per curve, in order (Tableau 10, its first four as before: blue, red, green,
/// purple).
pub const COLOURS: [RGBColor; 10] = [
    RGBColor(31, 119, 180),
    RGBColor(214, 39, 40),
    RGBColor(44, 160, 44),
    RGBColor(148, 103, 189),
    RGBColor(255, 127, 14),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
];

/// The most curves one plot tells apart by colour.
pub const MAX_CURVES: usize = COLOURS.len();

/// A line plot: `curves` (name, y values as long as `xs`) against `xs`.
pub struct LinePlot<'a> {
    /// The title.
    pub title: &'a str,
    /// The x axis's name with its unit, e.g. "frequency (Hz)".
    pub x_label: &'a str,
    /// The y axis's name with its unit.
    pub y_label: &'a str,
    /// The x values.
    pub xs: &'a [f64],
    /// The curves; a legend names them when there are several.
    pub curves: &'a [(&'a str, &'a [f64])],
    /// A logarithmic y axis (magnitudes over decades), reaching from at least four to at most
    /// [`LOG_DECADES`] decades below the largest value.
    pub log_y: bool,
}

/// The plot's size in pixels (each panel's in [`write_line_plots`]).
pub const SIZE: (u32, u32) = (760, 460);

/// How many decades below its largest value a logarithmic y axis reaches at most: below that
/// a spectrum is rounding noise, which would squeeze the signal into the top of the plot.
pub const LOG_DECADES: f64 = 8.0;

/// Writes `plot` as an RGB PNG at `path`.
pub fn write_line_plot(path: &Path, plot: &LinePlot) -> std::io::Result<()> {
    write_line_plots(path, std::slice::from_ref(plot))
}

/// The size in pixels of an image of `panels` plots side by side.
pub fn panels_size(panels: usize) -> (u32, u32) {
    (SIZE.0 * panels.max(1) as u32, SIZE.1)
}

/// Writes `plots` side by side, each a [`SIZE`] panel, as one RGB PNG at `path`.
pub fn write_line_plots(path: &Path, plots: &[LinePlot]) -> std::io::Result<()> {
    let (w, h) = panels_size(plots.len());
    let mut rgb = vec![255u8; 3 * (w * h) as usize];
    draw(&mut rgb, plots).map_err(style::error)?;
    crate::png::save_rgb(path, w as usize, h as usize, &rgb)
}

type Area<'a> = DrawingArea<BitMapBackend<'a>, plotters::coord::Shift>;

fn draw(rgb: &mut [u8], plots: &[LinePlot]) -> Result<(), Box<dyn std::error::Error>> {
    style::register_font();
    let root = BitMapBackend::with_buffer(rgb, panels_size(plots.len())).into_drawing_area();
    root.fill(&WHITE)?;
    for (area, plot) in root.split_evenly((1, plots.len().max(1))).iter().zip(plots) {
        draw_panel(area, plot)?;
    }
    root.present()?;
    Ok(())
}

fn draw_panel(area: &Area, plot: &LinePlot) -> Result<(), Box<dyn std::error::Error>> {
    let shown = |v: &&f64| v.is_finite() && (!plot.log_y || **v > 0.0);
    let (x0, x1) = bounds(plot.xs.iter().filter(|v| v.is_finite()));
    let ys = plot
        .curves
        .iter()
        .flat_map(|(_, ys)| ys.iter())
        .filter(shown);
    let mut builder = ChartBuilder::on(area);
    builder
        .caption(plot.title, (FONT, 17))
        .margin(12)
        .x_label_area_size(45)
        .y_label_area_size(80);
    if plot.log_y {
        let (lo, hi) = ys.fold((f64::INFINITY, 0.0f64), |(lo, hi), &v| {
            (lo.min(v), hi.max(v))
        });
        let top = if hi > 0.0 { hi } else { 1.0 };
        // At least four decades, so that four or more of them are labelled.
        let bottom = lo.min(top * 1e-4).max(top * 10f64.powf(-LOG_DECADES));
        let margin = 10f64.powf(1.0 / 3.0);
        // Plotted in units of a power of ten near the top: plotters' logarithmic axis takes
        // values within f64::EPSILON of 0 for 0 and leaves their ticks out.
        let unit = 10f64.powf(top.log10().floor());
        let (y0, y1) = (bottom / margin / unit, top * margin / unit);
        let mut chart = builder.build_cartesian_2d(x0..x1, (y0..y1).log_scale())?;
        let tick = |v: &f64| format!("{:.0e} ", v * unit);
        finish(&mut chart, plot, x1 - x0, (y0, unit), &tick)?;
        return Ok(());
    }
    let (y0, y1) = bounds(ys);
    let pad = 0.05 * (y1 - y0);
    let mut chart = builder.build_cartesian_2d(x0..x1, y0 - pad..y1 + pad)?;
    finish(&mut chart, plot, x1 - x0, (f64::NEG_INFINITY, 1.0), &|v| {
        format!("{} ", style::tick_in(*v, y1 - y0))
    })?;
    Ok(())
}

/// Draws the mesh, the curves and the legend of `plot` on `chart`, each y value divided by
/// `unit`, with y ticks written by `y_tick`; points below `floor` (the bottom of a logarithmic
/// axis, in units of `unit`) break a curve.
fn finish<'a, Y>(
    chart: &mut ChartContext<'a, BitMapBackend<'a>, Cartesian2d<RangedCoordf64, Y>>,
    plot: &LinePlot,
    x_span: f64,
    (floor, unit): (f64, f64),
    y_tick: &dyn Fn(&f64) -> String,
) -> Result<(), Box<dyn std::error::Error>>
where
    Y: Ranged<ValueType = f64> + ValueFormatter<f64>,
{
    chart
        .configure_mesh()
        .light_line_style(WHITE)
        .bold_line_style(RGBColor(225, 225, 225))
        .x_desc(plot.x_label)
        .y_desc(plot.y_label)
        .x_label_formatter(&|v| style::tick_in(*v, x_span))
        .y_label_formatter(y_tick)
        .label_style((FONT, 13))
        .axis_desc_style((FONT, 14))
        .draw()?;
    for (n, (name, ys)) in plot.curves.iter().enumerate() {
        let colour = COLOURS[n % COLOURS.len()];
        // Runs of drawable points, each its own line.
        let mut runs: Vec<Vec<(f64, f64)>> = vec![Vec::new()];
        for (&x, &y) in plot.xs.iter().zip(ys.iter()) {
            let y = y / unit;
            match x.is_finite() && y.is_finite() && y >= floor && (!plot.log_y || y > 0.0) {
                true => runs.last_mut().expect("never empty").push((x, y)),
                false => runs.push(Vec::new()),
            }
        }
        let mut first = true;
        for run in runs.into_iter().filter(|r| !r.is_empty()) {
            let series = chart.draw_series(LineSeries::new(run, colour.stroke_width(2)))?;
            if first && plot.curves.len() > 1 {
                series.label(*name).legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 18, y)], colour.stroke_width(2))
                });
            }
            first = false;
        }
    }
    if plot.curves.len() > 1 {
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperRight)
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .label_font((FONT, 13))
            .draw()?;
    }
    Ok(())
}

/// The range of `values`, widened when empty or flat.
fn bounds<'a>(values: impl Iterator<Item = &'a f64>) -> (f64, f64) {
    let (lo, hi) = values.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &v| {
        (lo.min(v), hi.max(v))
    });
    if !(lo.is_finite() && hi.is_finite()) {
        return (0.0, 1.0);
    }
    if hi - lo <= f64::EPSILON * hi.abs().max(1.0) {
        return (lo - 0.5, hi + 0.5);
    }
    (lo, hi)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plot_decodes_with_its_curves_drawn() {
        let dir = std::env::temp_dir().join(format!("yee-plot-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("p.png");
        let xs: Vec<f64> = (0..200).map(|i| i as f64 * 0.01).collect();
        let ys: Vec<f64> = xs.iter().map(|x| (10.0 * x).sin()).collect();
        let zs: Vec<f64> = xs
            .iter()
            .map(|x| if *x < 1.0 { x.cos() } else { f64::NAN })
            .collect();
        let plot = LinePlot {
            title: "probe a",
            x_label: "time (s)",
            y_label: "ez (V/m)",
            xs: &xs,
            curves: &[("sin", &ys), ("cos", &zs)],
            log_y: false,
        };
        write_line_plot(&path, &plot).unwrap();
        let (w, h, buf) = crate::png::read_rgb(&path).unwrap();
        assert_eq!((w, h), SIZE);
        let count = |c: RGBColor| {
            buf.chunks(3)
                .filter(|p| p[0] == c.0 && p[1] == c.1 && p[2] == c.2)
                .count()
        };
        assert!(count(COLOURS[0]) > 500, "the first curve is drawn");
        assert!(count(COLOURS[1]) > 200, "the second curve is drawn");
        let white = buf.chunks(3).filter(|p| p == &[255, 255, 255]).count();
        assert!(white > buf.len() / 3 / 2, "mostly background");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Pixels of `colour` in columns `[x0, x1)` of an RGB image `w` wide.
    fn count_in(buf: &[u8], w: usize, (x0, x1): (usize, usize), colour: RGBColor) -> usize {
        buf.chunks(3)
            .enumerate()
            .filter(|(i, p)| {
                (x0..x1).contains(&(i % w))
                    && p[0] == colour.0
                    && p[1] == colour.1
                    && p[2] == colour.2
            })
            .count()
    }

    #[test]
    fn two_panels_side_by_side_each_with_its_curve_and_a_log_axis_over_decades() {
        let dir = std::env::temp_dir().join(format!("yee-panels-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("p.png");
        let ts: Vec<f64> = (0..300).map(|i| i as f64).collect();
        let trace: Vec<f64> = ts.iter().map(|t| (0.2 * t).sin()).collect();
        let fs: Vec<f64> = (0..200).map(|i| i as f64 * 0.005).collect();
        // Twelve decades from 1e-14 down, and a zero: the axis shows LOG_DECADES of them, the
        // zero breaks the curve.
        let spectrum: Vec<f64> = fs
            .iter()
            .map(|f| match *f == 0.5 {
                true => 0.0,
                false => 1e-14 * (-120.0 * (f - 0.3f64).powi(2)).exp(),
            })
            .collect();
        let panels = [
            LinePlot {
                title: "trace",
                x_label: "time",
                y_label: "ez",
                xs: &ts,
                curves: &[("ez", &trace)],
                log_y: false,
            },
            LinePlot {
                title: "spectrum",
                x_label: "frequency",
                y_label: "|ez|",
                xs: &fs,
                curves: &[("ez", &spectrum)],
                log_y: true,
            },
        ];
        write_line_plots(&path, &panels).unwrap();
        let (w, h, buf) = crate::png::read_rgb(&path).unwrap();
        assert_eq!((w, h), panels_size(2));
        assert_eq!(panels_size(2), (2 * SIZE.0, SIZE.1));
        let (w, half) = (w as usize, w as usize / 2);
        let left = count_in(&buf, w, (0, half), COLOURS[0]);
        let right = count_in(&buf, w, (half, w), COLOURS[0]);
        assert!(
            left > 500 && right > 300,
            "left {left}, right {right} pixels of curve"
        );
        // A horizontal grid line per decade on the right: rows mostly of the grid's grey.
        let grey = RGBColor(225, 225, 225);
        let lines = (0..h as usize)
            .filter(|&y| {
                let row = &buf[3 * (y * w + half)..3 * (y * w + w)];
                row.chunks(3)
                    .filter(|p| p == &[grey.0, grey.1, grey.2])
                    .count()
                    > 300
            })
            .count();
        assert!(lines > LOG_DECADES as usize, "{lines} decades drawn");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
