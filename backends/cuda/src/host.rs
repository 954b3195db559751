//! The host build of the kernel bodies (`kernels/host.c`, compiled by `build.rs` with
//! multiply-adds unfused): a loop over a box of nodes calling the node body of
//! `kernels/yee_cell.h` once per node, as a CUDA thread calls it. Each wrapper checks every
//! index the C loop will touch before calling it.

use core::ffi::{c_int, c_longlong};
use std::fmt;

use crate::layout::{FINITE_KEY, RawRegion, cell_of_key};
pub use crate::layout::{Ids, Storage};

/// A value type the kernels are built for (`f32`, `f64`).
pub trait KernelReal: Copy + PartialEq + sealed::Sealed {}

impl KernelReal for f32 {}
impl KernelReal for f64 {}

/// The C side: not reachable from outside the crate.
mod sealed {
    use core::ffi::{c_int, c_longlong, c_ulonglong};

    use crate::layout::RawRegion;

    /// One curl term as the C body takes it (`yee_term` in `kernels/yee_cell.h`).
    #[repr(C)]
    pub struct RawTerm<R> {
        pub source: *const R,
        pub stride: c_longlong,
        pub axis: c_int,
        pub sign: c_int,
        pub stretch: *const R,
    }

    /// The curl terms of one component (`yee_terms`).
    #[repr(C)]
    pub struct RawTerms<R> {
        pub term: [RawTerm<R>; 2],
        pub count: c_int,
    }

    /// The C loops of `kernels/host.c` for one value type.
    pub trait Sealed: Sized {
        unsafe fn curl_box(
            values: *mut Self,
            terms: *const RawTerms<Self>,
            ids: *const u16,
            uniform: c_int,
            coefficients: *const Self,
            r: *const RawRegion,
            electric: c_int,
            non_finite: *mut c_int,
        );
        unsafe fn cpml_box(
            values: *mut Self,
            psi: *mut Self,
            term: *const RawTerm<Self>,
            ids: *const u16,
            uniform: c_int,
            coefficients: *const Self,
            r: *const RawRegion,
            slab_lo: *const c_longlong,
            slab_extent: *const c_longlong,
            electric: c_int,
        );
        unsafe fn source(
            values: *mut Self,
            offset: c_longlong,
            value: Self,
            hard: c_int,
            ids: *const u16,
            uniform: c_int,
            coefficients: *const Self,
        );
        unsafe fn box_copy(
            values: *mut Self,
            buffer: *mut Self,
            lo: *const c_longlong,
            box_extent: *const c_longlong,
            storage_lo: *const c_longlong,
            extent: *const c_longlong,
            pack: c_int,
        );
        unsafe fn first_non_finite(
            values: *const Self,
            r: *const RawRegion,
            grid: *const c_longlong,
        ) -> c_ulonglong;
    }

    /// The C loops of `kernels/host.c` for one value type, and their [`Sealed`] impl.
    macro_rules! loops {
        ($t:ty, $curl:ident, $cpml:ident, $source:ident, $copy:ident, $finite:ident) => {
            unsafe extern "C" {
                fn $curl(
                    values: *mut $t,
                    terms: *const RawTerms<$t>,
                    ids: *const u16,
                    uniform: c_int,
                    coefficients: *const $t,
                    r: *const RawRegion,
                    electric: c_int,
                    non_finite: *mut c_int,
                );
                fn $cpml(
                    values: *mut $t,
                    psi: *mut $t,
                    term: *const RawTerm<$t>,
                    ids: *const u16,
                    uniform: c_int,
                    coefficients: *const $t,
                    r: *const RawRegion,
                    slab_lo: *const c_longlong,
                    slab_extent: *const c_longlong,
                    electric: c_int,
                );
                fn $source(
                    values: *mut $t,
                    offset: c_longlong,
                    value: $t,
                    hard: c_int,
                    ids: *const u16,
                    uniform: c_int,
                    coefficients: *const $t,
                );
                fn $copy(
                    values: *mut $t,
                    buffer: *mut $t,
                    lo: *const c_longlong,
                    box_extent: *const c_longlong,
                    storage_lo: *const c_longlong,
                    extent: *const c_longlong,
                    pack: c_int,
                );
                fn $finite(
                    values: *const $t,
                    r: *const RawRegion,
                    grid: *const c_longlong,
                ) -> c_ulonglong;
            }

            impl Sealed for $t {
                unsafe fn curl_box(
                    values: *mut $t,
                    terms: *const RawTerms<$t>,
                    ids: *const u16,
                    uniform: c_int,
                    coefficients: *const $t,
                    r: *const RawRegion,
                    electric: c_int,
                    non_finite: *mut c_int,
                ) {
                    unsafe {
                        $curl(
                            values,
                            terms,
                            ids,
                            uniform,
                            coefficients,
                            r,
                            electric,
                            non_finite,
                        )
                    }
                }
                unsafe fn cpml_box(
                    values: *mut $t,
                    psi: *mut $t,
                    term: *const RawTerm<$t>,
                    ids: *const u16,
                    uniform: c_int,
                    coefficients: *const $t,
                    r: *const RawRegion,
                    slab_lo: *const c_longlong,
                    slab_extent: *const c_longlong,
                    electric: c_int,
                ) {
                    unsafe {
                        $cpml(
                            values,
                            psi,
                            term,
                            ids,
                            uniform,
                            coefficients,
                            r,
                            slab_lo,
                            slab_extent,
                            electric,
                        )
                    }
                }
                unsafe fn source(
                    values: *mut $t,
                    offset: c_longlong,
                    value: $t,
                    hard: c_int,
                    ids: *const u16,
                    uniform: c_int,
                    coefficients: *const $t,
                ) {
                    unsafe { $source(values, offset, value, hard, ids, uniform, coefficients) }
                }
                unsafe fn box_copy(
                    values: *mut $t,
                    buffer: *mut $t,
                    lo: *const c_longlong,
                    box_extent: *const c_longlong,
                    storage_lo: *const c_longlong,
                    extent: *const c_longlong,
                    pack: c_int,
                ) {
                    unsafe { $copy(values, buffer, lo, box_extent, storage_lo, extent, pack) }
                }
                unsafe fn first_non_finite(
                    values: *const $t,
                    r: *const RawRegion,
                    grid: *const c_longlong,
                ) -> c_ulonglong {
                    unsafe { $finite(values, r, grid) }
                }
            }
        };
    }

    loops!(
        f32,
        yee_curl_box_f32,
        yee_cpml_box_f32,
        yee_source_f32,
        yee_box_copy_f32,
        yee_first_non_finite_f32
    );
    loops!(
        f64,
        yee_curl_box_f64,
        yee_cpml_box_f64,
        yee_source_f64,
        yee_box_copy_f64,
        yee_first_non_finite_f64
    );
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

/// Why a host kernel refused to run: the index it would have gone out of range with.
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
/// for H) and `[decay, gain] = coefficients[id]` of each node's id. Returns whether a stored
/// value is NaN or infinite (the device's divergence flag).
pub fn update_box<R: KernelReal>(
    values: &mut [R],
    terms: &[Term<R>],
    ids: Ids,
    coefficients: &[[R; 2]],
    [lo, hi]: [[i64; 3]; 2],
    storage: Storage,
    electric: bool,
) -> Result<bool, HostKernelError> {
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
        return Ok(false);
    }
    let none = || RawTerm {
        source: core::ptr::null(),
        stride: 0,
        axis: 0,
        sign: 0,
        stretch: core::ptr::null(),
    };
    let raw_terms = sealed::RawTerms {
        term: [
            raw(terms.first()).unwrap_or_else(none),
            raw(terms.get(1)).unwrap_or_else(none),
        ],
        count: terms.len() as c_int,
    };
    let region = RawRegion::new([lo, hi], storage);
    let (id_ptr, uniform) = raw_ids(ids);
    let mut non_finite: c_int = 0;
    // SAFETY: every offset the loop forms lies in `values`, the ids and each source (the box
    // and its one-node reach are inside the storage box, whose cell count is their length),
    // every id names a pair of `coefficients`, every stretch index is below its table's
    // length, and the arrays outlive the call; `values` is not aliased by any source (a `&mut`
    // borrow).
    unsafe {
        R::curl_box(
            values.as_mut_ptr(),
            &raw_terms,
            id_ptr,
            uniform,
            coefficients.as_ptr().cast(),
            &region,
            c_int::from(electric),
            &mut non_finite,
        );
    }
    Ok(non_finite != 0)
}

use sealed::RawTerm;

/// The id pointer and uniform id the C bodies take.
fn raw_ids(ids: Ids) -> (*const u16, c_int) {
    match ids {
        Ids::PerNode(ids) => (ids.as_ptr(), 0),
        Ids::Uniform(id) => (core::ptr::null(), c_int::from(id)),
    }
}

/// Checks that every id names a coefficient pair.
fn check_ids(ids: Ids, cells: usize, coefficients: usize) -> Result<(), HostKernelError> {
    match ids {
        Ids::PerNode(ids) => {
            if ids.len() != cells {
                return Err(HostKernelError::Length("ids"));
            }
            if let Some(&id) = ids.iter().find(|&&id| usize::from(id) >= coefficients) {
                return Err(HostKernelError::MaterialId(id));
            }
        }
        Ids::Uniform(id) if usize::from(id) >= coefficients => {
            return Err(HostKernelError::MaterialId(id));
        }
        Ids::Uniform(_) => {}
    }
    Ok(())
}

/// The checks every index of the C loops needs over `[lo, hi)` of a field stored over
/// `storage`: lengths, the one-node reach of each term's difference, the stretch tables and
/// the material ids.
fn check<R>(
    values: usize,
    terms: &[Term<R>],
    ids: Ids,
    coefficients: usize,
    [lo, hi]: [[i64; 3]; 2],
    storage: Storage,
    electric: bool,
) -> Result<(), HostKernelError> {
    let cells = storage.cells();
    if values != cells {
        return Err(HostKernelError::Length("values"));
    }
    check_ids(ids, cells, coefficients)?;
    if terms.len() > 2 || terms.iter().any(|t| t.axis > 2) {
        return Err(HostKernelError::Term);
    }
    if terms.iter().any(|t| t.source.len() != cells) {
        return Err(HostKernelError::Length("a term's source"));
    }
    if (0..3).any(|a| lo[a] >= hi[a]) {
        return Ok(());
    }
    if !storage.contains([lo, hi]) {
        return Err(HostKernelError::OutsideStorage);
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
    Ok(())
}

fn raw<R>(t: Option<&Term<R>>) -> Option<RawTerm<R>> {
    t.map(|t| RawTerm {
        source: t.source.as_ptr(),
        stride: t.stride as c_longlong,
        axis: t.axis as c_int,
        sign: c_int::from(t.sign),
        stretch: t.stretch.as_ptr().cast(),
    })
}

/// Applies the CPML correction of one layer to the nodes of `[lo, hi)` (inside the layer's
/// cells in the chunk, `layer`, over which `psi` is stored): `ψ ← b·ψ + c·∂`, then
/// `v ← v ± gain·ψ` with `term` the curl term along the layer's axis, `[b, c, _]` its stretch
/// table at the node and `gain` the node's material's curl coefficient.
pub fn cpml_box<R: KernelReal>(
    values: &mut [R],
    psi: &mut [R],
    term: Term<R>,
    ids: Ids,
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
    if psi.len() != layer.cells() {
        return Err(HostKernelError::Length("psi"));
    }
    if (0..3).any(|a| lo[a] >= hi[a]) {
        return Ok(());
    }
    if !layer.contains([lo, hi]) {
        return Err(HostKernelError::OutsideLayer);
    }
    let raw = raw(Some(&term)).expect("a term");
    let region = RawRegion::new([lo, hi], storage);
    let (id_ptr, uniform) = raw_ids(ids);
    let layer_lo = layer.lo;
    let layer_extent = layer.extent.map(|x| x as c_longlong);
    // SAFETY: as in `update_box`, every offset into `values`, the ids, the source and the
    // stretch table was checked above; every ψ offset lies in `psi` (the box is inside the
    // layer's box, whose cell count is its length); `values` and `psi` are distinct `&mut`.
    unsafe {
        R::cpml_box(
            values.as_mut_ptr(),
            psi.as_mut_ptr(),
            &raw,
            id_ptr,
            uniform,
            coefficients.as_ptr().cast(),
            &region,
            layer_lo.as_ptr(),
            layer_extent.as_ptr(),
            c_int::from(electric),
        );
    }
    Ok(())
}

/// A point source at `cell` of a field stored over `storage`: a soft source adds
/// `value · gain` (the node's curl coefficient), a hard one (`hard`) stores `value`.
pub fn source<R: KernelReal>(
    values: &mut [R],
    cell: [i64; 3],
    value: R,
    hard: bool,
    ids: Ids,
    coefficients: &[[R; 2]],
    storage: Storage,
) -> Result<(), HostKernelError> {
    if values.len() != storage.cells() {
        return Err(HostKernelError::Length("values"));
    }
    check_ids(ids, storage.cells(), coefficients.len())?;
    let offset = storage
        .offset(cell)
        .ok_or(HostKernelError::OutsideStorage)?;
    let (id_ptr, uniform) = raw_ids(ids);
    // SAFETY: `offset` lies in `values` (and the ids, of the same length), and every id names
    // a pair of `coefficients`.
    unsafe {
        R::source(
            values.as_mut_ptr(),
            offset as c_longlong,
            value,
            c_int::from(hard),
            id_ptr,
            uniform,
            coefficients.as_ptr().cast(),
        );
    }
    Ok(())
}

/// Packs the box `[lo, hi)` of a field stored over `storage` into `out[..cells]`, x fastest
/// (halos, probes and read-backs).
pub fn pack_box<R: KernelReal>(
    values: &[R],
    storage: Storage,
    [lo, hi]: [[i64; 3]; 2],
    out: &mut [R],
) -> Result<(), HostKernelError> {
    let cells = box_cells(values.len(), storage, [lo, hi], out.len())?;
    if cells == 0 {
        return Ok(());
    }
    let [lo, extent, storage_lo, storage_extent] = box_args([lo, hi], storage);
    // SAFETY: the box lies inside the storage box (checked), so every offset lies in `values`;
    // `out` holds its cells. The C loop only reads `values` when packing.
    unsafe {
        R::box_copy(
            values.as_ptr().cast_mut(),
            out.as_mut_ptr(),
            lo.as_ptr(),
            extent.as_ptr(),
            storage_lo.as_ptr(),
            storage_extent.as_ptr(),
            1,
        );
    }
    Ok(())
}

/// Unpacks `data[..cells]` into the box `[lo, hi)` of a field stored over `storage`.
pub fn unpack_box<R: KernelReal>(
    values: &mut [R],
    storage: Storage,
    [lo, hi]: [[i64; 3]; 2],
    data: &[R],
) -> Result<(), HostKernelError> {
    let cells = box_cells(values.len(), storage, [lo, hi], data.len())?;
    if cells == 0 {
        return Ok(());
    }
    let [lo, extent, storage_lo, storage_extent] = box_args([lo, hi], storage);
    // SAFETY: as in `pack_box`; the C loop only reads `data` when unpacking.
    unsafe {
        R::box_copy(
            values.as_mut_ptr(),
            data.as_ptr().cast_mut(),
            lo.as_ptr(),
            extent.as_ptr(),
            storage_lo.as_ptr(),
            storage_extent.as_ptr(),
            0,
        );
    }
    Ok(())
}

/// The cells of a box copy, after checking the box lies in the storage and the buffer holds it.
fn box_cells(
    values: usize,
    storage: Storage,
    [lo, hi]: [[i64; 3]; 2],
    buffer: usize,
) -> Result<usize, HostKernelError> {
    if values != storage.cells() {
        return Err(HostKernelError::Length("values"));
    }
    if (0..3).any(|a| lo[a] >= hi[a]) {
        return Ok(0);
    }
    if !storage.contains([lo, hi]) {
        return Err(HostKernelError::OutsideStorage);
    }
    let cells = (0..3).map(|a| (hi[a] - lo[a]) as usize).product();
    if buffer < cells {
        return Err(HostKernelError::Length("the buffer"));
    }
    Ok(cells)
}

/// The C arguments of a box copy: lo, the box's extents, the storage's lo and extents.
fn box_args([lo, hi]: [[i64; 3]; 2], storage: Storage) -> [[c_longlong; 3]; 4] {
    [
        lo,
        core::array::from_fn(|a| hi[a] - lo[a]),
        storage.lo,
        storage.extent.map(|x| x as c_longlong),
    ]
}

/// The first node (x fastest over a grid of extents `grid`) of `[lo, hi)` whose stored value
/// is NaN or infinite, as the device's reduction finds it.
pub fn first_non_finite<R: KernelReal>(
    values: &[R],
    storage: Storage,
    [lo, hi]: [[i64; 3]; 2],
    grid: [usize; 3],
) -> Result<Option<[i64; 3]>, HostKernelError> {
    if box_cells(values.len(), storage, [lo, hi], usize::MAX)? == 0 {
        return Ok(None);
    }
    let region = RawRegion::new([lo, hi], storage);
    let grid_raw = grid.map(|g| g as c_longlong);
    // SAFETY: the box lies inside the storage box (checked), so every offset lies in `values`.
    let key = unsafe { R::first_non_finite(values.as_ptr(), &region, grid_raw.as_ptr()) };
    Ok((key != FINITE_KEY).then(|| cell_of_key(key, grid)))
}
