//! Load per cell: the density the static balancer integrates (Franek 2016) and the work the
//! dynamic balancer measures against.

/// Relative cost of cell kinds, in units of a plain (vacuum, no CPML) Yee cell.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Costs {
    /// A cell inside a CPML layer (Franek's 1.86 until measured).
    pub cpml: f64,
    /// Extra work of a point source, in cell units.
    pub source: f64,
    /// Extra work of a probe, in cell units.
    pub probe: f64,
    /// Extra work of a cell of a dispersive material, whatever its poles (the passes over
    /// its nodes), in cell units.
    pub dispersive_cell: f64,
    /// Extra work per pole of a cell of a dispersive material, in cell units.
    pub dispersive_pole: f64,
}

impl Costs {
    /// The extra work of one cell holding `poles` poles (none: 0).
    pub fn dispersive(&self, poles: usize) -> f64 {
        match poles {
            0 => 0.0,
            n => self.dispersive_cell + self.dispersive_pole * n as f64,
        }
    }
}

impl Default for Costs {
    /// CPML 1.86 × a regular cell (Franek 2016, §2.1); sources and probes cost about one cell
    /// update each on the scalar backend, negligible beside a chunk, so 1. A dispersive cell
    /// costs 0.6 + 0.4 per pole more than a vacuum one on the scalar backend (measured as
    /// CPML's, with `yee run` in release: 64³ in 3D, 1 pole 2.02×, 3 poles 2.80×;
    /// docs/balancing.md).
    fn default() -> Self {
        Costs {
            cpml: 1.86,
            source: 1.0,
            probe: 1.0,
            dispersive_cell: 0.6,
            dispersive_pole: 0.4,
        }
    }
}
