//! What every plot shares: the embedded font (DejaVu Sans, `io/fonts/`, under the Bitstream
//! Vera licence beside it, so no system font is needed), tick labels, and plotters' errors as
//! I/O errors.

use std::sync::Once;

/// The family every plot's text is set in.
pub const FONT: &str = "sans-serif";

static REGISTER: Once = Once::new();

/// Registers the embedded font with plotters (once per process).
pub fn register_font() {
    REGISTER.call_once(|| {
        let bytes: &'static [u8] = include_bytes!("../fonts/DejaVuSans.ttf");
        // The font is valid TrueType; a failure would only leave text undrawn.
        let _ = plotters::style::register_font(FONT, plotters::style::FontStyle::Normal, bytes);
    });
}

/// A plotting error as an I/O error (the caller names the file).
pub fn error(e: Box<dyn std::error::Error>) -> std::io::Error {
    std::io::Error::other(e.to_string())
}

/// A short decimal for a tick: at most 3 significant digits, no trailing zeros, exponent form
/// outside 10⁻³…10⁴.
pub fn tick(v: f64) -> String {
    if v == 0.0 {
        return "0".into();
    }
    let magnitude = v.abs().log10().floor();
    if !(-3.0..4.0).contains(&magnitude) {
        return format!("{v:.2e}");
    }
    let decimals = (2.0 - magnitude).max(0.0) as usize;
    let text = format!("{v:.decimals$}");
    match text.contains('.') {
        true => text.trim_end_matches('0').trim_end_matches('.').to_string(),
        false => text,
    }
}

/// A tick on an axis spanning `span`: [`tick`], with values within 10⁻⁹ of the span of zero
/// (rounding noise of the tick positions) written as 0.
pub fn tick_in(v: f64, span: f64) -> String {
    match v.abs() <= 1e-9 * span.abs() {
        true => "0".into(),
        false => tick(v),
    }
}

/// The SI prefix (from f to T) in which `extent` reads as a number from 1 to 1000, with its
/// factor: `(prefix, factor)` where a value divided by `factor` is in prefix·unit.
pub fn si_prefix(extent: f64) -> (&'static str, f64) {
    const PREFIXES: [(&str, f64); 9] = [
        ("T", 1e12),
        ("G", 1e9),
        ("M", 1e6),
        ("k", 1e3),
        ("", 1.0),
        ("m", 1e-3),
        ("µ", 1e-6),
        ("n", 1e-9),
        ("p", 1e-12),
    ];
    PREFIXES
        .into_iter()
        .find(|&(_, f)| extent.abs() >= f)
        .unwrap_or(("f", 1e-15))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_keep_three_significant_digits() {
        assert_eq!(tick(0.0), "0");
        assert_eq!(tick(1.234), "1.23");
        assert_eq!(tick(-0.0456), "-0.0456");
        assert_eq!(tick(12345.0), "1.23e4");
        assert_eq!(tick(250.0), "250");
        assert_eq!(tick(5.0), "5");
        assert_eq!(tick(2.5), "2.5");
        assert_eq!(tick_in(-5.55e-17, 0.6), "0");
        assert_eq!(si_prefix(5.7e-10), ("p", 1e-12));
        assert_eq!(si_prefix(3e9), ("G", 1e9));
    }
}
