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
}

impl Default for Costs {
    /// CPML 1.86 × a regular cell (Franek 2016, §2.1); sources and probes cost about one cell
    /// update each on the scalar backend, negligible beside a chunk, so 1.
    fn default() -> Self {
        Costs {
            cpml: 1.86,
            source: 1.0,
            probe: 1.0,
        }
    }
}
