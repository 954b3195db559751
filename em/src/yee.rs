//! The Yee lattice: which components each mode carries, where each one sits in its cell, the
//! curl terms of its update and the Courant limit (Yee 1966; Taflove & Hagness, 3rd ed., ch. 3–4).
//!
//! Component `C` with index `(i, j, k)` sits at `(i, j, k) + stagger(C)`: `E_a` is shifted by
//! half a cell along its own axis `a`, `H_a` by half a cell along the two other axes. E lives at
//! integer times `nΔt`, H at half-integer times `(n + ½)Δt`.

use yee_core::geometry::{Axis, Index3};

/// Dimensionality and polarisation of a simulation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Mode {
    /// 1D along x: Ez and Hy.
    OneD,
    /// 2D in the xy plane, transverse magnetic to z: Ez, Hx, Hy.
    Tmz,
    /// 2D in the xy plane, transverse electric to z: Hz, Ex, Ey.
    Tez,
    /// 3D: all six components.
    ThreeD,
}

/// One of the six field components.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Component {
    /// Electric field along x.
    Ex = 0,
    /// Electric field along y.
    Ey = 1,
    /// Electric field along z.
    Ez = 2,
    /// Magnetic field along x.
    Hx = 3,
    /// Magnetic field along y.
    Hy = 4,
    /// Magnetic field along z.
    Hz = 5,
}

/// One term `sign · ∂source/∂axis` of the curl that updates a component.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CurlTerm {
    /// The component differentiated.
    pub source: Component,
    /// The axis of the derivative.
    pub axis: Axis,
    /// +1 or −1.
    pub sign: i8,
}

impl Mode {
    /// All modes.
    pub const ALL: [Mode; 4] = [Mode::OneD, Mode::Tmz, Mode::Tez, Mode::ThreeD];

    /// Number of spatial dimensions (1, 2 or 3).
    pub const fn dims(self) -> usize {
        match self {
            Mode::OneD => 1,
            Mode::Tmz | Mode::Tez => 2,
            Mode::ThreeD => 3,
        }
    }

    /// Which axes vary: x in 1D, x and y in 2D, all in 3D. The others have extent 1.
    pub const fn active_axes(self) -> [bool; 3] {
        let d = self.dims();
        [true, d >= 2, d >= 3]
    }

    /// The components the mode carries, E first.
    pub const fn components(self) -> &'static [Component] {
        use Component::*;
        match self {
            Mode::OneD => &[Ez, Hy],
            Mode::Tmz => &[Ez, Hx, Hy],
            Mode::Tez => &[Ex, Ey, Hz],
            Mode::ThreeD => &[Ex, Ey, Ez, Hx, Hy, Hz],
        }
    }

    /// True when the mode carries `c`.
    pub fn has(self, c: Component) -> bool {
        self.components().contains(&c)
    }

    /// The largest stable Courant number `cΔt/Δx`: `1/√d` for `d` dimensions with equal cell
    /// sizes (von Neumann stability of the Yee scheme; Taflove & Hagness, 3rd ed., ch. 4).
    pub fn courant_limit(self) -> f64 {
        match self.dims() {
            1 => 1.0,
            2 => core::f64::consts::FRAC_1_SQRT_2,
            _ => 1.0 / num_traits::Float::sqrt(3.0f64),
        }
    }

    /// Name used in scene files: "1d", "tmz", "tez" or "3d".
    pub const fn name(self) -> &'static str {
        match self {
            Mode::OneD => "1d",
            Mode::Tmz => "tmz",
            Mode::Tez => "tez",
            Mode::ThreeD => "3d",
        }
    }

    /// The mode with the given scene-file name.
    pub fn from_name(name: &str) -> Option<Mode> {
        Mode::ALL.into_iter().find(|m| m.name() == name)
    }
}

impl Component {
    /// All six components, E first.
    pub const ALL: [Component; 6] = [
        Component::Ex,
        Component::Ey,
        Component::Ez,
        Component::Hx,
        Component::Hy,
        Component::Hz,
    ];

    /// Position in [`Component::ALL`].
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The axis the component points along.
    pub const fn axis(self) -> Axis {
        Axis::from_index(self.index() % 3)
    }

    /// True for Ex, Ey, Ez.
    pub const fn is_electric(self) -> bool {
        self.index() < 3
    }

    /// The electric (`true`) or magnetic component along `axis`.
    pub const fn along(axis: Axis, electric: bool) -> Component {
        Component::ALL[axis.index() + if electric { 0 } else { 3 }]
    }

    /// Offset of the component from its cell's corner, in cells (Yee 1966, Fig. 1).
    pub fn stagger(self) -> [f64; 3] {
        let a = self.axis().index();
        core::array::from_fn(|b| {
            let on_axis = a == b;
            if on_axis == self.is_electric() {
                0.5
            } else {
                0.0
            }
        })
    }

    /// Continuous position of the component of cell `p`.
    pub fn position(self, p: Index3) -> [f64; 3] {
        let s = self.stagger();
        core::array::from_fn(|a| p[a] as f64 + s[a])
    }

    /// The two curl terms of the component's update: `∂E/∂t = (∇×H)/ε`, `∂H/∂t = −(∇×E)/μ`.
    ///
    /// For `E_a` the terms are `+∂H_{a+2}/∂x_{a+1}` and `−∂H_{a+1}/∂x_{a+2}` (axes cyclic); the
    /// H terms carry the opposite signs.
    pub fn curl_terms(self) -> [CurlTerm; 2] {
        let a = self.axis();
        let (b, c) = (a.next(), a.next().next());
        let other = !self.is_electric();
        let sign: i8 = if self.is_electric() { 1 } else { -1 };
        [
            CurlTerm {
                source: Component::along(c, other),
                axis: b,
                sign,
            },
            CurlTerm {
                source: Component::along(b, other),
                axis: c,
                sign: -sign,
            },
        ]
    }

    /// Name as written in scene files and outputs: "ex" … "hz".
    pub const fn name(self) -> &'static str {
        ["ex", "ey", "ez", "hx", "hy", "hz"][self.index()]
    }

    /// The component with the given name (case-insensitive).
    pub fn from_name(name: &str) -> Option<Component> {
        Component::ALL
            .into_iter()
            .find(|c| c.name().eq_ignore_ascii_case(name))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn staggering_matches_yee() {
        assert_eq!(Component::Ex.stagger(), [0.5, 0.0, 0.0]);
        assert_eq!(Component::Ez.stagger(), [0.0, 0.0, 0.5]);
        assert_eq!(Component::Hx.stagger(), [0.0, 0.5, 0.5]);
        assert_eq!(Component::Hz.stagger(), [0.5, 0.5, 0.0]);
    }

    #[test]
    fn curl_terms_match_maxwell() {
        use Component::*;
        // ∂Ez/∂t = ∂Hy/∂x − ∂Hx/∂y
        let t = Ez.curl_terms();
        assert_eq!((t[0].source, t[0].axis, t[0].sign), (Hy, Axis::X, 1));
        assert_eq!((t[1].source, t[1].axis, t[1].sign), (Hx, Axis::Y, -1));
        // ∂Hy/∂t = −(∂Ex/∂z − ∂Ez/∂x)
        let t = Hy.curl_terms();
        assert_eq!((t[0].source, t[0].axis, t[0].sign), (Ex, Axis::Z, -1));
        assert_eq!((t[1].source, t[1].axis, t[1].sign), (Ez, Axis::X, 1));
    }

    #[test]
    fn courant_limits() {
        assert_eq!(Mode::OneD.courant_limit(), 1.0);
        assert!((Mode::Tmz.courant_limit() - 0.5f64.sqrt()).abs() < 1e-15);
        assert!((Mode::ThreeD.courant_limit() - (1.0f64 / 3.0).sqrt()).abs() < 1e-15);
    }
}
