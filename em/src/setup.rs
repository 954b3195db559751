//! The description of a single-grid simulation and its validation.
//!
//! A [`Setup`] borrows its lists from the caller, so the core needs no allocation to hold or
//! check one. Backends build their chunks from it; the scene loader of the `yee` command fills
//! it from a file.

use crate::cpml::CpmlParams;
use crate::dft::DftMonitor;
use crate::error::SetupError;
use crate::material::Material;
use crate::plane_wave::PlaneWave;
use crate::pole::Pole;
use crate::shape::Shape;
use crate::waveform::Waveform;
use crate::yee::{Component, Mode};
use yee_core::geometry::{Axis, Box3, Index3, Side};

/// The largest extent accepted along one axis: coordinates and products stay far from overflow.
pub const MAX_EXTENT: usize = 1 << 24;

/// What happens at one face of the grid.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Boundary {
    /// Perfect electric conductor: tangential E is zero on the face.
    Pec,
    /// Perfect magnetic conductor: tangential H is zero half a cell inside the face.
    Pmc,
    /// The face wraps to the opposite one (both faces of the axis must say so).
    Periodic,
    /// An absorbing CPML layer inside the grid, backed by PEC.
    Cpml(CpmlParams),
}

impl Boundary {
    /// Name used in scene files and messages.
    pub const fn name(&self) -> &'static str {
        match self {
            Boundary::Pec => "pec",
            Boundary::Pmc => "pmc",
            Boundary::Periodic => "periodic",
            Boundary::Cpml(_) => "cpml",
        }
    }
}

/// Boundaries of all six faces, indexed `[axis][side]`.
pub type Boundaries = [[Boundary; 2]; 3];

/// A material filling a shape. Regions are applied in order; later ones win. Where a region
/// lands on the nodes of the grid is [`crate::placement`]'s business.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Region {
    /// Where.
    pub shape: Shape,
    /// What.
    pub material: Material,
}

/// Soft sources add to the updated field; hard sources overwrite it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SourceKind {
    /// Adds `curl coefficient × amplitude × w(t)` after the update: an impressed current.
    Soft,
    /// Sets the field to `amplitude × w(t)`.
    Hard,
}

/// A source at one node of the Yee lattice.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PointSource {
    /// The component driven.
    pub component: Component,
    /// The cell whose `component` node is driven.
    pub cell: Index3,
    /// Time dependence.
    pub waveform: Waveform,
    /// Scale of the waveform.
    pub amplitude: f64,
    /// Soft or hard.
    pub kind: SourceKind,
}

/// A probe recording one component at one node after every step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Probe {
    /// The component recorded.
    pub component: Component,
    /// The cell whose `component` node is recorded.
    pub cell: Index3,
}

/// Everything a backend needs to build and run one grid.
#[derive(Clone, Copy, Debug)]
pub struct Setup<'a> {
    /// Dimensionality and polarisation.
    pub mode: Mode,
    /// Cells along x, y, z; 1 on the axes the mode does not use.
    pub grid: [usize; 3],
    /// Courant number `cΔt/Δx`; `Δt` equals it in normalised units.
    pub courant: f64,
    /// The material where no region applies.
    pub background: Material,
    /// The dispersive poles materials name ([`Material::poles`]); empty when none is
    /// dispersive.
    pub poles: &'a [Pole],
    /// Material regions, later ones on top.
    pub regions: &'a [Region],
    /// Face boundaries `[axis][side]`; ignored on unused axes.
    pub boundaries: Boundaries,
    /// Point sources.
    pub sources: &'a [PointSource],
    /// Probes.
    pub probes: &'a [Probe],
    /// TF/SF plane waves.
    pub plane_waves: &'a [PlaneWave],
    /// DFT monitors.
    pub monitors: &'a [DftMonitor],
    /// The monitors' frequencies (each monitor names its part).
    pub frequencies: &'a [f64],
    /// The active cells (one value per cell, x fastest), or `None` when all are. Inactive
    /// cells are not computed: every field component they index stays exactly zero, so
    /// they act as perfect conductors (Smyk & Tudruj 2011's irregular computational areas).
    pub active: Option<&'a [bool]>,
    /// Subpixel smoothing of curved interfaces ([`crate::smoothing`]); `false` staircases
    /// them ([`crate::placement`]).
    pub smoothing: bool,
    /// Smoothing keeps the off-diagonal entries of the effective `ε̃⁻¹` and `μ̃⁻¹` at nodes
    /// whose surface normal lies off the axes, run by the tensor update
    /// ([`Setup::smoothed_off_diagonal`]); `false` keeps the diagonal alone, what a backend
    /// without the tensor update (the tile-set and box layouts) runs.
    pub smoothing_tensor: bool,
    /// The Bloch wavevector `k` in cycles per cell on each axis ([`crate::bloch`]): fields on a
    /// periodic axis of `N` cells obey `F(x + N) = e^{i 2π k N} F(x)`. Zero (plain periodic)
    /// on every axis unless the axis is periodic; non-zero needs complex fields.
    pub bloch: [f64; 3],
}

impl Setup<'static> {
    /// Vacuum on `grid` inside `boundaries`, with no regions, sources, probes, plane waves or
    /// monitors: the start of a setup built in code (fill the rest with `..`).
    pub const fn vacuum(
        mode: Mode,
        grid: [usize; 3],
        courant: f64,
        boundaries: Boundaries,
    ) -> Self {
        Setup {
            mode,
            grid,
            courant,
            background: Material::VACUUM,
            poles: &[],
            regions: &[],
            boundaries,
            sources: &[],
            probes: &[],
            plane_waves: &[],
            monitors: &[],
            frequencies: &[],
            active: None,
            smoothing: true,
            smoothing_tensor: true,
            bloch: [0.0; 3],
        }
    }
}

impl Setup<'_> {
    /// The time step (normalised: equal to the Courant number).
    pub fn dt(&self) -> f64 {
        self.courant
    }

    /// Whether some node may carry off-diagonal ε⁻¹ or μ⁻¹ (a general anisotropic material,
    /// [`crate::material::Coupling`], or a smoothed curved surface,
    /// [`Setup::smooths_off_diagonal`]): its chunks then run the tensor update and exchange
    /// the whole shell of ghosts ([`crate::halo::HaloShape::Shell`]).
    pub fn has_tensor_nodes(&self) -> bool {
        self.has_tensor_materials() || self.smooths_off_diagonal()
    }

    /// Whether some material has a [`crate::material::Coupling`] (a full ε or μ tensor).
    pub fn has_tensor_materials(&self) -> bool {
        self.materials().any(|m| m.coupling.is_some())
    }

    /// Whether smoothing may give some node off-diagonal entries
    /// ([`Setup::smoothed_off_diagonal`]): [`Setup::smooths_region_off_diagonal`] for some
    /// region and field.
    pub fn smooths_off_diagonal(&self) -> bool {
        (self.regions.iter()).any(|r| {
            self.smooths_region_off_diagonal(r, true) || self.smooths_region_off_diagonal(r, false)
        })
    }

    /// Whether smoothing may give nodes of the `electric` field (else the magnetic) beside
    /// `region`'s surface off-diagonal entries: it is on with [`Setup::smoothing_tensor`], the
    /// region is a sphere or cylinder of an isotropic material (non-dispersive, for E) with a
    /// permittivity (E) or permeability (H) that another such material lacks, in a mode that
    /// carries two components of that field.
    pub fn smooths_region_off_diagonal(&self, region: &crate::Region, electric: bool) -> bool {
        if !(self.smoothing && self.smoothing_tensor) {
            return false;
        }
        let carried = (self.mode.components().iter())
            .filter(|c| c.is_electric() == electric)
            .count();
        let plain = |m: &Material| {
            m.diagonal.is_none() && m.coupling.is_none() && !(electric && m.is_dispersive())
        };
        let of = |m: &Material| if electric { m.eps } else { m.mu };
        carried >= 2
            && matches!(region.shape, Shape::Sphere { .. } | Shape::Cylinder { .. })
            && plain(&region.material)
            && self
                .materials()
                .any(|m| plain(m) && of(m) != of(&region.material))
    }

    /// The background's and the regions' materials.
    pub(crate) fn materials(&self) -> impl Iterator<Item = &Material> + '_ {
        core::iter::once(&self.background).chain(self.regions.iter().map(|r| &r.material))
    }

    /// Total number of cells.
    pub fn cells(&self) -> usize {
        self.grid.iter().product()
    }

    /// The material a node at continuous position `p` takes: the last region holding it, else
    /// the background, and on a shape's surface the mean of both sides
    /// ([`crate::placement`]).
    pub fn material_at(&self, p: [f64; 3]) -> Material {
        self.placement(p).material(self, None)
    }

    /// True when `cell` (inside the grid) is computed: the mask is absent or marks it active.
    pub fn is_active(&self, cell: Index3) -> bool {
        self.active.is_none_or(|mask| {
            let [x, y, z] = cell.map(|c| c as usize);
            mask[x + self.grid[0] * (y + self.grid[1] * z)]
        })
    }

    /// The CPML layer on a face, if that face has one and the axis is active.
    pub fn cpml(&self, axis: Axis, side: Side) -> Option<&CpmlParams> {
        if !self.mode.active_axes()[axis.index()] {
            return None;
        }
        match &self.boundaries[axis.index()][side.index()] {
            Boundary::Cpml(p) => Some(p),
            _ => None,
        }
    }

    /// The CPML layers as `(axis, box)`, in axis then side order.
    pub fn cpml_layers_with_axes(&self) -> impl Iterator<Item = (Axis, Box3)> + '_ {
        Axis::ALL.into_iter().flat_map(move |axis| {
            Side::BOTH.into_iter().filter_map(move |side| {
                let p = self.cpml(axis, side)?;
                let (n, t) = (self.grid[axis.index()] as i64, p.thickness as i64);
                let whole = Box3::from_extent(self.grid);
                Some((
                    axis,
                    match side {
                        Side::Low => whole.with_bound(axis, Side::High, t),
                        Side::High => whole.with_bound(axis, Side::Low, n - t),
                    },
                ))
            })
        })
    }

    /// The CPML layer boxes.
    pub fn cpml_layers(&self) -> impl Iterator<Item = Box3> + '_ {
        self.cpml_layers_with_axes().map(|(_, b)| b)
    }

    /// True when `axis` is active and periodic.
    pub fn is_periodic(&self, axis: Axis) -> bool {
        self.mode.active_axes()[axis.index()]
            && self.boundaries[axis.index()][0] == Boundary::Periodic
    }

    /// Checks that fields of a complex (`complex`) or real element type can run this setup:
    /// a Bloch phase ([`Setup::bloch`]) needs complex fields.
    pub fn validate_value_type(&self, complex: bool) -> Result<(), SetupError> {
        match crate::bloch::is_bloch(self) && !complex {
            true => Err(SetupError::BlochNeedsComplex { k: self.bloch }),
            false => Ok(()),
        }
    }

    /// Checks every value; the first problem found is returned with the offending value.
    pub fn validate(&self) -> Result<(), SetupError> {
        self.validate_grid()?;
        self.validate_courant()?;
        validate_material(&self.background, None)?;
        check_poles(&self.background, None, self.poles, self.mode, self.courant)?;
        check_material_speed(&self.background, None, self.mode, self.courant)?;
        for (index, region) in self.regions.iter().enumerate() {
            if let Some(parameter) = region.shape.invalid_parameter() {
                return Err(SetupError::InvalidShape {
                    region: index,
                    parameter,
                });
            }
            validate_material(&region.material, Some(index))?;
            check_poles(
                &region.material,
                Some(index),
                self.poles,
                self.mode,
                self.courant,
            )?;
            check_material_speed(&region.material, Some(index), self.mode, self.courant)?;
        }
        self.validate_boundaries()?;
        self.validate_tensor_reach()?;
        for (index, s) in self.sources.iter().enumerate() {
            self.validate_node("source", index, s.component, s.cell)?;
            if let Some(parameter) = s.waveform.invalid_parameter() {
                return Err(SetupError::InvalidWaveform {
                    source: index,
                    parameter,
                });
            }
            if !s.amplitude.is_finite() {
                return Err(SetupError::InvalidAmplitude {
                    source: index,
                    value: s.amplitude,
                });
            }
        }
        if let Some(mask) = self.active {
            if mask.len() != self.cells() {
                return Err(SetupError::MaskLength {
                    mask: mask.len(),
                    cells: self.cells(),
                });
            }
            if !mask.contains(&true) {
                return Err(SetupError::MaskEmpty);
            }
            if let Some((index, s)) = self
                .sources
                .iter()
                .enumerate()
                .find(|(_, s)| !self.is_active(s.cell))
            {
                return Err(SetupError::SourceInactive {
                    source: index,
                    cell: s.cell,
                });
            }
        }
        for (index, p) in self.probes.iter().enumerate() {
            self.validate_node("probe", index, p.component, p.cell)?;
        }
        for (index, w) in self.plane_waves.iter().enumerate() {
            self.validate_plane_wave(index, w)?;
        }
        for (index, m) in self.monitors.iter().enumerate() {
            self.validate_monitor(index, m)?;
        }
        Ok(())
    }

    /// The plane wave's own parameters, then every node its surface corrections touch: they
    /// must be background, outside CPML and active.
    fn validate_plane_wave(&self, wave: usize, w: &PlaneWave) -> Result<(), SetupError> {
        let periodic = Axis::ALL.map(|a| self.is_periodic(a));
        if let Some(parameter) = w.invalid_parameter(self.mode, self.grid, periodic) {
            return Err(SetupError::InvalidPlaneWave { wave, parameter });
        }
        if self.background.is_dispersive() {
            return Err(SetupError::InvalidPlaneWave {
                wave,
                parameter: "background (dispersive: the incident line carries plain media only)",
            });
        }
        if self.background.diagonal.is_some() {
            return Err(SetupError::InvalidPlaneWave {
                wave,
                parameter: "background (anisotropic: the incident line carries isotropic media only)",
            });
        }
        let background = crate::medium::NodeMedium::whole(self.background);
        let layers: alloc::vec::Vec<Box3> = self.cpml_layers().collect();
        let mut problem = None;
        for &c in self.mode.components() {
            let whole = Box3::from_extent(self.grid);
            crate::plane_wave::crossings(w, self.mode, c, whole, |cell, _, _| {
                if problem.is_some() {
                    return;
                }
                let what = if layers.iter().any(|l| l.contains(cell)) {
                    "a CPML layer"
                } else if !self.is_active(cell) {
                    "an inactive cell"
                } else if self.node_medium(c, cell) != background {
                    "a material region"
                } else {
                    return;
                };
                problem = Some(SetupError::PlaneWaveSurface {
                    wave,
                    component: c,
                    cell,
                    what,
                });
            });
        }
        problem.map_or(Ok(()), Err)
    }

    fn validate_monitor(&self, monitor: usize, m: &DftMonitor) -> Result<(), SetupError> {
        let bad = |parameter| Err(SetupError::InvalidMonitor { monitor, parameter });
        if m.region.is_empty() || !Box3::from_extent(self.grid).contains_box(&m.region) {
            return bad("region (empty or outside the grid)");
        }
        let Some(frequencies) = self
            .frequencies
            .get(m.first..m.first.saturating_add(m.count))
        else {
            return bad("frequencies (beyond the setup's table)");
        };
        if frequencies.is_empty() {
            return bad("frequencies (none)");
        }
        if frequencies.iter().any(|f| !(f.is_finite() && *f >= 0.0)) {
            return bad("frequencies (negative or not finite)");
        }
        if m.component_list().any(|c| !self.mode.has(c)) {
            return bad("components (one the mode does not carry)");
        }
        if !m.components.contains(&true) {
            return bad("components (none)");
        }
        Ok(())
    }

    /// The frequencies of monitor `m` (validated).
    pub fn frequencies_of(&self, m: &DftMonitor) -> &[f64] {
        &self.frequencies[m.first..m.first + m.count]
    }

    fn validate_grid(&self) -> Result<(), SetupError> {
        let active = self.mode.active_axes();
        for axis in Axis::ALL {
            let n = self.grid[axis.index()];
            if active[axis.index()] {
                if n == 0 {
                    return Err(SetupError::ZeroExtent { axis });
                }
                if n > MAX_EXTENT {
                    return Err(SetupError::ExtentTooLarge {
                        axis,
                        extent: n,
                        max: MAX_EXTENT,
                    });
                }
            } else if n != 1 {
                return Err(SetupError::UnusedAxisExtent {
                    axis,
                    extent: n,
                    mode: self.mode,
                });
            }
        }
        let cells = self
            .grid
            .iter()
            .try_fold(1usize, |acc, &n| acc.checked_mul(n));
        if cells.is_none_or(|c| c.checked_mul(6 * 16).is_none()) {
            return Err(SetupError::TooManyCells { grid: self.grid });
        }
        Ok(())
    }

    /// No material with a [`crate::material::Coupling`] within two cells of a CPML layer:
    /// the background (which fills the layers) not at all, a region's shape by its bounds.
    fn validate_tensor_reach(&self) -> Result<(), SetupError> {
        let layers: alloc::vec::Vec<Box3> = self.cpml_layers().collect();
        if layers.is_empty() {
            return Ok(());
        }
        if self.background.coupling.is_some() {
            return Err(SetupError::TensorInCpml { region: None });
        }
        for (index, r) in self.regions.iter().enumerate() {
            if r.material.coupling.is_none() {
                continue;
            }
            let (lo, hi) = r.shape.bounds();
            let reach = Box3::new(
                core::array::from_fn(|a| {
                    (num_traits::Float::floor(lo[a]) as i64).saturating_sub(2)
                }),
                core::array::from_fn(|a| (num_traits::Float::ceil(hi[a]) as i64).saturating_add(2)),
            );
            if layers.iter().any(|l| !l.intersect(&reach).is_empty()) {
                return Err(SetupError::TensorInCpml {
                    region: Some(index),
                });
            }
        }
        Ok(())
    }

    fn validate_courant(&self) -> Result<(), SetupError> {
        let limit = self.mode.courant_limit();
        if !(self.courant.is_finite() && self.courant > 0.0) {
            return Err(SetupError::CourantNotPositive {
                courant: self.courant,
            });
        }
        // Allow rounding in a limit typed as a decimal, e.g. 0.5773502691896258.
        if self.courant > limit * (1.0 + 1e-12) {
            return Err(SetupError::CourantAboveLimit {
                courant: self.courant,
                limit,
                mode: self.mode,
            });
        }
        Ok(())
    }

    fn validate_boundaries(&self) -> Result<(), SetupError> {
        let active = self.mode.active_axes();
        for axis in Axis::ALL {
            if !active[axis.index()] {
                continue;
            }
            let [low, high] = self.boundaries[axis.index()];
            if (low == Boundary::Periodic) != (high == Boundary::Periodic) {
                return Err(SetupError::HalfPeriodic { axis });
            }
            let k = self.bloch[axis.index()];
            if !k.is_finite() || (k != 0.0 && low != Boundary::Periodic) {
                return Err(SetupError::InvalidBloch { axis, k });
            }
            let n = self.grid[axis.index()];
            let mut total = 0;
            for side in Side::BOTH {
                if let Some(p) = self.cpml(axis, side) {
                    let bad = |parameter| SetupError::InvalidCpml {
                        axis,
                        side,
                        parameter,
                    };
                    if p.thickness == 0 {
                        return Err(bad("thickness"));
                    }
                    if !(p.order.is_finite() && p.order >= 0.0) {
                        return Err(bad("order"));
                    }
                    if p.sigma_max.is_some_and(|s| !(s.is_finite() && s >= 0.0)) {
                        return Err(bad("sigma_max"));
                    }
                    if !(p.kappa_max.is_finite() && p.kappa_max >= 1.0) {
                        return Err(bad("kappa_max"));
                    }
                    if !(p.alpha_max.is_finite() && p.alpha_max >= 0.0) {
                        return Err(bad("alpha_max"));
                    }
                    if 2 * p.thickness > n {
                        return Err(SetupError::CpmlTooThick {
                            axis,
                            side,
                            thickness: p.thickness,
                            extent: n,
                        });
                    }
                    total += p.thickness;
                }
            }
            if total > n {
                return Err(SetupError::CpmlOverlap {
                    axis,
                    total,
                    extent: n,
                });
            }
        }
        Ok(())
    }

    fn validate_node(
        &self,
        what: &'static str,
        index: usize,
        component: Component,
        cell: Index3,
    ) -> Result<(), SetupError> {
        if !self.mode.has(component) {
            return Err(SetupError::ComponentNotInMode {
                what,
                index,
                component,
                mode: self.mode,
            });
        }
        let inside = (0..3).all(|a| cell[a] >= 0 && (cell[a] as u64) < self.grid[a] as u64);
        if !inside {
            return Err(SetupError::OutsideGrid {
                what,
                index,
                cell,
                grid: self.grid,
            });
        }
        Ok(())
    }
}

fn validate_material(m: &Material, region: Option<usize>) -> Result<(), SetupError> {
    let bad = |parameter, value| SetupError::InvalidMaterial {
        region,
        parameter,
        value,
    };
    let names = [
        ["eps", "eps[0] (x)", "eps[1] (y)", "eps[2] (z)"],
        ["mu", "mu[0] (x)", "mu[1] (y)", "mu[2] (z)"],
    ];
    let d = m.diagonals();
    for ((value, diagonal), name) in [m.eps, m.mu].into_iter().zip([d.eps, d.mu]).zip(names) {
        if !(value.is_finite() && value > 0.0) {
            return Err(bad(name[0], value));
        }
        for (a, v) in diagonal.into_iter().enumerate() {
            if !(v.is_finite() && v > 0.0) {
                return Err(bad(name[a + 1], v));
            }
        }
    }
    if !(m.sigma.is_finite() && m.sigma >= 0.0) {
        return Err(bad("sigma", m.sigma));
    }
    if !(m.sigma_m.is_finite() && m.sigma_m >= 0.0) {
        return Err(bad("sigma_m", m.sigma_m));
    }
    Ok(())
}

/// The speed light may reach in `m` (of region `region`, `None`: the background) on a `mode`
/// grid at Courant number `courant`: within the `mode`'s limit scaled by
/// `√(λmin(ε) λmin(μ))`, the slowest a wave of the material may travel relative to vacuum's
/// fastest — a scalar `eps` below 1 is as much a faster medium as a tensor's small eigenvalue.
/// For a general anisotropic `m` (a [`crate::material::Coupling`]), no poles: the off-diagonal
/// update's four-node averages have norm at most 1, so the lattice's operator is bounded by
/// the tensor's largest eigenvalue of `ε⁻¹` (Werner & Cary 2007, *J. Comput. Phys.* 226, 1085,
/// sec. 3). A dispersive `m`'s bound is its permittivity at the Nyquist frequency
/// ([`check_poles`]).
pub fn check_material_speed(
    m: &Material,
    region: Option<usize>,
    mode: Mode,
    courant: f64,
) -> Result<(), SetupError> {
    if m.is_dispersive() {
        return match m.coupling {
            Some(_) => Err(SetupError::TensorWithPoles { region }),
            None => Ok(()),
        };
    }
    let [eps_low, _] = crate::tensor::extreme_eigenvalues(&m.full_tensor(true));
    let [mu_low, _] = crate::tensor::extreme_eigenvalues(&m.full_tensor(false));
    let slowest = num_traits::Float::sqrt(eps_low * mu_low).min(1.0);
    let limit = mode.courant_limit() * slowest;
    if courant > limit * (1.0 + 1e-12) {
        return Err(SetupError::MaterialCourant {
            region,
            courant,
            limit,
        });
    }
    Ok(())
}

/// The poles of `m` (of region `region`, `None`: the background) in `table` on a `mode`
/// grid at Courant number `courant` (Δt): in the table, each in
/// range and stable at the time step, and the material's permittivity at the Nyquist
/// frequency, `ε∞ + Σχₚ(1/2Δt)`, still large enough for the Courant number: a mode of the
/// grid's highest frequency travels at `1/√(εμ)`, so `εμ ≥ d S²` in d dimensions (the
/// lossless Drude bound `ε∞ − ωₚ²Δt²/4 ≥ d S²` of the explicit ADE).
pub fn check_poles(
    m: &Material,
    region: Option<usize>,
    table: &[Pole],
    mode: Mode,
    courant: f64,
) -> Result<(), SetupError> {
    if m.poles.is_empty() {
        return Ok(());
    }
    let Some(poles) = m.poles.of(table) else {
        return Err(SetupError::PolesOutOfRange {
            region,
            first: m.poles.first,
            count: m.poles.count,
            table: table.len(),
        });
    };
    let dt = courant;
    for (pole, p) in poles.iter().enumerate() {
        if let Err(problem) = p.check(dt) {
            return Err(SetupError::InvalidPole {
                region,
                pole,
                kind: p.name(),
                problem,
            });
        }
    }
    let dims = mode.dims() as f64;
    let needed = dims * courant * courant;
    // An anisotropic material must pass along every axis (its poles are isotropic).
    for axis in Axis::ALL {
        let m = m.along(axis);
        let nyquist = m.eps
            + poles
                .iter()
                .map(|p| p.nyquist_susceptibility(dt))
                .sum::<f64>();
        if nyquist * m.mu < needed {
            return Err(SetupError::DispersiveCourant {
                region,
                nyquist,
                needed: needed / m.mu,
            });
        }
    }
    Ok(())
}
