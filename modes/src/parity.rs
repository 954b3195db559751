//! Modes of one mirror parity (Meep's `eig_parity`, MPB's `run-yeven`/`run-zodd`): about a
//! plane through the cross-section's centre normal to one of its axes, a mode is even when its
//! E, as a vector, is unchanged by the mirror (the E components parallel to the mirror even
//! functions of the coordinate, the one normal to it odd; H, a pseudovector, the other way) and
//! odd when it changes sign. The fundamental mode of a slab in a TMz scene (E along z, the
//! slab's TE mode) is even about the slab's centre plane; in 2D every mode of a TMz scene is odd
//! in z (E along z) and every mode of a TEz scene even (Meep's `ODD_Z` and `EVEN_Z`, its TM and
//! TE).
//!
//! **On the lattice.** The plane's walls lie at `u = 0` and `u = n_u` (cell units,
//! [`crate::operator`]), so the mirror is `u → n_u − u`: a node at a whole coordinate `i` maps
//! to `n_u − i` (the wall's `i = 0` to the wall at `n_u`), one at a half coordinate `i + ½` to
//! `n_u − 1 − i + ½`. When ε and μ are symmetric under it the mode operator commutes with the
//! mirror, and the eigenproblem splits into the even and the odd subspace: the solver runs its
//! Arnoldi iteration on `Π (P − σI)⁻¹ Π`, `Π = (1 ± M)/2` the projector on the wanted
//! subspace (M the mirror with the vector's signs), whose other eigenvalues are 0 and never
//! wanted (Saad 2011, §4.3: an invariant subspace of the shift-inverted operator). Along an
//! axis a 2D scene lacks, the parity is fixed by the components the scene carries.

use yee_core::geometry::Axis;

use crate::cross_section::CrossSection;
use crate::error::ModeError;

/// The parity wanted about each grid axis (x, y, z): `Some(true)` even, `Some(false)` odd,
/// `None` either (module docs). The default asks for none.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Parity {
    /// Per grid axis.
    pub even: [Option<bool>; 3],
}

impl Parity {
    /// Whether any parity is asked for.
    pub fn is_some(&self) -> bool {
        self.even.iter().any(Option::is_some)
    }

    /// ` of parity odd_y`, to follow a mode's number or a count of modes in a message; empty
    /// when no parity is asked for.
    pub fn phrase(&self) -> String {
        match self.is_some() {
            true => format!(" of parity {self}"),
            false => String::new(),
        }
    }

    /// Whether `e` is a parity error: one the `parity` key caused, not the plane or the mode.
    pub fn caused(e: &ModeError) -> bool {
        matches!(
            e,
            ModeError::ParityAlongNormal { .. }
                | ModeError::ParityOfPolarisation { .. }
                | ModeError::NotSymmetric { .. }
        )
    }
}

/// As the scene's `parity` key spells it: `even_y+odd_z`, `any` for none.
impl std::fmt::Display for Parity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let words: Vec<String> = [Axis::X, Axis::Y, Axis::Z]
            .into_iter()
            .filter_map(|a| {
                let even = self.even[a.index()]?;
                Some(format!(
                    "{}_{}",
                    if even { "even" } else { "odd" },
                    a.name()
                ))
            })
            .collect();
        if words.is_empty() {
            write!(f, "any")
        } else {
            write!(f, "{}", words.join("+"))
        }
    }
}

/// Relative difference of ε or μ below which two mirrored nodes count as equal (rounding in
/// the placement of a centred shape's faces).
const SYMMETRY_TOLERANCE: f64 = 1e-9;

/// Whether component `k` of the E triple `(E_u, E_v, E_p)` (k < 3) or H triple `(H_u, H_v,
/// H_p)` (k ≥ 3) has its nodes at half coordinates along the plane's axis `slot` (0: u, 1: v).
fn at_half(k: usize, slot: usize) -> bool {
    // E_u (i + ½, j), E_v (i, j + ½), E_p (i, j); H_u (i, j + ½), H_v (i + ½, j), H_p at both.
    const HALF: [[bool; 6]; 2] = [
        [true, false, false, false, true, true],
        [false, true, false, true, false, true],
    ];
    HALF[slot][k]
}

/// The mirror partner along `slot` of node `n` of a component at half (`half`) or whole
/// coordinates along it; `None` for the wall node at 0, whose partner is the far wall.
fn partner(cs: &CrossSection, slot: usize, half: bool, n: usize) -> Option<usize> {
    let [nu, _] = cs.size;
    let (i, j) = (n % nu, n / nu);
    let size = cs.size[slot];
    let c = [i, j][slot];
    let m = match (half, c) {
        (true, _) => size - 1 - c,
        (false, 0) => return None,
        (false, _) => size - c,
    };
    Some(if slot == 0 { m + nu * j } else { i + nu * m })
}

/// The axes of `cs`'s plane along which `parity` mirrors, with the sign (+1 even, −1 odd):
/// an error for a parity along the normal, along an axis a 2D scene lacks that its modes do
/// not have, and along a plane axis about whose centre ε or μ is not symmetric.
pub fn mirrors(cs: &CrossSection, parity: &Parity) -> Result<Vec<(usize, f64)>, ModeError> {
    let mut out = Vec::new();
    for axis in [Axis::X, Axis::Y, Axis::Z] {
        let Some(even) = parity.even[axis.index()] else {
            continue;
        };
        let Some(slot) = cs.axes.iter().position(|&a| a == axis) else {
            return Err(ModeError::ParityAlongNormal { axis });
        };
        if !cs.active[slot] {
            // Fields constant along the axis: E along it is odd, E across it even.
            let along = cs.carried[slot];
            let across = cs.carried[1 - slot] || cs.carried[2];
            if (even && along) || (!even && across) {
                return Err(ModeError::ParityOfPolarisation { axis, even: !even });
            }
            continue;
        }
        check_symmetric(cs, slot)?;
        out.push((slot, if even { 1.0 } else { -1.0 }));
    }
    Ok(out)
}

/// An error naming the first pair of mirrored nodes of `cs` along `slot` whose ε or μ differ
/// (of the components the scene carries).
fn check_symmetric(cs: &CrossSection, slot: usize) -> Result<(), ModeError> {
    let axis = cs.axes[slot];
    let [nu, _] = cs.size;
    for k in (0..6).filter(|&k| cs.carried[k]) {
        let values = if k < 3 { &cs.eps[k] } else { &cs.mu[k - 3] };
        let half = at_half(k, slot);
        for (n, &a) in values.iter().enumerate() {
            let Some(m) = partner(cs, slot, half, n) else {
                continue;
            };
            let b = values[m];
            let equal = a == b || (a - b).abs() <= SYMMETRY_TOLERANCE * a.abs().max(b.abs());
            if !equal {
                let coordinate = [n % nu, n / nu][slot] as f64 + if half { 0.5 } else { 0.0 };
                return Err(ModeError::NotSymmetric {
                    axis,
                    centre: cs.size[slot] as f64 / 2.0,
                    component: (k < 3, cs.axes.get(k % 3).copied().unwrap_or(cs.normal)),
                    at: coordinate,
                    values: [a, b],
                });
            }
        }
    }
    Ok(())
}

/// Projects `x`, the solver's unknowns (`E_u`, `E_v` of node n at `2n`, `2n + 1`), onto the
/// subspace of the parities `mirrors` ([`mirrors`]): `x ← (x ± M x)/2` per mirror.
pub fn project(cs: &CrossSection, mirrors: &[(usize, f64)], x: &mut [f64]) {
    for &(slot, sign) in mirrors {
        let mirrored: Vec<f64> = (0..x.len())
            .map(|k| {
                let (n, c) = (k / 2, k % 2);
                // E_u is the normal component of a mirror along u, E_v of one along v.
                let normal = c == slot;
                match partner(cs, slot, at_half(c, slot), n) {
                    Some(m) => x[2 * m + c] * if normal { -sign } else { sign },
                    None => 0.0,
                }
            })
            .collect();
        for (xk, mk) in x.iter_mut().zip(mirrored) {
            *xk = 0.5 * (*xk + mk);
        }
    }
}
