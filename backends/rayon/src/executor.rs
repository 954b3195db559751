//! The rayon backend's executor and its place in the Yee backend seam.

use std::sync::Arc;

use yee_core::{Box3, Scalar};
use yee_scalar::chunk::CurlExecutor;
use yee_scalar::state::YeeState;

use crate::curl::{ROW_BATCH_CELLS, curl_phase};

/// The rayon curl executor: on a given pool, or on rayon's global pool.
#[derive(Clone, Debug, Default)]
pub struct RayonCurl {
    pool: Option<Arc<rayon::ThreadPool>>,
    passes: ComponentPasses,
    batch_cells: Option<usize>,
}

/// How the components of one phase are swept. Every choice gives the same bits.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ComponentPasses {
    /// Together where the arrays outgrow the cache (at least 8 MiB each), else apart.
    #[default]
    Auto,
    /// All of a phase's components batch of rows by batch of rows: each source is read from
    /// memory once.
    Together,
    /// One pass over the chunk per component.
    Apart,
}

impl RayonCurl {
    /// On rayon's global pool.
    pub fn global() -> Self {
        RayonCurl {
            pool: None,
            passes: ComponentPasses::Auto,
            batch_cells: None,
        }
    }

    /// On a pool of `threads` threads.
    pub fn with_threads(threads: usize) -> Result<Self, rayon::ThreadPoolBuildError> {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads.max(1))
            .build()?;
        Ok(RayonCurl {
            pool: Some(Arc::new(pool)),
            passes: ComponentPasses::Auto,
            batch_cells: None,
        })
    }

    /// Sweeps a phase's components as `passes` says (the same bits; for measuring and testing).
    pub fn with_passes(mut self, passes: ComponentPasses) -> Self {
        self.passes = passes;
        self
    }

    /// Sweeps batches of whole rows of at least `cells` cells (the same bits; for measuring).
    pub fn with_batch_cells(mut self, cells: usize) -> Self {
        self.batch_cells = Some(cells.max(1));
        self
    }
}

impl<T: Scalar> CurlExecutor<T> for RayonCurl {
    /// Nothing: [`CurlExecutor::curl`] has applied the CPML corrections of the same region,
    /// row by row right after each row's update (`crate::cpml`).
    fn cpml(&self, _state: &mut YeeState<T>, _electric: bool, _region: Box3) {}

    fn curl(&self, state: &mut YeeState<T>, electric: bool, region: Box3) {
        let (passes, batch) = (self.passes, self.batch_cells.unwrap_or(ROW_BATCH_CELLS));
        match &self.pool {
            Some(pool) => pool.install(|| curl_phase(state, electric, region, passes, batch)),
            None => curl_phase(state, electric, region, passes, batch),
        }
    }
}

impl<T: Scalar> yee_em::YeeBackend<T> for RayonCurl {
    type Chunk<'s> = yee_scalar::YeeChunk<'s, T, RayonCurl>;

    fn name(&self) -> &'static str {
        "rayon"
    }

    fn build<'s>(
        &self,
        setup: &yee_em::Setup<'s>,
        owned: Box3,
        costs: yee_em::Costs,
    ) -> Result<Self::Chunk<'s>, yee_core::HostChunkError> {
        yee_scalar::YeeChunk::with_kernel(setup, owned, self.clone())
            .with_costs(costs)
            .checked()
    }
}
