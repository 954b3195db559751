//! No module of a library imports one that imports it back (docs/architecture.md, "Inside the
//! libraries"): the module graph of `yee-scene`, `yee-scalar`, `yee-simulation`, `yee-modes` and `yee` has no cycle.
//!
//! A module is a file of `src/` (a folder of modules counts as one, named after the folder);
//! it uses module `m` where its code names a path `crate::m…` (or `crate::{m…}`), or
//! `super::m…` from its top level. A name that `lib.rs` re-exports stands for the module it
//! comes from; `lib.rs` and `main.rs` are not modules of the graph. Comments (doc links
//! included) and string literals are not read.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The cycles of the module graph of the crate whose `src/` files are `files` (path from `src/`
/// with `/` separators, source text): each strongly connected component of more than one
/// module, its modules sorted, the components in order.
fn module_cycles(files: &[(String, String)]) -> Vec<Vec<String>> {
    let graph = module_graph(files);
    strongly_connected(&graph)
        .into_iter()
        .filter(|component| component.len() > 1)
        .collect()
}

/// Each module of `files` and the other modules it uses.
fn module_graph(files: &[(String, String)]) -> BTreeMap<String, BTreeSet<String>> {
    let modules: BTreeSet<String> = files
        .iter()
        .filter_map(|(path, _)| module_of(path))
        .collect();
    let exports: BTreeMap<String, String> = files
        .iter()
        .filter(|(path, _)| path == "lib.rs")
        .flat_map(|(_, text)| reexports(&tokens(text)))
        .collect();
    let mut graph: BTreeMap<String, BTreeSet<String>> = modules
        .iter()
        .map(|m| (m.clone(), BTreeSet::new()))
        .collect();
    for (path, text) in files {
        let Some(module) = module_of(path) else {
            continue;
        };
        let depth = path.split('/').count() - usize::from(path.ends_with("/mod.rs"));
        for name in crate_names(&tokens(text), depth) {
            let used = match exports.get(&name) {
                Some(from) if !modules.contains(&name) => from.clone(),
                _ => name,
            };
            if used != module && modules.contains(&used) {
                graph.get_mut(&module).expect("a module").insert(used);
            }
        }
    }
    graph
}

/// The module a file of `src/` belongs to: its first path segment without `.rs`; `None` for
/// `lib.rs`, `main.rs`, the binaries of `bin/` and files that are not Rust.
fn module_of(path: &str) -> Option<String> {
    if !path.ends_with(".rs") || path == "lib.rs" || path == "main.rs" || path.starts_with("bin/") {
        return None;
    }
    let first = path.split('/').next()?;
    Some(first.trim_end_matches(".rs").to_string())
}

/// The code of `text` as tokens: identifiers, `::`, and single punctuation characters;
/// comments, string and character literals and whitespace left out.
fn tokens(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            // Block comments nest.
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if c == '"' {
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                i += if chars[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
        } else if c == '\'' {
            // A character literal ('a', '\n', '\u{..}'), or else a lifetime.
            if next == Some('\\') {
                i += 3;
                while i < chars.len() && chars[i] != '\'' {
                    i += 1;
                }
                i += 1;
            } else if chars.get(i + 2) == Some(&'\'') {
                i += 3;
            } else {
                i += 1;
            }
        } else if ident(c) {
            let start = i;
            while i < chars.len() && ident(chars[i]) {
                i += 1;
            }
            let word: String = chars[start..i].iter().collect();
            // Raw strings (r"…", r#"…"#, br"…"): skip to the quote and its hashes.
            let hashes = chars[i..].iter().take_while(|&&h| h == '#').count();
            if (word == "r" || word == "br") && chars.get(i + hashes) == Some(&'"') {
                let close: Vec<char> = std::iter::once('"')
                    .chain(std::iter::repeat_n('#', hashes))
                    .collect();
                i += hashes + 1;
                while i < chars.len() && !chars[i..].starts_with(&close) {
                    i += 1;
                }
                i += close.len();
            } else if word == "b" && chars.get(i) == Some(&'"') {
                // A byte string: the next turn reads it as a string.
            } else {
                out.push(word);
            }
        } else if c == ':' && next == Some(':') {
            out.push("::".into());
            i += 2;
        } else {
            if !c.is_whitespace() {
                out.push(c.to_string());
            }
            i += 1;
        }
    }
    out
}

/// The first segment of every path from the crate root in `tokens`, the tokens of a file
/// `depth` modules below the root: `crate::m…`, `crate::{m…, n…}`, and `super::m…` with as
/// many `super`s as the file and the inline modules around the path are deep.
fn crate_names(tokens: &[String], depth: usize) -> Vec<String> {
    let mut names = Vec::new();
    // Brace depths at which the enclosing inline modules (`mod m { … }`) opened.
    let mut inline: Vec<usize> = Vec::new();
    let mut braces = 0;
    let mut i = 0;
    while i < tokens.len() {
        match tokens[i].as_str() {
            "{" => {
                braces += 1;
                if i >= 2 && tokens[i - 2] == "mod" {
                    inline.push(braces);
                }
            }
            "}" => {
                if inline.last() == Some(&braces) {
                    inline.pop();
                }
                braces = braces.saturating_sub(1);
            }
            "crate" if tokens.get(i + 1).is_some_and(|t| t == "::") => {
                names.extend(first_segments(&tokens[i + 2..]));
            }
            "super" if i == 0 || tokens[i - 1] != "::" => {
                let mut up = 0;
                while tokens.get(i + 2 * up) == Some(&"super".to_string())
                    && tokens.get(i + 2 * up + 1).is_some_and(|t| t == "::")
                {
                    up += 1;
                }
                if up == depth + inline.len() {
                    names.extend(first_segments(&tokens[i + 2 * up..]));
                }
            }
            _ => {}
        }
        i += 1;
    }
    names
}

/// The names that begin the path at the start of `tokens`: one identifier, or each of a
/// `{…}` group's items.
fn first_segments(tokens: &[String]) -> Vec<String> {
    let is_ident = |t: &str| t.chars().all(|c| c.is_alphanumeric() || c == '_');
    match tokens.first().map(String::as_str) {
        Some("{") => {
            let mut names = Vec::new();
            let mut level = 0;
            let mut starts_item = true;
            for t in tokens {
                match t.as_str() {
                    "{" => level += 1,
                    "}" => level -= 1,
                    "," if level == 1 => starts_item = true,
                    t if level == 1 && starts_item && is_ident(t) => {
                        names.push(t.to_string());
                        starts_item = false;
                    }
                    _ => starts_item = false,
                }
                if level == 0 {
                    break;
                }
            }
            names
        }
        Some(t) if is_ident(t) => vec![t.to_string()],
        _ => Vec::new(),
    }
}

/// The names `pub use m::…;` statements re-export, each with the module `m` it comes from.
fn reexports(tokens: &[String]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for (i, _) in tokens.iter().enumerate().filter(|(_, t)| *t == "use") {
        if i == 0 || tokens[i - 1] != "pub" {
            continue;
        }
        let mut rest = &tokens[i + 1..];
        if rest.first().is_some_and(|t| t == "crate" || t == "self") {
            rest = &rest[2..];
        }
        let Some(module) = rest.first() else {
            continue;
        };
        let end = rest.iter().position(|t| t == ";").unwrap_or(rest.len());
        // The leaves: each name followed by `,`, `}`, `;` or the end, or the alias after `as`.
        let statement = &rest[..end];
        for (k, name) in statement.iter().enumerate() {
            let before_end = statement.get(k + 1).is_none_or(|t| t == "," || t == "}");
            let is_name = name.chars().all(|c| c.is_alphanumeric() || c == '_');
            if k > 0 && before_end && is_name && name != "self" {
                out.push((name.clone(), module.clone()));
            }
        }
    }
    out
}

/// The strongly connected components of `graph` (Tarjan 1972), each sorted, in order.
fn strongly_connected(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct Search<'g> {
        graph: &'g BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'g str, usize>,
        low: BTreeMap<&'g str, usize>,
        stack: Vec<&'g str>,
        components: Vec<Vec<String>>,
    }
    impl<'g> Search<'g> {
        fn visit(&mut self, node: &'g str) {
            let n = self.index.len();
            self.index.insert(node, n);
            self.low.insert(node, n);
            self.stack.push(node);
            for next in &self.graph[node] {
                if !self.index.contains_key(next.as_str()) {
                    self.visit(next);
                    let low = self.low[node].min(self.low[next.as_str()]);
                    self.low.insert(node, low);
                } else if self.stack.contains(&next.as_str()) {
                    let low = self.low[node].min(self.index[next.as_str()]);
                    self.low.insert(node, low);
                }
            }
            if self.low[node] == self.index[node] {
                let at = self
                    .stack
                    .iter()
                    .rposition(|&m| m == node)
                    .expect("on the stack");
                let mut component: Vec<String> =
                    self.stack.drain(at..).map(str::to_string).collect();
                component.sort();
                self.components.push(component);
            }
        }
    }
    let mut search = Search {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        components: Vec::new(),
    };
    for node in graph.keys() {
        if !search.index.contains_key(node.as_str()) {
            search.visit(node);
        }
    }
    search.components.sort();
    search.components
}

/// Every `.rs` file under `dir`, as its path from `dir` and its text.
fn sources(dir: &Path) -> Vec<(String, String)> {
    let mut files = Vec::new();
    let mut folders = vec![dir.to_path_buf()];
    while let Some(folder) = folders.pop() {
        let entries = std::fs::read_dir(&folder).unwrap_or_else(|e| panic!("{folder:?}: {e}"));
        for entry in entries {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                folders.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let text = std::fs::read_to_string(&path).expect("a source file");
                let relative = path.strip_prefix(dir).expect("under dir");
                let name: Vec<_> = relative.iter().map(|p| p.to_string_lossy()).collect();
                files.push((name.join("/"), text));
            }
        }
    }
    files.sort();
    files
}

/// Panics naming each cycle of the crate at `crate_dir` (from the workspace root), with the
/// uses inside it.
fn assert_no_cycles(crate_dir: &str) {
    let src = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(crate_dir)
        .join("src");
    let files = sources(&src);
    let graph = module_graph(&files);
    let cycles = module_cycles(&files);
    let described: Vec<String> = cycles
        .iter()
        .map(|cycle| {
            let uses: Vec<String> = cycle
                .iter()
                .flat_map(|m| {
                    graph[m]
                        .iter()
                        .filter(|used| cycle.contains(used))
                        .map(move |used| format!("{m} → {used}"))
                })
                .collect();
            format!("{{{}}}: {}", cycle.join(", "), uses.join(", "))
        })
        .collect();
    assert!(
        cycles.is_empty(),
        "{crate_dir}: modules that import each other:\n  {}",
        described.join("\n  ")
    );
}

#[test]
fn scene_modules_have_no_cycle() {
    assert_no_cycles("apps/scene");
}

#[test]
fn scalar_modules_have_no_cycle() {
    assert_no_cycles("backends/scalar");
}

#[test]
fn yee_modules_have_no_cycle() {
    assert_no_cycles("apps/yee");
}

#[test]
fn simulation_modules_have_no_cycle() {
    assert_no_cycles("simulation");
}

#[test]
fn mode_solver_modules_have_no_cycle() {
    assert_no_cycles("modes");
}

/// `(path, text)` pairs from string slices.
fn files(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|&(path, text)| (path.to_string(), text.to_string()))
        .collect()
}

#[test]
fn a_cycle_is_found_and_named() {
    let crate_files = files(&[
        ("lib.rs", "mod a; mod b; mod c; mod d;"),
        ("a.rs", "use crate::b::B;"),
        ("b.rs", "fn f() { crate::c::g() }"),
        ("c.rs", "use super::{d, a::A};"),
        ("d.rs", "pub fn h() {}"),
    ]);
    assert_eq!(module_cycles(&crate_files), [["a", "b", "c"]]);
}

#[test]
fn an_acyclic_graph_passes() {
    let crate_files = files(&[
        ("lib.rs", "mod a; mod b; mod c;"),
        ("a.rs", "use crate::b::B;\nuse crate::c;"),
        ("b.rs", "use crate::c::C;"),
        ("c.rs", "pub struct C;"),
    ]);
    assert!(module_cycles(&crate_files).is_empty());
}

#[test]
fn comments_strings_and_inner_modules_are_not_uses() {
    let crate_files = files(&[
        ("lib.rs", "mod a; mod b;"),
        ("a.rs", "use crate::b::B;"),
        (
            "b.rs",
            "//! [`crate::a`]\n/* crate::a /* nested */ crate::a */\n\
             const S: &str = \"crate::a\"; const R: &str = r#\"crate::a\"#;\n\
             fn f<'a>(x: &'a str) -> char { 'c' }\n\
             mod tests { use super::*; }",
        ),
    ]);
    assert!(module_cycles(&crate_files).is_empty());
}

#[test]
fn a_name_lib_re_exports_stands_for_its_module() {
    let crate_files = files(&[
        ("lib.rs", "mod a; mod b;\npub use a::{A, Other as Renamed};"),
        ("a.rs", "use crate::b::B;"),
        ("b.rs", "fn f() -> crate::Renamed { todo!() }"),
    ]);
    assert_eq!(module_cycles(&crate_files), [["a", "b"]]);
}

#[test]
fn a_folder_of_modules_is_one_module() {
    let crate_files = files(&[
        ("lib.rs", "mod a; mod b;"),
        ("a/mod.rs", "mod inner; use super::b;"),
        ("a/inner.rs", "use super::super::b::B; use super::X;"),
        ("b.rs", "pub struct B;"),
    ]);
    assert!(module_cycles(&crate_files).is_empty());
    let cyclic = files(&[
        ("lib.rs", "mod a; mod b;"),
        ("a/mod.rs", "mod inner;"),
        ("a/inner.rs", "use super::super::b::B;"),
        ("b.rs", "use crate::a::inner;"),
    ]);
    assert_eq!(module_cycles(&cyclic), [["a", "b"]]);
}
