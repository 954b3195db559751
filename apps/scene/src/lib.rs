//! # yee-scene
//!
//! yee's scene files: TOML in, a validated [`Scene`] out ([`load`], [`parse`]). A scene
//! resolves to a `yee_em::Setup` ([`Scene::setup`]) plus what a run writes (slices,
//! snapshots, probes) and how it is laid out (cell costs, the mask of active cells and its
//! tile size). Every error is a [`SceneError`] naming the file and the key, and the line and
//! column where the TOML itself is at fault. The format is described in `docs/scene.md`.
//!
//! [`shapes`] holds the four irregular test areas on which partitions are compared.
#![warn(missing_docs)]

pub mod bands;
pub mod closed_box;
mod error;
mod geometry_output;
mod geometry_values;
pub mod input;
pub mod library;
pub mod mask;
pub mod mode_parity;
pub mod plot_frequencies;
mod resolve;
pub mod scan;
pub mod shapes;
pub mod spec;
pub mod trace;
pub mod warnings;

use std::path::Path;

pub use error::SceneError;
pub use geometry_output::GeometryOutput;
pub use resolve::{
    DftOutput, Flux, ModeMonitor, ModeSource, Resonances, Scene, Slice, Snapshots, Units,
};

/// The most bytes a scene file may hold: scenes are text, and this bounds what is read from a
/// path that never ends (`/dev/zero`).
pub const MAX_SCENE_BYTES: u64 = 64 << 20;

/// Reads, parses and resolves the scene at `path` (at most [`MAX_SCENE_BYTES`]; a pipe, as
/// `<(…)` gives, is read too).
pub fn load(path: &Path) -> Result<Scene, SceneError> {
    use std::io::Read;
    let read = |path: &Path| {
        let mut text = String::new();
        std::fs::File::open(path)?
            .take(MAX_SCENE_BYTES + 1)
            .read_to_string(&mut text)?;
        match text.len() as u64 > MAX_SCENE_BYTES {
            true => Err(std::io::Error::other(format!(
                "it holds more than {MAX_SCENE_BYTES} bytes, which no scene needs"
            ))),
            false => Ok(text),
        }
    };
    let text = read(path).map_err(|error| SceneError::Read {
        file: path.to_path_buf(),
        error,
    })?;
    parse(path, &text)
}

/// Parses and resolves scene text; `path` names it in errors and gives the default name.
pub fn parse(path: &Path, text: &str) -> Result<Scene, SceneError> {
    let deserializer = toml::Deserializer::new(text);
    let spec: spec::SceneSpec = serde_path_to_error::deserialize(deserializer).map_err(|e| {
        let key = e.path().to_string();
        let inner = e.into_inner();
        let (line, column) = inner
            .span()
            .map_or((1, 1), |span| line_column(text, span.start));
        SceneError::Parse {
            file: path.to_path_buf(),
            line,
            column,
            key,
            message: inner.message().trim().replace('\n', "; "),
        }
    })?;
    let mut spec = spec;
    let scan = spec.scan.take();
    let declared_probes = spec.probes.len();
    let mut scene = resolve::resolve(path, spec)?;
    if let Some(scan) = scan {
        scene.scan = Some(trace::resolve_scan(&scene, &scan, declared_probes)?);
    }
    // The images of the mask are part of the scene: they enter its hash.
    let mut bytes = text.as_bytes().to_vec();
    let limit = mask::image_bytes_limit(scene.grid[0], scene.grid[1]);
    for file in &scene.mask_files {
        let image =
            input::read_bounded(file, limit, mask::IMAGE_BOUND).map_err(|e| SceneError::Read {
                file: file.clone(),
                error: std::io::Error::other(e),
            })?;
        bytes.extend(image);
    }
    scene.sha256 = sha256_hex(&bytes);
    Ok(scene)
}

/// The SHA-256 of `bytes`.
pub fn sha256(bytes: &[u8]) -> [u8; 32] {
    use sha2::Digest;
    sha2::Sha256::digest(bytes).into()
}

/// `bytes` in lowercase hex.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The SHA-256 of `bytes` in lowercase hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&sha256(bytes))
}

/// 1-based line and column of byte `offset` in `text`.
fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}
