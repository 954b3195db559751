//! What `yee bench --backend cuda` measures on a device: its memory bandwidth, by the STREAM
//! triad of `kernels/triad.cu` (McCalpin 1995), and the Yee update's rate on one chunk stepped
//! alone, both timed on the host around a synchronised stream.

use std::time::Instant;

use yee_core::{Box3, Chunk};
use yee_em::{Costs, Setup};

use super::{CudaChunk, CudaError, DeviceReal, DeviceScalar, Driver};
use crate::kernels::TRIAD;
use crate::layout::linear_launch;

/// The triad `a = b + s·c` over three device arrays of `len` values, kept allocated so that
/// it can be timed right before each run of the update.
#[derive(Debug)]
pub struct DeviceTriad<T: DeviceReal + DeviceScalar, D: Driver> {
    driver: D,
    stream: D::Stream,
    kernel: D::Kernel,
    arrays: [D::Memory<T>; 3],
    len: usize,
}

impl<T: DeviceReal + DeviceScalar, D: Driver> DeviceTriad<T, D> {
    /// The arrays of `len` values on the device of rank `rank` (b = 1, c = 2), after one
    /// untimed triad.
    pub fn new(rank: usize, len: usize) -> Result<Self, CudaError> {
        let driver = D::open(rank)?;
        let stream = driver.stream()?;
        let kernel = driver.kernel(TRIAD, "yee_triad", T::PRECISION)?;
        let filled = |v: f64| driver.upload(&stream, &vec![T::from_f64(v); len]);
        let arrays = [filled(0.0)?, filled(1.0)?, filled(2.0)?];
        let mut triad = DeviceTriad {
            driver,
            stream,
            kernel,
            arrays,
            len,
        };
        triad.run()?;
        Ok(triad)
    }

    /// Queues one triad and waits for it.
    fn run(&mut self) -> Result<(), CudaError> {
        let Some(launch) = linear_launch(self.len)? else {
            return Ok(());
        };
        let [a, b, c] = &self.arrays;
        let args = [
            super::Arg::Address(self.driver.address(a, &self.stream)),
            super::Arg::Address(self.driver.address(b, &self.stream)),
            super::Arg::Address(self.driver.address(c, &self.stream)),
            T::from_f64(3.0).arg(),
            super::Arg::Long(self.len as i64),
        ];
        // SAFETY: the arguments are `yee_triad`'s (three arrays of `len` values, the scalar,
        // `len`), the arrays live in `self` and the stream is synchronised before returning.
        unsafe {
            self.driver
                .launch(&self.stream, &self.kernel, launch, &args)?;
        }
        self.driver.synchronize(&self.stream)
    }

    /// Bytes per second of one triad, counting the `3 · size` bytes per value a GPU moves (b
    /// and c read, a written in whole sectors without being read: BabelStream's convention,
    /// where the host's triad counts the read for ownership too).
    pub fn bandwidth(&mut self) -> Result<f64, CudaError> {
        let t = Instant::now();
        self.run()?;
        let seconds = t.elapsed().as_secs_f64();
        Ok(3.0 * size_of::<T>() as f64 * self.len as f64 / seconds)
    }

    /// The values of `a` (what the last triad wrote).
    pub fn result(&self) -> Result<Vec<T>, CudaError> {
        let mut out = vec![T::default(); self.len];
        self.driver
            .read(&self.stream, &self.arrays[0], 0, &mut out)?;
        Ok(out)
    }
}

/// A chunk owning the whole grid of `setup` (no halos to exchange: walls, no periodic axis)
/// stepped alone on the device of rank 0.
pub struct SteppedChunk<'s, T: DeviceReal + DeviceScalar, D: Driver> {
    chunk: CudaChunk<'s, T, D>,
    owned: Box3,
    step: u64,
}

impl<'s, T: DeviceReal + DeviceScalar, D: Driver> SteppedChunk<'s, T, D> {
    /// The chunk of `setup`'s whole grid, after one untimed step (the arrays faulted in, the
    /// kernels loaded).
    pub fn new(setup: &Setup<'s>) -> Result<Self, CudaError> {
        let owned = Box3::from_extent(setup.grid);
        let chunk = CudaChunk::new(setup, owned, Costs::default(), 0)?;
        let mut stepped = SteppedChunk {
            chunk,
            owned,
            step: 0,
        };
        stepped.steps(1)?;
        Ok(stepped)
    }

    /// Runs `steps` steps and waits for the last; returns the seconds they took.
    pub fn steps(&mut self, steps: u64) -> Result<f64, CudaError> {
        let t = Instant::now();
        for _ in 0..steps {
            self.chunk.submit_step(self.step, self.owned)?;
            self.step += 1;
        }
        self.chunk.wait()?;
        Ok(t.elapsed().as_secs_f64())
    }

    /// The chunk, for its fields.
    pub fn chunk_mut(&mut self) -> &mut CudaChunk<'s, T, D> {
        &mut self.chunk
    }
}
