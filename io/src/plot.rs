//! Line plots as PNG: curves over a shared x axis, with a frame, grid and tick values in the
//! built-in bitmap font. The font has digits and a few letters only, so names and units stay in
//! the file name and the CSV beside the plot.

use std::path::Path;

use crate::font::{draw_text, text_width};

/// One colour per curve, in order.
const COLOURS: [[u8; 3]; 4] = [
    [31, 119, 180],
    [214, 39, 40],
    [44, 160, 44],
    [148, 103, 189],
];

/// A short decimal for a tick: 3 significant digits.
fn tick_label(v: f64) -> String {
    if v == 0.0 {
        return "0".into();
    }
    let magnitude = v.abs().log10().floor();
    if !(-3.0..4.0).contains(&magnitude) {
        return format!("{v:.2e}");
    }
    let decimals = (2.0 - magnitude).max(0.0) as usize;
    format!("{v:.decimals$}")
}

/// Writes a line plot of `curves` (y values as long as `xs`, one colour each) against `xs`.
/// Non-finite points are skipped.
pub fn write_line_plot(path: &Path, xs: &[f64], curves: &[&[f64]]) -> std::io::Result<()> {
    let (w, h) = (720usize, 440usize);
    let (left, right, top, bottom) = (80usize, 20usize, 20usize, 30usize);
    let (pw, ph) = (w - left - right, h - top - bottom);
    let mut image = vec![255u8; 3 * w * h];
    let finite = |v: &&f64| v.is_finite();
    let (x0, x1) = bounds(xs.iter().filter(finite));
    let (y0, y1) = bounds(curves.iter().flat_map(|ys| ys.iter()).filter(finite));
    let black = [0, 0, 0];
    let grey = [200, 200, 200];
    let mut set = |x: usize, y: usize, c: [u8; 3]| {
        if x < w && y < h {
            let o = 3 * (y * w + x);
            image[o..o + 3].copy_from_slice(&c);
        }
    };
    let px = |x: f64| left + ((x - x0) / (x1 - x0) * (pw - 1) as f64).round() as usize;
    let py = |y: f64| top + ph - 1 - ((y - y0) / (y1 - y0) * (ph - 1) as f64).round() as usize;
    // Grid lines at five ticks per axis.
    for k in 0..=4 {
        let gx = left + k * (pw - 1) / 4;
        let gy = top + k * (ph - 1) / 4;
        for y in top..top + ph {
            set(gx, y, grey);
        }
        for x in left..left + pw {
            set(x, gy, grey);
        }
    }
    for x in left..left + pw {
        set(x, top, black);
        set(x, top + ph - 1, black);
    }
    for y in top..top + ph {
        set(left, y, black);
        set(left + pw - 1, y, black);
    }
    for (n, ys) in curves.iter().enumerate() {
        let colour = COLOURS[n % COLOURS.len()];
        let mut previous: Option<(usize, usize)> = None;
        for (&x, &y) in xs.iter().zip(ys.iter()) {
            if !(x.is_finite() && y.is_finite()) {
                previous = None;
                continue;
            }
            let p = (px(x), py(y));
            if let Some(q) = previous {
                // A straight segment, one pixel per step of its longer side.
                let steps = p.0.abs_diff(q.0).max(p.1.abs_diff(q.1)).max(1);
                for s in 0..=steps {
                    let t = s as f64 / steps as f64;
                    let x = q.0 as f64 + (p.0 as f64 - q.0 as f64) * t;
                    let y = q.1 as f64 + (p.1 as f64 - q.1 as f64) * t;
                    set(x.round() as usize, y.round() as usize, colour);
                    set(x.round() as usize, y.round() as usize + 1, colour);
                }
            }
            previous = Some(p);
        }
    }
    for k in 0..=4 {
        let xv = x0 + (x1 - x0) * k as f64 / 4.0;
        let label = tick_label(xv);
        let gx = left + k * (pw - 1) / 4;
        let tx = gx.saturating_sub(text_width(&label, 1) / 2);
        draw_text(&mut image, w, tx, top + ph + 6, &label, 1, black);
        let yv = y0 + (y1 - y0) * k as f64 / 4.0;
        let label = tick_label(yv);
        let gy = top + ph - 1 - k * (ph - 1) / 4;
        let tx = left.saturating_sub(text_width(&label, 1) + 6);
        draw_text(&mut image, w, tx, gy.saturating_sub(4), &label, 1, black);
    }
    crate::png::save_rgb(path, w, h, &image)
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
    fn ticks_are_short() {
        assert_eq!(tick_label(0.0), "0");
        assert_eq!(tick_label(0.0125), "0.0125");
        assert_eq!(tick_label(12.5), "12.5");
        assert_eq!(tick_label(2.5e9), "2.50e9");
    }

    #[test]
    fn a_plot_is_written() {
        let dir = std::env::temp_dir().join(format!("yee-plot-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("p.png");
        let xs: Vec<f64> = (0..50).map(|i| i as f64 * 0.01).collect();
        let ys: Vec<f64> = xs.iter().map(|x| (10.0 * x).sin()).collect();
        write_line_plot(&path, &xs, &[&ys]).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(&bytes[1..4], b"PNG");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
