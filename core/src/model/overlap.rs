//! The overlap model of Kim & Park 2012, §3, eqs. (1)–(10): when a halo exchange hides behind
//! the interior update, and the throughput of a row of nodes either way.

/// The overlap model of Kim & Park 2012 (§3) for nodes along one axis, each exchanging with
/// its two neighbours. Units: points, bytes, seconds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OverlapModel {
    /// Bytes of one value (4 single, 8 double precision).
    pub nbyte: f64,
    /// Memory copies and MPI send/receives per node and step: the coefficient 4 of eqs. (1)–(2)
    /// (two neighbours, one send and one receive each). A node with one neighbour has 2.
    pub transfers: f64,
    /// Grid size of the communication region (points), GS_comm.
    pub gs_comm: f64,
    /// Memory-copy bandwidth between device and host (bytes/s), BW_memcpy.
    pub bw_memcpy: f64,
    /// Memory-copy latency (s), LT_memcpy.
    pub lt_memcpy: f64,
    /// MPI bandwidth (bytes/s), BW_mpi.
    pub bw_mpi: f64,
    /// MPI latency (s), LT_mpi.
    pub lt_mpi: f64,
    /// Update throughput of the main region (points/s), THP_gpu.
    pub thp_compute: f64,
    /// Update throughput of the host buffer (points/s), THP_buffer.
    pub thp_buffer: f64,
}

/// How communication overlaps computation (Kim & Park 2012, §2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OverlapMethod {
    /// Update the border, exchange while updating the interior.
    KernelSplit,
    /// Update a host-side copy of the border while the device updates the main region.
    HostBuffer,
}

impl OverlapModel {
    /// Eq. (1): `T_memcpy = 4 (2·nbyte·GS_comm / BW_memcpy + LT_memcpy)` (4 = `transfers`).
    pub fn t_memcpy(&self) -> f64 {
        self.transfers * (2.0 * self.nbyte * self.gs_comm / self.bw_memcpy + self.lt_memcpy)
    }

    /// Eq. (2): `T_mpi = 4 (2·nbyte·GS_comm / BW_mpi + LT_mpi)` (4 = `transfers`).
    pub fn t_mpi(&self) -> f64 {
        self.transfers * (2.0 * self.nbyte * self.gs_comm / self.bw_mpi + self.lt_mpi)
    }

    /// Eq. (3): `T_comp = T_memcpy + GS_comp / THP_gpu`.
    pub fn t_comp(&self, gs_comp: f64) -> f64 {
        self.t_memcpy() + gs_comp / self.thp_compute
    }

    /// Eq. (4): the communication time of each method.
    pub fn t_comm(&self, method: OverlapMethod) -> f64 {
        match method {
            OverlapMethod::KernelSplit => {
                self.t_mpi() + self.t_memcpy() + self.gs_comm / self.thp_compute
            }
            // GS_buffer = 2·GS_comm: the host buffer holds both faces.
            OverlapMethod::HostBuffer => self.t_mpi() + 2.0 * self.gs_comm / self.thp_buffer,
        }
    }

    /// Eq. (6) at equality: the threshold R₀ of GS_comp / GS_comm above which communication
    /// hides behind computation.
    pub fn threshold(&self, method: OverlapMethod) -> f64 {
        match method {
            OverlapMethod::KernelSplit => 1.0 + self.thp_compute / self.gs_comm * self.t_mpi(),
            OverlapMethod::HostBuffer => {
                self.thp_compute
                    * (2.0 / self.thp_buffer + (self.t_mpi() - self.t_memcpy()) / self.gs_comm)
            }
        }
    }

    /// Eqs. (7), (9), (10): the total throughput of `nodes` nodes at grid-size ratio
    /// `r = GS_comp / GS_comm`.
    pub fn total_throughput(&self, method: OverlapMethod, r: f64, nodes: f64) -> f64 {
        if r >= self.threshold(method) {
            1.0 / (1.0 / self.thp_compute + self.t_memcpy() / (r * self.gs_comm)) * nodes
        } else {
            let per_point = match method {
                OverlapMethod::KernelSplit => {
                    1.0 / self.thp_compute + (self.t_mpi() + self.t_memcpy()) / self.gs_comm
                }
                OverlapMethod::HostBuffer => 2.0 / self.thp_buffer + self.t_mpi() / self.gs_comm,
            };
            r / per_point * nodes
        }
    }

    /// Not in the paper: the throughput of `nodes` nodes when the exchange follows the whole
    /// update (their "non-overlap" runs of Fig. 6): `GS_comp / (T_comp + T_mpi) · N_node`.
    pub fn throughput_without_overlap(&self, r: f64, nodes: f64) -> f64 {
        let gs_comp = r * self.gs_comm;
        gs_comp / (self.t_comp(gs_comp) + self.t_mpi()) * nodes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Kim & Park's tables 2–3 (Tesla C2075, i5-2500, Gigabit Ethernet; MB = 10⁶ bytes) with
    /// a 360 × 250 communication plane in single precision.
    fn kim_park() -> OverlapModel {
        OverlapModel {
            nbyte: 4.0,
            transfers: 4.0,
            gs_comm: 360.0 * 250.0,
            bw_memcpy: 1690.72e6,
            lt_memcpy: 0.081e-3,
            bw_mpi: 193.87e6,
            lt_mpi: 0.63e-3,
            thp_compute: 1188.02e6,
            thp_buffer: 38.26e6,
        }
    }

    #[test]
    fn kim_park_thresholds_by_hand() {
        let m = kim_park();
        // T_memcpy = 4 (720 000 / 1690.72e6 + 0.081e-3) = 2.027 416e-3 s
        assert!((m.t_memcpy() - 4.0 * (720_000.0 / 1690.72e6 + 0.081e-3)).abs() < 1e-15);
        // T_mpi = 4 (720 000 / 193.87e6 + 0.63e-3) = 1.737 532e-2 s
        let t_mpi = 4.0 * (720_000.0 / 193.87e6 + 0.63e-3);
        assert!((m.t_mpi() - t_mpi).abs() < 1e-15);
        assert!((t_mpi - 1.737_532e-2).abs() < 1e-8);
        // Kernel split: R₀ = 1 + 1188.02e6 / 90 000 × T_mpi = 230.358
        let r_ks = m.threshold(OverlapMethod::KernelSplit);
        assert!((r_ks - 230.358).abs() < 1e-3, "{r_ks}");
        // Host buffer: R₀ = 1188.02e6 (2 / 38.26e6 + (T_mpi − T_memcpy) / 90 000) = 264.698
        let r_hb = m.threshold(OverlapMethod::HostBuffer);
        assert!((r_hb - 264.698).abs() < 1e-3, "{r_hb}");
        // At the threshold the computation time equals the communication time (eq. (5)).
        for method in [OverlapMethod::KernelSplit, OverlapMethod::HostBuffer] {
            let r0 = m.threshold(method);
            assert!((m.t_comp(r0 * m.gs_comm) - m.t_comm(method)).abs() < 1e-12);
        }
    }

    #[test]
    fn kim_park_throughput_is_continuous_and_bounded() {
        let m = kim_park();
        let upper = m.thp_compute * 6.0;
        for method in [OverlapMethod::KernelSplit, OverlapMethod::HostBuffer] {
            let r0 = m.threshold(method);
            let below = m.total_throughput(method, r0 * (1.0 - 1e-9), 6.0);
            let above = m.total_throughput(method, r0, 6.0);
            assert!(
                (below / above - 1.0).abs() < 1e-6,
                "{method:?}: {below} vs {above}"
            );
            assert!(m.total_throughput(method, 1e6, 6.0) < upper);
        }
    }

    #[test]
    fn kim_park_six_nodes_of_360_250_256_by_hand() {
        // Their Fig. 6 runs: 360 × 250 × 256 per node, R = 256 above R₀ = 230.358.
        let m = kim_park();
        let nodes = 6.0;
        // Eq. (9): 6 / (1 / 1188.02e6 + 2.027416e-3 / (256 × 90 000)) = 6453.47 Mpoints/s,
        // 90.5 % of the upper limit 6 × 1188.02 (the paper measured 92 %).
        let overlapped = m.total_throughput(OverlapMethod::KernelSplit, 256.0, nodes);
        assert!((overlapped / 1e6 - 6453.47).abs() < 0.01, "{overlapped}");
        let fraction = overlapped / (nodes * m.thp_compute);
        assert!((fraction - 0.90535).abs() < 1e-5, "{fraction}");
        // Without overlap: 23.04e6 / (T_comp 2.142103e-2 + T_mpi 1.737532e-2) × 6 = 3563.22.
        let sequential = m.throughput_without_overlap(256.0, nodes);
        assert!((sequential / 1e6 - 3563.22).abs() < 0.01, "{sequential}");
    }
}
