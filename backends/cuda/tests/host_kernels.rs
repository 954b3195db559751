//! The host build of the CUDA kernel bodies (curl update, then CPML correction) against the
//! scalar oracle, bit for bit, fields and ψ: a grid
//! with materials (lossy, anisotropic, smoothed), CPML stretched by κ = 5 on some faces and
//! PEC/PMC on others, random fields, every mode, E and H, f32 and f64, on the whole grid and on
//! a chunk of it. A slip of an index, a sign or the expression order fails it.

use yee_core::{Box3, Field, Stencil};
use yee_cuda::host::{KernelReal, Storage, Term, cpml_box, update_box};
use yee_em::{Boundary, CpmlParams, Material, Mode, Region, Setup, Shape};
use yee_scalar::cpml::CpmlUpdate;
use yee_scalar::curl::CurlUpdate;
use yee_scalar::state::YeeState;

const REGIONS: [Region; 2] = [
    Region {
        shape: Shape::Block {
            lo: [2.0, 3.0, 1.0],
            hi: [9.0, 8.0, 7.0],
        },
        material: Material {
            eps: 3.0,
            mu: 1.0,
            sigma: 0.05,
            sigma_m: 0.01,
            poles: yee_em::PoleSet::NONE,
            diagonal: None,
        },
    },
    Region {
        shape: Shape::Sphere {
            center: [8.3, 6.6, 5.2],
            radius: 3.2,
        },
        material: Material {
            eps: 3.0,
            mu: 1.2,
            sigma: 0.0,
            sigma_m: 0.0,
            poles: yee_em::PoleSet::NONE,
            diagonal: Some(yee_em::Diagonal {
                eps: [2.0, 3.0, 4.0],
                mu: [1.0, 1.5, 1.1],
            }),
        },
    },
];

fn setup(mode: Mode) -> Setup<'static> {
    let grid = match mode {
        Mode::OneD => [30, 1, 1],
        Mode::ThreeD => [15, 14, 13],
        _ => [17, 16, 1],
    };
    let cpml = Boundary::Cpml(CpmlParams {
        kappa_max: 5.0,
        ..CpmlParams::with_thickness(4)
    });
    Setup {
        regions: &REGIONS,
        ..Setup::vacuum(
            mode,
            grid,
            0.4,
            [
                [cpml, Boundary::Pec],
                [Boundary::Pmc, cpml],
                [cpml, Boundary::Pec],
            ],
        )
    }
}

/// Deterministic values in (−1, 1).
fn fill<T: yee_core::Real>(state: &mut YeeState<T>, seed: u64) {
    let mut x = seed;
    for f in state.fields.iter_mut().flatten() {
        for v in f.as_mut_slice() {
            x = x
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            *v = T::from_f64(((x >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0);
        }
    }
}

/// The kernel's view of curl term `t` of component `c`: the source, its stride in storage
/// `strides`, and the stretch table along the term's axis.
fn term<'a, T: yee_core::Real>(
    state: &'a YeeState<T>,
    c: yee_em::Component,
    t: &yee_em::CurlTerm,
    strides: [usize; 3],
) -> Term<'a, T> {
    Term {
        source: state.field(t.source).unwrap().as_slice(),
        stride: strides[t.axis.index()],
        axis: t.axis.index(),
        sign: t.sign,
        stretch: state.stretch[t.axis.index()].table(c, t.axis),
    }
}

/// The [decay, gain] pairs of the phase's materials.
fn coefficients<T: yee_core::Real>(state: &YeeState<T>, electric: bool) -> &[[T; 2]] {
    if electric {
        &state.electric
    } else {
        &state.magnetic
    }
}

/// The kernel's view of a storage box.
fn storage_of(b: Box3) -> Storage {
    Storage {
        lo: b.lo,
        extent: b.extent(),
    }
}

/// The kernel body's host build over `region`: what `CurlUpdate` does to the components of
/// the phase.
fn host_update<T>(state: &mut YeeState<T>, electric: bool, region: Box3)
where
    T: yee_core::Real + KernelReal,
{
    let active = state.mode.active_axes();
    for &c in state.mode.components() {
        if c.is_electric() != electric {
            continue;
        }
        let r = region.intersect(&state.free[c.index()]);
        if r.is_empty() {
            continue;
        }
        let mut target = state.fields[c.index()].take().unwrap();
        let storage = Field::storage(&target);
        let strides = storage.strides();
        let terms: Vec<Term<T>> = c
            .curl_terms()
            .iter()
            .filter(|t| active[t.axis.index()] && state.mode.has(t.source))
            .map(|t| term(state, c, t, strides))
            .collect();
        update_box(
            target.as_mut_slice(),
            &terms,
            &state.material_ids[c.index()],
            coefficients(state, electric),
            [r.lo, r.hi],
            storage_of(storage),
            electric,
        )
        .unwrap();
        state.fields[c.index()] = Some(target);
    }
}

/// The CPML kernel body's host build: what `CpmlUpdate` does, layer by layer.
fn host_cpml<T>(state: &mut YeeState<T>, electric: bool, region: Box3)
where
    T: yee_core::Real + KernelReal,
{
    let mut slabs = std::mem::take(&mut state.slabs);
    for slab in &mut slabs {
        for &c in state.mode.components() {
            if c.is_electric() != electric {
                continue;
            }
            let Some(psi) = slab.psi[c.index()].as_mut() else {
                continue;
            };
            let r = region
                .intersect(&slab.region)
                .intersect(&state.free[c.index()]);
            if r.is_empty() {
                continue;
            }
            let t = c
                .curl_terms()
                .into_iter()
                .find(|t| t.axis == slab.axis)
                .unwrap();
            let mut target = state.fields[c.index()].take().unwrap();
            let storage = Field::storage(&target);
            let term = term(state, c, &t, storage.strides());
            cpml_box(
                target.as_mut_slice(),
                psi,
                term,
                &state.material_ids[c.index()],
                coefficients(state, electric),
                [r.lo, r.hi],
                storage_of(storage),
                storage_of(slab.region),
                electric,
            )
            .unwrap();
            state.fields[c.index()] = Some(target);
        }
    }
    state.slabs = slabs;
}

/// Random ψ in every layer.
fn fill_psi<T: yee_core::Real>(state: &mut YeeState<T>) {
    for (i, slab) in state.slabs.iter_mut().enumerate() {
        for psi in slab.psi.iter_mut().flatten() {
            for (j, v) in psi.iter_mut().enumerate() {
                *v = T::from_f64(((i * 7919 + j * 104_729) % 1000) as f64 / 500.0 - 1.0);
            }
        }
    }
}

fn compare<T>(mode: Mode, owned: Box3)
where
    T: yee_core::Real + KernelReal,
{
    let setup = setup(mode);
    setup.validate().unwrap();
    for electric in [true, false] {
        let mut oracle = YeeState::<T>::new(&setup, owned);
        fill(&mut oracle, 7 + u64::from(electric));
        fill_psi(&mut oracle);
        let mut host = oracle.clone();
        CurlUpdate { electric }.apply(&mut oracle, owned, 0);
        CpmlUpdate { electric }.apply(&mut oracle, owned, 0);
        host_update(&mut host, electric, owned);
        host_cpml(&mut host, electric, owned);
        for (a, b) in oracle.slabs.iter().zip(&host.slabs) {
            assert!(
                a.psi == b.psi
                    || a.psi.iter().zip(&b.psi).all(|(x, y)| match (x, y) {
                        (Some(x), Some(y)) => x.iter().zip(y).all(|(p, q)| {
                            yee_core::Real::to_f64(*p).to_bits()
                                == yee_core::Real::to_f64(*q).to_bits()
                        }),
                        (None, None) => true,
                        _ => false,
                    }),
                "{mode:?}: ψ differs"
            );
        }
        for (c, (a, b)) in oracle.fields.iter().zip(&host.fields).enumerate() {
            let (Some(a), Some(b)) = (a, b) else { continue };
            let differ = a
                .as_slice()
                .iter()
                .zip(b.as_slice())
                .filter(|(x, y)| {
                    yee_core::Real::to_f64(**x).to_bits() != yee_core::Real::to_f64(**y).to_bits()
                })
                .count();
            assert_eq!(
                differ, 0,
                "{mode:?} component {c} (electric {electric}) over {owned:?}"
            );
        }
    }
}

#[test]
fn the_host_build_of_the_kernel_bodies_matches_the_oracle_bit_for_bit() {
    for mode in [Mode::OneD, Mode::Tmz, Mode::Tez, Mode::ThreeD] {
        let grid = setup(mode).grid;
        let whole = Box3::from_extent(grid);
        let mut chunk = whole;
        chunk.lo[0] = 3;
        chunk.hi[0] = grid[0] as i64 - 2;
        for owned in [whole, chunk] {
            compare::<f32>(mode, owned);
            compare::<f64>(mode, owned);
        }
    }
}

#[test]
fn an_index_out_of_range_is_refused() {
    let values = &mut [0.0f64; 8];
    let ids = [0u16; 8];
    let storage = Storage {
        lo: [0; 3],
        extent: [8, 1, 1],
    };
    let source = [0.0f64; 8];
    let stretch = [[0.0, 0.0, 1.0]; 8];
    let term = Term {
        source: &source,
        stride: 1,
        axis: 0,
        sign: 1,
        stretch: &stretch,
    };
    let coefficients = [[1.0, 0.5]];
    // E reads one node below the box: x = 0 has none.
    let e = update_box(
        values,
        &[term],
        &ids,
        &coefficients,
        [[0, 0, 0], [8, 1, 1]],
        storage,
        true,
    );
    assert_eq!(e, Err(yee_cuda::host::HostKernelError::OutsideStorage));
    let e = update_box(
        values,
        &[term],
        &[1u16; 8],
        &coefficients,
        [[1, 0, 0], [8, 1, 1]],
        storage,
        true,
    );
    assert_eq!(e, Err(yee_cuda::host::HostKernelError::MaterialId(1)));
    assert!(
        update_box(
            values,
            &[term],
            &ids,
            &coefficients,
            [[1, 0, 0], [8, 1, 1]],
            storage,
            true
        )
        .is_ok()
    );
}
