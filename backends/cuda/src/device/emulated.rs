//! The emulated device (`--backend cuda-emulated`): the driver seam on the host, running the
//! very kernel files NVRTC compiles (`kernels/emulated.cpp` includes them with a shim for
//! `__global__`, `blockIdx`/`blockDim`/`threadIdx` and `atomicMin`, built by `build.rs` with
//! `-ffp-contract=off` as NVRTC builds them with `--fmad=false`). A launch passes its argument
//! list as `cuLaunchKernel` does, an array of pointers to the arguments, which the C++ side
//! unpacks by the kernel's own parameter types after the emulator has checked their sizes.
//!
//! Each stream is a worker thread draining a queue: copies and launches complete after the
//! call that queued them returns, events and waits order the streams, and each command may
//! start after a short random delay, so that a missing wait, a read before a copy completed or
//! a launch on the wrong stream gives a wrong answer in a test instead of passing by luck.
//! "Device memory" is host memory the emulator owns, addressed by its host address. It is a
//! correctness device, not a fast one: one thread per stream runs every thread of a launch.

use core::ffi::c_void;
use core::marker::PhantomData;
use std::alloc::Layout;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, Sender};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use yee_core::ChunkErrorKind;

use super::CudaError;
use super::driver::{Arg, DeviceValue, Driver};
use crate::kernels::{KernelFile, Precision, entry_name};
use crate::layout::Launch;

/// The launch entry of an emulated kernel: grid, block and the argument pointers.
type LaunchFn = unsafe extern "C" fn(*const u32, *const u32, *mut *mut c_void);
/// The parameter sizes of an emulated kernel.
type ParamsFn = unsafe extern "C" fn(*mut usize, usize) -> usize;

unsafe extern "C" {
    /// The entry points of the kernel named `name` in `kernels/emulated.cpp`; 0 when there is
    /// none.
    fn yee_emulated_entry(
        name: *const core::ffi::c_char,
        launch: *mut Option<LaunchFn>,
        params: *mut Option<ParamsFn>,
    ) -> core::ffi::c_int;
}

/// The entry points of `kernels/emulated.cpp` by kernel name (`yee_curl_f32`).
fn entry_points(name: &str) -> Option<(LaunchFn, ParamsFn)> {
    let name = std::ffi::CString::new(name).ok()?;
    let (mut launch, mut params) = (None, None);
    // SAFETY: `name` is a NUL-terminated string; the function only writes the two pointers.
    let found = unsafe { yee_emulated_entry(name.as_ptr(), &mut launch, &mut params) };
    match (found, launch, params) {
        (1, Some(launch), Some(params)) => Some((launch, params)),
        _ => None,
    }
}

/// The emulated device of one rank.
#[derive(Debug)]
pub struct Emulated {
    rank: usize,
}

/// Zeroed host memory standing for a device (or pinned) allocation; freed when the last
/// handle, the memory's own or a queued command's, is dropped.
#[derive(Debug)]
struct Block {
    ptr: *mut u8,
    layout: Layout,
}

// SAFETY: the block is plain memory; who writes it when is the stream order's business, as on
// a device.
unsafe impl Send for Block {}
// SAFETY: as above.
unsafe impl Sync for Block {}

impl Block {
    fn zeroed(bytes: usize) -> Result<Arc<Block>, CudaError> {
        let out_of_memory = || {
            CudaError::new(
                ChunkErrorKind::OutOfMemory,
                format!("the emulated device cannot allocate {bytes} bytes"),
            )
        };
        let layout = Layout::from_size_align(bytes.max(1), 16).map_err(|_| out_of_memory())?;
        // SAFETY: the layout's size is not zero.
        let ptr = unsafe { std::alloc::alloc_zeroed(layout) };
        if ptr.is_null() {
            return Err(out_of_memory());
        }
        Ok(Arc::new(Block { ptr, layout }))
    }
}

impl Drop for Block {
    fn drop(&mut self) {
        // SAFETY: allocated in `zeroed` with this layout.
        unsafe { std::alloc::dealloc(self.ptr, self.layout) }
    }
}

/// Emulated device memory (or pinned host memory) of `len` values of `X`.
#[derive(Debug)]
pub struct EmulatedMemory<X> {
    block: Arc<Block>,
    len: usize,
    _values: PhantomData<X>,
}

impl<X: DeviceValue> EmulatedMemory<X> {
    fn zeroed(len: usize) -> Result<Self, CudaError> {
        Ok(EmulatedMemory {
            block: Block::zeroed(len * size_of::<X>())?,
            len,
            _values: PhantomData,
        })
    }

    /// The byte range of `len` values from value `at`, or the error naming what does not fit.
    fn bytes(&self, at: usize, len: usize, what: &str) -> Result<(usize, usize), CudaError> {
        match at.checked_add(len).is_some_and(|end| end <= self.len) {
            true => Ok((at * size_of::<X>(), len * size_of::<X>())),
            false => Err(CudaError::new(
                ChunkErrorKind::InvalidArgument,
                format!(
                    "emulated device: {what} of values {at}..{} outside an allocation of {}",
                    at.saturating_add(len),
                    self.len
                ),
            )),
        }
    }
}

/// A command of a stream's queue.
type Command = Box<dyn FnOnce() + Send>;

/// A stream: a worker thread running its commands in order.
#[derive(Debug)]
pub struct EmulatedStream {
    queue: Option<Sender<Command>>,
    worker: Option<JoinHandle<()>>,
}

impl EmulatedStream {
    /// Queues `command`.
    fn push(&self, command: Command) -> Result<(), CudaError> {
        let stopped = || CudaError::new(ChunkErrorKind::Device, "emulated stream stopped");
        let queue = self.queue.as_ref().ok_or_else(stopped)?;
        queue.send(command).map_err(|_| stopped())
    }
}

impl Drop for EmulatedStream {
    /// Runs what is queued, then stops the worker.
    fn drop(&mut self) {
        drop(self.queue.take());
        if let Some(worker) = self.worker.take() {
            let _ = worker.join();
        }
    }
}

/// Streams made so far: each worker's delays come from a generator seeded by its number.
static STREAMS: AtomicU64 = AtomicU64::new(0);

/// The worker of a stream: runs each command after a random delay of up to 200 µs (half of
/// them with none), and one in 64 after a stall of up to 2 ms (a stream a device serves
/// late, as a long kernel on it would be: what keeps the interior of Kim & Park's kernel
/// split running past the border stream's work), so that streams interleave in every order a
/// device may take.
fn worker(commands: mpsc::Receiver<Command>, seed: u64) {
    let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    for command in commands {
        // xorshift64
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        if state % 64 == 1 {
            std::thread::sleep(Duration::from_micros((state >> 6) % 2000));
        } else if state & 1 == 0 {
            std::thread::sleep(Duration::from_micros((state >> 1) % 200));
        }
        command();
    }
}

/// An event: how many times it was recorded, and how many of those the streams reached.
#[derive(Debug, Default)]
pub struct EmulatedEvent {
    state: Arc<EventState>,
}

#[derive(Debug, Default)]
struct EventState {
    recorded: AtomicU64,
    reached: Mutex<u64>,
    signal: Condvar,
}

/// A kernel of `kernels/emulated.cpp`.
#[derive(Debug)]
pub struct EmulatedKernel {
    name: String,
    run: LaunchFn,
    params: Vec<usize>,
}

/// A raw address a command carries to its worker.
#[derive(Clone, Copy)]
struct Address(*mut u8);

// SAFETY: the address is only dereferenced by the command, while the `Arc<Block>` it came
// from (carried alongside) keeps the memory alive.
unsafe impl Send for Address {}

impl Driver for Emulated {
    type Memory<X: DeviceValue> = EmulatedMemory<X>;
    type Pinned<X: DeviceValue> = EmulatedMemory<X>;
    type Stream = EmulatedStream;
    type Event = EmulatedEvent;
    const NAME: &'static str = "cuda-emulated";

    type Kernel = EmulatedKernel;

    fn open(rank: usize) -> Result<Self, CudaError> {
        log::info!("rank {rank}: the emulated CUDA device (host threads, for correctness)");
        Ok(Emulated { rank })
    }

    fn stream(&self) -> Result<EmulatedStream, CudaError> {
        let (queue, commands) = mpsc::channel::<Command>();
        let seed = STREAMS.fetch_add(1, Ordering::Relaxed);
        let worker = std::thread::Builder::new()
            .name(format!("yee-emulated-stream-{}-{seed}", self.rank))
            .spawn(move || worker(commands, seed))
            .map_err(|e| {
                CudaError::new(
                    ChunkErrorKind::Device,
                    format!("emulated device: no stream thread: {e}"),
                )
            })?;
        Ok(EmulatedStream {
            queue: Some(queue),
            worker: Some(worker),
        })
    }

    fn event(&self) -> Result<EmulatedEvent, CudaError> {
        Ok(EmulatedEvent::default())
    }

    fn kernel(
        &self,
        file: KernelFile,
        entry: &str,
        precision: Precision,
    ) -> Result<EmulatedKernel, CudaError> {
        let name = entry_name(entry, precision);
        let found = file
            .entries
            .contains(&entry)
            .then(|| entry_points(&name))
            .flatten();
        let Some((run, params)) = found else {
            return Err(CudaError::new(
                ChunkErrorKind::Device,
                format!("emulated device: {} has no kernel {name}", file.name),
            ));
        };
        let mut sizes = [0usize; 32];
        // SAFETY: writes at most `sizes.len()` sizes.
        let count = unsafe { params(sizes.as_mut_ptr(), sizes.len()) };
        if count > sizes.len() {
            return Err(CudaError::new(
                ChunkErrorKind::Device,
                format!(
                    "emulated device: {name} takes {count} parameters, more than the {} it \
                     checks",
                    sizes.len()
                ),
            ));
        }
        Ok(EmulatedKernel {
            name,
            run,
            params: sizes[..count].to_vec(),
        })
    }

    fn alloc_zeros<X: DeviceValue>(
        &self,
        _stream: &EmulatedStream,
        len: usize,
    ) -> Result<EmulatedMemory<X>, CudaError> {
        EmulatedMemory::zeroed(len)
    }

    fn upload<X: DeviceValue>(
        &self,
        stream: &EmulatedStream,
        values: &[X],
    ) -> Result<EmulatedMemory<X>, CudaError> {
        let mut memory = EmulatedMemory::zeroed(values.len())?;
        self.write(stream, values, &mut memory, 0)?;
        Ok(memory)
    }

    fn len<X: DeviceValue>(memory: &EmulatedMemory<X>) -> usize {
        memory.len
    }

    fn address<X: DeviceValue>(&self, memory: &EmulatedMemory<X>, _stream: &EmulatedStream) -> u64 {
        memory.block.ptr as u64
    }

    fn write<X: DeviceValue>(
        &self,
        stream: &EmulatedStream,
        values: &[X],
        memory: &mut EmulatedMemory<X>,
        at: usize,
    ) -> Result<(), CudaError> {
        let (into, _) = memory.bytes(at, values.len(), "a write")?;
        let bytes: Vec<u8> = bytemuck::cast_slice(values).to_vec();
        let block = memory.block.clone();
        let to = Address(block.ptr);
        stream.push(Box::new(move || {
            let to = to;
            // SAFETY: `bytes` fits the block from `into` (checked), which `block` keeps alive.
            unsafe { core::ptr::copy_nonoverlapping(bytes.as_ptr(), to.0.add(into), bytes.len()) };
            drop(block);
        }))
    }

    fn read<X: DeviceValue>(
        &self,
        stream: &EmulatedStream,
        memory: &EmulatedMemory<X>,
        at: usize,
        out: &mut [X],
    ) -> Result<(), CudaError> {
        let (start, len) = memory.bytes(at, out.len(), "a read")?;
        let block = memory.block.clone();
        let from = Address(block.ptr);
        let (sender, arrived) = mpsc::channel::<Vec<u8>>();
        stream.push(Box::new(move || {
            let from = from;
            // SAFETY: `len` bytes from `start` fit the block (checked), which `block` keeps
            // alive.
            let bytes = unsafe { std::slice::from_raw_parts(from.0.add(start), len) }.to_vec();
            drop(block);
            let _ = sender.send(bytes);
        }))?;
        let bytes = arrived.recv().map_err(|_| {
            CudaError::new(ChunkErrorKind::Device, "emulated stream stopped in a read")
        })?;
        bytemuck::cast_slice_mut::<X, u8>(out).copy_from_slice(&bytes);
        Ok(())
    }

    fn alloc_pinned<X: DeviceValue>(&self, len: usize) -> Result<EmulatedMemory<X>, CudaError> {
        EmulatedMemory::zeroed(len)
    }

    fn pinned<X: DeviceValue>(pinned: &EmulatedMemory<X>) -> &[X] {
        // SAFETY: the block holds `len` zero-initialised values of a `Pod` type for as long
        // as `pinned` lives; copies into it are ordered before the chunk's wait.
        unsafe { std::slice::from_raw_parts(pinned.block.ptr.cast::<X>(), pinned.len) }
    }

    fn pinned_mut<X: DeviceValue>(pinned: &mut EmulatedMemory<X>) -> &mut [X] {
        // SAFETY: as in `pinned`, and `&mut` makes the borrow unique on the host.
        unsafe { std::slice::from_raw_parts_mut(pinned.block.ptr.cast::<X>(), pinned.len) }
    }

    fn device_to_pinned<X: DeviceValue>(
        &self,
        stream: &EmulatedStream,
        memory: &EmulatedMemory<X>,
        at: usize,
        len: usize,
        pinned: &mut EmulatedMemory<X>,
    ) -> Result<(), CudaError> {
        let (from, bytes) = memory.bytes(at, len, "a copy to pinned memory")?;
        pinned.bytes(0, len, "a copy to pinned memory")?;
        copy(stream, (&memory.block, from), (&pinned.block, 0), bytes)
    }

    fn pinned_to_device<X: DeviceValue>(
        &self,
        stream: &EmulatedStream,
        pinned: &EmulatedMemory<X>,
        len: usize,
        memory: &mut EmulatedMemory<X>,
        at: usize,
    ) -> Result<(), CudaError> {
        pinned.bytes(0, len, "a copy from pinned memory")?;
        let (to, bytes) = memory.bytes(at, len, "a copy from pinned memory")?;
        copy(stream, (&pinned.block, 0), (&memory.block, to), bytes)
    }

    unsafe fn launch(
        &self,
        stream: &EmulatedStream,
        kernel: &EmulatedKernel,
        launch: Launch,
        args: &[Arg],
    ) -> Result<(), CudaError> {
        let sizes: Vec<usize> = args.iter().map(|a| a.pointer().1).collect();
        if sizes != kernel.params {
            return Err(CudaError::new(
                ChunkErrorKind::Device,
                format!(
                    "emulated device: {} takes parameters of {:?} bytes, the launch passed {:?}",
                    kernel.name, kernel.params, sizes
                ),
            ));
        }
        let args = args.to_vec();
        let run = kernel.run;
        stream.push(Box::new(move || {
            let mut pointers: Vec<*mut c_void> =
                args.iter().map(|a| a.pointer().0.cast_mut()).collect();
            // SAFETY: the launch's contract: the arguments match the kernel's parameters (their
            // sizes checked above) and the addresses in them are valid until it has run.
            unsafe {
                run(
                    launch.grid.as_ptr(),
                    launch.block.as_ptr(),
                    pointers.as_mut_ptr(),
                )
            };
        }))
    }

    fn record(&self, event: &EmulatedEvent, stream: &EmulatedStream) -> Result<(), CudaError> {
        let n = event.state.recorded.fetch_add(1, Ordering::SeqCst) + 1;
        let state = event.state.clone();
        stream.push(Box::new(move || {
            let mut reached = state.reached.lock().unwrap_or_else(|e| e.into_inner());
            *reached = (*reached).max(n);
            state.signal.notify_all();
        }))
    }

    fn wait(&self, stream: &EmulatedStream, event: &EmulatedEvent) -> Result<(), CudaError> {
        let target = event.state.recorded.load(Ordering::SeqCst);
        let state = event.state.clone();
        stream.push(Box::new(move || {
            let mut reached = state.reached.lock().unwrap_or_else(|e| e.into_inner());
            while *reached < target {
                reached = state
                    .signal
                    .wait(reached)
                    .unwrap_or_else(|e| e.into_inner());
            }
        }))
    }

    fn synchronize(&self, stream: &EmulatedStream) -> Result<(), CudaError> {
        let (sender, done) = mpsc::channel::<()>();
        stream.push(Box::new(move || {
            let _ = sender.send(());
        }))?;
        done.recv()
            .map_err(|_| CudaError::new(ChunkErrorKind::Device, "emulated stream stopped"))
    }
}

/// Queues on `stream` a copy of `bytes` bytes between two blocks at byte offsets.
fn copy(
    stream: &EmulatedStream,
    (from, at): (&Arc<Block>, usize),
    (to, into): (&Arc<Block>, usize),
    bytes: usize,
) -> Result<(), CudaError> {
    let (from, to) = (from.clone(), to.clone());
    let (source, target) = (Address(from.ptr), Address(to.ptr));
    stream.push(Box::new(move || {
        let (source, target) = (source, target);
        // SAFETY: both ranges were checked inside their blocks, which `from` and `to` keep
        // alive; `copy` allows them to overlap.
        unsafe { core::ptr::copy(source.0.add(at), target.0.add(into), bytes) };
        drop((from, to));
    }))
}
