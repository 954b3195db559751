//! The driver seam on a real GPU: cudarc 0.19 (libcuda and libnvrtc loaded at run time). The
//! only device code CI does not execute (no GPU there): everything above it runs on the
//! emulated device too. Memory of values `X` is cudarc's memory of `X::Repr`, the same bytes
//! (complex values, which cudarc does not know, as [`super::driver::ComplexRepr`]).

use std::sync::Arc;

use cudarc::driver::{
    CudaContext, CudaEvent, CudaFunction, CudaSlice, CudaStream, DevicePtr, LaunchConfig,
    PinnedHostSlice, PushKernelArg,
};

use super::driver::{Arg, DeviceValue, Driver};
use super::nvrtc::{compile, nvrtc_present};
use super::{CudaError, device_for_rank, driver_present};
use crate::kernels::{KernelFile, Precision, entry_name};
use crate::layout::Launch;

/// A CUDA context of one device.
#[derive(Debug)]
pub struct Cudarc {
    context: Arc<CudaContext>,
}

/// Page-locked host memory and the address of its values.
#[derive(Debug)]
pub struct CudaPinned<X> {
    pinned: PinnedHostSlice<X>,
    ptr: *mut X,
}

impl Driver for Cudarc {
    type Memory<X: DeviceValue> = CudaSlice<X::Repr>;
    type Pinned<X: DeviceValue> = CudaPinned<X::Repr>;
    type Stream = Arc<CudaStream>;
    type Event = CudaEvent;
    const NAME: &'static str = "cuda";

    type Kernel = CudaFunction;

    fn open(rank: usize) -> Result<Self, CudaError> {
        if !driver_present() {
            return Err(CudaError::no_driver());
        }
        if !nvrtc_present() {
            return Err(super::nvrtc::CompileFailure::NoNvrtc.into());
        }
        let devices = CudaContext::device_count()? as usize;
        let ordinal = device_for_rank(rank, devices).ok_or_else(|| {
            CudaError::new(
                yee_core::ChunkErrorKind::Device,
                "no CUDA device is visible",
            )
        })?;
        let context = CudaContext::new(ordinal)?;
        log::info!(
            "rank {rank}: CUDA device {ordinal} of {devices} ({})",
            context.name().unwrap_or_default()
        );
        Ok(Cudarc { context })
    }

    fn stream(&self) -> Result<Arc<CudaStream>, CudaError> {
        Ok(self.context.new_stream()?)
    }

    fn event(&self) -> Result<CudaEvent, CudaError> {
        Ok(self.context.new_event(None)?)
    }

    fn kernel(
        &self,
        file: KernelFile,
        entry: &str,
        precision: Precision,
    ) -> Result<CudaFunction, CudaError> {
        let module = self.context.load_module(compile(file, precision)?)?;
        Ok(module.load_function(&entry_name(entry, precision))?)
    }

    fn alloc_zeros<X: DeviceValue>(
        &self,
        stream: &Arc<CudaStream>,
        len: usize,
    ) -> Result<CudaSlice<X::Repr>, CudaError> {
        Ok(stream.alloc_zeros::<X::Repr>(len)?)
    }

    fn upload<X: DeviceValue>(
        &self,
        stream: &Arc<CudaStream>,
        values: &[X],
    ) -> Result<CudaSlice<X::Repr>, CudaError> {
        Ok(stream.clone_htod(bytemuck::cast_slice::<X, X::Repr>(values))?)
    }

    fn len<X: DeviceValue>(memory: &CudaSlice<X::Repr>) -> usize {
        memory.len()
    }

    fn address<X: DeviceValue>(
        &self,
        memory: &CudaSlice<X::Repr>,
        stream: &Arc<CudaStream>,
    ) -> u64 {
        let (ptr, _sync) = memory.device_ptr(stream);
        ptr
    }

    fn write<X: DeviceValue>(
        &self,
        stream: &Arc<CudaStream>,
        values: &[X],
        memory: &mut CudaSlice<X::Repr>,
        at: usize,
    ) -> Result<(), CudaError> {
        let end = at + values.len();
        let values = bytemuck::cast_slice::<X, X::Repr>(values);
        Ok(stream.memcpy_htod(values, &mut memory.slice_mut(at..end))?)
    }

    fn read<X: DeviceValue>(
        &self,
        stream: &Arc<CudaStream>,
        memory: &CudaSlice<X::Repr>,
        at: usize,
        out: &mut [X],
    ) -> Result<(), CudaError> {
        let out = bytemuck::cast_slice_mut::<X, X::Repr>(out);
        stream.memcpy_dtoh(&memory.slice(at..at + out.len()), out)?;
        Ok(stream.synchronize()?)
    }

    fn alloc_pinned<X: DeviceValue>(&self, len: usize) -> Result<CudaPinned<X::Repr>, CudaError> {
        // SAFETY: the memory is zeroed below before anything reads it; plain flags (the host
        // reads it, so not write-combined).
        let mut pinned = unsafe { self.context.alloc_pinned_with_flags::<X::Repr>(len, 0) }?;
        let ptr = pinned.as_mut_ptr()?;
        pinned.as_mut_slice()?.fill(X::Repr::default());
        Ok(CudaPinned { pinned, ptr })
    }

    fn pinned<X: DeviceValue>(pinned: &CudaPinned<X::Repr>) -> &[X] {
        // SAFETY: `ptr` is the start of the `len` values `pinned` owns for as long as it
        // lives; copies into them are ordered before the chunk's wait.
        let values = unsafe { std::slice::from_raw_parts(pinned.ptr, pinned.pinned.len()) };
        bytemuck::cast_slice(values)
    }

    fn pinned_mut<X: DeviceValue>(pinned: &mut CudaPinned<X::Repr>) -> &mut [X] {
        // SAFETY: as in `pinned`, and `&mut` makes the borrow unique.
        let values = unsafe { std::slice::from_raw_parts_mut(pinned.ptr, pinned.pinned.len()) };
        bytemuck::cast_slice_mut(values)
    }

    fn device_to_pinned<X: DeviceValue>(
        &self,
        stream: &Arc<CudaStream>,
        memory: &CudaSlice<X::Repr>,
        at: usize,
        len: usize,
        pinned: &mut CudaPinned<X::Repr>,
    ) -> Result<(), CudaError> {
        let out = bytemuck::cast_slice_mut::<X, X::Repr>(&mut Self::pinned_mut::<X>(pinned)[..len]);
        Ok(stream.memcpy_dtoh(&memory.slice(at..at + len), out)?)
    }

    fn pinned_to_device<X: DeviceValue>(
        &self,
        stream: &Arc<CudaStream>,
        pinned: &CudaPinned<X::Repr>,
        len: usize,
        memory: &mut CudaSlice<X::Repr>,
        at: usize,
    ) -> Result<(), CudaError> {
        let values = bytemuck::cast_slice::<X, X::Repr>(&Self::pinned::<X>(pinned)[..len]);
        Ok(stream.memcpy_htod(values, &mut memory.slice_mut(at..at + len))?)
    }

    unsafe fn launch(
        &self,
        stream: &Arc<CudaStream>,
        kernel: &CudaFunction,
        launch: Launch,
        args: &[Arg],
    ) -> Result<(), CudaError> {
        let mut builder = stream.launch_builder(kernel);
        for arg in args {
            match arg {
                Arg::Address(x) => builder.arg(x),
                Arg::Int(x) => builder.arg(x),
                Arg::Long(x) => builder.arg(x),
                Arg::Float(x) => builder.arg(x),
                Arg::Double(x) => builder.arg(x),
                Arg::Region(x) => builder.arg(x),
                Arg::Term(x) => builder.arg(x),
                Arg::Terms(x) => builder.arg(x),
            };
        }
        let config = LaunchConfig {
            grid_dim: launch.grid.into(),
            block_dim: launch.block.into(),
            shared_mem_bytes: 0,
        };
        // SAFETY: the caller's contract (the arguments match the kernel, the addresses stay
        // valid); `args` outlives the call, which copies the parameters.
        unsafe { builder.launch(config) }?;
        Ok(())
    }

    fn record(&self, event: &CudaEvent, stream: &Arc<CudaStream>) -> Result<(), CudaError> {
        Ok(event.record(stream)?)
    }

    fn wait(&self, stream: &Arc<CudaStream>, event: &CudaEvent) -> Result<(), CudaError> {
        Ok(stream.wait(event)?)
    }

    fn synchronize(&self, stream: &Arc<CudaStream>) -> Result<(), CudaError> {
        Ok(stream.synchronize()?)
    }
}
