//! Band diagrams as PNG (plotters): the modes found at each k-point as dots, frequency against
//! the distance along the k-path, with a vertical rule and a label at each corner of the path
//! (Γ, X, M, …) and the light line of the background.

use std::path::Path;

use plotters::prelude::*;

use crate::style::{self, FONT};

/// A band diagram.
pub struct BandPlot<'a> {
    /// The title.
    pub title: &'a str,
    /// The y axis's name with its unit.
    pub y_label: &'a str,
    /// The modes as (path distance, frequency).
    pub modes: &'a [(f64, f64)],
    /// The corners of the path as (path distance, label).
    pub corners: &'a [(f64, String)],
    /// The light line as (path distance, frequency), drawn as a dashed grey curve.
    pub light_line: &'a [(f64, f64)],
    /// The y range shown.
    pub y_range: (f64, f64),
}

/// The plot's size in pixels.
pub const SIZE: (u32, u32) = (640, 520);

/// The colour of the modes.
pub const MODE_COLOUR: RGBColor = RGBColor(31, 119, 180);

/// The colour of the light line (dashed).
pub const LIGHT_LINE_COLOUR: RGBColor = RGBColor(120, 120, 120);

/// Writes `plot` as an RGB PNG at `path`.
pub fn write_band_plot(path: &Path, plot: &BandPlot) -> std::io::Result<()> {
    let (w, h) = SIZE;
    let mut rgb = vec![255u8; 3 * (w * h) as usize];
    draw(&mut rgb, plot).map_err(style::error)?;
    crate::png::save_rgb(path, w as usize, h as usize, &rgb)
}

fn draw(rgb: &mut [u8], plot: &BandPlot) -> Result<(), Box<dyn std::error::Error>> {
    style::register_font();
    let root = BitMapBackend::with_buffer(rgb, SIZE).into_drawing_area();
    root.fill(&WHITE)?;
    let x1 = plot
        .corners
        .iter()
        .map(|c| c.0)
        .chain(plot.modes.iter().map(|m| m.0))
        .fold(0.0f64, f64::max);
    let x1 = if x1 > 0.0 { x1 } else { 1.0 };
    let (y0, y1) = plot.y_range;
    let labels: Vec<(f64, String)> = plot.corners.to_vec();
    let mut chart = ChartBuilder::on(&root)
        .caption(plot.title, (FONT, 17))
        .margin(14)
        .x_label_area_size(35)
        .y_label_area_size(70)
        .build_cartesian_2d(0.0..x1, y0..y1)?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .light_line_style(WHITE)
        .bold_line_style(RGBColor(230, 230, 230))
        .x_labels(0)
        .y_desc(plot.y_label)
        .y_label_formatter(&|v| format!("{} ", style::tick_in(*v, y1 - y0)))
        .label_style((FONT, 13))
        .axis_desc_style((FONT, 14))
        .draw()?;
    for (x, label) in &labels {
        chart.draw_series(LineSeries::new(
            [(*x, y0), (*x, y1)],
            RGBColor(150, 150, 150).stroke_width(1),
        ))?;
        let at = chart.backend_coord(&(*x, y0));
        root.draw(&Text::new(
            label.clone(),
            (at.0 - 5, at.1 + 8),
            (FONT, 15).into_font(),
        ))?;
    }
    let line: Vec<(f64, f64)> = plot
        .light_line
        .iter()
        .copied()
        .filter(|p| p.1.is_finite())
        .collect();
    chart.draw_series(DashedLineSeries::new(
        line,
        6,
        4,
        LIGHT_LINE_COLOUR.stroke_width(2),
    ))?;
    chart.draw_series(
        plot.modes
            .iter()
            .filter(|m| m.1 >= y0 && m.1 <= y1)
            .map(|&m| Circle::new(m, 3, MODE_COLOUR.filled())),
    )?;
    root.present()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pixels of `colour` in an RGB buffer.
    fn count(buf: &[u8], colour: RGBColor) -> usize {
        buf.chunks(3)
            .filter(|p| p == &[colour.0, colour.1, colour.2])
            .count()
    }

    /// The modes are drawn as dots and the light line as a dashed grey line, which is gone
    /// when the plot has none.
    #[test]
    fn a_band_plot_decodes_with_its_modes_and_light_line_drawn() {
        let dir = std::env::temp_dir().join(format!("yee-band-plot-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("bands.png");
        let modes: Vec<(f64, f64)> = (0..30)
            .flat_map(|i| {
                let x = i as f64 / 29.0;
                [(x, 0.3 * x), (x, 0.5 - 0.1 * x)]
            })
            .collect();
        let mut plot = BandPlot {
            title: "bands",
            y_label: "frequency (c/a)",
            modes: &modes,
            corners: &[(0.0, "Γ".into()), (1.0, "X".into())],
            light_line: &[(0.0, 0.0), (1.0, 0.5)],
            y_range: (0.0, 0.6),
        };
        write_band_plot(&path, &plot).unwrap();
        let (w, h, buf) = crate::png::read_rgb(&path).unwrap();
        assert_eq!((w, h), SIZE);
        let blue = count(&buf, MODE_COLOUR);
        assert!(blue > 500, "the modes are drawn ({blue})");
        let grey = count(&buf, LIGHT_LINE_COLOUR);
        plot.light_line = &[];
        write_band_plot(&path, &plot).unwrap();
        let (_, _, buf) = crate::png::read_rgb(&path).unwrap();
        // A pixel or so of that grey is the labels' antialiasing; the line spans ~520 pixels
        // across, dashed 6 on 4, 2 pixels wide.
        let without = count(&buf, LIGHT_LINE_COLOUR);
        assert!(
            grey > without + 300,
            "the light line is drawn ({grey} pixels, {without} without it)"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
