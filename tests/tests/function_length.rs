//! No function of the `yee` command is longer than 150 lines (issue 48): `yee run` is argument
//! parsing over `yee_simulation::Simulation`, and each subcommand a function of its own.
//!
//! The sources are rustfmt's (`cargo fmt --check` in CI), so a function begins at a line
//! `fn …` and ends at the first `}` at its indent.

use std::path::Path;

/// Functions of `text` longer than `limit` lines: `(first line, name, lines)`.
fn long_functions(text: &str, limit: usize) -> Vec<(usize, String, usize)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut long = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        let body = line.trim_start();
        let indent = &line[..line.len() - body.len()];
        let signature = [
            "pub fn ",
            "pub(crate) fn ",
            "fn ",
            "pub const fn ",
            "const fn ",
        ]
        .iter()
        .find_map(|p| body.strip_prefix(p));
        let Some(rest) = signature else {
            i += 1;
            continue;
        };
        let name: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        let close = format!("{indent}}}");
        let end =
            (i..lines.len()).find(|&j| lines[j] == close || lines[j].ends_with(';') && j == i);
        let Some(end) = end else { break };
        let length = end - i + 1;
        if length > limit {
            long.push((i + 1, name, length));
        }
        i = end + 1;
    }
    long
}

#[test]
fn no_function_of_the_command_is_longer_than_150_lines() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../apps/yee/src");
    let mut long = Vec::new();
    for entry in std::fs::read_dir(&src).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "rs") {
            let text = std::fs::read_to_string(&path).unwrap();
            for (line, name, length) in long_functions(&text, 150) {
                long.push(format!("{}:{line} {name}: {length} lines", path.display()));
            }
        }
    }
    assert!(long.is_empty(), "functions over 150 lines: {long:#?}");
}

#[test]
fn a_long_function_is_found() {
    let long: String = std::iter::once("pub fn long() {\n".to_string())
        .chain((0..200).map(|i| format!("    let _x{i} = {i};\n")))
        .chain(["}\n\nfn short() {\n}\n".to_string()])
        .collect();
    assert_eq!(
        long_functions(&long, 150),
        vec![(1, "long".to_string(), 202)]
    );
    assert!(long_functions(&long, 250).is_empty());
}
