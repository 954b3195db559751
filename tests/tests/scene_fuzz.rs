//! The scene loader never panics: every example scene, mutated at random — bytes replaced,
//! inserted or deleted, numbers swapped for extreme values, lines dropped or repeated — loads
//! to a valid scene or fails with an error naming the file (issue 23's fuzzing, as a property
//! test; the cargo-fuzz target `scene` feeds the loader any bytes for longer, see
//! docs/testing.md). The keys that name files (`[mask] image`, a flux's `minus`) pointed at
//! devices, FIFOs, folders and random, cut-short or absurd files fail within seconds, without a
//! panic, naming the key and the file (issue 49, case 5).

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
        if let Err(failure) = loads_or_fails_cleanly(path, &mutated) {
            panic!("{failure}");
        }
    }
}

/// Parses `mutated` as the scene file `path`: `Ok` where it loads to a valid scene or fails
/// with an error naming the file, the failure otherwise (a panic, an error without the file,
/// a scene that does not validate).
fn loads_or_fails_cleanly(path: &Path, mutated: &str) -> Result<(), String> {
    match std::panic::catch_unwind(|| yee_scene::parse(path, mutated)) {
        Err(_) => Err(format!("the loader panicked on:\n{mutated}")),
        Ok(Err(e)) if !e.to_string().starts_with(&path.display().to_string()) => {
            Err(format!("the error names the file: {e}"))
        }
        Ok(Err(_)) => Ok(()),
        Ok(Ok(scene)) => match scene.setup().validate() {
            Ok(_) => Ok(()),
            Err(e) => Err(format!(
                "a loaded scene does not validate ({e:?}):\n{mutated}"
            )),
        },
    }
}

/// Every number of every example scene, replaced in turn by each extreme value: the same edits
/// the property test draws at random, all of them, so that a rare one (a band path's
/// `points = 4294967297`, billions of k-points listed before any check, once filled the CI
/// machine's memory) fails here every time instead of one CI run in twenty.
#[test]
fn every_number_at_every_extreme_loads_or_fails_cleanly() {
    for (path, text) in examples() {
        for n in 0..number_spans(&text).len() {
            for v in 0..EXTREMES.len() {
                let mutated =
                    String::from_utf8_lossy(&apply(&text, &Edit::Number(n, v))).into_owned();
                if let Err(failure) = loads_or_fails_cleanly(&path, &mutated) {
                    panic!("{failure}");
                }
            }
        }
    }
}

/// What a file-valued key is pointed at.
#[derive(Clone, Debug)]
enum Hostile {
    /// `/dev/zero`: it never ends.
    DevZero,
    /// A FIFO no one writes into: opening it blocks.
    Fifo,
    /// A folder.
    Folder,
    /// Nothing.
    Missing,
    /// These bytes.
    Bytes(Vec<u8>),
    /// A `.npy` of complex128 with this shape text and this many bytes of values.
    Npy(String, usize),
    /// A PNG signature followed by these bytes.
    Png(Vec<u8>),
}

fn hostile() -> impl Strategy<Value = Hostile> {
    let shape = prop::sample::select(vec![
        "(2, 4, 6)".to_string(),
        "(2, 4)".to_string(),
        "()".to_string(),
        format!("({}, {}, 6)", usize::MAX, usize::MAX),
        format!("({}, 4, 6)", 1u64 << 60),
        "(2, -4, 6)".to_string(),
        format!("({})", "1, ".repeat(70)),
    ]);
    prop_oneof![
        Just(Hostile::DevZero),
        Just(Hostile::Fifo),
        Just(Hostile::Folder),
        Just(Hostile::Missing),
        prop::collection::vec(any::<u8>(), 0..512).prop_map(Hostile::Bytes),
        (shape, 0..1600usize).prop_map(|(s, n)| Hostile::Npy(s, n)),
        prop::collection::vec(any::<u8>(), 0..256).prop_map(Hostile::Png),
    ]
}

/// `hostile` made at `path` (a folder of its own for each case).
fn make(hostile: &Hostile, dir: &Path) -> PathBuf {
    let path = dir.join("input");
    match hostile {
        Hostile::DevZero => return PathBuf::from("/dev/zero"),
        Hostile::Fifo => {
            let made = std::process::Command::new("mkfifo").arg(&path).status();
            assert!(made.unwrap().success());
        }
        Hostile::Folder => std::fs::create_dir_all(&path).unwrap(),
        Hostile::Missing => {}
        Hostile::Bytes(b) => std::fs::write(&path, b).unwrap(),
        Hostile::Npy(shape, values) => {
            let text = format!("{{'descr': '<c16', 'fortran_order': False, 'shape': {shape}, }}\n");
            let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
            bytes.extend((text.len() as u16).to_le_bytes());
            bytes.extend(text.as_bytes());
            bytes.resize(bytes.len() + values, 0);
            std::fs::write(&path, bytes).unwrap();
        }
        Hostile::Png(tail) => {
            let mut bytes = b"\x89PNG\r\n\x1a\n".to_vec();
            bytes.extend(tail);
            std::fs::write(&path, bytes).unwrap();
        }
    }
    path
}

/// Loads the scene `text` at `file` and checks its `minus` files as a run does, on a thread
/// of its own: the error, or `None` when all is well; a panic or a minute without an answer
/// fails the test.
fn load_and_check(file: &Path, text: String) -> Option<String> {
    let (tell, answer) = std::sync::mpsc::channel();
    let file = file.to_path_buf();
    std::thread::spawn(move || {
        let outcome = std::panic::catch_unwind(|| match yee_scene::parse(&file, &text) {
            Err(e) => Some(e.to_string()),
            Ok(scene) => yee_simulation::flux_output::check_minus_files(&scene)
                .err()
                .map(|e| e.to_string()),
        });
        let _ = tell.send(outcome);
    });
    match answer.recv_timeout(std::time::Duration::from_secs(60)) {
        Ok(Ok(outcome)) => outcome,
        Ok(Err(_)) => panic!("the loader panicked"),
        Err(_) => panic!("the loader hung"),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn file_valued_keys_pointed_at_hostile_files_fail_cleanly(
        input in hostile(),
        mask in any::<bool>(),
    ) {
        static CASE: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = CASE.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
            .join("scene_fuzz_files")
            .join(n.to_string());
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let path = make(&input, &dir);
        let quoted = format!("{:?}", path.display().to_string());
        let (text, key) = match mask {
            true => (
                format!(
                    "[grid]\nmode = \"tmz\"\nsize = [16, 12]\n[[sources]]\ncomponent = \"ez\"\n\
                     position = [8, 6]\nwaveform = \"ricker\"\nfrequency = 0.05\n[mask]\n\
                     image = {quoted}\n[run]\nsteps = 10\n"
                ),
                "mask.image",
            ),
            false => (
                format!(
                    "[grid]\nmode = \"1d\"\nsize = [200]\n[[sources]]\ncomponent = \"ez\"\n\
                     position = [50]\nwaveform = \"ricker\"\nfrequency = 0.05\n[[flux]]\n\
                     name = \"t\"\naxis = \"x\"\nposition = 150\nfmin = 0.02\nfmax = 0.08\n\
                     count = 4\nminus = {quoted}\n[run]\nsteps = 10\n"
                ),
                "flux[0].minus",
            ),
        };
        let file = dir.join("scene.toml");
        let outcome = load_and_check(&file, text);
        // Only a whole spectrum of this region's shape (2 nodes, 4 frequencies) is accepted.
        let whole = matches!(&input, Hostile::Npy(s, 768) if s == "(2, 4, 6)") && !mask;
        match outcome {
            None => prop_assert!(whole, "{input:?} accepted as {key}"),
            Some(e) => {
                prop_assert!(!whole, "{e}");
                let named = format!("{}: {key}: {}", file.display(), path.display());
                prop_assert!(e.starts_with(&named), "{input:?}: {e}");
            }
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
