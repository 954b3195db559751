//! The nodes a box `[lo, hi]` holds and the weight of each, by the rule that places geometry
//! (docs/scene.md, "Where geometry lands"; `yee_em::placement`): along an axis where
//! `hi > lo`, a node strictly inside counts 1 and a node exactly on `lo` or `hi` counts ½, so
//! whole-number bounds hold `hi − lo` cells for every component — nodes at whole coordinates
//! two halves and `hi − lo − 1` whole ones, nodes at half coordinates `hi − lo` whole ones.
//! A node's weight is the product over the axes: ½ on a face, ¼ on an edge, ⅛ at a corner.
//! Where `hi = lo` the box is the plane through `lo`: the node of the cell containing it,
//! weight 1 (as a point is placed).
//!
//! The grid's high face holds no node of its own: a whole-coordinate node exactly there is its
//! periodic image, the node at 0, on a periodic axis (whose weight the two halves then make
//! 1), and is left out otherwise (tangential E on a PEC face, or on the PEC behind a CPML,
//! is 0).

use yee_em::Component;

/// Why a box holds no nodes along an axis.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BoxFault {
    /// It holds no node of the component inside the grid along the axis, or leaves the grid.
    Outside {
        /// The axis (0, 1, 2).
        axis: usize,
    },
}

/// A node (the cell whose node it is) and its weight.
pub type WeightedNode = ([i64; 3], f64);

/// The nodes along one axis: (cell index, weight).
fn axis_nodes(
    lo: f64,
    hi: f64,
    stagger: f64,
    extent: usize,
    periodic: bool,
) -> Option<Vec<(i64, f64)>> {
    let n = extent as i64;
    if hi == lo {
        let c = lo.floor() as i64;
        return (0..n).contains(&c).then(|| vec![(c, 1.0)]);
    }
    // Cells whose node c + stagger lies in [lo, hi].
    let first = (lo - stagger).ceil() as i64;
    let last = (hi - stagger).floor() as i64;
    let mut nodes: Vec<(i64, f64)> = Vec::new();
    for c in first..=last {
        let p = c as f64 + stagger;
        let weight = if p == lo || p == hi { 0.5 } else { 1.0 };
        let on_high_face = c == n && stagger == 0.0 && p == hi;
        match c {
            _ if (0..n).contains(&c) => nodes.push((c, weight)),
            _ if on_high_face && periodic => match nodes.first_mut() {
                Some((0, w)) => *w += weight,
                _ => nodes.insert(0, (0, weight)),
            },
            _ if on_high_face => {}
            _ => return None,
        }
    }
    (!nodes.is_empty()).then_some(nodes)
}

/// The nodes of `component` in the box `[lo, hi]` (continuous cell coordinates, `lo ≤ hi`;
/// the first `dims` axes used, the others one cell) and their weights, x fastest.
pub fn weighted_nodes(
    component: Component,
    lo: [f64; 3],
    hi: [f64; 3],
    grid: [usize; 3],
    periodic: [bool; 3],
    dims: usize,
) -> Result<Vec<WeightedNode>, BoxFault> {
    let stagger = component.stagger();
    let mut axes: [Vec<(i64, f64)>; 3] = [vec![(0, 1.0)], vec![(0, 1.0)], vec![(0, 1.0)]];
    for axis in 0..dims {
        axes[axis] = axis_nodes(
            lo[axis],
            hi[axis],
            stagger[axis],
            grid[axis],
            periodic[axis],
        )
        .ok_or(BoxFault::Outside { axis })?;
    }
    let mut nodes = Vec::with_capacity(axes.iter().map(Vec::len).product());
    for &(z, wz) in &axes[2] {
        for &(y, wy) in &axes[1] {
            for &(x, wx) in &axes[0] {
                nodes.push(([x, y, z], wx * wy * wz));
            }
        }
    }
    Ok(nodes)
}

/// How many nodes [`weighted_nodes`] would return, without making them (to refuse a box too
/// large before allocating it): at most the nodes in `[lo, hi]` along each axis.
pub fn node_count_bound(lo: [f64; 3], hi: [f64; 3], dims: usize) -> u64 {
    (0..dims)
        .map(|a| ((hi[a] - lo[a]).max(0.0).floor() as u64).saturating_add(2))
        .fold(1u64, u64::saturating_mul)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn along(component: Component, lo: f64, hi: f64, periodic: bool) -> Vec<(i64, f64)> {
        weighted_nodes(
            component,
            [lo, 0.0, 0.0],
            [hi, 0.0, 0.0],
            [60, 1, 1],
            [periodic, false, false],
            1,
        )
        .unwrap()
        .into_iter()
        .map(|(c, w)| (c[0], w))
        .collect()
    }

    #[test]
    fn whole_bounds_hold_hi_minus_lo_cells_for_every_component() {
        let ez = along(Component::Ez, 40.0, 50.0, false);
        assert_eq!(ez.first(), Some(&(40, 0.5)));
        assert_eq!(ez.last(), Some(&(50, 0.5)));
        assert_eq!(ez.len(), 11);
        let hy = along(Component::Hy, 40.0, 50.0, false);
        assert_eq!(hy, (40..50).map(|c| (c, 1.0)).collect::<Vec<_>>());
        for nodes in [ez, hy] {
            assert_eq!(nodes.iter().map(|n| n.1).sum::<f64>(), 10.0);
        }
    }

    #[test]
    fn the_high_face_folds_onto_the_low_on_a_periodic_axis_and_is_left_out_otherwise() {
        let periodic = along(Component::Ez, 0.0, 60.0, true);
        assert_eq!(periodic.len(), 60);
        assert!(periodic.iter().all(|&(_, w)| w == 1.0));
        let closed = along(Component::Ez, 0.0, 60.0, false);
        assert_eq!(closed.first(), Some(&(0, 0.5)));
        assert_eq!(closed.len(), 60);
    }

    #[test]
    fn a_box_beyond_the_grid_or_between_nodes_is_refused() {
        let fault = |lo: f64, hi: f64| {
            weighted_nodes(
                Component::Hy,
                [lo, 0.0, 0.0],
                [hi, 0.0, 0.0],
                [60, 1, 1],
                [false; 3],
                1,
            )
        };
        assert_eq!(fault(10.0, 10.3), Err(BoxFault::Outside { axis: 0 }));
        assert_eq!(fault(50.0, 61.0), Err(BoxFault::Outside { axis: 0 }));
        assert!(fault(50.0, 60.0).is_ok());
    }
}
