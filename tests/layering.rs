//! The layering of `src/`, enforced: every `crate::` and `super::` path in a module's code (not
//! its comments, strings or `mod tests`) points to a module of its own layer or a lower one, as
//! the `layer` lines of `src/lib.rs`'s module docs list them, and no files import each other,
//! directly or around a cycle.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Each module of `src/` (`analysis::demangle`, `text`; `lib.rs` and `main.rs` aside) → its
/// source.
fn modules() -> BTreeMap<String, String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut out = BTreeMap::new();
    let mut dirs = vec![root.clone()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let rel = path.strip_prefix(&root).unwrap().with_extension("");
            let mut parts: Vec<String> = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            if parts.last().is_some_and(|p| p == "mod") {
                parts.pop();
            }
            if parts == ["lib"] || parts == ["main"] {
                continue;
            }
            out.insert(parts.join("::"), std::fs::read_to_string(&path).unwrap());
        }
    }
    out
}

/// `source` without comments, string literals and its `#[cfg(test)] mod` (which comes last).
fn code(source: &str) -> String {
    let source = match source.find("#[cfg(test)]\nmod ") {
        Some(i) => &source[..i],
        None => source,
    };
    let b = source.as_bytes();
    let mut out = String::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let rest = &source[i..];
        if rest.starts_with("//") {
            i += rest.find('\n').unwrap_or(rest.len());
        } else if let Some(raw) = rest.strip_prefix("r#\"") {
            i += 3 + raw.find("\"#").map_or(raw.len(), |e| e + 2);
        } else if b[i] == b'"' && (i == 0 || b[i - 1] != b'\'') {
            let mut j = i + 1;
            while j < b.len() && b[j] != b'"' {
                j += if b[j] == b'\\' { 2 } else { 1 };
            }
            i = j + 1;
            out.push_str("\"\"");
        } else {
            let ch = rest.chars().next().unwrap();
            out.push(ch);
            i += ch.len_utf8();
        }
    }
    out
}

/// The module `path` (`crate::a::b`, `super::x::y`, written in module `from`) names: its
/// longest prefix that is a module of `modules`.
fn resolve(from: &str, path: &[&str], modules: &BTreeMap<String, String>) -> Option<String> {
    let mut full: Vec<&str> = Vec::new();
    let mut segs = path;
    if segs.first() == Some(&"crate") {
        segs = &segs[1..];
    } else {
        full = from.split("::").collect();
        while segs.first() == Some(&"super") {
            full.pop();
            segs = &segs[1..];
        }
    }
    full.extend_from_slice(segs);
    (1..=full.len())
        .rev()
        .map(|k| full[..k].join("::"))
        .find(|m| modules.contains_key(m))
}

/// The modules `code` (of module `from`) refers to, other than itself and its own ancestors
/// and descendants.
fn imports(from: &str, code: &str, modules: &BTreeMap<String, String>) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let mut add = |path: Vec<&str>| {
        if let Some(m) = resolve(from, &path, modules) {
            let related = m == from
                || m.starts_with(&format!("{from}::"))
                || from.starts_with(&format!("{m}::"));
            if !related {
                out.insert(m);
            }
        }
    };
    for (at, _) in code
        .match_indices("crate::")
        .chain(code.match_indices("super::"))
    {
        if at > 0 && code[..at].ends_with(|c: char| ident(c) || c == ':') {
            continue;
        }
        let rest = &code[at..];
        let len = rest
            .find(|c: char| !ident(c) && c != ':')
            .unwrap_or(rest.len());
        let path: Vec<&str> = rest[..len].split("::").filter(|s| !s.is_empty()).collect();
        if rest[len..].starts_with('{') {
            // `use crate::a::{b, c::d}`: each item's first segment.
            let group = &rest[len + 1..rest[len..].find('}').map_or(rest.len(), |e| len + e)];
            for item in group.split(',') {
                let first = item.trim().split("::").next().unwrap_or("");
                if !first.is_empty() && first != "self" && first.chars().all(ident) {
                    add(path.iter().copied().chain([first]).collect());
                }
            }
        }
        add(path);
    }
    out
}

/// The layers of `src/lib.rs`'s docs, lowest first: each top-level module → its layer.
fn layers() -> BTreeMap<String, usize> {
    let lib =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("src/lib.rs")).unwrap();
    let lines: Vec<&str> = lib
        .lines()
        .filter_map(|l| l.strip_prefix("//! layer "))
        .collect();
    assert!(lines.len() >= 5, "src/lib.rs lists no layers");
    let mut out = BTreeMap::new();
    for (rank, line) in lines.iter().rev().enumerate() {
        for m in line.split_whitespace() {
            assert!(
                out.insert(m.to_string(), rank).is_none(),
                "{m} listed twice"
            );
        }
    }
    out
}

#[test]
fn imports_point_down_the_layers_of_lib_rs() {
    let modules = modules();
    let layers = layers();
    let layer = |m: &str| {
        let top = m.split("::").next().unwrap();
        *layers
            .get(top)
            .unwrap_or_else(|| panic!("src/{top} is in no layer of src/lib.rs"))
    };
    let mut wrong = Vec::new();
    for (m, source) in &modules {
        for to in imports(m, &code(source), &modules) {
            if layer(&to) > layer(m) {
                wrong.push(format!("{m} → {to}"));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "imports against the layers:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn no_files_import_each_other_around_a_cycle() {
    let modules = modules();
    let edges: BTreeMap<&str, BTreeSet<String>> = modules
        .iter()
        .map(|(m, s)| (m.as_str(), imports(m, &code(s), &modules)))
        .collect();
    // Depth-first search; a module reached again while on the path closes a cycle.
    fn visit<'a>(
        m: &'a str,
        edges: &'a BTreeMap<&str, BTreeSet<String>>,
        path: &mut Vec<&'a str>,
        done: &mut BTreeSet<&'a str>,
    ) -> Option<Vec<String>> {
        if let Some(i) = path.iter().position(|p| *p == m) {
            let mut cycle: Vec<String> = path[i..].iter().map(|s| s.to_string()).collect();
            cycle.push(m.to_string());
            return Some(cycle);
        }
        if !done.insert(m) {
            return None;
        }
        path.push(m);
        for to in &edges[m] {
            if let Some(c) = visit(to, edges, path, done) {
                return Some(c);
            }
        }
        path.pop();
        None
    }
    let mut done = BTreeSet::new();
    for m in edges.keys() {
        if let Some(cycle) = visit(m, &edges, &mut Vec::new(), &mut done) {
            panic!("import cycle: {}", cycle.join(" → "));
        }
    }
    assert!(edges.len() > 50, "only {} modules read", edges.len());
}

/// The checker itself: paths, groups, `super`, comments and strings.
#[test]
fn the_import_reader_reads_paths_groups_and_super_but_not_comments_or_strings() {
    let modules: BTreeMap<String, String> = ["a", "a::b", "a::c", "d", "e"]
        .iter()
        .map(|m| (m.to_string(), String::new()))
        .collect();
    let src = "use crate::d::{X, e_fn};\nuse super::c::Y;\n// crate::e::Z\nlet s = \"crate::e\";\nfn f() { crate::e::g() }\n";
    let got = imports("a::b", &code(src), &modules);
    assert_eq!(got, ["a::c", "d", "e"].map(String::from).into());
    let got = imports(
        "a::b",
        &code("let s = \"crate::e\"; // crate::d\n"),
        &modules,
    );
    assert!(got.is_empty(), "{got:?}");
}
