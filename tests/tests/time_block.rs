//! Temporal blocking (issue 45): the rayon backend's wavefront tiles of k steps
//! (`yee_scalar::time_tile`) against the scalar oracle stepped one step at a time, bit for bit
//! — fields, CPML ψ and polarisations — on vacuum, CPML, a dielectric and a lossy sphere, a
//! dispersive one (Drude, Lorentz and Debye poles), spheres smoothed
//! with the full tensor (off-diagonal nodes, H a plane ahead of E) and a TF/SF plane wave, 3D
//! and 2D, f32 and f64, k = 2, 4 and auto with slabs of one plane (two with tensor nodes) up
//! to the whole grid, and one step at a time in the step's slabs (H a plane ahead where tensor
//! nodes are); and a
//! run whose outputs fall inside tiles sees each output's fields at its own step.

use yee_core::{Box3, Field, Scalar, Topology};
use yee_em::{Boundary, Component, Costs, Mode, Setup, YeeBackend};
use yee_rayon::{RayonCurl, TimeBlock};
use yee_scalar::YeeChunk;
use yee_scalar::checkpoints::NoCheckpoints;
use yee_scalar::chunk::CurlExecutor;
use yee_scalar::decomposed::{run_rank_with, uniform_plan};

/// Every field array, every ψ array, then both slots of every dispersive component's P, of
/// `chunk`.
fn arrays<T: Scalar, K: CurlExecutor<T>>(chunk: &YeeChunk<T, K>) -> Vec<Vec<T>> {
    let fields = chunk
        .state
        .fields
        .iter()
        .flatten()
        .map(|f| f.as_slice().to_vec());
    let psi = (chunk.state.slabs.iter()).flat_map(|s| s.psi.iter().flatten().cloned());
    let poles = (chunk.state.dispersive.iter().flatten()).flat_map(|d| d.slots.iter().cloned());
    fields.chain(psi).chain(poles).collect()
}

/// The oracle's arrays after `steps` steps of `setup`, one step at a time.
fn oracle<T: Scalar>(setup: &Setup, steps: u64) -> Vec<Vec<T>> {
    let owned = Box3::from_extent(setup.grid);
    let mut chunk = YeeChunk::<T>::new(setup, owned);
    for step in 0..steps {
        chunk.apply_step(step, owned);
    }
    arrays(&chunk)
}

/// The rayon chunk of `setup` with `block` on two threads, tiles sized for `cache` bytes, run
/// `steps` steps in tiles: its arrays equal the oracle's. Returns the slabs' thickness in
/// planes, or `None` where it took no tile. Without blocking, one step at a time in the
/// step's slabs (`YeeChunk::apply_step`; H a plane ahead where tensor nodes are) of one
/// plane, two and the whole grid, the arrays equal the oracle's too.
fn check<T: Scalar>(setup: &Setup, name: &str, steps: u64, reference: &[Vec<T>]) -> Vec<usize> {
    let owned = Box3::from_extent(setup.grid);
    let axis = (1..3).rev().find(|&a| setup.grid[a] > 1).unwrap();
    let plane = owned.cells() / setup.grid[axis];
    // Two threads of `batch` cells a slab: one plane, two planes, the whole grid.
    for batch in [plane / 2, plane, owned.cells()] {
        // The tensor nodes go with their batch's rows.
        let kernel = RayonCurl::with_threads(2).unwrap().with_batch_cells(batch);
        let mut chunk: YeeChunk<T, RayonCurl> =
            kernel.build(setup, owned, Costs::default()).unwrap();
        assert!(
            chunk.time_tile().is_none(),
            "{name}: a tile without blocking"
        );
        chunk.apply_steps(0, steps, owned);
        assert!(
            arrays(&chunk) == reference,
            "{name}: one step at a time in slabs of {} cells differs from the oracle",
            2 * batch
        );
    }
    let mut thicknesses = Vec::new();
    for block in [TimeBlock::Steps(2), TimeBlock::Steps(4), TimeBlock::Auto] {
        for cache in [1 << 10, 96 << 10, 32 << 20] {
            let mut kernel = RayonCurl::with_threads(2)
                .unwrap()
                .with_time_block(block)
                .with_cache_bytes(cache);
            if cache < 32 << 20 {
                // Batches of three rows, and the tensor nodes with them.
                kernel = kernel.with_batch_cells(3 * setup.grid[0]);
            }
            let mut chunk: YeeChunk<T, RayonCurl> =
                kernel.build(setup, owned, Costs::default()).unwrap();
            let tile = chunk.time_tile();
            if let TimeBlock::Steps(k) = block {
                assert_eq!(
                    tile.map(|t| t.steps),
                    Some(k),
                    "{name}: {block:?} takes no tile"
                );
            }
            chunk.apply_steps(0, steps, owned);
            assert!(
                arrays(&chunk) == reference,
                "{name}: {block:?} with a {cache}-byte cache differs from the oracle"
            );
            if let Some(t) = tile {
                thicknesses.push((t.slab_cells / plane).clamp(1, setup.grid[axis]));
            }
        }
    }
    thicknesses
}

/// A sphere of `radius` at the centre of `grid`: `epsilon`, `sigma` and μ = 1.6 (so that a
/// TMz grid, whose two components are H's, has tensor nodes too).
fn tensor_sphere(grid: [usize; 3], radius: f64, epsilon: f64, sigma: f64) -> yee_em::Region {
    let mut sphere = yee_tests::lossy_sphere(grid.map(|n| n as f64 / 2.0), epsilon, sigma);
    sphere.material.mu = 1.6;
    if let yee_em::Shape::Sphere { radius: r, .. } = &mut sphere.shape {
        *r = radius;
    }
    sphere
}

/// An oblique plane wave (where the mode allows: the incident field interpolated from the
/// auxiliary grid) whose TF/SF box stands 2 cells inside `grid`.
fn plane_wave(mode: Mode, grid: [usize; 3]) -> yee_em::PlaneWave {
    let (direction, polarization) = match mode {
        Mode::Tez => ([1.0, 0.4, 0.0], [-0.4, 1.0, 0.0]),
        Mode::ThreeD => ([1.0, 0.5, 0.3], [0.0, -0.3, 0.5]),
        _ => ([1.0, 0.4, 0.0], [0.0, 0.0, 1.0]),
    };
    let inset = |a: usize| if grid[a] > 1 { 2 } else { 0 };
    yee_em::PlaneWave {
        region: Box3::new(
            std::array::from_fn(inset),
            std::array::from_fn(|a| grid[a] as i64 - inset(a)),
        ),
        direction,
        polarization,
        waveform: yee_em::Waveform::Ricker {
            frequency: 0.1,
            delay: 8.0,
        },
        amplitude: 0.7,
    }
}

/// The scenes: vacuum in PEC, CPML, a dielectric sphere, a lossy one and a dispersive one
/// (one Drude, one Lorentz and one Debye pole) in CPML (diagonal smoothing); a sphere smoothed with the full tensor (off-diagonal nodes: H a plane ahead of
/// E) in CPML, a lossy one (the nodes' running sums) in PEC; and a plane wave through
/// a TF/SF box around a tensor-smoothed sphere in PEC.
fn scenes(mode: Mode, grid: [usize; 3], steps: u64) {
    let center = [
        grid[0] as f64 / 2.0,
        grid[1] as f64 / 2.0,
        grid[2] as f64 / 2.0,
    ];
    let dielectric = [yee_tests::lossy_sphere(center, 4.0, 0.0)];
    let lossy = [yee_tests::lossy_sphere(center, 3.0, 0.05)];
    let dispersive = [yee_em::Region {
        material: yee_tests::dispersive(1.5, 0, 3),
        ..yee_tests::lossy_sphere(center, 1.0, 0.0)
    }];
    let tensor = [tensor_sphere(grid, 2.5, 4.0, 0.0)];
    let lossy_tensor = [tensor_sphere(grid, 4.0, 3.0, 0.05)];
    let waves = [plane_wave(mode, grid)];
    let active = mode.active_axes();
    let cpml: [[Boundary; 2]; 3] = std::array::from_fn(|a| match active[a] {
        true => [Boundary::Cpml(yee_em::CpmlParams::with_thickness(3)); 2],
        false => [Boundary::Pec; 2],
    });
    let cell = std::array::from_fn(|a| grid[a] as i64 / 3);
    let component = if mode == Mode::Tez {
        Component::Hz
    } else {
        Component::Ez
    };
    let sources = [yee_tests::ricker_source(component, cell)];
    // (name, regions, CPML, full-tensor smoothing, plane waves)
    type Case<'a> = (
        &'a str,
        &'a [yee_em::Region],
        bool,
        bool,
        &'a [yee_em::PlaneWave],
    );
    let cases: [Case; 8] = [
        ("vacuum", &[], false, false, &[]),
        ("CPML", &[], true, false, &[]),
        ("dielectric sphere", &dielectric, true, false, &[]),
        ("lossy sphere", &lossy, true, false, &[]),
        ("dispersive sphere", &dispersive, true, false, &[]),
        ("tensor sphere", &tensor, true, true, &[]),
        ("lossy tensor sphere", &lossy_tensor, false, true, &[]),
        ("TF/SF", &tensor, false, true, &waves),
    ];
    for (name, regions, absorbing, smoothing_tensor, plane_waves) in cases {
        let walls = if absorbing { cpml } else { yee_tests::PEC };
        let setup = Setup {
            sources: &sources,
            regions,
            plane_waves,
            smoothing_tensor,
            poles: &yee_tests::TEST_POLES,
            ..yee_tests::vacuum(mode, grid, 0.5, walls)
        };
        setup.validate().unwrap();
        let name = format!("{mode:?} {name}");
        let poles = YeeChunk::<f64>::new(&setup, Box3::from_extent(grid))
            .state
            .polarisation_len();
        assert_eq!(
            poles > 0,
            name.ends_with("dispersive sphere"),
            "{name}: {poles} polarisation values"
        );
        if smoothing_tensor {
            // Off-diagonal nodes: the tiles run H a plane ahead of E.
            assert!(setup.has_tensor_nodes(), "{name}: no tensor nodes");
            let chunk = YeeChunk::<f64>::new(&setup, Box3::from_extent(grid));
            assert!(
                yee_scalar::time_tile::h_ahead(&chunk.state),
                "{name}: H not ahead"
            );
        }
        let f64s = check::<f64>(&setup, &name, steps, &oracle::<f64>(&setup, steps));
        let f32s = check::<f32>(&setup, &name, steps, &oracle::<f32>(&setup, steps));
        // Slabs of one plane (two where H runs ahead), of several and the whole grid all ran.
        let thinnest = match smoothing_tensor {
            true => yee_scalar::time_tile::AHEAD_MIN_PLANES,
            false => 1,
        };
        for thickness in [f64s, f32s] {
            let planes = grid[(1..3).rev().find(|&a| grid[a] > 1).unwrap()];
            assert!(
                thickness.contains(&thinnest),
                "{name}: no slabs of {thinnest} planes"
            );
            assert!(thickness.contains(&planes), "{name}: no whole-grid slab");
        }
    }
}

#[test]
fn wavefront_tiles_in_3d_match_the_oracle_bit_for_bit() {
    scenes(Mode::ThreeD, [13, 11, 15], 23);
}

#[test]
fn wavefront_tiles_in_2d_match_the_oracle_bit_for_bit() {
    scenes(Mode::Tmz, [22, 19, 1], 23);
    scenes(Mode::Tez, [17, 21, 1], 23);
}

#[test]
fn outputs_inside_tiles_see_the_fields_of_their_own_step() {
    let regions = [yee_tests::lossy_sphere([8.0, 7.0, 9.0], 2.5, 0.02)];
    let sources = [yee_tests::ricker_source(Component::Ez, [5, 6, 7])];
    let setup = Setup {
        sources: &sources,
        regions: &regions,
        smoothing_tensor: false,
        ..yee_tests::vacuum(
            Mode::ThreeD,
            [16, 14, 18],
            0.5,
            yee_tests::cpml_everywhere(3),
        )
    };
    setup.validate().unwrap();
    let owned = Box3::from_extent(setup.grid);
    let steps = 30;
    // The oracle's third field array (Ez) after every step.
    let mut chunk = YeeChunk::<f32>::new(&setup, owned);
    let mut every = vec![Vec::new()];
    for step in 0..steps {
        chunk.apply_step(step, owned);
        every.push(arrays(&chunk)[2].clone());
    }
    let observed = |step: u64| step % 7 == 3;
    let plan = uniform_plan(&setup, Topology([1, 1, 1]));
    let kernel = RayonCurl::with_threads(2)
        .unwrap()
        .with_time_block(TimeBlock::Steps(4))
        .with_cache_bytes(48 << 10);
    let (seen, output) = yee_comm_shm::launch(Topology([1, 1, 1]), |mut comm| {
        let chunk = kernel.build(&setup, owned, Costs::default()).unwrap();
        let mut seen = Vec::new();
        let mut none = NoCheckpoints::default();
        let output = run_rank_with(
            &setup,
            &plan,
            yee_core::session::Start::of(&plan),
            chunk,
            Vec::new(),
            &mut comm,
            steps,
            &mut none,
            &observed,
            |step, chunk: &mut YeeChunk<f32, RayonCurl>| {
                seen.push((step, arrays(chunk)[2].clone()));
            },
        )
        .unwrap();
        (seen, output)
    })
    .pop()
    .unwrap();
    assert_eq!(output.tile_steps, 4);
    let steps_seen: Vec<u64> = seen.iter().map(|(s, _)| *s).collect();
    assert_eq!(
        output.longest_tile, 4,
        "no tile of 4 steps ran: {steps_seen:?}"
    );
    for step in (1..=steps).filter(|&s| observed(s)) {
        assert!(steps_seen.contains(&step), "step {step} was not seen");
    }
    // Tiles end at the observed steps, after at most 4 steps, and at the last step.
    assert_eq!(steps_seen, [3, 7, 10, 14, 17, 21, 24, 28, 30]);
    for (step, ez) in &seen {
        assert!(
            *ez == every[*step as usize],
            "the fields seen at step {step} are not the oracle's"
        );
    }
    assert!(output.fields[Component::Ez.index()].is_some());
}

/// The oracle's series of each of `probes` over `steps` steps of `setup`, one step at a time.
fn oracle_probes<T: Scalar>(setup: &Setup, steps: u64) -> Vec<Vec<(u64, T)>> {
    let owned = Box3::from_extent(setup.grid);
    let mut chunk = YeeChunk::<T>::new(setup, owned);
    let mut series = vec![Vec::new(); setup.probes.len()];
    for step in 0..steps {
        chunk.apply_step(step, owned);
        for (s, p) in series.iter_mut().zip(setup.probes) {
            s.push((
                step + 1,
                chunk.state.field(p.component).unwrap().get(p.cell),
            ));
        }
    }
    series
}

/// `setup` run `steps` steps by one rank of the rayon backend with `block`, tiles sized for
/// `cache` bytes and no step observed: its probe series, the slabs of its tile and the
/// longest tile that ran.
fn tiled_probes<T: Scalar>(
    setup: &Setup,
    block: TimeBlock,
    cache: usize,
    steps: u64,
) -> (Vec<Vec<(u64, T)>>, usize, u64) {
    let kernel = RayonCurl::with_threads(2)
        .unwrap()
        .with_time_block(block)
        .with_cache_bytes(cache);
    let owned = Box3::from_extent(setup.grid);
    let chunk: YeeChunk<T, RayonCurl> = kernel.build(setup, owned, Costs::default()).unwrap();
    let tile = chunk.time_tile().expect("the chunk takes a tile");
    let plane = owned.cells() / setup.grid[2];
    let slabs = setup.grid[2].div_ceil(tile.slab_cells / plane);
    let output = lone_rank::<T>(setup, block, cache, steps);
    let mut series = vec![Vec::new(); setup.probes.len()];
    for (i, s) in output.probes {
        series[i] = s;
    }
    (series, slabs, output.longest_tile)
}

#[test]
fn probes_inside_tiles_record_the_one_step_series_bit_for_bit() {
    // Probes on the first plane, in the middle and on the last plane of z: in the first, a
    // middle and the last slab of each tile below; E and H nodes.
    let probes = [
        yee_em::Probe {
            component: Component::Ez,
            cell: [4, 4, 0],
        },
        yee_em::Probe {
            component: Component::Hx,
            cell: [5, 3, 8],
        },
        yee_em::Probe {
            component: Component::Ey,
            cell: [6, 5, 15],
        },
    ];
    let regions = [yee_tests::lossy_sphere([5.0, 4.5, 8.0], 2.5, 0.03)];
    let sources = [yee_tests::ricker_source(Component::Ez, [5, 4, 6])];
    let setup = Setup {
        sources: &sources,
        regions: &regions,
        probes: &probes,
        smoothing_tensor: false,
        ..yee_tests::vacuum(
            Mode::ThreeD,
            [10, 9, 16],
            0.5,
            yee_tests::cpml_everywhere(3),
        )
    };
    setup.validate().unwrap();
    let steps = 23;
    let reference = oracle_probes::<f64>(&setup, steps);
    assert!(reference.iter().all(|s| s.iter().any(|(_, v)| *v != 0.0)));
    let small = 96 << 10;
    for (block, cache, k) in [
        (TimeBlock::Steps(2), small, 2),
        (TimeBlock::Steps(4), small, 4),
        (TimeBlock::Auto, small, 2),
        (
            TimeBlock::Auto,
            32 << 20,
            yee_rayon::time_block::AUTO_MAX_STEPS,
        ),
    ] {
        let (series, slabs, longest) = tiled_probes::<f64>(&setup, block, cache, steps);
        let what = format!("{block:?}, {cache}-byte cache, {slabs} slabs");
        assert_eq!(longest, k, "{what}: probes cut the tiles");
        if cache == small {
            assert!(slabs >= 3, "{what}: the probes share slabs");
        }
        assert!(
            series == reference,
            "{what}: probe series differ from the oracle's"
        );
    }
    let f32s = tiled_probes::<f32>(&setup, TimeBlock::Steps(4), small, steps).0;
    assert!(
        f32s == oracle_probes::<f32>(&setup, steps),
        "f32 probes differ"
    );
}

#[test]
fn what_a_tile_cannot_hold_steps_one_step_at_a_time() {
    let kernel = RayonCurl::with_threads(1)
        .unwrap()
        .with_time_block(TimeBlock::Steps(4));
    // Parts a tile does not hold: the chunk takes none, and says why. Dispersive media tile.
    assert_eq!(yee_scalar::time_tile::fallback(Mode::ThreeD), None);
    let one_d = yee_scalar::time_tile::fallback(Mode::OneD);
    assert!(one_d.unwrap().contains("1D"));
    let setup_1d = yee_tests::vacuum(Mode::OneD, [40, 1, 1], 0.5, yee_tests::PEC);
    let chunk = YeeBackend::<f64>::build(
        &kernel,
        &setup_1d,
        Box3::from_extent([40, 1, 1]),
        Costs::default(),
    )
    .unwrap();
    assert_eq!(chunk.time_tile(), None);
    // A smoothed sphere's off-diagonal nodes tile (H ahead), but a decomposed run's ghost zones
    // do not hold them: they read a cell further than the zone's depth allows for.
    let regions = [yee_tests::lossy_sphere([5.0, 5.0, 5.0], 4.0, 0.0)];
    let tensor = Setup {
        regions: &regions,
        ..yee_tests::vacuum(Mode::ThreeD, [10, 10, 10], 0.5, yee_tests::PEC)
    };
    assert_eq!(yee_scalar::time_tile::setup_fallback(&tensor, false), None);
    let why = yee_scalar::time_tile::setup_fallback(&tensor, true).unwrap();
    assert!(why.contains("off-diagonal"), "{why}");
    let chunk: YeeChunk<f64, RayonCurl> = kernel
        .build(&tensor, Box3::from_extent([10; 3]), Costs::default())
        .unwrap();
    assert_eq!(chunk.time_tile().map(|t| t.steps), Some(4));
    assert_eq!(chunk.zone_wish(), 1);
    let plane_waves = yee_scalar::time_tile::zone_fallback(true, HALO_FACES);
    assert!(plane_waves.unwrap().contains("TF/SF"));
}

/// The Yee stencil's face halos (no tensor nodes).
const HALO_FACES: yee_em::halo::HaloShape = yee_em::halo::HaloShape::Faces;

/// Two ranks with time blocking asked for keep ghost zones 4 cells deep and exchange every 4
/// steps (`yee_scalar::ghost_zone`; tests/tests/ghost_zone.rs has the layouts), and give the
/// oracle's bits.
#[test]
fn two_ranks_with_time_blocking_exchange_every_k_steps() {
    let sources = [yee_tests::ricker_source(Component::Ez, [5, 6, 7])];
    let setup = Setup {
        sources: &sources,
        ..yee_tests::vacuum(
            Mode::ThreeD,
            [10, 12, 14],
            0.5,
            yee_tests::cpml_everywhere(2),
        )
    };
    let topology = Topology([1, 1, 2]);
    let plan = uniform_plan(&setup, topology);
    let kernel = RayonCurl::with_threads(1)
        .unwrap()
        .with_time_block(TimeBlock::Steps(4));
    let outputs = yee_comm_shm::launch(topology, |mut comm| {
        let owned = plan.initial_box(yee_core::Comm::rank(&comm));
        let chunk = kernel.build(&setup, owned, Costs::default()).unwrap();
        let mut none = NoCheckpoints::default();
        let start = yee_core::session::Start::of(&plan);
        let never = |_: u64| false;
        let after = |_, _: &mut YeeChunk<f64, RayonCurl>| {};
        run_rank_with(
            &setup,
            &plan,
            start,
            chunk,
            Vec::new(),
            &mut comm,
            20,
            &mut none,
            &never,
            after,
        )
        .unwrap()
    });
    assert!(
        outputs
            .iter()
            .all(|o| (o.tile_steps, o.longest_tile) == (4, 4))
    );
    let ez = yee_scalar::decomposed::assemble(&outputs, setup.grid, Component::Ez).unwrap();
    let mut chunk = YeeChunk::<f64>::new(&setup, Box3::from_extent(setup.grid));
    for step in 0..20 {
        chunk.apply_step(step, Box3::from_extent(setup.grid));
    }
    let mut oracle = vec![0.0; ez.len()];
    let field = chunk.state.field(Component::Ez).unwrap();
    field.read_box(Box3::from_extent(setup.grid), &mut oracle);
    assert!(ez == oracle, "two ranks differ from the oracle");
}

/// One rank of `setup` on the rayon backend blocking time as `block` (tiles for a cache of
/// `cache` bytes), `steps` steps through the run path (`run_rank_with`: the driver, its
/// exchanges with itself across a periodic wrap between tiles).
fn lone_rank<T: Scalar>(
    setup: &Setup,
    block: TimeBlock,
    cache: usize,
    steps: u64,
) -> yee_scalar::decomposed::RankOutput<T> {
    let topology = Topology([1, 1, 1]);
    let plan = uniform_plan(setup, topology);
    let kernel = RayonCurl::with_threads(2)
        .unwrap()
        .with_time_block(block)
        .with_cache_bytes(cache);
    let mut outputs = yee_comm_shm::launch(topology, |mut comm| {
        let chunk: YeeChunk<T, RayonCurl> = kernel
            .build(setup, plan.initial_box(0), Costs::default())
            .unwrap();
        let never = |_: u64| false;
        let after = |_, _: &mut YeeChunk<T, RayonCurl>| {};
        let start = yee_core::session::Start::of(&plan);
        let mut none = NoCheckpoints::default();
        let prior = vec![Vec::new(); setup.probes.len()];
        run_rank_with(
            setup, &plan, start, chunk, prior, &mut comm, steps, &mut none, &never, after,
        )
        .unwrap()
    });
    outputs.remove(0)
}

/// A periodic wrap across the slabs' rows (x, and y in 3D; plain and Bloch) with CPML along
/// the slab axis, a lossy dielectric and a dispersive sphere and a source: a lone rank's tiles
/// refresh the wrap's ghosts slab by slab before each phase reads them
/// (`yee_scalar::own_wrap`) and take tiles of the k asked for (one- or two-plane slabs, and
/// `auto`'s), bit for bit the scalar `Simulation` stepped one step at a time with its halos
/// copied across the wrap after every phase; one step at a time (`off`) the rank's sweep
/// refreshes the wrap slab by slab the same way. Periodic along the slab axis, or with tensor
/// nodes, the rank steps one step at a time with its halos exchanged, with the same bits.
#[test]
fn a_periodic_wrap_across_the_slabs_tiles_bit_for_bit() {
    use num_complex::Complex;
    let center = [6.0, 5.0, 7.0];
    let regions = [
        yee_tests::lossy_sphere(center, 3.0, 0.05),
        yee_em::Region {
            material: yee_tests::dispersive(1.5, 0, 3),
            ..yee_tests::lossy_sphere([2.0, 8.0, 4.0], 1.0, 0.0)
        },
    ];
    let periodic = |mode: Mode, wrapped: [bool; 3]| -> yee_em::Boundaries {
        let active = mode.active_axes();
        std::array::from_fn(|a| match (active[a], wrapped[a]) {
            (false, _) => [Boundary::Pec; 2],
            (true, true) => [Boundary::Periodic; 2],
            (true, false) => [Boundary::Cpml(yee_em::CpmlParams::with_thickness(3)); 2],
        })
    };
    let sources = [
        [yee_tests::ricker_source(Component::Ez, [3, 4, 6])],
        [yee_tests::ricker_source(Component::Ez, [3, 4, 0])],
        [yee_tests::ricker_source(Component::Hz, [3, 4, 0])],
    ];
    let scene = |mode, grid, wrapped, bloch| Setup {
        sources: match mode {
            Mode::ThreeD => &sources[0],
            Mode::Tez => &sources[2],
            _ => &sources[1],
        },
        regions: &regions,
        poles: &yee_tests::TEST_POLES,
        smoothing_tensor: false,
        bloch,
        ..yee_tests::vacuum(mode, grid, 0.5, periodic(mode, wrapped))
    };
    let (d3, g3, g2) = (Mode::ThreeD, [12, 10, 14], [13, 17, 1]);
    let (x, xy, y, z) = (
        [true, false, false],
        [true, true, false],
        [false, true, false],
        [false, false, true],
    );
    // (name, mode, grid, periodic axes, Bloch k, tiles expected)
    let cases = [
        ("3D x, y periodic", d3, g3, xy, [0.0; 3], true),
        ("3D x periodic, Bloch", d3, g3, x, [0.15, 0.0, 0.0], true),
        ("3D x, y Bloch", d3, g3, xy, [0.1, -0.2, 0.0], true),
        ("TMz x periodic", Mode::Tmz, g2, x, [0.0; 3], true),
        ("TEz x Bloch", Mode::Tez, g2, x, [0.2, 0.0, 0.0], true),
        ("3D z periodic", d3, g3, z, [0.0; 3], false),
        ("TMz y periodic", Mode::Tmz, g2, y, [0.0; 3], false),
    ];
    let steps = 23;
    for (name, mode, grid, wrapped, bloch, tiles) in cases {
        let setup = scene(mode, grid, wrapped, bloch);
        setup.validate().unwrap();
        let oracle = yee_tests::single_chunk::<Complex<f64>>(&setup, steps);
        for (block, cache) in [
            (TimeBlock::Off, 32 << 20),
            (TimeBlock::Steps(2), 1 << 10),
            (TimeBlock::Steps(4), 1 << 10),
            (TimeBlock::Auto, 32 << 20),
        ] {
            let out = lone_rank::<Complex<f64>>(&setup, block, cache, steps);
            let k = out.tile_steps;
            match (tiles, block) {
                (false, _) | (_, TimeBlock::Off) => {
                    assert_eq!(out.longest_tile, 1, "{name}: {block:?} tiled")
                }
                (true, TimeBlock::Steps(asked)) => {
                    assert_eq!((k, out.longest_tile), (asked, asked), "{name}: {block:?}")
                }
                _ => assert!(out.longest_tile > 1, "{name}: {block:?} took no tile"),
            }
            for c in Component::ALL {
                let fields =
                    yee_scalar::decomposed::assemble(std::slice::from_ref(&out), setup.grid, c);
                assert!(
                    fields == oracle.fields[c.index()],
                    "{name}: {block:?}: {c:?} differs from the one-step run"
                );
            }
        }
    }
    // Tensor nodes with a wrap: one step at a time, and the same bits.
    let sphere = [tensor_sphere(g3, 3.0, 3.0, 0.0)];
    let tensor = Setup {
        regions: &sphere,
        smoothing_tensor: true,
        ..scene(d3, g3, x, [0.0; 3])
    };
    tensor.validate().unwrap();
    let oracle = yee_tests::single_chunk::<Complex<f64>>(&tensor, steps);
    let out = lone_rank::<Complex<f64>>(&tensor, TimeBlock::Steps(2), 1 << 10, steps);
    assert_eq!(out.longest_tile, 1, "tensor nodes with a wrap tiled");
    let ez = yee_scalar::decomposed::assemble(&[out], tensor.grid, Component::Ez);
    assert!(
        ez == oracle.fields[Component::Ez.index()],
        "tensor: Ez differs"
    );
}

/// The slabs give every thread the same work in each phase, counted in component updates
/// (`yee_rayon::time_block::min_share_cells`): 16 Ki cells of a 3D phase's three components
/// (a 64² plane of 4 Ki cells: 8 planes on two threads), and three times the cells where a 2D
/// phase updates one component alone (TMz's Ez, TEz's Hz: 24 rows of 4096 on two threads).
/// Counted in cells, the 2D slabs were 8 rows, and their tiles ran slower than one step at a
/// time (docs/performance.md).
#[test]
fn slabs_share_each_phase_by_its_component_updates() {
    let slab_planes = |mode: Mode, grid: [usize; 3]| {
        let setup = yee_tests::vacuum(mode, grid, 0.5, yee_tests::PEC);
        let kernel = RayonCurl::with_threads(2)
            .unwrap()
            .with_time_block(TimeBlock::Steps(2))
            .with_cache_bytes(32 << 20);
        let owned = Box3::from_extent(grid);
        let chunk: YeeChunk<f32, RayonCurl> =
            kernel.build(&setup, owned, Costs::default()).unwrap();
        let axis = (1..3).rev().find(|&a| grid[a] > 1).unwrap();
        let phases =
            [true, false].map(|e| yee_rayon::time_block::phase_components(&chunk.state, e));
        (
            chunk.time_tile().unwrap().slab_cells / (owned.cells() / grid[axis]),
            phases,
        )
    };
    assert_eq!(slab_planes(Mode::ThreeD, [64, 64, 64]), (8, [3, 3]));
    assert_eq!(slab_planes(Mode::Tmz, [4096, 64, 1]), (24, [1, 2]));
    assert_eq!(slab_planes(Mode::Tez, [4096, 64, 1]), (24, [2, 1]));
}
