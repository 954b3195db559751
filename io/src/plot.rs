//! Line plots as PNG (plotters): curves over a shared x axis with a title, axis names with
//! units, a grid, and a legend when there are several curves. Non-finite points break a
//! curve.

use std::path::Path;

use plotters::prelude::*;

use crate::style::{self, FONT};

/// One colour per curve, in order (Tableau 10, its first four as before: blue, red, green,
/// purple).
const COLOURS: [RGBColor; 10] = [
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
}

/// The plot's size in pixels.
pub const SIZE: (u32, u32) = (760, 460);

/// Writes `plot` as an RGB PNG at `path`.
pub fn write_line_plot(path: &Path, plot: &LinePlot) -> std::io::Result<()> {
    let (w, h) = SIZE;
    let mut rgb = vec![255u8; 3 * (w * h) as usize];
    draw(&mut rgb, plot).map_err(style::error)?;
    crate::png::save_rgb(path, w as usize, h as usize, &rgb)
}

fn draw(rgb: &mut [u8], plot: &LinePlot) -> Result<(), Box<dyn std::error::Error>> {
    style::register_font();
    let root = BitMapBackend::with_buffer(rgb, SIZE).into_drawing_area();
    root.fill(&WHITE)?;
    let finite = |v: &&f64| v.is_finite();
    let (x0, x1) = bounds(plot.xs.iter().filter(finite));
    let (y0, y1) = bounds(
        plot.curves
            .iter()
            .flat_map(|(_, ys)| ys.iter())
            .filter(finite),
    );
    let pad = 0.05 * (y1 - y0);
    let mut chart = ChartBuilder::on(&root)
        .caption(plot.title, (FONT, 17))
        .margin(12)
        .x_label_area_size(45)
        .y_label_area_size(80)
        .build_cartesian_2d(x0..x1, y0 - pad..y1 + pad)?;
    chart
        .configure_mesh()
        .light_line_style(WHITE)
        .bold_line_style(RGBColor(225, 225, 225))
        .x_desc(plot.x_label)
        .y_desc(plot.y_label)
        .x_label_formatter(&|v| style::tick_in(*v, x1 - x0))
        .y_label_formatter(&|v| format!("{} ", style::tick_in(*v, y1 - y0)))
        .label_style((FONT, 13))
        .axis_desc_style((FONT, 14))
        .draw()?;
    for (n, (name, ys)) in plot.curves.iter().enumerate() {
        let colour = COLOURS[n % COLOURS.len()];
        // Runs of finite points, each its own line.
        let mut runs: Vec<Vec<(f64, f64)>> = vec![Vec::new()];
        for (&x, &y) in plot.xs.iter().zip(ys.iter()) {
            match x.is_finite() && y.is_finite() {
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
    root.present()?;
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
}
