//! The files balancing leaves: `balance_history.csv` (one row per rebalance) and
//! `balance_shares.png` (each rank's share of the cells over the run).

use std::path::Path;

use plotters::prelude::*;
use yee_core::session::HistoryEntry;

use crate::style::{self, FONT};

/// Writes `balance_history.csv`: one row per rebalance.
pub fn write_history(path: &Path, history: &[HistoryEntry]) -> std::io::Result<()> {
    let mut text = String::from(
        "step,action,predicted_seconds,measured_seconds,borders_x,borders_y,borders_z,disabled_x,disabled_y,disabled_z\n",
    );
    let join = |v: &[i64]| {
        v.iter()
            .map(|b| b.to_string())
            .collect::<Vec<_>>()
            .join(" ")
    };
    let join_u = |v: &[usize]| {
        v.iter()
            .map(|b| b.to_string())
            .collect::<Vec<_>>()
            .join(" ")
    };
    for h in history {
        text.push_str(&format!(
            "{},{},{:e},{:e},{},{},{},{},{},{}\n",
            h.step,
            csv_field(&h.action),
            h.predicted_seconds,
            h.measured_seconds,
            join(&h.borders[0]),
            join(&h.borders[1]),
            join(&h.borders[2]),
            join_u(&h.disabled[0]),
            join_u(&h.disabled[1]),
            join_u(&h.disabled[2])
        ));
    }
    crate::atomic::write(path, text)
}

/// `text` as one CSV field (RFC 4180): quoted, with its quotes doubled, when it holds a comma,
/// a quote or a line break (an action such as `disable x [0, 1]`).
fn csv_field(text: &str) -> String {
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_string()
    }
}

/// Ten well-separated colours (the "tab10" palette).
const PALETTE: [RGBColor; 10] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
];

/// The share chart's size in pixels.
pub const SHARE_PLOT_SIZE: (u32, u32) = (760, 460);

/// Writes `balance_shares.png`: per-rank shares (stacked, rank 0 at the bottom, one colour per
/// rank) of each layout in `columns` (the start, then after each rebalance), left to right,
/// with axes and a legend of the first 16 ranks. Every column holds one share per rank,
/// summing to 1; `columns` is not empty.
pub fn write_share_plot(path: &Path, columns: &[Vec<f64>]) -> std::io::Result<()> {
    let (w, h) = SHARE_PLOT_SIZE;
    let mut rgb = vec![255u8; 3 * (w * h) as usize];
    draw_shares(&mut rgb, columns).map_err(style::error)?;
    crate::png::save_rgb(path, w as usize, h as usize, &rgb)
}

fn draw_shares(rgb: &mut [u8], columns: &[Vec<f64>]) -> Result<(), Box<dyn std::error::Error>> {
    style::register_font();
    let root = BitMapBackend::with_buffer(rgb, SHARE_PLOT_SIZE).into_drawing_area();
    root.fill(&WHITE)?;
    let n = columns.len();
    let mut chart = ChartBuilder::on(&root)
        .caption("each rank's share of the cells, per layout", (FONT, 17))
        .margin(12)
        .x_label_area_size(45)
        .y_label_area_size(60)
        .right_y_label_area_size(70)
        .build_cartesian_2d(0.0..n as f64, 0.0..1.0)?;
    chart
        .configure_mesh()
        .disable_mesh()
        .x_desc("layout (0: the start, then after each rebalance)")
        .y_desc("share")
        .x_labels(n.min(10) + 1)
        .x_label_formatter(&|v| format!("{}", v.floor()))
        .y_label_formatter(&|v| format!("{} ", style::tick(*v)))
        .label_style((FONT, 13))
        .axis_desc_style((FONT, 14))
        .draw()?;
    let ranks = columns.first().map_or(0, Vec::len);
    for r in 0..ranks {
        let colour = PALETTE[r % PALETTE.len()];
        let bars = columns.iter().enumerate().map(move |(i, column)| {
            let below: f64 = column[..r].iter().sum();
            Rectangle::new(
                [(i as f64, below), (i as f64 + 1.0, below + column[r])],
                colour.filled(),
            )
        });
        let series = chart.draw_series(bars)?;
        if r < 16 {
            series.label(format!("rank {r}")).legend(move |(x, y)| {
                Rectangle::new([(x, y - 5), (x + 10, y + 5)], colour.filled())
            });
        }
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .margin(2)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .label_font((FONT, 12))
        .draw()?;
    root.present()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_action_with_commas_stays_one_field() {
        let dir = std::env::temp_dir().join(format!("yee-history-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("balance_history.csv");
        let entry = HistoryEntry {
            step: 20,
            borders: [vec![0, 10, 20], vec![0, 8], vec![0, 8]],
            predicted_seconds: 1e-3,
            measured_seconds: 2e-3,
            disabled: [vec![0, 1], vec![], vec![]],
            action: "disable x [0, 1] \"slow\"".to_string(),
            boxes: Vec::new(),
        };
        write_history(&path, &[entry]).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        let row = text.lines().nth(1).unwrap();
        assert!(
            row.starts_with("20,\"disable x [0, 1] \"\"slow\"\"\",1e-3,2e-3,0 10 20,"),
            "{row}"
        );
        // Outside the quotes, the row has the header's ten fields.
        let mut quoted = false;
        let commas = row
            .chars()
            .filter(|&c| {
                quoted ^= c == '"';
                c == ',' && !quoted
            })
            .count();
        assert_eq!(commas, 9, "{row}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn each_rank_has_its_colour_in_proportion_to_its_share() {
        let dir = std::env::temp_dir().join(format!("yee-shares-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("shares.png");
        write_share_plot(&path, &[vec![0.5, 0.5], vec![0.2, 0.8]]).unwrap();
        let (w, h, rgb) = crate::png::read_rgb(&path).unwrap();
        assert_eq!((w, h), SHARE_PLOT_SIZE);
        let count = |c: RGBColor| {
            rgb.chunks(3)
                .filter(|p| p[0] == c.0 && p[1] == c.1 && p[2] == c.2)
                .count() as f64
        };
        // Rank 0 holds 0.7 of the two columns' area, rank 1 holds 1.3 (legend swatches aside).
        let ratio = count(PALETTE[1]) / count(PALETTE[0]);
        assert!((ratio - 1.3 / 0.7).abs() < 0.1, "{ratio}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
