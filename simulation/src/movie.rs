//! `yee run --movie`: each series of slice PNGs made into an H.264 `.mp4` by ffmpeg once the
//! run ends. Frames are comparable when the slice has fixed colour `limits`
//! (docs/scene.md, `[[output.slices]]`); without them each frame is scaled to itself.

use std::path::Path;
use std::process::Command;

use crate::error::{AppError, io_error};

/// Frames per second of the movies.
pub const FRAME_RATE: u32 = 10;

/// Fails unless `ffmpeg` can be started: checked before a `--movie` run starts.
pub fn check_ffmpeg() -> Result<(), AppError> {
    match Command::new("ffmpeg").arg("-version").output() {
        Ok(o) if o.status.success() => Ok(()),
        _ => Err(AppError::Usage(
            "--movie needs ffmpeg on the PATH (Debian/Ubuntu: apt-get install ffmpeg); \
             or run without --movie and use the ffmpeg line in docs/scene.md"
                .into(),
        )),
    }
}

/// The slice series among `outputs`: `slice_<rest>_<step>.png` grouped by `<rest>`, each with
/// its frames in step order.
pub fn slice_series(outputs: &[String]) -> Vec<(String, Vec<String>)> {
    let mut series: Vec<(String, Vec<String>)> = Vec::new();
    for file in outputs {
        let Some(stem) = file
            .strip_prefix("slice_")
            .and_then(|f| f.strip_suffix(".png"))
        else {
            continue;
        };
        let Some((name, step)) = stem.rsplit_once('_') else {
            continue;
        };
        if step.is_empty() || !step.bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        match series.iter_mut().find(|(n, _)| n == name) {
            Some((_, frames)) => frames.push(file.clone()),
            None => series.push((name.to_string(), vec![file.clone()])),
        }
    }
    for (_, frames) in &mut series {
        frames.sort();
        frames.dedup();
    }
    series
}

/// Makes `slice_<name>.mp4` in `out` from each series of `outputs`; returns the files made.
pub fn write_movies(out: &Path, outputs: &[String]) -> Result<Vec<String>, AppError> {
    let mut made = Vec::new();
    for (name, frames) in slice_series(outputs) {
        let list = out.join(format!("slice_{name}.frames.txt"));
        let duration = 1.0 / f64::from(FRAME_RATE);
        let text: String = (frames.iter())
            .map(|f| format!("file '{f}'\nduration {duration}\n"))
            .collect();
        std::fs::write(&list, text).map_err(|e| io_error(&list, e))?;
        let file = format!("slice_{name}.mp4");
        let path = out.join(&file);
        let result = Command::new("ffmpeg")
            .args([
                "-y",
                "-loglevel",
                "error",
                "-f",
                "concat",
                "-safe",
                "0",
                "-i",
            ])
            .arg(&list)
            // H.264 wants even sizes; the frames keep theirs, padded by a pixel if odd.
            .args(["-vf", "pad=ceil(iw/2)*2:ceil(ih/2)*2,fps=10"])
            .args(["-c:v", "libx264", "-pix_fmt", "yuv420p"])
            .arg(&path)
            .output();
        let _ = std::fs::remove_file(&list);
        match result {
            Ok(o) if o.status.success() => made.push(file),
            Ok(o) => {
                return Err(io_error(
                    &path,
                    format!(
                        "ffmpeg failed: {}",
                        String::from_utf8_lossy(&o.stderr).trim()
                    ),
                ));
            }
            Err(e) => return Err(io_error(&path, format!("cannot start ffmpeg: {e}"))),
        }
    }
    Ok(made)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slices_are_grouped_by_series_in_step_order() {
        let outputs: Vec<String> = [
            "slice_ez_000200.png",
            "slice_ez_000100.png",
            "slice_hx_z12_000100.png",
            "probe_a.csv",
            "slice_ez.mp4",
            "balance_shares.png",
        ]
        .map(String::from)
        .to_vec();
        let series = slice_series(&outputs);
        assert_eq!(
            series,
            [
                (
                    "ez".to_string(),
                    vec![
                        "slice_ez_000100.png".to_string(),
                        "slice_ez_000200.png".to_string()
                    ]
                ),
                (
                    "hx_z12".to_string(),
                    vec!["slice_hx_z12_000100.png".to_string()]
                ),
            ]
        );
    }
}
