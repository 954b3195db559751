//! The brute-force oracle of the box layouts ([`crate::box_layout`]): jagged and k-d.

use alloc::vec;

use crate::box_layout::{LayoutError, face_contact, halo_layers, jagged_layout, kd_layout};
use crate::geometry::Box3;
use crate::tiling::{TilingError, check_tiling};
use crate::topology::Topology;

/// Checks the claims of a box layout of `grid` by brute force: one box per rank, inside the
/// grid; every cell owned exactly once; a box empty exactly when its rank's speed is 0; the
/// neighbour relation ([`face_contact`]) symmetric, each side seeing the other on the opposite
/// side, with halo layers ([`halo_layers`]) exactly between neighbours; and the layers a rank
/// receives from its neighbours covering, exactly once, every cell its face stencils read
/// outside its box (one cell along each active axis, within the grid).
pub fn verify_box_layout(
    grid: [usize; 3],
    active: [bool; 3],
    speeds: &[f64],
    boxes: &[Box3],
) -> Result<(), &'static str> {
    if boxes.len() != speeds.len() {
        return Err("not one box per rank");
    }
    let whole = Box3::from_extent(grid);
    let ghost = active.map(usize::from);
    for (r, b) in boxes.iter().enumerate() {
        if b.is_empty() != (speeds[r] == 0.0) {
            return Err("a box is empty but its rank is enabled, or the other way round");
        }
    }
    check_tiling(grid, boxes, None).map_err(|e| match e {
        TilingError::Outside { .. } => "a box reaches outside the grid",
        TilingError::Overlap { .. } => "two boxes share a cell",
        _ => "some cell has no owner",
    })?;
    for (r, b) in boxes.iter().enumerate() {
        let mut received = 0usize;
        for (p, other) in boxes.iter().enumerate() {
            if p == r {
                continue;
            }
            let there = face_contact(b, other, active);
            let back = face_contact(other, b, active);
            if there.map(|(a, high)| (a, !high)) != back {
                return Err("the neighbour relation is not symmetric");
            }
            let layers = halo_layers(other, b, ghost);
            if layers.is_empty() == there.is_some() {
                return Err(
                    "halo layers between boxes that are not neighbours, or none between neighbours",
                );
            }
            for l in &layers {
                if !other.contains_box(l) || !b.grow(ghost.map(|g| g as i64)).contains_box(l) {
                    return Err("a halo layer is outside the sender's box or the receiver's reach");
                }
                received += l.cells();
            }
        }
        if b.is_empty() {
            continue;
        }
        let shell: usize = (0..3)
            .filter(|&a| active[a])
            .map(|a| {
                let mut by = [0i64; 3];
                by[a] = 1;
                b.grow(by).intersect(&whole).cells() - b.cells()
            })
            .sum();
        if received != shell {
            return Err("the halo layers do not cover the cells the stencils read exactly once");
        }
    }
    Ok(())
}

/// Runs [`jagged_layout`] over `topology` and [`kd_layout`] with `speeds` on `grid` under a
/// cost density that is not uniform (cells within 3 of a face of the grid cost 1.86, as CPML
/// does) and checks each layout with [`verify_box_layout`]. Claims besides: no error but
/// [`LayoutError::TooManyRanks`] for valid input (and that one whenever the enabled ranks
/// outnumber the boxes of `min_width` the grid holds).
pub fn verify_layouts(
    grid: [usize; 3],
    active: [bool; 3],
    topology: Topology,
    speeds: &[f64],
    min_width: usize,
) -> Result<(), &'static str> {
    if grid.contains(&0)
        || speeds.len() != topology.ranks()
        || speeds.iter().any(|s| !(s.is_finite() && *s >= 0.0))
        || speeds.iter().all(|&s| s == 0.0)
        || (0..3).any(|a| !active[a] && (grid[a] != 1 || topology.0[a] != 1))
    {
        return Ok(());
    }
    let density = |region: Box3, axis: usize, out: &mut [f64]| {
        let e = region.extent();
        let across: f64 = (0..3).filter(|&b| b != axis).map(|b| e[b] as f64).product();
        for (i, o) in out.iter_mut().enumerate() {
            let x = region.lo[axis] + i as i64;
            let near_face = x < 3 || x >= grid[axis] as i64 - 3;
            *o = across * if near_face && active[axis] { 1.86 } else { 1.0 };
        }
    };
    let width = |a: usize| if active[a] { min_width.max(1) } else { 1 };
    let capacity: usize = (0..3).map(|a| grid[a] / width(a)).product();
    let enabled = speeds.iter().filter(|&&s| s > 0.0).count();
    let mut boxes = vec![Box3::new([0; 3], [0; 3]); speeds.len()];
    for kd in [false, true] {
        let result = if kd {
            kd_layout(grid, active, speeds, &density, min_width, &mut boxes)
        } else {
            jagged_layout(
                grid, active, topology, speeds, &density, min_width, &mut boxes,
            )
        };
        match result {
            Ok(()) if enabled > capacity => {
                return Err("more enabled ranks than boxes of the minimum width, yet no error");
            }
            Ok(()) => verify_box_layout(grid, active, speeds, &boxes)?,
            Err(LayoutError::TooManyRanks { .. }) => {}
            Err(_) => return Err("an error other than TooManyRanks for valid input"),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_broken_layout_is_caught() {
        let speeds = [1.0, 1.0];
        let a = Box3::new([0, 0, 0], [2, 4, 1]);
        let b = Box3::new([2, 0, 0], [4, 4, 1]);
        let active = [true, true, false];
        assert_eq!(
            verify_box_layout([4, 4, 1], active, &speeds, &[a, b]),
            Ok(())
        );
        let overlapping = Box3::new([1, 0, 0], [4, 4, 1]);
        assert!(verify_box_layout([4, 4, 1], active, &speeds, &[a, overlapping]).is_err());
        let short = Box3::new([2, 0, 0], [4, 3, 1]);
        assert_eq!(
            verify_box_layout([4, 4, 1], active, &speeds, &[a, short]),
            Err("some cell has no owner")
        );
        assert!(verify_box_layout([4, 4, 1], active, &[1.0, 0.0], &[a, b]).is_err());
    }

    #[test]
    fn layouts_keep_their_claims_on_small_grids() {
        let cases: [([usize; 3], [usize; 3], &[f64]); 5] = [
            (
                [7, 5, 3],
                [2, 2, 2],
                &[1.0, 1.0, 1.0, 0.2, 1.0, 1.0, 1.0, 1.0],
            ),
            ([3, 3, 1], [3, 3, 1], &[1.0; 9]),
            ([9, 2, 2], [3, 1, 1], &[0.0, 5.0, 0.1]),
            ([5, 5, 5], [1, 1, 4], &[1.0, 0.0, 0.0, 1e-9]),
            ([16, 1, 1], [4, 1, 1], &[1.0, 2.0, 3.0, 4.0]),
        ];
        for (grid, t, speeds) in cases {
            let active = grid.map(|g| g > 1);
            for min_width in [1, 2] {
                assert_eq!(
                    verify_layouts(grid, active, Topology(t), speeds, min_width),
                    Ok(()),
                    "{grid:?} {t:?} {speeds:?} {min_width}"
                );
            }
        }
    }
}
