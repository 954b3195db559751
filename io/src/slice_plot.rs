//! A plane of values as a PNG plot (plotters): the cells as pixels (nearest neighbour, scaled
//! up for small grids), axes with ticks in cells or metres, a title, a colour bar, and
//! optionally material outlines, masked cells and marked boxes with a legend. Fields use
//! Moreland's diverging map with symmetric or fixed limits; geometry a sequential one.

use std::path::Path;

use plotters::coord::Shift;
use plotters::prelude::*;

use crate::png::{colour, colour_limit};
use crate::style::{self, FONT};

/// How values become colours.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ColourMap {
    /// Moreland's cool–warm map between `lo` (blue) and `hi` (red), grey in the middle.
    Diverging,
    /// White to dark blue from `lo` to `hi`: ε and other non-negative quantities.
    Sequential,
}

/// The lengths along a plot's axes: `per_cell` of `unit` per cell.
#[derive(Clone, Debug, PartialEq)]
pub struct LengthUnit {
    /// "cells", "m", "mm", "µm" or "nm".
    pub name: &'static str,
    /// The length of a cell in that unit.
    pub per_cell: f64,
}

impl LengthUnit {
    /// Cells (normalised scenes).
    pub const CELLS: LengthUnit = LengthUnit {
        name: "cells",
        per_cell: 1.0,
    };

    /// The unit, of m, mm, µm and nm, in which `cells` cells of `cell_size` metres read as a
    /// number between 1 and 1000 (SI scenes).
    pub fn si(cell_size: f64, cells: usize) -> LengthUnit {
        let extent = cell_size * cells.max(1) as f64;
        let (name, scale) = [("m", 1.0), ("mm", 1e-3), ("µm", 1e-6), ("nm", 1e-9)]
            .into_iter()
            .find(|&(_, s)| extent >= s)
            .unwrap_or(("nm", 1e-9));
        LengthUnit {
            name,
            per_cell: cell_size / scale,
        }
    }
}

/// A box drawn over the plot: cells `lo ≤ (u, v) < hi`.
#[derive(Clone, Debug, PartialEq)]
pub struct PlotMark {
    /// Lower corner in cells.
    pub lo: [f64; 2],
    /// Upper corner in cells.
    pub hi: [f64; 2],
    /// Its colour.
    pub colour: [u8; 3],
    /// Filled translucently (layers) rather than outlined (sources, probes, monitors).
    pub filled: bool,
    /// The legend's entry: given on the first mark of each kind.
    pub legend: Option<String>,
}

/// A plane of values: `size[0]` cells across, `size[1]` up, across fastest, bottom row first.
pub struct SlicePlot<'a> {
    /// Cells across and up.
    pub size: [usize; 2],
    /// The values.
    pub values: &'a [f64],
    /// The title.
    pub title: &'a str,
    /// The names of the axes across and up, e.g. `["x", "y"]`.
    pub axis_names: [&'a str; 2],
    /// The unit of the axes.
    pub unit: LengthUnit,
    /// The colour map.
    pub map: ColourMap,
    /// Fixed colour limits; `None`: symmetric at the 99.5th percentile of |v| (diverging) or
    /// the values' range (sequential).
    pub limits: Option<(f64, f64)>,
    /// The colour bar's label.
    pub bar_label: &'a str,
    /// Per-cell labels (e.g. material numbers): a line is drawn between cells that differ.
    pub outlines: Option<&'a [f64]>,
    /// Per-cell 0/1: cells at 0 are drawn dark grey (masked out).
    pub active: Option<&'a [f64]>,
    /// Boxes drawn over the image.
    pub marks: &'a [PlotMark],
}

/// The grey of masked cells.
const MASKED: [u8; 3] = [70, 70, 70];
/// Pixels left of, right of, above and below the image (axes, colour bar, title).
const LEFT: u32 = 80;
const RIGHT: u32 = 150;
const TOP: u32 = 40;
const BOTTOM: u32 = 55;

/// Cells are drawn as squares of this many pixels: images are roughly 300–600 px across.
fn pixel_scale(size: [usize; 2]) -> u32 {
    let largest = size[0].max(size[1]).max(1);
    (600 / largest).clamp(1, 16) as u32
}

/// The size in pixels of the plot of a plane of `size` cells.
pub fn image_size(size: [usize; 2]) -> (u32, u32) {
    let s = pixel_scale(size);
    let (w, h) = (size[0] as u32 * s, (size[1] as u32 * s).max(160));
    (LEFT + w + RIGHT, TOP + h + BOTTOM)
}

/// The colour limits of `plot`.
pub fn limits(plot: &SlicePlot) -> (f64, f64) {
    if let Some(l) = plot.limits {
        return l;
    }
    match plot.map {
        ColourMap::Diverging => {
            let l = colour_limit(plot.values);
            if l > 0.0 { (-l, l) } else { (-1.0, 1.0) }
        }
        ColourMap::Sequential => {
            let finite = plot.values.iter().copied().filter(|v| v.is_finite());
            let lo = finite.clone().fold(f64::INFINITY, f64::min);
            let hi = finite.fold(f64::NEG_INFINITY, f64::max);
            match (lo.is_finite(), hi > lo) {
                (true, true) => (lo, hi),
                // Flat: the value at the light end (vacuum's ε of 1 is white).
                (true, false) => (lo, lo + lo.abs().max(1.0)),
                _ => (0.0, 1.0),
            }
        }
    }
}

/// The colour of `v` with limits `(lo, hi)`.
pub fn map_colour(map: ColourMap, (lo, hi): (f64, f64), v: f64) -> [u8; 3] {
    let t = ((v - lo) / (hi - lo)).clamp(0.0, 1.0);
    let t = if t.is_nan() { 0.5 } else { t };
    match map {
        ColourMap::Diverging => colour(2.0 * t - 1.0),
        // White to Tableau's dark blue.
        ColourMap::Sequential => {
            let (a, b) = ([255.0, 255.0, 255.0], [8.0, 48.0, 107.0]);
            std::array::from_fn(|k| (a[k] + t * (b[k] - a[k])).round() as u8)
        }
    }
}

/// A rendered plot: `size` pixels, RGB rows from the top, and the pixel ranges (x, y) of the
/// image of the cells.
pub struct Rendered {
    /// Width and height in pixels.
    pub size: (u32, u32),
    /// 3 bytes per pixel, top row first.
    pub rgb: Vec<u8>,
    /// The columns and rows the cells are drawn in.
    pub cells: (std::ops::Range<i32>, std::ops::Range<i32>),
}

/// Renders `plot`.
pub fn render(plot: &SlicePlot) -> std::io::Result<Rendered> {
    let (w, h) = image_size(plot.size);
    let mut rgb = vec![255u8; 3 * (w * h) as usize];
    let cells = draw(&mut rgb, (w, h), plot).map_err(style::error)?;
    Ok(Rendered {
        size: (w, h),
        rgb,
        cells,
    })
}

/// Renders `plot` and writes it as an RGB PNG at `path`.
pub fn write_slice_plot(path: &Path, plot: &SlicePlot) -> std::io::Result<()> {
    let r = render(plot)?;
    crate::png::save_rgb(path, r.size.0 as usize, r.size.1 as usize, &r.rgb)
}

type PixelRanges = (std::ops::Range<i32>, std::ops::Range<i32>);

fn draw(
    rgb: &mut [u8],
    (w, h): (u32, u32),
    plot: &SlicePlot,
) -> Result<PixelRanges, Box<dyn std::error::Error>> {
    style::register_font();
    let root = BitMapBackend::with_buffer(rgb, (w, h)).into_drawing_area();
    root.fill(&WHITE)?;
    let (image, bar) = root.split_horizontally(w - RIGHT + 30);
    let [nu, nv] = plot.size;
    let per = plot.unit.per_cell;
    let (x1, y1) = (nu as f64 * per, nv as f64 * per);
    // Cells are square: the plotting area is cut to the plane's aspect (a 230 × 20 plane is a
    // strip, not a stretched box), the spare pixels left as margins. A line of cells (a 1D
    // grid) has no second extent and keeps the full height.
    let (pw, ph) = plotting_area((w, h), plot, (x1, y1))?;
    let (spare_w, spare_h) = match nv > 1 {
        true => {
            let cell = (pw as f64 / nu as f64).min(ph as f64 / nv as f64);
            let spare = |p: u32, n: usize| p.saturating_sub((cell * n as f64).round() as u32);
            (spare(pw, nu), spare(ph, nv))
        }
        false => (0, 0),
    };
    // As many tick labels as fit: one per 70 pixels across, per 30 up.
    let ticks = |pixels: u32, per: u32| ((pixels / per) as usize).clamp(2, 10);
    let (x_ticks_n, y_ticks_n) = (ticks(pw - spare_w, 70), ticks(ph - spare_h, 30));
    let mut chart = ChartBuilder::on(&image)
        .caption(plot.title, (FONT, 17))
        .margin_top(8 + spare_h / 2)
        .margin_bottom(spare_h - spare_h / 2)
        .margin_right(30 + spare_w)
        .x_label_area_size(BOTTOM - 10)
        .y_label_area_size(LEFT - 10)
        .build_cartesian_2d(0.0..x1, 0.0..y1)?;
    let x_ticks = |v: &f64| style::tick_in(*v, x1);
    let y_ticks = |v: &f64| format!("{} ", style::tick_in(*v, y1));
    let mut mesh = chart.configure_mesh();
    mesh.disable_mesh()
        .x_desc(format!("{} ({})", plot.axis_names[0], plot.unit.name))
        .y_desc(format!("{} ({})", plot.axis_names[1], plot.unit.name))
        .x_label_formatter(&x_ticks)
        .y_label_formatter(&y_ticks)
        .x_labels(x_ticks_n)
        .y_labels(y_ticks_n)
        .label_style((FONT, 13))
        .axis_desc_style((FONT, 14));
    // A line of cells (a 1D grid) has no second axis to label.
    if nv == 1 {
        mesh.disable_y_axis().y_desc("");
    }
    mesh.draw()?;
    // The cells, nearest neighbour onto the plotting area's pixels.
    let (xr, yr) = chart.plotting_area().get_pixel_range();
    let (pw, ph) = ((xr.end - xr.start) as u32, (yr.end - yr.start) as u32);
    let limits = limits(plot);
    let mut pixels = vec![0u8; 3 * (pw * ph) as usize];
    for py in 0..ph {
        let v = (((ph - 1 - py) as f64 + 0.5) / ph as f64 * nv as f64) as usize;
        for px in 0..pw {
            let u = ((px as f64 + 0.5) / pw as f64 * nu as f64) as usize;
            let cell = v.min(nv - 1) * nu + u.min(nu - 1);
            let masked = plot.active.is_some_and(|a| a[cell] == 0.0);
            let c = match masked {
                true => MASKED,
                false => map_colour(plot.map, limits, plot.values[cell]),
            };
            let o = 3 * (py * pw + px) as usize;
            pixels[o..o + 3].copy_from_slice(&c);
        }
    }
    chart.draw_series(std::iter::once(
        BitMapElement::with_owned_buffer((0.0, y1), (pw, ph), pixels)
            .ok_or("the image does not fit its buffer")?,
    ))?;
    if let Some(labels) = plot.outlines {
        let segments = outline_segments(plot.size, labels);
        chart.draw_series(segments.into_iter().map(|[a, b]| {
            PathElement::new(
                vec![(a[0] * per, a[1] * per), (b[0] * per, b[1] * per)],
                BLACK.stroke_width(1),
            )
        }))?;
    }
    for mark in plot.marks {
        let c = RGBColor(mark.colour[0], mark.colour[1], mark.colour[2]);
        let corners = [
            (mark.lo[0] * per, mark.lo[1] * per),
            (mark.hi[0] * per, mark.hi[1] * per),
        ];
        let style = match mark.filled {
            true => c.mix(0.25).filled(),
            false => c.stroke_width(2),
        };
        let series = chart.draw_series(std::iter::once(Rectangle::new(corners, style)))?;
        if let Some(legend) = &mark.legend {
            series.label(legend.as_str()).legend(move |(x, y)| {
                Rectangle::new([(x, y - 5), (x + 14, y + 5)], c.stroke_width(2))
            });
        }
    }
    if plot.marks.iter().any(|m| m.legend.is_some()) {
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperRight)
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .label_font((FONT, 12))
            .draw()?;
    }
    // A short plane's colour bar still gets the height of a legible one, centred on it.
    let (mid, half) = (
        (yr.start + yr.end) / 2,
        (yr.end - yr.start).max(MIN_BAR) / 2,
    );
    let rows = ((mid - half).max(0), mid + half);
    colour_bar(&bar, plot.map, plot.bar_label, limits, rows)?;
    root.present()?;
    Ok((xr, yr))
}

/// The fewest pixel rows a colour bar spans.
const MIN_BAR: i32 = 160;

/// The plotting area's size in pixels when the chart of `plot` fills an image of `size`
/// without spare margins (laid out on a scratch image: the caption is drawn when a chart is
/// built).
fn plotting_area(
    size: (u32, u32),
    plot: &SlicePlot,
    (x1, y1): (f64, f64),
) -> Result<(u32, u32), Box<dyn std::error::Error>> {
    let mut scratch = vec![255u8; 3 * (size.0 * size.1) as usize];
    let root = BitMapBackend::with_buffer(&mut scratch, size).into_drawing_area();
    let (image, _) = root.split_horizontally(size.0 - RIGHT + 30);
    let chart = ChartBuilder::on(&image)
        .caption(plot.title, (FONT, 17))
        .margin_top(8)
        .margin_right(30)
        .x_label_area_size(BOTTOM - 10)
        .y_label_area_size(LEFT - 10)
        .build_cartesian_2d(0.0..x1, 0.0..y1)?;
    let (xr, yr) = chart.plotting_area().get_pixel_range();
    Ok(((xr.end - xr.start) as u32, (yr.end - yr.start) as u32))
}

/// The colour bar of `map`, labelled `label`, beside an image: from the low limit at the
/// bottom to the high at the top, spanning the image's pixel rows `rows`.
pub(crate) fn colour_bar(
    area: &DrawingArea<BitMapBackend<'_>, Shift>,
    map: ColourMap,
    label: &str,
    (lo, hi): (f64, f64),
    rows: (i32, i32),
) -> Result<(), Box<dyn std::error::Error>> {
    let (_, height) = area.dim_in_pixel();
    let mut chart = ChartBuilder::on(area)
        .margin_top(rows.0 as u32)
        .margin_bottom(height.saturating_sub(rows.1 as u32))
        .margin_right(8)
        .right_y_label_area_size(85)
        .build_cartesian_2d(0.0..1.0, lo..hi)?;
    chart
        .configure_mesh()
        .disable_mesh()
        .disable_x_axis()
        .y_desc(label)
        .y_label_formatter(&|v| format!(" {}", style::tick_in(*v, hi - lo)))
        .label_style((FONT, 12))
        .axis_desc_style((FONT, 13))
        .draw()?;
    let (xr, yr) = chart.plotting_area().get_pixel_range();
    let (pw, ph) = (
        (xr.end - xr.start) as u32,
        (yr.end - yr.start).max(2) as u32,
    );
    let mut pixels = vec![0u8; 3 * (pw * ph) as usize];
    for py in 0..ph {
        let v = hi - (hi - lo) * py as f64 / (ph - 1) as f64;
        let c = map_colour(map, (lo, hi), v);
        for px in 0..pw {
            let o = 3 * (py * pw + px) as usize;
            pixels[o..o + 3].copy_from_slice(&c);
        }
    }
    chart.draw_series(std::iter::once(
        BitMapElement::with_owned_buffer((0.0, hi), (pw, ph), pixels)
            .ok_or("the colour bar does not fit its buffer")?,
    ))?;
    Ok(())
}

/// The cell edges between differently labelled cells of a `size` plane, as segments in cells.
pub fn outline_segments(size: [usize; 2], labels: &[f64]) -> Vec<[[f64; 2]; 2]> {
    let [nu, nv] = size;
    let mut segments = Vec::new();
    for v in 0..nv {
        for u in 0..nu {
            let here = labels[v * nu + u];
            let (x, y) = (u as f64, v as f64);
            if u + 1 < nu && labels[v * nu + u + 1] != here {
                segments.push([[x + 1.0, y], [x + 1.0, y + 1.0]]);
            }
            if v + 1 < nv && labels[(v + 1) * nu + u] != here {
                segments.push([[x, y + 1.0], [x + 1.0, y + 1.0]]);
            }
        }
    }
    segments
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode(path: &Path) -> (u32, u32, Vec<u8>) {
        crate::png::read_rgb(path).unwrap()
    }

    fn pixel(image: &(u32, u32, Vec<u8>), x: u32, y: u32) -> [u8; 3] {
        let o = 3 * (y * image.0 + x) as usize;
        image.2[o..o + 3].try_into().unwrap()
    }

    fn plot<'a>(values: &'a [f64], limits: Option<(f64, f64)>) -> SlicePlot<'a> {
        SlicePlot {
            size: [40, 30],
            values,
            title: "ez, step 10",
            axis_names: ["x", "y"],
            unit: LengthUnit::si(1e-3, 40),
            map: ColourMap::Diverging,
            limits,
            bar_label: "ez (V/m)",
            outlines: None,
            active: None,
            marks: &[],
        }
    }

    /// The pixel at the middle of cell (u, v) of a 40 × 30 plot drawn in `cells`.
    fn cell_pixel(cells: &PixelRanges, u: usize, v: usize) -> (u32, u32) {
        let (xr, yr) = cells;
        let (pw, ph) = ((xr.end - xr.start) as f64, (yr.end - yr.start) as f64);
        (
            (xr.start as f64 + (u as f64 + 0.5) * pw / 40.0) as u32,
            (yr.end as f64 - (v as f64 + 0.5) * ph / 30.0) as u32,
        )
    }

    #[test]
    fn cells_are_square_on_long_thin_and_tall_planes() {
        for size in [[230, 20], [40, 30], [20, 230], [300, 2]] {
            let values = vec![0.5; size[0] * size[1]];
            let p = SlicePlot {
                size,
                ..plot(&values, None)
            };
            let (xr, yr) = render(&p).unwrap().cells;
            let across = (xr.end - xr.start) as f64 / size[0] as f64;
            let up = (yr.end - yr.start) as f64 / size[1] as f64;
            assert!(
                (across - up).abs() <= 1.0 / size[0].min(size[1]) as f64 + 0.02 * across,
                "{size:?}: {across:.3} × {up:.3} pixels per cell"
            );
        }
    }

    #[test]
    fn fixed_limits_give_a_value_the_same_colour_in_every_frame() {
        let dir = std::env::temp_dir().join(format!("yee-slice-plot-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut a = vec![0.0; 1200];
        let mut b = vec![0.0; 1200];
        a[10 * 40 + 10] = 0.5;
        b[10 * 40 + 10] = 0.5;
        a[20 * 40 + 30] = 1.0; // The frames' maxima differ.
        b[20 * 40 + 30] = 8.0;
        let mut colours = Vec::new();
        for (name, values, limits) in [
            ("a.png", &a, Some((-2.0, 2.0))),
            ("b.png", &b, Some((-2.0, 2.0))),
            ("c.png", &a, None),
            ("d.png", &b, None),
        ] {
            let path = dir.join(name);
            write_slice_plot(&path, &plot(values, limits)).unwrap();
            let image = decode(&path);
            assert_eq!((image.0, image.1), image_size([40, 30]));
            let (x, y) = cell_pixel(&render(&plot(values, limits)).unwrap().cells, 10, 10);
            colours.push(pixel(&image, x, y));
        }
        assert_eq!(colours[0], colours[1], "fixed limits");
        assert_eq!(
            colours[0],
            map_colour(ColourMap::Diverging, (-2.0, 2.0), 0.5)
        );
        assert_ne!(colours[2], colours[3], "each frame scaled to itself");
    }

    #[test]
    fn outlines_run_between_cells_with_different_labels() {
        // A 2 × 2 block labelled 1 in a field of 0: two one-cell edges on each side.
        let mut labels = vec![0.0; 16];
        for (u, v) in [(1, 1), (2, 1), (1, 2), (2, 2)] {
            labels[v * 4 + u] = 1.0;
        }
        let segments = outline_segments([4, 4], &labels);
        assert_eq!(segments.len(), 8);
        assert!(segments.contains(&[[3.0, 1.0], [3.0, 2.0]]));
        assert!(segments.contains(&[[1.0, 3.0], [2.0, 3.0]]));
        // Drawn: a black pixel on the block's left edge, none inside it.
        let dir = std::env::temp_dir().join(format!("yee-outline-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let values = vec![1.0; 1200];
        let mut big = vec![0.0; 1200];
        for v in 10..20 {
            for u in 10..20 {
                big[v * 40 + u] = 1.0;
            }
        }
        let mut p = plot(&values, None);
        p.map = ColourMap::Sequential;
        p.outlines = Some(&big);
        let path = dir.join("outline.png");
        write_slice_plot(&path, &p).unwrap();
        let image = decode(&path);
        let cells = render(&p).unwrap().cells;
        let (x9, y) = cell_pixel(&cells, 9, 15);
        let (x10, _) = cell_pixel(&cells, 10, 15);
        let dark = (x9..=x10).any(|x| pixel(&image, x, y) == [0, 0, 0]);
        assert!(
            dark,
            "the outline crosses row {y} between x = {x9} and {x10}"
        );
        let (cx, cy) = cell_pixel(&cells, 15, 15);
        assert_ne!(pixel(&image, cx, cy), [0, 0, 0]);
        let (ox, oy) = cell_pixel(&cells, 5, 5);
        assert!(
            (x9..=x10).all(|x| pixel(&image, x, oy) != [0, 0, 0]),
            "no outline at {ox}"
        );
    }

    #[test]
    fn si_lengths_take_a_readable_unit() {
        assert_eq!(LengthUnit::si(1e-2, 200).name, "m");
        assert_eq!(LengthUnit::si(5e-3, 100).name, "mm");
        assert_eq!(LengthUnit::si(1e-4, 100).name, "mm");
        assert_eq!(LengthUnit::si(2e-8, 100).name, "µm");
        let u = LengthUnit::si(1e-4, 100);
        assert!((u.per_cell - 0.1).abs() < 1e-12);
    }
}
