//! The host build of the CUDA kernel bodies against the scalar oracle, bit for bit: the curl
//! update then the CPML correction (fields and ψ) on a grid with materials (lossy,
//! anisotropic, smoothed), a mask, CPML stretched by κ = 5 on some faces and PEC/PMC on
//! others, random fields, every mode, E and H, f32 and f64, on the whole grid and on a chunk
//! of it, with per-node ids and (vacuum) the uniform id; soft and hard point sources; halo
//! packs and unpacks toward every direction; the divergence flag and the first non-finite
//! node. A slip of an index, a sign or the expression order fails it.

use yee_core::{Box3, Chunk, Direction, Field, Stencil, share_directions};
use yee_cuda::host::{
    Ids, KernelReal, Storage, Term, cpml_box, first_non_finite, pack_box, source, unpack_box,
    update_box,
};
use yee_em::halo::{ELECTRIC_PHASE, HaloShape, MAGNETIC_PHASE, ghosts, halo, phase_components};
use yee_em::{
    Boundary, Component, CpmlParams, Material, Mode, PointSource, Region, Setup, Shape, SourceKind,
    Waveform, YeeFields,
};
use yee_scalar::chunk::YeeChunk;
use yee_scalar::cpml::CpmlUpdate;
use yee_scalar::curl::CurlUpdate;
use yee_scalar::source::{SourceUpdate, source_time};
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
            coupling: None,
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
            coupling: None,
        },
    },
];

/// The sources every setup drives: a soft E and H source and a hard E source.
fn sources(mode: Mode) -> &'static [PointSource] {
    let waveform = Waveform::Gaussian {
        delay: 3.0,
        width: 1.5,
        frequency: 0.3,
    };
    let cell = |x| match mode {
        Mode::OneD => [x, 0, 0],
        Mode::ThreeD => [x, 6, 5],
        _ => [x, 6, 0],
    };
    let [e, h] = match mode {
        Mode::Tez => [Component::Ex, Component::Hz],
        Mode::OneD | Mode::Tmz => [Component::Ez, Component::Hy],
        _ => [Component::Ez, Component::Hx],
    };
    let list = vec![
        PointSource {
            component: e,
            cell: cell(5),
            waveform,
            amplitude: 1.3,
            kind: SourceKind::Soft,
        },
        PointSource {
            component: h,
            cell: cell(7),
            waveform,
            amplitude: 0.7,
            kind: SourceKind::Soft,
        },
        PointSource {
            component: e,
            cell: cell(9),
            waveform,
            amplitude: 2.0,
            kind: SourceKind::Hard,
        },
    ];
    list.leak()
}

fn setup(mode: Mode) -> Setup<'static> {
    let grid = match mode {
        Mode::OneD => [30, 1, 1],
        Mode::ThreeD => [15, 14, 13],
        _ => [17, 16, 1],
    };
    // A mask in 3D: a column of inactive cells (zero coefficients through the inactive id).
    let active = (mode == Mode::ThreeD).then(|| {
        let cells: Vec<bool> = (0..grid.iter().product::<usize>())
            .map(|n| !(n % grid[0] == 11 && (n / grid[0]) % grid[1] == 3))
            .collect();
        &*cells.leak()
    });
    let cpml = Boundary::Cpml(CpmlParams {
        kappa_max: 5.0,
        ..CpmlParams::with_thickness(4)
    });
    Setup {
        regions: &REGIONS,
        sources: sources(mode),
        active,
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

/// The ids the kernels read for component `c`: its uniform id where it has one and `uniform`
/// asks for it (as the device chunk passes it), else one per node (the one id of every node
/// where the state keeps no array: [`spell_out_ids`] makes one).
fn ids_of<T: yee_core::Real>(state: &YeeState<T>, c: Component, uniform: bool) -> Ids<'_> {
    match (state.uniform_material[c.index()], state.one_id[c.index()]) {
        (Some(id), _) if uniform => Ids::Uniform(id),
        (_, Some(id)) => Ids::Uniform(id),
        _ => Ids::PerNode(&state.material_ids[c.index()]),
    }
}

/// `state`'s ids one per node for every component, as the device chunk uploads them.
fn spell_out_ids<T: yee_core::Real>(state: &mut YeeState<T>) {
    for c in Component::ALL {
        state.material_ids[c.index()] = state.material_ids_of(c).into_owned();
        state.one_id[c.index()] = None;
    }
}

/// The kernel body's host build over `region`: what `CurlUpdate` does to the components of
/// the phase, and its divergence flag.
fn host_update<T>(state: &mut YeeState<T>, electric: bool, region: Box3, uniform: bool)
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
        state.non_finite |= update_box(
            target.as_mut_slice(),
            &terms,
            ids_of(state, c, uniform),
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
fn host_cpml<T>(state: &mut YeeState<T>, electric: bool, region: Box3, uniform: bool)
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
                ids_of(state, c, uniform),
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

/// The point sources of the phase inside `region`, by the source body's host build: what
/// `SourceUpdate` does at step `step`.
fn host_sources<T>(state: &mut YeeState<T>, electric: bool, region: Box3, step: u64)
where
    T: yee_core::Real + KernelReal,
{
    for s in state.sources.clone() {
        if s.component.is_electric() != electric || !region.contains(s.cell) {
            continue;
        }
        let v = T::from_f64(s.amplitude * s.waveform.value(source_time(&s, step, state.dt)));
        let mut target = state.fields[s.component.index()].take().unwrap();
        let storage = storage_of(Field::storage(&target));
        source(
            target.as_mut_slice(),
            s.cell,
            v,
            s.kind == SourceKind::Hard,
            ids_of(state, s.component, true),
            coefficients(state, electric),
            storage,
        )
        .unwrap();
        state.fields[s.component.index()] = Some(target);
    }
}

/// Values whose bits differ.
fn differing<T: yee_core::Real>(a: &[T], b: &[T]) -> usize {
    a.iter()
        .zip(b)
        .filter(|(x, y)| {
            yee_core::Real::to_f64(**x).to_bits() != yee_core::Real::to_f64(**y).to_bits()
        })
        .count()
}

/// One phase on the oracle (curl, CPML, sources) and on the host build, from the same random
/// fields and ψ, compared bit for bit.
fn compare<T>(setup: &Setup, owned: Box3, uniform: bool)
where
    T: yee_core::Real + KernelReal,
{
    let mode = setup.mode;
    setup.validate().unwrap();
    for electric in [true, false] {
        let mut oracle = YeeState::<T>::new(setup, owned);
        fill(&mut oracle, 7 + u64::from(electric));
        fill_psi(&mut oracle);
        let mut host = oracle.clone();
        if !uniform {
            spell_out_ids(&mut host);
        }
        let step = 4;
        CurlUpdate { electric }.apply(&mut oracle, owned, step);
        CpmlUpdate { electric }.apply(&mut oracle, owned, step);
        SourceUpdate { electric }.apply(&mut oracle, owned, step);
        host_update(&mut host, electric, owned, uniform);
        host_cpml(&mut host, electric, owned, uniform);
        host_sources(&mut host, electric, owned, step);
        for (a, b) in oracle.slabs.iter().zip(&host.slabs) {
            for (x, y) in a.psi.iter().zip(&b.psi) {
                match (x, y) {
                    (Some(x), Some(y)) => assert_eq!(differing(x, y), 0, "{mode:?}: ψ differs"),
                    (None, None) => {}
                    _ => panic!("{mode:?}: ψ carried on one side only"),
                }
            }
        }
        for (c, (a, b)) in oracle.fields.iter().zip(&host.fields).enumerate() {
            let (Some(a), Some(b)) = (a, b) else { continue };
            assert_eq!(
                differing(a.as_slice(), b.as_slice()),
                0,
                "{mode:?} component {c} (electric {electric}) over {owned:?}"
            );
        }
        assert!(!host.non_finite && !oracle.non_finite);
    }
}

/// The whole grid and a chunk of it (x from 3 to n − 2).
fn boxes(setup: &Setup) -> [Box3; 2] {
    let whole = Box3::from_extent(setup.grid);
    let mut chunk = whole;
    chunk.lo[0] = 3;
    chunk.hi[0] = setup.grid[0] as i64 - 2;
    [whole, chunk]
}

#[test]
fn the_host_build_of_the_kernel_bodies_matches_the_oracle_bit_for_bit() {
    for mode in [Mode::OneD, Mode::Tmz, Mode::Tez, Mode::ThreeD] {
        let setup = setup(mode);
        for owned in boxes(&setup) {
            compare::<f32>(&setup, owned, true);
            compare::<f64>(&setup, owned, true);
        }
    }
}

/// In vacuum every node of a component shares one material: the kernels read the uniform id
/// and no per-node id, and give the same bits as with the ids.
#[test]
fn a_uniform_medium_reads_one_id_and_gives_the_same_bits() {
    for mode in [Mode::Tmz, Mode::ThreeD] {
        let setup = Setup {
            regions: &[],
            active: None,
            ..setup(mode)
        };
        for owned in boxes(&setup) {
            let state = YeeState::<f32>::new(&setup, owned);
            for &c in mode.components() {
                assert!(state.uniform_material[c.index()].is_some(), "{c:?}");
            }
            compare::<f32>(&setup, owned, true);
            compare::<f64>(&setup, owned, false);
        }
    }
}

/// The halo packs and unpacks of the box body against the scalar chunk's, toward and from
/// every share direction after each phase, on a chunk in the middle of the grid.
#[test]
fn halos_packed_and_unpacked_by_the_box_body_are_the_oracles() {
    for mode in [Mode::OneD, Mode::Tez, Mode::ThreeD] {
        let setup = setup(mode);
        let owned = boxes(&setup)[1];
        let mut oracle = YeeChunk::<f64>::new(&setup, owned);
        fill(&mut oracle.state, 3);
        let mut host = oracle.state.clone();
        for phase in [MAGNETIC_PHASE, ELECTRIC_PHASE] {
            for &d in share_directions(mode.active_axes()).iter() {
                let len = oracle.halo_len(phase, d);
                let mut expected = vec![0.0; len];
                oracle.pack_halo(phase, d, &mut expected);
                let mut packed = vec![f64::NAN; len];
                if let Some((layer, _)) = halo(mode, owned, phase, d, HaloShape::Faces) {
                    host_box(&mut host, phase, layer, &mut packed, true);
                }
                assert_eq!(differing(&expected, &packed), 0, "{mode:?} toward {d:?}");
                // What arrives from d: the values sent, in the ghost layer on that side.
                let from: Direction = d;
                let incoming: Vec<f64> = (0..oracle.ghost_len(phase, from))
                    .map(|n| n as f64 * 0.25 - 3.0)
                    .collect();
                oracle.unpack_halo(phase, from, &incoming);
                if let Some((layer, _)) = ghosts(mode, owned, phase, from, HaloShape::Faces) {
                    host_box(&mut host, phase, layer, &mut incoming.clone(), false);
                }
            }
        }
        for (a, b) in oracle.state.fields.iter().zip(&host.fields) {
            if let (Some(a), Some(b)) = (a, b) {
                assert_eq!(differing(a.as_slice(), b.as_slice()), 0, "{mode:?}");
            }
        }
    }
}

/// Packs (or unpacks) `layer` of each component of the phase into (from) `buffer`, one
/// component after another, as the device chunk does with its staging buffer.
fn host_box(state: &mut YeeState<f64>, phase: usize, layer: Box3, buffer: &mut [f64], pack: bool) {
    let n = layer.cells();
    for (k, c) in phase_components(state.mode, phase).enumerate() {
        let field = state.fields[c.index()].as_mut().unwrap();
        let storage = storage_of(Field::storage(&*field));
        let part = &mut buffer[k * n..(k + 1) * n];
        match pack {
            true => pack_box(field.as_slice(), storage, [layer.lo, layer.hi], part).unwrap(),
            false => unpack_box(field.as_mut_slice(), storage, [layer.lo, layer.hi], part).unwrap(),
        }
    }
}

/// A NaN fed into an H field makes the E update store non-finite values: the kernel body
/// raises the divergence flag as the oracle does, and the reduction's first non-finite node
/// (components in order, x fastest) is the scalar chunk's.
#[test]
fn the_divergence_flag_and_first_non_finite_node_are_the_oracles() {
    for mode in [Mode::Tmz, Mode::ThreeD] {
        let setup = setup(mode);
        let owned = boxes(&setup)[1];
        let mut oracle = YeeChunk::<f32>::new(&setup, owned);
        fill(&mut oracle.state, 11);
        let h = *mode.components().iter().find(|c| !c.is_electric()).unwrap();
        let bad = [8, 7, i64::from(mode == Mode::ThreeD) * 6];
        oracle.state.fields[h.index()]
            .as_mut()
            .unwrap()
            .set(bad, f32::NAN);
        let mut host = oracle.state.clone();
        oracle.apply(0, ELECTRIC_PHASE, owned);
        host_update(&mut host, true, owned, false);
        assert!(oracle.state.non_finite && host.non_finite, "{mode:?}");
        let expected = oracle.first_non_finite(&[owned]).unwrap().unwrap();
        let found = mode.components().iter().find_map(|&c| {
            let f = host.fields[c.index()].as_ref().unwrap();
            first_non_finite(
                f.as_slice(),
                storage_of(Field::storage(f)),
                [owned.lo, owned.hi],
                setup.grid,
            )
            .unwrap()
            .map(|cell| (c, cell))
        });
        assert_eq!(found, Some(expected), "{mode:?}");
        // A finite box has none.
        let f = host.fields[h.index()].as_ref().unwrap();
        let clean = Box3::new([0, 0, 0], [1, 1, 1]).intersect(&owned);
        assert_eq!(
            first_non_finite(
                f.as_slice(),
                storage_of(Field::storage(f)),
                [clean.lo, clean.hi],
                setup.grid
            ),
            Ok(None)
        );
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
        Ids::PerNode(&ids),
        &coefficients,
        [[0, 0, 0], [8, 1, 1]],
        storage,
        true,
    );
    assert_eq!(e, Err(yee_cuda::host::HostKernelError::OutsideStorage));
    let e = update_box(
        values,
        &[term],
        Ids::PerNode(&[1u16; 8]),
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
            Ids::PerNode(&ids),
            &coefficients,
            [[1, 0, 0], [8, 1, 1]],
            storage,
            true
        )
        .is_ok()
    );
    assert_eq!(
        update_box(
            values,
            &[term],
            Ids::Uniform(1),
            &coefficients,
            [[1, 0, 0], [8, 1, 1]],
            storage,
            true
        ),
        Err(yee_cuda::host::HostKernelError::MaterialId(1))
    );
    let mut out = [0.0; 3];
    assert_eq!(
        pack_box(values, storage, [[6, 0, 0], [9, 1, 1]], &mut out),
        Err(yee_cuda::host::HostKernelError::OutsideStorage)
    );
    assert_eq!(
        pack_box(values, storage, [[0, 0, 0], [4, 1, 1]], &mut out),
        Err(yee_cuda::host::HostKernelError::Length("the buffer"))
    );
    assert_eq!(
        yee_cuda::host::source(
            values,
            [8, 0, 0],
            1.0,
            true,
            Ids::Uniform(0),
            &coefficients,
            storage
        ),
        Err(yee_cuda::host::HostKernelError::OutsideStorage)
    );
}
