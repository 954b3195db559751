//! The files balancing leaves: `balance_history.csv` (one row per rebalance) and
//! `balance_shares.png` (each rank's share of the cells over the run).

use std::path::Path;

use yee_core::session::HistoryEntry;

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
            h.action,
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

/// Ten well-separated colours (the "tab10" palette).
const PALETTE: [[u8; 3]; 10] = [
    [31, 119, 180],
    [255, 127, 14],
    [44, 160, 44],
    [214, 39, 40],
    [148, 103, 189],
    [140, 86, 75],
    [227, 119, 194],
    [127, 127, 127],
    [188, 189, 34],
    [23, 190, 207],
];

/// Writes `balance_shares.png`: per-rank shares (stacked, rank 0 at the bottom, one colour per
/// rank) of each layout in `columns` (the start, then after each rebalance), left to right,
/// and a legend. Every column holds one share per rank, summing to 1; `columns` is not empty.
pub fn write_share_plot(path: &Path, columns: &[Vec<f64>]) -> std::io::Result<()> {
    debug_assert!(
        !columns.is_empty(),
        "a share plot needs one layout at least"
    );
    let ranks = columns[0].len();
    let (plot_w, plot_h) = (600usize, 300usize);
    let (margin, legend) = (10usize, 16 * ranks.min(16) + 20);
    let (w, h) = (plot_w + 2 * margin, plot_h + 2 * margin + legend + 20);
    let mut image = vec![255u8; 3 * w * h];
    for x in 0..plot_w {
        let column = &columns[(x * columns.len() / plot_w).min(columns.len() - 1)];
        let mut y0 = 0.0;
        for (r, share) in column.iter().enumerate() {
            let (from, to) = (y0, y0 + share);
            y0 = to;
            let colour = PALETTE[r % PALETTE.len()];
            for y in (from * plot_h as f64) as usize..((to * plot_h as f64) as usize).min(plot_h) {
                let py = margin + plot_h - 1 - y;
                let o = 3 * (py * w + margin + x);
                image[o..o + 3].copy_from_slice(&colour);
            }
        }
    }
    let black = [0, 0, 0];
    let base = margin + plot_h + 8;
    for r in 0..ranks.min(16) {
        let y = base + 14 + 16 * r;
        for dy in 0..10 {
            for dx in 0..10 {
                let o = 3 * ((y + dy) * w + margin + dx);
                image[o..o + 3].copy_from_slice(&PALETTE[r % PALETTE.len()]);
            }
        }
        crate::font::draw_text(&mut image, w, margin + 16, y + 1, &format!("{r}"), 1, black);
    }
    crate::png::save_rgb(path, w, h, &image)
}
