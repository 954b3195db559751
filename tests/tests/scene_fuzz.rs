//! The scene loader never panics: every example scene, mutated at random — bytes replaced,
//! inserted or deleted, numbers swapped for extreme values, lines dropped or repeated — loads
//! to a valid scene or fails with an error naming the file (issue 23's fuzzing, as a property
//! test; the cargo-fuzz target `scene` feeds the loader any bytes for longer, see
//! docs/testing.md).

use std::path::{Path, PathBuf};

use proptest::prelude::*;

fn examples() -> Vec<(PathBuf, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/scenes");
    let mut scenes: Vec<(PathBuf, String)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .map(|p| {
            let text = std::fs::read_to_string(&p).unwrap();
            (p, text)
        })
        .collect();
    scenes.sort();
    scenes
}

/// Numbers a scene can hold that break naive code: zero, negatives, huge, tiny, non-finite.
const EXTREMES: [&str; 12] = [
    "0",
    "-1",
    "1e308",
    "-1e308",
    "1e-320",
    "nan",
    "inf",
    "-inf",
    "4294967297",
    "0.5",
    "1e9",
    "3",
];

#[derive(Clone, Debug)]
enum Edit {
    /// Replace the byte at (fraction of the length) with this one.
    Replace(f64, u8),
    /// Insert this text at (fraction).
    Insert(f64, String),
    /// Delete this many bytes at (fraction).
    Delete(f64, usize),
    /// Replace the n-th number (modulo their count) with an extreme value.
    Number(usize, usize),
    /// Drop the n-th line (modulo their count).
    DropLine(usize),
    /// Repeat the n-th line.
    RepeatLine(usize),
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (0.0..1.0f64, any::<u8>()).prop_map(|(at, b)| Edit::Replace(at, b)),
        (
            0.0..1.0f64,
            prop::sample::select(vec![
                "[",
                "]",
                "=",
                "\"",
                "\n",
                "[[sources]]\n",
                "{",
                ",",
                "-"
            ])
        )
            .prop_map(|(at, t)| Edit::Insert(at, t.to_string())),
        (0.0..1.0f64, 1..8usize).prop_map(|(at, n)| Edit::Delete(at, n)),
        (any::<usize>(), 0..EXTREMES.len()).prop_map(|(n, v)| Edit::Number(n, v)),
        any::<usize>().prop_map(Edit::DropLine),
        any::<usize>().prop_map(Edit::RepeatLine),
    ]
}

fn apply(text: &str, edit: &Edit) -> Vec<u8> {
    let mut bytes = text.as_bytes().to_vec();
    let at = |f: f64, len: usize| ((f * len as f64) as usize).min(len);
    match edit {
        Edit::Replace(f, b) => {
            if !bytes.is_empty() {
                let i = at(*f, bytes.len() - 1);
                bytes[i] = *b;
            }
        }
        Edit::Insert(f, t) => {
            let i = at(*f, bytes.len());
            bytes.splice(i..i, t.bytes());
        }
        Edit::Delete(f, n) => {
            let i = at(*f, bytes.len());
            let j = (i + n).min(bytes.len());
            bytes.drain(i..j);
        }
        Edit::Number(n, v) => {
            let numbers: Vec<(usize, usize)> = number_spans(text);
            if !numbers.is_empty() {
                let (i, j) = numbers[n % numbers.len()];
                bytes.splice(i..j, EXTREMES[*v].bytes());
            }
        }
        Edit::DropLine(n) | Edit::RepeatLine(n) => {
            let mut lines: Vec<&str> = text.lines().collect();
            if !lines.is_empty() {
                let k = n % lines.len();
                if matches!(edit, Edit::DropLine(_)) {
                    lines.remove(k);
                } else {
                    lines.insert(k, lines[k]);
                }
            }
            bytes = lines.join("\n").into_bytes();
        }
    }
    bytes
}

/// Byte spans of the numbers in `text` (outside comments).
fn number_spans(text: &str) -> Vec<(usize, usize)> {
    let b = text.as_bytes();
    let mut spans = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let starts = b[i].is_ascii_digit() && (i == 0 || !b[i - 1].is_ascii_alphanumeric());
        if starts {
            let j = (i..b.len())
                .find(|&j| !(b[j].is_ascii_digit() || b".eE+-".contains(&b[j])))
                .unwrap_or(b.len());
            spans.push((i, j));
            i = j;
        } else {
            i += 1;
        }
    }
    spans
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn mutated_scenes_load_or_fail_cleanly(
        which in any::<usize>(),
        edits in prop::collection::vec(edit(), 1..4),
    ) {
        let scenes = examples();
        let (path, text) = &scenes[which % scenes.len()];
        let mut mutated = text.clone();
        for e in &edits {
            mutated = String::from_utf8_lossy(&apply(&mutated, e)).into_owned();
        }
        let outcome = std::panic::catch_unwind(|| yee_scene::parse(path, &mutated));
        match outcome {
            Err(_) => panic!("the loader panicked on:\n{mutated}"),
            Ok(Err(e)) => prop_assert!(
                e.to_string().starts_with(&path.display().to_string()),
                "the error names the file: {e}"
            ),
            Ok(Ok(scene)) => prop_assert!(scene.setup().validate().is_ok()),
        }
    }
}
