//! `yee bench --backend cuda` (and `cuda-emulated`): the bench problems
//! ([`crate::bench::problems`]) on the device chunk stepped alone, each run timed right after a
//! STREAM triad on the same device ([`DeviceTriad`], its roofline), against the byte model
//! ([`crate::bench::byte_model`]) of the problem's scalar state with its rows' ids scanned: the
//! device reads a node's id wherever a row holds several materials.

use yee_cuda::device::bench::{DeviceTriad, SteppedChunk};
use yee_cuda::device::{CudaError, DeviceReal, DeviceScalar, Driver};
use yee_scalar::state::YeeState;

use crate::bench::{BenchRow, Plan, Problem, RUNS, RowHead, Samples};

/// Values in each triad array: 2²⁷ (1 GiB an array in f64, far beyond a GPU's L2 cache of
/// tens of MB), or 2²⁰ on the emulated device, whose rates say nothing about a GPU.
pub fn triad_len(emulated: bool) -> usize {
    if emulated { 1 << 20 } else { 1 << 27 }
}

/// Every problem of `plan` (those whose name contains `only`) in f32 and f64 on the device of
/// driver `D`, [`RUNS`] runs a round and `plan.rounds` rounds, each row's medians over all its
/// runs; the triads' arrays hold `triad_len` values.
pub fn run<D: Driver>(plan: &Plan, triad_len: usize) -> Result<Vec<BenchRow>, CudaError> {
    let mut triads = (
        DeviceTriad::<f32, D>::new(0, triad_len)?,
        DeviceTriad::<f64, D>::new(0, triad_len)?,
    );
    let mut rows = round(plan, &mut triads)?;
    for _ in 1..plan.rounds {
        for ((_, samples), (_, more)) in rows.iter_mut().zip(round(plan, &mut triads)?) {
            samples.extend(more);
        }
    }
    Ok(rows.into_iter().map(|(h, s)| h.with(&s)).collect())
}

/// One round of [`run`].
fn round<D: Driver>(
    plan: &Plan,
    triads: &mut (DeviceTriad<f32, D>, DeviceTriad<f64, D>),
) -> Result<Vec<(RowHead, Samples)>, CudaError> {
    let mut rows = Vec::new();
    let problems = crate::bench::problems(plan.quick, plan.scenes);
    for problem in problems
        .into_iter()
        .filter(|p| plan.only.is_none_or(|o| p.name.contains(o)))
    {
        let head = |value_type| RowHead {
            problem: problem.name,
            value_type,
            backend: D::NAME,
            threads: 0,
        };
        rows.push((head("f32"), measure(&problem, &mut triads.0)?));
        rows.push((head("f64"), measure(&problem, &mut triads.1)?));
    }
    Ok(rows)
}

/// [`RUNS`] timed runs of `problem.steps` steps, each after a triad.
fn measure<T: DeviceReal + DeviceScalar, D: Driver>(
    problem: &Problem,
    triad: &mut DeviceTriad<T, D>,
) -> Result<Samples, CudaError> {
    let regions = crate::bench::regions(problem.scene, problem.grid);
    let setup = crate::bench::setup(problem, &regions);
    let owned = yee_core::Box3::from_extent(problem.grid);
    let bytes = {
        let mut state = YeeState::<T>::new(&setup, owned);
        state.row_runs = Default::default();
        crate::bench::byte_model(&state)
    };
    let mut chunk = SteppedChunk::<T, D>::new(&setup)?;
    let mut samples = Samples {
        bytes,
        time_block: "off".into(),
        ..Samples::default()
    };
    for _ in 0..RUNS {
        let bandwidth = triad.bandwidth()?;
        let seconds = chunk.steps(problem.steps)?;
        let rate = owned.cells() as f64 * problem.steps as f64 / seconds / 1e6;
        samples.rates.push(rate);
        samples.bandwidths.push(bandwidth);
        samples.fractions.push(rate / (bandwidth / bytes / 1e6));
    }
    Ok(samples)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::Scene;
    use yee_cuda::device::Emulated;

    /// A sphere in CPML measured on the emulated device: five runs, each with its triad, and
    /// the byte model of the scalar state (CPML ψ and the sphere's scanned ids above vacuum's
    /// 72 B per cell in f32).
    #[test]
    fn a_problem_measures_five_runs_against_its_byte_model() {
        let problem = Problem {
            name: "sphere 24^3",
            scene: Scene::Sphere,
            mode: yee_em::Mode::ThreeD,
            grid: [24; 3],
            steps: 2,
        };
        let mut triad = DeviceTriad::<f32, Emulated>::new(0, 4096).unwrap();
        let samples = measure(&problem, &mut triad).unwrap();
        assert_eq!(samples.rates.len(), RUNS);
        assert_eq!(samples.fractions.len(), RUNS);
        assert!(samples.rates.iter().all(|r| r.is_finite() && *r > 0.0));
        assert!(samples.bytes > 72.0, "{}", samples.bytes);
        let vacuum = Problem {
            scene: Scene::Vacuum,
            ..problem
        };
        assert_eq!(measure(&vacuum, &mut triad).unwrap().bytes, 72.0);
    }
}
