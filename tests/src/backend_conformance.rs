//! The backend conformance suite: properties every [`YeeBackend`] must have, written once and
//! instantiated per backend (`tests/tests/backend_conformance.rs`, as burn runs one test
//! suite on every backend). A new backend (a GPU one) passes these, or it is not done.
//!
//! Each check returns `Err(what differs)` instead of panicking, so the instantiating test
//! names the backend, the scene and the property.

use yee_core::driver::shell_and_interior;
use yee_core::{Axis, Box3, Chunk, Scalar, Side, Topology, share_directions};
use yee_em::{Component, Costs, Setup, YeeBackend, YeeFields};
use yee_scalar::ScalarCurl;
use yee_scalar::decomposed::{ComponentValues, owned_fields};

fn fields_of<C: YeeFields<Error: core::fmt::Debug>>(
    chunk: &mut C,
) -> Result<ComponentValues<C::Value>, String> {
    owned_fields(chunk)
        .map(|(_, f)| f)
        .map_err(|e| format!("reading back: {e:?}"))
}

fn first_difference<T: Scalar>(a: &ComponentValues<T>, b: &ComponentValues<T>) -> Option<String> {
    for c in Component::ALL {
        match (&a[c.index()], &b[c.index()]) {
            (Some(x), Some(y)) => {
                let bits = |v: &T| bytemuck::bytes_of(v).to_vec();
                if let Some(n) = (0..x.len()).find(|&n| bits(&x[n]) != bits(&y[n])) {
                    return Some(format!(
                        "{c:?} differs at value {n}: {:?} vs {:?}",
                        x[n], y[n]
                    ));
                }
            }
            (None, None) => {}
            _ => return Some(format!("{c:?} is carried by one chunk only")),
        }
    }
    None
}

/// `Err` naming `what` and the first difference when the two chunks' fields, or the running
/// sums of any DFT monitor of `setup`, differ in a bit.
fn same_fields<A, B>(setup: &Setup, mut a: A, mut b: B, what: &str) -> Result<(), String>
where
    A: YeeFields<Error: core::fmt::Debug>,
    B: YeeFields<Value = A::Value, Error: core::fmt::Debug>,
{
    if let Some(d) = first_difference(&fields_of(&mut a)?, &fields_of(&mut b)?) {
        return Err(format!("{what}: {d}"));
    }
    let whole = Box3::from_extent(setup.grid);
    for (m, monitor) in setup.monitors.iter().enumerate() {
        let region = monitor.region.intersect(&whole);
        let len = monitor.values_per_node() * region.cells();
        for c in monitor.component_list() {
            let (mut x, mut y) = (
                vec![A::Value::default(); len],
                vec![A::Value::default(); len],
            );
            let failed = |e: &dyn core::fmt::Debug| format!("reading DFT sums: {e:?}");
            a.read_dft(m, c, region, &mut x).map_err(|e| failed(&e))?;
            b.read_dft(m, c, region, &mut y).map_err(|e| failed(&e))?;
            let bits = |v: &A::Value| bytemuck::bytes_of(v).to_vec();
            if let Some(n) = (0..len).find(|&n| bits(&x[n]) != bits(&y[n])) {
                return Err(format!(
                    "{what}: monitor {m}'s {c:?} sums differ at value {n}: {:?} vs {:?}",
                    x[n], y[n]
                ));
            }
        }
    }
    Ok(())
}

/// Steps a one-chunk run of `setup` for `steps` steps, each phase submitted over `regions`
/// (which tile the grid) in order.
pub fn stepped<'s, T: Scalar, B: YeeBackend<T>>(
    backend: &B,
    setup: &Setup<'s>,
    steps: u64,
    regions: &[Box3],
) -> Result<B::Chunk<'s>, String>
where
    <B::Chunk<'s> as Chunk>::Error: core::fmt::Debug,
{
    let whole = Box3::from_extent(setup.grid);
    let mut chunk = backend
        .build(setup, whole, Costs::default())
        .map_err(|e| format!("build: {e:?}"))?;
    for step in 0..steps {
        for phase in 0..chunk.phases() {
            for &r in regions {
                chunk
                    .submit(step, phase, r)
                    .map_err(|e| format!("submit: {e:?}"))?;
            }
            chunk.wait().map_err(|e| format!("wait: {e:?}"))?;
        }
    }
    Ok(chunk)
}

/// Bit equality with the scalar oracle: `steps` steps of `setup` on one chunk of `backend`
/// give the fields of the scalar backend bit for bit.
pub fn matches_the_oracle<T: Scalar, B: YeeBackend<T>>(
    backend: &B,
    setup: &Setup,
    steps: u64,
) -> Result<(), String>
where
    for<'s> <B::Chunk<'s> as Chunk>::Error: core::fmt::Debug,
{
    let whole = [Box3::from_extent(setup.grid)];
    let oracle = stepped::<T, _>(&ScalarCurl, setup, steps, &whole)?;
    let tested = stepped::<T, _>(backend, setup, steps, &whole)?;
    same_fields(
        setup,
        oracle,
        tested,
        &format!("{} vs the scalar oracle", backend.name()),
    )
}

/// Temporal blocking: `steps` steps of `setup` on one chunk of `backend`, submitted `block`
/// steps at a time ([`Chunk::submit_steps`]: wavefront tiles where the backend takes them,
/// cut at each block's end), give the scalar oracle's fields and DFT sums bit for bit. Returns
/// the most steps the chunk advances in one tile ([`Chunk::steps_per_submit`]; 1 where it
/// steps one step at a time). A setup with a periodic axis is not for this: its chunk's
/// ghosts are its own faces, refreshed every step.
pub fn tiles_match_the_oracle<T: Scalar, B: YeeBackend<T>>(
    backend: &B,
    setup: &Setup,
    steps: u64,
    block: u64,
) -> Result<u64, String>
where
    for<'s> <B::Chunk<'s> as Chunk>::Error: core::fmt::Debug,
{
    let whole = Box3::from_extent(setup.grid);
    let oracle = stepped::<T, _>(&ScalarCurl, setup, steps, &[whole])?;
    let mut chunk = backend
        .build(setup, whole, Costs::default())
        .map_err(|e| format!("build: {e:?}"))?;
    let tile = chunk.steps_per_submit();
    for first in (0..steps).step_by(block.max(1) as usize) {
        let count = block.min(steps - first);
        (chunk.submit_steps(first, count, whole))
            .and_then(|()| chunk.wait())
            .map_err(|e| format!("steps {first}..{}: {e:?}", first + count))?;
    }
    let what = format!(
        "{}, blocks of {block} steps, tiles of {tile}",
        backend.name()
    );
    same_fields(setup, oracle, chunk, &what)?;
    Ok(tile)
}

/// Shell and interior: submitting each phase over the border shell and the interior (the
/// driver's kernel split, interior first to also test the order) gives the bits of one
/// submission over the whole chunk.
pub fn split_is_invariant<T: Scalar, B: YeeBackend<T>>(
    backend: &B,
    setup: &Setup,
    steps: u64,
) -> Result<(), String>
where
    for<'s> <B::Chunk<'s> as Chunk>::Error: core::fmt::Debug,
{
    let whole = Box3::from_extent(setup.grid);
    let ghost = setup.mode.active_axes().map(usize::from);
    let (shell, interior) = shell_and_interior(whole, ghost, [[true; 2]; 3]);
    let mut split: Vec<Box3> = vec![interior];
    split.extend(shell.iter().rev().copied());
    split.retain(|b| !b.is_empty());
    let one = stepped::<T, _>(backend, setup, steps, &[whole])?;
    let parts = stepped::<T, _>(backend, setup, steps, &split)?;
    same_fields(
        setup,
        one,
        parts,
        &format!("{}: split update", backend.name()),
    )
}

/// Halo lengths are symmetric: in a uniform layout of `setup` over `topology`, what each
/// chunk sends toward a neighbour is what that neighbour expects from the opposite side, in
/// every phase and share direction.
pub fn halos_are_symmetric<T: Scalar, B: YeeBackend<T>>(
    backend: &B,
    setup: &Setup,
    topology: Topology,
) -> Result<(), String>
where
    for<'s> <B::Chunk<'s> as Chunk>::Error: core::fmt::Debug,
{
    let plan = yee_scalar::decomposed::uniform_plan(setup, topology);
    let layout = plan.layout(&plan.borders);
    let chunks = (0..topology.ranks())
        .map(|r| backend.build(setup, layout.chunk_box(r), Costs::default()))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| format!("build: {e:?}"))?;
    let directions = share_directions(setup.mode.active_axes());
    for (rank, chunk) in chunks.iter().enumerate() {
        for &d in directions.iter() {
            let Some(peer) = layout.neighbour(rank, d) else {
                continue;
            };
            for phase in 0..chunk.phases() {
                let sent = chunk.halo_len(phase, d);
                let expected = chunks[peer].ghost_len(phase, d.opposite());
                if sent != expected {
                    return Err(format!(
                        "{}: rank {rank} sends {sent} values toward {d:?} in phase {phase}, \
                         rank {peer} expects {expected}",
                        backend.name()
                    ));
                }
            }
        }
    }
    Ok(())
}

/// Resizing keeps what the oracle keeps: a two-plane box walked across x one plane at a time
/// (as a thin rank's box moves when borders shift by one: one plane stays, one is new), each
/// chunk resized to it and stepped twice there, gives the scalar chunk's fields bit for bit
/// after every move. Along the way the set of components that have dispersive, tensor or
/// CPML nodes changes (the material's and the layers' faces), so the state of the plane that
/// stays must go to its own component's nodes.
pub fn resizes_like_the_oracle<T: Scalar, B: YeeBackend<T>>(
    backend: &B,
    setup: &Setup,
    steps: u64,
) -> Result<(), String>
where
    for<'s> <B::Chunk<'s> as Chunk>::Error: core::fmt::Debug,
{
    let whole = Box3::from_extent(setup.grid);
    let name = backend.name();
    let mut chunk = stepped::<T, _>(backend, setup, steps, &[whole])?;
    let mut oracle = stepped::<T, _>(&ScalarCurl, setup, steps, &[whole])?;
    let mut step = steps;
    for x in 0..setup.grid[0] as i64 - 1 {
        let plane = whole
            .with_bound(Axis::X, Side::Low, x)
            .with_bound(Axis::X, Side::High, x + 2);
        chunk
            .resize(plane)
            .map_err(|e| format!("{name}: resize to x = {x}: {e:?}"))?;
        oracle
            .resize(plane)
            .map_err(|e| format!("scalar: resize to x = {x}: {e:?}"))?;
        for _ in 0..2 {
            for phase in 0..chunk.phases() {
                chunk
                    .submit(step, phase, plane)
                    .and_then(|()| chunk.wait())
                    .map_err(|e| format!("{name}: submit: {e:?}"))?;
                oracle
                    .submit(step, phase, plane)
                    .map_err(|e| format!("scalar: submit: {e:?}"))?;
            }
            step += 1;
        }
        if let Some(d) = first_difference(&fields_of(&mut oracle)?, &fields_of(&mut chunk)?) {
            return Err(format!("{name}: after the move to x = {x}: {d}"));
        }
    }
    Ok(())
}

/// Slabs round-trip and chunks resize in place, as migration uses them: a chunk of the left
/// half of the grid receives the left half of a stepped chunk's cells, grows in place to the
/// whole grid and receives the right half; it then holds every field and auxiliary variable
/// (CPML ψ, the polarisations of dispersive nodes) of the stepped chunk, so both step on identically.
pub fn slabs_round_trip<T: Scalar, B: YeeBackend<T>>(
    backend: &B,
    setup: &Setup,
    steps: u64,
) -> Result<(), String>
where
    for<'s> <B::Chunk<'s> as Chunk>::Error: core::fmt::Debug,
{
    let whole = Box3::from_extent(setup.grid);
    let name = backend.name();
    let mut source = stepped::<T, _>(backend, setup, steps, &[whole])?;
    let half = (setup.grid[0] / 2) as i64;
    let left = whole.with_bound(Axis::X, Side::High, half);
    let right = whole.with_bound(Axis::X, Side::Low, half);
    let mut copy = backend
        .build(setup, left, Costs::default())
        .map_err(|e| format!("build: {e:?}"))?;
    for (k, region) in [left, right].into_iter().enumerate() {
        let bytes = source.slab_len(region) * core::mem::size_of::<T>();
        let mut buffer = source.buffer(bytes).map_err(|e| format!("buffer: {e:?}"))?;
        source
            .pack_slabs(&[region], &mut buffer)
            .and_then(|()| source.wait())
            .map_err(|e| format!("{name}: pack_slabs: {e:?}"))?;
        if k == 1 {
            copy.resize(whole)
                .map_err(|e| format!("{name}: resize: {e:?}"))?;
        }
        copy.unpack_slabs(&[region], &buffer)
            .and_then(|()| copy.wait())
            .map_err(|e| format!("{name}: unpack_slabs: {e:?}"))?;
    }
    for step in steps..steps + 5 {
        for chunk in [&mut source, &mut copy] {
            for phase in 0..chunk.phases() {
                chunk
                    .submit(step, phase, whole)
                    .and_then(|()| chunk.wait())
                    .map_err(|e| format!("submit: {e:?}"))?;
            }
        }
    }
    same_fields(setup, source, copy, &format!("{name}: migrated state"))
}
