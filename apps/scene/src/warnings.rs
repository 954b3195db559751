//! What a valid scene may still get wrong without meaning to: sources, probes, flux planes and
//! DFT boxes inside an absorbing layer, and pulses with a large DC part. `yee check` and
//! `yee run` print these, each naming the key. (A TF/SF box whose surface reaches a layer is
//! already an error when the scene loads.)

use yee_core::{Axis, Box3, Side};
use yee_em::{Boundary, Waveform};

use crate::Scene;

/// The CPML slabs of `scene`: (face name, the cells of the layer).
pub(crate) fn cpml_slabs(scene: &Scene) -> Vec<(String, Box3)> {
    let whole = Box3::from_extent(scene.grid);
    let mut slabs = Vec::new();
    for axis in Axis::ALL.into_iter().take(scene.mode.dims()) {
        let a = axis.index();
        for side in Side::BOTH {
            let Boundary::Cpml(p) = scene.boundaries[a][side.index()] else {
                continue;
            };
            let mut slab = whole;
            let n = scene.grid[a] as i64;
            let t = p.thickness as i64;
            // Cell i holds the nodes at i (and i + ½): the node plane at the layer's inner
            // face, where its σ is 0, counts as outside (cell t on the low side, n − t on the
            // high side).
            match side {
                Side::Low => slab.hi[a] = t.min(n),
                Side::High => slab.lo[a] = (n - t + 1).max(0),
            }
            slabs.push((format!("{}_{}", axis.name(), side.name()), slab));
        }
    }
    slabs
}

/// "the x_low CPML (cells 0 to 9 along x)": a layer of [`cpml_slabs`] as a user reads it.
pub(crate) fn layer_name(face: &str, slab: &Box3) -> String {
    // The face is named "<axis>_<side>"; across the other axes the slab is the whole grid.
    let axis = Axis::ALL
        .into_iter()
        .find(|a| face.starts_with(a.name()))
        .expect("a face named after its axis");
    let a = axis.index();
    format!(
        "the {face} CPML (cells {} to {} along {})",
        slab.lo[a],
        slab.hi[a] - 1,
        axis.name()
    )
}

/// The layer `region` meets, named by [`layer_name`].
fn meets(slabs: &[(String, Box3)], region: Box3) -> Option<String> {
    slabs.iter().find_map(|(face, slab)| {
        (!slab.intersect(&region).is_empty()).then(|| layer_name(face, slab))
    })
}

/// The warnings of `scene`, each naming the key it is about.
pub fn placement_warnings(scene: &Scene) -> Vec<String> {
    let slabs = cpml_slabs(scene);
    let mut out = Vec::new();
    let cell = |c: [i64; 3]| Box3::new(c, c.map(|x| x + 1));
    let mut warned = Vec::new();
    for (s, &origin) in scene.sources.iter().zip(&scene.source_origin) {
        if warned.contains(&origin) {
            continue;
        }
        if let Some(layer) = meets(&slabs, cell(s.cell)) {
            warned.push(origin);
            out.push(format!(
                "sources[{origin}] drives cell {:?} in {layer}: the layer absorbs what it radiates; move it inside",
                s.cell
            ));
        }
    }
    for (i, p) in scene.probes.iter().enumerate() {
        if let Some(layer) = meets(&slabs, cell(p.cell)) {
            out.push(format!(
                "probes[{i}] ({}) records cell {:?} in {layer}, where the field is being absorbed",
                scene.probe_names[i], p.cell
            ));
        }
    }
    for (i, f) in scene.fluxes.iter().enumerate() {
        let monitors = &scene.monitors[f.first_monitor..f.first_monitor + f.planes.len()];
        if let Some(layer) = monitors.iter().find_map(|m| meets(&slabs, m.region)) {
            out.push(format!(
                "flux[{i}] ({}) reaches into {layer}: the flux through it is not the flux of the scene",
                f.name
            ));
        }
    }
    for (i, d) in scene.dfts.iter().enumerate() {
        if let Some(layer) = meets(&slabs, scene.monitors[d.monitor].region) {
            out.push(format!("dft[{i}] ({}) reaches into {layer}", d.name));
        }
    }
    out
}

/// The largest DC part ([`Waveform::dc_fraction`]) a pulse may have without a warning.
pub const DC_FRACTION_LIMIT: f64 = 1e-3;

/// A warning for each source or plane wave whose pulse has a DC part above
/// [`DC_FRACTION_LIMIT`] of its spectrum at the carrier, naming the key that fixes it: a CPML
/// absorbs that part slowly (issue 51) and, behind a point source, it is a static charge.
/// None in a scene with `[bands]`: the static field a band-structure run's broadband pulse
/// leaves is a mode at f = 0, outside every band its harmonic inversion searches.
pub fn dc_warnings(scene: &Scene) -> Vec<String> {
    if scene.bands.is_some() {
        return Vec::new();
    }
    let mut pulses: Vec<(String, Waveform)> = Vec::new();
    for (s, &origin) in scene.sources.iter().zip(&scene.source_origin) {
        let key = format!("sources[{origin}]");
        if !pulses.iter().any(|(k, _)| *k == key) {
            pulses.push((key, s.waveform));
        }
    }
    for (i, w) in scene.plane_waves.iter().enumerate() {
        pulses.push((format!("plane_waves[{i}]"), w.waveform));
    }
    let bound = Waveform::width_for_dc_fraction(1.0, DC_FRACTION_LIMIT);
    pulses
        .into_iter()
        .filter_map(|(key, w)| {
            let dc = w.dc_fraction();
            let Waveform::Gaussian {
                width, frequency, ..
            } = w
            else {
                return None;
            };
            (dc > DC_FRACTION_LIMIT).then(|| {
                format!(
                    "{key} has a DC part of {dc:.1e} of its spectrum at the carrier (frequency × \
                     width = {:.3}): a CPML absorbs it slowly and a point source leaves it behind \
                     as a static charge; raise {key}.width to at least {bound:.3}/frequency, or \
                     use waveform = \"ricker\"",
                    frequency * width
                )
            })
        })
        .collect()
}

/// Every warning of `scene`: [`placement_warnings`] and [`dc_warnings`].
pub fn scene_warnings(scene: &Scene) -> Vec<String> {
    let mut out = placement_warnings(scene);
    out.extend(dc_warnings(scene));
    out
}
