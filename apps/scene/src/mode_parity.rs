//! The `parity` key of mode sources and `[[modes]]` monitors: the mirror symmetry of the modes
//! wanted, as Meep's `eig_parity` names it (docs/scene.md, docs/modes.md).

use yee_core::geometry::Axis;

/// The parity words, as Meep's constants: `even_y` its `EVEN_Y`, `te` its `TE` (= `EVEN_Z`),
/// `tm` its `TM` (= `ODD_Z`).
const WORDS: &str = "even_x, odd_x, even_y, odd_y, even_z, odd_z, te (= even_z) or tm (= odd_z)";

/// `text` (one parity word, or two about different axes joined by `+`, e.g. `even_y+odd_z`)
/// as the parity per grid axis, `Some(true)` even, for modes along `normal` (z counts in 2D,
/// where every mode is even or odd in it); an error saying what is wrong.
pub fn parse(text: &str, normal: Axis) -> Result<[Option<bool>; 3], String> {
    let mut even = [None; 3];
    for word in text.split('+') {
        let word = word.trim();
        let (axis, is_even) = match word {
            "te" => (Axis::Z, true),
            "tm" => (Axis::Z, false),
            _ => {
                let Some((kind, axis)) = word.split_once('_') else {
                    return Err(format!("\"{text}\": `{word}` is not one of {WORDS}"));
                };
                let is_even = match kind {
                    "even" => true,
                    "odd" => false,
                    _ => return Err(format!("\"{text}\": `{word}` is not one of {WORDS}")),
                };
                let axis = match axis {
                    "x" => Axis::X,
                    "y" => Axis::Y,
                    "z" => Axis::Z,
                    _ => return Err(format!("\"{text}\": `{word}` is not one of {WORDS}")),
                };
                (axis, is_even)
            }
        };
        if axis == normal {
            return Err(format!(
                "\"{text}\": `{word}` mirrors along {}, the plane's normal: a mode's parity is \
                 about an axis of its plane",
                axis.name()
            ));
        }
        if even[axis.index()].replace(is_even).is_some() {
            return Err(format!(
                "\"{text}\": two parities about {}: give one per axis",
                axis.name()
            ));
        }
    }
    Ok(even)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_meeps_names_and_refuses_the_rest() {
        assert_eq!(parse("odd_y", Axis::X), Ok([None, Some(false), None]));
        assert_eq!(
            parse("even_y+tm", Axis::X),
            Ok([None, Some(true), Some(false)])
        );
        assert_eq!(parse("te", Axis::Y), Ok([None, None, Some(true)]));
        for (bad, why) in [
            ("odd_x", "the plane's normal"),
            ("even_y+odd_y", "two parities about y"),
            ("even", "is not one of"),
            ("odd_w", "is not one of"),
            ("symmetric", "is not one of"),
        ] {
            let e = parse(bad, Axis::X).unwrap_err();
            assert!(e.contains(why), "{bad}: {e}");
        }
    }
}
