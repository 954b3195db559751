//! The host build of the kernel bodies (`kernels/host.c`, compiled by `build.rs` with
//! multiply-adds unfused): a loop over a box of nodes calling the cell body of
//! `kernels/yee_cell.h` once per node, as a CUDA thread calls it. [`update_box`] checks every
//! index the C loop will touch before calling it.

use core::ffi::{c_int, c_long};
use std::fmt;

/// A value type the kernels are built for (`f32`, `f64`).
pub trait KernelReal: Copy + sealed::Sealed {}

impl KernelReal for f32 {}
impl KernelReal for f64 {}

/// The C side: not reachable from outside the crate.
mod sealed {
    use core::ffi::{c_int, c_long};

    /// One curl term as the C body takes it (`yee_term` in `kernels/yee_cell.h`).
    #[repr(C)]
    pub struct RawTerm<R> {
        pub source: *const R,
        pub stride: c_long,
        pub axis: c_int,
        pub sign: c_int,
        pub stretch: *const R,
    }

    /// The C box loop's arguments: values, terms, count, ids, coefficients, lo, hi,
    /// storage_lo, extent, electric.
    pub type BoxFn<R> = unsafe extern "C" fn(
        *mut R,
        *const RawTerm<R>,
        c_int,
        *const u16,
        *const R,
        *const c_long,
        *const c_long,
        *const c_long,
        *const c_long,
        c_int,
    );

    /// The C CPML loop's arguments: values, psi, term, ids, coefficients, lo, hi, storage_lo,
    /// extent, slab_lo, slab_extent, electric.
    pub type CpmlFn<R> = unsafe extern "C" fn(
        *mut R,
        *mut R,
        *const RawTerm<R>,
        *const u16,
        *const R,
        *const c_long,
        *const c_long,
        *const c_long,
        *const c_long,
        *const c_long,
        *const c_long,
        c_int,
    );

    /// The C loops of each value type.
    pub trait Sealed: Sized {
        fn box_fn() -> BoxFn<Self>;
        fn cpml_fn() -> CpmlFn<Self>;
    }

    /// The two C loops of `kernels/host.c` for one value type, and their [`Sealed`] impl.
    macro_rules! loops {
        ($t:ty, $update:ident, $cpml:ident) => {
            unsafe extern "C" {
                pub fn $update(
                    values: *mut $t,
                    terms: *const RawTerm<$t>,
                    count: c_int,
                    ids: *const u16,
                    coefficients: *const $t,
                    lo: *const c_long,
                    hi: *const c_long,
                    storage_lo: *const c_long,
                    extent: *const c_long,
                    electric: c_int,
                );
                pub fn $cpml(
                    values: *mut $t,
                    psi: *mut $t,
                    term: *const RawTerm<$t>,
                    ids: *const u16,
                    coefficients: *const $t,
                    lo: *const c_long,
                    hi: *const c_long,
                    storage_lo: *const c_long,
                    extent: *const c_long,
                    slab_lo: *const c_long,
                    slab_extent: *const c_long,
                    electric: c_int,
                );
            }

            impl Sealed for $t {
                fn box_fn() -> BoxFn<$t> {
                    $update
                }
                fn cpml_fn() -> CpmlFn<$t> {
                    $cpml
                }
            }
        };
    }

    loops!(f32, yee_update_box_f32, yee_cpml_box_f32);
    loops!(f64, yee_update_box_f64, yee_cpml_box_f64);
}

/// One curl term of the updated component: `sign · ∂source/∂axis`, the derivative scaled by
/// `stretch[p[axis]][2]` (1/κ at the node's global coordinate along `axis`).
#[derive(Clone, Copy, Debug)]
pub struct Term<'a, R> {
    /// The differentiated field, stored over the same box as the updated one.
    pub source: &'a [R],
    /// Its stride along `axis`.
    pub stride: usize,
    /// The axis (0, 1, 2).
    pub axis: usize,
    /// +1 or −1.
    pub sign: i8,
    /// `[b, c, 1/κ]` per global coordinate along `axis`.
    pub stretch: &'a [[R; 3]],
}

/// The box a field is stored over: its lowest corner and its extents (x fastest).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Storage {
    /// The lowest corner, in global coordinates.
    pub lo: [i64; 3],
    /// Cells along each axis.
    pub extent: [usize; 3],
}

/// Why [`update_box`] refused to run: the index it would have gone out of range with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HostKernelError {
    /// The updated box is not inside the storage box (with the ghost cell each difference
    /// reads).
    OutsideStorage,
    /// An array's length is not the storage box's cell count.
    Length(&'static str),
    /// A material id names no coefficient pair.
    MaterialId(u16),
    /// A stretch table does not reach the box along its axis.
    Stretch(usize),
    /// More terms than the C body takes, or a term's axis is not 0, 1 or 2.
    Term,
    /// The CPML box is not inside the layer's box.
    OutsideLayer,
}

impl fmt::Display for HostKernelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HostKernelError::OutsideStorage => write!(f, "the box is not inside the storage box"),
            HostKernelError::Length(what) => write!(f, "{what} has the wrong length"),
            HostKernelError::MaterialId(id) => write!(f, "material id {id} has no coefficients"),
            HostKernelError::Stretch(t) => write!(f, "the stretch table of term {t} is short"),
            HostKernelError::Term => write!(f, "at most two terms, along axes 0, 1 or 2"),
            HostKernelError::OutsideLayer => write!(f, "the box is not inside the layer"),
        }
    }
}

impl std::error::Error for HostKernelError {}

/// Updates the nodes of `[lo, hi)` of `values` (stored over `storage`) by the kernel body:
/// `v ← v·decay + curl·gain` with the curl of `terms` (backward differences for E, forward
/// for H) and `[decay, gain] = coefficients[ids[node]]`.
#[allow(clippy::too_many_arguments)]
pub fn update_box<R: KernelReal>(
    values: &mut [R],
    terms: &[Term<R>],
    ids: &[u16],
    coefficients: &[[R; 2]],
    [lo, hi]: [[i64; 3]; 2],
    storage: Storage,
    electric: bool,
) -> Result<(), HostKernelError> {
    check(
        values.len(),
        terms,
        ids,
        coefficients.len(),
        [lo, hi],
        storage,
        electric,
    )?;
    if (0..3).any(|a| lo[a] >= hi[a]) {
        return Ok(());
    }
    let raw: Vec<sealed::RawTerm<R>> = terms.iter().map(raw).collect();
    let [lo, hi, storage_lo] = [lo, hi, storage.lo].map(|b| b.map(|x| x as c_long));
    let extent = storage.extent.map(|x| x as c_long);
    // SAFETY: every offset the loop forms lies in `values`, `ids` and each source (the box and
    // its one-node reach are inside the storage box, whose cell count is their length), every
    // id names a pair of `coefficients`, every stretch index is below its table's length, and
    // the arrays outlive the call; `values` is not aliased by any source (a `&mut` borrow).
    unsafe {
        <R as sealed::Sealed>::box_fn()(
            values.as_mut_ptr(),
            raw.as_ptr(),
            raw.len() as c_int,
            ids.as_ptr(),
            coefficients.as_ptr().cast(),
            lo.as_ptr(),
            hi.as_ptr(),
            storage_lo.as_ptr(),
            extent.as_ptr(),
            c_int::from(electric),
        );
    }
    Ok(())
}

/// The checks every index of the C loops needs over `[lo, hi)` of a field stored over
/// `storage`: lengths, the one-node reach of each term's difference, the stretch tables and
/// the material ids.
fn check<R>(
    values: usize,
    terms: &[Term<R>],
    ids: &[u16],
    coefficients: usize,
    [lo, hi]: [[i64; 3]; 2],
    storage: Storage,
    electric: bool,
) -> Result<(), HostKernelError> {
    let cells: usize = storage.extent.iter().product();
    if values != cells {
        return Err(HostKernelError::Length("values"));
    }
    if ids.len() != cells {
        return Err(HostKernelError::Length("ids"));
    }
    if terms.len() > 2 || terms.iter().any(|t| t.axis > 2) {
        return Err(HostKernelError::Term);
    }
    if terms.iter().any(|t| t.source.len() != cells) {
        return Err(HostKernelError::Length("a term's source"));
    }
    if (0..3).any(|a| lo[a] >= hi[a]) {
        return Ok(());
    }
    for a in 0..3 {
        if lo[a] < storage.lo[a] || hi[a] > storage.lo[a] + storage.extent[a] as i64 {
            return Err(HostKernelError::OutsideStorage);
        }
    }
    // Every difference reads one node beyond the box along its axis: below for E, above for H.
    for (i, t) in terms.iter().enumerate() {
        let a = t.axis;
        let (first, last) = if electric {
            (lo[a] - 1, hi[a] - 1)
        } else {
            (lo[a], hi[a])
        };
        if first < storage.lo[a] || last >= storage.lo[a] + storage.extent[a] as i64 {
            return Err(HostKernelError::OutsideStorage);
        }
        if lo[a] < 0 || hi[a] as usize > t.stretch.len() {
            return Err(HostKernelError::Stretch(i));
        }
    }
    if let Some(&id) = ids.iter().find(|&&id| usize::from(id) >= coefficients) {
        return Err(HostKernelError::MaterialId(id));
    }
    Ok(())
}

fn raw<R>(t: &Term<R>) -> sealed::RawTerm<R> {
    sealed::RawTerm {
        source: t.source.as_ptr(),
        stride: t.stride as c_long,
        axis: t.axis as c_int,
        sign: c_int::from(t.sign),
        stretch: t.stretch.as_ptr().cast(),
    }
}

/// Applies the CPML correction of one layer to the nodes of `[lo, hi)` (inside the layer's
/// cells in the chunk, `layer`, over which `psi` is stored): `ψ ← b·ψ + c·∂`, then
/// `v ← v ± gain·ψ` with `term` the curl term along the layer's axis, `[b, c, _]` its stretch
/// table at the node and `gain` the node's material's curl coefficient.
#[allow(clippy::too_many_arguments)]
pub fn cpml_box<R: KernelReal>(
    values: &mut [R],
    psi: &mut [R],
    term: Term<R>,
    ids: &[u16],
    coefficients: &[[R; 2]],
    [lo, hi]: [[i64; 3]; 2],
    storage: Storage,
    layer: Storage,
    electric: bool,
) -> Result<(), HostKernelError> {
    check(
        values.len(),
        &[term],
        ids,
        coefficients.len(),
        [lo, hi],
        storage,
        electric,
    )?;
    if psi.len() != layer.extent.iter().product::<usize>() {
        return Err(HostKernelError::Length("psi"));
    }
    if (0..3).any(|a| lo[a] >= hi[a]) {
        return Ok(());
    }
    if (0..3).any(|a| lo[a] < layer.lo[a] || hi[a] > layer.lo[a] + layer.extent[a] as i64) {
        return Err(HostKernelError::OutsideLayer);
    }
    let raw = raw(&term);
    let [lo, hi, storage_lo, layer_lo] =
        [lo, hi, storage.lo, layer.lo].map(|b| b.map(|x| x as c_long));
    let [extent, layer_extent] = [storage.extent, layer.extent].map(|e| e.map(|x| x as c_long));
    // SAFETY: as in `update_box`, every offset into `values`, `ids`, the source and the
    // stretch table was checked above; every ψ offset lies in `psi` (the box is inside the
    // layer's box, whose cell count is its length); `values` and `psi` are distinct `&mut`.
    unsafe {
        <R as sealed::Sealed>::cpml_fn()(
            values.as_mut_ptr(),
            psi.as_mut_ptr(),
            &raw,
            ids.as_ptr(),
            coefficients.as_ptr().cast(),
            lo.as_ptr(),
            hi.as_ptr(),
            storage_lo.as_ptr(),
            extent.as_ptr(),
            layer_lo.as_ptr(),
            layer_extent.as_ptr(),
            c_int::from(electric),
        );
    }
    Ok(())
}
