//! The four irregular 2D areas of about 20 000 active cells on which partitions are compared
//! (issue 8; Smyk & Tudruj 2011 partition shapes like these): an L-shape, an annulus, a
//! porous square with 35 % of its cells removed at random (seeded) and a comb of 3-cell-wide
//! fingers. `yee partition --shape NAME` and the METIS comparison use them.

use yee_core::graph::TileGraph;

/// A named mask of `side × side` cells (x fastest, y up).
#[derive(Clone, Debug, PartialEq)]
pub struct ShapeMask {
    /// Name on the command line.
    pub name: &'static str,
    /// Cells along x and y.
    pub side: usize,
    /// Active cells, x fastest.
    pub active: Vec<bool>,
}

impl ShapeMask {
    /// The grid of the mask.
    pub fn grid(&self) -> [usize; 3] {
        [self.side, self.side, 1]
    }

    /// Active cells.
    pub fn cells(&self) -> usize {
        self.active.iter().filter(|&&a| a).count()
    }
}

/// The names of the shapes, in the order of the comparison tables.
pub const NAMES: [&str; 4] = ["l-shape", "annulus", "porous", "comb"];

/// The shape called `name`, if any.
pub fn by_name(name: &str) -> Option<ShapeMask> {
    match name {
        "l-shape" => Some(l_shape()),
        "annulus" => Some(annulus()),
        "porous" => Some(porous()),
        "comb" => Some(comb()),
        _ => None,
    }
}

/// All four shapes.
pub fn all() -> [ShapeMask; 4] {
    [l_shape(), annulus(), porous(), comb()]
}

fn square(
    name: &'static str,
    side: usize,
    mut active: impl FnMut(usize, usize) -> bool,
) -> ShapeMask {
    ShapeMask {
        name,
        side,
        active: (0..side * side)
            .map(|i| active(i % side, i / side))
            .collect(),
    }
}

/// An L: a 170² square without its upper-right quarter (21 675 cells).
pub fn l_shape() -> ShapeMask {
    square("l-shape", 170, |x, y| x < 85 || y < 85)
}

/// An annulus of radii 45 and 90 around the centre of a 182² square (19 072 cells).
pub fn annulus() -> ShapeMask {
    square("annulus", 182, |x, y| {
        let (dx, dy) = (x as f64 - 90.5, y as f64 - 90.5);
        (45.0 * 45.0..90.0 * 90.0).contains(&(dx * dx + dy * dy))
    })
}

/// A comb: a 200 × 10 spine with 3-cell fingers 3 cells apart, 182 cells tall (20 382 cells).
pub fn comb() -> ShapeMask {
    square("comb", 200, |x, y| y < 10 || (x % 6 < 3 && y < 192))
}

/// A 175² square with 35 % of its cells removed at random (xorshift, fixed seed), reduced to
/// its largest connected cluster: cells cut off from it could not exchange anything anyway
/// (18 700 cells).
pub fn porous() -> ShapeMask {
    let side = 175;
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut m = square("porous", side, |_, _| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % 100) >= 35
    });
    let g = TileGraph::from_mask(m.grid(), &m.active, [1, 1, 1], 1.0).expect("cells remain");
    let pieces = g.graph.pieces(&vec![0; g.len()]);
    let largest = pieces.iter().max_by_key(|p| p.len()).expect("one piece");
    m.active.iter_mut().for_each(|a| *a = false);
    for &node in largest {
        m.active[g.tile_of[node]] = true;
    }
    m
}

/// A spherical shell in a `side`³ grid (x fastest, then y, then z): the cells whose centres
/// lie between radii 0.35 × `side` and 0.5 × `side` from the grid's centre. The 3D area of
/// issue 53's partition timings (`side` 256: 5 777 352 active cells; 128: 722 192).
pub fn spherical_shell(side: usize) -> Vec<bool> {
    let c = side as f64 / 2.0;
    let (inner, outer) = (0.35 * side as f64, 0.5 * side as f64);
    let mut active = Vec::with_capacity(side * side * side);
    for z in 0..side {
        for y in 0..side {
            for x in 0..side {
                let d = [x, y, z].map(|v| v as f64 + 0.5 - c);
                let r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
                active.push((inner * inner..outer * outer).contains(&r2));
            }
        }
    }
    active
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_about_20_000() {
        let cells = all().map(|s| s.cells());
        assert_eq!(cells, [21_675, 19_072, 18_700, 20_382]);
    }
}
