//! A B-scan (radargram) as a PNG: one column per trace at its position along the scan, time
//! running down from the top, Moreland's diverging map with symmetric limits and its colour
//! bar (the colours and bar of [`crate::slice_plot`]). Position and time have different units,
//! so the image fills the plotting area rather than keeping square cells.

use std::path::Path;

use plotters::prelude::*;

use crate::png::colour_limit;
use crate::slice_plot::{ColourMap, colour_bar, map_colour};
use crate::style::{self, FONT};

/// The traces of a B-scan: `traces` rows of `samples` values, trace after trace.
pub struct BscanPlot<'a> {
    /// The title.
    pub title: &'a str,
    /// The values, `values[trace * samples + sample]`.
    pub values: &'a [f64],
    /// How many traces.
    pub traces: usize,
    /// Samples per trace.
    pub samples: usize,
    /// The positions of the first and the last trace along the scan (in the x label's unit).
    pub positions: (f64, f64),
    /// The position axis's name with its unit, e.g. "receiver x (m)".
    pub x_label: &'a str,
    /// The times of the first and the last sample (in the time label's unit).
    pub times: (f64, f64),
    /// The time axis's name with its unit, e.g. "time (ns)".
    pub time_label: &'a str,
    /// The colour bar's label.
    pub bar_label: &'a str,
}

/// The plot's size in pixels.
pub const SIZE: (u32, u32) = (760, 560);
/// Pixels right of the image: the colour bar.
const RIGHT: u32 = 150;

/// Writes `plot` as an RGB PNG at `path`.
pub fn write_bscan_plot(path: &Path, plot: &BscanPlot) -> std::io::Result<()> {
    let (w, h) = SIZE;
    let mut rgb = vec![255u8; 3 * (w * h) as usize];
    draw(&mut rgb, plot).map_err(style::error)?;
    crate::png::save_rgb(path, w as usize, h as usize, &rgb)
}

/// `(lo, hi)` widened by half a step at each end (or by ½ when they are equal), so that each
/// trace or sample owns the interval around its own value.
fn widened((lo, hi): (f64, f64), n: usize) -> (f64, f64) {
    let half = match n > 1 && hi != lo {
        true => 0.5 * (hi - lo) / (n - 1) as f64,
        false => 0.5,
    };
    (lo - half, hi + half)
}

fn draw(rgb: &mut [u8], plot: &BscanPlot) -> Result<(), Box<dyn std::error::Error>> {
    style::register_font();
    let (n, m) = (plot.traces.max(1), plot.samples.max(1));
    if plot.values.len() < plot.traces * plot.samples {
        return Err("fewer values than traces × samples".into());
    }
    let root = BitMapBackend::with_buffer(rgb, SIZE).into_drawing_area();
    root.fill(&WHITE)?;
    let (image, bar) = root.split_horizontally(SIZE.0 - RIGHT + 30);
    let (x0, x1) = widened(plot.positions, n);
    // Time runs down: the chart's y is minus the time.
    let (t0, t1) = widened(plot.times, m);
    let mut chart = ChartBuilder::on(&image)
        .caption(plot.title, (FONT, 17))
        .margin_top(8)
        .margin_left(12)
        .margin_right(30)
        .x_label_area_size(45)
        .y_label_area_size(72)
        .build_cartesian_2d(x0.min(x1)..x0.max(x1), -t1..-t0)?;
    let x_ticks = |v: &f64| style::tick_in(*v, x1 - x0);
    let y_ticks = |v: &f64| format!("{} ", style::tick_in(-*v, t1 - t0));
    chart
        .configure_mesh()
        .disable_mesh()
        .x_desc(plot.x_label)
        .y_desc(plot.time_label)
        .x_label_formatter(&x_ticks)
        .y_label_formatter(&y_ticks)
        .x_labels(8)
        .y_labels(10)
        .label_style((FONT, 13))
        .axis_desc_style((FONT, 14))
        .draw()?;
    let (xr, yr) = chart.plotting_area().get_pixel_range();
    let (pw, ph) = ((xr.end - xr.start) as u32, (yr.end - yr.start) as u32);
    let limits = match colour_limit(plot.values) {
        l if l > 0.0 => (-l, l),
        _ => (-1.0, 1.0),
    };
    let mut pixels = vec![0u8; 3 * (pw * ph) as usize];
    // Positions may run either way: the first trace is at x0's side when x0 < x1.
    let forward = plot.positions.1 >= plot.positions.0;
    for py in 0..ph {
        let sample = (((py as f64 + 0.5) / ph as f64) * m as f64) as usize;
        for px in 0..pw {
            let column = (((px as f64 + 0.5) / pw as f64) * n as f64) as usize;
            let column = column.min(n - 1);
            let trace = if forward { column } else { n - 1 - column };
            let v = plot.values[trace * plot.samples + sample.min(m - 1)];
            let o = 3 * (py * pw + px) as usize;
            pixels[o..o + 3].copy_from_slice(&map_colour(ColourMap::Diverging, limits, v));
        }
    }
    chart.draw_series(std::iter::once(
        BitMapElement::with_owned_buffer((x0.min(x1), -t0), (pw, ph), pixels)
            .ok_or("the image does not fit its buffer")?,
    ))?;
    colour_bar(
        &bar,
        ColourMap::Diverging,
        plot.bar_label,
        limits,
        (yr.start, yr.end),
    )?;
    root.present()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bscan_is_drawn_with_time_down() {
        // Two traces, the second positive late: its colour is red at the bottom right.
        let (traces, samples) = (2, 50);
        let mut values = vec![0.0; traces * samples];
        for s in 40..50 {
            values[samples + s] = 1.0;
        }
        let path = std::env::temp_dir().join("yee-io-bscan-plot-test.png");
        let plot = BscanPlot {
            title: "b-scan",
            values: &values,
            traces,
            samples,
            positions: (0.0, 1.0),
            x_label: "x (m)",
            times: (0.0, 49.0),
            time_label: "time (ns)",
            bar_label: "ez",
        };
        write_bscan_plot(&path, &plot).unwrap();
        let (w, h, rgb) = crate::png::read_rgb(&path).unwrap();
        assert_eq!((w, h), SIZE);
        let mut rgb_full = vec![255u8; 3 * (w * h) as usize];
        draw(&mut rgb_full, &plot).unwrap();
        assert_eq!(rgb, rgb_full);
        // The image's pixel range: find red pixels; they lie in the right half, low down.
        let red: Vec<(u32, u32)> = (0..h)
            .flat_map(|y| (0..w).map(move |x| (x, y)))
            .filter(|&(x, y)| {
                let o = 3 * (y * w + x) as usize;
                rgb[o] > 150 && rgb[o + 2] < 80 && x < w - RIGHT
            })
            .collect();
        assert!(!red.is_empty());
        let (mx, my) = red.iter().fold((0u64, 0u64), |(a, b), &(x, y)| {
            (a + u64::from(x), b + u64::from(y))
        });
        let (mx, my) = (mx / red.len() as u64, my / red.len() as u64);
        assert!(mx > u64::from(w - RIGHT) / 2, "red at x {mx}");
        assert!(my > u64::from(h) * 2 / 3, "red at y {my}");
    }
}
