//! A 5×7 bitmap font with the characters the images need: digits, signs, exponents and the
//! few letters of "step" and the component names.

/// Glyph rows, top first; bit 4 is the leftmost column.
fn glyph(c: char) -> Option<[u8; 7]> {
    let rows: [&str; 7] = match c {
        '0' => [
            " ### ", "#   #", "#  ##", "# # #", "##  #", "#   #", " ### ",
        ],
        '1' => [
            "  #  ", " ##  ", "  #  ", "  #  ", "  #  ", "  #  ", " ### ",
        ],
        '2' => [
            " ### ", "#   #", "    #", "   # ", "  #  ", " #   ", "#####",
        ],
        '3' => [
            "#####", "   # ", "  #  ", "   # ", "    #", "#   #", " ### ",
        ],
        '4' => [
            "   # ", "  ## ", " # # ", "#  # ", "#####", "   # ", "   # ",
        ],
        '5' => [
            "#####", "#    ", "#### ", "    #", "    #", "#   #", " ### ",
        ],
        '6' => [
            "  ## ", " #   ", "#    ", "#### ", "#   #", "#   #", " ### ",
        ],
        '7' => [
            "#####", "    #", "   # ", "  #  ", " #   ", " #   ", " #   ",
        ],
        '8' => [
            " ### ", "#   #", "#   #", " ### ", "#   #", "#   #", " ### ",
        ],
        '9' => [
            " ### ", "#   #", "#   #", " ####", "    #", "   # ", " ##  ",
        ],
        '+' => [
            "     ", "  #  ", "  #  ", "#####", "  #  ", "  #  ", "     ",
        ],
        '-' => [
            "     ", "     ", "     ", "#####", "     ", "     ", "     ",
        ],
        '.' => [
            "     ", "     ", "     ", "     ", "     ", " ##  ", " ##  ",
        ],
        ':' => [
            "     ", " ##  ", " ##  ", "     ", " ##  ", " ##  ", "     ",
        ],
        '=' => [
            "     ", "     ", "#####", "     ", "#####", "     ", "     ",
        ],
        'e' => [
            "     ", "     ", " ### ", "#   #", "#####", "#    ", " ### ",
        ],
        'h' => [
            "#    ", "#    ", "# ## ", "##  #", "#   #", "#   #", "#   #",
        ],
        'p' => [
            "     ", "     ", "#### ", "#   #", "#### ", "#    ", "#    ",
        ],
        's' => [
            "     ", "     ", " ####", "#    ", " ### ", "    #", "#### ",
        ],
        't' => [
            " #   ", " #   ", "###  ", " #   ", " #   ", " #  #", "  ## ",
        ],
        'x' => [
            "     ", "     ", "#   #", " # # ", "  #  ", " # # ", "#   #",
        ],
        'y' => [
            "     ", "     ", "#   #", "#   #", " ####", "    #", " ### ",
        ],
        'z' => [
            "     ", "     ", "#####", "   # ", "  #  ", " #   ", "#####",
        ],
        ' ' => ["     "; 7],
        _ => return None,
    };
    let mut bits = [0u8; 7];
    for (b, row) in bits.iter_mut().zip(rows) {
        *b = row
            .bytes()
            .fold(0, |acc, ch| (acc << 1) | u8::from(ch == b'#'));
    }
    Some(bits)
}

/// Width in pixels of `text` drawn at `scale` (6 columns per character).
pub fn text_width(text: &str, scale: usize) -> usize {
    text.chars().count() * 6 * scale
}

/// Draws `text` with its top-left corner at (`x`, `y`) into an RGB image of `width` pixels per
/// row. Characters without a glyph are drawn as spaces; pixels outside the image are skipped.
pub fn draw_text(
    image: &mut [u8],
    width: usize,
    x: usize,
    y: usize,
    text: &str,
    scale: usize,
    colour: [u8; 3],
) {
    let height = image.len() / (3 * width);
    for (k, c) in text.chars().enumerate() {
        let Some(bits) = glyph(c) else { continue };
        for (row, b) in bits.iter().enumerate() {
            for col in 0..5 {
                if b & (0x10 >> col) == 0 {
                    continue;
                }
                for dy in 0..scale {
                    for dx in 0..scale {
                        let px = x + (k * 6 + col) * scale + dx;
                        let py = y + row * scale + dy;
                        if px < width && py < height {
                            let o = 3 * (py * width + px);
                            image[o..o + 3].copy_from_slice(&colour);
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_needed_character_has_a_glyph() {
        for c in "0123456789+-.:=ehpstxyz ".chars() {
            assert!(glyph(c).is_some(), "{c}");
        }
        assert_eq!(glyph('1').unwrap()[6], 0b01110);
    }
}
