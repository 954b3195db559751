//! The fraction of a grid voxel on one side of a plane: the filling fraction subpixel smoothing
//! ([`crate::smoothing`]) weighs the two materials of an interface by, with the interface
//! taken as its tangent plane inside the voxel.
//!
//! The box `Π[−hₐ, hₐ]` cut by `n·u ≤ t` becomes, by `uₐ = hₐ(2wₐ − 1)` and a reflection of the
//! axes where `nₐ < 0`, the unit cube `[0, 1]^d` cut by `k·w ≤ T` with `kₐ = 2|nₐ|hₐ ≥ 0` and
//! `T = t + Σ|nₐ|hₐ`, whose volume is the inclusion–exclusion sum
//! `V = Σ_{v ∈ {0,1}^d} (−1)^{|v|} max(0, T − k·v)^d / (d! Π kₐ)` (the volume of a cube cut by a
//! plane, as volume-of-fluid codes compute it: Scardovelli & Zaleski 2000, *J. Comput. Phys.*
//! 164, 228–237, eq. (9)). Axes of zero extent, and axes the plane is (numerically) parallel
//! to, drop out of the product.

// Float gives f64 its math in a pure no_std build.
#[allow(unused_imports)]
use num_traits::Float;

/// Entries of `k` below this fraction of the largest are taken as zero: dropping them tilts the
/// plane by less than that, and keeping them would cancel digits in the sum.
const PARALLEL: f64 = 1e-7;

/// The fraction of the box `Π[−half[a], half[a]]` (axes with `half[a] > 0`) where `n·u ≤ t`.
pub fn fraction_below(n: [f64; 3], t: f64, half: [f64; 3]) -> f64 {
    let mut k = [0.0; 3];
    let mut shift = t;
    let mut d = 0;
    for a in 0..3 {
        if half[a] > 0.0 {
            k[d] = 2.0 * n[a].abs() * half[a];
            shift += n[a].abs() * half[a];
            d += 1;
        }
    }
    let largest = k[..d].iter().fold(0.0f64, |m, &x| m.max(x));
    if largest == 0.0 {
        // A plane parallel to every extent (or a point): all or nothing.
        return if t >= 0.0 { 1.0 } else { 0.0 };
    }
    let mut kept = [0.0; 3];
    let mut dims = 0;
    for &x in &k[..d] {
        if x > PARALLEL * largest {
            kept[dims] = x;
            dims += 1;
        }
    }
    cube_below(&kept[..dims], shift)
}

/// The volume of `{w ∈ [0, 1]^d : k·w ≤ t}` for `k > 0` (module docs).
fn cube_below(k: &[f64], t: f64) -> f64 {
    let total: f64 = k.iter().sum();
    if t <= 0.0 {
        return 0.0;
    }
    if t >= total {
        return 1.0;
    }
    if t > total / 2.0 {
        // The complement is the same cut seen from the opposite corner: fewer terms cancel.
        return 1.0 - cube_below(k, total - t);
    }
    let d = k.len();
    let mut sum = 0.0;
    for v in 0..(1u32 << d) {
        let corner: f64 = (0..d).filter(|a| v & (1 << a) != 0).map(|a| k[a]).sum();
        let reach = t - corner;
        if reach > 0.0 {
            let term = reach.powi(d as i32);
            sum += if v.count_ones() % 2 == 0 { term } else { -term };
        }
    }
    let factorial = (1..=d).product::<usize>() as f64;
    (sum / (factorial * k.iter().product::<f64>())).clamp(0.0, 1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    const CUBE: [f64; 3] = [0.5; 3];

    /// The fraction by counting the points of a fine lattice: an independent estimate.
    fn sampled(n: [f64; 3], t: f64, half: [f64; 3]) -> f64 {
        let m = 200;
        let steps = half.map(|h| if h > 0.0 { m } else { 1 });
        let mut inside = 0usize;
        for i in 0..steps[0] {
            for j in 0..steps[1] {
                for l in 0..steps[2] {
                    let at = |a: usize, s: usize| {
                        if half[a] > 0.0 {
                            -half[a] + 2.0 * half[a] * (s as f64 + 0.5) / m as f64
                        } else {
                            0.0
                        }
                    };
                    let u = [at(0, i), at(1, j), at(2, l)];
                    inside += usize::from(n[0] * u[0] + n[1] * u[1] + n[2] * u[2] <= t);
                }
            }
        }
        inside as f64 / steps.iter().product::<usize>() as f64
    }

    #[test]
    fn axis_planes_cut_the_cube_linearly() {
        for t in [-0.6, -0.5, -0.25, 0.0, 0.1, 0.5, 0.7] {
            let expect = (t + 0.5f64).clamp(0.0, 1.0);
            assert!((fraction_below([1.0, 0.0, 0.0], t, CUBE) - expect).abs() < 1e-12);
            assert!((fraction_below([0.0, 0.0, -1.0], t, CUBE) - expect).abs() < 1e-12);
        }
    }

    #[test]
    fn a_diagonal_plane_through_the_centre_halves_the_square_and_the_cube() {
        let s = core::f64::consts::FRAC_1_SQRT_2;
        let square = [0.5, 0.5, 0.0];
        assert!((fraction_below([s, s, 0.0], 0.0, square) - 0.5).abs() < 1e-12);
        let third = 1.0 / 3.0f64.sqrt();
        assert!((fraction_below([third; 3], 0.0, CUBE) - 0.5).abs() < 1e-12);
        // The corner cut x + y ≤ −1 + ε of the square is a triangle of area ε²/2.
        let e = 0.1;
        let got = fraction_below([s, s, 0.0], s * (-1.0 + e), square);
        assert!((got - e * e / 2.0).abs() < 1e-12, "{got}");
    }

    #[test]
    fn oblique_planes_match_a_sampled_count() {
        let planes = [
            ([0.3, -0.5, 0.81], 0.1),
            ([0.9, 0.1, -0.2], -0.3),
            ([-0.2, -0.7, 0.4], 0.45),
            ([1e-9, 0.6, 0.8], 0.05),
        ];
        for (n, t) in planes {
            let norm = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
            let n = n.map(|x| x / norm);
            for half in [CUBE, [0.5, 0.5, 0.0]] {
                let exact = fraction_below(n, t, half);
                let count = sampled(n, t, half);
                assert!(
                    (exact - count).abs() < 5e-3,
                    "{n:?} {t} {half:?}: {exact} vs {count}"
                );
            }
        }
    }
}
