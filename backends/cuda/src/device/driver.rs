//! The driver seam: exactly the driver operations the device chunk uses, as a trait with two
//! implementations, the real GPU through cudarc ([`super::cudarc_driver::Cudarc`]) and the
//! emulated device ([`super::emulated::Emulated`]), which runs the same kernel files compiled
//! for the host, each stream on a worker thread of its own.
//!
//! The operations follow the CUDA driver API: device memory is addressed by integers
//! (`CUdeviceptr`), a launch names its kernel and passes its argument list as
//! `cuLaunchKernel` takes it ([`Arg`]), copies and launches are queued on streams and ordered
//! between streams by events (`cuEventRecord`, `cuStreamWaitEvent`).

use core::fmt::Debug;

use crate::kernels::{KernelFile, Precision};
use crate::layout::{Launch, RawRegion};

use super::CudaError;

/// A value device memory holds (field values real and complex, coefficients, material ids,
/// flags, keys, indices).
pub trait DeviceValue: bytemuck::Pod + Debug + Default + Send + Sync + Unpin {
    /// The same bytes as cudarc copies them: the type itself, or for a complex value (whose
    /// type, `num_complex::Complex`, cudarc does not know) [`ComplexRepr`].
    type Repr: cudarc::driver::DeviceRepr
        + cudarc::driver::ValidAsZeroBits
        + bytemuck::Pod
        + Debug
        + Default
        + Send
        + Sync
        + Unpin;
}

macro_rules! plain_device_values {
    ($($t:ty),*) => {$(
        impl DeviceValue for $t {
            type Repr = $t;
        }
    )*};
}

plain_device_values!(u8, u16, i32, u32, i64, u64, f32, f64);

/// A complex value as device memory holds it: `num_complex::Complex<R>`'s layout (`re`, then
/// `im`; `yee_complex<R>` of `kernels/yee_complex.h`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ComplexRepr<R> {
    /// The real part.
    pub re: R,
    /// The imaginary part.
    pub im: R,
}

// SAFETY: two values of a `Pod` type in a `repr(C)` struct: no padding, any bits valid.
unsafe impl<R: bytemuck::Pod> bytemuck::Zeroable for ComplexRepr<R> {}
// SAFETY: as above.
unsafe impl<R: bytemuck::Pod> bytemuck::Pod for ComplexRepr<R> {}
// SAFETY: `repr(C)` plain data, laid out as `yee_complex<R>`.
unsafe impl<R: cudarc::driver::DeviceRepr> cudarc::driver::DeviceRepr for ComplexRepr<R> {}
// SAFETY: zero bits are the complex zero.
unsafe impl<R: cudarc::driver::ValidAsZeroBits> cudarc::driver::ValidAsZeroBits for ComplexRepr<R> {}

impl DeviceValue for num_complex::Complex<f32> {
    type Repr = ComplexRepr<f32>;
}

impl DeviceValue for num_complex::Complex<f64> {
    type Repr = ComplexRepr<f64>;
}

/// One curl term as a kernel takes it by value (`yee_term` of `kernels/yee_cell.h`: device
/// pointers as integers).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DeviceTerm {
    /// The source field's address.
    pub source: u64,
    /// Its stride along the derivative's axis.
    pub stride: i64,
    /// The axis.
    pub axis: i32,
    /// The sign.
    pub sign: i32,
    /// The stretch table's address.
    pub stretch: u64,
}

/// The curl terms of one component (`yee_terms`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DeviceTerms {
    /// Up to two terms.
    pub term: [DeviceTerm; 2],
    /// How many are used.
    pub count: i32,
}

// SAFETY: plain `repr(C)` data laid out as the C structs of `kernels/yee_cell.h` (64-bit
// pointers and `long long`, `int`), passed by value as kernel parameters.
unsafe impl cudarc::driver::DeviceRepr for DeviceTerm {}
// SAFETY: as above.
unsafe impl cudarc::driver::DeviceRepr for DeviceTerms {}
// SAFETY: `yee_region`: twelve `long long`.
unsafe impl cudarc::driver::DeviceRepr for RawRegion {}

/// One argument of a kernel launch, by value: the launch passes a pointer to it, as
/// `cuLaunchKernel`'s `kernelParams` does.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Arg {
    /// A device address (`T *`).
    Address(u64),
    /// `int`.
    Int(i32),
    /// `long long`.
    Long(i64),
    /// `float`.
    Float(f32),
    /// `double`.
    Double(f64),
    /// `yee_region`.
    Region(RawRegion),
    /// `yee_term`.
    Term(DeviceTerm),
    /// `yee_terms`.
    Terms(DeviceTerms),
}

impl Arg {
    /// The address of the value (what `kernelParams` holds) and its size in bytes.
    pub fn pointer(&self) -> (*const core::ffi::c_void, usize) {
        fn of<X>(x: &X) -> (*const core::ffi::c_void, usize) {
            ((x as *const X).cast(), size_of::<X>())
        }
        match self {
            Arg::Address(x) => of(x),
            Arg::Int(x) => of(x),
            Arg::Long(x) => of(x),
            Arg::Float(x) => of(x),
            Arg::Double(x) => of(x),
            Arg::Region(x) => of(x),
            Arg::Term(x) => of(x),
            Arg::Terms(x) => of(x),
        }
    }
}

/// The driver operations of the device chunk. Work on one stream runs in the order it was
/// queued; work on two streams is ordered only by [`Driver::record`] and [`Driver::wait`].
pub trait Driver: Sized + Debug {
    /// The backend's name in reports and on the command line (`cuda`, `cuda-emulated`).
    const NAME: &'static str;

    /// Device memory of `len` values of `X`.
    type Memory<X: DeviceValue>: Debug;
    /// Page-locked host memory of values of `X` (the staging buffers of messages).
    type Pinned<X: DeviceValue>: Debug;
    /// A queue of device work.
    type Stream: Debug;
    /// A point in a stream's work other streams can wait for.
    type Event: Debug;
    /// A loaded kernel entry point.
    type Kernel: Debug;

    /// The device of rank `rank` (its context), or why there is none.
    fn open(rank: usize) -> Result<Self, CudaError>;

    /// A new stream.
    fn stream(&self) -> Result<Self::Stream, CudaError>;

    /// A new event.
    fn event(&self) -> Result<Self::Event, CudaError>;

    /// The entry point `entry` (without its type suffix) of `file` built for `precision`.
    fn kernel(
        &self,
        file: KernelFile,
        entry: &str,
        precision: Precision,
    ) -> Result<Self::Kernel, CudaError>;

    /// `len` zeroed values in device memory.
    fn alloc_zeros<X: DeviceValue>(
        &self,
        stream: &Self::Stream,
        len: usize,
    ) -> Result<Self::Memory<X>, CudaError>;

    /// Device memory holding a copy of `values` (pageable host memory: copied before it
    /// returns).
    fn upload<X: DeviceValue>(
        &self,
        stream: &Self::Stream,
        values: &[X],
    ) -> Result<Self::Memory<X>, CudaError>;

    /// Values held by `memory`.
    fn len<X: DeviceValue>(memory: &Self::Memory<X>) -> usize;

    /// The device address of `memory`'s first value, for use on `stream`.
    fn address<X: DeviceValue>(&self, memory: &Self::Memory<X>, stream: &Self::Stream) -> u64;

    /// Queues on `stream` a copy of `values` (pageable host memory, read before it returns)
    /// into `memory`, from value `at`.
    fn write<X: DeviceValue>(
        &self,
        stream: &Self::Stream,
        values: &[X],
        memory: &mut Self::Memory<X>,
        at: usize,
    ) -> Result<(), CudaError>;

    /// Copies `out.len()` values of `memory` from value `at` into `out` (pageable host
    /// memory) after the work queued on `stream` before it; returns when they are there.
    fn read<X: DeviceValue>(
        &self,
        stream: &Self::Stream,
        memory: &Self::Memory<X>,
        at: usize,
        out: &mut [X],
    ) -> Result<(), CudaError>;

    /// Page-locked host memory of `len` zeroed values.
    fn alloc_pinned<X: DeviceValue>(&self, len: usize) -> Result<Self::Pinned<X>, CudaError>;

    /// The values of pinned memory (no copy into them may be in flight).
    fn pinned<X: DeviceValue>(pinned: &Self::Pinned<X>) -> &[X];

    /// The values of pinned memory, mutable (no copy from or into them may be in flight).
    fn pinned_mut<X: DeviceValue>(pinned: &mut Self::Pinned<X>) -> &mut [X];

    /// Queues on `stream` a copy of `len` values of `memory` from value `at` into the start of
    /// `pinned`: it completes asynchronously.
    fn device_to_pinned<X: DeviceValue>(
        &self,
        stream: &Self::Stream,
        memory: &Self::Memory<X>,
        at: usize,
        len: usize,
        pinned: &mut Self::Pinned<X>,
    ) -> Result<(), CudaError>;

    /// Queues on `stream` a copy of the first `len` values of `pinned` into `memory` from value
    /// `at`: it completes asynchronously.
    fn pinned_to_device<X: DeviceValue>(
        &self,
        stream: &Self::Stream,
        pinned: &Self::Pinned<X>,
        len: usize,
        memory: &mut Self::Memory<X>,
        at: usize,
    ) -> Result<(), CudaError>;

    /// Queues `kernel` on `stream` over `launch` with the argument list `args`.
    ///
    /// # Safety
    /// `args` must match the kernel's parameters in order and type, and every address in them
    /// must stay valid, with room for what the kernel reads and writes, until the launch has
    /// run.
    unsafe fn launch(
        &self,
        stream: &Self::Stream,
        kernel: &Self::Kernel,
        launch: Launch,
        args: &[Arg],
    ) -> Result<(), CudaError>;

    /// Records in `event` the work queued on `stream` so far.
    fn record(&self, event: &Self::Event, stream: &Self::Stream) -> Result<(), CudaError>;

    /// Makes the work queued on `stream` from now on wait for what `event` last recorded.
    fn wait(&self, stream: &Self::Stream, event: &Self::Event) -> Result<(), CudaError>;

    /// Blocks until everything queued on `stream` has finished.
    fn synchronize(&self, stream: &Self::Stream) -> Result<(), CudaError>;
}
